"""Live games: one :class:`GameSession` per game in play, shared by all its clients.

A session owns the game's :class:`~spheria.kernel.game.State`, rebuilt from storage by replaying
the stored entries through the rules. All changes go through :meth:`GameSession.submit` under
the session's lock; after each change every seat's client is sent its own frame at once
(through its own outgoing queue, so a slow client never delays the others), spectators the
latest position within the server's spectator rate (one text shared by all), and agent seats
that must act are started in the agent pool.

Simultaneous nodes (secret choices revealed together): each seat's secret choice is checked with
``parse_move(text, seat)`` and kept server-side in ``pending`` (and in storage, so a committed
choice survives a restart). Nobody else is told what it is, only that the seat has chosen.
When every seat that must choose has chosen, the choices are resolved with ``apply_joint``;
the choice that completes a reveal is stored together with the reveal (one transaction), so a
storage failure there keeps nothing and the seat may choose again. A reveal whose choices are all
stored (a file written by an older server) is resolved when the game is loaded.

Seats belong to one browser: the first ``join`` with a seat's invite token claims the seat and
is answered with a ``claimed`` frame holding a credential the browser keeps; later joins with the
token are refused (``seat_taken``), joins with the credential take the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Executor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from spheria.agents.registry import check_spec
from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS, Game, State
from spheria.kernel.record import Record, replay
from spheria.kernel.registry import load_game
from spheria.server import messages as M
from spheria.server.agents import AgentJob, AgentRunner, AgentTimeout, agent_budget
from spheria.server.limits import Limits, QuietLog
from spheria.server.ownership import Cluster, LocalCluster
from spheria.server.positions import PositionError, start_state
from spheria.server.storage import ABORTED, AGENT, FINISHED, HUMAN, SeatRecord, Storage, StoredGame
from spheria.server.views import board_of, choosers, ended_frame, public_frame, result_of, seat_frame

if TYPE_CHECKING:
    from spheria.kernel.clock import TimeControl
    from spheria.server.accounts import Player
    from spheria.server.clocks import ServerClocks

log = logging.getLogger("spheria.server")
quiet_log = QuietLog(log)

T = TypeVar("T")

#: Websocket close code for a client too far behind: the browser reconnects and catches up.
CLOSE_TOO_SLOW = 1013
#: Seconds within which presence changes (seats connecting, leaving) are sent as one frame.
PRESENCE_DELAY = 0.2
#: Fallback codes: why an agent seat's move was decided by the server (a random legal move).
AGENT_TIMEOUT, AGENT_FAILED, AGENT_ILLEGAL = "agent_timeout", "agent_failed", "agent_illegal_move"


class GameError(Exception):
    """A request the server refuses; ``code`` is a stable word for clients, the message is for people.

    ``kept`` (storage errors only): whether the move or choice was stored after all."""

    def __init__(self, code: str, message: str, kept: bool | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.kept = kept


#: Words for people, by code (one place, for a catalogue to translate).
def new_token() -> str:
    """An unguessable invite token (256 bits)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_game_id() -> str:
    return secrets.token_urlsafe(9)


def encode(frame: dict[str, Any]) -> str:
    """A frame as the JSON text sent on the wire (built once, shared by every client it goes to)."""
    return json.dumps(frame, separators=(",", ":"))


@dataclass(eq=False)
class Client:
    """One connected websocket: a seat (``seat`` ≥ 0) or a spectator (``seat`` None)."""

    send: Callable[[str], Any]
    seat: int | None = None
    limit: int = 256
    on_drop: Callable[[], None] | None = None
    #: Closes its socket with 1012 when its game moved to another process (:meth:`SessionManager.drop`).
    on_restart: Callable[[], None] | None = None
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    dropped: bool = False

    def push(self, frame: dict[str, Any] | str) -> None:
        """Queue ``frame`` (or its :func:`encode` d text); a client ``limit`` frames behind is dropped
        (``on_drop`` closes its socket)."""
        if self.dropped:
            return
        if self.queue.qsize() >= self.limit:
            self.dropped = True
            self.queue.put_nowait(None)
            if self.on_drop is not None:
                self.on_drop()
            return
        self.queue.put_nowait(frame if isinstance(frame, str) else encode(frame))

    async def pump(self) -> None:
        """Send queued frames in order until told to stop (or the connection is gone)."""
        while True:
            frame = await self.queue.get()
            if frame is None:
                return
            try:
                await self.send(frame)
            except Exception:  # the socket closed under us: stop quietly, the handler cleans up
                self.dropped = True
                return


