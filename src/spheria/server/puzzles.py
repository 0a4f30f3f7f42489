"""Puzzles in the browser: the shipped puzzles (:mod:`spheria.puzzles`) served one at a time, a try
answered with the oracle's refutation or the solution, and puzzle ratings (docs/server.md, Puzzles).

HTTP::

    GET  /puzzles                        the puzzles page
    GET  /api/puzzles/next?game=G&rating=R&after=ID   a puzzle near the person's puzzle rating
    GET  /api/puzzles/daily              the puzzle of the day (UTC), the same for everyone
    POST /api/puzzles/{id}/hint          the winning move among at most three plausible ones
    POST /api/puzzles/{id}/attempt       {"moves": [...], "rating"?: {...}, "hinted"?: bool}

A puzzle is sent as ``{"id", "game", "options", "spn", "rating", "moves" (the person's moves it
asks for), "daily", "games" (those with puzzles), "player" (an account's puzzle rating), facts,
"frame"}``: never its solution,
themes or difficulty. A try names the person's moves so far (each of the solver's turns in the
solution line); the answer is ``right`` (with the defence and its frame), ``solved`` or ``wrong``
(with the oracle's refutation and the whole solution, each move with the board after it).
The try ends at ``solved`` or ``wrong``: an account's first ending of a puzzle rates the account
and the puzzle (Glicko-2, table ``puzzle_ratings``); a guest sends its rating (kept in its
browser) and gets the new one back; a try after a hint changes no rating (an account's hint is
kept: that puzzle is never rated for it).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime
from functools import cache
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from spheria.kernel.game import MoveError, State
from spheria.puzzles import (
    Puzzle,
    PuzzleMaker,
    check_answer,
    hint_moves,
    maker_for,
    puzzle_games,
    puzzle_state,
    refutation,
    shipped_puzzles,
)
from spheria.ratings.glicko2 import LOSS, WIN, Rating, Result, rate
from spheria.server import endpoints
from spheria.server.accounts import (
    ACCOUNT,
    Player,
    RateLimited,
    accounts_of,
    body_of,
    check_forgery,
    current_player,
    refused,
)
from spheria.server.analysis import facts, node_frame
from spheria.server.database import Database
from spheria.server.endpoints import client_address, json_response
from spheria.server.limits import Limits, TokenBucket
from spheria.server.session import GameError
from spheria.server.storage import Storage

T = TypeVar("T")

#: How many puzzles nearest the person's rating :func:`choose` draws from.
NEAREST = 30
#: A puzzle's first rating from its difficulty (plausible moves that lose): ``BASE + SLOPE·ln(1+d)``
#: within ``[LOWEST, HIGHEST]``, with this deviation.
BASE, SLOPE, LOWEST, HIGHEST = 1000.0, 400.0, 800.0, 2500.0
PUZZLE_DEVIATION = 250.0
#: Tries and hints one address may ask a second (steady rate), and in a burst.
TRIES_PER_SECOND, TRIES_BURST = 1.0, 30
#: Tries and hints waiting for the oracle at once, server-wide; more are refused (``busy``, 503).
MOST_WAITING = 8
#: Refutations remembered (puzzle and position after the wrong move).
REMEMBERED = 2000
#: The longest move text taken.
MOST_MOVE_CHARS = 40


def first_rating(puzzle: Puzzle) -> Rating:
    """A puzzle's rating before anyone has tried it: from its difficulty."""
    value = min(HIGHEST, max(LOWEST, BASE + SLOPE * math.log1p(puzzle.difficulty)))
    return Rating(value, PUZZLE_DEVIATION)


@cache
def catalogue() -> dict[str, Puzzle]:
    """Every shipped puzzle by its id, games in name order, each game's in its file's order."""
    return {p.id: p for name in sorted(puzzle_games()) for p in shipped_puzzles(name)}


def daily_puzzle(day: date) -> Puzzle:
    """The puzzle of ``day``: the SHA-256 of ``spheria-daily:<YYYY-MM-DD>``, as a number, modulo the
    count of shipped puzzles, indexes them (:func:`catalogue`'s order): the same for everyone."""
    every = list(catalogue().values())
    digest = hashlib.sha256(f"spheria-daily:{day.isoformat()}".encode()).hexdigest()
    return every[int(digest, 16) % len(every)]


