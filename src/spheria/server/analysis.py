"""The analysis board's server side: positions as the page draws them, and the engine over a websocket.

HTTP::

    GET /analysis?game=G&options=k=v,k=v&spn=SPN&tree=...&at=...   the page (web/analysis.html)
    GET /api/analysis/position?game=G&options=...&spn=SPN&moves=m1,m2&seat=N
        the position ``moves`` after ``spn`` (every part optional: the game's defaults and its
        start): the game's facts, the start's SPN, the moves as the game writes them, and the
        frame the page draws (board, legal moves, click tree, status code), as in play.
    GET /api/analysis/record/{id}   a finished game's start (game, options, SPN) and its moves

WebSocket ``/ws/analysis`` (JSON text frames)::

    → {"type": "analyse", "id": n, "game", "options", "spn", "moves": [...], "seat"?, "time"?}
    ← {"type": "progress", "id": n, "method", "seconds", "positions", "iterations", "partial"?}
    ← {"type": "analysis", "id": n, "analysis": {...Analysis.to_json()...}, "cached": bool}
    → {"type": "analyse_game", "id": n, "record": "<finished game id>"}
    ← {"type": "progress", "id": n, "number": k, "total": t}
    ← {"type": "game_analysis", "id": n, "report": {...GameAnalysis.to_json() without "before"...}}
    → {"type": "cancel", "id": n}
    ← {"type": "error", "id": n | null, "code": "...", "message": "..."}

The engine runs in :class:`~spheria.server.analysis_pool.AnalysisPool`'s worker processes, each
job with a time cap (:class:`AnalysisLimits`); a connection may hold ``per_connection`` jobs and
the server ``total`` (running and waiting). Exact answers are kept in a bounded cache per
position. Only finished games are analysed from their record (with every secret: the game is
over); a position given by SPN is the asker's own, and a position of a game that hides
information is analysed from the asked seat's public view only (:func:`spheria.analysis.analyse`),
so no answer carries the other seat's secrets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from spheria.i18n import gettext as _
from spheria.i18n import speaking_now
from spheria.kernel.game import SIMULTANEOUS, Game, State
from spheria.kernel.options import options_from_pairs
from spheria.kernel.record import set_up
from spheria.kernel.registry import game_names, load_game
from spheria.server import messages as M
from spheria.server.analysis_pool import WORKER_NICENESS, AnalysisPool, GameJob, Job, JobFailed, PositionJob
from spheria.server.endpoints import find_game, json_response, page, refused
from spheria.server.jsontext import BadJson, parse_json
from spheria.server.limits import TokenBucket
from spheria.server.session import GameError
from spheria.server.views import picking_kind, public_frame, seat_frame

#: Longest SPN, option text and move list the analysis accepts.
MAX_SPN = 200
MAX_OPTIONS = 300
MAX_MOVES = 400
MAX_MOVE_TEXT = 40
#: Largest websocket frame read from a client, in bytes.
MAX_FRAME = 32768
#: Close code when a limit refuses the connection (policy).
CLOSE_POLICY = 1008


@dataclass(frozen=True)
class AnalysisLimits:
    """What the analysis board may take from the server."""

    #: Worker processes for the engine (its own pool; not the agents').
    workers: int = 2
    #: Steps below normal CPU priority for those workers: below the agents' (players' agents first).
    niceness: int = WORKER_NICENESS
    #: Longest time cap of one position's analysis, in seconds (a request's ``time`` is capped to it).
    max_time: float = 30.0
    #: Time cap when the page asks for none (the slowest exact verdict of the games takes about 5 s on a quiet core).
    default_time: float = 15.0
    #: Seconds for each position of a finished game's analysis, and at most in all.
    game_position_time: float = 0.5
    game_max_time: float = 60.0
    #: Jobs (running or waiting) one connection may hold, and the whole server.
    per_connection: int = 2
    total: int = 16
    #: Jobs (running or waiting) all the connections of one address may hold together: a fair
    #: share of ``total``, so that one address never takes the whole pool from everyone else.
    per_address: int = 4
    #: Analysis websockets open at once from one address.
    connections_per_address: int = 20
    #: Exact answers kept (positions).
    cache_size: int = 1024
    #: Seconds past a job's cap before its worker is killed.
    grace: float = 10.0
    #: Frames per second one address may send to the analysis socket (bursts of twice as many).
    frame_rate: float = 20.0


class AnalysisEngine(Protocol):
    """Where the analysis jobs run: this process's :class:`AnalysisPool`, or the workers behind
    :class:`~spheria.server.analysis_queue.RedisAnalysisQueue` (a server started with ``--redis``)."""

    @property
    def busy(self) -> int:
        """This process's jobs running or waiting."""
        ...

    async def run(
        self, job: Job, on_progress: Callable[[dict[str, Any]], object], budget: float, owner: str = ""
    ) -> dict[str, Any]:
        """The job's answer; :class:`JobFailed`, or ``asyncio.CancelledError`` when given up (the job stops)."""
        ...

    def warm(self) -> None:
        """Get ready for a job soon."""

    def shutdown(self) -> None:
        """Stop what runs here."""


