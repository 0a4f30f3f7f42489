"""Players' profiles, ratings wired to the end of games, resigning, aborting and rematches.

HTTP (docs/server.md, "Profiles" and "Resign, abort and rematch")::

    GET  /api/players/{name}        a player's public profile: ratings, their history, games, playing
                                    (``?limit=20&cursor=0`` pages the games; ``level:3?game=<game>``)
    GET  /api/players?prefix=ki     accounts whose name starts so (case ignored, at most 20)
    POST /api/games/{id}/resign     {"credential"?}: the seat holder gives up (an abort before every seat moved)
    POST /api/games/{id}/rematch    {"credential"?}: offer a rematch with seats swapped; the last
                                    person to ask makes it (each is told their seat's invite)

**Who holds a seat** (:meth:`Profiles.seat_holders`): an agent seat its spec; a person's seat
the player :mod:`spheria.server.challenges` records (``seat_players``: a challenge's players, a
browser with a session claiming an invite, a rematch's players). **Rated or casual**: a game is
offered as rated when it was created so (``games.rated``: a rated challenge's game, ``POST
/api/games`` with ``"rated": true``, the rematch of a rated game); :func:`spheria.ratings.unrated_reason`
decides at the end whether it is rated after all.

**The end of a game** (:func:`game_ended`, an end hook): the ratings of its holders move once, in
one transaction with the row of ``game_ratings`` that says so, so a game's end processed twice
(a restart, a retry) rates it once. What changed goes into the result frame as ``rated``,
``unrated`` (the reason's code) and ``ratings`` (per seat ``{"before", "after", "deviation",
"provisional"}`` or null).

>>> seat_moves_of(2, [[0], [1], [0], [0, 1]])  # two moves, then a reveal both chose at
[3, 2]
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from spheria.agents.levels import LEVEL_SPEC, check_level
from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS, Game
from spheria.kernel.record import replay_steps, set_up
from spheria.kernel.registry import load_game
from spheria.ratings import (
    NEW,
    Holder,
    Rating,
    SeatHolder,
    agent_holder,
    level_seed,
    rate_game,
    rating_key,
    unrated_reason,
)
from spheria.server import messages as M
from spheria.server.accounts import (
    ACCOUNT,
    GUEST,
    NAME_MOST,
    Accounts,
    Player,
    body_of,
    check_forgery,
    current_player,
    fold_name,
)
from spheria.server.accounts import refused as refused_by_accounts
from spheria.server.challenges import lobby_of
from spheria.server.database import Database
from spheria.server.endpoints import client_address, find_game, json_response, manager_of
from spheria.server.limits import Limits, SlidingWindow
from spheria.server.session import GameError, GameSession, SessionManager
from spheria.server.storage import ABORTED, ACTIVE, AGENT, FINISHED, HUMAN, Storage
from spheria.server.views import choosers

log = logging.getLogger("spheria.server")

#: Games a profile lists at once (``limit`` 1 to this), the furthest a cursor pages, the points of
#: a rating's history, the names a search finds.
GAMES_MOST, CURSOR_MOST, HISTORY_MOST, SEARCH_MOST = 50, 10_000, 500, 20


def seat_moves_of(seats: int, choosing: Sequence[Sequence[int]]) -> list[int]:
    """Moves per seat, from the seats that moved at each entry (the seat to move, or every seat
    that chose at a reveal)."""
    counts = [0] * seats
    for chose in choosing:
        for seat in chose:
            counts[seat] += 1
    return counts


def count_moves(game: Game, record: Any) -> list[int]:
    """How many moves each seat made in a stored game (a secret choice at a reveal counts)."""
    state = set_up(game, start=record.start, seed=record.seed)
    choosing: list[list[int]] = []
    for entry in record.moves:
        player = state.current_player()
        choosing.append(choosers(state) if player == SIMULTANEOUS else [player])
        for _step in replay_steps(state, [entry]):
            pass
    return seat_moves_of(game.num_players, choosing)


def _epoch(when: datetime | None) -> float | None:
    return None if when is None else when.timestamp()


def _rating_of(row: Sequence[Any]) -> Rating:
    last = None if row[4] is None else datetime.fromtimestamp(row[4], UTC)
    return Rating(row[0], row[1], row[2], int(row[3]), last)


def rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.rating, 2),
        "deviation": round(rating.deviation, 2),
        "games": rating.games,
        "provisional": rating.provisional,
    }


@dataclass(frozen=True)
class Seat:
    """One seat at the end of a game, for the rating: its holder's rating name, kind and moves."""

    name: str
    holder: Holder
    moves: int
    level: int | None = None


