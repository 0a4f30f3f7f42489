"""How to play Pile, in the markup :mod:`spheria.help` reads."""

from __future__ import annotations

from spheria.i18n import N_

HOWTO = (N_("# Pile\nA pile of stones. On your turn take one or two; whoever takes the last stone wins."),)