class AnalysisService:
    """The pool, the cache and the counts the endpoints share (``app.state.analysis``)."""

    def __init__(self, limits: AnalysisLimits, pool: AnalysisEngine | None = None) -> None:
        """``pool``: where the jobs run (by default a pool of ``limits.workers`` processes here)."""
        self.limits = limits
        self.pool: AnalysisEngine = pool or AnalysisPool(limits.workers, limits.grace, limits.niceness)
        self.cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.connections: dict[str, int] = {}
        self.jobs_from: dict[str, int] = {}  # jobs running or waiting, per address
        self.frames = TokenBucket(limits.frame_rate, 2 * limits.frame_rate)

    def cached(self, key: str) -> dict[str, Any] | None:
        found = self.cache.get(key)
        if found is not None:
            self.cache.move_to_end(key)
        return found

    def remember(self, key: str, analysis: dict[str, Any]) -> None:
        if analysis.get("status") not in ("exact", "over"):
            return
        if any(move.get("value") is None for move in analysis.get("moves", [])):
            return  # a verdict whose other moves were not proved in time: a longer look may prove them
        self.cache[key] = analysis
        while len(self.cache) > self.limits.cache_size:
            self.cache.popitem(last=False)

    def shutdown(self) -> None:
        self.pool.shutdown()


# -- positions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A checked request: the game, its start's SPN, the moves as the game writes them, the state."""

    game: Game
    start: str
    moves: list[str]
    state: State[Any]


def parse_options(text: str | None) -> dict[str, str]:
    """``size=4,depth=3`` (the CLI's ``--option`` pairs joined by commas) as a dict."""
    if not text:
        return {}
    if len(text) > MAX_OPTIONS:
        raise GameError("bad_options", _(M.OPTIONS_TOO_LONG).format(most=MAX_OPTIONS))
    try:
        return options_from_pairs([pair for pair in text.split(",") if pair.strip()])
    except ValueError as error:
        raise GameError("bad_options", str(error)) from None


def load(name: str | None, options: dict[str, Any]) -> Game:
    if not name:
        raise GameError("bad_game", "give the game's name as 'game' (one of " + ", ".join(game_names()) + ")")
    if name not in game_names():
        raise GameError("bad_game", _(M.NO_GAME_CALLED).format(name=repr(name), games=", ".join(game_names())))
    try:
        return load_game(name, **options)
    except (ValueError, TypeError) as error:
        raise GameError("bad_options", str(error)) from None


def check_position(name: str | None, options: dict[str, Any], spn: str | None, moves: list[str]) -> Position:
    """The position ``moves`` after ``spn`` (the game's start when empty), or a :class:`GameError`
    naming what is wrong: the game, an option, the SPN, or the first move that does not apply."""
    game = load(name, options)
    if spn is not None and len(spn) > MAX_SPN:
        raise GameError("bad_spn", _(M.SPN_TOO_LONG).format(most=MAX_SPN))
    if len(moves) > MAX_MOVES:
        raise GameError("bad_move", _(M.TOO_MANY_MOVES).format(most=MAX_MOVES))
    try:
        state = game.state_from_spn(spn) if spn else game.new_initial_state()
    except ValueError as error:  # a MoveError (a ValueError) or any bad input
        raise GameError("bad_spn", _(M.BAD_SPN).format(game=game.name, error=error)) from None
    start = state.to_spn()
    written = []
    for number, text in enumerate(moves, 1):
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
            raise GameError("bad_move", _(M.MOVE_NOT_TEXT).format(number=number))
        if state.is_terminal():
            raise GameError("bad_move", _(M.MOVE_AFTER_END).format(number=number, move=text))
        try:
            state.apply_notation(text.strip())
        except ValueError as error:  # a MoveError (a ValueError) or any bad input
            raise GameError("bad_move", _(M.MOVE_NOT_LEGAL).format(number=number, move=text, error=error)) from None
        written.append(state.notation(state.history[-1]))
    return Position(game, start, written, state)


