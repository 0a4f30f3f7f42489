"""Live games: one :class:`GameSession` per game in play, shared by all its clients.

A session owns the game's :class:`~spheria.games.base.State`, rebuilt from storage by replaying
the stored entries through the rules. All changes go through :meth:`GameSession.submit` under
the session's lock; after each change every connected client of the game is sent its own frame
at once (through its own outgoing queue, so a slow client never delays the others), and agent
seats that must act are started in the agent pool.

Simultaneous nodes (Spagyric's reveals): each seat's secret choice is checked with
``parse_move(text, seat)`` and kept server-side in ``pending`` (and in storage, so a committed
choice survives a restart). Nobody else is told what it is, only that the seat has chosen.
When every seat that must choose has chosen, the choices are resolved with ``apply_joint``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
import secrets
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from spheria.agents.registry import make_agent, parse_spec
from spheria.games.base import SIMULTANEOUS, Game, IllegalMoveError, State, load_game
from spheria.server.agents import AgentJob, choose_move, rebuild
from spheria.server.storage import AGENT, FINISHED, HUMAN, GameRecord, SeatRecord, Storage
from spheria.server.views import board_of, choosers, public_frame, result_of, seat_frame

log = logging.getLogger("spheria.server")

T = TypeVar("T")

#: Most frames a client may have waiting to be sent before it is dropped as too slow.
CLIENT_QUEUE_LIMIT = 256
MAX_AGENT_SPEC = 120
#: The longest time per move an agent seat may be given (its spec's ``time=``).
MAX_AGENT_SECONDS = 60


class GameError(Exception):
    """A request the server refuses; ``code`` is a stable word for clients, the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def new_token() -> str:
    """An unguessable invite token (256 bits)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_game_id() -> str:
    return secrets.token_urlsafe(9)


@dataclass(eq=False)
class Client:
    """One connected websocket: a seat (``seat`` ≥ 0) or a spectator (``seat`` None)."""

    send: Callable[[dict[str, Any]], Any]
    seat: int | None = None
    queue: asyncio.Queue[dict[str, Any] | None] = field(default_factory=asyncio.Queue)
    dropped: bool = False

    def push(self, frame: dict[str, Any]) -> None:
        if self.dropped:
            return
        if self.queue.qsize() >= CLIENT_QUEUE_LIMIT:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(frame)

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

    def __init__(self, manager: SessionManager, record: GameRecord, game: Game, state: State[Any]) -> None:
        self.manager = manager
        self.record = record
        self.game = game
        self.state = state
        self.pending: dict[int, str] = dict(record.pending)
        self.version = len(record.moves)
        self.clients: set[Client] = set()
        self.lock = asyncio.Lock()
        self.agent_tasks: dict[int, asyncio.Task[None]] = {}
        self.closed = False

    @property
    def id(self) -> str:
        return self.record.id

    # -- seats and tokens ----------------------------------------------------------------

    def seat_for_token(self, token: str) -> int | None:
        """The human seat whose invite token this is; every seat is compared, in constant time."""
        digest = token_digest(token)
        found = None
        for seat in self.record.seats:
            if seat.kind == HUMAN and seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = seat.seat
        return found

    def players(self) -> list[dict[str, Any]]:
        names = self.game.player_names()
        connected = {c.seat for c in self.clients}
        return [
            {
                "seat": s.seat,
                "name": names[s.seat],
                "kind": s.kind,
                "agent": s.agent,
                "connected": s.kind == AGENT or s.seat in connected,
            }
            for s in self.record.seats
        ]

    def info(self) -> dict[str, Any]:
        """Public facts about the game: no tokens, no hidden data."""
        facts = self.game.describe()
        return {
            "id": self.id,
            "game": self.game.name,
            "title": self.game.title,
            "options": self.game.options,
            "players": self.players(),
            "seats": facts["seats"],
            "sides": facts["sides"],
            "status": FINISHED if self.state.is_terminal() else "active",
            "plies": len(self.state.history),
            "spectators": sum(1 for c in self.clients if c.seat is None),
        }

    # -- frames ----------------------------------------------------------------------------

    def frame_for(self, seat: int | None) -> dict[str, Any]:
        if seat is None:
            frame = public_frame(self.state, self.pending, self.version)
        else:
            frame = seat_frame(self.state, seat, self.pending, self.version)
        frame["game_id"] = self.id
        frame["players"] = self.players()
        return frame

    def broadcast(self) -> None:
        """Queue every client's own frame; frames are computed once per seat."""
        cache: dict[int | None, dict[str, Any]] = {}
        for client in list(self.clients):
            if client.seat not in cache:
                cache[client.seat] = self.frame_for(client.seat)
            client.push(cache[client.seat])

    def attach(self, client: Client) -> None:
        self.clients.add(client)
        self.broadcast()

    def detach(self, client: Client) -> None:
        if client in self.clients:
            self.clients.discard(client)
            if not self.closed:
                self.broadcast()
        if not self.clients and self.state.is_terminal():
            # A finished game nobody watches leaves memory; storage keeps it for replays.
            self.manager.sessions.pop(self.id, None)

    # -- playing ---------------------------------------------------------------------------

    async def submit(self, seat: int, text: str, version: int | None = None) -> None:
        """Play (or, at a simultaneous node, commit) ``text`` for ``seat``; raises :class:`GameError`."""
        async with self.lock:
            if version is not None and version != self.version:
                raise GameError("stale", "the game moved on since that move was chosen; look again")
            state = self.state
            if state.is_terminal():
                raise GameError("game_over", "the game is over")
            to_move = state.current_player()
            if to_move == SIMULTANEOUS:
                await self._commit_choice(seat, text)
            else:
                if to_move != seat:
                    name = self.game.player_names()[to_move]
                    raise GameError("not_your_turn", f"it is {name}'s turn, not yours")
                try:
                    move = state.parse_move(text, seat)
                except (IllegalMoveError, ValueError) as error:
                    raise GameError("illegal_move", str(error)) from None
                await self._record(lambda: state.apply(move))
        self.broadcast()
        self.schedule_agents()

    async def _commit_choice(self, seat: int, text: str) -> None:
        state = self.state
        need = choosers(state)
        if seat not in need:
            raise GameError("not_your_turn", "you have nothing to choose now")
        if seat in self.pending:
            raise GameError("already_chosen", "you have already made your choice; wait for the reveal")
        try:
            move = state.parse_move(text, seat)
        except (IllegalMoveError, ValueError) as error:
            raise GameError("illegal_move", str(error)) from None
        entry = str(move)
        await self.manager.db(self.manager.storage.set_pending, self.id, seat, entry)
        self.pending[seat] = entry
        if all(s in self.pending for s in need):
            await self._resolve_joint()

    async def _resolve_joint(self) -> None:
        state = self.state
        joint = []
        for seat in range(self.game.num_players):
            entry = self.pending.get(seat)
            joint.append(state.parse_move(entry, seat) if entry is not None else None)
        await self._record(lambda: state.apply_joint(joint))
        self.pending.clear()

    async def _record(self, change: Callable[[], None]) -> None:
        """Apply ``change`` to the state and store the new entries; the state is restored on failure."""
        state = self.state
        before = len(state.history)
        first_ply = len(self.record.moves)
        change()
        entries = state.history_notation()[first_ply:]
        try:
            await self.manager.db(self.manager.storage.append_moves, self.id, first_ply, entries)
            if state.is_terminal():
                result = result_of(state)
                assert result is not None
                await self.manager.db(self.manager.storage.finish, self.id, result)
        except Exception:
            while len(state.history) > before:
                state.undo()
            raise
        self.record.moves.extend(entries)
        self.version += 1

    async def preview(self, seat: int, text: str, complete: bool = False) -> dict[str, Any]:
        """The board a candidate move of ``seat`` would leave, or why it is not a move (and, if
        ``complete``, the sites that would complete it, with the boards they leave).

        Only for the seat to move at an ordinary node; the answer goes to that seat's client alone.
        """
        async with self.lock:
            state = self.state
            if state.current_player() != seat:
                raise GameError("not_your_turn", "previews are for the seat to move")
            frame: dict[str, Any] = {"type": "preview", "move": text, "version": self.version}
            try:
                move = state.parse_move(text, seat)
            except (IllegalMoveError, ValueError) as error:
                completions = self._completions(text, seat) if complete else []
                frame.update(ok=False, error=str(error), completions=completions)
                return frame
            child = state.child(move)
            frame.update(ok=True, canonical=str(move), board=board_of(child.observation(seat)))
            return frame

    def _completions(self, text: str, seat: int) -> list[dict[str, str]]:
        """The sites that, added to a partial move, make a legal move (with the resulting boards)."""
        result: list[dict[str, str]] = []
        stem = text.strip()
        if not stem or len(stem) > 40:
            return result
        from spheria.engine.board import SITE_NAMES

        for site in SITE_NAMES:
            for sep in (" ", "+", "-"):
                candidate = f"{stem}{sep}{site}"
                try:
                    move = self.state.parse_move(candidate, seat)
                except (IllegalMoveError, ValueError):
                    continue
                child = self.state.child(move)
                result.append({"site": site, "move": candidate, "board": board_of(child.observation(seat))})
                break
        return result

    # -- agents ----------------------------------------------------------------------------

    def agent_seats_to_act(self) -> list[SeatRecord]:
        state = self.state
        if state.is_terminal():
            return []
        to_move = state.current_player()
        acting = [s for s in choosers(state) if s not in self.pending] if to_move == SIMULTANEOUS else [to_move]
        return [s for s in self.record.seats if s.seat in acting and s.kind == AGENT]

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
        finally:
            # This task has ended: the agent may have to act again (its own move can hand it the next turn).
            if self.agent_tasks.get(seat.seat) is asyncio.current_task():
                del self.agent_tasks[seat.seat]
            if not self.closed:
                self.schedule_agents()

    async def _agent_move(self, seat: SeatRecord) -> None:
        assert seat.agent is not None
        version = self.version
        job = AgentJob(
            self.id,
            self.game.name,
            dict(self.game.options),
            self.record.seed,
            tuple(self.record.moves),
            seat.seat,
            seat.agent,
        )
        started = asyncio.get_running_loop().time()
        try:
            text = await asyncio.get_running_loop().run_in_executor(self.manager.executor, choose_move, job)
        except Exception as error:  # a broken agent must not stop the game: play a random legal move
            log.warning("agent %s in game %s failed (%s); playing a random legal move", seat.agent, self.id, error)
            moves = self.state.legal_moves(seat.seat)
            if not moves:
                return
            text = str(random.choice(moves))
        delay = self.manager.agent_delay - (asyncio.get_running_loop().time() - started)
        if delay > 0:
            await asyncio.sleep(delay)
        if self.closed or self.version != version:
            return
        try:
            await self.submit(seat.seat, text, version)
        except GameError as error:
            log.warning("agent %s in game %s: %s", seat.agent, self.id, error.message)
            if error.code == "illegal_move":  # a faulty agent: play a random legal move for it instead
                moves = self.state.legal_moves(seat.seat)
                if moves and self.version == version:
                    await self.submit(seat.seat, str(random.choice(moves)), version)