class GameSession:
    """A game in play: its state, seats, pending secret choices and connected clients."""

    def __init__(self, manager: SessionManager, stored: StoredGame, game: Game, state: State[Any]) -> None:
        self.manager = manager
        self.stored = stored
        self.game = game
        self.state = state
        self.pending: dict[int, str] = dict(stored.pending)
        self.version = len(stored.record.moves)
        self.clients: set[Client] = set()
        #: The spectators among ``clients``, and how many clients each seat has connected.
        self.watchers: set[Client] = set()
        self.seats_connected: Counter[int] = Counter()
        self._watchers_due: asyncio.TimerHandle | None = None
        self._watchers_sent = -1e9
        self._watchers_presence = False
        self._public: tuple[tuple[Any, ...], str] | None = None
        self.lock = asyncio.Lock()
        self.agent_tasks: dict[int, asyncio.Task[None]] = {}
        self.closed = False
        self._presence: asyncio.TimerHandle | None = None
        self.touched = time.monotonic()
        #: Agent seats thinking now (seat: when they started, loop time); seats waiting for a hint.
        self.thinking: dict[int, float] = {}
        self.hinting: set[int] = set()
        #: The positions each thinking agent seat has searched so far (seats whose agent counts them).
        self.searched: dict[int, int] = {}
        self._watchers_progress = -1e9
        #: The player holding each human seat, when known (:mod:`spheria.server.challenges`).
        self.holders: dict[int, Player] = {}
        #: What the end of the game changed, for the result card (:mod:`spheria.server.profiles`).
        self.outcome: dict[str, Any] = {}

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def record(self) -> Record:
        """The game's record: what replays it (game, options, seed, start, moves) and its players."""
        return self.stored.record

    # -- seats, tokens and claims ----------------------------------------------------------

    def _seat_matching(self, digest: str, attribute: str) -> SeatRecord | None:
        """The human seat whose ``attribute`` digest is ``digest``; every seat compared in constant time."""
        found = None
        for seat in self.stored.seats:
            value = getattr(seat, attribute)
            if seat.kind == HUMAN and value is not None and hmac.compare_digest(value, digest):
                found = seat
        return found

    def seat_for_token(self, token: str) -> int | None:
        """The human seat whose invite token this is (claimed or not)."""
        seat = self._seat_matching(token_digest(token), "token_hash")
        return None if seat is None else seat.seat

    def seat_for_credential(self, credential: str) -> int | None:
        """The seat a browser claimed with this credential."""
        seat = self._seat_matching(token_digest(credential), "claim_hash")
        return None if seat is None else seat.seat

    async def claim(self, token: str) -> tuple[int, str]:
        """Exchange an invite token for its seat's credential, once; raises ``bad_token``/``seat_taken``."""
        digest = token_digest(token)
        async with self.lock:
            seat = self._seat_matching(digest, "token_hash")
            if seat is None:
                raise GameError("bad_token", _(M.BAD_INVITE))
            if seat.claim_hash is not None:
                raise GameError("seat_taken", _(M.SEAT_TAKEN))
            credential = new_token()
            claim_hash = token_digest(credential)
            if not await self.manager.db(self.manager.storage.claim_seat, self.id, seat.seat, digest, claim_hash):
                raise GameError("seat_taken", _(M.SEAT_TAKEN))
            seat.claim_hash = claim_hash
        self.schedule_presence()
        return seat.seat, credential

    async def reissue(self, seat_index: int, owner: str) -> str:
        """A new invite token for an unclaimed human seat (the old link stops working); ``owner`` is
        the creator's credential."""
        owner_hash = self.stored.owner_hash
        if owner_hash is None or not hmac.compare_digest(owner_hash, token_digest(owner)):
            raise GameError("not_owner", _(M.NOT_OWNER))
        async with self.lock:
            seat = next((s for s in self.stored.seats if s.seat == seat_index and s.kind == HUMAN), None)
            if seat is None:
                raise GameError("bad_seats", "no human seat with that number")
            if seat.claim_hash is not None:
                raise GameError("seat_taken", _(M.INVITE_TAKEN))
            token = new_token()
            if not await self.manager.db(self.manager.storage.set_token, self.id, seat.seat, token_digest(token)):
                raise GameError("seat_taken", _(M.INVITE_TAKEN))
            seat.token_hash = token_digest(token)
            return token

    def players(self) -> list[dict[str, Any]]:
        names = self.game.player_names()
        connected = {seat for seat, count in self.seats_connected.items() if count > 0}
        return [
            {
                "seat": s.seat,
                "name": names[s.seat],
                "kind": s.kind,
                "agent": s.agent,
                "connected": s.kind == AGENT or s.seat in connected,
                "claimed": s.kind == AGENT or s.claim_hash is not None,
                "player": held.shown() if (held := self.holders.get(s.seat)) is not None else None,
            }
            for s in self.stored.seats
        ]

    def spectators(self) -> int:
        return len(self.watchers)

    def info(self) -> dict[str, Any]:
        """Public facts about the game: no tokens, no hidden data."""
        facts = self.game.describe()
        return {
            "id": self.id,
            "game": self.game.name,
            "title": self.game.title,
            "options": dict(self.game.options),
            "players": self.players(),
            "seats": facts["seats"],
            "sides": facts["sides"],
            "status": self.stored.status
            if self.stored.status != "active" or not self.state.is_terminal()
            else FINISHED,
            "plies": len(self.state.history),
            "spectators": self.spectators(),
            "set_up": self.record.start is not None,
        }

    # -- frames ----------------------------------------------------------------------------

    def frame_for(self, seat: int | None) -> dict[str, Any]:
        if seat is None:
            frame = public_frame(self.state, self.pending, self.version)
        else:
            frame = seat_frame(self.state, seat, self.pending, self.version)
        frame["game_id"] = self.id
        frame["players"] = self.players()
        frame["fallbacks"] = self.fallbacks()
        frame["aborted"] = self.stored.status == ABORTED
        frame["hints"] = {"allowed": self.stored.hints, "used": self.hint_counts()}
        frame["thinking"] = self.thinking_now()
        frame["clock"] = None if self.manager.clocks is None else self.manager.clocks.frame(self)
        return ended_frame(frame, self.stored.status, self.stored.result, self.outcome)

    def hint_counts(self) -> list[int]:
        """How many hints each seat was given (asked twice in one position: once)."""
        counts = [0] * self.game.num_players
        for seat, _ply in set(self.stored.hints_given):
            counts[seat] += 1
        return counts

    def thinking_now(self) -> list[dict[str, Any]]:
        """The agent seats thinking now, for how many seconds so far and, for an agent that counts
        them (an exact solver), the positions it has searched (progress for the page)."""
        now = time.monotonic()
        entries: list[dict[str, Any]] = []
        for seat, since in sorted(self.thinking.items()):
            entry: dict[str, Any] = {"seat": seat, "elapsed": round(now - since, 2)}
            if seat in self.searched:
                entry["positions"] = self.searched[seat]
            entries.append(entry)
        return entries

    def _set_thinking(self, seat: int, thinking: bool) -> None:
        self.searched.pop(seat, None)
        if thinking:
            self.thinking[seat] = time.monotonic()
        elif self.thinking.pop(seat, None) is None:
            return
        self._send_thinking(watchers=True)

    def _send_thinking(self, watchers: bool) -> None:
        """Tell the seats (and, if ``watchers``, the spectators) who is thinking: one text for all."""
        text = encode({"type": "thinking", "thinking": self.thinking_now()})
        for client in list(self.clients):
            if watchers or client.seat is not None:
                client.push(text)

    def _searching(self, seat: int, report: dict[str, Any]) -> None:
        """An agent seat's progress report: the positions it has searched so far reach every client,
        the spectators within the server's spectator rate (a search reports a few times a second)."""
        positions = report.get("positions")
        if seat not in self.thinking or self.closed or not isinstance(positions, int):
            return  # a late report of a search that has ended
        self.searched[seat] = positions
        now = time.monotonic()
        watchers = now - self._watchers_progress >= self.manager.watcher_interval()
        if watchers:
            self._watchers_progress = now
        self._send_thinking(watchers)

    def fallbacks(self) -> list[dict[str, Any]]:
        """The agent moves the server decided (most recent last, at most 5): seat, ply and code."""
        faults = sorted(self.stored.faults.items())[-5:]
        return [{"seat": seat, "ply": ply, "code": code} for (ply, seat), code in faults]

    def public_text(self) -> str:
        """The spectators' state frame, encoded; built once per position and presence, shared by all."""
        claimed = sum(seat.claim_hash is not None for seat in self.stored.seats)
        facts = (
            self.version,
            self.stored.status,
            len(self.pending),
            len(self.stored.faults),
            claimed,
            len(self.outcome),
        )
        key = (*facts, tuple(sorted(self.thinking)), *sorted(self.seats_connected))
        if self._public is None or self._public[0] != key:
            self._public = (key, encode(self.frame_for(None)))
        return self._public[1]

    def broadcast(self) -> None:
        """Queue every seat's own frame at once (built once per seat); spectators are sent the
        position by :meth:`schedule_watchers` (the latest one, within the server's spectator rate)."""
        cache: dict[int, str] = {}
        for client in list(self.clients):
            if client.seat is not None:
                if client.seat not in cache:
                    cache[client.seat] = encode(self.frame_for(client.seat))
                client.push(cache[client.seat])
        if self.closed:  # the last frame (an aborted game): no later flush would send it
            self._send_watchers()
        else:
            self.schedule_watchers()

    def schedule_watchers(self) -> None:
        """Send spectators the latest position soon: at once if the server's spectator rate allows,
        else when it does. With many spectators each is sent fewer frames, never a backlog."""
        if self._watchers_due is not None or self.closed or not self.watchers:
            return
        loop = asyncio.get_running_loop()
        wait = self._watchers_sent + self.manager.watcher_interval() - loop.time()
        self._watchers_due = loop.call_later(max(0.0, wait), self._send_watchers)

    def _send_watchers(self) -> None:
        self._watchers_due = None
        self._watchers_sent = asyncio.get_running_loop().time()
        text = self.public_text()
        presence = encode(self.presence_frame()) if self._watchers_presence else None
        self._watchers_presence = False
        for client in list(self.watchers):
            client.push(text)
            if presence is not None:
                client.push(presence)

    def presence_frame(self) -> dict[str, Any]:
        return {"type": "presence", "players": self.players(), "spectators": self.spectators()}

    def schedule_presence(self) -> None:
        """Send who is connected once per burst of joins and leaves, not once per join."""
        if self._presence is None and not self.closed:
            self._presence = asyncio.get_running_loop().call_later(PRESENCE_DELAY, self._send_presence)

    def _send_presence(self) -> None:
        self._presence = None
        if self.closed:
            return
        text = encode(self.presence_frame())
        for client in list(self.clients):
            if client.seat is not None:
                client.push(text)
        self._watchers_presence = True
        self.schedule_watchers()
        self.manager.presence_changed()  # the games being played may have changed

    def attach(self, client: Client) -> None:
        self.clients.add(client)
        self.touched = time.monotonic()
        if client.seat is None:
            self.watchers.add(client)
            self.manager.watchers += 1
            client.push(self.public_text())
        else:
            self.seats_connected[client.seat] += 1
            client.push(self.frame_for(client.seat))
        self.schedule_presence()

    def detach(self, client: Client) -> None:
        if client in self.clients:
            self.clients.discard(client)
            if client.seat is None:
                self.watchers.discard(client)
                self.manager.watchers -= 1
            else:
                self.seats_connected[client.seat] -= 1
                if self.seats_connected[client.seat] <= 0:
                    del self.seats_connected[client.seat]
            self.schedule_presence()
        if not self.clients and self.is_over():
            # A finished game nobody watches leaves memory; storage keeps it for replays.
            self.manager.evict(self)

    def is_over(self) -> bool:
        return self.stored.status != "active" or self.state.is_terminal()

    # -- playing ---------------------------------------------------------------------------

    async def submit(self, seat: int, text: str, version: int | None = None, lag: int = 0) -> None:
        """Play (or, at a simultaneous node, commit) ``text`` for ``seat``; raises :class:`GameError`.
        ``lag``: the milliseconds of its connection's measured round trip (a timed game credits them).

        When storage fails, the session re-reads what the store kept and the error says whether
        the move (or choice) was kept (``storage_error`` with ``kept``)."""
        try:
            await self._submit(seat, text, version, lag)
        except GameError:
            raise
        except Exception as error:
            quiet_log.warning(f"store:{self.id}", "game %s: storing a move failed: %s", self.id, error)
            before = (self.version, seat in self.pending)
            await self._resync()
            kept = (self.version, seat in self.pending) != before
            asyncio.get_running_loop().call_soon(self._after_resync)
            raise GameError("storage_error", _(M.STORED_KEPT if kept else M.STORED_NOT_KEPT), kept=kept) from None

    def _after_resync(self) -> None:
        self.broadcast()
        self.schedule_agents()

    async def _resync(self) -> None:
        """Make the session what the store holds (after a write whose outcome is unknown)."""
        with contextlib.suppress(Exception):  # the store is unreachable: memory was rolled back already
            async with self.lock:
                stored = await self.manager.db(self.manager.storage.load_game, self.id)
                if stored is None or (stored.record.moves == self.record.moves and stored.pending == self.pending):
                    return
                record = stored.record
                loop = asyncio.get_running_loop()
                args = (record.game, record.options, record.start, record.seed, record.moves)
                state = await loop.run_in_executor(None, replay, *args)
                self.stored, self.state = stored, state
                self.pending, self.version = dict(stored.pending), len(record.moves)

    async def _submit(self, seat: int, text: str, version: int | None = None, lag: int = 0) -> None:
        async with self.lock:
            if version is not None and version != self.version:
                raise GameError("stale", _(M.STALE))
            state = self.state
            if self.is_over():
                raise GameError("game_over", _(M.GAME_OVER))
            clocks, before = self.manager.clocks, self.version
            now = None if clocks is None else await clocks.stamp(self)  # the server's time, never the client's
            to_move = state.current_player()
            if to_move == SIMULTANEOUS:
                await self._commit_choice(seat, text)
            else:
                if to_move != seat:
                    name = self.game.player_names()[to_move]
                    raise GameError("not_your_turn", _(M.NOT_YOUR_TURN).format(name=_(name)))
                try:
                    move = state.parse_move(text, seat)
                except ValueError as error:  # a MoveError (a ValueError) or any bad input
                    raise GameError("illegal_move", str(error)) from None
                await self._record(lambda: state.apply(move))
            if clocks is not None:
                await clocks.moved(self, seat, now, played=self.version != before, lag=lag)
            self.touched = time.monotonic()
        if self.is_over():
            await self.manager.game_ended(self)
        self.broadcast()
        self.schedule_agents()
        if self.is_over() and not self.clients:
            self.manager.evict(self)  # a finished game nobody watches is served from storage

    async def _commit_choice(self, seat: int, text: str) -> None:
        state = self.state
        need = choosers(state)
        if seat not in need:
            raise GameError("not_your_turn", _(M.NOTHING_TO_CHOOSE))
        if seat in self.pending:
            raise GameError("already_chosen", _(M.ALREADY_CHOSEN))
        try:
            move = state.parse_move(text, seat)
        except ValueError as error:  # a MoveError (a ValueError) or any bad input
            raise GameError("illegal_move", str(error)) from None
        entry = str(move)
        if all(s in self.pending or s == seat for s in need):
            # The last choice is stored with the reveal it completes: all of it or nothing.
            await self._resolve_joint({**self.pending, seat: entry})
            return
        await self.manager.db(self.manager.storage.set_pending, self.id, seat, entry)
        self.pending[seat] = entry

    async def _resolve_joint(self, choices: dict[int, str]) -> None:
        state = self.state
        joint = []
        for seat in range(self.game.num_players):
            entry = choices.get(seat)
            joint.append(state.parse_move(entry, seat) if entry is not None else None)
        await self._record(lambda: state.apply_joint(joint))
        self.pending.clear()

    async def _record(self, change: Callable[[], None]) -> None:
        """Apply ``change`` to the state and store the new entries (with the result if the game ends),
        in one write; the state is restored if the write fails."""
        state = self.state
        before = len(state.history)
        first_ply = len(self.record.moves)
        change()
        entries = state.history_notation()[first_ply:]
        result = result_of(state) if state.is_terminal() else None
        try:
            await self.manager.db(self.manager.storage.append_moves, self.id, first_ply, entries, result)
        except Exception:
            while len(state.history) > before:
                state.undo()
            raise
        self.record.moves.extend(entries)
        if result is not None:
            self.stored.finish(result)
        self.version += 1

    async def heal(self) -> None:
        """Resolve a reveal whose choices are all stored (left by an older server or a failed write)."""
        async with self.lock:
            state = self.state
            if self.is_over() or state.current_player() != SIMULTANEOUS:
                return
            need = choosers(state)
            if need and all(s in self.pending for s in need):
                await self._resolve_joint(dict(self.pending))

    async def preview(self, seat: int, text: str) -> dict[str, Any]:
        """The board a candidate move of ``seat`` would leave, or why it is not a move.

        Only for the seat to move at an ordinary node; the answer goes to that seat's client alone.
        """
        async with self.lock:
            state = self.state
            if self.is_over() or state.current_player() != seat:
                raise GameError("not_your_turn", _(M.PREVIEW_NOT_YOURS))
            frame: dict[str, Any] = {"type": "preview", "move": text, "version": self.version}
            try:
                move = state.parse_move(text, seat)
            except ValueError as error:  # a MoveError (a ValueError) or any bad input
                frame.update(ok=False, error=str(error))
                return frame
            child = state.child(move)
            frame.update(ok=True, canonical=str(move), board=board_of(child.observation(seat)))
            return frame

    # -- agents ----------------------------------------------------------------------------

    def agent_seats_to_act(self) -> list[SeatRecord]:
        state = self.state
        if self.is_over():
            return []
        to_move = state.current_player()
        acting = [s for s in choosers(state) if s not in self.pending] if to_move == SIMULTANEOUS else [to_move]
        return [s for s in self.stored.seats if s.seat in acting and s.kind == AGENT]

    def schedule_agents(self) -> None:
        if self.closed:
            return
        for seat in self.agent_seats_to_act():
            task = self.agent_tasks.get(seat.seat)
            if task is None or task.done():
                self.agent_tasks[seat.seat] = asyncio.create_task(self._agent_turn(seat))

    async def _agent_turn(self, seat: SeatRecord) -> None:
        try:
            await self._agent_move(seat)
        except Exception:  # never let an agent's turn end silently with the game stuck
            quiet_log.warning(f"agent-turn:{self.id}", "agent turn in game %s failed", self.id, exc_info=True)
        finally:
            # This task has ended: the agent may have to act again (its own move can hand it the next turn).
            if self.agent_tasks.get(seat.seat) is asyncio.current_task():
                del self.agent_tasks[seat.seat]
            if not self.closed and not self.manager.closing:
                self.schedule_agents()

    async def _agent_move(self, seat: SeatRecord) -> None:
        assert seat.agent is not None
        version = self.version
        ply = len(self.record.moves)
        loop = asyncio.get_running_loop()
        started = loop.time()
        fault = self.stored.faults.get((ply, seat.seat))
        text: str | None = None
        if fault is None:  # a job that already failed here (before a restart) is never run again
            clocks = self.manager.clocks
            on_clock = None if clocks is None else clocks.agent_seconds(self, seat.seat)  # half its time left
            job = AgentJob(
                self.id,
                self.game.name,
                dict(self.game.options),
                self.record.seed,
                tuple(self.record.moves),
                seat.seat,
                seat.agent,
                start=self.record.start,
                time_limit=on_clock,
            )
            limits = self.manager.limits
            budget = agent_budget(seat.agent, limits.agent_max_time)
            budget = budget if on_clock is None else min(budget, on_clock)
            # Hidden information: a search's size could hint at what it saw; only its time is shown.
            searching = partial(self._searching, seat.seat) if self.game.perfect_information else None
            self._set_thinking(seat.seat, True)
            try:
                text = await self.manager.agents.run(job, budget, searching)
            except AgentTimeout:
                fault = AGENT_TIMEOUT
            except (BrokenExecutor, Exception) as error:  # a broken agent must not stop the game
                quiet_log.warning(f"agent:{seat.agent}", "agent %s in game %s failed: %s", seat.agent, self.id, error)
                fault = AGENT_FAILED
            finally:
                self._set_thinking(seat.seat, False)
            if fault is not None:
                await self._note_fault(ply, seat.seat, fault)
        delay = self.manager.agent_delay - (loop.time() - started)
        if delay > 0:
            await asyncio.sleep(delay)
        if self.closed or self.version != version:
            return
        if text is not None:
            try:
                await self.submit(seat.seat, text, version)
                return
            except GameError as error:
                if error.code != "illegal_move":
                    return
                quiet_log.warning(
                    f"agent-illegal:{seat.agent}", "agent %s played %r in game %s", seat.agent, text, self.id
                )
                await self._note_fault(ply, seat.seat, AGENT_ILLEGAL)
        moves = self.state.legal_moves(seat.seat)
        if moves and self.version == version and seat.seat not in self.pending:
            await self.submit(seat.seat, str(random.choice(moves)), version)

    async def _note_fault(self, ply: int, seat: int, code: str) -> None:
        """Store that the server decides this agent move (shown to players as ``fallbacks``)."""
        await self.manager.db(self.manager.storage.add_fault, self.id, ply, seat, code)
        self.stored.faults[(ply, seat)] = code


