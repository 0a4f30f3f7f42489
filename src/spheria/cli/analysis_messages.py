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

# -- spheria solve ------------------------------------------------------------------------------
SOLVE_PROGRESS = N_("{positions:,} positions searched, {seconds:.1f} s; analysing {move} ({index}/{moves})")
ANALYSE_PROGRESS = N_("record move {number}/{total}: ")
BACKEND = N_("solver backend: {backend} ({about})")
BACKEND_ABOUT = {
    "compiled": N_("the compiled C search"),
    "python": N_("the pure-Python search, much slower; a C compiler at install builds the fast one"),
}
SPN_ERROR = N_("SPN: {error}")
ONLY_CAKE = N_("the solver solves Special Cake positions")
GAME_IS_OVER = N_("The game is over: {status}")
SOLVE_WON_PLACE = N_("{name} to place: won with perfect play.")
SOLVE_LOST_PLACE = N_("{name} to place: lost with perfect play.")
SOLVE_WON_EAT = N_("{name} to eat: won with perfect play.")
SOLVE_LOST_EAT = N_("{name} to eat: lost with perfect play.")
WINNING_MOVES = N_("Winning moves ({n}): {moves}")
EVERY_MOVE_LOSES = N_("Every move loses ({n}): {moves}")
A_WINNING_MOVE = N_("A winning move ({n}): {moves}")
LOOKED_UP = N_("{positions} set-up positions looked up in {seconds:.3f} s")
SEARCHED = N_("{positions} positions searched in {seconds:.3f} s")

# -- the command line's help ----------------------------------------------------------------------
HELP_SOLVE = N_("solve a Special Cake eating position exactly")
HELP_SOLVE_DESCRIPTION = N_("Solve a Special Cake position in the eating phase: who wins with perfect play, and how.")
HELP_EXAMPLE = N_("example: {example}")
HELP_SPN = N_("the position, e.g. {example}")
HELP_TIME_LIMIT = N_("give up after S seconds")
HELP_FIRST = N_("stop at the first winning move (faster)")
HELP_ALL = N_("list the value of every legal move")
HELP_JSON_RESULT = N_("print the result as JSON")
HELP_VERBOSE = N_("also say which solver backend runs")
HELP_ANALYSE = N_("analyse a recorded game or one position of any game")
HELP_ANALYSE_DESCRIPTION = N_(
    "A record: each move's verdict before and after, the Special Cake eating moves that threw a win away and "
    "the moves where the engine's win rate fell most. A position (--game, --position): the verdict and the "
    "value or win rate of every legal move."
)
HELP_RECORD = N_("a .spheria.json record of a game")
HELP_POSITION_GAME = N_("the game of --position")
HELP_POSITION = N_("analyse this position (with --game)")
HELP_SEAT = N_("Spagyric: analyse player N's view (1 or 2)")
HELP_TIME = N_("seconds per position (default: exact searches to the end, estimates 1 s)")
HELP_ITERATIONS = N_("MCTS iterations per position (repeatable)")
HELP_SEED = N_("the searches' random seed (default 0)")
HELP_JSON_ANALYSIS = N_("print the analysis as JSON")

# -- spheria spagyric-solve (its report stays English: a research tool) ----------------------------
HELP_SPAGYRIC_SOLVE = N_("solve small Spagyric games exactly and measure agents against them")
HELP_SPAGYRIC_DESCRIPTION = N_(
    "Solve Spagyric with a small supply exactly: its value, and how far agents fall short of it."
)
HELP_SUPPLY = N_("balls of each colour per seat (default 2)")
HELP_POLICY_AGENT = N_("an agent spec with a policy() (repeatable)")
HELP_SYMMETRIC = N_("walk canonical positions (equivariant agents)")
SUPPLY_AT_LEAST = N_("--supply must be at least 1, not {supply}")
POLICY_AGENT_ERROR = N_("--agent {spec}: {error}")
POLICY_AGENT_NO_POLICY = N_("--agent {spec}: this agent has no policy() to measure")
SPAGYRIC_VALUE = N_(
    "supply={supply}: value {value:+.6f} for Player 1; {reveals} canonical reveals, {placements} placements,"
    " {mixed} mixed matrix games, {seconds:.1f} s"
)
SPAGYRIC_DECIDED = N_("{decided} canonical reveals are won or lost with best play; the rest are draws")
SPAGYRIC_EXPLOITABILITY = N_(
    "{spec}: secures {first:+.6f} as Player 1, {second:+.6f} as Player 2; exploitability {exploitability:.6f}"
    " ({decisions} decisions, {seconds:.1f} s)"
)
