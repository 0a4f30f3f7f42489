"""Every sentence Spline shows a person: status lines, move hints, refusals, for translation."""

from __future__ import annotations

from spheria.i18n import N_, N_plural

SPLINE_PLACED = N_("{white} white, {black} black placed")
SPLINE_WINS = N_("{color} wins with {line} on level {level}.")
SPLINE_DRAW = N_("Draw: the pyramid is full.")
SPLINE_TO_PLACE = N_("{color} to place.")
SPLINE_HINT = N_("a site such as 0a1 (level, file, rank): an empty level-0 site or one resting on four balls")
SPLINE_TAKEN = N_("{site} is taken")
SPLINE_NOT_ON_FOUR = N_plural(
    "{site} cannot take a ball yet: it rests on four balls, and {empty} is empty",
    "{site} cannot take a ball yet: it rests on four balls, and {empty} are empty",
)
SPLINE_TURN = N_("it is {color}'s turn, not {other}'s")
SPLINE_SPN_FIELDS = N_("Spline SPN has 2 fields (board, player 1|2); found {n}")
SPLINE_NO_RED = N_("Spline has white and black balls only; found red on {sites}")
SPLINE_COUNTS = N_(
    "{white} white and {black} black balls: White moves first, so White has as many balls as Black or one more"
)
SPLINE_WRONG_MOVER = N_("{white} white and {black} black balls, so {color} is to move, not {given}")
SPLINE_BOTH_LINES = N_(
    "both colours have a line (White {white_line}, Black {black_line}): the game ends at the first line"
)
SPLINE_LINE_NOT_LAST = N_(
    "{color} has the line {line} but did not place the last ball: the game ended when the line was made"
)
SPLINE_LINES_NOT_LAST = N_(
    "{color}'s lines {lines} cannot all have been made by the last ball (it must lie on every line, with no ball"
    " resting on it): the game ended at the first line"
)

# -- the pages' words for Spline (sent translated by the server's /api/words) ---------------------
#: The fields of its position notation after the board.
SPN_FIELDS = (N_("To move"),)

# -- the method of its analysis (``spheria analyse``'s "exact (...)") ------------------------------
METHODS = {"prover": N_("the prover's proof to the end")}