def joint_moves(state: State[Any]) -> tuple[list[str], dict[str, Any], list[int]]:
    """At a simultaneous node: every joint choice as the game writes it, a click tree choosing
    for each seat in turn, and the seats that choose (the board is the user's: all is theirs)."""
    import itertools

    seats = [s for s in range(state.game.num_players) if state.legal_moves(s)]
    per_seat = [state.legal_moves(s) if s in seats else [None] for s in range(state.game.num_players)]
    moves: list[str] = []
    tree: dict[str, Any] = {}
    for choice in itertools.product(*per_seat):
        child = state.clone()
        child.apply_joint(list(choice))
        node = tree
        for seat in seats:
            node = node.setdefault("next", {}).setdefault(str(choice[seat]), {})
        node["move"] = len(moves)
        moves.append(child.notation(child.history[-1]))
    return moves, tree, seats


def node_frame(state: State[Any]) -> dict[str, Any]:
    """What the page draws at a node: the frame of the seat to move (every move is the user's),
    at a simultaneous node the public frame with every joint choice."""
    to_move = state.current_player()
    if to_move >= 0:
        frame = seat_frame(state, to_move, {}, len(state.history))
        frame["choosers"] = [to_move]
        return frame
    frame = public_frame(state, {}, len(state.history))
    if to_move == SIMULTANEOUS:
        moves, tree, seats = joint_moves(state)
        frame.update(legal_moves=moves, clicks=tree, picking=picking_kind(state, tree), choosers=seats)
    else:
        frame["choosers"] = []
    return frame


def facts(game: Game) -> dict[str, Any]:
    described = game.describe()
    return {
        "game": game.name,
        "title": game.title,
        "options": dict(game.options),
        "players": [{"seat": i, "name": name} for i, name in enumerate(game.player_names())],
        "seats": described["seats"],
        "sides": described["sides"],
        "perfect_information": game.perfect_information,
    }


def position_answer(position: Position, preview: str | None = None) -> dict[str, Any]:
    data = {
        **facts(position.game),
        "spn": position.start,
        "position": position.state.to_spn(),
        "moves": position.moves,
        "frame": node_frame(position.state),
    }
    if preview is not None:
        data["preview"] = preview_of(position.state, preview)
    return data


def preview_of(state: State[Any], text: str) -> dict[str, Any]:
    """The board a candidate move leaves (the game page's preview), for the seat to move."""
    from spheria.server.views import board_of

    seat = state.current_player()
    try:
        move = state.parse_move(text, seat)
    except ValueError as error:  # a MoveError (a ValueError) or any bad input
        return {"move": text, "ok": False, "error": str(error)}
    return {"move": text, "ok": True, "board": board_of(state.child(move).observation(seat))}


def moves_of(text: str | None) -> list[str]:
    return [m for m in (text or "").split(",") if m.strip()]


async def api_position(request: Request) -> Response:
    query = request.query_params
    try:
        options = parse_options(query.get("options"))
        moves = moves_of(query.get("moves"))
        loop = asyncio.get_running_loop()
        position = await loop.run_in_executor(
            None, speaking_now(check_position), query.get("game"), options, query.get("spn") or None, moves
        )
        preview = query.get("preview")
        if preview is not None and len(preview) > MAX_MOVE_TEXT:
            raise GameError("bad_move", "the previewed move is too long")
        answer = await loop.run_in_executor(None, speaking_now(position_answer), position, preview)
    except GameError as error:
        return refused(error)
    return json_response(answer)


async def api_record(request: Request) -> Response:
    """A finished game's start and moves, to open it on the analysis board."""
    try:
        session = await find_game(request, finished=True, live=False)
    except GameError as error:
        return refused(error)
    record = session.record
    loop = asyncio.get_running_loop()
    start = await loop.run_in_executor(None, _start_spn, record.game, record.options, record.start, record.seed)
    return json_response(
        {
            "id": session.id,
            "game": record.game,
            "options": dict(session.game.options),
            "spn": start,
            "moves": session.state.history_notation(),  # consistent with the status, as the record's
            "result": session.info()["status"],
        }
    )


def _start_spn(name: str, options: dict[str, Any], start: str | None, seed: int | None) -> str:
    return str(set_up(name, options, start, seed).to_spn())


# -- the engine socket -------------------------------------------------------------------------


