"""Every sentence Spinca shows a person: status lines, move hints, refusals, for translation."""

from __future__ import annotations

from spheria.i18n import N_, N_plural

SPINCA_WINS = N_("{sides} wins ({rule}).")
SEAT = {
    "White": N_("White"),
    "Black": N_("Black"),
    "Red": N_("Red"),
    "White-A": N_("White-A"),
    "Black-A": N_("Black-A"),
    "White-B": N_("White-B"),
    "Black-B": N_("Black-B"),
    "White team": N_("White team"),
    "Black team": N_("Black team"),
}
SPINCA_DRAW = N_("Draw ({rule}).")
#: The rule that decided a finished game, by its code (``spinca.rules.decide``).
SPINCA_RULE = {
    "face_sum": N_("highest face sum"),
    "third_on_faces": N_("two tie for the highest face sum: the third player wins"),
    "inner_of_three": N_("three-way tie on the faces: most marbles in the inner pyramid"),
    "inner": N_("tie on the faces: most marbles in the inner pyramid"),
    "third_on_inner": N_("three-way tie on the faces, two tie for most inner marbles: the third player wins"),
    "tie": N_("tie on the faces and in the inner pyramid: a draw"),
}
SPINCA_TO_PLAY = N_(
    "{name} to play: move a free marble (optional), then place a {color} marble ({placed} of {total} placed)."
)
SPINCA_LOCKED = N_("Locked (+): {sites}.")
SPINCA_NOTHING_LOCKED = N_("Nothing is locked.")
SPINCA_FACES = N_("Smallest group per face (S rank 1, E last file, N last rank, W file a):")
SPINCA_SCORE = N_("S {south}  E {east}  N {north}  W {west}  = {total}  (inner {inner})")
SPINCA_HINT = N_("a placement such as 1b2, or a relocation then a placement such as 0a1-0b2 1b2")
SPINCA_EMPTY_MOVE = N_("empty move: {example}")
SPINCA_EXAMPLE = N_("write a placement such as 1b2, or a relocation then a placement such as 0a1-0b2 1b2")
SPINCA_PARTS = N_plural("{text} has {n} part: {example}", "{text} has {n} parts: {example}")
SPINCA_MOVES_TWICE = N_("{text} moves a marble twice: a turn has at most one relocation")
SPINCA_NO_PLACEMENT = N_("{text} moves a marble but places none: a turn ends with a placement")
SPINCA_NOT_RELOCATION = N_("{text} is not a relocation: write it from-to, e.g. 0a1-0b2")
SPINCA_NOT_PLACEMENT = N_("{text} is not a placement: the turn ends with one site, e.g. 1b2")
SPINCA_NO_MARBLE = N_("there is no marble on {site} to move")
SPINCA_IS_LOCKED = N_("{site} is locked: it moved or was placed on the last turn")
SPINCA_PINNED = N_("{site} is pinned: it holds up two or more marbles")
SPINCA_DROPS_LOCKED = N_("moving {site} would drop the locked marble on {locked}")
SPINCA_SAME_SITE = N_("{source}-{site} does not move the marble: name a neighbouring site")
SPINCA_TOP_UNUSED = N_("3a1 is never used in Spinca")
SPINCA_OTHER_LEVEL = N_("{site} is not adjacent to {source}: a marble moves on its own level")
SPINCA_NOT_ADJACENT = N_("{site} is not adjacent to {source}")
SPINCA_TOP_PLACE = N_("3a1 cannot take a marble: the top is never used in Spinca")
SPINCA_TAKEN = N_("{site} cannot take a marble: it is taken")
SPINCA_TAKEN_AFTER = N_("{site} cannot take a marble: it is taken after {relocation}")
SPINCA_NOT_ON_FOUR = N_("{site} cannot take a marble: it needs four marbles under it")
SPINCA_NOT_ON_FOUR_AFTER = N_("{site} cannot take a marble: it needs four marbles under it after {relocation}")
SPINCA_OVER = N_("the game is over: the temple is complete")
SPINCA_NOT_TURN = N_("it is not {name}'s turn")
SPINCA_SPN_FIELDS = N_("Spinca SPN has 3 fields (board, player to move, locked sites or '-'); found {n}")
SPINCA_SPN_TOP = N_("the top site 3a1 is never used in Spinca")
SPINCA_SPN_COUNTS = N_("with {players} players, {placed} marbles placed means {need}; the board has {have}")
SPINCA_SPN_MOVER = N_("{placed} marbles placed, so player {seat} ({name}) is to move, not {given}")
SPINCA_SPN_LOCKS = N_("locked sites: {error}")
SPINCA_SPN_LOCKED_TWICE = N_("locked sites name {site} twice")
SPINCA_SPN_LOCKED_EMPTY = N_("{site} is locked but holds no marble")
SPINCA_SPN_LAST_UNLOCKED = N_("the marble placed on the last turn is locked: some locked site must hold {color}")
SPINCA_SPN_TOO_MANY_LOCKS = N_("at most 4 marbles are locked (one moved, two tumbled, one placed)")

# -- the pages' words for Spinca (sent translated by the server's /api/words) ---------------------
OPTION_PLAYERS = N_("players")
#: The fields of its position notation after the board.
SPN_FIELDS = (N_("To move"), N_("Locked sites"))
