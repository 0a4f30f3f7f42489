"""Random games through the public API: games/s and moves/s for any game and options."""

from __future__ import annotations

import random
import time
from typing import Any

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.match import play


def random_games(name: str, seconds: float = 3.0, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Play random games (each from ``new_initial_state(seed)``) for ``seconds``; report the rates.

    Every turn goes through ``state.view(p)``, ``legal_moves`` and ``apply``/``apply_joint``,
    as any agent's would; a Special Cake sugar game is its whole eating phase from a full cake.
    """
    game = spheria.load_game(name, **options)
    rng = random.Random(seed)
    agents = [RandomAgent(seed=rng.randrange(2**32)) for _ in range(game.num_players)]
    games = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=rng.randrange(2**32))
        play(state, agents)
        moves += len(state.history)
        games += 1
    elapsed = time.perf_counter() - start
    label = " ".join([name, *(f"{k}={v}" for k, v in options.items())])
    return {
        "name": f"{label} random games",
        "games_per_s": round(games / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_per_game": round(moves / games, 2),
        "seconds": round(elapsed, 2),
    }
