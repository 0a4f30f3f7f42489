"""Pile's five levels: one ladder whatever the options, generic agents weakest first."""

from __future__ import annotations

from spheria.agents.levels import ladder
from spheria.kernel.game import Game
from spheria.kernel.kit import Levels

TABLES = {
    "test-pile": ladder(
        ("random", 0.1),
        ("greedy:blunder=0.6", 0.1),
        ("greedy:blunder=0.3", 0.1),
        ("mcts:iterations=60", 0.1),
        ("alphabeta:depth=8", 0.1),
    ),
}


def ladder_key(game: Game) -> str:
    return game.name


LEVELS = Levels(TABLES, ladder_key)
