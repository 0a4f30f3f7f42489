"""Spagyric's own analysis, offered through its kit (``KIT.analyse``, see :mod:`spheria.analysis`).

A live game is analysed from one seat's public view only (the opponent's secret choice never
enters): at a reveal the equilibrium mixed strategy and value by the exact solver
(:mod:`spheria.games.spagyric.solver`) where its table bound reaches, otherwise the Spagyric
agent's strategy as an estimate; at a placement the value of each site. A recorded game (every
secret known) is analysed the same way from its full position, for seat 0.

>>> import spheria
>>> from spheria.analysis import analyse
>>> start = spheria.load_game("spagyric", supply=1).new_initial_state(seed=1)
>>> result = analyse(start.view(1))
>>> result.method, result.status, result.value
('spagyric-solver', 'exact', 0.0)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from spheria.analysis.budget import Budget
from spheria.analysis.cache import on_clear
from spheria.analysis.result import ESTIMATE, EXACT, OVER, RESULT, Analysis, MoveValue, base, two
from spheria.games.spagyric.rules import SpagyricState, SpagyricView
from spheria.kernel.game import PlayerView, State

#: ``method``: the exact Spagyric solver.
SPAGYRIC_SOLVER = "spagyric-solver"
#: ``method``: the Spagyric agent's strategy (an estimate).
SPAGYRIC_AGENT = "spagyric-agent"
#: The exact solver is tried once each seat holds at most this many balls (in hand and
#: stunned; the Spagyric agent's default ``exact``)...
SPAGYRIC_HELD = 4
#: ...and gives way to the agent's estimate if its table would grow past this many reveals.
SPAGYRIC_STATES = 60_000

#: The exact solvers by supply, their tables kept between analyses.
_solvers: dict[int, Any] = {}
#: Guards the solvers' tables (the server analyses from several threads).
_lock = threading.RLock()


@on_clear
def clear_cache() -> None:
    """Forget the solvers' tables."""
    with _lock:
        _solvers.clear()


def analyse(target: State[Any] | PlayerView, budget: Budget) -> Analysis | None:
    """The kit's ``analyse``: a seat's view (:class:`SpagyricView`), or a full state whose
    secrets are known (analysed for seat 0)."""
    if isinstance(target, SpagyricView):
        return _view(target, budget)
    if isinstance(target, SpagyricState):
        return _full(target, budget)
    return None


def _view(view: SpagyricView, budget: Budget) -> Analysis:
    from spheria.games.spagyric.agent import reconstruct

    seat = int(view.player)
    observation = view.observation(seat)
    position = reconstruct(observation)
    start = Analysis(
        str(observation["game"]),
        {"supply": observation["supply_per_color"], "memory": observation["memory"]},
        str(observation["board"]),
        seat,
        str(observation["phase"]),
        SPAGYRIC_SOLVER,
        EXACT,
    )
    return _analysis(position, seat, start, lambda: view, int(observation["supply_per_color"]), budget)


def _full(state: SpagyricState, budget: Budget) -> Analysis:
    from spheria.games.spagyric.solver import position_of

    start = base(state, 0, SPAGYRIC_SOLVER, EXACT)
    return _analysis(position_of(state), 0, start, lambda: state.view(0), state.game.supply, budget)


def _analysis(
    position: Any, seat: int, start: Analysis, view: Callable[[], Any], supply: int, budget: Budget
) -> Analysis:
    """The analysis of a Spagyric ``position`` for ``seat``; ``view`` gives that seat's view for
    the agent's estimate when the exact solver does not reach."""
    from spheria.games.spagyric.agent import held
    from spheria.games.spagyric.rules import OVER as GAME_OVER
    from spheria.games.spagyric.rules import SUDDEN

    if position.phase == GAME_OVER:
        value = position.value()
        return replace(start, method=RESULT, status=OVER, values=[value, -value])
    if position.phase != SUDDEN and held(position) > SPAGYRIC_HELD:
        return _estimate(start, view(), seat, budget)
    with _lock:
        exact = _exact(position, seat, start, supply, budget)
    return _estimate(start, view(), seat, budget) if exact is None else exact


def _exact(position: Any, seat: int, start: Analysis, supply: int, budget: Budget) -> Analysis | None:
    """The exact solver's answer; ``None`` past its table bound. Hold ``_lock``."""
    from spheria.engine.board import SITE_NAMES
    from spheria.games.spagyric.rules import PLACE, Choice
    from spheria.games.spagyric.solver import SolveLimitError, SpagyricSolver

    solver = _solvers.setdefault(supply, SpagyricSolver())
    if solver.reveals > 4 * SPAGYRIC_STATES:
        solver.clear()
    solver.max_states = solver.reveals + SPAGYRIC_STATES
    sign = 1.0 if seat == 0 else -1.0
    try:
        if position.phase == PLACE:
            if position.placer != seat:
                value = _signed(sign, solver.value(position))
                return replace(start, value=value, values=two(value, seat), seconds=budget.elapsed())
            sites = solver.placement_values(position)
            moves = [MoveValue(SITE_NAMES[site], _signed(sign, v)) for site, v in sites.items()]
            value = max(m.value or 0.0 for m in moves)
        else:
            solution = solver.solve_reveal(position)
            value = _signed(sign, solution.value)
            moves = [
                MoveValue(str(Choice(color)), _signed(sign, _against(solution, seat, index)), probability=probability)
                for index, (color, probability) in enumerate(
                    zip(solution.colors[seat], solution.strategies[seat], strict=True)
                )
            ]
    except SolveLimitError:
        return None
    finally:
        solver.max_states = None
    best = max(m.value or 0.0 for m in moves)
    return replace(
        start,
        value=value,
        values=two(value, seat),
        moves=moves,
        best_moves=[m.move for m in moves if (m.value or 0.0) >= best - 1e-9 and m.probability != 0.0],
        positions=solver.states,
        seconds=budget.elapsed(),
    )


def _signed(sign: float, value: float) -> float:
    """``value`` for seat 0 as a value for the seat of ``sign`` (no ``-0.0``)."""
    return sign * value + 0.0


def _against(solution: Any, seat: int, index: int) -> float:
    """Seat 0's expected value when ``seat`` plays its ``index``-th colour against the other
    seat's equilibrium mix."""
    other = solution.strategies[1 - seat]
    row = solution.matrix[index] if seat == 0 else [line[index] for line in solution.matrix]
    return float(sum(p * v for p, v in zip(other, row, strict=True)))


def _estimate(start: Analysis, view: Any, seat: int, budget: Budget) -> Analysis:
    from spheria.games.spagyric.agent import SpagyricAgent

    if not view.legal_moves(seat):  # the other seat places: this seat has nothing to weigh
        return replace(start, method=SPAGYRIC_AGENT, status=ESTIMATE, moves=[], best_moves=[], seconds=budget.elapsed())
    cap = budget.estimate_time()
    if budget.iterations is None:
        agent = SpagyricAgent(time=cap, seed=budget.seed, max_time=cap)
    else:
        agent = SpagyricAgent(iterations=budget.iterations, seed=budget.seed, max_time=max(cap, 1.0))
    policy = agent.policy(view, seat)
    moves = [MoveValue(str(move), probability=p) for move, p in policy.items()]
    top = max(m.probability or 0.0 for m in moves)
    return replace(
        start,
        method=SPAGYRIC_AGENT,
        status=ESTIMATE,
        moves=moves,
        best_moves=[m.move for m in moves if m.probability == top],
        iterations=agent.last_iterations,
        seconds=budget.elapsed(),
    )
