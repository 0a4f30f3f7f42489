"""The analysis board in the browser, measured: time to the first verdict and MCTS iterations/s.

``python -m benchmarks.analysis_browser [--port 18301] [--cakes 3]`` starts ``spheria serve`` on a
loopback port, opens ``/analysis`` in headless Chromium (/usr/bin/chromium) for each position and
reads what the page records: ``data-first-verdict-ms`` (from opening the page to the first
verdict drawn) and ``data-engine-ms`` (from the request to the answer), and for Spinca and Spline
the iterations and iterations per second the engine panel shows. Positions: full mint cakes and
positions of 16 candies (``benchmarks.solver.make_cake`` and random eating, seeded), the starts
of Spinca and Spline. A first page, not counted, starts the server's analysis worker. Each position
is new to the server (its cache of exact answers does not hold it). Prints one JSON table.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.solver import make_cake

CHROMIUM = "/usr/bin/chromium"


def start_server(port: int, db: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "spheria.server", "--port", str(port), "--db", str(db)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/catalog", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not answer")


def url(port: int, **query: str) -> str:
    return f"http://127.0.0.1:{port}/analysis?{urllib.parse.urlencode(query)}"


def measure(browser: Any, address: str) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 820})
    page = context.new_page()
    page.goto(address)
    page.wait_for_function("() => document.body.dataset.engine === 'done'", timeout=120_000)
    row = {
        "first_verdict_ms": int(page.evaluate("document.body.dataset.firstVerdictMs")),
        "engine_ms": int(page.evaluate("document.body.dataset.engineMs")),
        "panel": page.inner_text("#engine-progress"),
        "verdict": page.inner_text("#engine-verdict .verdict-line"),
    }
    shown = re.match(r"([\d,]+) iterations \(([\d,]+)/s\)", row["panel"])
    if shown:
        row["iterations"] = int(shown.group(1).replace(",", ""))
        row["iterations_per_second"] = int(shown.group(2).replace(",", ""))
    context.close()
    return row


def cake_positions(cakes: int) -> dict[str, list[str]]:
    rng = random.Random(15)
    full = [make_cake("mint", 1000 + i).to_spn() for i in range(cakes)]
    small = []
    for i in range(cakes):
        state = make_cake("mint", 2000 + i)
        while state.board.count() > 16 and not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        small.append(state.to_spn())
    return {"mint full cake": full, "mint, 16 candies": small}


def summary(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    values = [r[key] for r in rows if key in r]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)} if values else {}


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=18301)
    parser.add_argument("--cakes", type=int, default=3, help="positions of each Special Cake kind")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(args.port, Path(folder) / "bench.sqlite3")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
                spn = "wbw............./........./..../. 1 eat"
                results["cold start (worker starting)"] = measure(
                    browser, url(args.port, game="special-cake", options="variant=mint", spn=spn)
                )
                for name, positions in cake_positions(args.cakes).items():
                    rows = [
                        measure(browser, url(args.port, game="special-cake", options="variant=mint", spn=p))
                        for p in positions
                    ]
                    results[name] = {
                        "first_verdict_ms": summary(rows, "first_verdict_ms"),
                        "engine_ms": summary(rows, "engine_ms"),
                        "rows": rows,
                    }
                for game in ("spinca", "spline"):
                    results[game] = measure(browser, url(args.port, game=game))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
