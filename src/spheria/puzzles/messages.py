"""Every sentence :mod:`spheria.puzzles` shows a person (a puzzle file that is not good, a game
without puzzles), in one table for translation. Each is a ``str.format`` template."""

from __future__ import annotations

from spheria.i18n import N_

NOT_JSON = N_("a puzzle must be a JSON object, not {text}")
NOT_AN_OBJECT = N_("a puzzle must be a JSON object, not {kind}")
MISSING_FIELD = N_("a puzzle needs the field {field}")
UNKNOWN_FIELDS = N_("a puzzle has no field {fields}")
BAD_FIELD = N_("a puzzle's {field} must be {expected}, not {value}")
BAD_POSITION = N_("the puzzle's position {spn} is not a position of {game}: {error}")
BAD_GAME = N_("the puzzle's game {game} with options {options} cannot be loaded: {error}")
BAD_MOVE = N_("the puzzle's move {number} ({move}) is not legal: {error}")
NO_PUZZLE_FOUND = N_("{games} games of {game} gave no puzzle: its puzzle maker finds none")
OVER_TOO_SOON = N_("the puzzle's solution goes on after the game ends")
LINE_WRONG = N_("move {number} ({move}) of the solution is not the only winning move: {found}")
UNDECIDED = N_("the oracle could not decide the position before move {number} in time")
NO_PUZZLES = N_("{game} has no puzzles (its kit offers no puzzle maker)")
NONE_SHIPPED = N_("no puzzles of {game} are shipped; make some with: spheria puzzles build --game {name}")
BAD_LINE = N_("{path}, line {line}: {error}")
#: What each field of a puzzle's JSON form must be (the end of ``BAD_FIELD``).
EXPECTED = {
    "game": N_("a game's name"),
    "options": N_("an object of option values"),
    "spn": N_("a position's notation (text)"),
    "solution": N_("a list of moves, at least one"),
    "themes": N_("a list of theme names"),
    "difficulty": N_("a count (0 or more)"),
    "source": N_("text"),
}
FACT_WRONG = N_("the puzzle's {field} ({value}) is not what its position shows")
