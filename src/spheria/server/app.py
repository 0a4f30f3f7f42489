"""The ASGI application: lobby and game pages, a small JSON API and one websocket per client.

HTTP::

    GET  /                       lobby (new game form, games in play, finished games)
    GET  /game/{id}              the game page; a seat's invite link adds ``#<token>``
    GET  /replay/{id}            replay of a finished game
    GET  /static/...             the browser client (HTML, CSS, JavaScript modules)
    GET  /api/catalog            games, their options and the agents (per game: those that fit)
    GET  /api/howto/{game}       {"game", "text", "blocks"}: how to play it, for the page's panel
    POST /api/check              {"game", "options"} -> the seats' names, or a clear error
    GET  /api/games              games (public facts only)
    POST /api/games              create: {"game", "options", "seats": [{"kind": "human"},
                                 {"kind": "agent", "agent": "random"}], "seed"?}
    GET  /api/games/{id}         public facts about one game
    GET  /api/games/{id}/record  the game record (JSON) of a finished game
    GET  /api/games/{id}/replay  each position of a finished game, as spectators see it

WebSocket ``/ws/{id}``: see :mod:`spheria.server.protocol`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from spheria.agents.registry import agent_names, agents_for, default_agent
from spheria.games.base import Game, game_class, game_names, load_game
from spheria.server.agents import make_executor, rebuild
from spheria.server.protocol import ProtocolError, error_frame, parse_frame
from spheria.server.session import Client, GameError, GameSession, SessionManager
from spheria.server.storage import FINISHED, SQLiteStorage, Storage
from spheria.server.views import board_of, public_frame, result_of

log = logging.getLogger("spheria.server")

MAX_BODY = 16384
#: Frames a connection may send per second by default (a burst of twice as many is allowed).
FRAME_RATE = 50.0
_clock = time.monotonic
WEB_DIR = Path(str(resources.files("spheria") / "web"))

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=SECURITY_HEADERS)


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={**SECURITY_HEADERS, "Cache-Control": "no-store"})


async def _body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise GameError("too_large", f"request body too large: at most {MAX_BODY} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise GameError("too_large", f"request body too large: at most {MAX_BODY} bytes")
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise GameError("bad_json", "request body is not valid JSON") from None


def _options_of(data: dict[str, Any]) -> dict[str, Any]:
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise GameError("bad_game", "options must be an object of name: value")
    for key, value in options.items():
        if not isinstance(value, str | int | bool) or (isinstance(value, str) and len(value) > 100):
            raise GameError("bad_game", f"option {key!r} must be a short string, a number or true/false")
    return {k: v for k, v in options.items() if v != ""}


def fitting_agents(game: Game) -> list[str]:
    """The agents that can play ``game`` (with its options), the lobby's default first."""
    names = agents_for(game)
    default = default_agent(game).split(":")[0] if names else None
    return sorted(names, key=lambda name: name != default)


def catalog() -> dict[str, Any]:
    games = []
    for name in game_names():
        cls = game_class(name)
        options = [
            {
                "name": spec.name,
                "default": spec.default,
                "help": spec.help,
                "choices": list(spec.choices),
                "kind": spec.kind.__name__,
                "minimum": spec.minimum,
            }
            for spec in cls.option_specs
        ]
        default = cls()
        facts = default.describe()
        games.append(
            {
                "name": name,
                "title": cls.title,
                "options": options,
                "players": default.player_names(),
                "seats": facts["seats"],
                "sides": facts["sides"],
                "perfect_information": default.perfect_information,
                "agents": fitting_agents(default),
            }
        )
    return {"games": games, "agents": agent_names()}


def howto(name: str) -> dict[str, Any] | None:
    """How to play a game, for the page's panel: the plain text and its blocks, each pictured
    position as boards the page draws (``board``, ``after``, ``locked``, ``move_sites``)."""
    try:
        from spheria.help import howto as howto_text
        from spheria.help import howto_blocks
    except ImportError:
        return None
    blocks = []
    for block in howto_blocks(name):
        data: dict[str, Any] = {"kind": block.kind, "text": block.text}
        if block.spn is not None:
            data.update(_pictured(name, block.spn, "board"))
            data["move"] = block.move
            if block.after_spn is not None:
                data.update(_pictured(name, block.after_spn, "after"))
        blocks.append(data)
    return {"game": name, "text": howto_text(name), "blocks": blocks}


def _pictured(name: str, spn: str, key: str) -> dict[str, Any]:
    state = load_game(name).state_from_spn(spn)
    observation = state.public_observation()
    return {key: board_of(observation), f"{key}_locked": observation.get("locked", [])}


def record_of(session: GameSession) -> dict[str, Any]:
    """The game record of a session, in the records module's format."""
    from spheria.records import Record

    players = [s.agent if s.agent else "human" for s in session.record.seats]
    data = Record.from_state(session.state, players).to_json()
    if session.record.seed is not None:
        data["seed"] = session.record.seed
    data["server_game_id"] = session.id
    return data


