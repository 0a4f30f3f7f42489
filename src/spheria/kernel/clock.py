"""Time controls and the clocks of a timed game, for every game and every interface.

A :class:`TimeControl` is how long the seats may think: untimed; real time, a base and an
increment added after each of a seat's moves; or correspondence, a number of days for each move.
It is written ``untimed``, ``5+3`` (5 minutes, 3 seconds a move; a base under a minute is written
in seconds, ``30s+0``) or ``3d``, and in JSON (the server's API, records) as ``null``,
``{"base": seconds, "increment": seconds}`` or ``{"days": n}``.

:class:`Clocks` is the clocks of one timed game: one per seat, in integer milliseconds. It never
reads the wall clock: whoever drives it passes the time in (``now``, milliseconds of any monotonic
source), so a test, a server and a terminal drive it alike. Which seats run is asked of the
state (:func:`running_seats`): the seat to move, or every seat choosing at a node where all
choose at once (a secret choice), each stopping when it has chosen.

>>> control = TimeControl.parse("1+2")
>>> control, control.to_json()
(TimeControl.parse('1+2'), {'base': 60, 'increment': 2})
>>> clocks = Clocks(control, seats=2)
>>> clocks.start([0], now=0)
>>> clocks.stop(0, now=10_000)   # seat 0 thought 10 s, then got its 2 s increment
SeatClock(seat=0, used=10000, left=52000)
>>> clocks.start([1], now=10_000)
>>> clocks.remaining(now=70_000)
[52000, 0]
>>> clocks.expire(now=70_000)    # seat 1 ran out: it loses on time
1
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spheria.i18n import gettext as _
from spheria.kernel import messages as M
from spheria.kernel.game import SIMULTANEOUS, Game, ResultReason

if TYPE_CHECKING:
    from spheria.kernel.game import State

SECOND = 1000
MINUTE = 60 * SECOND
DAY = 24 * 60 * MINUTE

#: The shortest and longest base of a real-time control, in seconds (1 s .. 3 h).
BASE_RANGE = (1, 3 * 60 * 60)
#: The longest increment of a real-time control, in seconds.
MOST_INCREMENT = 60
#: The days per move a correspondence game may take.
DAYS_CHOICES = (1, 3, 7)
#: The time controls offered where a game's kit names none (``GameKit.time_controls``).
PRESETS = ("untimed", "3+2", "5+3", "10+5", "1d", "3d", "7d")
#: The most a seat is credited for lag on one move, in milliseconds (see :meth:`Clocks.stop`).
LAG_CREDIT_CAP = 500
#: The least an agent on the clock is let think, in seconds (the agents' shortest ``time``).
AGENT_LEAST = 0.01

#: The result reason of a game lost on time: ``{"code": "time", "seat": n}``.
TIME_REASON = "time"

UNTIMED = "untimed"
_REAL = re.compile(r"(\d{1,5})(s?)\+(\d{1,3})")
_DAYS = re.compile(r"(\d{1,3})d")


class ClockError(ValueError):
    """A time control that is not one, or a clock driven wrongly; the message names the problem."""


@dataclass(frozen=True)
class TimeControl:
    """How long the seats may think; all three fields 0 is untimed.

    ``base`` and ``increment`` are seconds (real time); ``days`` is days per move (correspondence).
    Build one with :meth:`parse` or :meth:`from_json`, which check the limits.
    """

    base: int = 0
    increment: int = 0
    days: int = 0

    @property
    def timed(self) -> bool:
        return bool(self.base or self.days)

    @property
    def correspondence(self) -> bool:
        return self.days > 0

    @property
    def allowance(self) -> int:
        """Milliseconds a seat has at the start: the base, or the days of one move."""
        return self.days * DAY if self.days else self.base * SECOND

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A control written ``untimed``, ``5+3`` (minutes + seconds), ``30s+0`` or ``3d``.

        >>> TimeControl.parse("3d").days, TimeControl.parse("30s+1").base, TimeControl.parse("untimed").timed
        (3, 30, False)
        >>> TimeControl.parse("5+")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        spheria.kernel.clock.ClockError: '5+' is not a time control: write untimed, base+increment such as 5+3 ...
        """
        if not isinstance(text, str):
            raise ClockError(_(M.CLOCK_SYNTAX).format(text=M.shown(text)))
        written = text.strip().lower()
        if written == UNTIMED:
            return cls()
        real = _REAL.fullmatch(written)
        if real is not None:
            base = int(real[1]) * (1 if real[2] else 60)
            return cls._real(base, int(real[3]))
        days = _DAYS.fullmatch(written)
        if days is not None:
            return cls._correspondence(int(days[1]))
        raise ClockError(_(M.CLOCK_SYNTAX).format(text=repr(text.strip()[:40])))

    @classmethod
    def from_json(cls, data: Any) -> TimeControl:
        """A control from JSON: ``null`` (untimed), ``{"base": s, "increment": s}`` or ``{"days": n}``.

        >>> TimeControl.from_json({"base": 300, "increment": 3}) == TimeControl.parse("5+3")
        True
        >>> TimeControl.from_json({"days": 2})
        Traceback (most recent call last):
        ...
        spheria.kernel.clock.ClockError: a correspondence game gives 1, 3 or 7 days per move, not 2
        """
        if data is None:
            return cls()
        if isinstance(data, dict) and set(data) == {"days"}:
            return cls._correspondence(_whole(data["days"], "days"))
        if isinstance(data, dict) and set(data) in ({"base"}, {"base", "increment"}):
            return cls._real(_whole(data["base"], "base"), _whole(data.get("increment", 0), "increment"))
        raise ClockError(_(M.CLOCK_JSON).format(value=repr(data)[:80]))

    def to_json(self) -> dict[str, int] | None:
        """The JSON form (:meth:`from_json` reads it back)."""
        if self.days:
            return {"days": self.days}
        if self.base:
            return {"base": self.base, "increment": self.increment}
        return None

    def __str__(self) -> str:
        """The written form (:meth:`parse` reads it back): ``untimed``, ``5+3``, ``30s+0``, ``3d``."""
        if self.days:
            return f"{self.days}d"
        if not self.base:
            return UNTIMED
        base = f"{self.base // 60}" if self.base % 60 == 0 else f"{self.base}s"
        return f"{base}+{self.increment}"

    def __repr__(self) -> str:
        return f"TimeControl.parse({str(self)!r})"

    @classmethod
    def _real(cls, base: int, increment: int) -> TimeControl:
        low, high = BASE_RANGE
        if not low <= base <= high:
            raise ClockError(_(M.CLOCK_BASE).format(low=low, high=high, value=base))
        if not 0 <= increment <= MOST_INCREMENT:
            raise ClockError(_(M.CLOCK_INCREMENT).format(high=MOST_INCREMENT, value=increment))
        return cls(base=base, increment=increment)

    @classmethod
    def _correspondence(cls, days: int) -> TimeControl:
        if days not in DAYS_CHOICES:
            raise ClockError(_(M.CLOCK_DAYS).format(choices=_or(DAYS_CHOICES), value=days))
        return cls(days=days)


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClockError(_(M.CLOCK_WHOLE).format(name=name, value=repr(value)[:40]))
    return value


