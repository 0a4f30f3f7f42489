"""Can early set-up placements be guided by an evaluation learned from solved cakes? Measured in mint.

Mint's retrograde eating table (``spheria tablebase build``, docs/tablebase.md) labels any
complete mint cake exactly and instantly, so mint is the laboratory for the question the
planner's random early placements raise (docs/agents.md, "Set-up planner"):

1. **A learned evaluation of complete cakes.** ``--train`` random cakes (uniformly random
   set-up play, cake ``i`` from ``random.Random(i)``) and ``--test`` held-out ones (seeds from
   1,000,000) are labelled from the table; a logistic regression (plain Python, L2, batch
   gradient descent) on each site's colour and on which line segments are mixed (hold both
   colours: on a complete cake, the lines the first eater may eat) is fitted to the training cakes. The
   held-out figure is the AUC — the chance that a lost cake is scored above a won one, 0.5 for
   chance — with its Hanley–McNeil 95 % interval.
2. **How much the early placements matter at all.** ``--prefixes`` set-ups of ``--placed``
   random placements, each finished ``--finishes`` times at random: the spread of their chance
   of a first-eater loss, with the part of it that binomial noise explains taken out. A small
   spread bounds what any guide of the early placements could gain against random play.

``--poisoned-labels FILE`` (``benchmarks/label_cakes.py`` output) also scores the labelled
poisoned cakes with the mint weights: does the mint evaluation carry over?

``python -m benchmarks.cake_eval --train 10000 --test 5000 --prefixes 300`` prints JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import spheria
from spheria.engine.board import SEGMENTS, TOP
from spheria.games.special_cake.eating_table import shared_probe
from spheria.games.special_cake.planner import placed, random_finish, set_up_children
from spheria.games.special_cake.rules import MINT, Masks

#: Segments that can be mixed in both mint and poisoned (the top holds the cherry in poisoned).
SEGMENT_MASKS = tuple(sum(1 << s for s in segment) for segment in SEGMENTS if TOP not in segment)


def features(masks: Masks) -> list[float]:
    """A bias, each site's colour below the top (+1 mint, -1 liquorice), and 1 for each segment holding both colours.

    On a complete cake every segment is full, so those are the lines the first eater may eat.
    """
    white, black = masks[0], masks[1]
    colours = [1.0 if white >> s & 1 else -1.0 for s in range(TOP)]
    mixed = [1.0 if white & m and black & m else 0.0 for m in SEGMENT_MASKS]
    return [1.0, *colours, *mixed]


def mint_cakes(count: int, first_seed: int) -> tuple[list[list[float]], list[float]]:
    """Features and labels (1: the first eater loses) of ``count`` random mint cakes, from the table."""
    table = shared_probe()
    if not table.available():
        raise SystemExit("build the mint eating table first: spheria tablebase build --variant mint")
    rows, labels = [], []
    for seed in range(first_seed, first_seed + count):
        cake = random_finish((0, 0, 0), 0, 30, MINT, random.Random(seed))
        rows.append(features(cake))
        labels.append(0.0 if table.wins(cake[0], cake[1]) else 1.0)
    return rows, labels


def fit(rows: Sequence[list[float]], labels: Sequence[float], epochs: int, rate: float = 0.5) -> list[float]:
    """Logistic-regression weights by batch gradient descent with a little L2."""
    weights = [0.0] * len(rows[0])
    for _ in range(epochs):
        gradient = [0.0] * len(weights)
        for x, y in zip(rows, labels, strict=True):
            error = 1.0 / (1.0 + math.exp(-score(weights, x))) - y
            for k, value in enumerate(x):
                if value:
                    gradient[k] += error * value
        weights = [w - rate * (g / len(rows) + 1e-3 * w) for w, g in zip(weights, gradient, strict=True)]
    return weights


def score(weights: Sequence[float], x: Sequence[float]) -> float:
    return sum(w * v for w, v in zip(weights, x, strict=True))


def auc(scores: Sequence[float], labels: Sequence[float]) -> dict[str, float]:
    """The AUC (ties count half) and its Hanley–McNeil 95 % interval."""
    pairs = sorted(zip(scores, labels, strict=True))
    positives = sum(labels)
    negatives = len(labels) - positives
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        rank_sum += (i + j + 1) / 2 * sum(label for _, label in pairs[i:j])
        i = j
    a = (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    variance = (a * (1 - a) + (positives - 1) * (q1 - a * a) + (negatives - 1) * (q2 - a * a)) / (positives * negatives)
    spread = 1.96 * math.sqrt(max(variance, 0.0))
    return {"auc": round(a, 4), "low": round(a - spread, 4), "high": round(a + spread, 4), "lost": positives}


def prefix_spread(prefixes: int, placed_first: int, finishes: int) -> dict[str, Any]:
    """The chance of a first-eater loss after ``placed_first`` random placements: its spread over set-ups."""
    table = shared_probe()
    rates = []
    for i in range(prefixes):
        rng = random.Random(f"prefix-{i}")
        masks, mover = (0, 0, 0), 0
        while placed(masks) < placed_first:
            children = list(set_up_children(masks, mover))
            masks, mover = children[int(rng.random() * len(children))], 1 - mover
        lost = sum(not table.wins(*random_finish(masks, mover, 30, MINT, rng)[:2]) for _ in range(finishes))
        rates.append(lost / finishes)
    rates.sort()
    mean, sd = statistics.mean(rates), statistics.pstdev(rates)
    noise = math.sqrt(mean * (1 - mean) / finishes)
    return {
        "placed": placed_first,
        "set_ups": prefixes,
        "finishes_each": finishes,
        "mean_lost": round(mean, 4),
        "sd": round(sd, 4),
        "binomial_sd": round(noise, 4),
        "true_sd": round(math.sqrt(max(sd * sd - noise * noise, 0.0)), 4),
        "quantiles_0_10_50_90_100": [round(rates[int(q * (len(rates) - 1))], 4) for q in (0, 0.1, 0.5, 0.9, 1)],
    }


def poisoned_transfer(weights: Sequence[float], path: Path) -> dict[str, float]:
    game = spheria.load_game("special-cake", variant="poisoned")
    scores, labels = [], []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row.get("value") is None:
            continue
        masks = game.state_from_spn(row["spn"]).masks()  # type: ignore[attr-defined]
        scores.append(score(weights, features(masks)))
        labels.append(1.0 if row["value"] < 0 else 0.0)
    return auc(scores, labels) | {"cakes": len(labels)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cake_eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", type=int, default=10_000)
    parser.add_argument("--test", type=int, default=5_000)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--prefixes", type=int, default=300)
    parser.add_argument("--placed", type=int, default=14)
    parser.add_argument("--finishes", type=int, default=60)
    parser.add_argument("--poisoned-labels", type=Path)
    args = parser.parse_args(argv)
    rows, labels = mint_cakes(args.train, 0)
    test_rows, test_labels = mint_cakes(args.test, 1_000_000)
    weights = fit(rows, labels, args.epochs)
    report: dict[str, Any] = {
        "train": {"cakes": args.train, "lost": sum(labels)},
        "held_out": auc([score(weights, x) for x in test_rows], test_labels) | {"cakes": args.test},
        "spread": prefix_spread(args.prefixes, args.placed, args.finishes),
    }
    if args.poisoned_labels:
        report["poisoned_with_mint_weights"] = poisoned_transfer(weights, args.poisoned_labels)
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
