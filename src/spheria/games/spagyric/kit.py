"""What Spagyric offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spagyric.agent import FixedColorAgent, SpagyricAgent
from spheria.games.spagyric.codec import SpagyricCodec
from spheria.games.spagyric.levels import LEVELS
from spheria.games.spagyric.worlds import sample_origin
from spheria.kernel.kit import GameKit

KIT = GameKit(
    levels=LEVELS,
    agents={"spagyric": SpagyricAgent, "fixed": FixedColorAgent},
    codec=SpagyricCodec,
    sample_origin=sample_origin,
)