def _or(values: Sequence[int]) -> str:
    *first, last = (str(v) for v in values)
    return _(M.LIST_SEPARATOR).join(first) + _(M.OR) + last if first else last


def presets(game: type[Game] | Game) -> tuple[TimeControl, ...]:
    """The time controls offered for ``game``: its kit's ``time_controls``, else :data:`PRESETS`."""
    return tuple(TimeControl.parse(text) for text in game.kit().time_controls or PRESETS)


def running_seats(state: State[Any]) -> tuple[int, ...]:
    """The seats whose clocks run in ``state``: the seat to move, or at a node where every seat
    chooses at once, each seat that has a choice to make; none when the game is over."""
    player = state.current_player()
    if player >= 0:
        return (player,)
    if player == SIMULTANEOUS:
        return tuple(seat for seat in range(state.game.num_players) if state.legal_moves(seat))
    return ()


def agent_seconds(left: int) -> float:
    """Seconds an agent may think about a move with ``left`` milliseconds on its clock: half of
    it (the other half keeps it playing on the moves after, and covers the work around its
    search), never less than :data:`AGENT_LEAST`. An agent whose own budget is shorter keeps it.

    >>> agent_seconds(300_000), agent_seconds(2_000), agent_seconds(0)
    (150.0, 1.0, 0.01)
    """
    return max(AGENT_LEAST, left / 2 / SECOND)


