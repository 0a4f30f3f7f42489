"""Every sentence ``spheria analyse`` and ``spheria solve --all`` show, in one table for translation.

Each entry is a ``str.format`` template; text from outside (a record entry, a file name, what
was typed) reaches a template only through :func:`spheria.cli.common.printable`.
"""

from __future__ import annotations

# -- arguments ----------------------------------------------------------------------------------
NEED_INPUT = "give a RECORD, or --game GAME --position SPN"
BOTH_INPUTS = "give a RECORD or --position, not both"
NEED_GAME = "--position needs --game"
POSITION_ERROR = "--position: {error}"
SEAT_NEEDED = "--seat: {game} hides information; name the player whose view to analyse (1 to {last})"
TIME_ERROR = "--time: a number of seconds above 0, not {time}"
ITERATIONS_ERROR = "--iterations: at least 1, not {iterations}"
SEAT_ERROR = "--seat: a player from 1 to {last}, not {seat}"
ANALYSIS_ERROR = "{error}"
NO_RESULT = "no result within {time} s"

# -- the live progress line (on a terminal's stderr) ----------------------------------------------
PROGRESS = "{method}: {count:,} searched, {seconds:.1f} s"

# -- one position -------------------------------------------------------------------------------
STATUS = {
    "exact": "exact ({method})",
    "estimate": "estimate ({method})",
    "unsolved": "not solved within the time ({method})",
    "over": "the game is over",
}
METHOD = {
    "solver": "the eating-phase solver",
    "planner": "the planner's exact set-up search",
    "mcts": "MCTS",
    "spagyric-solver": "the exact Spagyric solver",
    "spagyric-agent": "the Spagyric agent",
    "result": "the result",
}
VERDICT_WON = "{name} to move: wins with perfect play"
VERDICT_LOST = "{name} to move: loses with perfect play"
VALUE_LINE = "{name}: value {value:+.2f}, win rate {rate:.0%}"
RESULT_LINE = "{name}: {value:+g}"
MOVE_COLUMNS = {"move": "move", "value": "value", "rate": "win rate", "visits": "visits", "probability": "probability"}
COLUMN_FORMAT = {"move": "<12", "value": ">7", "rate": ">8", "visits": ">8", "probability": ">11"}
BEST_MOVES = "Best: {moves}"
PRINCIPAL_VARIATION = "Principal variation: {moves}"
SEARCHED_POSITIONS = "{count:,} positions"
SEARCHED_ITERATIONS = "{count:,} iterations"
SEARCHED_SECONDS = "{seconds:.2f} s"

# -- a record -----------------------------------------------------------------------------------
RECORD_ROW = "{number:4d}. {move:<22} {note}"
ROW_EXACT = "{name} had {verdict}"
ROW_VALUE = "{name}'s value {before:+.2f} -> {after:+.2f}"
ROW_ESTIMATE = "{name}'s win rate {before:.0%} -> {after:.0%}"
ROW_UNKNOWN = "(no verdict within the time limit)"
WORD_WON = "won"
WORD_LOST = "lost"
THREW_AWAY = "; threw the win away (winning was {move})"
DROPPED = "; a large drop"
RECORD_SUMMARY = "{moves} moves analysed; {threw} threw a win away."
LARGEST_DROPS = "Largest drops in win rate: moves {moves}."
