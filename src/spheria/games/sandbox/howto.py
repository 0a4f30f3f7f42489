"""How to play in the Shibumi sandbox, in English: the text of ``help rules`` and of the pages' "How to play".

Offered through the kit (``KIT.howto``); :mod:`spheria.help` reads its markup and draws its
pictures. Each section, from one ``# `` heading to the next, is one message of the catalogue.
"""

from __future__ import annotations

from spheria.i18n import N_

#: The text, section by section (each section is one catalogue entry).
HOWTO: tuple[str, ...] = (
    N_(
        """\
# Shibumi Sandbox
A free Shibumi set for 1 to 4 players: play any game of the Shibumi system, or one you are
inventing, by the rules you agree on. Spheria keeps only the physics of the set; who may do
what, and who wins, is up to the players.
"""
    ),
    N_(
        """\
# A turn
On your turn do as many actions as you like, then end your turn with end:

- w 0a1 places a white ball on 0a1 (b black, r red), while the box has one: on an empty
  level-0 site, or on a site resting on four balls;
- x 0a1 removes the ball on 0a1, unless it is pinned (it holds up two or more balls);
- 0a1-0b2 moves a ball: it is removed and placed again as one action;
- back takes back your last action of this turn.
"""
    ),
    N_(
        """\
# Drops
A ball holding up one ball can be removed: the ball it held drops into the hole, and a ball
resting on that one drops after it. Here the white ball on 0a1 leaves, and the red ball on 1a1
drops into its place.

[[play wb..bw........../r......../..../. 1 | x 0a1]]

The next player sees what your turn did: + marks a ball placed, > one moved, v one that
dropped, and x a site left empty."""
    ),
    N_(
        """\
# The result
When the game you play is decided, offer its result: offer 2 offers a win for player 2,
offer draw a draw. Every other player answers in turn with accept or decline; when all
accept, the game ends with that result. A decline hands the turn back to the player who
offered."""
    ),
)
