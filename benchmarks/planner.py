"""How often the set-up planner gets the cake it wants against random set-up play.

``python -m benchmarks.planner --games 40 --out planner-runs.jsonl`` plays, for mint and
poisoned, ``games`` set-ups with the planner as Mint against a random Liquorice and ``games``
with the planner as Liquorice against a random Mint, and solves each final cake exactly. Mint
wants a cake the first eater (Mint) wins; Liquorice wants one the first eater loses. The
baseline is random against random: the cakes of ``benchmarks/label_cakes.py`` (the same
seeds, read from ``--labels`` files when given, else built and solved here).

Set-up ``i`` of a side uses ``random.Random(f"planner-{variant}-{seat}-{i}")`` for the random
player's seed and the planner's seed, so a run is reproducible up to the planner's time limit
(``--time`` per move). One JSON line per set-up goes to ``--out`` (an interrupted run resumes
from it) and to stderr; the summary table goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

import spheria
from benchmarks.label_cakes import label, random_cake
from spheria.agents.random_agent import RandomAgent
from spheria.games.special_cake.planner import PlannerAgent
from spheria.games.special_cake.rules import EAT, CakeState
from spheria.games.special_cake.solver import clear_tables, position_value

VARIANTS = ("mint", "poisoned")
SIDES = {0: "Mint", 1: "Liquorice"}


def play_setup(
    variant: str, seat: int, index: int, time_limit: float, exact: int | None, solves: int | None
) -> dict[str, Any]:
    """One set-up: the planner in ``seat``, random in the other; the final cake solved."""
    seeds = random.Random(f"planner-{variant}-{seat}-{index}")
    planner_seed, random_seed = seeds.randrange(2**32), seeds.randrange(2**32)
    game = spheria.load_game("special-cake", variant=variant)
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    planner = PlannerAgent(seed=planner_seed, time=time_limit, exact=exact, solves=solves)
    opponent = RandomAgent(seed=random_seed)
    clear_tables()
    start = time.perf_counter()
    longest = 0.0
    while state.phase != EAT:
        mover = state.current_player()
        move_start = time.perf_counter()
        move = (planner if mover == seat else opponent).choose(state, mover)
        if mover == seat:
            longest = max(longest, time.perf_counter() - move_start)
        state.apply(move)
    setup_seconds = time.perf_counter() - start
    cake = state.masks()
    value = planner.solved.get(cake)
    solve_start = time.perf_counter()
    if value is None:
        value = position_value(cake, variant, state.game.line_rule)  # the table still holds the planner's work
    solve_seconds = time.perf_counter() - solve_start
    clear_tables()
    return {
        "variant": variant,
        "seat": seat,
        "index": index,
        "spn": state.to_spn(),
        "value": value,
        "wanted": PlannerAgent.wanted(value, seat),
        "setup_seconds": round(setup_seconds, 2),
        "longest_move_seconds": round(longest, 2),
        "final_solve_seconds": round(solve_seconds, 2),
        "cakes_solved_by_planner": len(planner.solved),
    }


def baseline(variant: str, count: int, labels: list[Path]) -> list[dict[str, Any]]:
    """Random against random: labelled cakes 0..count-1 (read from ``labels`` files when they have them)."""
    known: dict[int, dict[str, Any]] = {}
    for path in labels:
        for line in path.read_text().splitlines() if path.exists() else []:
            if line.strip():
                row = json.loads(line)
                if row["variant"] == variant and row["value"] is not None:
                    known[row["seed"]] = row
    rows = []
    for seed in range(count):
        row = known.get(seed)
        if row is None:
            row = {"variant": variant, "seed": seed, **label(random_cake(variant, seed), None)}
        rows.append(row)
    return rows


def fisher_greater(a: int, n: int, b: int, m: int) -> float:
    """One-sided Fisher exact test: the chance of ``a`` or more successes in ``n`` tries when ``a``
    of ``n`` and ``b`` of ``m`` come from one rate (how surprising the planner's ``a``/``n`` is
    against random's ``b``/``m``).

    >>> round(fisher_greater(3, 3, 0, 3), 3)
    0.05
    """
    total, successes = n + m, a + b
    denominator = math.comb(total, n)
    tail = sum(math.comb(successes, k) * math.comb(total - successes, n - k) for k in range(a, min(n, successes) + 1))
    return tail / denominator


def _rate(wanted: int, total: int) -> dict[str, Any]:
    return {"wanted": wanted, "games": total, "percent": round(100.0 * wanted / total, 1) if total else None}


def summarise(runs: list[dict[str, Any]], base: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for variant in base:
        rows = base.get(variant, [])
        losses = sum(r["value"] < 0 for r in rows)
        entry: dict[str, Any] = {
            "random_vs_random": {
                "first_eater_losses": losses,
                "cakes": len(rows),
                "Mint_wanted": _rate(len(rows) - losses, len(rows)),
                "Liquorice_wanted": _rate(losses, len(rows)),
            }
        }
        for seat, side in SIDES.items():
            mine = [r for r in runs if r["variant"] == variant and r["seat"] == seat]
            wanted = sum(r["wanted"] for r in mine)
            random_wanted = losses if seat == 1 else len(rows) - losses
            entry[f"planner_as_{side}"] = {
                **_rate(wanted, len(mine)),
                "p_value_vs_random": round(fisher_greater(wanted, len(mine), random_wanted, len(rows)), 4)
                if mine and rows
                else None,
                "median_setup_seconds": sorted(r["setup_seconds"] for r in mine)[len(mine) // 2] if mine else None,
                "longest_move_seconds": max((r["longest_move_seconds"] for r in mine), default=None),
            }
        table[variant] = entry
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.planner", description=__doc__)
    parser.add_argument("--games", type=int, default=40, help="set-ups per side per variant (default 40)")
    parser.add_argument("--baseline", type=int, default=None, help="random-vs-random cakes (default --games)")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--time", type=float, default=3.0, help="planner seconds per set-up move (default 3)")
    parser.add_argument("--exact", type=int, default=None, help="planner option exact (default: the planner's)")
    parser.add_argument("--solves", type=int, default=None, help="planner option solves (default none)")
    parser.add_argument("--labels", type=Path, nargs="*", default=[], help="label_cakes.py outputs to reuse")
    parser.add_argument("--out", type=Path, required=True, help="JSON-lines file of set-ups (appended to)")
    args = parser.parse_args(argv)
    runs: list[dict[str, Any]] = []
    if args.out.exists():
        runs = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
    done = {(r["variant"], r["seat"], r["index"]) for r in runs}
    with args.out.open("a") as out:
        for index in range(args.games):
            for variant in args.variants:
                for seat in SIDES:
                    if (variant, seat, index) in done:
                        continue
                    row = play_setup(variant, seat, index, args.time, args.exact, args.solves)
                    runs.append(row)
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    print(json.dumps(row), file=sys.stderr, flush=True)
    base: dict[str, list[dict[str, Any]]] = {}
    for variant in args.variants:
        base[variant] = baseline(variant, args.games if args.baseline is None else args.baseline, args.labels)
    runs = [r for r in runs if r["index"] < args.games and r["variant"] in args.variants]
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "games_per_side": args.games,
        "time": args.time,
        "exact": args.exact,
        "solves": args.solves,
        "results": summarise(runs, base),
    }
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
