"""Spline speed through the public API: random moves per second."""

from __future__ import annotations

import random
import time
from typing import Any

import spheria


def spline_random_moves(seconds: float = 3.0, seed: int = 0) -> dict[str, Any]:
    """Random games from the empty board for ``seconds``: ``legal_moves()``, ``apply()``, ``is_terminal()``."""
    game = spheria.load_game("spline")
    rng = random.Random(seed)
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "name": "spline random playouts",
        "moves_per_s": round(plies / elapsed, 1),
        "playouts_per_s": round(games / elapsed, 1),
        "plies_per_playout": round(plies / games, 2),
        "seconds": round(elapsed, 2),
    }
