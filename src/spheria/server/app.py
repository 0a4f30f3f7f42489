"""The ASGI application: lobby and game pages, a small JSON API and one websocket per client.

HTTP::

    GET  /                       lobby (new game form, games in play, finished games)
    GET  /game/{id}              the game page; a seat's invite link adds ``#<token>``
    GET  /replay/{id}            replay of a finished game
    GET  /analysis               the analysis board (routes and socket: :mod:`spheria.server.analysis`)
    /api/session, /api/guest, /api/account …  guests, accounts and sessions (:mod:`spheria.server.accounts`)
    /api/challenges …            open challenges (:mod:`spheria.server.challenges`; its socket ``/ws/lobby``)
    /api/players…, /api/games/{id}/resign|rematch  profiles, resign, rematch (:mod:`spheria.server.profiles`)
    GET  /editor                 the position editor (its endpoints: :mod:`spheria.server.editor`)
    GET  /static/...             the browser client (HTML, CSS, JavaScript modules)
    GET  /api/catalog            games, their options and the agents (per game: those that fit)
    GET  /api/howto/{game}       {"game", "lang", "text", "blocks"}: how to play it, for the page's panel
                                 (``?lang=ko``; without it, in the language of Accept-Language)
    GET  /api/words              the names the server sends in English (titles, seats, option help) and
                                 the colour and level words, in the page's language (``?lang=ko``)
    POST /api/check              {"game", "options"} -> the seats' names, or a clear error
    GET  /api/games              games (public facts only)
    POST /api/games              create: {"game", "options", "seats": [{"kind": "human"},
                                 {"kind": "agent", "agent": "random"}], "seed"?, "start"?}
                                 (``start``: a position in SPN to start from, checked by the rules)
    POST /api/games/{id}/invites {"seat", "owner"}: a new invite for an unclaimed seat
    GET  /api/games/{id}         public facts about one game
    GET  /api/games/{id}/record  the game record (JSON) of a finished game
    GET  /api/games/{id}/replay  each position of a finished game, as spectators see it

WebSocket ``/ws/{id}``: see :mod:`spheria.server.protocol` and :mod:`spheria.server.connection`.

Every request and websocket is answered in its language (``?lang=``, else ``Accept-Language``:
:class:`spheria.server.endpoints.Speaking`): the details of refusals are translated, codes never.
The endpoints live in :mod:`spheria.server.endpoints`; :mod:`spheria.server.guards` checks Host,
Origin and content type and adds the security headers to every response.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from dataclasses import replace

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from spheria.i18n import ngettext, using
from spheria.server import (
    accounts,
    analysis,
    challenges,
    chat,
    clocks,
    editor,
    endpoints,
    profiles,
    puzzles,
    views,
    waiting,
)
from spheria.server.agent_queue import RedisAgentQueue, connect
from spheria.server.agents import AgentPool, AgentRunner, make_executor
from spheria.server.analysis_queue import RedisAnalysisQueue
from spheria.server.cluster import Router, make_cluster
from spheria.server.connection import GameSocket
from spheria.server.endpoints import WEB_DIR, catalog, record_of
from spheria.server.guards import SECURITY_HEADERS, Guard
from spheria.server.limits import Limits, TokenBucket
from spheria.server.messages import RESUMED
from spheria.server.presence import SharedPresence
from spheria.server.session import GameError, SessionManager
from spheria.server.storage import Storage, open_storage

__all__ = ["SECURITY_HEADERS", "WEB_DIR", "catalog", "create_app", "record_of"]

log = logging.getLogger("spheria.server")

#: Frames a connection may send per second by default (a burst of twice as many is allowed).
FRAME_RATE = Limits.frame_rate


async def api_words(request: Request) -> Response:
    """``GET /api/words?lang=ko``: the server's names and words for the pages (:func:`views.words`)."""
    try:
        lang = endpoints.language_of(request)
    except GameError as error:
        return endpoints.refused(error)
    with using(lang):
        response = endpoints.json_response(views.words())
    response.headers["Vary"] = "Accept-Language"
    return response