class ProfileStore:
    """The profiles' tables, in the game store's SQLite file (one transaction per call)."""

    def __init__(self, store: Storage) -> None:
        self.store = store

    def unrated_ends(self) -> list[str]:
        """Ended games offered as rated whose end was never rated (the server stopped in between)."""
        sql = (
            "SELECT id FROM games WHERE rated = 1 AND status IN (?, ?)"
            " AND id NOT IN (SELECT game_id FROM game_ratings) ORDER BY updated"
        )
        return [row[0] for row in self.store.transaction(lambda db: db.execute(sql, (FINISHED, ABORTED)).fetchall())]

    def end_game(self, game_id: str, status: str, result: dict[str, Any]) -> bool:
        """End an unfinished game off the board (a resignation, an abort); False if it had ended."""
        sql = "UPDATE games SET status = ?, result = ?, updated = ? WHERE id = ? AND status = ?"

        def work(db: Database) -> bool:
            changed = db.execute(sql, (status, json.dumps(result), time.time(), game_id, ACTIVE)).rowcount == 1
            if changed:
                db.execute("DELETE FROM pending WHERE game_id = ?", (game_id,))
            return changed

        ended: bool = self.store.transaction(work)
        return ended

    def rate_once(
        self, game_id: str, game: Game, returns: list[float], seats: list[Seat], rated: bool, finished: bool
    ) -> dict[str, Any]:
        """The outcome of the game's end for the ratings, decided and stored once (see the module)."""
        now = time.time()

        def work(db: Database) -> dict[str, Any]:
            row = db.execute("SELECT outcome FROM game_ratings WHERE game_id = ?", (game_id,)).fetchone()
            if row is not None:
                done: dict[str, Any] = json.loads(row[0])
                return done
            holders = [SeatHolder(seat.name, seat.holder, seat.moves) for seat in seats]
            reason = unrated_reason(holders, rated=rated, finished=finished)
            per_seat: list[dict[str, Any] | None] = [None] * len(seats)
            if reason is None:
                key = rating_key(game)
                ratings: dict[str, Rating] = {}
                for seat in seats:
                    sql = "SELECT rating, deviation, volatility, games, last_played FROM ratings"
                    found = db.execute(f"{sql} WHERE holder = ? AND key = ?", (seat.name, key)).fetchone()
                    seed = level_seed(game, seat.level) if seat.level is not None else NEW
                    ratings[seat.name] = seed if found is None else _rating_of(found)
                when = datetime.fromtimestamp(now, UTC)
                changes = rate_game(game, returns, [seat.name for seat in seats], ratings, when)
                for name, change in changes.items():
                    after = change.after
                    db.execute(
                        "INSERT INTO ratings (holder, key, rating, deviation, volatility, games, last_played)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (holder, key) DO UPDATE SET"
                        " rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,"
                        " games = excluded.games, last_played = excluded.last_played",
                        (name, key, after.rating, after.deviation, after.volatility, after.games, now),
                    )
                    db.execute(
                        "INSERT INTO rating_history (player, key, before, after, game_id, at)"
                        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player, game_id) DO UPDATE SET"
                        " key = excluded.key, before = excluded.before, after = excluded.after, at = excluded.at",
                        (name, key, change.before.rating, after.rating, game_id, now),
                    )
                for index, seat in enumerate(seats):
                    moved = changes.get(seat.name)
                    if moved is not None:
                        per_seat[index] = {
                            "before": moved.before.rating,
                            "after": moved.after.rating,
                            "deviation": moved.after.deviation,
                            "provisional": moved.after.provisional,
                        }
            outcome = {
                "rated": reason is None,
                "unrated": None if reason is None else reason.value,
                "ratings": per_seat,
            }
            db.execute(
                "INSERT INTO game_ratings (game_id, outcome, at) VALUES (?, ?, ?)", (game_id, json.dumps(outcome), now)
            )
            stored = db.execute("SELECT result FROM games WHERE id = ?", (game_id,)).fetchone()
            if stored is not None and stored[0]:  # the stored result says what changed, as the frame does
                merged = {**json.loads(stored[0]), **outcome}
                db.execute("UPDATE games SET result = ? WHERE id = ?", (json.dumps(merged), game_id))
            return outcome

        outcome: dict[str, Any] = self.store.transaction(work)
        return outcome

    # -- profiles ------------------------------------------------------------------------------------

    def player_named(self, name: str) -> Player | None:
        """The live account of that name, else the latest guest of exactly that name (case ignored)."""
        columns = "SELECT id, kind, name, created, deleted FROM players"

        def work(db: Database) -> Player | None:
            sql = f"{columns} WHERE folded = ? AND kind = ? AND deleted IS NULL"
            row = db.execute(sql, (fold_name(name), ACCOUNT)).fetchone()
            if row is None:
                sql = f"{columns} WHERE kind = ? AND lower(name) = lower(?) AND deleted IS NULL ORDER BY created DESC"
                row = db.execute(sql, (GUEST, name)).fetchone()
            return None if row is None else Player(*row)

        found: Player | None = self.store.transaction(work)
        return found

    def ratings_of(self, holder: str) -> tuple[dict[str, Rating], dict[str, list[list[float]]]]:
        def work(db: Database) -> Any:
            sql = "SELECT key, rating, deviation, volatility, games, last_played FROM ratings WHERE holder = ?"
            rows = db.execute(sql + " ORDER BY key", (holder,)).fetchall()
            sql = "SELECT key, at, after FROM rating_history WHERE player = ? ORDER BY at DESC LIMIT ?"
            history = db.execute(sql, (holder, HISTORY_MOST)).fetchall()
            return rows, history

        rows, history = self.store.transaction(work)
        charts: dict[str, list[list[float]]] = {}
        for key, at, after in reversed(history):
            charts.setdefault(key, []).append([at, round(after, 2)])
        return {row[0]: _rating_of(row[1:]) for row in rows}, charts

    def games_of(self, player_id: str, active: bool, limit: int, offset: int) -> list[dict[str, Any]]:
        """The games a player held a seat in or created: in play, or ended (newest first)."""
        status = "= ?" if active else "!= ?"
        sql = (
            "SELECT g.id, g.name, g.options, g.status, g.result, g.created, g.updated FROM games g WHERE g.id IN"
            " (SELECT game_id FROM seat_players WHERE player_id = ? UNION SELECT game_id FROM player_games"
            f" WHERE player_id = ?) AND g.status {status} ORDER BY g.updated DESC, g.id LIMIT ? OFFSET ?"
        )

        def work(db: Database) -> list[dict[str, Any]]:
            games = []
            for row in db.execute(sql, (player_id, player_id, ACTIVE, limit, offset)).fetchall():
                games.append(self._game_line(db, row, player_id))
            return games

        found: list[dict[str, Any]] = self.store.transaction(work)
        return found

    def rated_games_of(self, holder: str, limit: int, offset: int) -> list[dict[str, Any]]:
        """The rated games of a level agent (newest first)."""
        sql = (
            "SELECT g.id, g.name, g.options, g.status, g.result, g.created, g.updated FROM games g"
            " JOIN rating_history h ON h.game_id = g.id WHERE h.player = ?"
            " ORDER BY g.updated DESC, g.id LIMIT ? OFFSET ?"
        )

        def work(db: Database) -> list[dict[str, Any]]:
            return [self._game_line(db, row, holder) for row in db.execute(sql, (holder, limit, offset)).fetchall()]

        found: list[dict[str, Any]] = self.store.transaction(work)
        return found

    def _game_line(self, db: Database, row: Sequence[Any], holder: str) -> dict[str, Any]:
        """One game of a profile: public facts only (no moves, no secret choices, no tokens)."""
        game_id, name, options, status, result = row[0], row[1], json.loads(row[2]), row[3], row[4]
        seats = db.execute("SELECT seat, kind, agent FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall()
        sql = (
            "SELECT h.seat, p.id, p.kind, p.name, p.created, p.deleted FROM seat_players h"
            " JOIN players p ON p.id = h.player_id WHERE h.game_id = ?"
        )
        held = {int(r[0]): Player(*r[1:]) for r in db.execute(sql, (game_id,)).fetchall()}
        mine: list[int] = []
        opponents: list[dict[str, Any]] = []
        for seat, kind, agent in seats:
            player = held.get(seat)
            if (player is not None and player.id == holder) or (kind == AGENT and agent_holder(agent)[0] == holder):
                mine.append(seat)
            elif kind == AGENT:
                opponents.append({"seat": seat, "agent": agent})
            else:
                opponents.append({"seat": seat, **(player.shown() if player is not None else {"name": None})})
        shown = None
        if result is not None:
            stored = json.loads(result)
            shown = {key: stored.get(key) for key in ("returns", "winners", "reason")}
        change = db.execute(
            "SELECT before, after FROM rating_history WHERE player = ? AND game_id = ?", (holder, game_id)
        ).fetchone()
        return {
            "id": game_id,
            "game": name,
            "options": options,
            "status": status,
            "result": shown,
            "seats": mine,
            "opponents": opponents,
            "date": row[6],
            "rating": None if change is None else {"before": round(change[0], 2), "after": round(change[1], 2)},
            "replay": f"/replay/{game_id}" if status != ACTIVE else None,
            "analysis": f"/analysis?record={game_id}" if status == FINISHED else None,
            "url": f"/game/{game_id}",
        }

    def search(self, prefix: str) -> list[str]:
        """Live accounts whose folded name starts with ``prefix`` folded (at most :data:`SEARCH_MOST`)."""
        low = fold_name(prefix)
        sql = (
            "SELECT name FROM players WHERE kind = ? AND deleted IS NULL AND folded >= ? AND folded < ?"
            " ORDER BY folded LIMIT ?"
        )
        rows = self.store.transaction(
            lambda db: db.execute(sql, (ACCOUNT, low, low + "\uffff", SEARCH_MOST)).fetchall()
        )
        return [row[0] for row in rows]


@dataclass
class Profiles:
    """The app's profiles (``app.state.profiles``): the store, the search limit and the rematches
    in the making (in memory: an offer, and each seat's invite to the new game until it is asked)."""

    store: ProfileStore
    manager: SessionManager
    accounts: Accounts
    searches: SlidingWindow
    offers: dict[str, set[int]] = field(default_factory=dict)
    rematches: dict[str, tuple[str, dict[int, tuple[int, str]]]] = field(default_factory=dict)

    async def db(self, call: Any, *args: Any) -> Any:
        try:
            return await self.manager.db(call, *args)
        except GameError:
            raise
        except Exception:
            raise GameError("server_error", _(M.STORED_NOT_KEPT)) from None

    def seat_holders(self, session: GameSession) -> list[Player | str | None]:
        """Who holds each seat of a game: a player, an agent's spec, or None (nobody known)."""
        held = session.holders
        return [seat.agent if seat.kind == AGENT else held.get(seat.seat) for seat in session.stored.seats]

    async def game_ended(self, session: GameSession) -> None:
        """The end hook: rate the game once and put what changed in its result frame."""
        stored = session.stored
        if session.outcome or (stored.status not in (FINISHED, ABORTED) and not session.state.is_terminal()):
            return
        holders = self.seat_holders(session)
        loop = asyncio.get_running_loop()
        moves = await loop.run_in_executor(None, count_moves, session.game, session.record)
        seats = [seat_of(holder, count) for holder, count in zip(holders, moves, strict=True)]
        finished = stored.status == FINISHED or session.state.is_terminal()
        returns = [float(r) for r in (stored.result or {}).get("returns") or session.state.returns()]
        outcome = await self.db(self.store.rate_once, session.id, session.game, returns, seats, stored.rated, finished)
        if stored.result is not None:
            stored.result = {**stored.result, **outcome}
        session.outcome = outcome

    async def rate_missed(self) -> int:
        """The startup pass: rate, once, every ended rated game whose end was never rated; how many."""
        ids = await self.db(self.store.unrated_ends)
        for game_id in ids:
            try:
                session = await self.manager.load(game_id)
            except Exception:  # a record that no longer rebuilds: the others are rated all the same
                log.warning("game %s could not be loaded to be rated", game_id, exc_info=True)
                continue
            if session is not None:
                await self.manager.game_ended(session)  # the end hooks: this one rates it (once)
        return len(ids)


def seat_of(holder: Player | str | None, moves: int) -> Seat:
    """A seat for the rating: an account (by id), a level (``level:3``), or what holds no rating."""
    if isinstance(holder, Player):
        if holder.kind == ACCOUNT and holder.deleted is None:
            return Seat(holder.id, Holder.PERSON, moves)
        return Seat(holder.id, Holder.GUEST, moves)
    if holder is None:
        return Seat("", Holder.GUEST, moves)
    name, kind = agent_holder(holder)
    level = int(name.split(":")[1]) if kind is Holder.LEVEL else None
    return Seat(name, kind, moves, level)


def profiles_of(request: Request) -> Profiles:
    profiles: Profiles = request.app.state.profiles
    return profiles


def install(app: Starlette, store: Storage, limits: Limits) -> None:
    """Give ``app`` its profiles (``app.state.profiles``) and hook them to the ends of games (after
    :func:`spheria.server.accounts.install` and :func:`spheria.server.challenges.install`)."""
    manager: SessionManager = app.state.manager
    searches = SlidingWindow(limits.player_search_per_minute, 60.0)
    profiles = Profiles(ProfileStore(store), manager, app.state.accounts, searches)
    manager.end_hooks.append(profiles.game_ended)
    app.state.profiles = profiles


# -- resign, abort, rematch -----------------------------------------------------------------------------


async def caller_seat(request: Request, session: GameSession, data: dict[str, Any]) -> int:
    """The seat of the caller: the seat its ``credential`` (kept by the browser that claimed it)
    opens, else the seat its session's player holds; ``not_seat_holder`` (403) if neither."""
    credential = data.get("credential")
    if credential is not None:
        if not isinstance(credential, str) or len(credential) > 100:
            raise GameError("not_seat_holder", _(M.NOT_A_SEAT_HOLDER))
        seat = session.seat_for_credential(credential)
        if seat is None:
            raise GameError("not_seat_holder", _(M.NOT_A_SEAT_HOLDER))
        return seat
    player = await current_player(request)
    if player is not None:
        for index, holder in enumerate(profiles_of(request).seat_holders(session)):
            if isinstance(holder, Player) and holder.id == player.id:
                return index
    raise GameError("not_seat_holder", _(M.NOT_A_SEAT_HOLDER))


def resignation(game: Game, seat: int, names: list[str]) -> dict[str, Any]:
    """The result of ``seat`` resigning: its side lost, every other side won."""
    sides = [info.side for info in game.info().seats]
    returns = [-1.0 if sides[index] == sides[seat] else 1.0 for index in range(len(sides))]
    winners = [index for index, value in enumerate(returns) if value > 0]
    text = _(M.RESIGNED).format(name=_(names[seat]))
    return {
        "returns": returns,
        "winners": winners,
        "text": text,
        "reason": {"code": "resigned", "seat": seat},
        "sites": [],
    }


def abortion(game: Game, seat: int, names: list[str]) -> dict[str, Any]:
    """The result of ``seat`` leaving before every seat moved: nobody won, nothing is rated."""
    returns = [0.0] * game.num_players
    text = _(M.ABORTED_BY).format(name=_(names[seat]))
    return {"returns": returns, "winners": [], "text": text, "reason": {"code": "aborted", "seat": seat}, "sites": []}


async def resign(profiles: Profiles, session: GameSession, seat: int) -> dict[str, Any]:
    """End the game by ``seat`` giving up: aborted before every seat has moved, else resigned."""
    async with session.lock:
        if session.is_over():
            raise GameError("game_over", _(M.GAME_OVER))
        loop = asyncio.get_running_loop()
        moves = await loop.run_in_executor(None, count_moves, session.game, session.record)
        names = session.game.player_names()
        if min(moves) < 1:
            status, result = ABORTED, abortion(session.game, seat, names)
        else:
            status, result = FINISHED, resignation(session.game, seat, names)
        if not await profiles.db(profiles.store.end_game, session.id, status, result):
            raise GameError("game_over", _(M.GAME_OVER))
        session.stored.status, session.stored.result = status, result
        session.pending.clear()
        session.version += 1
    await profiles.manager.game_ended(session)
    session.broadcast()
    return result


async def api_resign(request: Request) -> Response:
    """``POST /api/games/{id}/resign {"credential"?}``: the caller's seat gives up."""
    profiles = profiles_of(request)
    try:
        check_forgery(request)
        data = await body_of(request, "credential")
        session = await find_game(request)
        seat = await caller_seat(request, session, data)
        result = await resign(profiles, session, seat)
    except GameError as error:
        return refused(error)
    return json_response({"status": session.stored.status, "result": {**result, **session.outcome}})


def swapped(count: int, seat: int) -> int:
    """The seat of the rematch held by whoever held ``seat``: each moves one on (two seats swap)."""
    return (seat + 1) % count


async def api_rematch(request: Request) -> Response:
    """``POST /api/games/{id}/rematch {"credential"?}``: offer (or accept) a rematch with seats swapped.

    The first seat holder to ask offers it (202, an event ``rematch_offer`` on the game's socket);
    when every person's seat has asked, the new game is made (201): each asker is answered, and
    each seat's clients are sent, the invite to its new seat (``rematch``). Asking again after
    that gives the asker its invite until it is used."""
    profiles = profiles_of(request)
    manager = manager_of(request)
    try:
        check_forgery(request)
        data = await body_of(request, "credential")
        session = await find_game(request)
        if not session.is_over():
            raise GameError("not_finished", _(M.REMATCH_NOT_OVER))
        seat = await caller_seat(request, session, data)
        made = profiles.rematches.get(session.id)
        if made is not None:
            new_id, invites = made
            if seat not in invites:
                raise GameError("rematch_made", _(M.REMATCH_MADE))
            new_seat, token = invites[seat]
            return json_response({"game_id": new_id, "seat": new_seat, "invite": f"/game/{new_id}#{token}"}, 201)
        offered = profiles.offers.setdefault(session.id, set())
        offered.add(seat)
        people = {s.seat for s in session.stored.seats if s.kind == HUMAN}
        if not people <= offered:
            frame = {"type": "rematch_offer", "game_id": session.id, "seats": sorted(offered)}
            for client in list(session.clients):
                client.push(frame)
            return json_response({"offered": sorted(offered)}, 202)
        count = len(session.stored.seats)
        seats: list[dict[str, Any]] = [{}] * count
        for old in session.stored.seats:
            seats[swapped(count, old.seat)] = (
                {"kind": old.kind, "agent": old.agent} if old.kind == AGENT else {"kind": HUMAN}
            )
        record = session.record
        new, tokens, _owner = await manager.create(
            record.game, dict(record.options), seats, hints=session.stored.hints, rated=session.stored.rated
        )
        holders = profiles.seat_holders(session)
        moved = {swapped(count, old): held for old, held in enumerate(holders) if isinstance(held, Player)}
        await lobby_of(request).hold(new, moved)
        invites = {old: (swapped(count, old), tokens[swapped(count, old)]) for old in people}
        profiles.rematches[session.id] = (new.id, invites)
        profiles.offers.pop(session.id, None)
        for client in list(session.clients):
            if client.seat in invites:
                new_seat, token = invites[client.seat]
                client.push(
                    {"type": "rematch", "game_id": new.id, "seat": new_seat, "invite": f"/game/{new.id}#{token}"}
                )
        new_seat, token = invites[seat]
    except GameError as error:
        return refused(error)
    return json_response({"game_id": new.id, "seat": new_seat, "invite": f"/game/{new.id}#{token}"}, 201)


# -- profiles ---------------------------------------------------------------------------------------------


def _bounded(request: Request, name: str, default: int, most: int, least: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or len(text) > 6 or not least <= int(text) <= most:
        raise GameError("bad_query", _(M.QUERY_RANGE).format(name=name, least=least, most=most))
    return int(text)


async def api_player(request: Request) -> Response:
    """``GET /api/players/{name}``: a player's public profile (a level's: ``level:3``)."""
    profiles = profiles_of(request)
    name = request.path_params["name"]
    try:
        limit = _bounded(request, "limit", 20, GAMES_MOST, 1)
        offset = _bounded(request, "cursor", 0, CURSOR_MOST, 0)
        if name.startswith(f"{LEVEL_SPEC}:"):
            return await _level_profile(request, profiles, name, limit, offset)
        if len(name) > NAME_MOST:
            raise GameError("unknown_player", _(M.NO_PLAYER))
        player = await profiles.db(profiles.store.player_named, name)
        if player is None:
            raise GameError("unknown_player", _(M.NO_PLAYER))
        ratings, history = await profiles.db(profiles.store.ratings_of, player.id)
        games = await profiles.db(profiles.store.games_of, player.id, False, limit, offset)
        playing = await profiles.db(profiles.store.games_of, player.id, True, GAMES_MOST, 0)
    except GameError as error:
        return refused(error)
    body = {
        "name": player.name,
        "guest": player.kind == GUEST,
        "ratings": {key: rating_json(rating) for key, rating in ratings.items()},
        "history": history,
        "games": games,
        "next": offset + limit if len(games) == limit and offset + limit <= CURSOR_MOST else None,
        "playing": playing,
    }
    return json_response(body)


async def _level_profile(request: Request, profiles: Profiles, name: str, limit: int, offset: int) -> Response:
    try:
        level = check_level(name.split(":", 1)[1])
    except ValueError:
        raise GameError("unknown_player", _(M.NO_PLAYER)) from None
    holder = f"{LEVEL_SPEC}:{level}"
    ratings, history = await profiles.db(profiles.store.ratings_of, holder)
    shown = {key: rating_json(rating) for key, rating in ratings.items()}
    game_name = request.query_params.get("game")
    if game_name is not None:
        try:
            game = load_game(game_name)
        except (ValueError, TypeError):
            raise GameError("bad_game", _(M.NO_GAME_CALLED).format(name=repr(game_name[:40]), games="…")) from None
        shown.setdefault(rating_key(game), rating_json(level_seed(game, level)))
    games = await profiles.db(profiles.store.rated_games_of, holder, limit, offset)
    body = {
        "name": holder,
        "guest": False,
        "level": level,
        "ratings": shown,
        "history": history,
        "games": games,
        "next": offset + limit if len(games) == limit and offset + limit <= CURSOR_MOST else None,
        "playing": [],
    }
    return json_response(body)


async def api_search(request: Request) -> Response:
    """``GET /api/players?prefix=ki``: accounts whose name starts so (limited per address)."""
    profiles = profiles_of(request)
    prefix = request.query_params.get("prefix", "")
    try:
        if not 1 <= len(prefix) <= NAME_MOST or not all(c.isascii() and (c.isalnum() or c in "-_") for c in prefix):
            raise GameError("bad_query", _(M.PREFIX_FORM).format(most=NAME_MOST))
        address = client_address(request)
        wait = profiles.searches.wait(address)
        if wait > 0:
            raise GameError("rate_limited", _(M.TOO_MANY_SEARCHES).format(seconds=math.ceil(wait)))
        profiles.searches.add(address)
        names = await profiles.db(profiles.store.search, prefix)
    except GameError as error:
        return refused(error)
    return json_response({"players": [{"name": name} for name in names]})


_STATUS = {
    "unknown_game": 404,
    "unknown_player": 404,
    "not_seat_holder": 403,
    "game_over": 409,
    "not_finished": 409,
    "rematch_made": 409,
}


def refused(error: GameError) -> Response:
    """The refusal of ``error``: its status here, else the accounts' (:func:`accounts.refused`)."""
    response = refused_by_accounts(error)
    response.status_code = _STATUS.get(error.code, response.status_code)
    return response


ROUTES = [
    Route("/api/players", api_search, methods=["GET"]),
    Route("/api/players/{name}", api_player, methods=["GET"]),
    Route("/api/games/{game_id}/resign", api_resign, methods=["POST"]),
    Route("/api/games/{game_id}/rematch", api_rematch, methods=["POST"]),
]

__all__ = ["ROUTES", "ProfileStore", "Profiles", "install", "seat_of"]
