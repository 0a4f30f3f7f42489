"""What an analysis answers: :class:`Analysis` (one position), :class:`MoveValue` (one move) and
:class:`Progress` (a report while it runs), with the ``status`` codes and the helpers every
method (the generic estimate, a game's own analysis) builds its answer with."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from spheria.kernel.game import State

#: ``status``: proved by an exact search.
EXACT = "exact"
#: ``status``: a search's estimate (MCTS win rates, or a game agent's strategy).
ESTIMATE = "estimate"
#: ``status``: the exact search did not finish within the time given.
UNSOLVED = "unsolved"
#: ``status``: the game is over; ``values`` holds its result.
OVER = "over"

#: ``method``: the generic estimate (MCTS).
MCTS = "mcts"
#: ``method``: the game is over; its result.
RESULT = "result"


@dataclass(frozen=True)
class MoveValue:
    """One legal move: its notation and what it is worth to the seat analysed.

    ``value`` from -1 to +1 (``None`` when the search did not value it), ``win_rate`` the same
    from 0 to 1, ``visits`` the MCTS visits, ``probability`` its weight in a mixed strategy.
    ``error`` is the standard error of an estimated ``value`` (same scale; ``None`` for an exact
    value or none), see :func:`standard_error`.
    """

    move: str
    value: float | None = None
    visits: int | None = None
    probability: float | None = None
    error: float | None = None

    @property
    def win_rate(self) -> float | None:
        return None if self.value is None else (self.value + 1.0) / 2.0

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "value": rounded(self.value),
            "win_rate": rounded(self.win_rate),
            "visits": self.visits,
            "probability": rounded(self.probability),
            "error": rounded(self.error),
        }


@dataclass(frozen=True)
class Analysis:
    """What :func:`spheria.analysis.analyse` found. See :mod:`spheria.analysis` and docs/analysis.md."""

    game: str
    options: dict[str, Any]
    position: str
    seat: int | None
    phase: str | None
    method: str
    status: str
    verdict: int | None = None
    value: float | None = None
    values: list[float] | None = None
    moves: list[MoveValue] = field(default_factory=list)
    best_moves: list[str] = field(default_factory=list)
    principal_variation: list[str] = field(default_factory=list)
    iterations: int | None = None
    positions: int | None = None
    seconds: float = 0.0
    error: float | None = None
    #: Why the answer is less than it could be, as the game says it: ``{"code": ..., **params}``,
    #: the code one of its analyser's ``notes`` (docs/analysis.md).
    note: dict[str, Any] | None = None

    @property
    def exact(self) -> bool:
        return self.status in (EXACT, OVER)

    @property
    def win_rate(self) -> float | None:
        return None if self.value is None else (self.value + 1.0) / 2.0

    def move(self, notation: str) -> MoveValue:
        """The entry of the move written ``notation``; ``KeyError`` if it is not listed."""
        for entry in self.moves:
            if entry.move == notation:
                return entry
        raise KeyError(notation)

    def to_json(self, statistics: bool = True) -> dict[str, Any]:
        """JSON-ready data with stable keys; ``statistics=False`` leaves out ``seconds`` and
        ``positions`` (searched), which depend on the machine and on what the solvers' tables
        already held: all that differs between two runs of the same exact or seeded analysis."""
        data: dict[str, Any] = {
            "game": self.game,
            "options": dict(self.options),
            "position": self.position,
            "seat": self.seat,
            "phase": self.phase,
            "method": self.method,
            "status": self.status,
            "verdict": self.verdict,
            "value": rounded(self.value),
            "win_rate": rounded(self.win_rate),
            "error": rounded(self.error),
            "values": None if self.values is None else [rounded(v) for v in self.values],
            "best_moves": list(self.best_moves),
            "principal_variation": list(self.principal_variation),
            "moves": [m.to_json() for m in self.moves],
            "iterations": self.iterations,
            "note": None if self.note is None else dict(self.note),
        }
        if statistics:
            data["positions"] = self.positions
            data["seconds"] = round(self.seconds, 3)
        return data


@dataclass(frozen=True)
class Progress:
    """A report while :func:`spheria.analysis.analyse` runs: the ``method`` at work, ``seconds``
    so far, the solver's ``positions`` or MCTS ``iterations``, and for MCTS the analysis so far."""

    method: str
    seconds: float
    positions: int | None = None
    iterations: int | None = None
    partial: Analysis | None = None


ProgressCallback = Callable[[Progress], object]


def standard_error(mean: float, visits: int) -> float:
    """The standard error of ``mean``, the average of ``visits`` results each from -1 to +1.

    A result between -1 and +1 whose average is m varies by at most 1 - m² (its variance is
    largest when every result is -1 or +1); the mean is first drawn towards 0 as if one won and
    one lost game were added, so that a few equal results are not taken as certain.

    >>> round(standard_error(0.0, 100), 3), round(standard_error(1.0, 1), 3), standard_error(0.5, 0)
    (0.1, 0.943, inf)
    """
    if visits <= 0:
        return math.inf
    drawn = mean * visits / (visits + 2)
    return math.sqrt(max(1.0 - drawn * drawn, 0.0) / visits)


def rounded(value: float | None) -> float | None:
    """``value`` as the JSON gives it: four decimals, never ``-0.0``."""
    return None if value is None else round(value, 4) + 0.0  # + 0.0: no "-0.0" in the JSON


def base(state: State[Any], seat: int | None, method: str, status: str) -> Analysis:
    """An analysis of ``state`` for ``seat`` with nothing found yet: the game, its options, the SPN, the
    phase (the state's :meth:`~spheria.kernel.game.State.phase_name`, as the server's frames give it)."""
    return Analysis(
        state.game.name,
        dict(state.game.options),
        state.to_spn(),
        seat,
        state.phase_name(),
        method,
        status,
    )


def two(value: float, seat: int) -> list[float]:
    """Both seats' values of a two-seat zero-sum game, from ``seat``'s ``value``.

    >>> two(1.0, 1), two(-0.0, 0)
    ([-1.0, 1.0], [0.0, 0.0])
    """
    return [value + 0.0, -value + 0.0] if seat == 0 else [-value + 0.0, value + 0.0]


def over(state: State[Any]) -> Analysis:
    """The analysis of a finished game: its result."""
    returns = [float(r) for r in state.returns()]
    return replace(base(state, None, RESULT, OVER), values=returns)
