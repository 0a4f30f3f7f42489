"""Who plays: guests with a display name, and accounts (a name and a password, no e-mail).

HTTP (docs/server.md, Accounts)::

    GET    /api/session            who am I: {"player": {"name", "guest"} | null, "games": [ids], "csrf"}
    POST   /api/guest              {"name"} -> 201, a guest session
    POST   /api/account            {"name", "password"} -> 201, an account (a guest's games come along)
    POST   /api/session            {"name", "password"} -> 200, a new session (log in)
    DELETE /api/session            log out (this browser)
    DELETE /api/sessions           log out everywhere
    PUT    /api/account/password   {"old", "new"} -> 200, other sessions ended
    DELETE /api/account            {"password"} -> 200, the account deleted, its games kept
    GET    /api/games/{id}/players the players who created a game (a deleted one shown as deleted)

Every request that changes something carries the ``X-CSRF-Token`` header equal to the
``spheria_csrf`` cookie (double submit; ``GET /api/session`` sets the cookie and tells the token),
and, when the browser sends one, an ``Origin`` (checked by :class:`spheria.server.guards.Guard`) or
else a ``Referer`` of this site. Passwords are hashed with Argon2id (``argon2-cffi``); session tokens
are 256 random bits kept only as SHA-256 digests, a new one at every log-in.

Names:

>>> check_name("Kim_2")
'Kim_2'
>>> fold_name("Kim-Lee") == fold_name("KIM_lee")
True
>>> is_reserved("Random") and is_reserved("level-3") and is_reserved("ADMIN") and not is_reserved("Kim")
True
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import os
import re
import secrets
import time
import uuid
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from spheria.i18n import gettext as _
from spheria.server import messages as M
from spheria.server.database import Cursor, Database, IntegrityError
from spheria.server.endpoints import client_address, error_response, json_response, manager_of, read_json
from spheria.server.guards import FOREIGN_ORIGIN, origin_of
from spheria.server.limits import Limits, SlidingWindow
from spheria.server.session import GameError, token_digest
from spheria.server.storage import Storage

log = logging.getLogger("spheria.server")
T = TypeVar("T")

NAME_LEAST, NAME_MOST = 2, 20
#: A name: letters and digits of ASCII, ``-`` and ``_``; nothing a page could read as markup.
NAME_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{NAME_LEAST},{NAME_MOST}}}")
PASSWORD_LEAST, PASSWORD_MOST = 8, 256
SESSION_COOKIE, CSRF_COOKIE, CSRF_HEADER = "spheria_session", "spheria_csrf", "x-csrf-token"
#: How long a session lasts after its log-in.
SESSION_SECONDS = 30 * 24 * 3600
#: How long a deleted account's name stays unavailable (so nobody passes for its owner at once).
NAME_HOLD_SECONDS = 30 * 24 * 3600
GUEST, ACCOUNT = "guest", "account"
#: Words no player may take besides the agents' and levels' names (folded, see :func:`fold_name`).
HOUSE_WORDS = frozenset(
    {"admin", "administrator", "root", "system", "server", "spheria", "guest", "moderator", "mod", "staff"}
    | {"support", "official", "anonymous", "deleted", "nobody", "null", "none", "undefined", "human", "agent"}
    | {"bot", "engine", "computer", "ai"}
)


def fold_name(name: str) -> str:
    """The form that makes two names the same one: case ignored, ``-`` and ``_`` alike."""
    return name.lower().replace("-", "_")


def check_name(name: Any) -> str:
    """``name`` if it is a player's name (:data:`NAME_PATTERN`); :class:`GameError` ``bad_name`` if not."""
    if not isinstance(name, str) or NAME_PATTERN.fullmatch(name) is None:
        raise GameError("bad_name", _(M.NAME_FORM).format(least=NAME_LEAST, most=NAME_MOST))
    return name


