"""What the lobby shows of time controls, and the games waiting for a player (issue 38).

    GET /api/time-controls        the controls the pages offer: each game's presets and the limits of a custom one
    GET /api/clocks               the time control of every active timed game, by id
    GET /api/my/clocks            the signed-in player's active timed games: their clocks now, by id
    GET /@/{name}/feed.atom       an Atom feed of the games waiting for that account's move

The feed is public, as a profile is: it names only the games where one of that account's seats
has to act, with each game's public page (``/game/{id}``), never a seat's invite link, and only
the public facts of the game (its title, the moves played, the time left on the seat's clock).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from starlette.responses import Response
from starlette.routing import Route

from spheria.i18n import gettext as _
from spheria.kernel.clock import BASE_RANGE, DAYS_CHOICES, MOST_INCREMENT, TimeControl, describe_left, presets
from spheria.kernel.registry import game_class, game_names
from spheria.server import messages as M
from spheria.server.accounts import refused, signed_in
from spheria.server.chat import chat_of, your_move
from spheria.server.database import Database
from spheria.server.endpoints import json_response, manager_of
from spheria.server.session import GameError
from spheria.server.storage import ACTIVE

if TYPE_CHECKING:
    from starlette.requests import Request

    from spheria.server.session import GameSession, SessionManager

#: The most games a feed lists.
FEED_MOST = 50
ATOM = "http://www.w3.org/2005/Atom"


def _control(control: TimeControl) -> dict[str, Any]:
    return {"clock": control.to_json(), "control": str(control)}


def time_controls() -> dict[str, Any]:
    """Each game's preset controls (its kit's, else the common ones) and the limits of a custom one."""
    return {
        "games": {name: [_control(c) for c in presets(game_class(name))] for name in game_names()},
        "base": list(BASE_RANGE),
        "increment": MOST_INCREMENT,
        "days": list(DAYS_CHOICES),
    }


async def api_time_controls(request: Request) -> Response:
    return json_response(time_controls())


def active_controls(db: Database) -> dict[str, TimeControl]:
    """The time control of every active timed game, by id."""
    sql = "SELECT c.game_id, c.control FROM game_clocks c JOIN games g ON g.id = c.game_id WHERE g.status = ?"
    return {row[0]: TimeControl.from_json(json.loads(row[1])) for row in db.execute(sql, (ACTIVE,))}


async def api_clocks(request: Request) -> Response:
    manager = manager_of(request)
    controls: dict[str, TimeControl] = await manager.db(manager.storage.transaction, active_controls)
    return json_response({"games": {game_id: _control(control) for game_id, control in controls.items()}})


def clock_now(manager: SessionManager, session: GameSession) -> dict[str, Any] | None:
    """The game's clocks as a state frame gives them now (None: untimed)."""
    return None if manager.clocks is None else manager.clocks.frame(session)


async def held_sessions(request: Request, player_id: str) -> list[tuple[GameSession, int]]:
    """The active games (loaded) and seats the player holds."""
    manager = manager_of(request)
    held = await manager.db(chat_of(request.app).store.seats_held, player_id)
    found = []
    for game_id, seat in held:
        session = await manager.get(game_id)
        if session is not None and not session.is_over():
            found.append((session, seat))
    return found


async def api_my_clocks(request: Request) -> Response:
    try:
        player = await signed_in(request)
    except GameError as error:
        return refused(error)
    manager = manager_of(request)
    clocks = {
        session.id: frame
        for session, _seat in await held_sessions(request, player.id)
        if (frame := clock_now(manager, session)) is not None
    }
    response = json_response({"games": clocks})
    response.headers["Cache-Control"] = "no-store"
    return response


def _stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _attribute(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def feed(base: str, name: str, entries: list[dict[str, Any]], now: float) -> str:
    """The Atom document of the games waiting for ``name``'s move, one entry each (``id``, ``title``,
    ``summary``, ``updated``); every text escaped, the words in the request's language."""
    own = f"{base}/@/{name}"
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<feed xmlns="{ATOM}">',
        f"  <id>{escape(own)}/feed.atom</id>",
        f"  <title>{escape(_(M.FEED_TITLE).format(name=name))}</title>",
        f"  <updated>{_stamp(max((e['updated'] for e in entries), default=now))}</updated>",
        f'  <link rel="self" href="{_attribute(own)}/feed.atom"/>',
        f'  <link rel="alternate" href="{_attribute(own)}"/>',
        f"  <author><name>{escape(name)}</name></author>",
    ]
    for entry in entries:
        page = f"{base}/game/{entry['id']}"
        lines += [
            "  <entry>",
            f"    <id>{escape(page)}#{entry['plies']}</id>",
            f"    <title>{escape(entry['title'])}</title>",
            f'    <link rel="alternate" href="{_attribute(page)}"/>',
            f"    <updated>{_stamp(entry['updated'])}</updated>",
            f"    <summary>{escape(entry['summary'])}</summary>",
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


async def api_feed(request: Request) -> Response:
    """``GET /@/{name}/feed.atom``: the games waiting for that player's move (the player a profile
    of that name shows; 404 ``unknown_player``: nobody of that name)."""
    manager = manager_of(request)
    player = await manager.db(request.app.state.profiles.store.player_named, request.path_params["name"])
    if player is None or player.name is None:
        response = refused(GameError("unknown_player", _(M.NO_PLAYER)))
        response.status_code = 404
        return response
    entries = []
    for session, seat in await held_sessions(request, player.id):
        if not your_move(session, seat):
            continue
        title = _(M.FEED_ENTRY).format(game=_(session.game.title), seat=_(session.game.player_names()[seat]))
        clock = clock_now(manager, session)
        left = "" if clock is None else _(M.FEED_LEFT).format(left=describe_left(clock["left"][seat]))
        entries.append(
            {
                "id": session.id,
                "plies": len(session.state.history),
                "title": title,
                "summary": f"{title} · {left}" if left else title,
                "updated": session.stored.updated,
            }
        )
    base = str(request.base_url).rstrip("/")
    body = feed(base, player.name, entries[:FEED_MOST], time.time())
    return Response(body, media_type="application/atom+xml", headers={"Cache-Control": "no-store"})


ROUTES = [
    Route("/api/time-controls", api_time_controls, methods=["GET"]),
    Route("/api/clocks", api_clocks, methods=["GET"]),
    Route("/api/my/clocks", api_my_clocks, methods=["GET"]),
    Route("/@/{name}/feed.atom", api_feed, methods=["GET"]),
]
