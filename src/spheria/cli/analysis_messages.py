"""Every sentence ``spheria analyse`` and ``spheria solve --all`` show, in one table for translation.

Each entry is a ``str.format`` template; text from outside (a record entry, a file name, what
was typed) reaches a template only through :func:`spheria.cli.common.printable`.
"""

from __future__ import annotations

from spheria.i18n import N_

# -- arguments ----------------------------------------------------------------------------------
NEED_INPUT = N_("give a RECORD, or --game GAME --position SPN")
BOTH_INPUTS = N_("give a RECORD or --position, not both")
NEED_GAME = N_("--position needs --game")
POSITION_ERROR = N_("--position: {error}")
SEAT_NEEDED = N_("--seat: {game} hides information; name the player whose view to analyse (1 to {last})")
TIME_ERROR = N_("--time: a number of seconds above 0, not {time}")
ITERATIONS_ERROR = N_("--iterations: at least 1, not {iterations}")
SEAT_ERROR = N_("--seat: a player from 1 to {last}, not {seat}")
ANALYSIS_ERROR = N_("{error}")
NO_RESULT = N_("no result within {time} s")

# -- the live progress line (on a terminal's stderr) ----------------------------------------------
PROGRESS = N_("{method}: {count:,} searched, {seconds:.1f} s")

# -- one position -------------------------------------------------------------------------------
STATUS = {
    "exact": N_("exact ({method})"),
    "estimate": N_("estimate ({method})"),
    "unsolved": N_("not solved within the time ({method})"),
    "over": N_("the game is over"),
}
METHOD = {
    "solver": N_("the eating-phase solver"),
    "planner": N_("the planner's exact set-up search"),
    "mcts": N_("MCTS"),
    "spagyric-solver": N_("the exact Spagyric solver"),
    "spagyric-agent": N_("the Spagyric agent"),
    "result": N_("the result"),
}
VERDICT_WON = N_("{name} to move: wins with perfect play")
VERDICT_LOST = N_("{name} to move: loses with perfect play")
VALUE_LINE = N_("{name}: value {value:+.2f}, win rate {rate:.0%}")
RESULT_LINE = N_("{name}: {value:+g}")
MOVE_COLUMNS = {
    "move": N_("move"),
    "value": N_("value"),
    "rate": N_("win rate"),
    "visits": N_("visits"),
    "probability": N_("probability"),
}
COLUMN_FORMAT = {"move": "<12", "value": ">7", "rate": ">8", "visits": ">8", "probability": ">11"}
BEST_MOVES = N_("Best: {moves}")
PRINCIPAL_VARIATION = N_("Principal variation: {moves}")
SEARCHED_POSITIONS = N_("{count:,} positions")
SEARCHED_ITERATIONS = N_("{count:,} iterations")
SEARCHED_SECONDS = N_("{seconds:.2f} s")

# -- a record -----------------------------------------------------------------------------------
RECORD_ROW = N_("{number:4d}. {move:<22} {note}")
ROW_EXACT = N_("{name} had {verdict}")
ROW_VALUE = N_("{name}'s value {before:+.2f} -> {after:+.2f}")
ROW_ESTIMATE = N_("{name}'s win rate {before:.0%} -> {after:.0%}")
ROW_UNKNOWN = N_("(no verdict within the time limit)")
WORD_WON = N_("won")
WORD_LOST = N_("lost")
THREW_AWAY = N_("; threw the win away (winning was {move})")
DROPPED = N_("; a large drop")
RECORD_SUMMARY = N_("{moves} moves analysed; {threw} threw a win away.")
LARGEST_DROPS = N_("Largest drops in win rate: moves {moves}.")