class SessionManager:
    """All live sessions, the store and the agents' runner (a local pool, or a queue to workers)."""

    def __init__(
        self, storage: Storage, agents: AgentRunner, agent_delay: float = 0.0, limits: Limits | None = None
    ) -> None:
        self.storage = storage
        self.agents = agents
        self.agent_delay = agent_delay
        self.limits = limits or Limits()
        self.sessions: dict[str, GameSession] = {}
        #: Spectators connected, server-wide (the spectator rate is shared among them).
        self.watchers = 0
        self.closing = False
        self._db_pool: Executor | None = None
        self._loading: dict[str, asyncio.Lock] = {}
        #: The players holding a stored game's seats (a storage call, set by the challenges' install).
        self.seat_holders: Callable[[str], dict[int, Player]] | None = None
        #: Called when a game ends (each must be idempotent: a restart calls it again):
        #: :mod:`spheria.server.profiles`.
        self.end_hooks: list[Callable[[GameSession], Awaitable[None]]] = []
        #: Called when the games being played may have changed (seats came or left, a game ended):
        #: the lobby's presence (:meth:`spheria.server.challenges.Lobby.presence_changed`).
        self.presence_hooks: list[Callable[[], None]] = []
        #: The clocks of timed games (:mod:`spheria.server.clocks`), once installed.
        self.clocks: ServerClocks | None = None
        #: Which games are this process's (:mod:`spheria.server.cluster`): a session is kept in
        #: memory only while its lease is held; the embedded default owns every game.
        self.cluster: Cluster = LocalCluster()

    async def game_ended(self, session: GameSession) -> None:
        """Run the end hooks; a failing hook is logged and never undoes the end."""
        for hook in self.end_hooks:
            try:
                await hook(session)
            except Exception:
                quiet_log.warning(f"end:{session.id}", "game %s: an end hook failed", session.id, exc_info=True)
        self.presence_changed()

    def presence_changed(self) -> None:
        for hook in self.presence_hooks:
            hook()

    def watcher_interval(self) -> float:
        """Least seconds between two frames to one game's spectators: the server-wide spectator rate
        shared among every spectator (0: no wait)."""
        rate = self.limits.spectator_rate
        return self.watchers / rate if rate > 0 else 0.0

    async def db(self, call: Callable[..., T], *args: Any) -> T:
        """Run a storage call on the storage thread (one thread: calls keep their order)."""
        if self._db_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._db_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spheria-db")
        return await asyncio.get_running_loop().run_in_executor(self._db_pool, lambda: call(*args))

    def check_agent_spec(self, index: int, spec: Any, game: Game) -> str:
        """The agent spec of seat ``index``, stripped, or ``bad_seats`` naming the problem: every
        option within its range (``time`` at most ``agent_max_time``) and the agent fitting ``game``."""
        if not isinstance(spec, str) or not spec.strip():
            raise GameError("bad_seats", _(M.SEAT_NEEDS_AGENT).format(number=index + 1))
        try:
            check_spec(spec, game, max_time=self.limits.agent_max_time)
        except ValueError as error:
            raise GameError("bad_seats", _(M.SEAT_AGENT).format(number=index + 1, error=error)) from None
        return spec.strip()

    async def create(
        self,
        name: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        seed: int | None = None,
        start: str | None = None,
        hints: bool = False,
        rated: bool = False,
        clock: TimeControl | None = None,
    ) -> tuple[GameSession, dict[int, str], str]:
        """A new game, from the game's own start or from the position ``start`` (SPN, checked:
        ``bad_position`` names the problem); returns the session, each human seat's invite token
        and the creator's credential (shown once, never stored). ``hints``: checked by the caller
        (:func:`spheria.server.hints.check_hints_setting`); ``rated``: offered as rated (stored with it)."""
        try:
            game = load_game(name, **options)
        except (ValueError, TypeError) as error:
            raise GameError("bad_game", str(error)) from None
        if len(seats) != game.num_players:
            seat_count = _(M.SEAT_COUNT).format(title=_(game.title), seats=game.num_players, given=len(seats))
            raise GameError("bad_seats", seat_count)
        records: list[SeatRecord] = []
        tokens: dict[int, str] = {}
        for index, seat in enumerate(seats):
            kind = seat.get("kind")
            if kind == HUMAN:
                token = new_token()
                tokens[index] = token
                records.append(SeatRecord(index, HUMAN, None, token_digest(token)))
            elif kind == AGENT:
                records.append(SeatRecord(index, AGENT, self.check_agent_spec(index, seat.get("agent"), game)))
            else:
                raise GameError("bad_seats", f"seat {index + 1}: kind must be 'human' or 'agent'")
        set_up = None if start is None else self._set_up(game, start, len(tokens))
        if seed is None and set_up is None:
            seed = secrets.randbelow(2**31)
        owner = new_token()
        start = None if set_up is None else set_up.to_spn()
        players = [s.agent or HUMAN for s in records]
        record = Record(game.name, dict(game.options), seed, start, players, [])
        stored = StoredGame(new_game_id(), record, records, owner_hash=token_digest(owner), hints=hints, rated=rated)
        if not await self.cluster.take_game(stored.id):  # a new game is its creator's process's
            raise GameError("cluster_unavailable", _(M.CLUSTER_UNAVAILABLE))
        state = replay(game, seed=seed) if set_up is None else set_up
        await self.db(self.storage.create_game, stored)
        session = GameSession(self, stored, game, state)
        self.sessions[stored.id] = session
        if clock is not None and clock.timed and self.clocks is not None:  # on the clock (docs/server.md, Clocks)
            await self.clocks.create(session, clock)
        session.schedule_agents()
        return session, tokens, owner

    @staticmethod
    def _set_up(game: Game, start: str, humans: int) -> State[Any]:
        try:
            return start_state(game, start, humans)
        except PositionError as error:
            raise GameError("bad_position", str(error)) from None

    async def exists(self, game_id: str) -> bool:
        """Whether there is a game of this id, live or stored (without rebuilding it)."""
        return game_id in self.sessions or await self.db(self.storage.load_game, game_id) is not None

    async def load(self, game_id: str) -> GameSession | None:
        """A session for a game as stored, not kept in memory (for records and replays)."""
        session = self.sessions.get(game_id)
        if session is not None:
            return session
        stored = await self.db(self.storage.load_game, game_id)
        if stored is None:
            return None
        session = await asyncio.get_running_loop().run_in_executor(None, self._build, stored)
        if self.seat_holders is not None:
            session.holders = await self.db(self.seat_holders, game_id)
        return session

    def _build(self, stored: StoredGame) -> GameSession:
        record = stored.record
        game = load_game(record.game, **record.options)
        state = replay(game, start=record.start, seed=record.seed, entries=record.moves)
        return GameSession(self, stored, game, state)

    async def get(self, game_id: str) -> GameSession | None:
        """The live session of a game, rebuilt from storage if needed; None if there is no such game."""
        session = self.sessions.get(game_id)
        if session is not None:
            return session
        if not await self.cluster.take_game(game_id):
            return await self.load(game_id)  # another process owns it: as stored, not kept here
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                session = self.sessions.get(game_id)
                if session is not None:
                    return session
                session = await self.load(game_id)
                if session is None:
                    return None
                self.sessions[game_id] = session
        finally:
            self._loading.pop(game_id, None)
        if self.clocks is not None:
            await self.clocks.attach(session)
        await self._settle(session)
        if session.is_over():
            await self.game_ended(session)
        session.schedule_agents()
        return session

    async def _settle(self, session: GameSession) -> None:
        """Finish what a crash may have left half done: a reveal with every choice stored, a game
        whose last move ended it but whose status was not written."""
        await session.heal()
        if session.stored.status == "active" and (result := result_of(session.state)) is not None:
            await self.db(self.storage.append_moves, session.id, len(session.record.moves), [], result)
            session.stored.finish(result)

    async def adopt(self, game_id: str) -> GameSession | None:
        """The live session of a game this process owns or can take now; None otherwise (no such
        game, or another process owns it): for what acts on games by itself (clocks, sweeps)."""
        session = await self.get(game_id)
        return session if session is not None and self.sessions.get(game_id) is session else None

    def evict(self, session: GameSession) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]
            self.cluster.release_game(session.id)

    def drop(self, game_id: str) -> None:
        """Another process took this game's lease: stop acting on it and close its sockets (the
        browsers reconnect and reach the new owner)."""
        session = self.sessions.pop(game_id, None)
        if session is None:
            return
        session.closed = True
        for task in session.agent_tasks.values():
            task.cancel()
        for client in list(session.clients):
            client.dropped = True
            client.queue.put_nowait(None)
            if client.on_restart is not None:
                client.on_restart()

    async def resume_all(self) -> int:
        """Load every unfinished game so its agents play on after a restart; returns how many."""
        await self.expire_idle()
        ids = await self.db(self.storage.active_game_ids)
        resumed = 0
        for game_id in ids:
            try:
                resumed += await self.adopt(game_id) is not None  # not those another process owns
            except Exception:
                quiet_log.warning("resume", "game %s could not be resumed", game_id, exc_info=True)
        return resumed

    async def expire_idle(self) -> list[str]:
        """Abort unfinished games with no move for ``idle_game_seconds``; they leave memory."""
        seconds = self.limits.idle_game_seconds
        if seconds <= 0:
            return []
        ids = await self.db(self.storage.idle_game_ids, time.time() - seconds)
        for game_id in ids:
            if game_id not in self.sessions and not await self.cluster.take_game(game_id):
                continue  # another process's game: aborted there
            await self.db(self.storage.abort, game_id)
            self.cluster.release_game(game_id)
            session = self.sessions.pop(game_id, None)
            if session is not None:
                session.stored.status = ABORTED
                session.closed = True
                for task in session.agent_tasks.values():
                    task.cancel()
                session.broadcast()
        return ids

    async def close(self) -> None:
        self.closing = True
        for session in self.sessions.values():
            session.closed = True
            for task in session.agent_tasks.values():
                task.cancel()
            for client in session.clients:
                client.queue.put_nowait(None)
        if self._db_pool is not None:
            self._db_pool.shutdown(wait=True)
            self._db_pool = None