class SessionManager:
    """All live sessions, the store and the agent pool."""

    def __init__(self, storage: Storage, executor: Executor, agent_delay: float = 0.0) -> None:
        self.storage = storage
        self.executor = executor
        self.agent_delay = agent_delay
        self.sessions: dict[str, GameSession] = {}
        self._db_pool: Executor | None = None
        self._loading: dict[str, asyncio.Lock] = {}

    async def db(self, call: Callable[..., T], *args: Any) -> T:
        """Run a storage call on the storage thread (one thread: calls keep their order)."""
        if self._db_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._db_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spheria-db")
        return await asyncio.get_running_loop().run_in_executor(self._db_pool, lambda: call(*args))

    async def create(
        self, name: str, options: dict[str, Any], seats: list[dict[str, Any]], seed: int | None = None
    ) -> tuple[GameSession, dict[int, str]]:
        """A new game; returns the session and each human seat's invite token (shown once, never stored)."""
        try:
            game = load_game(name, **options)
        except (ValueError, TypeError) as error:
            raise GameError("bad_game", str(error)) from None
        if len(seats) != game.num_players:
            raise GameError(
                "bad_seats", f"{game.title} with these options has {game.num_players} seats; {len(seats)} given"
            )
        records: list[SeatRecord] = []
        tokens: dict[int, str] = {}
        for index, seat in enumerate(seats):
            kind = seat.get("kind")
            if kind == HUMAN:
                token = new_token()
                tokens[index] = token
                records.append(SeatRecord(index, HUMAN, None, token_digest(token)))
            elif kind == AGENT:
                spec = seat.get("agent")
                if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_AGENT_SPEC:
                    raise GameError("bad_seats", f"seat {index + 1}: an agent seat needs a spec such as 'random'")
                try:
                    _, params = parse_spec(spec)
                    for key in ("time", "seconds"):
                        value = params.get(key)
                        if isinstance(value, int | float) and value > MAX_AGENT_SECONDS:
                            raise ValueError(f"an agent may think at most {MAX_AGENT_SECONDS} s a move")
                    make_agent(spec)
                except ValueError as error:
                    raise GameError("bad_seats", f"seat {index + 1}: {error}") from None
                records.append(SeatRecord(index, AGENT, spec.strip()))
            else:
                raise GameError("bad_seats", f"seat {index + 1}: kind must be 'human' or 'agent'")
        if seed is None:
            seed = secrets.randbelow(2**31)
        record = GameRecord(new_game_id(), game.name, dict(game.options), seed, records)
        state = game.new_initial_state(seed)
        await self.db(self.storage.create_game, record)
        session = GameSession(self, record, game, state)
        self.sessions[record.id] = session
        session.schedule_agents()
        return session, tokens

    async def get(self, game_id: str) -> GameSession | None:
        """The live session of a game, rebuilt from storage if needed; None if there is no such game."""
        session = self.sessions.get(game_id)
        if session is not None:
            return session
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            session = self.sessions.get(game_id)
            if session is not None:
                return session
            record = await self.db(self.storage.load_game, game_id)
            if record is None:
                self._loading.pop(game_id, None)
                return None
            game = load_game(record.name, **record.options)
            state = rebuild(record.name, record.options, record.seed, record.moves)
            session = GameSession(self, record, game, state)
            self.sessions[game_id] = session
        session.schedule_agents()
        return session

    async def resume_all(self) -> int:
        """Load every unfinished game so its agents play on after a restart; returns how many."""
        ids = await self.db(self.storage.active_game_ids)
        for game_id in ids:
            with contextlib.suppress(Exception):
                await self.get(game_id)
        return len(ids)

    async def close(self) -> None:
        for session in self.sessions.values():
            session.closed = True
            for task in session.agent_tasks.values():
                task.cancel()
            for client in session.clients:
                client.queue.put_nowait(None)
        if self._db_pool is not None:
            self._db_pool.shutdown(wait=True)
            self._db_pool = None
