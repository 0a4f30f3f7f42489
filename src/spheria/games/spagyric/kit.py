"""What Spagyric offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spagyric.codec import SpagyricCodec
from spheria.games.spagyric.worlds import sample_origin
from spheria.kernel.kit import GameKit

KIT = GameKit(
    codec=SpagyricCodec,
    sample_origin=sample_origin,
)
