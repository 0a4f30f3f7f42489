"""Open challenges and the lobby of people (docs/server.md, "Challenges and the lobby").

HTTP::

    POST   /api/challenges               {"game", "options", "seat", "rated", "opponent"?, "clock"?} -> 201 {"id"}
    GET    /api/challenges?game=NAME     the open challenges this browser may see
    GET    /api/challenges/{id}          one challenge; to its players, their seat's invite once it started
    POST   /api/challenges/{id}/accept   -> 200 {"game_id", "seat", "invite"} (``game_id`` null while a game
                                         of 3 or 4 seats still waits for players)
    DELETE /api/challenges/{id}          cancel (the poster only)
    DELETE /api/challenges/{id}/seat     leave the seat one took of a 3–4-seat challenge before it fills
    POST   /api/challenges/quick         {"game", "options"}: take a matching open challenge (200) or post one (201)

WebSocket ``/ws/lobby``: on connection ``{"type": "lobby", "player", "challenges"}``; the client
may send ``{"type": "follow", "games": [names]}`` (then only those games' challenges come) and
``{"type": "ping"}``; the server pushes ``{"type": "challenge", "event": "created" | "joined" |
"left" | "taken" | "cancelled" | "expired", "challenge": {...}}`` to every lobby at once, to the
players of a challenge that starts ``{"type": "game_ready", "challenge", "game_id", "seat",
"invite"}``, and ``{"type": "presence", "online", "players", "lobby", "games", "playing"}`` when
presence changes (at most once a second; the first frame carries it as ``presence``).

Seats are held by players: a game started from a challenge records, for each human seat, the player
who holds it, and only that player (by their session cookie) can claim the seat by its invite; a
seat of a private game claimed by invite is recorded as held by whoever claimed it (when signed in).
Open challenges live in memory: a restart drops them (the games they started are stored). On several
processes (``--redis``) one process decides them, keeps them in Redis too, and every process serves
its own lobby sockets from a mirror (:mod:`spheria.server.lobby_bus`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from spheria.agents.levels import LEVEL_SPEC, level_spec
from spheria.i18n import gettext as _
from spheria.kernel.clock import TimeControl
from spheria.kernel.registry import game_names, load_game
from spheria.server import messages as M
from spheria.server.accounts import (
    ACCOUNT,
    Player,
    RateLimited,
    accounts_of,
    body_of,
    check_forgery,
    check_name,
    current_player,
    fold_name,
    is_reserved,
    refused,
    signed_in,
)
from spheria.server.clocks import parse_clock
from spheria.server.cluster import RedisCluster
from spheria.server.connection import FrameSocket
from spheria.server.database import Database
from spheria.server.endpoints import client_address, json_response, options_of
from spheria.server.jsontext import BadJson, parse_json
from spheria.server.limits import Limits, SlidingWindow
from spheria.server.lobby_bus import LobbyBus, RedisLobbyBus
from spheria.server.presence import Presence
from spheria.server.session import GameError, GameSession, SessionManager, encode
from spheria.server.storage import Storage

OPEN, STARTING, TAKEN, CANCELLED, EXPIRED = "open", "starting", "taken", "cancelled", "expired"
#: Least seconds between two presence frames to the lobbies (a burst of changes is coalesced).
PRESENCE_INTERVAL = 1.0
#: Finished challenges remembered (so a late accept hears "taken", not "unknown").
REMEMBERED = 1000


class SQLiteSeats:
    """Which player holds each human seat, in the game store's SQLite file.

    Schema::

        seat_players (game_id, seat, player_id)  PK (game_id, seat)
    """

    def __init__(self, store: Storage) -> None:
        self.store = store

    def hold(self, game_id: str, holders: dict[int, str]) -> None:
        """Record ``holders`` (seat: player id); a seat already held keeps its player."""
        sql = "INSERT INTO seat_players (game_id, seat, player_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"

        def work(db: Database) -> None:
            for seat, player_id in holders.items():
                db.execute(sql, (game_id, seat, player_id))

        self.store.transaction(work)

    def holders(self, game_id: str) -> dict[int, Player]:
        sql = (
            "SELECT s.seat, p.id, p.kind, p.name, p.created, p.deleted FROM seat_players s"
            " JOIN players p ON p.id = s.player_id WHERE s.game_id = ?"
        )
        rows = self.store.transaction(lambda db: db.execute(sql, (game_id,)).fetchall())
        return {row[0]: Player(*row[1:]) for row in rows}


@dataclass(eq=False)
class Challenge:
    """An open offer of a game: its poster and, for games of 3 or 4 seats, the players who joined."""

    id: str
    game: str
    options: dict[str, Any]
    seats: int
    seat: int | None  # the poster's seat; None: drawn when the game starts
    rated: bool
    opponent: str | None  # a player's name: only they may accept
    joined: list[Player]  # the poster first
    created: float = field(default_factory=time.time)
    status: str = OPEN
    game_id: str | None = None
    #: Each player's seat and invite, once the game started (player id: (seat, invite)).
    invites: dict[str, tuple[int, str]] = field(default_factory=dict)
    expiry: asyncio.TimerHandle | None = None
    #: The time control of the game it offers (docs/server.md, Clocks).
    clock: TimeControl = field(default_factory=TimeControl)

    @property
    def poster(self) -> Player:
        return self.joined[0]

    def stored(self) -> dict[str, Any]:
        """All a challenge is but its invites and timer: what another process needs to show it and to
        decide who may see it (:meth:`restored` reads it back; the invites go to their players only)."""
        return {
            "id": self.id,
            "game": self.game,
            "options": self.options,
            "seats": self.seats,
            "seat": self.seat,
            "rated": self.rated,
            "opponent": self.opponent,
            "joined": [[p.id, p.kind, p.name, p.created, p.deleted] for p in self.joined],
            "created": self.created,
            "status": self.status,
            "game_id": self.game_id,
            "clock": self.clock.to_json(),
        }

    @classmethod
    def restored(cls, data: dict[str, Any]) -> Challenge:
        """The challenge :meth:`stored` gave (``ValueError``, ``KeyError`` or ``TypeError`` if garbled)."""
        joined = [
            Player(str(i), str(kind), name, float(created), deleted)
            for i, kind, name, created, deleted in data["joined"]
        ]
        if not joined:
            raise ValueError("a challenge has its poster")
        return cls(
            str(data["id"]),
            str(data["game"]),
            dict(data["options"]),
            int(data["seats"]),
            data["seat"],
            bool(data["rated"]),
            data["opponent"],
            joined,
            created=float(data["created"]),
            status=str(data["status"]),
            game_id=data["game_id"],
            clock=TimeControl.from_json(data["clock"]),
        )

    def view(self) -> dict[str, Any]:
        """What every lobby sees (no invites)."""
        return {
            "id": self.id,
            "game": self.game,
            "options": self.options,
            "seats": self.seats,
            "seat": self.seat,
            "rated": self.rated,
            "clock": self.clock.to_json(),
            "opponent": self.opponent,
            "poster": self.poster.shown(),
            "joined": [player.shown() for player in self.joined],
            "status": self.status,
            "game_id": self.game_id,
            "created": self.created,
        }

    def visible_to(self, player: Player | None) -> bool:
        """An open challenge is everyone's; one to a named player is theirs and its players' only."""
        if self.opponent is None:
            return True
        if player is None:
            return False
        return any(p.id == player.id for p in self.joined) or (
            player.name is not None and fold_name(player.name) == fold_name(self.opponent)
        )


class LobbySocket(FrameSocket):
    """The ASGI endpoint of ``/ws/lobby``: one instance per connection (its connection handling:
    :class:`~spheria.server.connection.FrameSocket`)."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        super().__init__(scope, receive, send)
        self.lobby: Lobby = scope["app"].state.lobby
        self.player: Player | None = None
        self.follows: frozenset[str] | None = None  # None: every game
        self.presence_key: str | None = None  # counted online under it while in the lobby
        self.presence_seen = ""  # the presence frame this socket was last told (its text)

    async def open(self) -> bool:
        with contextlib.suppress(GameError):  # a store that fails: the lobby is watched as nobody
            self.player = await current_player(self.ws)
        self.lobby.arrive(self)
        # Counted online as a game's socket is (docs/server.md, Presence): a player once, else the socket.
        self.presence_key = self.player.id if self.player is not None else f"socket:{id(self)}"
        shown = None if self.player is None else self.player.shown()
        self.lobby.presence.enter(self.presence_key, shown, lobby=True)
        snapshot = self.lobby.presence_snapshot()
        self.presence_seen = encode({"type": "presence", **snapshot})  # no push of what the hello says
        hello = {"type": "lobby", "player": shown, "challenges": self.lobby.seen_by(self)}
        self.direct.push({**hello, "presence": snapshot})
        return True

    def left(self) -> None:
        if self.presence_key is not None:
            self.lobby.leave(self)
            self.lobby.presence.leave(self.presence_key, lobby=True)

    def parse(self, text: str) -> dict[str, Any]:
        try:
            frame = parse_json(text)
        except BadJson as error:
            raise GameError("bad_frame", str(error)) from None
        if not isinstance(frame, dict) or frame.get("type") not in ("follow", "ping"):
            raise GameError("bad_frame", "a lobby frame is {'type': 'follow', 'games': [...]} or {'type': 'ping'}")
        return frame

    async def handle(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "ping":
            self.direct.push({"type": "pong"})
            return
        games = frame.get("games")
        known = set(game_names())
        if set(frame) - {"type", "games"} or not isinstance(games, list) or len(games) > len(known):
            raise GameError("bad_frame", "follow: {'type': 'follow', 'games': [game names]}")
        unknown = [g for g in games if g not in known]
        if unknown:
            raise GameError("bad_game", _(M.UNKNOWN_GAME_NAMED).format(name=str(unknown[0])[:40]))
        self.follows = frozenset(games)
        self.direct.push({"type": "following", "games": sorted(self.follows), "challenges": self.lobby.seen_by(self)})

    def sees(self, challenge: Challenge) -> bool:
        return (self.follows is None or challenge.game in self.follows) and challenge.visible_to(self.player)


class Lobby:
    """The open challenges of one app (``app.state.lobby``), the lobby sockets and their limits.

    The process that holds the lease ``lobby`` (the only one without ``--redis``) decides the
    challenges (``owning``); another keeps them as a mirror of the owner's events (``bus``)."""

    def __init__(self, manager: SessionManager, seats: SQLiteSeats, limits: Limits, bus: LobbyBus) -> None:
        self.manager = manager
        self.seats = seats
        self.limits = limits
        self.bus = bus
        self.owning = bus.local
        self.owner_lock = asyncio.Lock()
        self.challenges: OrderedDict[str, Challenge] = OrderedDict()
        self.sockets: set[LobbySocket] = set()
        #: Posters seen in a lobby (on any process) since their challenge was posted, and the grace
        #: timers of those who left it.
        self.posters_seen: set[str] = set()
        self.leaving: dict[str, asyncio.TimerHandle] = {}
        window = limits.challenge_window_seconds
        self.per_address = SlidingWindow(limits.challenges_per_address, window)
        self.per_player = SlidingWindow(limits.challenges_per_player, window)
        #: Who is online (:mod:`spheria.server.presence`), pushed to every lobby when it changes, at
        #: most once per :data:`PRESENCE_INTERVAL`: the frame last sent, when, and the push waiting.
        self.presence = Presence()
        self.presence_text = ""
        self.presence_sent = -math.inf
        self.presence_timer: asyncio.TimerHandle | None = None

    # -- sockets ------------------------------------------------------------------------------------

    def arrive(self, socket: LobbySocket) -> None:
        self.sockets.add(socket)

    def leave(self, socket: LobbySocket) -> None:
        self.sockets.discard(socket)

    def check_posters(self) -> None:
        """The owner, when presence may have changed: a poster seen in a lobby (on any process, as
        the presence counts them) who is in none now has ``challenge_grace_seconds`` to come back
        before their open challenges expire; one back in time keeps them. While the presence knows
        only this process (Redis away), nobody is taken for gone."""
        if not self.owning or not self.presence.knows_all():
            return
        posters = {c.poster.id for c in self.challenges.values() if c.status == OPEN}
        self.posters_seen &= posters
        for player_id in posters:
            if self.presence.is_in_lobby(player_id):
                self.posters_seen.add(player_id)
                timer = self.leaving.pop(player_id, None)
                if timer is not None:
                    timer.cancel()
            elif player_id in self.posters_seen and player_id not in self.leaving:
                loop = asyncio.get_running_loop()
                grace = self.limits.challenge_grace_seconds
                self.leaving[player_id] = loop.call_later(grace, self.poster_gone, player_id)

    def poster_gone(self, player_id: str) -> None:
        self.leaving.pop(player_id, None)
        if not self.owning or not self.presence.knows_all() or self.presence.is_in_lobby(player_id):
            return
        self.posters_seen.discard(player_id)
        for challenge in list(self.challenges.values()):
            if challenge.status == OPEN and challenge.poster.id == player_id:
                self.close(challenge, EXPIRED)

    def seen_by(self, socket: LobbySocket) -> list[dict[str, Any]]:
        return [c.view() for c in self.challenges.values() if c.status == OPEN and socket.sees(c)]

    def announce(self, event: str, challenge: Challenge) -> None:
        """The owner's event: pushed here at once, and through the bus to every other process."""
        self.push(event, challenge)
        self.bus.challenge(event, challenge.stored(), challenge.status == OPEN)

    def push(self, event: str, challenge: Challenge) -> None:
        """Push the event to every lobby socket of this process that sees the challenge (encoded once)."""
        text = encode({"type": "challenge", "event": event, "challenge": challenge.view()})
        for socket in list(self.sockets):
            if socket.sees(challenge):
                socket.direct.push(text)

    # -- the mirror and the lease (docs/server.md, Several processes) ------------------------------

    def apply(self, event: str, stored: dict[str, Any]) -> None:
        """The owner's event, on another process: the mirror takes it and this process's sockets hear it."""
        try:
            challenge = Challenge.restored(stored)
        except (ValueError, KeyError, TypeError):
            return
        self.challenges[challenge.id] = challenge
        self.forget_old()
        self.push(event, challenge)

    def told(self, player_id: str, frame: dict[str, Any]) -> None:
        for socket in list(self.sockets):
            if socket.player is not None and socket.player.id == player_id:
                socket.direct.push(frame)

    def reload(self, stored: list[dict[str, Any]]) -> None:
        """The open challenges are ``stored``: the mirror becomes them (finished ones are kept)."""
        restored = []
        for data in stored:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                restored.append(Challenge.restored(data))
        for key in [key for key, c in self.challenges.items() if c.status in (OPEN, STARTING)]:
            del self.challenges[key]
        for challenge in sorted(restored, key=lambda c: c.created):
            if challenge.status == OPEN:
                self.challenges[challenge.id] = challenge

    def stored_open(self) -> list[dict[str, Any]]:
        return [c.stored() for c in self.challenges.values() if c.status == OPEN]

    async def owned(self) -> None:
        """Before a challenge request: a process that holds the lease but does not yet decide (it took
        it for this request) loads the open challenges first."""
        if not self.owning and self.bus.holds():
            try:
                stored = await self.bus.load()
            except Exception:  # Redis went away between the lease and the load: not decided here
                raise GameError("cluster_unavailable", _(M.CLUSTER_UNAVAILABLE)) from None
            await self.become_owner(stored)

    async def become_owner(self, stored: list[dict[str, Any]]) -> None:
        """This process took the lease: it decides from now on, from the open challenges ``stored``
        (their expiry timers set again; every poster counted as seen, so one in no lobby has the grace)."""
        async with self.owner_lock:
            if self.owning:
                return
            self.reload(stored)
            self.owning = True
            for challenge in list(self.challenges.values()):
                if challenge.status == OPEN:
                    self.posters_seen.add(challenge.poster.id)
                    self.arm_expiry(challenge)
            self.check_posters()

    def stop_owning(self) -> None:
        """The lease was lost: another process decides; this one's timers stop."""
        self.owning = False
        for challenge in self.challenges.values():
            if challenge.expiry is not None:
                challenge.expiry.cancel()
                challenge.expiry = None
        for timer in self.leaving.values():
            timer.cancel()
        self.leaving.clear()
        self.posters_seen.clear()

    def follow_presence(self, presence: Presence) -> None:
        """Count the lobby's people in ``presence`` (the app's) and push it when it changes."""
        self.presence = presence
        presence.listeners.append(self.presence_changed)
        self.manager.presence_hooks.append(self.presence_changed)

    def presence_snapshot(self) -> dict[str, Any]:
        """What a lobby is told of presence: the snapshot ``GET /api/presence`` answers and the
        people in the lobby (``lobby``)."""
        return {**self.presence.snapshot(self.manager), "lobby": self.presence.in_lobby()}

    def presence_changed(self) -> None:
        """Presence may have changed: push it to every lobby soon, at most once per
        :data:`PRESENCE_INTERVAL` (a burst of changes is one frame, of the state after it); a poster
        who left every lobby starts their grace."""
        self.check_posters()
        if self.presence_timer is not None:
            return
        wait = max(0.0, self.presence_sent + PRESENCE_INTERVAL - time.monotonic())
        self.presence_timer = asyncio.get_running_loop().call_later(wait, self.push_presence)

    def push_presence(self) -> None:
        """Push presence, encoded once, to every lobby socket, unless it is what they were last sent."""
        self.presence_timer = None
        text = encode({"type": "presence", **self.presence_snapshot()})
        if text == self.presence_text:
            return
        self.presence_text, self.presence_sent = text, time.monotonic()
        for socket in list(self.sockets):
            if socket.presence_seen != text:
                socket.presence_seen = text
                socket.direct.push(text)

    def tell(self, player_id: str, frame: dict[str, Any]) -> None:
        """Push ``frame`` to the player's lobby sockets on every process."""
        self.told(player_id, frame)
        self.bus.tell(player_id, frame)

    # -- challenges ---------------------------------------------------------------------------------

    def find(self, challenge_id: Any) -> Challenge:
        challenge = self.challenges.get(challenge_id) if isinstance(challenge_id, str) else None
        if challenge is None:
            raise GameError("unknown_challenge", _(M.NO_CHALLENGE))
        return challenge

    def close(self, challenge: Challenge, status: str) -> None:
        challenge.status = status
        if challenge.expiry is not None:
            challenge.expiry.cancel()
            challenge.expiry = None
        self.announce(status, challenge)
        self.forget_old()

    def forget_old(self) -> None:
        done = [key for key, c in self.challenges.items() if c.status not in (OPEN, STARTING)]
        for key in done[: max(0, len(done) - REMEMBERED)]:
            del self.challenges[key]

    def limited(self, request: Request, player: Player) -> None:
        """Per address and per player, within the challenge window; and open challenges per player."""
        address = client_address(request)
        wait = max(self.per_address.wait(address), self.per_player.wait(player.id))
        if wait > 0:
            seconds = math.ceil(wait)
            raise RateLimited(seconds, _(M.TOO_MANY_CHALLENGES).format(seconds=seconds))
        mine = sum(1 for c in self.challenges.values() if c.status == OPEN and c.poster.id == player.id)
        if mine >= self.limits.challenges_open_per_player:
            most = self.limits.challenges_open_per_player
            raise RateLimited(60, _(M.TOO_MANY_OPEN).format(most=most))
        self.per_address.add(address)
        self.per_player.add(player.id)

    def checked(self, player: Player, data: dict[str, Any]) -> Challenge:
        """A challenge from ``data`` (not yet posted), or the error naming what is wrong."""
        name = data.get("game")
        if not isinstance(name, str) or name not in game_names():
            raise GameError("bad_game", _(M.UNKNOWN_GAME_NAMED).format(name=str(name)[:40]))
        try:
            game = load_game(name, **options_of(data))
        except (ValueError, TypeError) as error:
            raise GameError("bad_game", str(error)) from None
        seat = data.get("seat")
        if seat == "random":
            seat = None
        if seat is not None and (
            not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.num_players
        ):
            raise GameError("bad_seat", _(M.CHALLENGE_SEAT).format(last=game.num_players - 1))
        rated = data.get("rated", False)
        if not isinstance(rated, bool):
            raise GameError("bad_request", "rated must be true or false")
        if rated and player.kind != ACCOUNT:
            raise GameError("rated_needs_account", _(M.RATED_NEEDS_ACCOUNT))
        challenge = Challenge(
            secrets.token_urlsafe(9), name, dict(game.options), game.num_players, seat, rated, None, [player]
        )
        challenge.clock = parse_clock(data.get("clock"))
        return challenge

    def opponent_of(self, given: Any, challenge: Challenge, player: Player) -> str | None:
        """The level spec (``level:3``) or the player's name ``given`` names; ``bad_opponent`` if neither."""
        if given is None:
            return None
        if isinstance(given, str) and given.startswith(f"{LEVEL_SPEC}:"):
            try:
                spec = level_spec(given.split(":", 1)[1])
            except ValueError as error:
                raise GameError("bad_opponent", str(error)) from None
            game = load_game(challenge.game, **challenge.options)
            return self.manager.check_agent_spec(1, spec, game)
        name = check_name(given)
        if is_reserved(name):
            raise GameError("bad_opponent", _(M.OPPONENT_RESERVED).format(name=name))
        if player.name is not None and fold_name(name) == fold_name(player.name):
            raise GameError("own_challenge", _(M.OWN_CHALLENGE))
        return name

    def post(self, challenge: Challenge) -> None:
        self.challenges[challenge.id] = challenge
        self.arm_expiry(challenge)
        self.announce("created", challenge)
        self.check_posters()

    def arm_expiry(self, challenge: Challenge) -> None:
        """Expire ``challenge`` ``challenge_ttl_seconds`` after it was posted (0: never)."""
        ttl = self.limits.challenge_ttl_seconds
        if ttl > 0:
            left = max(0.0, challenge.created + ttl - time.time())
            challenge.expiry = asyncio.get_running_loop().call_later(left, self.expire, challenge.id)

    def expire(self, challenge_id: str) -> None:
        challenge = self.challenges.get(challenge_id)
        if self.owning and challenge is not None and challenge.status == OPEN:
            challenge.expiry = None
            self.close(challenge, EXPIRED)

    def cancel(self, challenge_id: Any, player: Player) -> None:
        challenge = self.find(challenge_id)
        if challenge.poster.id != player.id:
            raise GameError("not_poster", _(M.NOT_POSTER))
        if challenge.status != OPEN:
            raise GameError("challenge_closed", _(M.CHALLENGE_CLOSED))
        self.close(challenge, CANCELLED)

    def withdraw(self, challenge_id: Any, player: Player) -> dict[str, Any]:
        """``player`` leaves the seat they took of an open challenge (of 3 or 4 seats: a smaller one
        starts when taken); the seat is open again and every lobby hears ``left``. The poster
        cancels instead (``poster_cancels``); someone who holds no seat of it is ``no_seat_held``."""
        challenge = self.find(challenge_id)
        if challenge.status != OPEN:
            raise GameError("challenge_closed", _(M.CHALLENGE_CLOSED))
        if challenge.poster.id == player.id:
            raise GameError("poster_cancels", _(M.POSTER_CANCELS))
        seat = next((p for p in challenge.joined[1:] if p.id == player.id), None)
        if seat is None:
            raise GameError("no_seat_held", _(M.NO_SEAT_HELD))
        challenge.joined.remove(seat)
        self.announce("left", challenge)
        return {"left": challenge.id, "waiting": challenge.seats - len(challenge.joined)}

    async def accept(self, request: Request, challenge_id: Any, player: Player) -> dict[str, Any]:
        """Take a seat of the challenge; the last seat starts the game. The seat is taken before any
        wait, so of two accepts at once exactly one gets it and the other hears ``challenge_taken``."""
        challenge = self.find(challenge_id)
        if challenge.status != OPEN:
            raise GameError("challenge_taken", _(M.CHALLENGE_CLOSED))
        if any(p.id == player.id for p in challenge.joined):
            raise GameError("own_challenge", _(M.OWN_CHALLENGE))
        if challenge.opponent is not None and (
            player.name is None or fold_name(player.name) != fold_name(challenge.opponent)
        ):
            raise GameError("not_for_you", _(M.NOT_FOR_YOU))
        if challenge.rated and player.kind != ACCOUNT:
            raise GameError("rated_needs_account", _(M.RATED_NEEDS_ACCOUNT))
        challenge.joined.append(player)
        if len(challenge.joined) < challenge.seats:
            self.announce("joined", challenge)
            return {"game_id": None, "challenge": challenge.id, "waiting": challenge.seats - len(challenge.joined)}
        challenge.status = STARTING
        try:
            await self.start(request, challenge, challenge.joined, [])
        except BaseException:
            challenge.joined.remove(player)
            challenge.status = OPEN
            raise
        return self.answer(challenge, player)

    def answer(self, challenge: Challenge, player: Player) -> dict[str, Any]:
        seat, invite = challenge.invites[player.id]
        return {"game_id": challenge.game_id, "challenge": challenge.id, "seat": seat, "invite": invite}

    async def start(self, request: Request, challenge: Challenge, humans: list[Player], agent: list[str]) -> None:
        """Create the game through the session manager (as ``POST /api/games`` does), the seats held by
        ``humans`` (the poster's chosen seat theirs, the others in the order they came, or all drawn
        when the poster chose none); ``agent``: the level spec holding every other seat."""
        order: list[Player | None] = [None] * challenge.seats
        if challenge.seat is not None:
            order[challenge.seat] = humans[0]
            rest = iter(humans[1:])
            order = [held if held is not None else next(rest, None) for held in order]
        else:
            drawn: list[Player | None] = [*humans, *([None] * (challenge.seats - len(humans)))]
            random.SystemRandom().shuffle(drawn)
            order = drawn
        seats = [{"kind": "human"} if held is not None else {"kind": "agent", "agent": agent[0]} for held in order]
        session, tokens, _owner = await self.manager.create(
            challenge.game, challenge.options, seats, rated=challenge.rated, clock=challenge.clock
        )
        holders = {index: held for index, held in enumerate(order) if held is not None}
        await self.hold(session, holders)
        accounts = accounts_of(request)
        for held in holders.values():  # filed under each player (a failure here never undoes the game)
            with contextlib.suppress(GameError):
                await accounts.db(request, accounts.store.link_game, held.id, session.id)
        challenge.game_id = session.id
        challenge.invites = {held.id: (index, f"/game/{session.id}#{tokens[index]}") for index, held in holders.items()}
        self.close(challenge, TAKEN)
        for held in holders.values():
            seat, invite = challenge.invites[held.id]
            frame = {"type": "game_ready", "challenge": challenge.id, "game_id": session.id}
            self.tell(held.id, {**frame, "seat": seat, "invite": invite})

    async def hold(self, session: GameSession, holders: dict[int, Player]) -> None:
        """Record ``holders`` as the players of their seats (stored, and in the live session)."""
        await self.manager.db(self.seats.hold, session.id, {seat: p.id for seat, p in holders.items()})
        for seat, held in holders.items():
            session.holders.setdefault(seat, held)
        session.schedule_presence()


def lobby_of(connection: HTTPConnection) -> Lobby:
    lobby: Lobby = connection.app.state.lobby
    return lobby


_STATUS = {
    "unknown_challenge": 404,
    "own_challenge": 409,
    "challenge_taken": 409,
    "challenge_closed": 409,
    "not_poster": 403,
    "not_for_you": 403,
    "rated_needs_account": 403,
    "no_seat_held": 403,
    "poster_cancels": 409,
    "cluster_unavailable": 503,
}


def _refused(error: GameError) -> Response:
    response = refused(error)
    if error.code in _STATUS:
        response.status_code = _STATUS[error.code]
    return response


async def api_post(request: Request) -> Response:
    """``POST /api/challenges``: a challenge; to a level, the game starts at once (201 with its invite)."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        check_forgery(request)
        player = await signed_in(request)
        data = await body_of(request, "game", "options", "seat", "rated", "opponent", "clock")
        challenge = lobby.checked(player, data)
        opponent = lobby.opponent_of(data.get("opponent"), challenge, player)
        lobby.limited(request, player)
        if opponent is not None and opponent.startswith(f"{LEVEL_SPEC}:"):
            challenge.status = STARTING
            lobby.challenges[challenge.id] = challenge
            try:
                await lobby.start(request, challenge, [player], [opponent])
            except BaseException:
                del lobby.challenges[challenge.id]
                raise
            return json_response({"id": challenge.id, **lobby.answer(challenge, player)}, 201)
        challenge.opponent = opponent
        lobby.post(challenge)
    except GameError as error:
        return _refused(error)
    return json_response({"id": challenge.id}, 201)


async def api_list(request: Request) -> Response:
    """``GET /api/challenges?game=NAME``: the open challenges this browser may see."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        player = await current_player(request)
    except GameError as error:
        return _refused(error)
    game = request.query_params.get("game")
    found = [
        c.view()
        for c in lobby.challenges.values()
        if c.status == OPEN and c.visible_to(player) and (game is None or c.game == game)
    ]
    return json_response({"challenges": found})


async def api_one(request: Request) -> Response:
    """``GET /api/challenges/{id}``: the challenge; to one of its players, their seat and invite."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        player = await current_player(request)
        challenge = lobby.find(request.path_params["challenge_id"])
        if not challenge.visible_to(player):
            raise GameError("unknown_challenge", _(M.NO_CHALLENGE))
    except GameError as error:
        return _refused(error)
    data = challenge.view()
    if player is not None and player.id in challenge.invites:
        data["seat"], data["invite"] = challenge.invites[player.id]
    return json_response(data)


async def api_accept(request: Request) -> Response:
    """``POST /api/challenges/{id}/accept``: take the (next) seat; 200 ``{"game_id", "seat", "invite"}``."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        check_forgery(request)
        player = await signed_in(request)
        answer = await lobby.accept(request, request.path_params["challenge_id"], player)
    except GameError as error:
        return _refused(error)
    return json_response(answer)


async def api_cancel(request: Request) -> Response:
    """``DELETE /api/challenges/{id}``: the poster withdraws an open challenge."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        check_forgery(request)
        player = await signed_in(request)
        lobby.cancel(request.path_params["challenge_id"], player)
    except GameError as error:
        return _refused(error)
    return json_response({"cancelled": request.path_params["challenge_id"]})


async def api_withdraw(request: Request) -> Response:
    """``DELETE /api/challenges/{id}/seat``: a player who joined a 3–4-seat challenge leaves it."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        check_forgery(request)
        player = await signed_in(request)
        answer = lobby.withdraw(request.path_params["challenge_id"], player)
    except GameError as error:
        return _refused(error)
    return json_response(answer)


async def api_quick(request: Request) -> Response:
    """``POST /api/challenges/quick {"game", "options"}``: take the oldest open casual challenge of the
    same game and options anyone may take (200, as an accept), else post one with the seat drawn (201)."""
    lobby = lobby_of(request)
    try:
        await lobby.owned()
        check_forgery(request)
        player = await signed_in(request)
        data = await body_of(request, "game", "options")
        wanted = lobby.checked(player, data)
        for challenge in list(lobby.challenges.values()):
            if (
                challenge.status == OPEN
                and not challenge.rated
                and challenge.opponent is None
                and challenge.game == wanted.game
                and challenge.options == wanted.options
                and challenge.clock == wanted.clock  # untimed: quick pairing offers no clock
                and all(p.id != player.id for p in challenge.joined)
            ):
                return json_response(await lobby.accept(request, challenge.id, player))
        lobby.limited(request, player)
        lobby.post(wanted)
    except GameError as error:
        return _refused(error)
    return json_response({"id": wanted.id}, 201)


def install(app: Starlette, store: Storage, limits: Limits) -> None:
    """Give ``app`` its lobby (``app.state.lobby``: on several processes, one on the cluster's Redis)
    and record seats' players in ``store``'s tables."""
    seats = SQLiteSeats(store)
    manager: SessionManager = app.state.manager
    manager.seat_holders = seats.holders
    cluster = manager.cluster
    bus = RedisLobbyBus(cluster) if isinstance(cluster, RedisCluster) else LobbyBus()
    app.state.lobby = Lobby(manager, seats, limits, bus)


ROUTES = [
    Route("/api/challenges", api_post, methods=["POST"]),
    Route("/api/challenges", api_list, methods=["GET"]),
    Route("/api/challenges/quick", api_quick, methods=["POST"]),
    Route("/api/challenges/{challenge_id}", api_one, methods=["GET"]),
    Route("/api/challenges/{challenge_id}", api_cancel, methods=["DELETE"]),
    Route("/api/challenges/{challenge_id}/accept", api_accept, methods=["POST"]),
    Route("/api/challenges/{challenge_id}/seat", api_withdraw, methods=["DELETE"]),
]

__all__ = ["ROUTES", "Challenge", "Lobby", "LobbySocket", "install"]
