"""MCTS speed: iterations per second of one search, from a start or a seeded mid-game position."""

from __future__ import annotations

import random
from typing import Any

import spheria
from spheria.agents.mcts import MCTSAgent


def mcts_iterations(
    name: str, seconds: float = 3.0, plies: int = 0, rollout: str = "game", seed: int = 0, **options: Any
) -> dict[str, Any]:
    """One MCTS search (``c=1.4``) for ``seconds`` after ``plies`` random moves (seeded) from the start."""
    state = spheria.load_game(name, **options).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        state.apply(rng.choice(state.legal_moves()))
    agent = MCTSAgent(time=seconds, seed=seed, rollout=rollout)
    move = agent.choose(state, state.current_player())
    stats = agent.last_stats
    assert stats is not None
    where = "from the start" if not plies else f"after {plies} random moves"
    label = " ".join([name, *(f"{k}={v}" for k, v in options.items())])
    return {
        "name": f"{label} mcts {where}" + ("" if rollout == "game" else f" (rollout={rollout})"),
        "iterations_per_s": round(stats.iterations_per_s, 1),
        "iterations": stats.iterations,
        "legal_moves": len(state.legal_moves()),
        "move": str(move),
        "seconds": round(stats.seconds, 2),
    }
