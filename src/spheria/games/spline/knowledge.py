"""What the generic searches know of Spline: an evaluation by open lines, a win test by threat sites, a key.

The kit states them as :data:`KNOWLEDGE` (:class:`spheria.kernel.kit.Knowledge`); Spline's own
search (:mod:`spheria.games.spline.search`) judges its horizon with
:func:`spline_relative_evaluation`.

>>> import spheria
>>> state = spheria.load_game("spline").state_from_spn("www.bbb........./........./..../. 1")
>>> KNOWLEDGE.can_win_now is not None and KNOWLEDGE.can_win_now(state)
True

With it the generic agents find White's win in one (0d1 completes the row), and the analysis proves it:

>>> from spheria.agents.registry import make_agent
>>> specs = ("greedy:seed=1", "alphabeta:depth=2,seed=1", "mcts:iterations=300,seed=1")
>>> [str(make_agent(spec).choose(state, 0)) for spec in specs]
['0d1', '0d1', '0d1']
>>> from spheria.analysis import analyse
>>> result = analyse(state, time=60, iterations=600, seed=1)
>>> result.status, result.method, result.best_moves, result.move("0d1").win_rate
('exact', 'prover', ['0d1'], 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

from spheria.engine.board import SPAN_LINES
from spheria.games.spline.rules import LINE_MASKS, SplineState
from spheria.kernel.game import State
from spheria.kernel.kit import Knowledge

_LINE_SIZES = tuple(zip(LINE_MASKS, (len(line) for line in SPAN_LINES), strict=True))
#: Weight of an open line (no enemy ball) by the number of balls it still misses.
_OPEN_LINE_WEIGHT = (0.0, 1.0, 0.3, 0.1, 0.03)
_SPLINE_SCALE = 3.0


def spline_line_potential(white: int, black: int) -> float:
    """White's open lines minus Black's, weighted by how close each is to complete."""
    score = 0.0
    for line, size in _LINE_SIZES:
        w = white & line
        b = black & line
        if not b:
            if w:
                score += _OPEN_LINE_WEIGHT[size - w.bit_count()]
        elif not w:
            score -= _OPEN_LINE_WEIGHT[size - b.bit_count()]
    return score


def _spline_threat(mine: int, free: int) -> bool:
    """Whether ``mine`` completes a line by filling one site of ``free``."""
    for line in LINE_MASKS:
        missing = line & ~mine
        if missing & free and not missing & (missing - 1):
            return True
    return False


def spline_evaluate(state: State[Any], seat: int) -> float:
    """Line potential for ``seat``; close to ±1 when the player to move can complete a line now.

    >>> import spheria
    >>> state = spheria.load_game("spline").state_from_spn("ww..b.........../........./..../. 2")
    >>> spline_evaluate(state, 0) > 0 > spline_evaluate(state, 1)
    True
    """
    assert isinstance(state, SplineState)
    white, black = state.masks()
    to_move = state.current_player()
    if to_move >= 0 and _spline_threat(white if to_move == 0 else black, state.placeable_mask()):
        return 0.95 if to_move == seat else -0.95
    value = math.tanh(spline_line_potential(white, black) / _SPLINE_SCALE) * 0.9
    return value if seat == 0 else -value


def spline_relative_evaluation(mine: int, theirs: int, free: int, my_threats: int, their_threats: int) -> float:
    """:func:`spline_evaluate` for the mover on bare masks, at a quiet horizon of ``alphabeta:engine=game``.

    The search calls it only where the mover cannot win at once and need not block (so no
    threat site is placeable); ``my_threats``/``their_threats`` are each side's threat sites.
    """
    return math.tanh(spline_line_potential(mine, theirs) / _SPLINE_SCALE) * 0.9


def spline_can_win_now(state: State[Any]) -> bool:
    assert isinstance(state, SplineState)
    white, black = state.masks()
    to_move = state.current_player()
    return to_move >= 0 and _spline_threat(white if to_move == 0 else black, state.placeable_mask())


def spline_key(state: State[Any]) -> Hashable:
    assert isinstance(state, SplineState)
    return state.key()


#: What Spline tells the generic searches (random playouts: Spline has no cheaper policy).
KNOWLEDGE = Knowledge(evaluate=spline_evaluate, key=spline_key, can_win_now=spline_can_win_now)