@cache
def reserved_words() -> frozenset[str]:
    """The agents' names (every spec the registry knows, the ladders' agents too), the levels' names
    and words, the games' names and :data:`HOUSE_WORDS`, folded without separators."""
    from spheria.agents.levels import LEVEL_NUMBERS, LEVEL_SPEC, all_ladders, level_words
    from spheria.agents.registry import agent_names
    from spheria.i18n import using
    from spheria.kernel.registry import game_names

    words = set(HOUSE_WORDS) | set(agent_names()) | {LEVEL_SPEC} | set(game_names())
    words |= {entry.spec.split(":")[0] for ladder in all_ladders().values() for entry in ladder}
    with using("en"):
        words |= {level_words(level) for level in LEVEL_NUMBERS}
    return frozenset(fold_name(word).replace("_", "") for word in words)


def is_reserved(name: str) -> bool:
    """Whether ``name`` is a reserved word, with or without separators and a number (``Level-3``, ``mcts2``)."""
    key = fold_name(name).replace("_", "")
    return key in reserved_words() or key.rstrip("0123456789") in reserved_words()


@dataclass(frozen=True)
class Player:
    """A guest or an account; ``deleted`` is when its account was deleted (its name is then gone)."""

    id: str
    kind: str
    name: str | None
    created: float
    deleted: float | None = None

    def shown(self) -> dict[str, Any]:
        """How every view names the player: a guest's name is marked as a guest's."""
        if self.deleted is not None or self.name is None:
            return {"name": None, "guest": False, "deleted": True}
        return {"name": self.name, "guest": self.kind == GUEST, "deleted": False}


class NameTaken(Exception):
    """The folded name belongs to an account (or to one deleted too recently)."""


# -- storage -------------------------------------------------------------------------------------------


_PLAYER = "SELECT id, kind, name, created, deleted FROM players"


