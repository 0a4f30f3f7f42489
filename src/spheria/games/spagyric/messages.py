"""Every sentence Spagyric shows a person: status lines, move hints, refusals, for translation."""

from __future__ import annotations

from spheria.i18n import N_, N_plural

SPAGYRIC_REVEAL = N_("Reveal: both players choose a ball in secret (white beats black beats red beats white).")
SPAGYRIC_SUDDEN = N_("Sudden death: both players choose white, black or red in secret; the stronger ball wins.")
SPAGYRIC_WON_REVEAL = N_("{name} won the reveal ({color} beats {beaten}) and places the {color} ball.")
SPAGYRIC_STUNNED_TURN = N_("Stunned until the turn ends, from each player: {stunned}.")
SPAGYRIC_STUNNED_SUDDEN = N_("Stunned until the sudden death restarts, from each player: {stunned}.")
SPAGYRIC_YOUR_SUPPLY = N_("Your supply: {counts}.")
SPAGYRIC_HOLDS = N_plural("{name} holds {n} ball.", "{name} holds {n} balls.")
SPAGYRIC_BOTH_HOLD = N_("{first} holds {n} balls, {second} {m}.")
SPAGYRIC_ON_PYRAMID = N_("Balls on the pyramid: {n}.")
SPAGYRIC_REVEALS_SO_FAR = N_("Reveals so far: {reveals}.")
SPAGYRIC_DRAW = N_("Draw: a player has no ball left to choose.")
SPAGYRIC_SUDDEN_WIN = N_("{name} wins the sudden death.")
SPAGYRIC_GROUP_WIN = N_("{name} wins: {maker} made a group of {size} {color} balls.")
SPAGYRIC_IS_PLACING = N_("{name} is placing; nothing to choose now")
SPAGYRIC_HINT_PLACE = N_("a site such as 0a1 (level, file, rank)")
SPAGYRIC_HINT_BOTH = N_("both colours, Player 1's first, such as w:b")
SPAGYRIC_HINT_COLOR = N_("a colour you hold: {colors}")
SPAGYRIC_COLOR_CHOICE = N_("{char} ({color})")
SPAGYRIC_NOT_A_COLOR = N_("{text} is not a colour: write w (white), b (black) or r (red)")
SPAGYRIC_NOT_A_REVEAL = N_("{text} is not a reveal: write both colours, Player 1's first, as in w:b")
SPAGYRIC_PLACE_FIRST = N_("{name} must place the {color} ball first")
SPAGYRIC_SEAT_HAS = N_("{name} has {reason}")
SPAGYRIC_YOU_HAVE = N_("you have {reason}")
SPAGYRIC_STUNNED_SUDDEN_REASON = N_("no {color} ball: {color} was stunned in this sudden death")
SPAGYRIC_NONE_TO_CHOOSE = N_(
    "no {color} ball to choose: none left in the supply, and the stunned ones return after the turn"
)
SPAGYRIC_NONE_LEFT = N_("no {color} ball left")
SPAGYRIC_PLACE_FIRST_SITE = N_("{name} must place the {color} ball first: name a site such as 0a1")
SPAGYRIC_CHOOSE_FIRST = N_("no ball to place: both players choose first")
SPAGYRIC_CANNOT_TAKE = N_("{site} cannot take a ball now (taken, or not resting on four balls)")
SPAGYRIC_WAIT = N_("it is {name}'s placement; wait for the next reveal")
SPAGYRIC_BOTH_COLOURS = N_("at a reveal write both players' colours, Player 1's first, as in w:b")
SPAGYRIC_OWN_COLOUR = N_("write only your own colour: w, b or r")
SPAGYRIC_SPN_FIELDS = N_(
    "Spagyric SPN has 8 fields (board, phase, seat, supply 1, supply 2, stunned, bag 1, bag 2); found {n}"
)
SPAGYRIC_SPN_PHASE = N_("phase must be one of {phases}; not {text}")
SPAGYRIC_SPN_SUPPLY = N_("{name}'s supply")
SPAGYRIC_SPN_STUNNED = N_("the stunned balls")
SPAGYRIC_SPN_BAG = N_("{name}'s bag")
SPAGYRIC_SPN_NO_SEAT = N_("in the {phase} phase the seat field is '-', not {text}")
SPAGYRIC_SPN_PLACER = N_("in the place phase the seat field names the placer and the ball, e.g. '1w'; not {text}")
SPAGYRIC_SPN_WINNER = N_("in the over phase the seat field is the winner 1 or 2, or '-' for a draw; not {text}")
SPAGYRIC_SPN_COUNTS = N_("{what} must be three counts white,black,red such as 8,8,8; not {text}")
SPAGYRIC_SPN_COUNT_ABOVE = N_("{what} has {n} {color} balls; a player has only {supply} of each (option supply)")
SPAGYRIC_SPN_SUDDEN_STUNS = N_("in sudden death each colour is stunned at most once, and never all three at once")
SPAGYRIC_SPN_TOTAL = N_(
    "{name}'s {color} balls add up to {total}, not {supply}: {in_supply} in the supply + {stunned} stunned"
    " + {in_bag} in the bag + {won} that won (one per {beaten} ball of {other}'s in the bag)"
)
SPAGYRIC_SPN_IN_PLAY = N_(
    "{n} {color} balls are in play (placed or to place) but the bags hold {beaten_n} {beaten}: each {color} ball"
    " in play beat one {beaten} ball into the bag"
)
SPAGYRIC_SPN_CANNOT_PLACE = N_(
    "{name} cannot be placing a {color} ball: {other}'s bag holds no {beaten} ball for it to have beaten"
)
SPAGYRIC_SPN_GROUP_ON = N_(
    "a group of {n} {color} balls ({sites}) is on the pyramid: the placement that made it ended the game"
)
SPAGYRIC_SPN_SUDDEN_NOT_FULL = N_("sudden death happens only on a full pyramid")
SPAGYRIC_SPN_FULL = N_("the pyramid is full: play goes to sudden death (phase sudden)")
SPAGYRIC_SPN_NO_CHOICE = N_("a player has no ball to choose, so the game is over as a draw (phase over, seat -)")
SPAGYRIC_SPN_DRAW_GROUP = N_("a group of 3 or more is on the pyramid: that game ended with a winner, not a draw")
SPAGYRIC_SPN_DRAW_FULL = N_("a full pyramid goes to sudden death, not a draw")
SPAGYRIC_SPN_DRAW_BALLS = N_("a draw needs a player with no ball left to choose")
SPAGYRIC_SPN_WON_STUNNED = N_("a game won by a placement or a sudden death has no stunned balls: they went back")
SPAGYRIC_SPN_NO_WIN = N_("{name} cannot have won: no group of 3 or more on the pyramid, and it is not full")
SPAGYRIC_SPN_TWO_GROUPS = N_("two groups of 3 or more are on the pyramid: the game ended when the first was made")
SPAGYRIC_SPN_MAKER = N_(
    "a group of {n} {color} balls means {name} placed one last, but {name} has won no reveal with {color}"
)
SPAGYRIC_SPN_NO_LAST = N_(
    "no single last ball could have made the group of {n} {color} balls ({sites}): before it every group had at"
    " most 2 balls"
)

# -- the pages' words for Spagyric (sent translated by the server's /api/words) -------------------
OPTION_SUPPLY = N_("supply")
OPTION_MEMORY = N_("memory rule")
#: Its own agents' names by spec name.
AGENTS = {"spagyric": N_("Spagyric strategy"), "fixed": N_("fixed")}
#: The fields of its position notation after the board.
SPN_FIELDS = (
    N_("Phase"),
    N_("Who places (or won)"),
    N_("Player 1's supply"),
    N_("Player 2's supply"),
    N_("Stunned pairs"),
    N_("Player 1's bag of defeat"),
    N_("Player 2's bag of defeat"),
)
