"""Every sentence the sandbox shows a person: seat names, status lines, its commands, refusals."""

from __future__ import annotations

from spheria.i18n import N_, N_plural

SANDBOX_TITLE = N_("Shibumi Sandbox")
#: The seats when nobody owns a colour, by seat number.
SEAT_NAMES = (N_("Player 1"), N_("Player 2"), N_("Player 3"), N_("Player 4"))
#: The seats when each owns the colour of its number: white, black, red.
COLOR_SEAT_NAMES = (N_("White"), N_("Black"), N_("Red"))

OPTION_PLAYERS = N_("the number of seats, 1 to 4")
OPTION_WHITE = N_("white balls in the box")
OPTION_BLACK = N_("black balls in the box")
OPTION_RED = N_("red balls in the box")
OPTION_OWN_COLORS = N_("each seat places and moves only its own colour (Player 1 white, 2 black, 3 red)")
#: The fields of its position notation after the board, as the editor names them.
FIELD_NAMES = (N_("To move"),)
#: The options' names as the pages label them.
LABEL_PLAYERS = N_("players")
LABEL_WHITE = N_("white balls")
LABEL_BLACK = N_("black balls")
LABEL_RED = N_("red balls")
LABEL_OWN_COLORS = N_("own colours")
OWN_COLORS_SEATS = N_("with own_colors=true each seat owns one of the three colours, so 1 to 3 seats, not {n}")
NO_AGENTS = N_(
    "the sandbox enforces only the physics of the set, so the players agree on the rules and the result; "
    "an agent has no goal to play for"
)

# -- the position, for the status lines ----------------------------------------------------
TO_ACT = N_plural(
    "{name} to act: {n} action so far this turn.",
    "{name} to act: {n} actions so far this turn.",
)
IN_HAND = N_("In the box: {counts}.")
MARKS_LAST_TURN = N_("Marked, {name}'s last turn: + placed, > moved, v dropped, x emptied.")
MARKS_THIS_TURN = N_("Marked, this turn: + placed, > moved, v dropped, x emptied.")
OFFERED = N_("{name} offers {result}; {answerer} accepts or declines.")
RESULT_WIN = N_("a win for {name}")
RESULT_DRAW = N_("a draw")
AGREED_WIN = N_("Agreed result: {name} wins.")
AGREED_DRAW = N_("Agreed result: a draw.")

HINT = N_(
    "an action: w 0a1 (place a white ball on 0a1; b black, r red), x 0a1 (remove the ball on 0a1), 0a1-0b2"
    " (move it to 0b2), back (take back your last action of this turn), end (end your turn), offer 2 or"
    " offer draw (offer a win for player 2, or a draw), accept or decline (answer an offer)"
)
HINT_ANSWER = N_("accept or decline ({name} offers {result})")

# -- refusals ----------------------------------------------------------------------------------
NOT_AN_ACTION = N_(
    "{text} is not a sandbox action: write w|b|r and a site to place (w 0a1), x and a site to remove (x 0a1),"
    " two sites to move (0a1-0b2), back, end, offer N or offer draw, accept, decline"
)
NOT_A_COLOR = N_("{text} is not a colour: w (white), b (black) or r (red)")
NOT_A_SEAT = N_("offer {text} names no seat: the seats are 1 to {count} (or offer draw)")
NOT_AN_OFFER = N_("offer {text} is not an offer: write offer and a seat number (offer 2), or offer draw")
TURN = N_("it is {name}'s turn, not {other}'s")
ANSWER_TURN = N_("{answerer} answers {name}'s offer first, not {other}")
TAKEN = N_("{site} is taken")
UNSUPPORTED = N_plural(
    "{site} cannot hold a ball: it rests on four balls, and {empty} is empty",
    "{site} cannot hold a ball: it rests on four balls, and {empty} are empty",
)
ONCE_LEFT = N_("once the ball leaves {source}, {reason}")
NO_BALL = N_("there is no ball on {site}")
PINNED = N_("the ball on {site} is pinned: it holds up the balls on {above}")
NONE_LEFT = N_("no {color} ball is left in the box: all {n} are on the board")
NOT_OWN_COLOR = N_("{name} places and moves {own} balls only, and this ball is {color}")
SAME_SITE = N_("a move takes the ball to another site, not back to {site}")
NOTHING_TO_TAKE_BACK = N_("there is nothing to take back: no ball was placed, removed or moved this turn")
OFFER_WAITING = N_("{name} offered {result}: {answerer} accepts or declines before anything else")
NO_OFFER = N_("no result is offered, so there is nothing to {answer}")

# -- position notation -------------------------------------------------------------------------
SPN_FIELDS = N_("Sandbox SPN has 2 fields (board, seat to move 1..{count}); found {n}")
SPN_SEAT = N_("the seat to move must be 1 to {count}, not {text}")
SPN_TOO_MANY = N_("{n} {color} balls are on the board, but the box holds {most}")