async def profile_page(request: Request) -> Response:
    """``GET /@/{name}``: the profile page; for nobody of that name the page all the same (it says
    so to a person) with the status 404, as an unknown game's page. Found as the API finds it."""
    found = (await profiles.api_player(request)).status_code == 200
    return FileResponse(
        WEB_DIR / "profile.html", status_code=200 if found else 404, headers={"Cache-Control": "no-cache"}
    )


ROUTES = [
    *analysis.ROUTES,  # /ws/analysis before /ws/{game_id}
    *accounts.ROUTES,  # guests, accounts and sessions (docs/server.md, Accounts)
    *chat.ROUTES,  # chat reports and mutes, your games, presence (docs/server.md, Chat and Presence)
    Route("/", endpoints.page("index.html"), methods=["GET"]),
    Route("/game/{game_id}", endpoints.page("game.html", of_game=True), methods=["GET"]),
    Route("/replay/{game_id}", endpoints.page("replay.html", of_game=True), methods=["GET"]),
    Route("/editor", endpoints.page("editor.html"), methods=["GET"]),
    Route("/api/position/check", editor.api_check_position, methods=["POST"]),
    Route("/api/position/random", editor.api_random_position, methods=["POST"]),
    Route("/api/position/transform", editor.api_transform_position, methods=["POST"]),
    Route("/api/catalog", endpoints.api_catalog, methods=["GET"]),
    Route("/api/check", endpoints.api_check, methods=["POST"]),
    Route("/api/howto/{game}", endpoints.api_howto, methods=["GET"]),
    Route("/api/words", api_words, methods=["GET"]),
    Route("/api/games", endpoints.api_games, methods=["GET"]),
    Route("/api/games", endpoints.api_create, methods=["POST"]),
    Route("/api/games/{game_id}", endpoints.api_game, methods=["GET"]),
    Route("/api/games/{game_id}/invites", endpoints.api_reissue, methods=["POST"]),
    Route("/api/games/{game_id}/record", endpoints.api_record, methods=["GET"]),
    Route("/api/games/{game_id}/replay", endpoints.api_replay, methods=["GET"]),
    *challenges.ROUTES,  # open challenges (docs/server.md, Challenges and the lobby)
    WebSocketRoute("/ws/lobby", challenges.LobbySocket),  # before /ws/{game_id}
    WebSocketRoute("/ws/{game_id}", GameSocket),
    *puzzles.ROUTES,  # puzzles and puzzle ratings (docs/server.md, Puzzles)
    *profiles.ROUTES,  # profiles, player search, resign and rematch (docs/server.md, Profiles)
    *waiting.ROUTES,  # time controls offered, clocks of games in play, feeds of games waiting for a move
    Route("/@/{name}", profile_page, methods=["GET"]),
    Mount("/static", app=StaticFiles(directory=WEB_DIR), name="static"),
]