def choose(
    game: str, rating: float, ratings: dict[str, Rating], avoid: set[str], rng: random.Random | None = None
) -> Puzzle:
    """A puzzle of ``game`` drawn from the :data:`NEAREST` puzzles (not in ``avoid``, unless all are)
    whose ratings (``ratings``, else :func:`first_rating`) are nearest ``rating``."""
    puzzles = [p for p in catalogue().values() if p.game == game]
    fresh = [p for p in puzzles if p.id not in avoid] or puzzles

    def distance(puzzle: Puzzle) -> float:
        return abs((ratings.get(puzzle.id) or first_rating(puzzle)).rating - rating)

    nearest = sorted(fresh, key=distance)[:NEAREST]
    return (rng or random.Random()).choice(nearest)


class PuzzleStore:
    """Puzzle ratings (``holder`` a player's id or ``puzzle:<id>``) and accounts' ended tries, in the
    game store's SQLite file. Schema::

        puzzle_ratings (holder, game, rating, deviation, volatility, games)  PK (holder, game)
        puzzle_tries   (player_id, puzzle_id, solved, at)                   PK (player_id, puzzle_id)

    A try row is made at an account's first hint for the puzzle (``solved`` NULL until it ends)
    or at its first ending: either way the puzzle is rated for the account at most once, and
    never after a hint.
    """

    def __init__(self, store: Storage) -> None:
        self.store = store

    def ratings(self, holders: Sequence[str], game: str) -> dict[str, Rating]:
        def work(db: Database) -> dict[str, Rating]:
            found = {}
            for holder in holders:
                row = db.execute(
                    "SELECT rating, deviation, volatility, games FROM puzzle_ratings WHERE holder = ? AND game = ?",
                    (holder, game),
                ).fetchone()
                if row is not None:
                    found[holder] = Rating(row[0], row[1], row[2], row[3])
            return found

        return self.store.transaction(work)

    def puzzle_ratings(self, game: str) -> dict[str, Rating]:
        """The puzzles of ``game`` tried by accounts, by puzzle id."""

        def work(db: Database) -> dict[str, Rating]:
            rows = db.execute(
                "SELECT holder, rating, deviation, volatility, games FROM puzzle_ratings"
                " WHERE game = ? AND holder LIKE 'puzzle:%'",
                (game,),
            ).fetchall()
            return {row[0].removeprefix("puzzle:"): Rating(row[1], row[2], row[3], row[4]) for row in rows}

        return self.store.transaction(work)

    def tried(self, player_id: str) -> set[str]:
        rows = self.store.transaction(
            lambda db: db.execute("SELECT puzzle_id FROM puzzle_tries WHERE player_id = ?", (player_id,)).fetchall()
        )
        return {row[0] for row in rows}

    def end_try(self, player_id: str, puzzle: Puzzle, solved: bool, rated: bool, now: float) -> Rating | None:
        """Keep an account's ended try; the first of this puzzle (and ``rated``) rates the account and
        the puzzle against each other. The account's new rating, or None when nothing was rated."""

        def work(db: Database) -> Rating | None:
            kept = db.execute(
                "INSERT INTO puzzle_tries VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (player_id, puzzle.id, int(solved), now),
            )
            if kept.rowcount == 0:
                db.execute(
                    "UPDATE puzzle_tries SET solved = ? WHERE player_id = ? AND puzzle_id = ? AND solved IS NULL",
                    (int(solved), player_id, puzzle.id),
                )
            if kept.rowcount == 0 or not rated:
                return None
            key = f"puzzle:{puzzle.id}"
            rows = {
                row[0]: Rating(row[1], row[2], row[3], row[4])
                for row in db.execute(
                    "SELECT holder, rating, deviation, volatility, games FROM puzzle_ratings"
                    " WHERE game = ? AND holder IN (?, ?)",
                    (puzzle.game, player_id, key),
                )
            }
            person = rows.get(player_id, Rating())
            own = rows.get(key, first_rating(puzzle))
            person_after = rate(person, [Result(own, WIN if solved else LOSS)])
            own_after = rate(own, [Result(person, LOSS if solved else WIN)])
            for holder, value in ((player_id, person_after), (key, own_after)):
                db.execute(
                    "INSERT INTO puzzle_ratings VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (holder, game) DO UPDATE SET"
                    " rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,"
                    " games = excluded.games",
                    (holder, puzzle.game, value.rating, value.deviation, value.volatility, value.games),
                )
            return person_after

        return self.store.transaction(work)

    def note_hint(self, player_id: str, puzzle_id: str, now: float) -> None:
        """An account was given a hint for the puzzle: it will not be rated on it."""
        self.store.transaction(
            lambda db: db.execute(
                "INSERT INTO puzzle_tries VALUES (?, ?, NULL, ?) ON CONFLICT DO NOTHING", (player_id, puzzle_id, now)
            )
        )