def create_app(
    db: str = "spheria.sqlite3",
    *,
    storage: Storage | None = None,
    executor: Executor | None = None,
    agent_pool: str = "process",
    agent_workers: int | None = None,
    agent_delay: float = 0.3,
    frame_rate: float = FRAME_RATE,
) -> Starlette:
    """The server as an ASGI app. ``db`` is the SQLite file (``:memory:`` for a throwaway store).

    ``frame_rate``: frames per second a connection may send (bursts of twice as many); 0 for no limit.
    """
    burst = max(2 * frame_rate, 10.0)
    own_executor = executor is None
    store = storage if storage is not None else SQLiteStorage(db)
    pool = executor if executor is not None else make_executor(agent_pool, agent_workers)
    manager = SessionManager(store, pool, agent_delay)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        resumed = await manager.resume_all()
        if resumed:
            log.info("resumed %d unfinished games", resumed)
        try:
            yield
        finally:
            await manager.close()
            if own_executor:
                pool.shutdown(wait=False, cancel_futures=True)
            if storage is None:
                store.close()

    def page_route(path: str, name: str) -> Route:
        async def endpoint(request: Request) -> Response:
            return FileResponse(WEB_DIR / name, headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})

        return Route(path, endpoint, methods=["GET"])

    async def api_catalog(request: Request) -> Response:
        return _json(catalog())

    async def api_howto(request: Request) -> Response:
        name = request.path_params["game"]
        if name not in game_names():
            return _error(404, "unknown_game", f"no game called {name!r}")
        return _json(howto(name) or {"game": name, "text": None, "blocks": []})

    async def api_check(request: Request) -> Response:
        try:
            data = await _body(request)
            if not isinstance(data, dict) or not isinstance(data.get("game"), str):
                raise GameError("bad_game", "give the game's name as 'game'")
            try:
                game = load_game(data["game"], **_options_of(data))
            except (ValueError, TypeError) as error:
                raise GameError("bad_game", str(error)) from None
        except GameError as error:
            return _error(400, error.code, error.message)
        return _json(
            {
                "game": game.name,
                "title": game.title,
                "options": game.options,
                "players": game.player_names(),
                "seats": game.describe()["seats"],
                "agents": fitting_agents(game),
            }
        )

    async def api_games(request: Request) -> Response:
        status = request.query_params.get("status")
        if status not in (None, "active", FINISHED):
            return _error(400, "bad_query", "status must be 'active' or 'finished'")
        summaries = await manager.db(store.list_games, status, 100)
        facts: dict[str, list[dict[str, Any]]] = {}
        result = []
        for s in summaries:
            try:  # the seats of this game with its own options (names and colours)
                facts[s.id] = load_game(s.name, **s.options).describe()["seats"]
            except ValueError:
                continue
            live = manager.sessions.get(s.id)
            players = (
                live.players()
                if live is not None
                else [
                    {"seat": seat.seat, "name": facts[s.id][seat.seat]["name"], "kind": seat.kind, "agent": seat.agent}
                    for seat in s.seats
                ]
            )
            result.append(
                {
                    "id": s.id,
                    "game": s.name,
                    "title": game_class(s.name).title,
                    "options": s.options,
                    "players": players,
                    "seats": facts[s.id],
                    "status": s.status,
                    "plies": s.plies,
                    "result": s.result,
                    "updated": s.updated,
                }
            )
        return _json({"games": result})

    async def api_create(request: Request) -> Response:
        try:
            data = await _body(request)
            if not isinstance(data, dict):
                raise GameError("bad_game", "the body must be a JSON object")
            unknown = sorted(set(data) - {"game", "options", "seats", "seed"})
            if unknown:
                raise GameError("bad_game", f"unexpected field {unknown[0]!r}")
            name = data.get("game")
            if not isinstance(name, str):
                raise GameError("bad_game", "give the game's name as 'game'")
            seats = data.get("seats")
            if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats) or len(seats) > 8:
                raise GameError("bad_seats", "seats: a list of {'kind': 'human'} or {'kind': 'agent', 'agent': spec}")
            seed = data.get("seed")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63):
                raise GameError("bad_game", "seed must be a whole number ≥ 0")
            session, tokens = await manager.create(name, _options_of(data), seats, seed)
        except GameError as error:
            return _error(400, error.code, error.message)
        names = session.game.player_names()
        return _json(
            {
                "id": session.id,
                "url": f"/game/{session.id}",
                "spectate": f"/game/{session.id}",
                "seats": [
                    {
                        "seat": s.seat,
                        "name": names[s.seat],
                        "kind": s.kind,
                        "agent": s.agent,
                        "invite": f"/game/{session.id}#{tokens[s.seat]}" if s.seat in tokens else None,
                    }
                    for s in session.record.seats
                ],
                "game": session.info(),
            },
            status=201,
        )

    async def api_game(request: Request) -> Response:
        session = await manager.get(request.path_params["game_id"])
        if session is None:
            return _error(404, "unknown_game", "no game with that id")
        return _json(session.info())

    async def api_record(request: Request) -> Response:
        session = await manager.get(request.path_params["game_id"])
        if session is None:
            return _error(404, "unknown_game", "no game with that id")
        if not session.state.is_terminal():
            return _error(409, "not_finished", "the record is available when the game is over")
        data = record_of(session)
        filename = f"spheria-{session.game.name}-{session.id}.json"
        return JSONResponse(
            data, headers={**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{filename}"'}
        )

    async def api_replay(request: Request) -> Response:
        session = await manager.get(request.path_params["game_id"])
        if session is None:
            return _error(404, "unknown_game", "no game with that id")
        if not session.state.is_terminal():
            return _error(409, "not_finished", "replays are for finished games")
        record = session.record

        def steps() -> list[dict[str, Any]]:
            state = rebuild(record.name, record.options, record.seed, [])
            frames = [public_frame(state, {}, 0)]
            for index, entry in enumerate(record.moves):
                state.apply_notation(entry)
                frames.append(public_frame(state, {}, index + 1))
            return frames

        frames = await asyncio.get_running_loop().run_in_executor(None, steps)
        return _json(
            {
                "game": session.info(),
                "moves": list(record.moves),
                "steps": frames,
                "result": result_of(session.state),
            }
        )

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        session = await manager.get(ws.path_params["game_id"])
        if session is None:
            await ws.send_json(error_frame("unknown_game", "no game with that id"))
            await ws.close(code=4404)
            return
        await play_socket(ws, session)

    async def play_socket(ws: WebSocket, session: GameSession) -> None:
        async def send(frame: dict[str, Any]) -> None:
            await ws.send_text(json.dumps(frame, separators=(",", ":")))

        client: Client | None = None
        pump: asyncio.Task[None] | None = None
        direct = Client(send)  # replies before joining go straight out, in order
        direct_pump = asyncio.create_task(direct.pump())

        def reply(frame: dict[str, Any]) -> None:
            (client or direct).push(frame)

        allowance, last = burst, _clock()

        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                now = _clock()
                allowance = min(burst, allowance + (now - last) * frame_rate)
                last = now
                if frame_rate > 0 and allowance < 1:
                    reply(error_frame("rate_limited", "too many frames: slow down"))
                    continue
                allowance -= 1
                text = message.get("text")
                if text is None:
                    reply(error_frame("bad_frame", "send JSON text frames"))
                    continue
                try:
                    frame = parse_frame(text)
                except ProtocolError as error:
                    reply(error_frame(error.code, str(error)))
                    continue
                kind = frame["type"]
                if kind == "ping":
                    reply({"type": "pong"})
                    continue
                if kind == "join":
                    if client is not None:
                        reply(error_frame("already_joined", "this connection has already joined"))
                        continue
                    seat: int | None = None
                    token = frame.get("token")
                    if token is not None:
                        seat = session.seat_for_token(token)
                        if seat is None:
                            reply(error_frame("bad_token", "that invite token is not valid for this game"))
                            continue
                    client = Client(send, seat)
                    direct.push({"type": "welcome", "seat": seat, "game": session.info()})
                    direct.queue.put_nowait(None)  # the direct queue drains, then the client's takes over
                    await direct_pump
                    pump = asyncio.create_task(client.pump())
                    session.attach(client)
                    continue
                if client is None:
                    reply(error_frame("not_joined", "join first: send {'type': 'join', 'token': ...}"))
                    continue
                if client.seat is None:
                    reply(error_frame("spectator", "spectators cannot play; open your seat's invite link"))
                    continue
                try:
                    if kind == "move":
                        await session.submit(client.seat, frame["move"], frame.get("version"))
                    elif kind == "preview":
                        client.push(await session.preview(client.seat, frame["move"], frame.get("complete", False)))
                except GameError as error:
                    client.push(error_frame(error.code, error.message))
                except Exception:  # a fault in the rules or the store must not take the connection down
                    log.exception("game %s: %s frame failed", session.id, kind)
                    client.push(error_frame("server_error", "the server could not do that; nothing changed"))
        except WebSocketDisconnect:
            pass
        finally:
            if client is not None:
                session.detach(client)
                client.queue.put_nowait(None)
            direct.queue.put_nowait(None)
            for task in (pump, direct_pump):
                if task is not None and not task.done():
                    task.cancel()

    routes = [
        page_route("/", "index.html"),
        page_route("/game/{game_id}", "game.html"),
        page_route("/replay/{game_id}", "replay.html"),
        Route("/api/catalog", api_catalog, methods=["GET"]),
        Route("/api/check", api_check, methods=["POST"]),
        Route("/api/howto/{game}", api_howto, methods=["GET"]),
        Route("/api/games", api_games, methods=["GET"]),
        Route("/api/games", api_create, methods=["POST"]),
        Route("/api/games/{game_id}", api_game, methods=["GET"]),
        Route("/api/games/{game_id}/record", api_record, methods=["GET"]),
        Route("/api/games/{game_id}/replay", api_replay, methods=["GET"]),
        WebSocketRoute("/ws/{game_id}", websocket),
        Mount("/static", app=StaticFiles(directory=WEB_DIR), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.manager = manager
    app.state.frame_burst = int(burst)
    return app