def time_loss(state: State[Any], seat: int) -> list[float]:
    """The returns of a game ``seat`` lost on time: its side lost (-1), every other side won (+1)."""
    sides = state.game.seat_sides()
    loser = sides[state.check_seat(seat)]
    return [-1.0 if side == loser else 1.0 for side in sides]


def time_reason(seat: int) -> ResultReason:
    """Why a game lost on time ended: ``{"code": "time", "seat": seat}``."""
    return ResultReason(TIME_REASON, {"seat": seat})


@dataclass(frozen=True)
class SeatClock:
    """One seat's clock over one move: the milliseconds it ``used`` and had ``left`` after it."""

    seat: int
    used: int
    left: int

    def to_json(self) -> list[int]:
        return [self.seat, self.used, self.left]


class Clocks:
    """The clocks of a timed game: each seat's milliseconds left, and which seats run since when.

    Drive it with :meth:`start` (the seats that are to move, at ``now``) and :meth:`stop` (a
    seat moved at ``now``); :meth:`expire` ends the game when a running seat has run out.
    Every time is a whole number of milliseconds passed in by the caller.
    """

    def __init__(self, control: TimeControl, seats: int, left: Sequence[int] | None = None) -> None:
        if not control.timed:
            raise ClockError(_(M.CLOCK_UNTIMED))
        self.control = control
        self.left: list[int] = [control.allowance] * seats if left is None else list(left)
        if len(self.left) != seats:
            raise ClockError(f"{seats} seats need {seats} clocks, not {len(self.left)}")
        #: The seats whose clocks run, and the time each started.
        self.running: dict[int, int] = {}
        #: The seat that ran out of time; None while nobody has.
        self.flagged: int | None = None

    @classmethod
    def resumed(cls, control: TimeControl, seats: int, moves: Iterable[Sequence[SeatClock]]) -> Clocks:
        """The clocks after ``moves`` (each move's :class:`SeatClock` list, as records keep them):
        each seat has what it had left after its last move, to the millisecond."""
        left = [control.allowance] * seats
        for move in moves:
            for clock in move:
                left[clock.seat] = clock.left
        return cls(control, seats, left)

    def start(self, seats: Iterable[int], now: int) -> None:
        """Start the clocks of ``seats`` at ``now`` (those already running run on)."""
        self._check_live()
        for seat in seats:
            self._check_seat(seat)
            self.running.setdefault(seat, now)

    def stop(self, seat: int, now: int, lag: int = 0) -> SeatClock:
        """``seat`` moved at ``now``: stop its clock, take the time it used, add the increment once.

        ``lag`` is the time the move spent on its way (a connection's measured round trip); at
        most :data:`LAG_CREDIT_CAP` of it, and never more than the move took, is not counted.
        A move that took all the seat had left is refused (:class:`ClockError`, nothing changed):
        the seat ran out of time (:meth:`expire`).
        A correspondence seat gets its whole allowance again for its next move.
        """
        self._check_live()
        started = self.running.get(self._check_seat(seat))
        if started is None:
            raise ClockError(f"seat {seat}'s clock is not running")
        if now < started:
            raise ClockError(f"time went back: the clock started at {started} ms, the move came at {now} ms")
        elapsed = now - started
        used = elapsed - min(max(lag, 0), LAG_CREDIT_CAP, elapsed)
        if used >= self.left[seat]:
            raise ClockError(f"seat {seat} had {self.left[seat]} ms and took {used} ms: it ran out of time")
        del self.running[seat]
        if self.control.correspondence:
            self.left[seat] = self.control.allowance
        else:
            self.left[seat] = self.left[seat] - used + self.control.increment * SECOND
        return SeatClock(seat, used, self.left[seat])

    def remaining(self, now: int) -> list[int]:
        """Each seat's milliseconds left at ``now`` (a running clock counts down; never below 0)."""
        return [
            max(0, left - (now - self.running[seat])) if seat in self.running else left
            for seat, left in enumerate(self.left)
        ]

    def out_of_time(self, now: int) -> int | None:
        """The first running seat (in seat order) with no time left at ``now``; None if none."""
        remaining = self.remaining(now)
        return next((seat for seat in sorted(self.running) if remaining[seat] <= 0), None)

    def expire(self, now: int) -> int | None:
        """If a running seat is out of time at ``now``, it has lost: every clock stops and the
        seat is returned (and kept as :attr:`flagged`); else None and nothing changes."""
        if self.flagged is not None:
            return self.flagged
        seat = self.out_of_time(now)
        if seat is not None:
            self.left = self.remaining(now)
            self.running.clear()
            self.flagged = seat
        return seat

    def deadline(self) -> int | None:
        """When the first running clock runs out (the time :meth:`expire` should look again)."""
        ends = [started + self.left[seat] for seat, started in self.running.items()]
        return min(ends) if ends else None

    def to_json(self, now: int) -> dict[str, Any]:
        """What an interface shows: each seat's milliseconds left at ``now`` and the running seats."""
        return {
            "control": str(self.control),
            "left": self.remaining(now),
            "running": sorted(self.running),
            "flagged": self.flagged,
        }

    def _check_live(self) -> None:
        if self.flagged is not None:
            raise ClockError(_(M.CLOCK_FLAGGED).format(seat=self.flagged + 1))

    def _check_seat(self, seat: int) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.left):
            raise ClockError(f"there is no seat {seat!r}: the seats are 0..{len(self.left) - 1}")
        return seat