class SQLiteAccounts:
    """The players, their sessions and their games, in the tables of the game store's SQLite file.

    Schema::

        players         (id PK, kind 'guest'|'account', name, folded UNIQUE, password_hash, created, deleted)
        player_sessions (token_hash PK, player_id, created)     SHA-256 of each session token
        player_games    (player_id, game_id, at)  PK (player_id, game_id)   the games a player created

    Each method is one transaction: a player is made whole (with its session) or not at all.
    """

    def __init__(self, store: Storage) -> None:
        self.store = store

    def _run(self, work: Any) -> Any:
        return self.store.transaction(work)

    def execute(self, db: Database, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        """Every statement goes through here (tests make one fail midway)."""
        return db.execute(sql, params)

    def _player(self, db: Database, where: str, params: tuple[Any, ...]) -> Player | None:
        row = self.execute(db, f"{_PLAYER} WHERE {where}", params).fetchone()
        return None if row is None else Player(*row)

    def _free_held_name(self, db: Database, folded: str, now: float) -> None:
        sql = "UPDATE players SET folded = NULL WHERE folded = ? AND deleted IS NOT NULL AND deleted < ?"
        self.execute(db, sql, (folded, now - NAME_HOLD_SECONDS))

    def _start(self, db: Database, player_id: str, token_hash: str, ending: str | None, now: float) -> None:
        if ending is not None:
            self.execute(db, "DELETE FROM player_sessions WHERE token_hash = ?", (ending,))
        sql = "INSERT INTO player_sessions (token_hash, player_id, created) VALUES (?, ?, ?)"
        self.execute(db, sql, (token_hash, player_id, now))

    def create_account(
        self, name: str, password_hash: str, token_hash: str, ending: str | None, guest_id: str | None
    ) -> Player:
        """An account named ``name`` with its first session; ``guest_id``: the guest who becomes it
        (same player, so its games stay its own); ``ending``: the session it replaces. :class:`NameTaken`."""
        now = time.time()

        def work(db: Database) -> Player:
            folded = fold_name(name)
            self._free_held_name(db, folded, now)
            try:
                if guest_id is not None:
                    sql = "UPDATE players SET kind = ?, name = ?, folded = ?, password_hash = ?"
                    sql += " WHERE id = ? AND kind = ?"
                    self.execute(db, sql, (ACCOUNT, name, folded, password_hash, guest_id, GUEST))
                    player_id = guest_id
                else:
                    player_id = uuid.uuid4().hex
                    sql = "INSERT INTO players (id, kind, name, folded, password_hash, created)"
                    sql += " VALUES (?, ?, ?, ?, ?, ?)"
                    self.execute(db, sql, (player_id, ACCOUNT, name, folded, password_hash, now))
            except IntegrityError:
                raise NameTaken(name) from None
            self._start(db, player_id, token_hash, ending, now)
            player = self._player(db, "id = ?", (player_id,))
            assert player is not None
            return player

        result: Player = self._run(work)
        return result

    def create_guest(self, name: str, token_hash: str, ending: str | None) -> Player:
        """A guest named ``name`` with its session; :class:`NameTaken` if an account holds the name."""
        now = time.time()

        def work(db: Database) -> Player:
            folded = fold_name(name)
            self._free_held_name(db, folded, now)
            if self.execute(db, "SELECT 1 FROM players WHERE folded = ?", (folded,)).fetchone() is not None:
                raise NameTaken(name)
            player = Player(uuid.uuid4().hex, GUEST, name, now)
            sql = "INSERT INTO players (id, kind, name, folded, password_hash, created) VALUES (?, ?, ?, NULL, NULL, ?)"
            self.execute(db, sql, (player.id, GUEST, name, now))
            self._start(db, player.id, token_hash, ending, now)
            return player

        result: Player = self._run(work)
        return result

    def account_named(self, name: str) -> tuple[Player, str] | None:
        """The live account of that (folded) name and its password hash."""

        def work(db: Database) -> tuple[Player, str] | None:
            sql = "SELECT id, password_hash FROM players WHERE folded = ? AND kind = ? AND deleted IS NULL"
            row = self.execute(db, sql, (fold_name(name), ACCOUNT)).fetchone()
            if row is None:
                return None
            player = self._player(db, "id = ?", (row[0],))
            assert player is not None
            return player, row[1]

        found: tuple[Player, str] | None = self._run(work)
        return found

    def password_hash(self, player_id: str) -> str | None:
        sql = "SELECT password_hash FROM players WHERE id = ?"
        row = self._run(lambda db: self.execute(db, sql, (player_id,)).fetchone())
        return None if row is None else str(row[0]) if row[0] is not None else None

    def player_of_session(self, token_hash: str) -> Player | None:
        """The player of a live session (a session older than :data:`SESSION_SECONDS` is ended)."""
        now = time.time()

        def work(db: Database) -> Player | None:
            sql = "SELECT player_id, created FROM player_sessions WHERE token_hash = ?"
            row = self.execute(db, sql, (token_hash,)).fetchone()
            if row is None:
                return None
            if row[1] < now - SESSION_SECONDS:
                self.execute(db, "DELETE FROM player_sessions WHERE token_hash = ?", (token_hash,))
                return None
            return self._player(db, "id = ? AND deleted IS NULL", (row[0],))

        found: Player | None = self._run(work)
        return found

    def start_session(self, player_id: str, token_hash: str, ending: str | None) -> None:
        """A new session for ``player_id`` (a log-in); ``ending``: the browser's old session, ended."""
        self._run(lambda db: self._start(db, player_id, token_hash, ending, time.time()))

    def end_session(self, token_hash: str) -> None:
        self._run(lambda db: self.execute(db, "DELETE FROM player_sessions WHERE token_hash = ?", (token_hash,)))

    def end_sessions(self, player_id: str) -> None:
        self._run(lambda db: self.execute(db, "DELETE FROM player_sessions WHERE player_id = ?", (player_id,)))

    def set_password(self, player_id: str, password_hash: str, token_hash: str | None) -> None:
        """A new password hash; every session of the player ended, then ``token_hash`` started (if given)."""

        def work(db: Database) -> None:
            self.execute(db, "UPDATE players SET password_hash = ? WHERE id = ?", (password_hash, player_id))
            if token_hash is not None:
                self.execute(db, "DELETE FROM player_sessions WHERE player_id = ?", (player_id,))
                self._start(db, player_id, token_hash, None, time.time())

        self._run(work)

    def delete_account(self, player_id: str) -> None:
        """The account deleted: no name, no password, no session; its games and their links stay, and
        its folded name stays held for :data:`NAME_HOLD_SECONDS`."""

        def work(db: Database) -> None:
            sql = "UPDATE players SET name = NULL, password_hash = NULL, deleted = ? WHERE id = ?"
            self.execute(db, sql, (time.time(), player_id))
            self.execute(db, "DELETE FROM player_sessions WHERE player_id = ?", (player_id,))

        self._run(work)

    def link_game(self, player_id: str, game_id: str) -> None:
        sql = "INSERT INTO player_games (player_id, game_id, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
        self._run(lambda db: self.execute(db, sql, (player_id, game_id, time.time())))

    def games_of(self, player_id: str) -> list[str]:
        sql = "SELECT game_id FROM player_games WHERE player_id = ? ORDER BY at DESC LIMIT 1000"
        rows = self._run(lambda db: self.execute(db, sql, (player_id,)).fetchall())
        return [row[0] for row in rows]

    def players_of(self, game_id: str) -> list[Player]:
        sql = (
            "SELECT p.id, p.kind, p.name, p.created, p.deleted FROM player_games g JOIN players p"
            " ON p.id = g.player_id WHERE g.game_id = ? ORDER BY g.at"
        )
        rows = self._run(lambda db: self.execute(db, sql, (game_id,)).fetchall())
        return [Player(*row) for row in rows]


# -- the service ----------------------------------------------------------------------------------------


class Accounts:
    """The accounts of one app (``app.state.accounts``): the store, the hasher and the login limits."""

    def __init__(self, store: SQLiteAccounts, limits: Limits, hasher: PasswordHasher | None = None) -> None:
        self.store = store
        self.limits = limits
        self.logins_per_account = SlidingWindow(limits.login_per_account, limits.login_window_seconds)
        self.logins_per_address = SlidingWindow(limits.login_per_address, limits.login_window_seconds)
        self.signups_per_address = SlidingWindow(limits.signup_per_address, limits.login_window_seconds)
        #: Argon2 computations at once (each takes its memory cost, 64 MiB by default): more wait their turn.
        self.hashing = asyncio.Semaphore(max(1, min(4, os.cpu_count() or 1)))
        self.use_hasher(hasher or PasswordHasher())

    def use_hasher(self, hasher: PasswordHasher) -> None:
        """Hash with ``hasher`` from now on; stored hashes of other parameters are redone at log-in."""
        self.hasher = hasher
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        async with self.hashing:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; with no stored hash (an unknown name) a dummy hash
        of the same parameters is verified all the same, so both answers take as long."""
        if self._dummy is None:
            self._dummy = await self.hash(secrets.token_urlsafe(16))
        target = stored if stored is not None else self._dummy

        def check() -> bool:
            try:
                return self.hasher.verify(target, password)
            except (VerificationError, InvalidHashError):
                return False

        async with self.hashing:
            matched = await asyncio.to_thread(check)
        return matched and stored is not None

    def limited(self, request: Request, account: str | None) -> None:
        """Raise ``rate_limited`` if the address, or the account (folded name), has had its attempts."""
        wait = self.logins_per_address.wait(client_address(request))
        if account is not None:
            wait = max(wait, self.logins_per_account.wait(fold_name(account)))
        if wait > 0:
            raise RateLimited(math.ceil(wait), _(M.TOO_MANY_LOGINS).format(seconds=math.ceil(wait)))
        self.logins_per_address.add(client_address(request))

    def failed(self, account: str) -> None:
        self.logins_per_account.add(fold_name(account))

    def signup_limited(self, request: Request) -> None:
        address = client_address(request)
        wait = self.signups_per_address.wait(address)
        if wait > 0:
            raise RateLimited(math.ceil(wait), _(M.TOO_MANY_SIGNUPS).format(seconds=math.ceil(wait)))
        self.signups_per_address.add(address)

    async def db(self, request: HTTPConnection, call: Any, *args: Any) -> Any:
        """A store call on the storage thread; a store that fails is ``server_error`` (nothing was kept:
        each call is one transaction)."""
        try:
            return await manager_of(request).db(call, *args)
        except (GameError, NameTaken):
            raise
        except Exception:
            log.warning("accounts: %s failed", getattr(call, "__name__", "a store call"), exc_info=True)
            raise GameError("server_error", _(M.STORED_NOT_KEPT)) from None


class RateLimited(GameError):
    """``rate_limited``, with the seconds to wait (``Retry-After``)."""

    def __init__(self, seconds: int, message: str) -> None:
        super().__init__("rate_limited", message)
        self.seconds = seconds


def accounts_of(request: HTTPConnection) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def install(app: Starlette, store: Storage, limits: Limits) -> None:
    """Give ``app`` its accounts (``app.state.accounts``) in the tables of ``store``; a game a
    browser creates is filed under its player (:func:`note_game`, one of ``app.state.creation_hooks``)."""
    app.state.accounts = Accounts(SQLiteAccounts(store), limits)
    app.state.creation_hooks.append(note_game)


# -- requests ---------------------------------------------------------------------------------------------

_STATUS = {
    "bad_login": 401,
    "bad_password": 403,
    "not_signed_in": 401,
    "not_account": 403,
    "bad_csrf": 403,
    "bad_origin": 403,
    "name_taken": 409,
    "rate_limited": 429,
    "too_large": 413,
    "server_error": 503,
}


def refused(error: GameError) -> JSONResponse:
    headers = {"Retry-After": str(error.seconds)} if isinstance(error, RateLimited) else None
    response = error_response(_STATUS.get(error.code, 400), error.code, error.message, headers)
    response.headers["Cache-Control"] = "no-store"
    return response


def check_forgery(request: Request) -> None:
    """A state-changing request must carry the CSRF header equal to the CSRF cookie, and come from
    this site: its ``Origin`` (checked by the Guard) or, without one, its ``Referer`` when sent."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    header = request.headers.get(CSRF_HEADER, "")
    if not cookie or not hmac.compare_digest(cookie.encode(), header.encode()):
        raise GameError("bad_csrf", _(M.BAD_CSRF))
    referer = request.headers.get("referer")
    if request.headers.get("origin") is None and referer is not None:
        allowed = {origin_of(o) for o in request.app.state.limits.allowed_origins}
        netloc = urlsplit(referer).netloc.lower()
        if origin_of(referer) not in allowed and netloc != request.headers.get("host", "").strip().lower():
            raise GameError("bad_origin", FOREIGN_ORIGIN)


def session_token(request: HTTPConnection) -> str | None:
    token = request.cookies.get(SESSION_COOKIE)
    return token if token and len(token) <= 100 else None


async def current_player(request: HTTPConnection) -> Player | None:
    token = session_token(request)
    if token is None:
        return None
    found: Player | None = await accounts_of(request).db(
        request, accounts_of(request).store.player_of_session, token_digest(token)
    )
    return found


async def signed_in(request: Request) -> Player:
    player = await current_player(request)
    if player is None:
        raise GameError("not_signed_in", _(M.NOT_SIGNED_IN))
    return player


async def body_of(request: Request, *fields: str) -> dict[str, Any]:
    data = await read_json(request)
    if not isinstance(data, dict):
        raise GameError("bad_request", "the body must be a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise GameError("bad_request", f"unexpected field {unknown[0]!r}")
    return data


def check_password(password: Any) -> str:
    if not isinstance(password, str) or not PASSWORD_LEAST <= len(password) <= PASSWORD_MOST:
        raise GameError("bad_password_form", _(M.PASSWORD_FORM).format(least=PASSWORD_LEAST, most=PASSWORD_MOST))
    return password


def check_new_name(given: Any) -> str:
    """A name a new player may take: of the alphabet and not reserved (taken names: the store says)."""
    name = check_name(given)
    if is_reserved(name):
        raise GameError("reserved_name", _(M.NAME_RESERVED).format(name=name))
    return name


def csrf_token(request: Request) -> str:
    token = request.cookies.get(CSRF_COOKIE, "")
    return token if 20 <= len(token) <= 100 and token.isascii() else secrets.token_urlsafe(32)


def secure(request: Request) -> bool:
    return request.url.scheme == "https" or bool(request.app.state.limits.secure_cookies)


def answer(request: Request, data: dict[str, Any], status: int = 200, session: str | None = None) -> Response:
    """``data`` with the CSRF token (the cookie set when missing) and, given, a new session cookie;
    ``session=""`` clears the session cookie."""
    token = csrf_token(request)
    response = json_response({**data, "csrf": token}, status)
    if request.cookies.get(CSRF_COOKIE) != token:
        response.set_cookie(CSRF_COOKIE, token, max_age=SESSION_SECONDS, samesite="lax", secure=secure(request))
    if session == "":
        response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=secure(request))
    elif session is not None:
        response.set_cookie(
            SESSION_COOKIE, session, max_age=SESSION_SECONDS, httponly=True, samesite="lax", secure=secure(request)
        )
    return response


def old_session_hash(request: Request) -> str | None:
    token = session_token(request)
    return None if token is None else token_digest(token)


async def api_whoami(request: Request) -> Response:
    """``GET /api/session``: the player of this browser (or null), their games and the CSRF token."""
    accounts = accounts_of(request)
    try:
        player = await current_player(request)
        games: list[str] = [] if player is None else await accounts.db(request, accounts.store.games_of, player.id)
    except GameError as error:
        return refused(error)
    return answer(request, {"player": None if player is None else player.shown(), "games": games})


async def api_guest(request: Request) -> Response:
    """``POST /api/guest {"name"}``: a guest session (a browser's old session is ended)."""
    accounts = accounts_of(request)
    try:
        check_forgery(request)
        name = check_new_name((await body_of(request, "name")).get("name"))
        accounts.signup_limited(request)
        token = secrets.token_urlsafe(32)
        try:
            player = await accounts.db(
                request, accounts.store.create_guest, name, token_digest(token), old_session_hash(request)
            )
        except NameTaken:
            raise GameError("name_taken", _(M.NAME_TAKEN).format(name=name)) from None
    except GameError as error:
        return refused(error)
    return answer(request, {"player": player.shown()}, 201, session=token)


async def api_register(request: Request) -> Response:
    """``POST /api/account {"name", "password"}``: an account and its first session; a guest who
    registers stays the same player, so the games of that browser are the account's."""
    accounts = accounts_of(request)
    try:
        check_forgery(request)
        data = await body_of(request, "name", "password")
        name = check_new_name(data.get("name"))
        password = check_password(data.get("password"))
        accounts.signup_limited(request)
        current = await current_player(request)
        guest_id = current.id if current is not None and current.kind == GUEST else None
        password_hash = await accounts.hash(password)
        token = secrets.token_urlsafe(32)
        try:
            player = await accounts.db(
                request,
                accounts.store.create_account,
                name,
                password_hash,
                token_digest(token),
                old_session_hash(request),
                guest_id,
            )
        except NameTaken:
            raise GameError("name_taken", _(M.NAME_TAKEN).format(name=name)) from None
    except GameError as error:
        return refused(error)
    return answer(request, {"player": player.shown()}, 201, session=token)


async def api_login(request: Request) -> Response:
    """``POST /api/session {"name", "password"}``: a new session (never the browser's old one). A wrong
    name and a wrong password get the same answer after the same work (one Argon2 verification)."""
    accounts = accounts_of(request)
    try:
        check_forgery(request)
        data = await body_of(request, "name", "password")
        name, password = data.get("name"), data.get("password")
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > PASSWORD_MOST:
            raise GameError("bad_login", _(M.BAD_LOGIN))
        name = name[: NAME_MOST + 1]
        accounts.limited(request, name)
        known = await accounts.db(request, accounts.store.account_named, name) if NAME_PATTERN.fullmatch(name) else None
        stored = None if known is None else known[1]
        if not await accounts.verify(stored, password):
            accounts.failed(name)
            raise GameError("bad_login", _(M.BAD_LOGIN))
        assert known is not None and stored is not None
        player = known[0]
        if accounts.hasher.check_needs_rehash(stored):
            await accounts.db(request, accounts.store.set_password, player.id, await accounts.hash(password), None)
        token = secrets.token_urlsafe(32)
        ending = old_session_hash(request)
        await accounts.db(request, accounts.store.start_session, player.id, token_digest(token), ending)
    except GameError as error:
        return refused(error)
    return answer(request, {"player": player.shown()}, session=token)


async def api_logout(request: Request) -> Response:
    """``DELETE /api/session``: this browser's session ends (a guest's with it)."""
    try:
        check_forgery(request)
        ending = old_session_hash(request)
        if ending is not None:
            await accounts_of(request).db(request, accounts_of(request).store.end_session, ending)
    except GameError as error:
        return refused(error)
    return answer(request, {"player": None}, session="")


async def api_logout_everywhere(request: Request) -> Response:
    """``DELETE /api/sessions``: every session of the player ends, this browser's too."""
    try:
        check_forgery(request)
        player = await signed_in(request)
        await accounts_of(request).db(request, accounts_of(request).store.end_sessions, player.id)
    except GameError as error:
        return refused(error)
    return answer(request, {"player": None}, session="")


async def _account_with_password(request: Request, password: Any) -> Player:
    """The signed-in account, once ``password`` is its password (counted like a log-in)."""
    accounts = accounts_of(request)
    player = await signed_in(request)
    if player.kind != ACCOUNT or player.name is None:
        raise GameError("not_account", _(M.GUESTS_HAVE_NO_ACCOUNT))
    accounts.limited(request, player.name)
    stored = await accounts.db(request, accounts.store.password_hash, player.id)
    if not isinstance(password, str) or len(password) > PASSWORD_MOST or not await accounts.verify(stored, password):
        accounts.failed(player.name)
        raise GameError("bad_password", _(M.BAD_PASSWORD))
    return player


async def api_change_password(request: Request) -> Response:
    """``PUT /api/account/password {"old", "new"}``: every other session ends; this one gets a new id."""
    accounts = accounts_of(request)
    try:
        check_forgery(request)
        data = await body_of(request, "old", "new")
        new = check_password(data.get("new"))
        player = await _account_with_password(request, data.get("old"))
        token = secrets.token_urlsafe(32)
        new_hash = await accounts.hash(new)
        await accounts.db(request, accounts.store.set_password, player.id, new_hash, token_digest(token))
    except GameError as error:
        return refused(error)
    return answer(request, {"player": player.shown()}, session=token)


async def api_delete_account(request: Request) -> Response:
    """``DELETE /api/account {"password"}``: the account goes; its games stay, shown as a deleted player's."""
    accounts = accounts_of(request)
    try:
        check_forgery(request)
        data = await body_of(request, "password")
        player = await _account_with_password(request, data.get("password"))
        await accounts.db(request, accounts.store.delete_account, player.id)
    except GameError as error:
        return refused(error)
    return answer(request, {"player": None}, session="")


async def api_game_players(request: Request) -> Response:
    """``GET /api/games/{id}/players``: who created the game, as every view names them."""
    accounts = accounts_of(request)
    try:
        players = await accounts.db(request, accounts.store.players_of, request.path_params["game_id"])
    except GameError as error:
        return refused(error)
    return json_response({"players": [player.shown() for player in players]})


async def note_game(request: Request, game_id: str) -> None:
    """Count a game just created as the browser's player's (when its session and CSRF token are good);
    a failure here never undoes the game."""
    try:
        check_forgery(request)
        player = await current_player(request)
        if player is not None:
            await accounts_of(request).db(request, accounts_of(request).store.link_game, player.id, game_id)
    except GameError:
        return
    except Exception:
        log.warning("could not note game %s as its creator's", game_id, exc_info=True)


ROUTES = [
    Route("/api/session", api_whoami, methods=["GET"]),
    Route("/api/session", api_login, methods=["POST"]),
    Route("/api/session", api_logout, methods=["DELETE"]),
    Route("/api/sessions", api_logout_everywhere, methods=["DELETE"]),
    Route("/api/guest", api_guest, methods=["POST"]),
    Route("/api/account", api_register, methods=["POST"]),
    Route("/api/account", api_delete_account, methods=["DELETE"]),
    Route("/api/account/password", api_change_password, methods=["PUT"]),
    Route("/api/games/{game_id}/players", api_game_players, methods=["GET"]),
]
