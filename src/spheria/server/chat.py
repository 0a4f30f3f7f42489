"""Chat at the board: a room for a game's players and one for its spectators, mute and report.

Rooms (as on lichess): each connection is in exactly one room, the ``players`` room for a seat and
the ``spectators`` room for a spectator; a spectator never reads the players' room and the players
never read the spectators' (so nothing said beside the board reaches the seats during the game).

Websocket frames (on the game's socket, ``/ws/{game_id}``, after ``join``)::

    → {"type": "chat", "room": "players" | "spectators", "text": "..."}
    ← {"type": "chat_history", "room": ..., "messages": [message, ...]}   on join: the last HISTORY
    ← {"type": "chat", "room": ..., "message": {"id", "name", "guest", "seat", "text", "at"}}
    ← {"type": "error", "code": "chat_rate_limited", "message": ..., "retry_after": s}

The sender's name is never taken from the frame: it is the signed-in player's (a guest's marked
``guest``), else the seat's name; a spectator must be signed in (a guest will do) to write. Text is
plain: at most :data:`TEXT_MOST` characters, stripped of surrounding blanks, refused when it holds a
control character or a bidirectional override; the server never embeds it in HTML (pages show it
with ``textContent``). The server words nothing in chat, so no chat frame can quote a hidden choice.

HTTP (docs/server.md, Chat)::

    POST   /api/games/{id}/chat/{message_id}/report   kept for the operator (``python -m spheria.server.chat``)
    POST   /api/games/{id}/chat/{message_id}/mute     the sender's messages no longer reach you
    DELETE /api/games/{id}/chat/{message_id}/mute     they do again
    GET    /api/my/games                              your ongoing games, those where it is your move first

Mute and report need a signed-in player who has read that room of that game (``chat_readers``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.websockets import WebSocket

from spheria.i18n import gettext as _
from spheria.server import messages as M
from spheria.server.accounts import (
    SESSION_COOKIE,
    Accounts,
    Player,
    RateLimited,
    check_forgery,
    refused,
    signed_in,
)
from spheria.server.database import Database
from spheria.server.endpoints import json_response, manager_of
from spheria.server.limits import Limits, SlidingWindow, TokenBucket
from spheria.server.presence import Presence
from spheria.server.protocol import error_frame
from spheria.server.session import Client, GameError, GameSession, encode, token_digest
from spheria.server.storage import Storage
from spheria.server.views import choosers

PLAYERS, SPECTATORS = "players", "spectators"
ROOMS = (PLAYERS, SPECTATORS)
#: Messages of a room sent on join.
HISTORY = 100
#: Longest message, in characters (after blanks around it are stripped).
TEXT_MOST = 300
#: Ongoing games listed by ``GET /api/my/games``.
MY_GAMES_MOST = 100
#: Close code of a connection that keeps chatting past its refusals (policy).
CLOSE_POLICY = 1008
#: Bidirectional controls: they could make a message read as something else.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_text(text: Any) -> str:
    """The text to keep, or :class:`GameError` naming the fault.

    >>> clean_text("  <b>hi</b> ")
    '<b>hi</b>'
    >>> clean_text("a\\u202eb")
    Traceback (most recent call last):
    ...
    spheria.server.session.GameError: a message may not hold control characters or direction overrides
    """
    if not isinstance(text, str):
        raise GameError("bad_chat_text", _(M.CHAT_EMPTY))
    cleaned = unicodedata.normalize("NFC", text.strip())
    if not cleaned:
        raise GameError("bad_chat_text", _(M.CHAT_EMPTY))
    if len(cleaned) > TEXT_MOST:
        raise GameError("chat_too_long", _(M.CHAT_TOO_LONG).format(most=TEXT_MOST))
    if any(c in BIDI or unicodedata.category(c) in ("Cc", "Cs") for c in cleaned):
        raise GameError("bad_chat_text", _(M.CHAT_CONTROL))
    return cleaned


# -- storage -------------------------------------------------------------------------------------------

_MESSAGE = "SELECT id, game_id, room, sender, name, guest, seat, text, at FROM chat_messages"


@dataclass(frozen=True)
class Message:
    """One stored message; ``sender`` (a player's id, or ``seat:<game>:<seat>`` for a seat holder who
    is not signed in) is what a mute names and never leaves the server."""

    id: int
    game_id: str
    room: str
    sender: str
    name: str | None
    guest: bool
    seat: int | None
    text: str
    at: float

    def shown(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "guest": self.guest,
            "seat": self.seat,
            "text": self.text,
            "at": self.at,
        }


def _message(row: Any) -> Message:
    return Message(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7], row[8])


class SQLiteChat:
    """The chat's tables in the game store's SQLite file.

    Schema::

        chat_messages (id PK, game_id, room, sender, name, guest, seat, text, at)
        chat_readers  (game_id, room, player_id) PK all     who joined which room signed in
        chat_mutes    (player_id, sender, at)  PK (player_id, sender)
        chat_reports  (id PK, message_id, reporter_id, at)  UNIQUE (message_id, reporter_id)
    """

    def __init__(self, store: Storage) -> None:
        self.store = store

    def add(
        self, game_id: str, room: str, sender: str, name: str | None, guest: bool, seat: int | None, text: str
    ) -> Message:
        now = time.time()

        def work(db: Database) -> Message:
            sql = "INSERT INTO chat_messages (game_id, room, sender, name, guest, seat, text, at)"
            row = db.execute(
                sql + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (game_id, room, sender, name, int(guest), seat, text, now),
            ).fetchone()
            return Message(int(row[0]), game_id, room, sender, name, guest, seat, text, now)

        message: Message = self.store.transaction(work)
        return message

    def history(self, game_id: str, room: str, most: int = HISTORY) -> list[Message]:
        sql = f"{_MESSAGE} WHERE game_id = ? AND room = ? ORDER BY id DESC LIMIT ?"
        rows = self.store.transaction(lambda db: db.execute(sql, (game_id, room, most)).fetchall())
        return [_message(row) for row in reversed(rows)]

    def message(self, message_id: int) -> Message | None:
        row = self.store.transaction(lambda db: db.execute(f"{_MESSAGE} WHERE id = ?", (message_id,)).fetchone())
        return None if row is None else _message(row)

    def add_reader(self, game_id: str, room: str, player_id: str) -> None:
        sql = "INSERT INTO chat_readers (game_id, room, player_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
        self.store.transaction(lambda db: db.execute(sql, (game_id, room, player_id)))

    def reads(self, game_id: str, room: str, player_id: str) -> bool:
        sql = "SELECT 1 FROM chat_readers WHERE game_id = ? AND room = ? AND player_id = ?"
        return self.store.transaction(lambda db: db.execute(sql, (game_id, room, player_id)).fetchone()) is not None

    def mutes(self, player_id: str) -> set[str]:
        sql = "SELECT sender FROM chat_mutes WHERE player_id = ?"
        return {row[0] for row in self.store.transaction(lambda db: db.execute(sql, (player_id,)).fetchall())}

    def mute(self, player_id: str, sender: str, muted: bool) -> None:
        params: tuple[Any, ...]
        if muted:
            sql, params = (
                "INSERT INTO chat_mutes (player_id, sender, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (player_id, sender, time.time()),
            )
        else:
            sql, params = "DELETE FROM chat_mutes WHERE player_id = ? AND sender = ?", (player_id, sender)
        self.store.transaction(lambda db: db.execute(sql, params))

    def report(self, message_id: int, reporter_id: str) -> bool:
        """Keep a report; False when this player had reported that message already."""
        sql = "INSERT INTO chat_reports (message_id, reporter_id, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
        return self.store.transaction(lambda db: db.execute(sql, (message_id, reporter_id, time.time())).rowcount > 0)

    def reports(self, most: int = 1000) -> list[dict[str, Any]]:
        """The reports, newest first, each with its message (for the operator)."""
        sql = (
            "SELECT r.id, r.at, r.reporter_id, (SELECT name FROM players WHERE id = r.reporter_id),"
            " m.id, m.game_id, m.room, m.sender, m.name, m.text, m.at"
            " FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id ORDER BY r.id DESC LIMIT ?"
        )
        keys = (
            "report",
            "reported_at",
            "reporter_id",
            "reporter",
            "message",
            "game_id",
            "room",
            "sender",
            "name",
            "text",
            "said_at",
        )
        rows = self.store.transaction(lambda db: db.execute(sql, (most,)).fetchall())
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def seats_held(self, player_id: str) -> list[tuple[str, int]]:
        """The active games and seats the player holds (``seat_players``: :mod:`spheria.server.challenges`
        links a seat to its player when it is taken)."""

        def work(db: Database) -> list[tuple[str, int]]:
            sql = (
                "SELECT h.game_id, h.seat FROM seat_players h JOIN games g ON g.id = h.game_id"
                " WHERE h.player_id = ? AND g.status = 'active' ORDER BY g.updated DESC LIMIT ?"
            )
            return [(row[0], int(row[1])) for row in db.execute(sql, (player_id, MY_GAMES_MOST)).fetchall()]

        held: list[tuple[str, int]] = self.store.transaction(work)
        return held


# -- the service -------------------------------------------------------------------------------------


@dataclass(eq=False)
class Member:
    """One connection in a room: who it is (from its session, else its seat) and its own rate limit."""

    game_id: str
    room: str
    client: Client
    sender: str
    name: str | None
    guest: bool
    seat: int | None
    player_id: str | None
    presence_key: str
    bucket: TokenBucket = field(default_factory=lambda: TokenBucket(1.0, 5.0))
    refusals: int = 0


class ChatService:
    """The chat of one app (``app.state.chat``): the rooms open now, the mutes of their readers and the limits."""

    def __init__(self, store: SQLiteChat, accounts: Accounts, limits: Limits, presence: Presence) -> None:
        self.store = store
        self.accounts = accounts
        self.limits = limits
        self.presence = presence
        self.rooms: dict[tuple[str, str], set[Member]] = {}
        #: The mutes of each signed-in reader connected now (loaded on join, kept up to date by mute).
        self.muted: dict[str, set[str]] = {}
        self.per_sender = SlidingWindow(limits.chat_per_minute, 60.0)
        self.reports_per_player = SlidingWindow(limits.chat_reports_per_hour, 3600.0)

    async def joined(self, ws: WebSocket, session: GameSession, client: Client) -> Member:
        """Put a joining connection in its room, send it the room's history (before the game's first
        state frame) and count it as online. A message stored while the history is read may come
        twice: the page keeps one per ``id``."""
        manager = session.manager
        token = ws.cookies.get(SESSION_COOKIE)
        player: Player | None = None
        if token and len(token) <= 100:
            player = await manager.db(self.accounts.store.player_of_session, token_digest(token))
        seat = client.seat
        room = SPECTATORS if seat is None else PLAYERS
        if player is not None and player.name is not None:
            sender, name, guest = player.id, player.name, player.kind == "guest"
        elif seat is not None:
            sender, name, guest = f"seat:{session.id}:{seat}", session.game.player_names()[seat], False
        else:
            sender, name, guest = "", None, False
        key = player.id if player is not None else f"socket:{id(client)}"
        member = Member(session.id, room, client, sender, name, guest, seat, None if player is None else player.id, key)
        member.bucket = TokenBucket(self.limits.chat_rate, float(self.limits.chat_burst))
        self.presence.enter(key, None if player is None else player.shown())
        if player is not None:
            await manager.db(self.store.add_reader, session.id, room, player.id)
            if player.id not in self.muted:
                self.muted[player.id] = await manager.db(self.store.mutes, player.id)
        history = await manager.db(self.store.history, session.id, room)
        self.rooms.setdefault((session.id, room), set()).add(member)  # no wait since the history was read
        muted = self.muted.get(member.player_id or "", set())
        shown = [m.shown() for m in history if m.sender not in muted]
        client.push({"type": "chat_history", "room": room, "messages": shown})
        return member

    def left(self, member: Member | None) -> None:
        if member is None:
            return
        members = self.rooms.get((member.game_id, member.room))
        if members is not None:
            members.discard(member)
            if not members:
                del self.rooms[(member.game_id, member.room)]
        self.presence.leave(member.presence_key)
        if member.player_id is not None and not self.presence.is_online(member.player_id):
            self.muted.pop(member.player_id, None)

    async def said(
        self, member: Member | None, frame: dict[str, Any], close: Callable[[int, str], Awaitable[None]], manager: Any
    ) -> None:
        """A ``chat`` frame: kept and sent to the room, or a refusal to this connection. A connection
        refused ``chat_flood_refusals`` times in a row is closed."""
        if member is None:
            raise GameError("not_joined", "join first: send {'type': 'join', 'token': ...}")
        try:
            message = await self._say(member, frame, manager)
        except GameError as error:
            refusal = error_frame(error.code, error.message)
            if isinstance(error, ChatLimited):
                refusal["retry_after"] = error.seconds
            member.client.push(refusal)
            member.refusals += 1
            if member.refusals >= self.limits.chat_flood_refusals:
                await close(CLOSE_POLICY, "chat_flood")
            return
        member.refusals = 0
        text = encode({"type": "chat", "room": member.room, "message": message.shown()})
        for reader in list(self.rooms.get((member.game_id, member.room), ())):
            if reader.player_id is None or message.sender not in self.muted.get(reader.player_id, ()):
                reader.client.push(text)

    async def _say(self, member: Member, frame: dict[str, Any], manager: Any) -> Message:
        if frame["room"] != member.room:
            raise GameError("wrong_room", _(M.CHAT_WRONG_ROOM))
        if not member.sender:
            raise GameError("not_signed_in", _(M.CHAT_SIGN_IN))
        text = clean_text(frame["text"])
        if not member.bucket.take("chat"):
            raise ChatLimited(1, _(M.CHAT_TOO_FAST).format(seconds=1))
        wait = self.per_sender.wait(member.sender)
        if wait > 0:
            raise ChatLimited(math.ceil(wait), _(M.CHAT_TOO_FAST).format(seconds=math.ceil(wait)))
        self.per_sender.add(member.sender)
        stored: Message = await manager.db(
            self.store.add, member.game_id, member.room, member.sender, member.name, member.guest, member.seat, text
        )
        return stored


class ChatLimited(GameError):
    """``chat_rate_limited``, with the seconds to wait."""

    def __init__(self, seconds: int, message: str) -> None:
        super().__init__("chat_rate_limited", message)
        self.seconds = seconds


def chat_of(app: Starlette) -> ChatService:
    chat: ChatService = app.state.chat
    return chat


def install(app: Starlette, store: Storage, limits: Limits, presence: Presence | None = None) -> None:
    """Give ``app`` its chat (``app.state.chat``) and presence (``app.state.presence``: ``presence``,
    else this process's own); after accounts."""
    app.state.presence = presence if presence is not None else Presence()
    app.state.chat = ChatService(SQLiteChat(store), app.state.accounts, limits, app.state.presence)


# -- requests ---------------------------------------------------------------------------------------------

_STATUS_EXTRA = {"no_message": 404, "own_message": 400}


def _refused(error: GameError) -> Response:
    response = refused(error)
    if error.code in _STATUS_EXTRA:
        response.status_code = _STATUS_EXTRA[error.code]
    return response


async def _readable(request: Request, player: Player) -> Message:
    """The message of the path, when ``player`` has read its room of its game; else ``no_message``
    (the same answer whether it exists elsewhere or not at all)."""
    chat = chat_of(request.app)
    manager = manager_of(request)
    raw = request.path_params["message_id"]
    message = await manager.db(chat.store.message, int(raw)) if raw.isdigit() and len(raw) < 19 else None
    if (
        message is None
        or message.game_id != request.path_params["game_id"]
        or not await manager.db(chat.store.reads, message.game_id, message.room, player.id)
    ):
        raise GameError("no_message", _(M.CHAT_NO_MESSAGE))
    return message


async def api_report(request: Request) -> Response:
    """``POST /api/games/{id}/chat/{message_id}/report``: kept for the operator (once per player and message)."""
    chat = chat_of(request.app)
    try:
        check_forgery(request)
        player = await signed_in(request)
        wait = chat.reports_per_player.wait(player.id)
        if wait > 0:
            raise RateLimited(math.ceil(wait), _(M.TOO_MANY_REPORTS).format(seconds=math.ceil(wait)))
        chat.reports_per_player.add(player.id)
        message = await _readable(request, player)
        await manager_of(request).db(chat.store.report, message.id, player.id)
    except GameError as error:
        return _refused(error)
    return json_response({"reported": message.id})


async def api_mute(request: Request) -> Response:
    """``POST``/``DELETE /api/games/{id}/chat/{message_id}/mute``: the sender of that message muted
    (or no longer) for the signed-in player, on every board."""
    chat = chat_of(request.app)
    muting = request.method == "POST"
    try:
        check_forgery(request)
        player = await signed_in(request)
        message = await _readable(request, player)
        if message.sender == player.id:
            raise GameError("own_message", _(M.CHAT_MUTE_SELF))
        await manager_of(request).db(chat.store.mute, player.id, message.sender, muting)
    except GameError as error:
        return _refused(error)
    if player.id in chat.muted:
        (chat.muted[player.id].add if muting else chat.muted[player.id].discard)(message.sender)
    return json_response({"muted": muting, "name": message.name})


def your_move(session: GameSession, seat: int) -> bool:
    """Whether ``seat`` has to act now: its turn, or a choice it has not made yet."""
    if session.is_over():
        return False
    return session.state.current_player() == seat or (seat in choosers(session.state) and seat not in session.pending)


async def api_my_games(request: Request) -> Response:
    """``GET /api/my/games``: the ongoing games where the player holds a seat, those waiting for them first."""
    chat = chat_of(request.app)
    manager = manager_of(request)
    try:
        player = await signed_in(request)
        held = await manager.db(chat.store.seats_held, player.id)
    except GameError as error:
        return _refused(error)
    games: list[dict[str, Any]] = []
    for game_id, seat in held:
        session = await manager.get(game_id)
        if session is None or session.is_over():
            continue
        info = session.info()
        games.append(
            {
                "id": game_id,
                "game": info["game"],
                "title": info["title"],
                "seat": seat,
                "your_move": your_move(session, seat),
                "plies": info["plies"],
                "players": info["players"],
            }
        )
    games.sort(key=lambda game: not game["your_move"])
    response = json_response({"games": games})
    response.headers["Cache-Control"] = "no-store"
    return response


async def api_presence(request: Request) -> Response:
    """``GET /api/presence``: who is online now and the games being played (:class:`Presence`)."""
    presence: Presence = request.app.state.presence
    return json_response(presence.snapshot(manager_of(request)))


ROUTES = [
    Route("/api/games/{game_id}/chat/{message_id}/report", api_report, methods=["POST"]),
    Route("/api/games/{game_id}/chat/{message_id}/mute", api_mute, methods=["POST", "DELETE"]),
    Route("/api/my/games", api_my_games, methods=["GET"]),
    Route("/api/presence", api_presence, methods=["GET"]),
]


# -- the operator's list of reports ----------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``python -m spheria.server.chat --db spheria.sqlite3`` (or a ``postgresql://`` URL): the reports
    kept, one JSON object a line."""
    from spheria.server.storage import open_storage

    parser = argparse.ArgumentParser(prog="python -m spheria.server.chat")
    parser.add_argument("--db", default="spheria.sqlite3", help="a SQLite file or a postgresql:// URL")
    parser.add_argument("--most", type=int, default=1000)
    args = parser.parse_args(argv)
    store = open_storage(args.db)
    try:
        for report in SQLiteChat(store).reports(args.most):
            sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
