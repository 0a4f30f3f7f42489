"""Every sentence ``spheria puzzles build`` and ``spheria puzzle`` show, in one table for translation.

Each entry is a ``str.format`` template; the names in braces are filled in by the code.
"""

from __future__ import annotations

from spheria.i18n import N_

HELP_PUZZLES = N_("make the shipped puzzles")
HELP_PUZZLES_DESCRIPTION = N_(
    "Make puzzles: positions from games Spheria's agents play where exactly one move wins, each proved"
    " by the game's solver or prover."
)
HELP_BUILD = N_("play games, keep the puzzles and write the game's puzzle file")
HELP_PUZZLE_GAME = N_("the game: {games}")
HELP_COUNT = N_("how many puzzles to make (default %(default)s)")
HELP_BUILD_SEED = N_("the seed of the games played (default %(default)s): the same seed, the same puzzles")
HELP_RECORDS = N_("records of played games (spheria play, the server, the arena) to take puzzles from first")
RECORD_OTHER_GAME = N_("{path} is a record of {game}, not of {wanted}")
RECORD_BAD = N_("{path}: {error}")
HELP_OUTPUT = N_("the file to write (default: the package's puzzle file of the game)")
HELP_PUZZLE = N_("solve a puzzle in the terminal")
HELP_PUZZLE_DESCRIPTION = N_(
    "Solve a shipped puzzle: find the only winning move; one try, then the oracle shows the line."
)
HELP_PUZZLE_JSON = N_("print the puzzle as JSON (game, options, spn, solution) and stop")
HELP_PUZZLE_SEED = N_("pick the puzzle with this seed (default: any)")
BAD_COUNT = N_("--count must be 1 or more, not {count}")
BUILD_PROGRESS = N_("{games} games, {positions} positions, {puzzles} of {count} puzzles, {seconds:.0f} s")
BUILD_DONE = N_("Wrote {count} puzzles of {game} to {path} in {seconds:.0f} s.")

TITLE = N_("Puzzle {id} ({game}, difficulty {difficulty})")
FIND = N_("{player} to move: find the only winning move. One try.")
ASK_MORE = N_("{player} to move again: the only winning move?")
COMMANDS = N_("Type a move, or: hint, moves, quit.")
PROMPT = N_("puzzle> ")
HINT = N_("Hint: the winning move is one of {moves}.")
THEMES = N_("Themes: {themes}")
LEGAL_MOVES = N_("Legal moves: {moves}")
RIGHT = N_("Right: {move} is the only winning move.")
DEFENCE = N_("{player} defends: {move}")
SOLVED = N_("Solved! From here the win is clear.")
WRONG = N_("{move} does not win.")
REFUTATION = N_("The oracle plays it out: {moves}")
SOLUTION = N_("The solution, step by step:")
STEP = N_("{number}. {player}: {move}")
NOT_LEGAL = N_("{error}")
QUIT = N_("The solution was {moves}.")
