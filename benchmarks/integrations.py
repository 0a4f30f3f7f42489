"""Random whole games per second through OpenSpiel and PettingZoo, and the Special Cake ratio.

``python -m benchmarks.integrations [--seconds S]`` prints, for every game configuration, the
random games/s through the native API, ``pyspiel`` and a PettingZoo AEC environment (each
library skipped when it is not installed), then Spline's native rate over Special Cake mint's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from typing import Any

from benchmarks.games import random_games

#: (Spheria name, options) of every configuration measured.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned"}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spline", {}),
    ("spagyric", {"supply": 8}),
]


def _label(name: str, options: dict[str, Any]) -> str:
    return " ".join([name, *(f"{k}={v}" for k, v in options.items())])


def _rates(label: str, games: int, moves: int, elapsed: float) -> dict[str, Any]:
    return {
        "name": label,
        "games_per_s": round(games / elapsed, 1),
        "moves_per_game": round(moves / max(games, 1), 2),
        "seconds": round(elapsed, 2),
    }


def pyspiel_random_games(name: str, seconds: float = 3.0, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Random whole games through ``pyspiel`` (chance by its odds, one action per seat at a joint node)."""
    from spheria.integrations import openspiel

    game = openspiel.load(name, **options)
    rng = random.Random(seed)
    seats = game.num_players()
    games = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            elif state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(seats)])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        games += 1
    return _rates(f"pyspiel {_label(name, options)}", games, moves, time.perf_counter() - start)


def pettingzoo_random_games(name: str, seconds: float = 3.0, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Random whole games through the PettingZoo AEC environment, choosing from each action mask."""
    import numpy as np

    from spheria.integrations.pettingzoo import raw_env

    env = raw_env(name, **options)
    rng = random.Random(seed)
    games = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=rng.randrange(2**32))
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            moves += 1
            del agent
        games += 1
    return _rates(f"pettingzoo {_label(name, options)}", games, moves, time.perf_counter() - start)


def spline_to_cake_ratio(seconds: float = 3.0) -> dict[str, Any]:
    """Spline's random games/s over Special Cake mint's, both native, measured back to back."""
    spline = random_games("spline", seconds)
    cake = random_games("special-cake", seconds, variant="mint")
    return {
        "name": "spline / special-cake mint random games (native)",
        "spline_games_per_s": spline["games_per_s"],
        "special_cake_mint_games_per_s": cake["games_per_s"],
        "ratio": round(spline["games_per_s"] / cake["games_per_s"], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.integrations", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    seconds = parser.parse_args(argv).seconds
    have_openspiel = importlib.util.find_spec("pyspiel") is not None
    have_pettingzoo = importlib.util.find_spec("pettingzoo") is not None
    rows = []
    for name, options in CONFIGS:
        row: dict[str, Any] = {"game": _label(name, options)}
        row["native"] = random_games(name, seconds, **options)["games_per_s"]
        if have_openspiel:
            row["pyspiel"] = pyspiel_random_games(name, seconds, **options)["games_per_s"]
        if have_pettingzoo:
            row["pettingzoo"] = pettingzoo_random_games(name, seconds, **options)["games_per_s"]
        rows.append(row)
    json.dump({"random_games_per_s": rows, "ratio": spline_to_cake_ratio(seconds)}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
