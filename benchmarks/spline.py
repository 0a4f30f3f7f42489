"""Spline speed through the public API (random moves per second) and alphabeta's search speed.

``python -m benchmarks.spline --search 0.5`` prints, for each alphabeta engine, the depth its
search completes within 0.5 CPU seconds and its nodes a second, from the empty board and from
a few fixed openings (a node: one position the search looked at).
``python -m benchmarks.spline --prove`` proves, by Spline's own prover searched to the end, who
wins from the empty board with perfect play, and with which first moves.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from typing import Any

import spheria
from spheria.agents.alphabeta import PROVEN, AlphaBetaAgent
from spheria.games.spline.rules import SplineState
from spheria.games.spline.search import SplineSearch

#: Openings the search benchmark starts from (moves from the empty board).
OPENINGS = ("", "0a1 0d1 0b3 0d2", "0a1 0d1 0b3 0d2 0d4 0c3 0c2 0a4")


def spline_random_moves(seconds: float = 3.0, seed: int = 0) -> dict[str, Any]:
    """Random games from the empty board for ``seconds``: ``legal_moves()``, ``apply()``, ``is_terminal()``."""
    game = spheria.load_game("spline")
    rng = random.Random(seed)
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "name": "spline random playouts",
        "moves_per_s": round(plies / elapsed, 1),
        "playouts_per_s": round(games / elapsed, 1),
        "plies_per_playout": round(plies / games, 2),
        "seconds": round(elapsed, 2),
    }


def spline_search_depth(seconds: float = 0.5, engine: str = "generic") -> list[dict[str, Any]]:
    """For each of :data:`OPENINGS`: the depth ``alphabeta:engine=...`` completes in ``seconds`` of CPU, and its
    speed; ``proven`` is ``won`` or ``lost`` (for the mover) once the search has proven the result."""
    game = spheria.load_game("spline")
    rows = []
    for opening in OPENINGS:
        state = game.new_initial_state()
        for move in opening.split():
            state.apply(state.parse_move(move))
        agent = AlphaBetaAgent(time=seconds, clock="cpu", engine=engine, seed=0)
        start = time.thread_time()
        move = agent.choose(state, state.current_player())
        elapsed = time.thread_time() - start
        last = agent.reports[-1]
        rows.append(
            {
                "engine": engine,
                "plies": len(opening.split()),
                "depth": last.depth,
                "proven": "won" if last.score > PROVEN else "lost" if last.score < -PROVEN else None,
                "move": str(move),
                "nodes_per_s": round(agent.nodes / elapsed),
                "cpu_s": round(elapsed, 2),
            }
        )
    return rows


def prove_opening(moves: str = "") -> dict[str, Any]:
    """Who wins after ``moves`` (from the empty board) with perfect play, and every winning move,
    by :meth:`SplineSearch.winning_moves` searched to the end; its nodes and CPU seconds."""
    state = spheria.load_game("spline").new_initial_state()
    for move in moves.split():
        state.apply(state.parse_move(move))
    assert isinstance(state, SplineState)
    search = SplineSearch()
    start = time.process_time()
    winning = search.winning_moves(state)
    mover = ("White", "Black")[state.current_player()]
    return {
        "opening": moves or "(empty board)",
        "to_move": mover,
        "winner": mover if winning else ("Black", "White")[state.current_player()],
        "winning_moves": [str(move) for move in winning],
        "nodes": search.nodes,
        "positions_kept": len(search.proven),
        "cpu_s": round(time.process_time() - start, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spline", description=__doc__.split("\n\n")[0])
    parser.add_argument("--search", type=float, default=0.5, metavar="S", help="CPU seconds a search (default 0.5)")
    parser.add_argument("--prove", action="store_true", help="prove who wins Spline from the empty board")
    args = parser.parse_args(argv)
    if args.prove:
        print(json.dumps(prove_opening()))
        return 0
    for engine in ("generic", "game"):
        for row in spline_search_depth(args.search, engine):
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
