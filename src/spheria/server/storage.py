"""Where the server keeps its games: a small storage interface and its SQLite implementation.

The server stores what it needs to rebuild every game through the rules, and nothing it could
recompute: the game's :class:`~spheria.kernel.record.Record` (its name, options, seed, the
position it was set up from if it was, and its move entries as the game's own notation,
``state.history_notation()``) and its seats. A game is rebuilt by
:func:`spheria.kernel.record.replay` of its record. Invite tokens are never stored, only their
SHA-256 digests.

Schema (:mod:`spheria.server.migrations` makes every table, on SQLite or PostgreSQL)::

    games   (id PK, name, options JSON, seed, status 'active'|'finished', result JSON, created, updated,
             owner_hash, start: the SPN a game set up from a position started at, else NULL)
    seats   (game_id, seat, kind 'human'|'agent', agent spec, token_hash, claim_hash)  PK (game_id, seat)
    moves   (game_id, ply, entry, at)                                          PK (game_id, ply)
    pending (game_id, seat, entry, at)    secret simultaneous choices         PK (game_id, seat)
    faults  (game_id, ply, seat, code, at)  agent moves decided by the fallback PK (game_id, ply, seat)
    hints   (game_id, seat, ply, move, at)  each hint a player was given      PK (game_id, seat, ply)

``games.hints`` (0 or 1) says whether the game was created with hints (see :mod:`spheria.server.hints`).
``games.rated`` (0 or 1) says whether the game was offered as rated (set at creation; whether it
is rated after all is decided at its end: :mod:`spheria.server.profiles`). A file from before the
column kept its rated games in a table ``rated_games``: they are moved into the column and the table
dropped when the file is opened (migration 1).

A seat's invite token is exchanged, once, for a claim credential (``claim_hash``): the first
browser to open the link holds the seat. A move, the end of the game and the clearing of the
pending choices are one transaction (:meth:`SQLStorage.append_moves`), so the reveal that
completes a simultaneous node is stored whole or not at all.

>>> from spheria.kernel.registry import default_game_name
>>> store = SQLiteStorage(":memory:")
>>> seats = [SeatRecord(0, "agent", "random"), SeatRecord(1, "human")]
>>> store.create_game(StoredGame("g1", Record(default_game_name(), {}, 7, None, [], []), seats))
>>> store.append_moves("g1", 0, ["0a1", "0b1"])
>>> stored = store.load_game("g1")
>>> stored.record.moves, stored.record.players
(['0a1', '0b1'], ['random', 'human'])
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from spheria.kernel.record import Record, timestamp
from spheria.server.database import Database, PostgresDatabase, SQLiteDatabase, open_sqlite
from spheria.server.migrations import migrate

T = TypeVar("T")

HUMAN, AGENT = "human", "agent"
ACTIVE, FINISHED, ABORTED = "active", "finished", "aborted"


@dataclass
class SeatRecord:
    """One seat: a human (who holds an invite token) or an agent spec such as ``mcts:time=1``."""

    seat: int
    kind: str
    agent: str | None = None
    token_hash: str | None = None
    claim_hash: str | None = None


@dataclass
class StoredGame:
    """One game of the server: its record, which rebuilds it through its rules, and what only the
    server keeps (seats and their credentials, secret choices, the agents' faults, its status).

    The record's ``players`` are the seats' (an agent spec or ``"human"``); its ``result`` is the
    finished game's returns; the hints each seat was given are counted by the session.
    """

    id: str
    record: Record
    seats: list[SeatRecord]
    pending: dict[int, str] = field(default_factory=dict)
    faults: dict[tuple[int, int], str] = field(default_factory=dict)
    status: str = ACTIVE
    #: The finished game's result as shown (:func:`spheria.server.views.result_of`: returns, winners, text).
    result: dict[str, Any] | None = None
    created: float = 0.0
    updated: float = 0.0
    #: SHA-256 of the creator's credential, which may re-issue unclaimed invites.
    owner_hash: str | None = None
    #: Whether the game was created with hints, and the (seat, ply) of each hint given.
    hints: bool = False
    hints_given: list[tuple[int, int]] = field(default_factory=list)
    #: Whether the game was offered as rated (its end decides whether it is: :mod:`spheria.server.profiles`).
    rated: bool = False

    def finish(self, result: dict[str, Any]) -> None:
        """Mark the game finished with ``result`` (:func:`spheria.server.views.result_of`)."""
        self.status, self.result = FINISHED, result
        self.record.result = [float(r) for r in result["returns"]]


@dataclass
class GameSummary:
    """A line of the lobby: no tokens, no moves."""

    id: str
    name: str
    options: dict[str, Any]
    seats: list[SeatRecord]
    status: str
    plies: int
    result: dict[str, Any] | None
    created: float
    updated: float


class Storage(Protocol):
    """What the server needs from a store. Calls are synchronous; the server runs them off its event loop."""

    def create_game(self, game: StoredGame) -> None: ...

    def load_game(self, game_id: str) -> StoredGame | None: ...

    def append_moves(
        self, game_id: str, first_ply: int, entries: list[str], result: dict[str, Any] | None = None
    ) -> None:
        """Store ``entries`` as plies ``first_ply``, ``first_ply + 1`` …, clear the pending choices and,
        given a ``result``, finish the game — all in one transaction."""

    def set_pending(self, game_id: str, seat: int, entry: str) -> None: ...

    def set_token(self, game_id: str, seat: int, token_hash: str) -> bool:
        """A new invite for an unclaimed human seat; False if the seat is claimed (nothing changed)."""

    def claim_seat(self, game_id: str, seat: int, token_hash: str, claim_hash: str) -> bool:
        """Exchange the seat's invite for a credential, once; False if already claimed or re-issued."""

    def add_fault(self, game_id: str, ply: int, seat: int, code: str) -> None:
        """Note that the agent of ``seat`` at ``ply`` failed (``code``), so it is never run again there."""

    def add_hint(self, game_id: str, seat: int, ply: int, move: str) -> None:
        """Note that ``seat`` was given the hint ``move`` at ``ply`` (counted in the record)."""

    def abort(self, game_id: str) -> None:
        """End an unfinished game that nobody played for too long."""

    def list_games(self, status: str | None = None, limit: int = 100) -> list[GameSummary]: ...

    def active_game_ids(self) -> list[str]: ...

    def idle_game_ids(self, before: float) -> list[str]:
        """Unfinished games not changed since ``before`` (a ``time.time()``)."""

    def transaction(self, work: Callable[[Database], T]) -> T:
        """``work(db)`` in one transaction: all of it kept or none (the tables of the other modules:
        :mod:`spheria.server.accounts` …; :mod:`spheria.server.migrations` makes them all)."""

    def close(self) -> None: ...


class SQLStorage:
    """The :class:`Storage` methods, their SQL written once for both engines; an engine gives
    :meth:`transaction` (and may read in a lighter transaction: :meth:`read`)."""

    def transaction(self, work: Callable[[Database], T]) -> T:
        raise NotImplementedError

    def read(self, work: Callable[[Database], T]) -> T:
        """``work(db)`` that only reads, in one consistent view."""
        return self.transaction(work)

    def close(self) -> None:
        raise NotImplementedError

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        def work(db: Database) -> None:
            for sql, params in statements:
                db.execute(sql, params)

        self.transaction(work)

    def create_game(self, game: StoredGame) -> None:
        now = time.time()
        game.created = game.updated = now
        record = game.record
        record.created = timestamp(now)  # the record the game is rebuilt with says the same (to the second)
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (
                "INSERT INTO games (id, name, options, seed, status, result, created, updated, owner_hash, start,"
                " hints, rated) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)",
                (
                    game.id,
                    record.game,
                    json.dumps(record.options),
                    record.seed,
                    game.status,
                    now,
                    now,
                    game.owner_hash,
                    record.start,
                    int(game.hints),
                    int(game.rated),
                ),
            )
        ]
        for seat in game.seats:
            statements.append(
                (
                    "INSERT INTO seats (game_id, seat, kind, agent, token_hash) VALUES (?, ?, ?, ?, ?)",
                    (game.id, seat.seat, seat.kind, seat.agent, seat.token_hash),
                )
            )
        for ply, entry in enumerate(record.moves):
            sql = "INSERT INTO moves (game_id, ply, entry, at) VALUES (?, ?, ?, ?)"
            statements.append((sql, (game.id, ply, entry, now)))
        self._write(statements)

    def load_game(self, game_id: str) -> StoredGame | None:
        def work(db: Database) -> tuple[Any, ...] | None:
            row = db.execute(
                "SELECT id, name, options, seed, status, result, created, updated, owner_hash, start, hints,"
                " rated FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            seats = db.execute(
                "SELECT seat, kind, agent, token_hash, claim_hash FROM seats WHERE game_id = ? ORDER BY seat",
                (game_id,),
            ).fetchall()
            faults = db.execute("SELECT ply, seat, code FROM faults WHERE game_id = ?", (game_id,)).fetchall()
            moves = db.execute("SELECT entry FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()
            pending = db.execute("SELECT seat, entry FROM pending WHERE game_id = ?", (game_id,)).fetchall()
            hints = db.execute("SELECT seat, ply FROM hints WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()
            return row, seats, faults, moves, pending, hints

        found = self.read(work)
        if found is None:
            return None
        row, seats, faults, moves, pending, hints = found
        result = json.loads(row[5]) if row[5] else None
        record = Record(
            game=row[1],
            options=json.loads(row[2]),
            seed=row[3],
            start=row[9],
            players=[s[2] or HUMAN for s in seats],
            moves=[m[0] for m in moves],
            result=None if result is None else [float(r) for r in result["returns"]],
            created=timestamp(row[6]),
        )
        return StoredGame(
            id=row[0],
            record=record,
            seats=[SeatRecord(s[0], s[1], s[2], s[3], s[4]) for s in seats],
            pending={int(p[0]): p[1] for p in pending},
            faults={(int(f[0]), int(f[1])): f[2] for f in faults},
            status=row[4],
            result=result,
            created=row[6],
            updated=row[7],
            owner_hash=row[8],
            hints=bool(row[10]),
            hints_given=[(int(h[0]), int(h[1])) for h in hints],
            rated=bool(row[11]),
        )

    def append_moves(
        self, game_id: str, first_ply: int, entries: list[str], result: dict[str, Any] | None = None
    ) -> None:
        now = time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("INSERT INTO moves (game_id, ply, entry, at) VALUES (?, ?, ?, ?)", (game_id, first_ply + i, entry, now))
            for i, entry in enumerate(entries)
        ]
        statements.append(("DELETE FROM pending WHERE game_id = ?", (game_id,)))
        statements.append(("UPDATE games SET updated = ? WHERE id = ?", (now, game_id)))
        if result is not None:
            statements.append(
                ("UPDATE games SET status = ?, result = ? WHERE id = ?", (FINISHED, json.dumps(result), game_id))
            )
        self._write(statements)

    def set_token(self, game_id: str, seat: int, token_hash: str) -> bool:
        sql = "UPDATE seats SET token_hash = ? WHERE game_id = ? AND seat = ? AND kind = ? AND claim_hash IS NULL"
        return self._changed(sql, (token_hash, game_id, seat, HUMAN))

    def claim_seat(self, game_id: str, seat: int, token_hash: str, claim_hash: str) -> bool:
        sql = "UPDATE seats SET claim_hash = ? WHERE game_id = ? AND seat = ? AND token_hash = ? AND claim_hash IS NULL"
        return self._changed(sql, (claim_hash, game_id, seat, token_hash))

    def _changed(self, sql: str, params: tuple[Any, ...]) -> bool:
        return self.transaction(lambda db: db.execute(sql, params).rowcount == 1)

    def add_fault(self, game_id: str, ply: int, seat: int, code: str) -> None:
        sql = (
            "INSERT INTO faults (game_id, ply, seat, code, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id, ply, seat) DO UPDATE SET code = excluded.code, at = excluded.at"
        )
        self._write([(sql, (game_id, ply, seat, code, time.time()))])

    def add_hint(self, game_id: str, seat: int, ply: int, move: str) -> None:
        sql = (
            "INSERT INTO hints (game_id, seat, ply, move, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id, seat, ply) DO UPDATE SET move = excluded.move, at = excluded.at"
        )
        self._write([(sql, (game_id, seat, ply, move, time.time()))])

    def abort(self, game_id: str) -> None:
        sql = "UPDATE games SET status = ?, updated = ? WHERE id = ? AND status = ?"
        self._write([(sql, (ABORTED, time.time(), game_id, ACTIVE))])

    def idle_game_ids(self, before: float) -> list[str]:
        sql = "SELECT id FROM games WHERE status = ? AND updated < ?"
        return [r[0] for r in self.read(lambda db: db.execute(sql, (ACTIVE, before)).fetchall())]

    def set_pending(self, game_id: str, seat: int, entry: str) -> None:
        now = time.time()
        self._write(
            [
                (
                    "INSERT INTO pending (game_id, seat, entry, at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (game_id, seat) DO UPDATE SET entry = excluded.entry, at = excluded.at",
                    (game_id, seat, entry, now),
                ),
                ("UPDATE games SET updated = ? WHERE id = ?", (now, game_id)),
            ]
        )

    def list_games(self, status: str | None = None, limit: int = 100) -> list[GameSummary]:
        where, params = ("WHERE status = ?", (status,)) if status else ("", ())

        def work(db: Database) -> list[GameSummary]:
            rows = db.execute(
                "SELECT id, name, options, status, result, created, updated,"
                " (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id)"
                f" FROM games {where} ORDER BY updated DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
            summaries = []
            for row in rows:
                seats = db.execute(
                    "SELECT seat, kind, agent FROM seats WHERE game_id = ? ORDER BY seat", (row[0],)
                ).fetchall()
                summaries.append(
                    GameSummary(
                        id=row[0],
                        name=row[1],
                        options=json.loads(row[2]),
                        seats=[SeatRecord(s[0], s[1], s[2]) for s in seats],
                        status=row[3],
                        result=json.loads(row[4]) if row[4] else None,
                        created=row[5],
                        updated=row[6],
                        plies=int(row[7]),
                    )
                )
            return summaries

        return self.read(work)

    def active_game_ids(self) -> list[str]:
        sql = "SELECT id FROM games WHERE status = ?"
        return [r[0] for r in self.read(lambda db: db.execute(sql, (ACTIVE,)).fetchall())]


class SQLiteStorage(SQLStorage):
    """The embedded default store: one SQLite file (or ``:memory:``), WAL journal, one writer
    (``BEGIN IMMEDIATE`` under a lock); migrated to the newest schema when opened."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection = open_sqlite(path)
        self._db = SQLiteDatabase(self._connection)
        try:
            migrate(self.transaction)
        except BaseException:
            self._connection.close()
            raise

    def _in(self, begin: str, work: Callable[[Database], T]) -> T:
        with self._lock:
            self._connection.execute(begin)
            try:
                result = work(self._db)
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return result

    def transaction(self, work: Callable[[Database], T]) -> T:
        """``work(db)`` in one transaction under the writer's lock: all of it is kept or none."""
        return self._in("BEGIN IMMEDIATE", work)

    def read(self, work: Callable[[Database], T]) -> T:
        return self._in("BEGIN", work)

    def close(self) -> None:
        with self._lock:
            self._connection.close()


#: The most connections a :class:`PostgresStorage` opens (the server's storage threads share them).
POSTGRES_CONNECTIONS = 8


class PostgresStorage(SQLStorage):
    """The store on a PostgreSQL server (psycopg 3): a small pool of connections, one transaction
    per call (``READ COMMITTED``; a write that needs more takes row locks or a unique key); migrated
    to the newest schema when opened. A connection that broke (the server went away) is dropped
    and the next call opens a new one."""

    def __init__(self, url: str, connections: int = POSTGRES_CONNECTIONS) -> None:
        import psycopg

        self.url = url
        self._psycopg = psycopg
        self._idle: list[Any] = []
        self._idle_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(connections)
        self._closed = False
        try:
            migrate(self.transaction)
        except BaseException:
            self.close()
            raise

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        with self._slots:
            with self._idle_lock:
                if self._closed:
                    raise RuntimeError("the store is closed")
                connection = self._idle.pop() if self._idle else None
            if connection is None or connection.closed:
                connection = self._psycopg.connect(self.url, autocommit=True, connect_timeout=10)
            try:
                yield connection
            finally:
                with self._idle_lock:
                    if connection.broken or connection.closed or self._closed:
                        connection.close()
                    else:
                        self._idle.append(connection)

    def transaction(self, work: Callable[[Database], T]) -> T:
        """``work(db)`` in one transaction on a pooled connection: all of it is kept or none."""
        with self._connection() as connection, connection.transaction():
            return work(PostgresDatabase(connection))

    def close(self) -> None:
        with self._idle_lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_storage(target: str) -> SQLStorage:
    """The store ``target`` names: a ``postgresql://`` URL, else a SQLite file (``:memory:`` too)."""
    if target.startswith(POSTGRES_SCHEMES):
        return PostgresStorage(target)
    return SQLiteStorage(target)


def shown_target(target: str) -> str:
    """``target`` fit to print: a URL's password hidden.

    >>> shown_target("postgresql://spheria:secret@db.example:5432/spheria")
    'postgresql://spheria:***@db.example:5432/spheria'
    >>> shown_target("games.sqlite3")
    'games.sqlite3'
    """
    if not target.startswith(POSTGRES_SCHEMES):
        return target
    scheme, rest = target.split("://", 1)
    credentials, at, place = rest.rpartition("@")
    if not at or ":" not in credentials:
        return target
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{place}"
