"""Spline's levels: greedy weakened by random moves, then alpha-beta, and Spline's own search on top.

Chosen by measurement with benchmarks/ladder.py (docs/agents.md, Levels), as every game's ladder
is (:mod:`spheria.agents.levels`).

>>> LEVELS.tables["spline"][4].spec
'alphabeta:time=1,engine=game'
"""

from __future__ import annotations

from spheria.agents.levels import ladder
from spheria.kernel.game import Game
from spheria.kernel.kit import Levels

#: The one ladder.
TABLES = {
    "spline": ladder(
        ("greedy:blunder=0.7", 0.1),
        ("greedy:blunder=0.6", 0.1),
        ("greedy:blunder=0.4", 0.1),
        ("alphabeta:time=0.2,blunder=0.2", 0.2),
        ("alphabeta:time=1,engine=game", 1.0),
    ),
}


def ladder_key(game: Game) -> str:
    """Spline has one ladder."""
    return game.name


LEVELS = Levels(TABLES, ladder_key)
