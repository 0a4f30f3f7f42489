"""Label random mint and poisoned cakes with the exact solver: is the cake a first-eater loss?

``python -m benchmarks.label_cakes --variant mint --count 200 --out cakes-mint.jsonl`` builds
``count`` cakes by uniformly random set-up play (cake ``i`` from
``random.Random(f"label-{variant}-{i}")``, so every cake is reproducible), solves each from an
empty table and writes one JSON line per cake: ``seed``, ``spn``, ``value`` (+1 the first eater
wins, -1 loses, ``null`` past ``--time-limit``) and ``seconds``. Lines already in ``--out`` are
kept and their seeds skipped, so an interrupted run resumes.

The labels are the random-vs-random baseline of ``benchmarks/planner.py`` (``--labels``), and
the measurement behind the planner's ``BASE_LOSS_RATE``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import spheria
from spheria.games.special_cake.rules import EAT, CakeState
from spheria.games.special_cake.solver import clear_tables, position_value

#: A 128 MiB transposition table at most: the machine is shared.
TABLE_BITS = 24


def random_cake(variant: str, seed: int, prefix: str = "label") -> CakeState:
    """The full cake that uniformly random set-up play builds from ``random.Random(f"{prefix}-{variant}-{seed}")``."""
    game = spheria.load_game("special-cake", variant=variant)
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    rng = random.Random(f"{prefix}-{variant}-{seed}")
    while state.phase != EAT:
        state.apply(rng.choice(state.legal_moves()))
    return state


def label(state: CakeState, time_limit: float | None) -> dict[str, Any]:
    """The solved value of a full cake (from an empty table) and the time it took."""
    clear_tables()
    start = time.perf_counter()
    try:
        value: int | None = position_value(
            state.masks(), state.game.variant, state.game.line_rule, time_limit=time_limit, table_bits=TABLE_BITS
        )
    except TimeoutError:
        value = None
    return {"spn": state.to_spn(), "value": value, "seconds": round(time.perf_counter() - start, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.label_cakes", description=__doc__)
    parser.add_argument("--variant", choices=("mint", "poisoned"), default="mint")
    parser.add_argument("--count", type=int, default=100, help="cakes to label (seeds 0..count-1)")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per cake (default 120)")
    parser.add_argument("--out", type=Path, required=True, help="JSON-lines file (appended to)")
    args = parser.parse_args(argv)
    done = set()
    if args.out.exists():
        done = {json.loads(line)["seed"] for line in args.out.read_text().splitlines() if line.strip()}
    with args.out.open("a") as out:
        for seed in range(args.count):
            if seed in done:
                continue
            row = {"variant": args.variant, "seed": seed, **label(random_cake(args.variant, seed), args.time_limit)}
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(json.dumps(row), file=sys.stderr, flush=True)
    clear_tables()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
