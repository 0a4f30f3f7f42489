"""The HTTP endpoints: plain functions over ``request.app.state`` (see :func:`spheria.server.app.create_app`).

``app.state`` holds ``manager`` (the :class:`SessionManager`), ``limits`` (:class:`Limits`) and
``create_bucket`` (the per-address :class:`TokenBucket` for new games).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from spheria.agents.registry import agent_names, agents_for, default_agent
from spheria.i18n import LANGUAGES, negotiate, using
from spheria.i18n import gettext as _
from spheria.kernel.game import Game
from spheria.kernel.record import replay_steps, set_up, timestamp
from spheria.kernel.registry import default_game_name, game_class, game_names, load_game
from spheria.server import messages as M
from spheria.server.clocks import parse_clock
from spheria.server.hints import check_hints_setting
from spheria.server.jsontext import BadJson, parse_json
from spheria.server.session import GameError, GameSession, SessionManager
from spheria.server.storage import FINISHED
from spheria.server.views import board_of, public_frame, result_of

MAX_BODY = 16384
WEB_DIR = Path(str(resources.files("spheria") / "web"))


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def json_response(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


def manager_of(request: HTTPConnection) -> SessionManager:
    manager: SessionManager = request.app.state.manager
    return manager


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def read_json(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise GameError("too_large", f"request body too large: at most {MAX_BODY} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise GameError("too_large", f"request body too large: at most {MAX_BODY} bytes")
    try:
        return parse_json(raw)
    except BadJson as error:
        raise GameError("bad_json", f"request body: {error}") from None


def options_of(data: dict[str, Any]) -> dict[str, Any]:
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise GameError("bad_game", "options must be an object of name: value")
    for key, value in options.items():
        if not isinstance(value, str | int | bool) or (isinstance(value, str) and len(value) > 100):
            raise GameError("bad_game", f"option {key!r} must be a short string, a number or true/false")
    return {k: v for k, v in options.items() if v != ""}


async def find_game(request: Request, *, finished: bool = False, live: bool = True) -> GameSession:
    """The game named in the path: live (kept in memory for play) or as stored; raises
    ``unknown_game`` (404), or ``not_finished`` (409) when ``finished`` is asked of a game in play."""
    manager = manager_of(request)
    game_id = request.path_params["game_id"]
    session = await (manager.get(game_id) if live else manager.load(game_id))
    if session is None:
        raise GameError("unknown_game", _(M.NO_GAME_WITH_ID))
    if finished and not session.is_over():
        raise GameError("not_finished", _(M.NOT_FINISHED))
    return session


_STATUS = {
    "unknown_game": 404,
    "not_finished": 409,
    "seat_taken": 409,
    "not_owner": 403,
    "rate_limited": 429,
    "cluster_unavailable": 503,  # Redis cannot be reached (spheria.server.cluster)
}


def refused(error: GameError) -> JSONResponse:
    headers = {"Retry-After": "10"} if error.code == "rate_limited" else None
    return error_response(_STATUS.get(error.code, 400), error.code, error.message, headers)


def page(name: str, *, of_game: bool = False) -> Any:
    """The page ``name`` of web/. ``of_game``: the path names a game (``{game_id}``); when there is
    no such game the page is sent all the same (it says so to a person) with the status 404."""

    async def endpoint(request: Request) -> Response:
        found = not of_game or await manager_of(request).exists(request.path_params["game_id"])
        return FileResponse(WEB_DIR / name, status_code=200 if found else 404, headers={"Cache-Control": "no-cache"})

    return endpoint


def fitting_agents(game: Game) -> list[str]:
    """The agents that can play ``game`` (with its options), the lobby's default first."""
    names = agents_for(game)
    default = default_agent(game).split(":")[0] if names else None
    return sorted(names, key=lambda name: name != default)


def fitting_levels(game: Game) -> list[dict[str, Any]]:
    """The levels (``level:1`` …) that play ``game`` with its options, with their words and time a move."""
    from spheria.agents.levels import level_spec, level_words, levels_for
    from spheria.agents.registry import LevelAgent

    try:
        levels = levels_for(game)
    except ValueError:
        return []
    return [
        {"spec": level_spec(e.level), "level": e.level, "words": level_words(e.level), "seconds": e.seconds}
        for e in levels
        if LevelAgent(e.level).fits(game)
    ]


