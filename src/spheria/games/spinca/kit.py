"""What Spinca offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spinca.howto import HOWTO
from spheria.kernel.kit import GameKit

KIT = GameKit(howto=HOWTO)
