"""Every sentence ``spheria analyse`` shows (and the games' commands that show an analysis), in one
table for translation; a game's own commands keep theirs in the game's package.

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

# -- the live progress line (on a terminal's stderr) ----------------------------------------------
PROGRESS = N_("{method}: {count:,} searched, {seconds:.1f} s")

# -- one position -------------------------------------------------------------------------------
STATUS = {
    "exact": N_("exact ({method})"),
    "estimate": N_("estimate ({method})"),
    "unsolved": N_("not solved within the time ({method})"),
    "over": N_("the game is over"),
}
#: The generic methods' words; a game's own analysis names its own (``Analyser.methods``).
METHOD = {
    "mcts": N_("MCTS"),
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
#: An exact verdict for the mover after the move, by [sign of the value after][unchanged]: the
#: position after the move, in the present ("now": the verdict changed with it).
ROW_EXACT = {
    1: {True: N_("{name} still wins with perfect play"), False: N_("{name} now wins with perfect play")},
    0: {True: N_("{name} still draws with perfect play"), False: N_("{name} now draws with perfect play")},
    -1: {True: N_("{name} still loses with perfect play"), False: N_("{name} now loses with perfect play")},
}
ROW_WIN_LOST = N_("{name} now loses with perfect play: a win thrown away (winning instead: {move})")
ROW_WIN_DRAWN = N_("{name} now only draws with perfect play: a win thrown away (winning instead: {move})")
ROW_DRAW_LOST = N_("{name} now loses with perfect play: a draw thrown away (drawing instead: {move})")
ROW_VALUE = N_("{name}'s exact value {before:+.2f} -> {after:+.2f}")
ROW_ESTIMATE = N_("{name}'s estimated win rate {before:.0%} -> {after:.0%}")
ROW_UNKNOWN = N_("(no verdict within the time limit)")
ROW_NO_VALUE = N_("(an estimate of the best moves only, without a win rate: nothing to compare)")
ESTIMATED_MISTAKE = N_(
    "; the estimate preferred {best} ({best_rate:.0%} against {rate:.0%}, beyond its error of ±{error:.0%})"
)
RECORD_SUMMARY = N_("{moves} moves analysed; {threw} threw a win away.")
ESTIMATED_MISTAKES = N_("Moves an estimate shows as mistakes, beyond its error: {moves}.")

# -- a record's progress -------------------------------------------------------------------------
ANALYSE_PROGRESS = N_("record move {number}/{total}: ")

# -- the command line's help ----------------------------------------------------------------------
HELP_EXAMPLE = N_("example: {example}")
HELP_ANALYSE = N_("analyse a recorded game or one position of any game")
HELP_ANALYSE_DESCRIPTION = N_(
    "A record: each move's verdict before and after, the moves that threw an exact win away and "
    "the moves where the engine's win rate fell most. A position (--game, --position): the verdict and the "
    "value or win rate of every legal move."
)
HELP_RECORD = N_("a .spheria.json record of a game")
HELP_POSITION_GAME = N_("the game of --position")
HELP_POSITION = N_("analyse this position (with --game)")
HELP_SEAT = N_("a game that hides information: analyse player N's view")
HELP_TIME = N_("seconds per position (default: exact searches to the end, estimates 1 s)")
HELP_ITERATIONS = N_("MCTS iterations per position (repeatable)")
HELP_SEED = N_("the searches' random seed (default 0)")
HELP_JSON_ANALYSIS = N_("print the analysis as JSON")
