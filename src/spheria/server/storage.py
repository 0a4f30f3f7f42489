"""Where the server keeps its games: a small storage interface and its SQLite implementation.

The server stores what it needs to rebuild every game through the rules, and nothing it could
recompute: the game's :class:`~spheria.kernel.record.Record` (its name, options, seed, the
position it was set up from if it was, and its move entries as the game's own notation,
``state.history_notation()``) and its seats. A game is rebuilt by
:func:`spheria.kernel.record.replay` of its record. Invite tokens are never stored, only their
SHA-256 digests.

Schema (SQLite)::

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
dropped when the file is opened.

A seat's invite token is exchanged, once, for a claim credential (``claim_hash``): the first
browser to open the link holds the seat. A move, the end of the game and the clearing of the
pending choices are one transaction (:meth:`SQLiteStorage.append_moves`), so the reveal that
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

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from spheria.kernel.record import Record, timestamp

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

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(db)`` in one transaction: all of it kept or none (the accounts' tables)."""

    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER,
    status TEXT NOT NULL DEFAULT 'active',
    result TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    owner_hash TEXT,
    start TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    agent TEXT,
    token_hash TEXT,
    claim_hash TEXT,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    entry TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS pending (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    entry TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS faults (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    code TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, ply, seat)
);
CREATE TABLE IF NOT EXISTS hints (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    move TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seat, ply)
);
CREATE INDEX IF NOT EXISTS games_by_status ON games(status, updated);
"""


class SQLiteStorage:
    """The embedded default store: one SQLite file (or ``:memory:``), WAL journal, one writer."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA foreign_keys = ON")
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(seats)")}
        if "claim_hash" not in columns:  # a file written before seats were claimed
            self._db.execute("ALTER TABLE seats ADD COLUMN claim_hash TEXT")
            self._db.execute("ALTER TABLE games ADD COLUMN owner_hash TEXT")
        if "start" not in {row[1] for row in self._db.execute("PRAGMA table_info(games)")}:
            self._db.execute("ALTER TABLE games ADD COLUMN start TEXT")  # a file from before set-up starts
        if "hints" not in {row[1] for row in self._db.execute("PRAGMA table_info(games)")}:  # before hints
            self._db.execute("ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0")
        self._migrate_rated()

    def _migrate_rated(self) -> None:
        """Give a file from before ``games.rated`` the column, its rated games moved from the table
        ``rated_games`` (dropped), in one transaction."""
        rated_games = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rated_games'"
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if "rated" not in {row[1] for row in self._db.execute("PRAGMA table_info(games)")}:
                self._db.execute("ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0")
            if self._db.execute(rated_games).fetchone() is not None:
                self._db.execute("UPDATE games SET rated = 1 WHERE id IN (SELECT game_id FROM rated_games)")
                self._db.execute("DROP TABLE rated_games")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create_game(self, game: StoredGame) -> None:
        now = time.time()
        game.created = game.updated = now
        record = game.record
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
        with self._lock:
            row = self._db.execute(
                "SELECT id, name, options, seed, status, result, created, updated, owner_hash, start, hints,"
                " rated FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            seats = self._db.execute(
                "SELECT seat, kind, agent, token_hash, claim_hash FROM seats WHERE game_id = ? ORDER BY seat",
                (game_id,),
            ).fetchall()
            faults = self._db.execute("SELECT ply, seat, code FROM faults WHERE game_id = ?", (game_id,)).fetchall()
            moves = self._db.execute("SELECT entry FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()
            pending = self._db.execute("SELECT seat, entry FROM pending WHERE game_id = ?", (game_id,)).fetchall()
            sql = "SELECT seat, ply FROM hints WHERE game_id = ? ORDER BY ply"
            hints = self._db.execute(sql, (game_id,)).fetchall()
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

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(db)`` in one transaction under the writer's lock: all of it is kept or none (the tables
        of other modules: :mod:`spheria.server.accounts`)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return result

    def _changed(self, sql: str, params: tuple[Any, ...]) -> bool:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                changed = self._db.execute(sql, params).rowcount == 1
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return changed

    def add_fault(self, game_id: str, ply: int, seat: int, code: str) -> None:
        sql = "INSERT OR REPLACE INTO faults (game_id, ply, seat, code, at) VALUES (?, ?, ?, ?, ?)"
        self._write([(sql, (game_id, ply, seat, code, time.time()))])

    def add_hint(self, game_id: str, seat: int, ply: int, move: str) -> None:
        sql = "INSERT OR REPLACE INTO hints (game_id, seat, ply, move, at) VALUES (?, ?, ?, ?, ?)"
        self._write([(sql, (game_id, seat, ply, move, time.time()))])

    def abort(self, game_id: str) -> None:
        sql = "UPDATE games SET status = ?, updated = ? WHERE id = ? AND status = ?"
        self._write([(sql, (ABORTED, time.time(), game_id, ACTIVE))])

    def idle_game_ids(self, before: float) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT id FROM games WHERE status = ? AND updated < ?", (ACTIVE, before))
            return [r[0] for r in rows.fetchall()]

    def set_pending(self, game_id: str, seat: int, entry: str) -> None:
        now = time.time()
        self._write(
            [
                (
                    "INSERT OR REPLACE INTO pending (game_id, seat, entry, at) VALUES (?, ?, ?, ?)",
                    (game_id, seat, entry, now),
                ),
                ("UPDATE games SET updated = ? WHERE id = ?", (now, game_id)),
            ]
        )

    def list_games(self, status: str | None = None, limit: int = 100) -> list[GameSummary]:
        where, params = ("WHERE status = ?", (status,)) if status else ("", ())
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, options, status, result, created, updated,"
                " (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id)"
                f" FROM games {where} ORDER BY updated DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
            summaries = []
            for row in rows:
                seats = self._db.execute(
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
                        plies=row[7],
                    )
                )
        return summaries

    def active_game_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT id FROM games WHERE status = ?", (ACTIVE,)).fetchall()]

    def close(self) -> None:
        with self._lock:
            self._db.close()
