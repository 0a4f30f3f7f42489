"""How to play Spline, in English: the text of ``help rules`` and of the pages' "How to play".

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
# Spline
White and Black take turns, White first, each placing a ball of their own colour. Whoever
completes a straight line of their colour across a whole level wins at once.
"""
    ),
    N_(
        """\
# Placing
The pyramid has four levels of 16, 9, 4 and 1 sites. A site is named by level, file and rank
(0a1 is the bottom-left corner of level 0). A ball goes on any empty level-0 site, or on a
site whose four supports below are full.
"""
    ),
    N_(
        """\
# Lines
A line spans a whole level: a row, a column or a diagonal of 4 on level 0, of 3 on level 1,
or of 2 on level 2. Only your own colour counts: your ball never completes a line for the
other player. Here White places on 0d1 and wins with the row 0a1 0b1 0c1 0d1.

[[play www.bbb........./........./..../. 1 | 0d1]]

There are no draws: on level 2 any two of the four sites form a line, so someone always wins
before the top."""
    ),
)
