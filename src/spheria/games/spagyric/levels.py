"""Spagyric's levels: its own agent, weakened below the top by less work and random decisions.

Chosen by measurement with benchmarks/ladder.py (docs/agents.md, Levels), as every game's ladder
is (:mod:`spheria.agents.levels`). Spagyric's random decisions lose games even to random, so the
levels next to the top are unweakened searches of less work (docs/agents.md, the ladder).

>>> LEVELS.tables["spagyric"][4].spec
'spagyric:time=1'
"""

from __future__ import annotations

from spheria.agents.levels import ladder
from spheria.kernel.game import Game
from spheria.kernel.kit import Levels

#: The one ladder.
TABLES = {
    "spagyric": ladder(
        ("spagyric:iterations=30,exact=1,blunder=0.65", 0.1),
        ("spagyric:iterations=30,exact=1,blunder=0.3", 0.1),
        ("spagyric:iterations=30,exact=1,blunder=0.05", 0.1),
        ("spagyric:iterations=100,exact=1", 0.1),
        ("spagyric:time=1", 1.0),
    ),
}


def ladder_key(game: Game) -> str:
    """Spagyric has one ladder."""
    return game.name


LEVELS = Levels(TABLES, ladder_key)
