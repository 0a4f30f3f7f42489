"""What Spagyric offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spagyric.agent import FixedColorAgent, SpagyricAgent
from spheria.games.spagyric.levels import LEVELS
from spheria.kernel.kit import GameKit

KIT = GameKit(levels=LEVELS, agents={"spagyric": SpagyricAgent, "fixed": FixedColorAgent})
