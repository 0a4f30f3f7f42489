"""How to play Spagyric, in English: the text of ``help rules`` and of the pages' "How to play".

Offered through the kit (``KIT.howto``); :mod:`spheria.help` reads its markup (described in
:mod:`spheria.help`) and draws its pictures. Each section, from one ``# `` heading to the next,
is one message of the catalogue (``spheria/locale``), translated when shown; see docs/i18n.md.
"""

from __future__ import annotations

from spheria.i18n import N_

#: The text, section by section (each section is one catalogue entry).
HOWTO: tuple[str, ...] = (
    N_(
        """\
# Spagyric
Two players each hold 8 white, 8 black and 8 red balls, hidden from the other. Each turn
both choose a ball in secret and show them together; the stronger ball goes on the pyramid.
Make a group of exactly four balls of one colour to win; a group of three, or of five or
more, loses.
"""
    ),
    N_(
        """\
# Reveals
White beats black, black beats red, red beats white. Both players choose a colour (written w, b
or r); Spheria shows both at once. The record writes a reveal as both colours, Player 1's
first.

    Player 1  Player 2
       w    :    b      white beats black: Player 1 places the white ball;
                        the black ball goes into the bag of defeat.
       r    :    r      the same colour: both balls are stunned.
"""
    ),
    N_(
        """\
# Stuns
Stunned balls are set aside and cannot be chosen again this turn; both players choose again.
When a ball is finally placed, the turn ends and every stunned ball goes back to its owner.
If a reveal is due and a player has no ball left to choose, the game is a draw.
"""
    ),
    N_(
        """\
# Placing
The winner of the reveal places the ball on any empty site of level 0, or on a site whose
four supports below are full. The pyramid has 30 sites on four levels; a site is named by
level, file and rank (0a1 is the bottom-left corner of level 0).
"""
    ),
    N_(
        """\
# Groups
Balls touch when they are side by side on one level (not diagonally) or when one rests on
another. A group is a set of touching balls of one colour. After each placement, look at the
group holding the new ball:

- exactly 4 balls: the placer wins;
- 3 balls, or 5 or more: the placer loses;
- 1 or 2 balls: play goes on.

Here Player 1 places a white ball on 0c1. It joins the pair on 0a1 0b1 and the single ball on
0d1 into a group of four: Player 1 wins. On 0a2 it would have made a group of three and lost.

[[play ww.w............/........./..../. place 1w 4,8,8 8,4,8 0,0,0 0,0,0 0,4,0 | 0c1]]

If the pyramid is ever full with no result, a sudden-death reveal decides (it cannot happen in
practice: some group of three always appears first)."""
    ),
)
