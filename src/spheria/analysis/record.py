"""The analysis of a whole game: every move's verdict before and after, the moves that threw an
exact win away, the largest drops in win rate and the evaluation series (:func:`analyse_game`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spheria.analysis import messages as msg
from spheria.analysis.budget import Budget
from spheria.analysis.position import analyse_known
from spheria.analysis.result import Analysis, MoveValue, ProgressCallback, rounded
from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS, State
from spheria.kernel.record import Record, start_position

#: analyse_game lists at most this many moves where the win rate fell most...
LARGEST_DROPS = 3
#: ...and only those where it fell by at least this much (on the 0 to 1 scale)...
DROP_THRESHOLD = 0.1
#: ...and by more than this many standard errors of the difference of the two estimates: a fall
#: within the estimates' own error is no evidence of a mistake (it is listed as an estimate).
ERROR_SIGMAS = 2.0


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of a game: its ``number`` (1-based), the ``seat`` that made it (``None`` for a
    joint move of simultaneous seats), its notation, and the analyses of the positions before
    and after."""

    number: int
    seat: int | None
    move: str
    before: Analysis
    after: Analysis

    @property
    def threw_away_win(self) -> bool:
        """An exact win before the move, an exact loss for the same seat after it."""
        if self.seat is None or not (self.before.exact and self.after.exact):
            return False
        before, after = self.before.values, self.after.values
        return before is not None and after is not None and before[self.seat] > 0 and after[self.seat] < 0

    @property
    def win_rates(self) -> tuple[float, float] | None:
        """The mover's win rate (0 to 1) before the move and after it. For an estimate that
        searched the played move, both come from the search before it, as the engine panel shows
        that position: the position's value (its best move's) and the played move's value. A
        separate search of the position after would add its own error and bias (a search's best
        move looks better than it is, for whoever is to move). Otherwise the two positions' values
        (for a joint move, the seat whose rate fell most)."""
        measured = self._measured()
        return None if measured is None else (measured[0], measured[1])

    @property
    def drop(self) -> float | None:
        """How far the mover's win rate (0 to 1) fell with this move (negative: it rose)."""
        rates = self.win_rates
        return None if rates is None else rates[0] - rates[1]

    @property
    def drop_margin(self) -> float | None:
        """The error of :attr:`drop` on the same 0 to 1 scale: :data:`ERROR_SIGMAS` standard errors
        of the difference of the two values (0 when both are exact); ``None`` when an estimate
        carries no error."""
        measured = self._measured()
        return None if measured is None else measured[2]

    def _measured(self) -> tuple[float, float, float | None] | None:
        """The win rates before and after (see :attr:`win_rates`) and the error of their difference."""
        before, after = self.before.values, self.after.values
        if before is None or after is None:
            return None
        played = self._played()
        if played is not None and self.before.value is not None and played.value is not None:
            errors = [self.before.error, played.error]
            start, end = self.before.value, played.value
        else:
            errors = [_error(self.before), _error(self.after)]
            seats = range(len(before)) if self.seat is None else [self.seat]
            seat = max(seats, key=lambda s: before[s] - after[s])
            start, end = before[seat], after[seat]
        margin = None
        if errors[0] is not None and errors[1] is not None:
            margin = ERROR_SIGMAS * math.hypot(errors[0], errors[1]) / 2.0
        return (start + 1.0) / 2.0, (end + 1.0) / 2.0, margin

    def _played(self) -> MoveValue | None:
        """The played move's entry in the estimate before it, if that search valued it for the mover."""
        if self.before.exact or self.seat is None or self.before.seat != self.seat:
            return None
        try:
            played = self.before.move(self.move)
        except KeyError:
            return None
        return played if played.value is not None and played.visits else None

    @property
    def exact(self) -> bool:
        """Both values are exact (a solver's), not estimates."""
        return self.before.exact and self.after.exact

    @property
    def clear_drop(self) -> bool:
        """The win rate fell by more than the error of the values it was computed from."""
        drop, margin = self.drop, self.drop_margin
        return drop is not None and margin is not None and drop > margin

    @property
    def better_moves(self) -> list[str]:
        """The moves that were clearly better: the winning moves, where an exact win was thrown
        away; for an estimate whose fall is clear, the search's best moves whose value beats the
        played move's, in the same search, by more than :data:`ERROR_SIGMAS` standard errors of
        the difference. Otherwise none: nothing is claimed from values within their error."""
        if self.threw_away_win:
            return list(self.before.best_moves)
        played = self._played()
        if played is None or not self.clear_drop:
            return []
        better = []
        for notation in self.before.best_moves:
            best = self.before.move(notation)
            if None in (best.value, best.error, played.value, played.error) or notation == self.move:
                continue
            margin = ERROR_SIGMAS * math.hypot(best.error or 0.0, played.error or 0.0)
            if (best.value or 0.0) - (played.value or 0.0) > margin:
                better.append(notation)
        return better

    def to_json(self, statistics: bool = True) -> dict[str, Any]:
        drop = self.drop
        return {
            "number": self.number,
            "seat": self.seat,
            "move": self.move,
            "status": self.before.status,
            "verdict_before": self.before.verdict,
            "verdict_after": self.after.verdict,
            "values_before": None if self.before.values is None else [rounded(v) for v in self.before.values],
            "values_after": None if self.after.values is None else [rounded(v) for v in self.after.values],
            "win_rates": None if self.win_rates is None else [rounded(r) for r in self.win_rates],
            "drop": rounded(drop),
            "drop_margin": rounded(self.drop_margin),
            "clear_drop": self.clear_drop,
            "exact": self.exact,
            "threw_away_win": self.threw_away_win,
            "best_moves": list(self.before.best_moves),
            "better_moves": self.better_moves,
            "before": self.before.to_json(statistics),
        }