def create_app(
    db: str = "spheria.sqlite3",
    *,
    storage: Storage | None = None,
    executor: Executor | None = None,
    executor_factory: Callable[[], Executor] | None = None,
    agent_pool: str = "process",
    agent_workers: int | None = None,
    agent_delay: float = 0.3,
    frame_rate: float | None = None,
    limits: Limits | None = None,
    analysis_limits: analysis.AnalysisLimits | None = None,
    redis: str | None = None,
) -> Starlette:
    """The server as an ASGI app. ``db`` is the SQLite file (``:memory:`` for a throwaway store)
    or a ``postgresql://`` URL.

    Agents think in ``executor_factory()`` (rebuilt when a worker dies or runs away), by default a
    pool of ``agent_pool`` kind; ``executor`` is a fixed pool (threads: never rebuilt). ``limits``
    holds every limit (:class:`Limits`); ``frame_rate`` overrides its frames per second;
    ``analysis_limits`` the analysis board's (its engine has worker processes of its own).
    With ``redis`` (a URL) this process is one of several on that Redis (:mod:`.cluster`: each live
    game owned by one of them), agents and the analysis board's engine run in ``spheria agents``
    workers, not here, and presence is shared (docs/server.md, Several processes; Agent workers and Redis).
    """
    limits = limits or Limits()
    if frame_rate is not None:
        limits = replace(limits, frame_rate=frame_rate)
    store = storage if storage is not None else open_storage(db)
    if executor is not None:
        fixed = executor
        factory: Callable[[], Executor] = lambda: fixed  # noqa: E731
    else:
        factory = executor_factory or (lambda: make_executor(agent_pool, agent_workers, limits.agent_niceness))
    presence: SharedPresence | None = None
    agents: AgentRunner
    analysis_limits = analysis_limits or analysis.AnalysisLimits()
    analysed_by: analysis.AnalysisEngine | None = None  # None: the analysis board's own pool here
    if redis is not None:  # agents and analysis off this process, presence shared: no local pool at all
        client = connect(redis)  # one client per process; the presence closes it when the app stops
        agents = RedisAgentQueue(client, limits.agent_grace)
        analysed_by = RedisAnalysisQueue(client, analysis_limits.grace)
        presence = SharedPresence(client)
    else:
        agents = AgentPool(factory, limits.agent_thinking, limits.agent_grace)
    manager = SessionManager(store, agents, agent_delay, limits)
    manager.cluster = cluster = make_cluster(redis, manager)
    engine = analysis.AnalysisService(analysis_limits, analysed_by)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if presence is not None:
            await presence.start()
        await cluster.start(app)
        await app.state.lobby.bus.start(app.state.lobby)  # the lobby's events to and from the others
        resumed = await manager.resume_all()
        if resumed:
            log.info(ngettext(RESUMED, resumed).format(n=resumed))
        await app.state.profiles.rate_missed()  # ended rated games the server stopped before rating
        sweeper = asyncio.create_task(_sweep(manager))
        flagger = asyncio.create_task(timed.run())  # flags on time, with nobody connected too
        try:
            yield
        finally:
            sweeper.cancel()
            flagger.cancel()
            engine.shutdown()
            await manager.close()
            await app.state.lobby.bus.stop()
            await cluster.stop()
            if executor is None:
                agents.shutdown()
            if presence is not None:
                await presence.stop()
            if storage is None:
                store.close()

    hosts = limits.allowed_hosts
    middleware = [
        Middleware(Guard, allowed_hosts=hosts, allowed_origins=limits.allowed_origins),
        Middleware(Router, cluster=cluster),  # a game's requests reach its owner (cluster.py)
        Middleware(endpoints.Speaking),
    ]
    app = Starlette(routes=ROUTES, lifespan=lifespan, middleware=middleware)
    app.state.manager = manager
    app.state.creation_hooks = []  # each told of a game a browser created (endpoints.api_create)
    accounts.install(app, store, limits)
    challenges.install(app, store, limits)
    profiles.install(app, store, limits)
    chat.install(app, store, limits, presence)
    puzzles.install(app, store, limits)
    app.state.lobby.follow_presence(app.state.presence)  # the lobby pushes who is online
    timed = clocks.install(app, store)
    app.state.analysis = engine
    app.state.limits = limits
    app.state.connections = Counter()
    app.state.create_bucket = TokenBucket(limits.create_per_minute / 60.0, float(limits.create_burst))
    app.state.frame_burst = int(max(2 * limits.frame_rate, 10.0))
    return app


async def _sweep(manager: SessionManager) -> None:
    """Abort idle games now and then (a tenth of the idle time, between 1 s and 10 min)."""
    seconds = manager.limits.idle_game_seconds
    if seconds <= 0:
        return
    while True:
        await asyncio.sleep(min(600.0, max(1.0, seconds / 10)))
        try:
            await manager.expire_idle()
        except Exception:
            log.warning("could not abort idle games", exc_info=True)
