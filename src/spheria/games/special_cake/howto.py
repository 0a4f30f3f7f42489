"""How to play Special Cake, in English: the text of ``help rules`` and of the pages' "How to play".

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
# Special Cake
Two players first build a cake of candies on a pyramid, then take turns eating it. Whoever
eats the last candy loses.
"""
    ),
    N_(
        """\
# The pyramid
The board is a 4x4 tray. Candies stack into a pyramid of 30 sites on four levels: 16 on
level 0, 9 on level 1, 4 on level 2 and 1 on top. A site is named by its level, its file
(column letter) and its rank (row number): 0a1 is the bottom-left corner of level 0, 3a1 is
the top. Spheria draws each level separately, rank 1 at the bottom; w is a mint candy, b a
liquorice candy, r the cherry and . an empty site.

A candy on level 1 or higher rests on four candies below it: 1a1 rests on 0a1, 0b1, 0a2 and
0b2. A site can take a candy only when it is on level 0 or all four sites under it are full.
"""
    ),
    N_(
        """\
# Building the cake
In the mint variant (the default) Mint (white) and Liquorice (black) take turns, Mint first,
each placing one candy of their own colour on any site that can take one, until all 30 sites
are full. A placement is written as its site, for example 1b2. In poisoned, Liquorice
places one candy fewer and the red cherry goes on the top site. In sugar the cake is built
at random and eating starts at once.
"""
    ),
    N_(
        """\
# Eating
Mint eats first. On your turn you eat either one candy or a line of candies.

- A candy is pinned while it holds up two or more candies on the level above: it cannot be
  eaten.
- When a candy that holds up exactly one candy is eaten, that candy drops into the hole, the
  one resting on it drops after it, and so on up the pyramid: a drop chain.

A drop chain: eating 0a1 here makes the liquorice candy on 1a1 drop to 0a1 and the mint candy
on 2a1 drop to 1a1.

[[play wbwbbwbwwbwbbwbw/bw.wb..../w.../. 1 eat | 0a1]]
"""
    ),
    N_(
        """\
# Lines
A line is two or more touching candies in a straight row: along a level (same rank or same
file, side by side), or rising one level at a time, each candy resting on the one before in
the same diagonal direction (0a1 1a1 2a1 3a1). Candies diagonal to each other on one level do
not touch. In mint and poisoned a line must hold both colours (this is the option line_rule);
in sugar any candies make a line.

Name the candies of a line in the order you eat them, joined with +. Candies drop after every
single eat, and a candy that dropped is still eaten as part of your move, so a candy pinned
at the start may be eaten later in the same move. On the full cake below, 1b1 is pinned (it
holds 2a1 and 2b1), yet the line 1a1+1c1+1b1 is legal: after 1a1 and 1c1 are eaten, 1b1
holds up only one candy.

[[play wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat | 1a1+1c1+1b1]]
"""
    ),
    N_(
        """\
# The end
Whoever eats the last candy loses (in poisoned: whoever must eat the cherry when it is the
last candy left). With these two candies left, Mint could eat the line 0a1+0b1 and lose; Mint
eats one candy and Liquorice must eat the last.

[[play wb............../........./..../. 1 eat | 0a1]]

A move is written as the candy's site (0a1) or as the line's sites in the order eaten
(1a1+1c1+1b1)."""
    ),
)
