"""What generic searches may know of Pile: a pile that is a multiple of three loses for the mover."""

from __future__ import annotations

from typing import Any

from spheria.kernel.game import State
from spheria.kernel.kit import Knowledge

from .rules import PileState


def evaluate(state: State[Any], seat: int) -> float:
    """+1 for ``seat`` if it wins with perfect play (two takers), -1 if it loses; 0 with three."""
    assert isinstance(state, PileState)
    if state.game.num_players != 2 or state.is_terminal():
        return state.returns()[seat]
    mover_wins = state.stones % 3 != 0
    return 1.0 if mover_wins == (state.current_player() == seat) else -1.0


KNOWLEDGE = Knowledge(evaluate=evaluate)