def _text(frame: dict[str, Any], name: str, limit: int, required: bool = False) -> str | None:
    value = frame.get(name)
    if value is None:
        if required:
            raise GameError("bad_frame", f"field {name!r} is required")
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise GameError("bad_frame", f"field {name!r} must be text of at most {limit} characters")
    return value


class AnalysisSocket:
    """The ASGI endpoint of ``/ws/analysis``: one instance per connection."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.ws = WebSocket(scope, receive, send)
        self.service: AnalysisService = scope["app"].state.analysis
        self.limits: AnalysisLimits = self.service.limits
        self.address = scope["client"][0] if scope.get("client") else "unknown"
        self.jobs: dict[int, asyncio.Task[None]] = {}
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=512)

    def __await__(self) -> Any:
        return self.run().__await__()

    async def run(self) -> None:
        counts = self.service.connections
        if counts.get(self.address, 0) >= self.limits.connections_per_address:
            await self.ws.close(code=CLOSE_POLICY, reason="too_many_connections")
            return
        counts[self.address] = counts.get(self.address, 0) + 1
        pump = None
        try:
            await self.ws.accept()
            self.service.pool.warm()
            pump = asyncio.create_task(self.pump())
            await self.serve()
        except WebSocketDisconnect:
            pass
        finally:
            counts[self.address] -= 1
            if counts[self.address] <= 0:
                del counts[self.address]
            for task in self.jobs.values():
                task.cancel()
            if pump is not None:
                pump.cancel()

    async def pump(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                frame = await self.outbox.get()
                await self.ws.send_text(json.dumps(frame, separators=(",", ":")))

    def reply(self, frame: dict[str, Any]) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # a client that does not read loses progress frames
            self.outbox.put_nowait(frame)

    def error(self, job_id: int | None, code: str, message: str) -> None:
        self.reply({"type": "error", "id": job_id, "code": code, "message": message})

    async def serve(self) -> None:
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            job_id = None
            try:
                if self.limits.frame_rate > 0 and not self.service.frames.take(self.address):
                    raise GameError("rate_limited", _(M.TOO_MANY_FRAMES))
                if text is None or len(text) > MAX_FRAME:
                    raise GameError("bad_frame", f"send JSON text frames of at most {MAX_FRAME} bytes")
                try:
                    frame = parse_json(text)
                except BadJson as error:
                    raise GameError("bad_frame", f"frame: {error}") from None
                if not isinstance(frame, dict):
                    raise GameError("bad_frame", "frame must be a JSON object")
                job_id = frame.get("id")
                if not isinstance(job_id, int) or isinstance(job_id, bool):
                    job_id = None
                    if frame.get("type") != "ping":
                        raise GameError("bad_frame", "give each request a number as 'id'")
                await self.handle(frame, job_id)
            except GameError as error:
                self.error(job_id, error.code, error.message)

    async def handle(self, frame: dict[str, Any], job_id: int | None) -> None:
        kind = frame.get("type")
        if kind == "ping":
            self.reply({"type": "pong"})
            return
        assert job_id is not None
        if kind == "cancel":
            task = self.jobs.pop(job_id, None)
            if task is not None:
                task.cancel()
            return
        if kind not in ("analyse", "analyse_game"):
            raise GameError("bad_frame", f"unknown frame type {kind!r} (types: analyse, analyse_game, cancel, ping)")
        if job_id in self.jobs:
            raise GameError("bad_frame", f"request {job_id} is already running")
        if len(self.jobs) >= self.limits.per_connection:
            raise GameError("busy", _(M.ANALYSIS_BUSY).format(most=self.limits.per_connection))
        if self.service.jobs_from.get(self.address, 0) >= self.limits.per_address:
            raise GameError("busy", _(M.ANALYSIS_BUSY_ADDRESS).format(most=self.limits.per_address))
        if self.service.pool.busy >= self.limits.total:
            raise GameError("server_busy", _(M.SERVER_BUSY))
        self.reserve()  # counted before the awaits below, so that no other connection slips past the cap
        started = False
        try:
            if kind == "analyse":
                job, key = await self.position_job(frame)
                cached = self.service.cached(key)
                if cached is not None:
                    self.reply({"type": "analysis", "id": job_id, "analysis": cached, "cached": True})
                    return
                self.start(job_id, self.run_position(job_id, job, key))
            else:
                game_job = await self.game_job(frame)
                self.start(job_id, self.run_game(job_id, game_job))
            started = True
        finally:
            if not started:
                self.release()

    def reserve(self) -> None:
        """Count one more job of this connection's address (:meth:`release` uncounts it)."""
        counts = self.service.jobs_from
        counts[self.address] = counts.get(self.address, 0) + 1

    def release(self) -> None:
        counts = self.service.jobs_from
        left = counts[self.address] - 1
        if left:
            counts[self.address] = left
        else:
            del counts[self.address]

    def start(self, job_id: int, work: Any) -> None:
        """Run ``work`` as job ``job_id``, which holds the address's count reserved for it until it ends."""
        task = asyncio.create_task(work)
        self.jobs[job_id] = task

        def done(_: asyncio.Task[None]) -> None:
            if self.jobs.get(job_id) is task:
                del self.jobs[job_id]
            self.release()

        task.add_done_callback(done)

    def budget(self, asked: object) -> float:
        if asked is None:
            return self.limits.default_time
        if isinstance(asked, bool) or not isinstance(asked, int | float) or not 0 < asked < math.inf:
            raise GameError("bad_time", _(M.BAD_TIME).format(value=repr(asked)))
        return min(float(asked), self.limits.max_time)

    async def position_job(self, frame: dict[str, Any]) -> tuple[PositionJob, str]:
        unknown = sorted(set(frame) - {"type", "id", "game", "options", "spn", "moves", "seat", "time"})
        if unknown:
            raise GameError("bad_frame", f"unexpected field {unknown[0]!r} in an 'analyse' frame")
        options = parse_options(_text(frame, "options", MAX_OPTIONS))
        moves = frame.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise GameError("bad_move", "moves must be a list of moves' texts")
        seat = frame.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise GameError("bad_seat", "seat must be a seat's number (0 for the first player)")
        time = self.budget(frame.get("time"))
        name, spn = _text(frame, "game", 40, required=True), _text(frame, "spn", MAX_SPN) or None
        position = await asyncio.get_running_loop().run_in_executor(
            None, speaking_now(check_position), name, options, spn, moves
        )
        game, state = position.game, position.state
        if game.perfect_information or state.is_terminal():
            seat = None
        elif seat is None or seat not in range(game.num_players):
            last = game.num_players - 1
            raise GameError("bad_seat", _(M.ONE_SEAT_VIEW).format(game=game.name, last=last))
        job = PositionJob(game.name, dict(game.options), position.start, tuple(position.moves), seat, time)
        key = json.dumps([game.name, sorted(game.options.items()), state.to_spn(), seat], default=str)
        return job, key

    async def game_job(self, frame: dict[str, Any]) -> GameJob:
        unknown = sorted(set(frame) - {"type", "id", "record"})
        if unknown:
            raise GameError("bad_frame", f"unexpected field {unknown[0]!r} in an 'analyse_game' frame")
        record_id = _text(frame, "record", 100, required=True)
        manager = self.ws.scope["app"].state.manager
        session = await manager.load(record_id)
        if session is None:
            raise GameError("unknown_game", _(M.NO_GAME_WITH_ID))
        if not session.is_over():  # ended by its rules, or on time, resigned or aborted
            raise GameError("not_finished", _(M.ONLY_FINISHED))
        record = session.record
        moves = tuple(record.moves)
        per_position = min(self.limits.game_position_time, self.limits.game_max_time / max(1, len(moves) + 1))
        return GameJob(record.game, dict(session.game.options), record.start, record.seed, moves, per_position)

    async def run_position(self, job_id: int, job: PositionJob, key: str) -> None:
        def progress(data: dict[str, Any]) -> None:
            self.reply({"type": "progress", "id": job_id, **data})

        try:
            result = await self.service.pool.run(job, progress, job.time, self.address)
        except JobFailed as failure:
            self.error(job_id, failure.code, failure.message)
            return
        self.service.remember(key, result)
        self.reply({"type": "analysis", "id": job_id, "analysis": result, "cached": False})

    async def run_game(self, job_id: int, job: GameJob) -> None:
        def progress(data: dict[str, Any]) -> None:
            self.reply({"type": "progress", "id": job_id, **data})

        budget = job.time * (len(job.moves) + 1) * 2
        try:
            report = await self.service.pool.run(job, progress, budget, self.address)
        except JobFailed as failure:
            self.error(job_id, failure.code, failure.message)
            return
        self.reply({"type": "game_analysis", "id": job_id, "report": report})


ROUTES: list[BaseRoute] = [
    Route("/analysis", page("analysis.html"), methods=["GET"]),
    Route("/api/analysis/position", api_position, methods=["GET"]),
    Route("/api/analysis/record/{game_id}", api_record, methods=["GET"]),
    WebSocketRoute("/ws/analysis", AnalysisSocket),
]
