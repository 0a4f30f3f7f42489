"""Server-authoritative clocks of timed games (docs/server.md, Clocks).

A game created with a time control (``"clock": {"base": s, "increment": s}`` or ``{"days": n}``)
is played on the kernel's :class:`~spheria.kernel.clock.Clocks`, driven by the server's own time
(:attr:`ServerClocks.now`, milliseconds since the epoch: the wall clock, or a test's fake). A
client never reports a time: the server stamps every move and choice when it takes it.

What is stored (tables of this module, in the game store's SQLite file):

    game_clocks   (game_id PK, control JSON, running JSON {seat: since ms}, deadline ms, flagged seat)
    move_clocks   (game_id, ply, seat, used ms, left ms)    PK (game_id, ply, seat)
    chosen_clocks (game_id, seat, used ms, left ms)         a secret choice made, its reveal not yet

so a restarted server rebuilds each clock to the millisecond: what each seat had left after its
last move, and since when the running ones run. ``deadline`` (when the first running clock runs
out) lets :meth:`ServerClocks.sweep` find the games to flag without loading them; the server's
sweeper runs it, so a seat runs out of time with nobody connected too. A seat out of time loses:
its side loses and every other side wins (result reason ``time``), and a move that comes after
its flag is refused (``out_of_time``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from spheria.i18n import gettext as _
from spheria.kernel.clock import (
    TIME_REASON,
    ClockError,
    Clocks,
    SeatClock,
    TimeControl,
    agent_seconds,
    running_seats,
    time_loss,
)
from spheria.server import messages as M
from spheria.server.database import Database
from spheria.server.storage import ACTIVE, FINISHED, Storage

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from spheria.server.session import GameSession, SessionManager

log = logging.getLogger("spheria.server")

#: The longest the sweeper waits between two looks at the clocks, in seconds.
SWEEP_SECONDS = 0.25
#: How often a seat's connection in a timed game is probed for its round trip, in seconds.
PROBE_SECONDS = 5.0
#: The probes of a connection awaiting their answer, at most (older ones are forgotten).
PROBES_KEPT = 4


def wall_ms() -> int:
    """The server's time: milliseconds since the epoch (it outlives a restart, unlike a monotonic clock)."""
    return time.time_ns() // 1_000_000


def monotonic_ms() -> int:
    """Milliseconds of the monotonic clock: what a connection's round trip is timed with (tests replace it)."""
    return time.monotonic_ns() // 1_000_000


class LagMeter:
    """One seat's connection's round trip, measured by the server on its own clock: it sends
    ``{"type": "clock_ping", "id": n}`` when the seat joins and every :data:`PROBE_SECONDS`, and
    times the page's answer ``{"type": "clock_pong", "id": n}``. A move is credited the last round
    trip (the frame went out to the player, the move came back), which :meth:`Clocks.stop` caps at
    ``LAG_CREDIT_CAP`` a move: a page that answers late gains at most that. An answer to no probe
    (a forged id) changes nothing."""

    def __init__(self) -> None:
        self.sent: dict[int, int] = {}
        self.round_trip = 0
        self._next = 0

    def probe(self) -> dict[str, Any]:
        """The next probe frame, its time noted."""
        probe, self._next = self._next, self._next + 1
        self.sent[probe] = monotonic_ms()
        for old in sorted(self.sent)[:-PROBES_KEPT]:
            del self.sent[old]
        return {"type": "clock_ping", "id": probe}

    def answered(self, probe: int) -> None:
        """The page answered probe ``probe``: its round trip is the lag a move is credited now."""
        sent = self.sent.pop(probe, None)
        if sent is not None:
            self.round_trip = max(0, monotonic_ms() - sent)

    def credit(self) -> int:
        """The milliseconds a move of this connection is credited (before the cap)."""
        return self.round_trip

    async def probing(self, push: Callable[[dict[str, Any]], None]) -> None:
        """Probe now and every :data:`PROBE_SECONDS` while the connection lasts (a task of it)."""
        while True:
            push(self.probe())
            await asyncio.sleep(PROBE_SECONDS)


