"""Every sentence Special Cake shows a person: status lines, move hints, refusals, for translation."""

from __future__ import annotations

from spheria.i18n import N_

CAKE_CHERRY_LEFT = N_("Only the cherry is left: {loser} must eat it. {winner} wins.")
CAKE_LAST_CANDY = N_("{loser} ate the last candy. {winner} wins.")
#: The result's sentence by its reason code (``CakeState.result_reason``).
CAKE_REASON = {"cherry_left": CAKE_CHERRY_LEFT, "last_candy": CAKE_LAST_CANDY}
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
CAKE_SPN_FIELDS = N_("Special Cake SPN has 3 fields (board, player 1|2, place|eat); found {n}")
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

# -- the eating table on demand (eating_table.missing_table_note) ------------------------------
CAKE_NO_EATING_TABLE = N_(
    "The eating table of Special Cake {variant} is not built on this machine, so this eating "
    "position is {how} instead of looked up. For the exact answer at once, build the table once: "
    "spheria tablebase build --variant {variant} ({disk} of disk; it took about {minutes} minutes "
    "on this machine's two cores)."
)
CAKE_SEARCHED_CAPPED = N_("searched for at most {seconds:g} s, and a search that runs out gives no exact answer")
CAKE_SEARCHED_EXACT = N_("searched, exactly but slowly (a full cake can take minutes)")

# -- the pages' words for Special Cake (sent translated by the server's /api/words) ---------------
OPTION_VARIANT = N_("variant")
#: The variants' words, in the order of the option's choices (mint, sugar, poisoned).
VARIANT_WORDS = (N_("mint"), N_("sugar"), N_("poisoned"))
OPTION_LINE_RULE = N_("line rule")
#: The line rules' words, in the order of the option's choices (mixed, any, same).
LINE_RULE_WORDS = (N_("mixed"), N_("any"), N_("same"))
#: Its own agents' names by spec name.
AGENTS = {"solver": N_("solver"), "planner": N_("planner")}
#: The fields of its position notation after the board.
SPN_FIELDS = (N_("To move"), N_("Phase"))
#: Its phases, as it says them.
PHASES = {"place": N_("placing candies"), "eat": N_("eating candies")}
#: What the player to move does, by phase.
TURNS = {"place": N_("{name} places a candy")}
