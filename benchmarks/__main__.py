"""Run every benchmark and print one JSON table: ``python -m benchmarks [--seconds S]``.

The table names the move generator and the solver Special Cake ran with (each compiled, or
pure Python when its C extension was not built), since its figures depend on them.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys

from benchmarks.games import bare_loop_ratio, random_games, special_cake_move_generator, special_cake_solver
from benchmarks.integrations import spline_to_cake_ratio
from benchmarks.mcts import mcts_iterations
from benchmarks.solver import solver_small_positions, solver_sugar_cake
from benchmarks.spline import spline_random_moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per benchmark (default 3)")
    args = parser.parse_args(argv)
    seconds = args.seconds
    rows = [
        spline_random_moves(seconds),
        mcts_iterations("spline", seconds),
        random_games("special-cake", seconds, variant="sugar"),
        random_games("special-cake", seconds, variant="mint"),
        spline_to_cake_ratio(seconds),
        bare_loop_ratio(seconds),
        solver_sugar_cake(),
        solver_small_positions(),
        random_games("spinca", seconds, players=2),
        random_games("spinca", seconds, players=3),
        mcts_iterations("spinca", seconds, plies=8, players=3),
        mcts_iterations("spinca", seconds, plies=8, rollout="random", players=3),
        random_games("spagyric", seconds),
    ]
    table = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "special_cake_move_generator": special_cake_move_generator(),
        "special_cake_solver": special_cake_solver(),
        "results": rows,
    }
    json.dump(table, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
