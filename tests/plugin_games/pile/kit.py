"""What Pile offers beyond its rules: levels, knowledge, a codec and a how-to."""

from __future__ import annotations

from spheria.kernel.kit import GameKit

from .codec import PileCodec
from .howto import HOWTO
from .knowledge import KNOWLEDGE
from .levels import LEVELS

KIT = GameKit(knowledge=KNOWLEDGE, levels=LEVELS, codec=PileCodec, howto=HOWTO)
