"""What Spinca offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spinca.codec import SpincaCodec
from spheria.games.spinca.howto import HOWTO
from spheria.games.spinca.knowledge import KNOWLEDGE
from spheria.games.spinca.levels import LEVELS
from spheria.kernel.kit import GameKit

KIT = GameKit(
    knowledge=KNOWLEDGE,
    levels=LEVELS,
    codec=SpincaCodec,
    howto=HOWTO,
)
