"""Random playouts of the whole Special Cake sugar eating phase, from a full cake."""

from __future__ import annotations

import random
import time
from typing import Any

import spheria


def sugar_random_playouts(seconds: float = 3.0, seed: int = 0) -> dict[str, Any]:
    """Play random games from fresh random sugar cakes for ``seconds``; report the rates."""
    game = spheria.load_game("special-cake", variant="sugar")
    rng = random.Random(seed)
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=rng.randrange(2**32))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "name": "special-cake sugar random playouts",
        "playouts_per_s": round(games / elapsed, 1),
        "moves_per_s": round(plies / elapsed, 1),
        "plies_per_playout": round(plies / games, 2),
        "seconds": round(elapsed, 2),
    }
