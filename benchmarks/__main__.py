"""Run every benchmark and print one JSON table: ``python -m benchmarks [--seconds S]``."""

from __future__ import annotations

import argparse
import json
import platform
import sys

from benchmarks.special_cake import sugar_random_playouts
from benchmarks.spline import spline_mcts_iterations, spline_random_moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per benchmark (default 3)")
    args = parser.parse_args(argv)
    rows = [
        sugar_random_playouts(args.seconds),
        spline_random_moves(args.seconds),
        spline_mcts_iterations(args.seconds),
    ]
    table = {"python": platform.python_version(), "machine": platform.machine(), "results": rows}
    json.dump(table, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
