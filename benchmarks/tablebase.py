"""The retrograde builder's rate per level: ``python -m benchmarks.tablebase --upto 14``.

Builds the mint eating table (mixed lines) from nothing up to ``--upto`` candies in a fresh
temporary cache (or ``--cache DIR``, which then resumes) with ``--threads`` threads, and prints
one JSON table: per level the positions, the canonical positions searched, wall and CPU
seconds, and CPU microseconds per searched position (the figure that projects the full build,
as the machine is shared and wall time depends on the load). ``--plan`` prints every level's
size without computing anything.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from spheria.games.special_cake.tablebase.build import TableSpec, run_builder

_DONE = re.compile(
    r"level +(\d+) +done +(\d+) shapes +(\d+) positions +(\d+) won +(\d+) enumerated +(\d+) searched +"
    r"([\d.]+) s +cpu ([\d.]+) s"
)
_PLAN = re.compile(r"plan +(\d+) +(\d+) shapes +(\d+) positions +(\d+) canonical +([\d.]+) MiB")


def parse_done(line: str) -> dict[str, Any] | None:
    """A finished level's figures from the builder's ``done`` line."""
    match = _DONE.search(line)
    if not match:
        return None
    level, shapes, positions, won, _enumerated, searched = (int(g) for g in match.groups()[:6])
    wall, cpu = float(match.group(7)), float(match.group(8))
    return {
        "level": level,
        "shapes": shapes,
        "positions": positions,
        "won": won,
        "searched": searched,
        "wall_s": wall,
        "cpu_s": cpu,
        "cpu_us_per_searched": round(1e6 * cpu / searched, 3) if searched else None,
    }


def build_rates(upto: int, threads: int, cache: Path | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def collect(line: str) -> None:
        print(line, file=sys.stderr, flush=True)
        row = parse_done(line)
        if row:
            rows.append(row)

    if cache is None:
        with tempfile.TemporaryDirectory() as tmp:
            run_builder(TableSpec(), Path(tmp), threads=threads, upto=upto, output=collect)
    else:
        run_builder(TableSpec(), cache, threads=threads, upto=upto, output=collect)
    return rows


def plan() -> list[dict[str, Any]]:
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        run_builder(TableSpec(), Path(tmp), output=lines.append, extra=["--plan"])
    rows = []
    for line in lines:
        match = _PLAN.search(line)
        if match:
            level, shapes, positions, canonical = (int(g) for g in match.groups()[:4])
            rows.append(
                {
                    "level": level,
                    "shapes": shapes,
                    "positions": positions,
                    "canonical": canonical,
                    "mib": float(match.group(5)),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tablebase", description=__doc__)
    parser.add_argument("--upto", type=int, default=14, help="the last level to build (default 14)")
    parser.add_argument("--threads", type=int, default=2, help="builder threads (default 2)")
    parser.add_argument("--cache", type=Path, help="build here (resuming) instead of a temporary directory")
    parser.add_argument("--plan", action="store_true", help="print the levels' sizes only")
    args = parser.parse_args(argv)
    rows = plan() if args.plan else build_rates(args.upto, args.threads, args.cache)
    table = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "threads": args.threads,
        "levels": rows,
    }
    json.dump(table, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
