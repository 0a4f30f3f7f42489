"""The clocks of a timed game at the terminal (``spheria play --clock 5+3``).

:class:`SessionClock` drives the kernel's :class:`~spheria.kernel.clock.Clocks` for a
:class:`spheria.cli.main.PlaySession`: it starts the clocks of the seats to move, stops a seat's
clock when it has chosen (or ends the game when a running seat has run out of time), keeps each
move's clocks for the record, and shrinks an agent's budget to the time its seat has left. The
time comes from ``now`` (milliseconds): the monotonic clock, or a test's fake.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from spheria.cli import messages as msg
from spheria.i18n import gettext as _
from spheria.kernel.agent import Agent
from spheria.kernel.clock import Clocks, SeatClock, TimeControl, agent_seconds, describe_left, running_seats
from spheria.kernel.game import PlayerView, State


def monotonic_ms() -> int:
    """Milliseconds of the monotonic clock (the terminal's time source)."""
    return time.monotonic_ns() // 1_000_000


class OutOfTime(Exception):
    """Seat ``seat``'s time ran out: it lost on time."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


class SessionClock:
    """The clocks of one timed game at the terminal, and each move's clocks for its record."""

    def __init__(
        self,
        control: TimeControl,
        seats: int,
        kept: Sequence[Sequence[SeatClock]] = (),
        now: Callable[[], int] | None = None,
    ) -> None:
        self.control = control
        self.seats = seats
        self.now = now if now is not None else monotonic_ms
        #: Each move's clocks, as the record keeps them.
        self.kept: list[list[SeatClock]] = [list(move) for move in kept]
        self.clocks = Clocks.resumed(control, seats, self.kept)
        self._chosen: list[SeatClock] = []  # the clocks of the seats that chose in the turn being played

    def start(self, state: State[Any]) -> None:
        """The turn begins: the clocks of the seats to move run (from now, unless they already do)."""
        self.clocks.start(running_seats(state), self.now())

    def chose(self, seat: int) -> None:
        """``seat`` has chosen: its clock stops; :class:`OutOfTime` if a running seat ran out first."""
        now = self.now()
        flagged = self.clocks.expire(now)
        if flagged is not None:
            raise OutOfTime(flagged)
        self._chosen.append(self.clocks.stop(seat, now))

    def played(self) -> None:
        """The turn was played: its clocks go to the record."""
        self.kept.append(sorted(self._chosen, key=lambda clock: clock.seat))
        self._chosen = []

    def take_back(self, moves: int) -> None:
        """``moves`` moves were taken back (or a turn was abandoned, 0): the clocks are as they were
        after the moves that remain."""
        if moves:
            del self.kept[-moves:]
        self.clocks = Clocks.resumed(self.control, self.seats, self.kept)
        self._chosen = []

    def limit(self, seat: int, agent: Agent) -> None:
        """Let ``agent`` think at most about the time ``seat`` has left."""
        agent.limit_time(agent_seconds(self.clocks.remaining(self.now())[seat]))

    def line(self, names: Sequence[str]) -> str:
        """The status line: every seat's time left, the running ones marked."""
        left = self.clocks.remaining(self.now())
        shown = [
            _(msg.CLOCK_RUNNING if seat in self.clocks.running else msg.CLOCK_STOPPED).format(
                name=name, left=describe_left(left[seat])
            )
            for seat, name in enumerate(names)
        ]
        return _(msg.CLOCKS).format(control=self.control, clocks=" · ".join(shown))


class ClockedSeat(Agent):
    """A seat on the clock: an agent's budget shrinks to its time left; choosing stops its clock."""

    def __init__(self, clock: SessionClock, seat: int, player: Agent, thinker: Agent | None) -> None:
        self.clock = clock
        self.seat = seat
        self.player = player
        self.thinker = thinker  # the agent whose budget the clock limits; None for a person
        self.name = player.name

    def choose(self, view: PlayerView, player: int) -> Any:
        if self.thinker is not None:
            self.clock.limit(self.seat, self.thinker)
        move = self.player.choose(view, player)
        self.clock.chose(self.seat)
        return move
