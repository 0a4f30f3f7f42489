"""The exact solver of Special Cake's eating phase: full cakes and small positions, measured.

``python -m benchmarks.solver`` solves three sugar cakes and 20 positions of 16 candies;
``python -m benchmarks.solver --mint 10 --poisoned 10`` adds ten cakes of each built by random
set-up play (a few minutes on two cores; ``--all-moves`` also proves every winning first move,
several times longer). Each cake is solved with an empty transposition table. The output is
one JSON table; docs/solver.md quotes it. ``--backend python`` runs the pure-Python search;
``python -m benchmarks.solver --compare-backends`` puts one sugar cake and the 20 small
positions on each backend side by side.

Cakes are reproducible: a sugar cake is ``new_initial_state(seed=seed)``; a mint or poisoned
cake is built by uniformly random legal placements drawn from ``random.Random(f"{variant}-{seed}")``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from typing import Any

import spheria
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import backend, clear_tables, solve


def make_cake(variant: str, seed: int, line_rule: str | None = None) -> CakeState:
    """A full cake ready to eat: the seeded random sugar cake, or random set-up play."""
    game = spheria.load_game("special-cake", variant=variant, line_rule=line_rule)
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, CakeState)
    rng = random.Random(f"{variant}-{seed}")
    while state.phase != "eat":
        state.apply(rng.choice(state.legal_moves()))
    return state


def solve_cake(state: CakeState, all_moves: bool = False, time_limit: float | None = None) -> dict[str, Any]:
    """Solve one position from an empty table: the value and a first winning move (or all)."""
    clear_tables()
    cpu = time.process_time()
    row: dict[str, Any] = {"spn": state.to_spn()}
    try:
        result = solve(state, stop_at_first=True, time_limit=time_limit)
    except TimeoutError:
        row.update(value=None, seconds=time_limit)
        return row
    row.update(
        value=result.value,
        positions=result.positions,
        seconds=round(result.seconds, 3),
        cpu_seconds=round(time.process_time() - cpu, 3),
        first_winning_move=str(result.best_moves[0]) if result.value > 0 else None,
    )
    if all_moves:
        cpu = time.process_time()
        full = solve(state)  # the table still holds the first solve
        row.update(
            best_moves=[str(m) for m in full.best_moves] if full.value > 0 else [],
            all_moves_extra_positions=full.positions,
            all_moves_extra_seconds=round(full.seconds, 3),
            all_moves_extra_cpu_seconds=round(time.process_time() - cpu, 3),
        )
    clear_tables()
    return row


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    solved = [r for r in rows if r["value"] is not None]
    summary: dict[str, Any] = {
        "solved": len(solved),
        "timed_out": len(rows) - len(solved),
        "first_eater_wins": sum(r["value"] > 0 for r in solved),
        "first_eater_losses": sum(r["value"] < 0 for r in solved),
    }
    if solved:
        for field in ("seconds", "cpu_seconds", "positions"):
            values = [r[field] for r in solved]
            summary[f"median_{field}"] = round(statistics.median(values), 3)
            summary[f"max_{field}"] = max(values)
    return summary


def solver_full_cakes(
    variant: str, count: int, first_seed: int = 0, all_moves: bool = False, time_limit: float | None = None
) -> dict[str, Any]:
    """Solve ``count`` full cakes of ``variant`` (default line rule) from seeds ``first_seed``..."""
    rows = []
    for seed in range(first_seed, first_seed + count):
        row = solve_cake(make_cake(variant, seed), all_moves, time_limit)
        rows.append({"seed": seed, **row})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # progress: one line per cake
    return {"name": f"special-cake solver: full {variant} cakes", **_summary(rows), "cakes": rows}


def solver_sugar_cake(seed: int = 1) -> dict[str, Any]:
    """Solve one full sugar cake (lines of any colours) with all its winning first moves."""
    clear_tables()
    state = make_cake("sugar", seed)
    cpu = time.process_time()
    result = solve(state)
    cpu = time.process_time() - cpu
    clear_tables()
    return {
        "name": "special-cake solver: full sugar cake",
        "seed": seed,
        "value": result.value,
        "best_moves": [str(m) for m in result.best_moves],
        "positions": result.positions,
        "seconds": round(result.seconds, 3),
        "cpu_seconds": round(cpu, 3),
    }


def solver_small_positions(count: int = 20, candies: int = 16, seed: int = 0) -> dict[str, Any]:
    """Solve ``count`` positions of ``candies`` candies (random eating from random cakes of each variant)."""
    rng = random.Random(seed)
    rows = []
    variants = ("mint", "poisoned", "sugar")
    for i in range(count):
        variant = variants[i % len(variants)]
        state = make_cake(variant, rng.randrange(2**32))
        while state.board.count() > candies and not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        rows.append({"variant": variant, **solve_cake(state)})
    times = [r["seconds"] for r in rows]
    return {
        "name": f"special-cake solver: positions of {candies} candies or fewer",
        "positions_solved": len(rows),
        "total_seconds": round(sum(times), 3),
        "total_cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 3),
        "median_seconds": round(statistics.median(times), 4),
        "max_seconds": max(times),
        "max_positions": max(r["positions"] for r in rows),
    }


def compare_backends(small: int = 20) -> dict[str, Any]:
    """The full sugar cake and ``small`` positions of 16 candies or fewer on each backend.

    Each backend runs in its own process (``SPHERIA_SOLVER``), from an empty table.
    """
    row: dict[str, Any] = {"name": "special-cake solver: compiled and pure-Python backends"}
    for name in ("compiled", "python"):
        command = [sys.executable, "-m", "benchmarks.solver", "--backend", name, "--sugar", "1", "--small", str(small)]
        done = subprocess.run(command, capture_output=True, text=True, env=os.environ | {"SPHERIA_SOLVER": name})
        if done.returncode != 0:
            row[name] = {"error": done.stderr.strip().splitlines()[-1]}
            continue
        sugar, positions = json.loads(done.stdout)["results"]
        row[name] = {
            "sugar_cake_seconds": sugar["seconds"],
            "sugar_cake_cpu_seconds": sugar["cpu_seconds"],
            "sugar_cake_positions": sugar["positions"],
            "small_positions": positions["positions_solved"],
            "small_total_seconds": positions["total_seconds"],
            "small_total_cpu_seconds": positions["total_cpu_seconds"],
            "small_median_seconds": positions["median_seconds"],
            "small_max_seconds": positions["max_seconds"],
        }
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.solver", description=__doc__)
    parser.add_argument("--sugar", type=int, default=3, help="sugar cakes to solve (default 3)")
    parser.add_argument("--small", type=int, default=20, help="positions of 16 candies to solve (default 20)")
    parser.add_argument("--mint", type=int, default=0, help="mint cakes to solve (default 0)")
    parser.add_argument("--poisoned", type=int, default=0, help="poisoned cakes to solve (default 0)")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first mint/poisoned cake")
    parser.add_argument("--all-moves", action="store_true", help="also prove every winning first move")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per cake (default none)")
    parser.add_argument(
        "--backend", choices=("auto", "compiled", "python"), default=None, help="the solver backend (SPHERIA_SOLVER)"
    )
    parser.add_argument(
        "--compare-backends", action="store_true", help="only: one sugar cake and the small positions on each backend"
    )
    args = parser.parse_args(argv)
    if args.backend:
        os.environ["SPHERIA_SOLVER"] = args.backend  # read when the first solve loads the backend
    if args.compare_backends:
        json.dump(compare_backends(args.small), sys.stdout, indent=2)
        print()
        return 0
    rows = [solver_sugar_cake(seed) for seed in range(1, args.sugar + 1)]
    if args.small:
        rows.append(solver_small_positions(args.small))
    for variant, count in (("mint", args.mint), ("poisoned", args.poisoned)):
        if count:
            rows.append(solver_full_cakes(variant, count, args.first_seed, args.all_moves, args.time_limit))
    table = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "backend": backend(),
        "results": rows,
    }
    json.dump(table, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
