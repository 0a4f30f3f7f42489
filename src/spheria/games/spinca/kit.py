"""What Spinca offers beyond its rules: the parts the generic layers ask for (see :mod:`spheria.kernel.kit`)."""

from __future__ import annotations

from spheria.games.spinca import messages as M
from spheria.games.spinca.codec import SpincaCodec
from spheria.games.spinca.howto import HOWTO
from spheria.games.spinca.knowledge import KNOWLEDGE
from spheria.games.spinca.levels import LEVELS
from spheria.kernel.kit import GameKit, GameWords, MeasuredLevels

KIT = GameKit(
    knowledge=KNOWLEDGE,
    levels=LEVELS,
    codec=SpincaCodec,
    howto=HOWTO,
    words=GameWords(fields=M.SPN_FIELDS),
    # docs/agents.md, "Measured ladders": the level tables shipped, Elo with random at 0 (4 seats: one level a team)
    measured_levels=(
        MeasuredLevels({"players": 2}, (406, 652, 930, 1238, 1561)),
        MeasuredLevels({"players": 3}, (96, 220, 331, 435, 583)),
        MeasuredLevels({"players": 4}, (400, 607, 907, 1214, 1582)),
    ),
    vocabulary=frozenset({"temple", "marble", "marbles"}),
)