@dataclass
class GameClock:
    """One timed game's clocks, and the clocks of the secret choices made in the turn being played."""

    clocks: Clocks
    chosen: list[SeatClock] = field(default_factory=list)

    @property
    def control(self) -> TimeControl:
        return self.clocks.control

    def deadline(self) -> int | None:
        return None if self.clocks.flagged is not None else self.clocks.deadline()


@dataclass(frozen=True)
class StoredClock:
    """A game's clock as stored: its control, each move's clocks, the running seats and the choices made."""

    control: TimeControl
    moves: dict[int, list[SeatClock]]
    running: dict[int, int]
    chosen: list[SeatClock]
    flagged: int | None


class ClockStore:
    """The clock tables, in the game store's SQLite file (one transaction per call)."""

    def __init__(self, store: Storage) -> None:
        self.store = store

    def create(self, game_id: str, control: TimeControl, running: dict[int, int], deadline: int | None) -> None:
        sql = "INSERT INTO game_clocks (game_id, control, running, deadline) VALUES (?, ?, ?, ?)"
        self.store.transaction(
            lambda db: db.execute(sql, (game_id, json.dumps(control.to_json()), json.dumps(running), deadline))
        )

    def load(self, game_id: str) -> StoredClock | None:
        def work(db: Database) -> StoredClock | None:
            sql = "SELECT control, running, flagged FROM game_clocks WHERE game_id = ?"
            row = db.execute(sql, (game_id,)).fetchone()
            if row is None:
                return None
            moves: dict[int, list[SeatClock]] = {}
            sql = "SELECT ply, seat, used, left_ms FROM move_clocks WHERE game_id = ? ORDER BY ply, seat"
            for ply, seat, used, left in db.execute(sql, (game_id,)):
                moves.setdefault(ply, []).append(SeatClock(seat, used, left))
            sql = "SELECT seat, used, left_ms FROM chosen_clocks WHERE game_id = ? ORDER BY seat"
            chosen = [SeatClock(*found) for found in db.execute(sql, (game_id,))]
            running = {int(seat): since for seat, since in json.loads(row[1]).items()}
            return StoredClock(TimeControl.from_json(json.loads(row[0])), moves, running, chosen, row[2])

        found: StoredClock | None = self.store.transaction(work)
        return found

    def save(
        self,
        game_id: str,
        running: dict[int, int],
        deadline: int | None,
        move: tuple[int, list[SeatClock]] | None = None,
        chosen: SeatClock | None = None,
    ) -> None:
        """The running clocks and the deadline, with a move's clocks (``(ply, clocks)``: the turn's
        choices are cleared) or a choice's clock, in one transaction."""

        def work(db: Database) -> None:
            if move is not None:
                ply, clocks = move
                sql = (
                    "INSERT INTO move_clocks (game_id, ply, seat, used, left_ms) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (game_id, ply, seat) DO UPDATE SET used = excluded.used, left_ms = excluded.left_ms"
                )
                db.executemany(sql, [(game_id, ply, c.seat, c.used, c.left) for c in clocks])
                db.execute("DELETE FROM chosen_clocks WHERE game_id = ?", (game_id,))
            if chosen is not None:
                sql = (
                    "INSERT INTO chosen_clocks (game_id, seat, used, left_ms) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (game_id, seat) DO UPDATE SET used = excluded.used, left_ms = excluded.left_ms"
                )
                db.execute(sql, (game_id, chosen.seat, chosen.used, chosen.left))
            sql = "UPDATE game_clocks SET running = ?, deadline = ? WHERE game_id = ?"
            db.execute(sql, (json.dumps(running), deadline, game_id))

        self.store.transaction(work)

    def end_on_time(self, game_id: str, seat: int, result: dict[str, Any]) -> bool:
        """End an active game lost on time by ``seat`` (status, result, flag, no pending choices);
        False if it had ended already."""
        sql = "UPDATE games SET status = ?, result = ?, updated = ? WHERE id = ? AND status = ?"

        def work(db: Database) -> bool:
            changed = db.execute(sql, (FINISHED, json.dumps(result), time.time(), game_id, ACTIVE)).rowcount == 1
            if changed:
                db.execute("DELETE FROM pending WHERE game_id = ?", (game_id,))
                flag = "UPDATE game_clocks SET flagged = ?, running = '{}', deadline = NULL WHERE game_id = ?"
                db.execute(flag, (seat, game_id))
            return changed

        ended: bool = self.store.transaction(work)
        return ended

    def due(self, now: int) -> list[str]:
        """The active games whose first running clock has run out by ``now``."""
        sql = (
            "SELECT game_clocks.game_id FROM game_clocks JOIN games ON games.id = game_clocks.game_id"
            " WHERE game_clocks.deadline <= ? AND game_clocks.flagged IS NULL AND games.status = ?"
        )
        return [row[0] for row in self.store.transaction(lambda db: db.execute(sql, (now, ACTIVE)).fetchall())]


