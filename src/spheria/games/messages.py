"""Every sentence the games show a person beside the board: status lines, move hints, the
refusals of a move typed in play, seat names and colour words, in one table for translation.

Each entry is a ``str.format`` template marked for the catalogue (:mod:`spheria.i18n`) and
translated where a game shows it, in the current language. Machine-readable output (SPN,
notation, observations, ``Game.describe()``) never holds these translations: it keeps the
English names.
"""

from __future__ import annotations

from spheria.i18n import N_, N_plural

# -- colour words, by colour index (white, black, red) ----------------------------------------------
COLOR = (N_("white"), N_("black"), N_("red"))
COUNTS = N_("{white} white, {black} black, {red} red")
COUNT_OF_COLOR = N_("{n} {color}")
LIST_SEPARATOR = N_(", ")
AND = N_(" and ")
GAME_OVER = N_("the game is over")
UNKNOWN_GAME = N_("unknown game {name!r} (games: {games})")

# -- game options (a value typed on a command line or sent by a page) --------------------------------
OPTION_TEXT = N_("option {option} takes text, not {value}")
OPTION_CHOICE = N_("option {option} must be one of {choices}; got {value}")
OPTION_BOOL = N_("option {option} takes true or false, not {value}")
OPTION_WHOLE = N_("option {option} takes a whole number, not {value}")
OPTION_FINITE = N_("option {option} takes a finite number, not {value}")
OPTION_BETWEEN = N_("option {option} must be at least {low} and at most {high}, not {value}")
OPTION_AT_LEAST = N_("option {option} must be at least {low}, not {value}")
OPTION_AT_MOST = N_("option {option} must be at most {high}, not {value}")
OPTION_UNKNOWN = N_("{game} has no option {option} (options: {options})")
OPTION_NONE = N_("none")
OPTION_PAIR = N_("option {pair} must be written name=value")

# -- Special Cake ----------------------------------------------------------------------------------
CAKE_CHERRY_LEFT = N_("Only the cherry is left: {loser} must eat it. {winner} wins.")
CAKE_LAST_CANDY = N_("{loser} ate the last candy. {winner} wins.")
CAKE_PLACES_MINT = N_("Set-up: {name} places a mint (w) candy.")
CAKE_PLACES_LIQUORICE = N_("Set-up: {name} places a liquorice (b) candy.")
CAKE_PLACED = N_("{counts} placed")
CAKE_TO_EAT = N_("{name} to eat ({rule} lines).")
CAKE_LEFT = N_("{counts} left")
CAKE_COMPLETE = N_("The cake is complete. {name} eats first.")
CAKE_COMPLETE_CHERRY = N_("The cake is complete. The cherry is on top. {name} eats first.")
CAKE_HINT_PLACE = N_("a site such as 0a1 (level, file, rank)")
CAKE_HINT_EAT = N_("a candy such as 0a1, or a line eaten in order such as 0a1+0b1+0c1")
CAKE_EMPTY_MOVE = N_("empty move: name a site such as 0a1, or a line such as 0a1+0b1")
CAKE_EMPTY_PLACE = N_("{text} has an empty place between its sites")
CAKE_SITE_TWICE = N_("{text} names a site twice")
CAKE_ONE_SITE = N_("in the set-up a move places one candy: name one site")
CAKE_CANNOT_TAKE = N_("{site} cannot take a candy now (taken, or not on four candies)")
CAKE_NO_CANDY = N_("there is no candy on {site}")
CAKE_PINNED = N_("{site} is pinned: it holds up two or more candies")
CAKE_CHERRY_LAST = N_("the cherry may be eaten only when it is the last candy")
CAKE_NOT_A_LINE = N_("{move} is not a line: its candies must touch in one straight row")
CAKE_LINE_RULE = N_("{move} breaks the line rule: a line holds {rule}")
CAKE_LINE_RULE_CHERRY = N_("{move} breaks the line rule: a line holds {rule} and never the cherry")
CAKE_RULE = {"mixed": N_("two or more colours"), "same": N_("one colour only"), "any": N_("any colours")}
CAKE_ORDER_PINNED = N_("in this order the candy from {site} is pinned when its turn comes")

# -- Spline ----------------------------------------------------------------------------------------
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

# -- Spinca ----------------------------------------------------------------------------------------
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

# -- Spagyric --------------------------------------------------------------------------------------
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

# -- Special Cake position notation (typed by people for solve and analyse) ------------------------
CAKE_SPN_FIELDS = N_("Special Cake SPN has 3 fields (board, player 1|2, place|eat); found {n}")
SPN_PLAYER = N_("player to move must be 1 or 2, not {text}")
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
SPINCA_SPN_FIELDS = N_("Spinca SPN has 3 fields (board, player to move, locked sites or '-'); found {n}")
SPINCA_SPN_TOP = N_("the top site 3a1 is never used in Spinca")
SPINCA_SPN_COUNTS = N_("with {players} players, {placed} marbles placed means {need}; the board has {have}")
NONE = N_("none")
SPINCA_SPN_MOVER = N_("{placed} marbles placed, so player {seat} ({name}) is to move, not {given}")
SPINCA_SPN_LOCKS = N_("locked sites: {error}")
SPINCA_SPN_LOCKED_TWICE = N_("locked sites name {site} twice")
SPINCA_SPN_LOCKED_EMPTY = N_("{site} is locked but holds no marble")
SPINCA_SPN_LAST_UNLOCKED = N_("the marble placed on the last turn is locked: some locked site must hold {color}")
SPINCA_SPN_TOO_MANY_LOCKS = N_("at most 4 marbles are locked (one moved, two tumbled, one placed)")
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
CAKE_SPN_PHASE = N_("phase must be 'place' or 'eat', not {text}")
CAKE_TOO_MANY = N_("{count} '{char}' balls; the {variant} variant has at most {limit}")
CAKE_SUGAR_NO_PLACE = N_("the sugar variant has no place phase: its cake is built at random")
CAKE_CHERRY_AFTER_SETUP = N_("the cherry is placed only when the set-up is over")
CAKE_SETUP_OVER = N_("{n} candies placed; the set-up ends at {end}")
CAKE_ALTERNATE = N_("{white} mint and {black} liquorice placed: Mint places first, then they alternate")
CAKE_MINT_TO_PLACE = N_("{white} mint and {black} liquorice placed, so Mint is to place")
CAKE_LIQUORICE_TO_PLACE = N_("{white} mint and {black} liquorice placed, so Liquorice is to place")
CAKE_ONE_CHERRY = N_("the poisoned cake has exactly one cherry ('r') while it is eaten")
CAKE_ON_CHERRY = N_("a candy rests on the cherry: it starts on top and only ever drops")