@dataclass(frozen=True)
class GameAnalysis:
    """:func:`analyse_game`'s answer: every move, the throw-aways (exact), the largest drops
    (estimates only: where a move lost the most win rate) and the evaluation series (seat 0's
    value at each position, ``None`` where unknown)."""

    game: str
    options: dict[str, Any]
    moves: list[MoveAnalysis]
    evaluation: list[float | None]

    @property
    def threw_away_win(self) -> list[int]:
        return [m.number for m in self.moves if m.threw_away_win]

    @property
    def largest_drops(self) -> list[int]:
        """The (at most :data:`LARGEST_DROPS`) estimated moves whose win rate fell most, by at
        least :data:`DROP_THRESHOLD` and by more than the estimates' error."""
        return self._drops(clear=True)

    @property
    def drops_within_error(self) -> list[int]:
        """The (at most :data:`LARGEST_DROPS`) estimated moves whose estimated win rate fell by at
        least :data:`DROP_THRESHOLD` but within the estimates' error: no evidence of a mistake."""
        return self._drops(clear=False)

    def _drops(self, clear: bool) -> list[int]:
        dropped = [
            m
            for m in self.moves
            if not m.exact and m.drop is not None and m.drop >= DROP_THRESHOLD and m.clear_drop == clear
        ]
        dropped.sort(key=lambda m: (-(m.drop or 0.0), m.number))
        return [m.number for m in dropped[:LARGEST_DROPS]]

    def to_json(self, statistics: bool = True) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": dict(self.options),
            "moves": [m.to_json(statistics) for m in self.moves],
            "threw_away_win": self.threw_away_win,
            "largest_drops": self.largest_drops,
            "drops_within_error": self.drops_within_error,
            "evaluation": [rounded(v) for v in self.evaluation],
        }


def analyse_game(
    record_or_states: Record | State[Any] | Sequence[State[Any]],
    time: float | None = 0.5,
    progress: Callable[[int, int], object] | None = None,
    *,
    iterations: int | None = None,
    seed: int | None = 0,
    search_progress: ProgressCallback | None = None,
) -> GameAnalysis:
    """Analyse every move of a game: a :class:`Record`, a state with its history, or the
    positions of a game in order (each one move after the one before).

    ``time`` is per position. A game that hides information is analysed from the full record
    (every seat's secrets: the game is over, or the caller holds the referee's state).
    ``progress(number, total)`` is called before each move, ``search_progress`` as each
    position's search runs (as :func:`~spheria.analysis.analyse`'s ``progress``). Raises
    ``ValueError`` (a :class:`RecordError` for a bad record).
    """
    Budget.checked(time, iterations, seed, search_progress)  # a bad argument is refused before any search
    states = _positions(record_or_states)
    if not states:
        raise ValueError(_(msg.NO_MOVES).format(kind=type(record_or_states).__name__))
    game = states[0].game
    cache: dict[int, Analysis] = {}

    def at(index: int) -> Analysis:
        if index not in cache:
            cache[index] = analyse_known(states[index], Budget.checked(time, iterations, seed, search_progress))
        return cache[index]

    rows = []
    for index in range(len(states) - 1):
        if progress is not None:
            progress(index + 1, len(states) - 1)
        before, after = states[index], states[index + 1]
        seat = before.current_player()
        move = after.history[-1]
        rows.append(
            MoveAnalysis(
                index + 1, None if seat == SIMULTANEOUS else seat, before.notation(move), at(index), at(index + 1)
            )
        )
    evaluation = [None if at(i).values is None else at(i).values[0] for i in range(len(states))]  # type: ignore[index]
    return GameAnalysis(game.name, dict(game.options), rows, evaluation)


def _error(analysis: Analysis) -> float | None:
    """The standard error of ``analysis``'s value: 0 when it is exact, ``None`` when unknown."""
    return 0.0 if analysis.exact else analysis.error


def record_positions(record: Record) -> list[State[Any]]:
    """Every position of ``record``, from its start to its last move (raises ``RecordError``)."""
    state = record.initial_state()
    states = [state.clone()]
    for step in record.steps(state):
        states.append(step.state.clone())
    return states


def _positions(given: Record | State[Any] | Sequence[State[Any]]) -> list[State[Any]]:
    if isinstance(given, Record):
        return record_positions(given)
    if isinstance(given, State):
        state = start_position(given)
        states = [state.clone()]
        for move in given.history:
            state.apply(move)
            states.append(state.clone())
        return states
    if isinstance(given, Sequence) and all(isinstance(s, State) for s in given):
        states = list(given)
        for number, (before, after) in enumerate(itertools.pairwise(states), 2):
            if len(after.history) != len(before.history) + 1 or after.history[:-1] != before.history:
                raise ValueError(_(msg.NOT_CONSECUTIVE).format(number=number))
        return states
    raise ValueError(_(msg.NO_MOVES).format(kind=type(given).__name__))