def seat_clocks(data: Any, seats: int) -> list[SeatClock]:
    """One move's clocks as records keep them (``[[seat, used, left], ...]``); raises :class:`ClockError`."""
    if not isinstance(data, list) or not data:
        raise ClockError(f"a move's clocks are a list of [seat, used ms, left ms], not {M.shown(data, 80)}")
    clocks = []
    for item in data:
        if not (
            isinstance(item, list)
            and len(item) == 3
            and all(isinstance(n, int) and not isinstance(n, bool) for n in item)
            and 0 <= item[0] < seats
            and item[1] >= 0
        ):
            raise ClockError(f"a seat's clock is [seat 0..{seats - 1}, used ms ≥ 0, left ms], not {M.shown(item, 80)}")
        clocks.append(SeatClock(*item))
    return clocks


def describe_left(milliseconds: int) -> str:
    """Time left as a clock shows it: ``4:59``, ``0:09.5`` under ten seconds, ``2d 03:00`` over a day.

    >>> describe_left(299_000), describe_left(9_540), describe_left(2 * DAY + 3 * 60 * MINUTE), describe_left(-5)
    ('4:59', '0:09.5', '2d 03:00', '0:00.0')
    """
    ms = max(0, milliseconds)
    if ms >= DAY:
        days, rest = divmod(ms, DAY)
        return f"{days}d {rest // (60 * MINUTE):02d}:{rest % (60 * MINUTE) // MINUTE:02d}"
    if ms < 10 * SECOND:
        return f"0:{ms // SECOND:02d}.{ms % SECOND // 100}"
    seconds = ms // SECOND
    hours, minutes = divmod(seconds // 60, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds % 60:02d}"
    return f"{minutes}:{seconds % 60:02d}"