class Oracles:
    """One puzzle maker per game (its oracle remembers), used by one thread at a time, and the
    refutations worked out, remembered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.makers: dict[str, PuzzleMaker] = {}
        self.refutations: OrderedDict[tuple[str, str], list[str]] = OrderedDict()

    def maker(self, game: str) -> PuzzleMaker:
        if game not in self.makers:
            self.makers[game] = maker_for(game)
        return self.makers[game]

    def refute(self, puzzle: Puzzle, state: State[Any]) -> list[str]:
        key = (puzzle.id, state.to_spn())
        with self.lock:
            if key not in self.refutations:
                maker = self.maker(puzzle.game)
                self.refutations[key] = refutation(maker, state, maker.budget)
                while len(self.refutations) > REMEMBERED:
                    self.refutations.popitem(last=False)
            return self.refutations[key]

    def hint(self, puzzle: Puzzle) -> list[str]:
        with self.lock:
            return hint_moves(self.maker(puzzle.game), puzzle)


class PuzzleService:
    """The puzzles of one app (``app.state.puzzles``): the oracles work in one thread of their own, so
    a slow refutation never holds up the threads the rest of the server uses (password hashing)."""

    def __init__(self, store: Storage) -> None:
        self.store = PuzzleStore(store)
        self.oracles = Oracles()
        self.tries = TokenBucket(TRIES_PER_SECOND, float(TRIES_BURST))
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="puzzle-oracle")
        self.waiting = 0

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the oracles' thread; ``busy`` when :data:`MOST_WAITING` already wait."""
        if self.waiting >= MOST_WAITING:
            raise GameError("busy", "the puzzles' oracle is busy: try again in a moment")
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.thread, work, *args)
        finally:
            self.waiting -= 1


def install(app: Starlette, store: Storage, limits: Limits) -> None:
    """Give ``app`` its puzzles (``app.state.puzzles``), their tables in ``store``."""
    app.state.puzzles = PuzzleService(store)


def _service(request: Request) -> PuzzleService:
    service: PuzzleService = request.app.state.puzzles
    return service


# -- what is sent ---------------------------------------------------------------------------------


def rating_shown(rating: Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.rating, 1),
        "deviation": round(rating.deviation, 1),
        "volatility": round(rating.volatility, 6),
        "games": rating.games,
        "provisional": rating.provisional,
    }


def asked_moves(puzzle: Puzzle) -> int:
    """How many moves the person makes in the puzzle (the solver's turns of its solution)."""
    return (len(puzzle.solution) + 1) // 2


def public_puzzle(puzzle: Puzzle, own: Rating, player: Rating | None, daily: bool) -> dict[str, Any]:
    """What is sent before a try: the position and its facts, never the solution."""
    state = puzzle_state(puzzle)
    return {
        **facts(state.game),
        "id": puzzle.id,
        "spn": puzzle.spn,
        "rating": round(own.rating),
        "moves": asked_moves(puzzle),
        "daily": daily,
        "games": sorted(puzzle_games()),
        "player": None if player is None else rating_shown(player),
        "frame": node_frame(state),
    }


def line_of(state: State[Any], moves: Sequence[str]) -> list[dict[str, Any]]:
    """Each move of a line from ``state`` with the board after it (for the page to step through)."""
    position = state.clone()
    steps = []
    for text in moves:
        move = position.parse_move(text)
        written = position.notation(move)
        position.apply(move)
        frame = node_frame(position)
        steps.append({"move": written, "board": frame["board"], "code": frame["code"], "result": frame["result"]})
    return steps


# -- requests -------------------------------------------------------------------------------------


def _game_named(request: Request) -> str:
    names = sorted(puzzle_games())
    game = request.query_params.get("game", names[0])
    if game not in names:
        raise GameError("bad_game", f"give the game as ?game= (one of {', '.join(names)})")
    return game