def catalog() -> dict[str, Any]:
    """Every game the pages offer, with its options, seats, agents and levels; ``default``, the game
    they offer first."""
    games = []
    for name in game_names():
        cls = game_class(name)
        options = [
            {
                "name": spec.name,
                "default": spec.default,
                "help": spec.help,
                "choices": [str(choice) for choice in spec.choices],
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
    return {"games": games, "agents": agent_names(), "default": default_game_name()}


def howto(name: str, lang: str = "en") -> dict[str, Any]:
    """How to play a game in ``lang``, for the page's panel: the plain text and its blocks, each
    pictured position as boards the page draws (``board``, ``after``, ``locked``, ``move``)."""
    from spheria.help import howto as howto_text
    from spheria.help import howto_blocks

    blocks = []
    for block in howto_blocks(name, lang=lang):
        data: dict[str, Any] = {"kind": block.kind, "text": block.text}
        if block.spn is not None:
            data.update(_pictured(name, block.spn, "board"))
            data["move"] = block.move
            if block.after_spn is not None:
                data.update(_pictured(name, block.after_spn, "after"))
        blocks.append(data)
    return {"game": name, "lang": lang, "text": howto_text(name, lang=lang), "blocks": blocks}


def _pictured(name: str, spn: str, key: str) -> dict[str, Any]:
    state = load_game(name).state_from_spn(spn)
    observation = state.public_observation()
    return {key: board_of(observation), f"{key}_locked": observation.get("locked", [])}


def resigned_seat(result: dict[str, Any] | None) -> int | None:
    """The seat that resigned a game (:mod:`spheria.server.profiles`), if one did."""
    reason = None if result is None else result.get("reason")
    return reason.get("seat") if isinstance(reason, dict) and reason.get("code") == "resigned" else None


def record_of(session: GameSession) -> dict[str, Any]:
    """The game record of a session as a record file holds it (``docs/records.md``), written now,
    with its result and, in a game played with hints, the hints each seat was given."""
    state = session.state
    record = replace(
        session.record,
        moves=state.history_notation(),  # the state's, as its result: a move being written is in both
        result=[float(r) for r in state.returns()] if state.is_terminal() else None,
        created=timestamp(),
        hints=session.hint_counts() if session.stored.hints else None,
        resigned=resigned_seat(session.stored.result),
        **(
            {} if session.manager.clocks is None else session.manager.clocks.recorded(session)
        ),  # docs/server.md, Clocks
    )
    data = record.to_json()
    data["server_game_id"] = session.id
    return data


async def api_catalog(request: Request) -> Response:
    return json_response(catalog())


def language_of(request: Request) -> str:
    """The language of the prose the server words for this request: ``?lang=``, else the
    ``Accept-Language`` header (English when neither names a language Spheria speaks)."""
    asked = request.query_params.get("lang")
    if asked is None:
        return negotiate(request.headers.get("accept-language"))
    if asked not in LANGUAGES:
        raise GameError("bad_lang", f"lang must be one of {', '.join(LANGUAGES)}")
    return asked


def spoken_language(connection: HTTPConnection) -> str:
    """The language a request or a websocket is answered in: ``?lang=`` when it names one Spheria
    speaks (the page's own switch), else its ``Accept-Language`` (English when nothing fits)."""
    asked = connection.query_params.get("lang")
    return asked if asked in LANGUAGES else negotiate(connection.headers.get("accept-language"))


class Speaking:
    """ASGI middleware: each request, and each websocket for its whole life, runs in its
    :func:`spoken_language` (:func:`spheria.i18n.using`), so every detail the server or the rules
    word for it comes in that language; the codes beside them never change."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        with using(spoken_language(HTTPConnection(scope))):
            await self.app(scope, receive, send)


async def api_howto(request: Request) -> Response:
    """``GET /api/howto/{game}?lang=ko``: How to play, the one prose the server words for the browser."""
    name = request.path_params["game"]
    if name not in game_names():
        return error_response(
            404, "unknown_game", _(M.NO_GAME_CALLED).format(name=repr(name), games=", ".join(game_names()))
        )
    try:
        lang = language_of(request)
    except GameError as error:
        return refused(error)
    response = json_response(howto(name, lang))
    response.headers["Vary"] = "Accept-Language"
    return response


async def api_check(request: Request) -> Response:
    try:
        data = await read_json(request)
        if not isinstance(data, dict) or not isinstance(data.get("game"), str):
            raise GameError("bad_game", "give the game's name as 'game'")
        try:
            game = load_game(data["game"], **options_of(data))
        except (ValueError, TypeError) as error:
            raise GameError("bad_game", str(error)) from None
    except GameError as error:
        return refused(error)
    return json_response(
        {
            "game": game.name,
            "title": game.title,
            "options": dict(game.options),
            "players": game.player_names(),
            "seats": game.describe()["seats"],
            "agents": fitting_agents(game),
            "levels": fitting_levels(game),
        }
    )


async def api_games(request: Request) -> Response:
    manager = manager_of(request)
    status = request.query_params.get("status")
    if status not in (None, "active", FINISHED):
        return error_response(400, "bad_query", "status must be 'active' or 'finished'")
    summaries = await manager.db(manager.storage.list_games, status, 100)
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
    return json_response({"games": result})


def _creation_request(data: Any) -> tuple[str, list[dict[str, Any]], int | None]:
    if not isinstance(data, dict):
        raise GameError("bad_game", "the body must be a JSON object")
    unknown = sorted(set(data) - {"game", "options", "seats", "seed", "start", "hints", "rated", "clock"})
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
    return name, seats, seed


async def api_create(request: Request) -> Response:
    manager = manager_of(request)
    try:
        if not request.app.state.create_bucket.take(client_address(request)):
            raise GameError("rate_limited", _(M.TOO_MANY_NEW_GAMES))
        data = await read_json(request)
        name, seats, seed = _creation_request(data)
        start = data.get("start")
        if start is not None and not isinstance(start, str):
            raise GameError("bad_position", "start must be a position in SPN (text)")
        hints = check_hints_setting(data.get("hints"), seats)
        if data.get("rated", False) not in (True, False):
            raise GameError("bad_game", "rated must be true or false")
        rated = data.get("rated") is True
        clock = parse_clock(data.get("clock"))
        session, tokens, owner = await manager.create(
            name, options_of(data), seats, seed, start, hints=hints, rated=rated, clock=clock
        )
    except GameError as error:
        return refused(error)
    for noted in request.app.state.creation_hooks:  # e.g. the creator's account files it (accounts)
        await noted(request, session.id)
    names = session.game.player_names()
    return json_response(
        {
            "id": session.id,
            "url": f"/game/{session.id}",
            "spectate": f"/game/{session.id}",
            "owner": owner,
            "seats": [
                {
                    "seat": s.seat,
                    "name": names[s.seat],
                    "kind": s.kind,
                    "agent": s.agent,
                    "invite": f"/game/{session.id}#{tokens[s.seat]}" if s.seat in tokens else None,
                }
                for s in session.stored.seats
            ],
            "game": session.info(),
        },
        status=201,
    )


async def api_reissue(request: Request) -> Response:
    """``POST /api/games/{id}/invites`` ``{"seat": n, "owner": credential}``: a new link for an unclaimed seat."""
    try:
        data = await read_json(request)
        if not isinstance(data, dict) or not isinstance(data.get("owner"), str) or len(data["owner"]) > 100:
            raise GameError("not_owner", "give the creator's credential as 'owner'")
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise GameError("bad_seats", "give the seat's number as 'seat'")
        session = await find_game(request)
        token = await session.reissue(seat, data["owner"])
    except GameError as error:
        return refused(error)
    return json_response({"seat": seat, "invite": f"/game/{session.id}#{token}"})


async def api_game(request: Request) -> Response:
    try:
        session = await find_game(request, live=False)
    except GameError as error:
        return refused(error)
    return json_response(session.info())


async def api_record(request: Request) -> Response:
    try:
        session = await find_game(request, finished=True, live=False)
    except GameError as error:
        return refused(error)
    data = await asyncio.get_running_loop().run_in_executor(None, record_of, session)
    filename = f"spheria-{session.game.name}-{session.id}.json"
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def replay_frames(session: GameSession) -> list[dict[str, Any]]:
    """The public frame of every position of a stored game, from its start to its last move."""
    record = session.record
    state = set_up(record.game, record.options, record.start, record.seed)
    frames = [public_frame(state, {}, 0)]
    frames += [public_frame(step.state, {}, step.number) for step in replay_steps(state, record.moves)]
    return frames


async def api_replay(request: Request) -> Response:
    try:
        session = await find_game(request, finished=True, live=False)
    except GameError as error:
        return refused(error)
    frames = await asyncio.get_running_loop().run_in_executor(None, replay_frames, session)
    body = {
        "game": session.info(),
        "moves": list(session.record.moves),
        "steps": frames,
        "result": result_of(session.state),
        "hints": {"allowed": session.stored.hints, "used": session.hint_counts()},
    }
    return json_response(body)
