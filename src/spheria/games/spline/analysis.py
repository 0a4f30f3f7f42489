"""Spline's own analysis, offered through its kit (``KIT.analyse``, see :mod:`spheria.analysis`):
exact wherever the prover reaches.

The prover (:meth:`spheria.games.spline.search.SplineSearch.winning_moves`) proves every move
to the end: the verdict for the player to move and win/loss for every legal move (``status``
``exact``, ``method`` ``prover``). Spline has no draws, so a move that does not win loses. The
proof may take :data:`EXACT_SHARE` of the time (:data:`PROVE_CAP` seconds without a time); a
position it does not finish in that time is left to the generic estimate, which has the rest.
What the prover finds is kept (one table, true for every later position), so a game's analysis
proves each position once; each answer is cached by position, so asking again gives the same
answer (its ``positions`` those the first proof visited).

>>> import spheria
>>> from spheria.analysis import analyse
>>> game = spheria.load_game("spline")
>>> result = analyse(game.state_from_spn("www.bbb........./........./..../. 1"), time=5)
>>> result.status, result.method, result.verdict, result.best_moves
('exact', 'prover', 1, ['0d1'])
"""

from __future__ import annotations

import threading
import time as _time
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from spheria.agents.alphabeta import OutOfTime
from spheria.analysis.budget import Budget
from spheria.analysis.cache import on_clear
from spheria.analysis.result import EXACT, Analysis, MoveValue, Progress, base, two
from spheria.games.spline.rules import SplineState
from spheria.games.spline.search import SplineSearch
from spheria.kernel.game import PlayerView, State

#: ``method``: the prover's proof to the end.
PROVER = "prover"
#: The share of the time the proof may take before the estimate takes over.
EXACT_SHARE = 2 / 3
#: The seconds the proof may take when the caller gives no time (the empty board takes about ten).
PROVE_CAP = 60.0
#: The seconds between two progress reports while the prover works.
REPORT_EVERY = 0.25
#: The prover's kept table is emptied once it holds more positions than this.
TABLE_LIMIT = 2_000_000

#: The most positions whose answer is kept.
CACHE_SIZE = 4096

_search = SplineSearch()
#: A position's SPN to its proof: the winning moves (as ``str(move)``) and the positions visited.
_cache: OrderedDict[str, tuple[frozenset[str], int]] = OrderedDict()
#: Guards the prover (the server analyses from several threads).
_lock = threading.RLock()


@on_clear
def clear_cache() -> None:
    """Forget what the prover proved."""
    with _lock:
        _search.proven.clear()
        _cache.clear()


def analyse(target: State[Any] | PlayerView, budget: Budget) -> Analysis | None:
    """The kit's ``analyse``: the exact answer for a Spline ``target`` proved within the time;
    ``None`` (the generic estimate answers) when the proof does not finish."""
    if not isinstance(target, SplineState):
        return None
    share = PROVE_CAP if budget.time is None else budget.time * EXACT_SHARE
    deadline = budget.start + share
    last_report = budget.start

    def clock() -> float:
        """The time, for the prover's deadline; reports the positions proved now and then."""
        nonlocal last_report
        now = _time.perf_counter()
        if budget.progress is not None and now - last_report >= REPORT_EVERY:
            last_report = now
            budget.report(Progress(PROVER, budget.elapsed(), positions=_search.nodes - nodes_before))
        return now

    key = target.to_spn()
    with _lock:
        proof = _cache.get(key)
        if proof is not None:
            _cache.move_to_end(key)
            return _answer(target, *proof, budget)
        nodes_before = _search.nodes
        if len(_search.proven) > TABLE_LIMIT:
            _search.proven.clear()
        try:
            winning = frozenset(str(move) for move in _search.winning_moves(target, deadline, clock))
        except OutOfTime:
            return None
        positions = _search.nodes - nodes_before
        _cache[key] = (winning, positions)
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return _answer(target, winning, positions, budget)


def _answer(state: SplineState, winning: frozenset[str], positions: int, budget: Budget) -> Analysis:
    """The exact analysis of ``state`` whose ``winning`` moves the prover found (none: lost)."""
    seat = state.current_player()
    verdict = 1 if winning else -1
    legal = state.legal_moves()
    return replace(
        base(state, seat, PROVER, EXACT),
        verdict=verdict,
        value=float(verdict),
        values=two(float(verdict), seat),
        moves=[MoveValue(state.notation(m), 1.0 if str(m) in winning else -1.0) for m in legal],
        best_moves=[state.notation(m) for m in legal if str(m) in winning],
        positions=positions,
        seconds=budget.elapsed(),
    )