def _guest_rating(value: Any) -> Rating | None:
    """A guest's rating as its browser keeps it (an object, or a number from a query), or None."""
    if value is None:
        return None
    try:
        if isinstance(value, str):
            return Rating(float(value)) if len(value) <= 20 else Rating(math.nan)
        if isinstance(value, dict) and set(value) <= {"rating", "deviation", "volatility", "games", "provisional"}:
            rating, deviation, volatility = (value.get(k, math.nan) for k in ("rating", "deviation", "volatility"))
            return Rating(rating, deviation, volatility, value.get("games", 0))
        raise ValueError(f"not a rating: {str(value)[:40]!r}")
    except (ValueError, TypeError) as error:
        raise GameError("bad_rating", f"rating: {error}") from None


def _puzzle_named(request: Request) -> Puzzle:
    found = catalogue().get(request.path_params["puzzle_id"])
    if found is None:
        raise GameError("unknown_puzzle", "no puzzle has this id")
    return found


async def _account(request: Request) -> Player | None:
    player = await current_player(request)
    return player if player is not None and player.kind == ACCOUNT else None


def _limit(request: Request) -> None:
    if not _service(request).tries.take(client_address(request)):
        raise RateLimited(1, "too many puzzle requests: wait a second")


def _refused(error: GameError) -> Response:
    if error.code == "unknown_puzzle":
        return endpoints.error_response(404, error.code, error.message)
    if error.code == "busy":
        return endpoints.error_response(503, error.code, error.message, {"Retry-After": "2"})
    return refused(error)


async def _db(request: Request, call: Any, *args: Any) -> Any:
    return await accounts_of(request).db(request, call, *args)


async def _send(request: Request, puzzle: Puzzle, person: Rating | None, daily: bool) -> Response:
    store = _service(request).store
    own = (await _db(request, store.puzzle_ratings, puzzle.game)).get(puzzle.id) or first_rating(puzzle)
    answer = await asyncio.to_thread(public_puzzle, puzzle, own, person, daily)
    return json_response(answer)


async def api_next(request: Request) -> Response:
    """``GET /api/puzzles/next?game=G`` (without it, the first game by name): a puzzle near the
    person's rating (an account's as stored, a guest's as ``&rating=``), not ``&after=`` (the one
    just played) nor one an account has ended."""
    try:
        game = _game_named(request)
        store = _service(request).store
        player = await _account(request)
        avoid = {request.query_params.get("after", "")}
        if player is not None:
            person = (await _db(request, store.ratings, [player.id], game)).get(player.id, Rating())
            avoid |= await _db(request, store.tried, player.id)
        else:
            person = _guest_rating(request.query_params.get("rating")) or Rating()
        ratings = await _db(request, store.puzzle_ratings, game)
        puzzle = choose(game, person.rating, ratings, avoid)
        return await _send(request, puzzle, person if player is not None else None, False)
    except GameError as error:
        return _refused(error)


async def api_daily(request: Request) -> Response:
    """``GET /api/puzzles/daily``: the puzzle of today's date (UTC), :func:`daily_puzzle`."""
    try:
        puzzle = daily_puzzle(datetime.now(UTC).date())
        player = await _account(request)
        person = None
        if player is not None:
            found = await _db(request, _service(request).store.ratings, [player.id], puzzle.game)
            person = found.get(player.id, Rating())
        return await _send(request, puzzle, person, True)
    except GameError as error:
        return _refused(error)


async def api_hint(request: Request) -> Response:
    """``POST /api/puzzles/{id}/hint``: the first winning move among at most three plausible ones
    (for an account, kept: it is not rated on this puzzle)."""
    try:
        check_forgery(request)
        _limit(request)
        puzzle = _puzzle_named(request)
        player = await _account(request)
        if player is not None:
            await _db(request, _service(request).store.note_hint, player.id, puzzle.id, datetime.now(UTC).timestamp())
        service = _service(request)
        moves = await service.run(service.oracles.hint, puzzle)
        return json_response({"id": puzzle.id, "moves": moves})
    except GameError as error:
        return _refused(error)


