"""Random games through the public API: games/s and moves/s for any game and options; the bare
``legal_moves()`` + ``apply()`` loop; and which of Special Cake's compiled parts this run uses.

``python -m benchmarks.games [--seconds S]`` prints the bare loop of Spline and Special Cake mint,
their ratio, and Special Cake's move generator and solver (compiled or pure Python).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.games.special_cake import rules as cake_rules
from spheria.games.special_cake import solver as cake_solver
from spheria.match import play

#: What each of Special Cake's two accelerators is called in a report, by whether it was built.
COMPILED_MOVE_GENERATOR = "compiled (_cakemoves)"
COMPILED_SOLVER = "compiled (_cakesolver)"
PURE_PYTHON = "pure Python"


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
    row: dict[str, Any] = {
        "name": f"{label} random games",
        "games_per_s": round(games / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_per_game": round(moves / games, 2),
        "seconds": round(elapsed, 2),
    }
    if name == "special-cake":
        row["move_generator"] = special_cake_move_generator()
    return row


def special_cake_move_generator() -> str:
    """Which generator lists Special Cake's eating moves in this process: the compiled
    ``_cakemoves`` (built at install when a C compiler was found) or the pure-Python one."""
    return COMPILED_MOVE_GENERATOR if cake_rules.COMPILED_MOVES else PURE_PYTHON


def special_cake_solver() -> str:
    """Which search solves Special Cake's eating phase in this process (``SPHERIA_SOLVER`` may force the pure one)."""
    return COMPILED_SOLVER if cake_solver.backend() == cake_solver.COMPILED else PURE_PYTHON


def special_cake_engines() -> dict[str, str]:
    """The row naming Special Cake's move generator and solver, so that its figures can be read."""
    return {
        "name": "special-cake engines",
        "move_generator": special_cake_move_generator(),
        "solver": special_cake_solver(),
    }


def bare_loop(name: str, seconds: float = 3.0, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Random playouts with nothing but ``legal_moves()`` and ``apply()`` (no agent, no view, no
    harness) for ``seconds``: the positions reached per second (one per ``apply``)."""
    game = spheria.load_game(name, **options)
    rng = random.Random(seed)
    playouts = positions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=rng.randrange(2**32))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            positions += 1
        playouts += 1
    elapsed = time.perf_counter() - start
    return {"positions_per_s": round(positions / elapsed), "playouts": playouts, "seconds": round(elapsed, 2)}


def bare_loop_ratio(seconds: float = 3.0) -> dict[str, Any]:
    """Spline's bare loop over Special Cake mint's (whole games: set-up and eating), back to back."""
    spline = bare_loop("spline", seconds)
    cake = bare_loop("special-cake", seconds, variant="mint")
    return {
        "name": "bare loop (legal_moves + apply): spline / special-cake mint",
        "spline_positions_per_s": spline["positions_per_s"],
        "special_cake_mint_positions_per_s": cake["positions_per_s"],
        "ratio": round(spline["positions_per_s"] / cake["positions_per_s"], 2),
        "move_generator": special_cake_move_generator(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.games", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per loop (default 3)")
    seconds = parser.parse_args(argv).seconds
    json.dump({"engines": special_cake_engines(), "bare_loop": bare_loop_ratio(seconds)}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