def lost_on_time(session: GameSession, seat: int) -> dict[str, Any]:
    """The result of ``seat`` running out of time: its side lost, every other side won."""
    returns = time_loss(session.state, seat)
    name = _(session.game.player_names()[seat])
    return {
        "returns": returns,
        "winners": [index for index, value in enumerate(returns) if value > 0],
        "text": _(M.LOST_ON_TIME).format(name=name),
        "reason": {"code": TIME_REASON, "seat": seat},
        "sites": [],
    }


class ServerClocks:
    """Every timed game's clocks: stamped with :attr:`now`, stored, swept for flags."""

    def __init__(self, manager: SessionManager, store: ClockStore, now: Callable[[], int] = wall_ms) -> None:
        self.manager = manager
        self.store = store
        #: The server's time in milliseconds; a test replaces it with a fake clock.
        self.now = now
        self.games: dict[str, GameClock] = {}

    # -- hooks of the sessions -------------------------------------------------------------

    async def create(self, session: GameSession, control: TimeControl) -> None:
        """Put a new game on the clock: the seats to move run from now."""
        clocks = Clocks(control, session.game.num_players)
        clocks.start(running_seats(session.state), self.now())
        clock = GameClock(clocks)
        await self.manager.db(self.store.create, session.id, control, dict(clocks.running), clock.deadline())
        self.games[session.id] = clock

    async def attach(self, session: GameSession) -> None:
        """Rebuild a stored game's clocks (after a restart, or when it comes back into memory)."""
        stored = await self.manager.db(self.store.load, session.id)
        if stored is None:
            self.games.pop(session.id, None)
            return
        moves = [stored.moves.get(ply, []) for ply in range(len(session.record.moves))]
        clocks = Clocks.resumed(stored.control, session.game.num_players, moves)
        for chosen in stored.chosen:
            clocks.left[chosen.seat] = chosen.left
        clocks.running = dict(stored.running)
        clocks.flagged = stored.flagged
        if stored.flagged is not None:
            clocks.left[stored.flagged] = 0
        self.games[session.id] = GameClock(clocks, list(stored.chosen))

    async def stamp(self, session: GameSession) -> int | None:
        """The server's time of a move or choice coming in now (None: an untimed game), for a
        caller holding the session's lock. A running seat out of time now ends the game first:
        the move is refused (``out_of_time``), and the end hooks and last frames follow."""
        clock = self.games.get(session.id)
        if clock is None:
            return None
        from spheria.server.session import GameError  # the session module builds on this one

        if await self.flag_now(session) is not None:
            asyncio.get_running_loop().create_task(self.after_flag(session))
            raise GameError("out_of_time", _(M.OUT_OF_TIME))
        return self.now()

    def timed(self, session: GameSession) -> bool:
        """Whether ``session`` is played on the clock."""
        return session.id in self.games

    async def moved(self, session: GameSession, seat: int, now: int | None, played: bool, lag: int = 0) -> None:
        """``seat``'s move (``played``: an entry was stored) or secret choice was taken at ``now``:
        stop its clock, less ``lag`` (its connection's round trip, capped), and store it; after a
        move, the clocks of the seats to move next run."""
        clock = self.games.get(session.id)
        if clock is None or now is None:
            return
        try:
            taken = clock.clocks.stop(seat, now, lag)
        except ClockError:  # a seat that was not running (an agent's fallback after a restart): nothing to time
            return
        if not played:
            clock.chosen.append(taken)
            await self.manager.db(
                self.store.save, session.id, dict(clock.clocks.running), clock.deadline(), None, taken
            )
            return
        move = sorted([*clock.chosen, taken], key=lambda c: c.seat)
        clock.chosen = []
        clock.clocks.start(running_seats(session.state), now)
        ply = len(session.record.moves) - 1
        await self.manager.db(self.store.save, session.id, dict(clock.clocks.running), clock.deadline(), (ply, move))

    def frame(self, session: GameSession) -> dict[str, Any] | None:
        """What a state frame says of the clocks: the control, each seat's milliseconds left now,
        the running seats and the seat that ran out (None in an untimed game)."""
        clock = self.games.get(session.id)
        if clock is None:
            return None
        return {**clock.clocks.to_json(self.now()), "clock": clock.control.to_json()}

    def agent_seconds(self, session: GameSession, seat: int) -> float | None:
        """The most an agent seat may think now: half its time left (None: untimed)."""
        clock = self.games.get(session.id)
        if clock is None:
            return None
        return agent_seconds(clock.clocks.remaining(self.now())[seat])

    def recorded(self, session: GameSession) -> dict[str, Any]:
        """The record's clock fields of a game (``clock``, ``clocks``, ``lost_on_time``; none for an
        untimed game), read from storage (a storage call: run it off the event loop). A game with
        a move whose clocks were not stored (the server decided it after a restart, or crashed in
        between) is written untimed, so that its record still reads."""
        stored = self.store.load(session.id)
        if stored is None:
            return {}
        moves = [stored.moves.get(ply) for ply in range(len(session.record.moves))]
        if not all(moves):
            return {}
        reason = (session.stored.result or {}).get("reason") or {}
        lost = reason.get("seat") if reason.get("code") == TIME_REASON else None
        return {"clock": stored.control, "clocks": moves, "lost_on_time": lost}

    # -- flags -----------------------------------------------------------------------------

    async def flag(self, session: GameSession) -> int | None:
        """End ``session`` if a running seat has run out of time now; the seat, or None."""
        async with session.lock:
            seat = await self.flag_now(session)
        if seat is not None:
            await self.manager.game_ended(session)
            session.broadcast()
        return seat

    async def flag_now(self, session: GameSession) -> int | None:
        """:meth:`flag` for a caller that holds the session's lock (it then runs the end hooks and
        broadcasts: :meth:`after_flag`)."""
        clock = self.games.get(session.id)
        if clock is None or session.is_over():
            return None
        seat = clock.clocks.expire(self.now())
        if seat is None:
            return None
        result = lost_on_time(session, seat)
        if await self.manager.db(self.store.end_on_time, session.id, seat, result):
            session.stored.status, session.stored.result = FINISHED, result
            session.pending.clear()
            session.version += 1
        return seat

    async def after_flag(self, session: GameSession) -> None:
        """The end hooks and the last frames of a game :meth:`flag_now` ended."""
        await self.manager.game_ended(session)
        session.broadcast()

    async def sweep(self) -> list[str]:
        """Flag every active game whose running clock has run out (loaded if it is not in memory),
        of those this process owns or can take (another process flags its own)."""
        flagged = []
        for game_id in await self.manager.db(self.store.due, self.now()):
            session = await self.manager.adopt(game_id)
            if session is not None and await self.flag(session) is not None:
                flagged.append(game_id)
        return flagged

    async def run(self) -> None:
        """The sweeper: look at the clocks at least every :data:`SWEEP_SECONDS`, and at the first deadline."""
        while True:
            deadlines = [d for clock in self.games.values() if (d := clock.deadline()) is not None]
            wait = SWEEP_SECONDS if not deadlines else (min(deadlines) - self.now()) / 1000
            await asyncio.sleep(min(SWEEP_SECONDS, max(0.01, wait)))
            try:
                await self.sweep()
            except Exception:
                log.warning("could not look at the clocks", exc_info=True)


def parse_clock(data: Any) -> TimeControl:
    """A request's ``"clock"`` (absent or null: untimed); ``bad_clock`` naming the problem."""
    from spheria.server.session import GameError

    try:
        return TimeControl.from_json(data)
    except ClockError as error:
        raise GameError("bad_clock", str(error)) from None


def install(app: Starlette, store: Storage) -> ServerClocks:
    """Give ``app``'s sessions their clocks (``app.state.manager.clocks``)."""
    manager: SessionManager = app.state.manager
    clocks = ServerClocks(manager, ClockStore(store))
    manager.clocks = clocks
    return clocks
