"""The "How to play" texts, in English, one per game: people's words, kept apart from logic.

Each section (from one ``# `` heading to the next) is one message of the catalogue
(``spheria/locale``), translated when shown; see docs/i18n.md.

The texts are read in the terminal and in the browser alike, so they never say "type" or
"click": a move is described by how it is written.

Each text is light markup read by :mod:`spheria.help`:

- ``# Title`` starts a section;
- a run of lines is one paragraph; ``- `` starts a list item (continued by indented lines);
- lines indented by four spaces are drawn as they are (a small table);
- ``[[board SPN]]`` draws that position of the game as Spheria draws it;
- ``[[play SPN | MOVE]]`` draws the position, the move, and the position after it.

Positions and moves inside ``[[...]]`` are notation, not prose: a translation keeps them as
they are. The tests play every one of them with the engine, so the pictures cannot drift from
the rules.
"""

from __future__ import annotations

from spheria.i18n import N_

SPECIAL_CAKE = (
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

SPAGYRIC = (
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

SPINCA = (
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

SPLINE = (
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

#: Game name (as ``spheria games`` lists it) -> its text, section by section (each section is one
#: catalogue entry, translated by :func:`spheria.help.howto_source`).
HOWTO: dict[str, tuple[str, ...]] = {
    "special-cake": SPECIAL_CAKE,
    "spagyric": SPAGYRIC,
    "spinca": SPINCA,
    "spline": SPLINE,
}
