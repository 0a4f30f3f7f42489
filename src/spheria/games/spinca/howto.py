"""How to play Spinca, in English: the text of ``help rules`` and of the pages' "How to play".

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
# Spinca
Two or three players (or two teams of two) build a temple of 29 marbles together: the
pyramid without its top site. At the end each side scores its smallest group on each face of
the temple, so leave no stragglers anywhere.
"""
    ),
    N_(
        """\
# The temple
Levels 0, 1 and 2 hold 16, 9 and 4 marbles; the top site 3a1 is never used. A site is named by
level, file and rank (0a1 is the bottom-left corner of level 0). A site takes a marble when it
is on level 0 or all four sites under it are full. With two players White places 15 marbles
and Black 14; with three, White, Black and Red place 10, 10 and 9. The game ends when the
29th marble is placed.
"""
    ),
    N_(
        """\
# A turn
1. You may first move one free marble, of any colour, to an empty site next to it on the same
   level (diagonal neighbours count) that can take a marble.
2. Then you must place a marble of your colour on any site that can take one.

A turn is written as the placement (1b2), or as the move and then the placement
(0b2-0a1 1b2).

A marble is free when it is not locked, does not hold up two or more marbles (pinned), and
moving it would not make a locked marble tumble. When a moved marble held up exactly one
marble, that marble tumbles down into the site it left, and so on up the pyramid.
"""
    ),
    N_(
        """\
# Locks
Every marble moved, tumbled or placed during a turn is locked (drawn with +) for the next
player's turn only. Here Black moves the white marble from 0b2 to 0a1; the white marble on
1b2 tumbles down to 0b2; Black places on 1b2, which is full again below. Those three marbles
are locked for White's next turn; White's marble on 0b3, locked during Black's turn, is free
again.

[[play .....wb..wb...../....w..../..../. 2 0b3 | 0b2-0a1 1b2]]
"""
    ),
    N_(
        """\
# Faces and scoring
The temple has four faces: south is rank 1 of every level (the bottom row of each level in
the drawing), north the top row, west file a, east the last file. On each face, your marbles
are connected when they are side by side in a row of that face or one rests on the other. Your
score for a face is the size of your smallest group there (0 if you have no marble on it); your
total is the sum over the four faces. Groups of 1, 1 and 3 on a face score 1.

On the south face below, White has a group of two (0a1 0b1) and a single marble (0d1), so
White scores 1 there; White has no marble on the north face, which scores 0.

[[board wwbw........b.../........./..../. 2 0d1]]

The highest total wins. With two sides, a tie goes to the side with more marbles in the inner
pyramid (0b2 0c2 0b3 0c3 and 1b2). With three players, if two tie for the highest total the
third player wins. Spheria shows every side's scores during the game."""
    ),
)