def _moves_of(data: dict[str, Any], puzzle: Puzzle) -> list[str]:
    moves = data.get("moves")
    if not isinstance(moves, list) or not moves or not all(isinstance(m, str) for m in moves):
        raise GameError("bad_attempt", "give your moves as 'moves': a list of move texts")
    if len(moves) > asked_moves(puzzle):
        raise GameError("bad_attempt", f"this puzzle asks for {asked_moves(puzzle)} moves, not {len(moves)}")
    if any(len(m) > MOST_MOVE_CHARS for m in moves):
        raise GameError("bad_attempt", f"a move is at most {MOST_MOVE_CHARS} characters")
    return moves


def judge(oracles: Oracles, puzzle: Puzzle, moves: Sequence[str]) -> dict[str, Any]:
    """The answer to the person's ``moves`` (each checked: legal, and every one but the last right)."""
    state = puzzle_state(puzzle)
    start = state.clone()
    for number, text in enumerate(moves):
        ply = 2 * number
        try:
            right = check_answer(puzzle, state, text, ply)
            move = state.parse_move(text)
        except MoveError as error:
            raise GameError("illegal_move", f"move {number + 1} ({text!r}): {error}") from None
        last = number == len(moves) - 1
        if not right:
            if not last:
                raise GameError("bad_attempt", f"move {number + 1} ({text!r}) was already wrong: the try is over")
            written = state.notation(move)
            state.apply(move)
            return {
                "result": "wrong",
                "move": written,
                "board": node_frame(state)["board"],
                "refutation": line_of(state, oracles.refute(puzzle, state)),
                "solution": line_of(start, puzzle.solution),
                "themes": list(puzzle.themes),
            }
        state.apply(state.parse_move(puzzle.solution[ply]))
        if ply + 1 >= len(puzzle.solution):
            return {"result": "solved", "solution": line_of(start, puzzle.solution), "themes": list(puzzle.themes)}
        if last:
            reply = line_of(state, [puzzle.solution[ply + 1]])[0]
            state.apply(state.parse_move(puzzle.solution[ply + 1]))
            return {"result": "right", "reply": reply, "frame": node_frame(state)}
        state.apply(state.parse_move(puzzle.solution[ply + 1]))
    raise AssertionError("unreachable: the last move returns")


async def api_attempt(request: Request) -> Response:
    """``POST /api/puzzles/{id}/attempt``: judge a try (:func:`judge`); at its end rate it."""
    try:
        check_forgery(request)
        _limit(request)
        data = await body_of(request, "moves", "rating", "hinted")  # a bad body is named whatever the id
        puzzle = _puzzle_named(request)
        moves = _moves_of(data, puzzle)
        hinted = data.get("hinted", False)
        if not isinstance(hinted, bool):
            raise GameError("bad_attempt", "hinted must be true or false")
        guest = _guest_rating(data.get("rating"))
        service = _service(request)
        answer = await service.run(judge, service.oracles, puzzle, moves)
        if answer["result"] != "right":
            answer["rating"] = await _rate(request, puzzle, answer["result"] == "solved", guest, hinted)
        return json_response({"id": puzzle.id, **answer})
    except GameError as error:
        return _refused(error)


async def _rate(request: Request, puzzle: Puzzle, solved: bool, guest: Rating | None, hinted: bool) -> Any:
    """The person's puzzle rating after an ended try, or None when it does not change."""
    service = _service(request)
    player = await _account(request)
    if player is not None:
        now = datetime.now(UTC).timestamp()
        after = await _db(request, service.store.end_try, player.id, puzzle, solved, not hinted, now)
        return None if after is None else rating_shown(after)
    if guest is None or hinted:
        return None
    own = (await _db(request, service.store.puzzle_ratings, puzzle.game)).get(puzzle.id) or first_rating(puzzle)
    return rating_shown(rate(guest, [Result(own, WIN if solved else LOSS)]))


ROUTES = [
    Route("/puzzles", endpoints.page("puzzles.html"), methods=["GET"]),
    Route("/api/puzzles/next", api_next, methods=["GET"]),
    Route("/api/puzzles/daily", api_daily, methods=["GET"]),
    Route("/api/puzzles/{puzzle_id}/hint", api_hint, methods=["POST"]),
    Route("/api/puzzles/{puzzle_id}/attempt", api_attempt, methods=["POST"]),
]

__all__ = ["ROUTES", "choose", "daily_puzzle", "first_rating", "install", "judge"]
