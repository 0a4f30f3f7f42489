"""Where the server keeps its games: a small storage interface and its SQLite implementation.

The server stores what it needs to rebuild every game through the rules, and nothing it could
recompute: the game's name, options and seed, its seats, and its move entries as the game's own
notation (``state.history_notation()``). A game is rebuilt by replaying those entries with
``state.apply_notation``. Invite tokens are never stored, only their SHA-256 digests.

Schema (SQLite)::

    games   (id PK, name, options JSON, seed, status 'active'|'finished', result JSON, created, updated)
    seats   (game_id, seat, kind 'human'|'agent', agent spec, token_hash)      PK (game_id, seat)
    moves   (game_id, ply, entry, at)                                          PK (game_id, ply)
    pending (game_id, seat, entry, at)    secret simultaneous choices         PK (game_id, seat)

>>> store = SQLiteStorage(":memory:")
>>> store.create_game(GameRecord("g1", "special-cake", {"variant": "mint"}, 7, [SeatRecord(0, "agent", "random")]))
>>> store.append_moves("g1", 0, ["0a1", "0b1"])
>>> store.load_game("g1").moves
['0a1', '0b1']
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

HUMAN, AGENT = "human", "agent"
ACTIVE, FINISHED = "active", "finished"


@dataclass
class SeatRecord:
    """One seat: a human (who holds an invite token) or an agent spec such as ``mcts:time=1``."""

    seat: int
    kind: str
    agent: str | None = None
    token_hash: str | None = None


@dataclass
class GameRecord:
    """Everything needed to rebuild one game through its rules."""

    id: str
    name: str
    options: dict[str, Any]
    seed: int | None
    seats: list[SeatRecord]
    moves: list[str] = field(default_factory=list)
    pending: dict[int, str] = field(default_factory=dict)
    status: str = ACTIVE
    result: dict[str, Any] | None = None
    created: float = 0.0
    updated: float = 0.0


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

    def create_game(self, record: GameRecord) -> None: ...

    def load_game(self, game_id: str) -> GameRecord | None: ...

    def append_moves(self, game_id: str, first_ply: int, entries: list[str]) -> None:
        """Store ``entries`` as plies ``first_ply``, ``first_ply + 1`` …; clears pending choices."""

    def set_pending(self, game_id: str, seat: int, entry: str) -> None: ...

    def finish(self, game_id: str, result: dict[str, Any]) -> None: ...

    def list_games(self, status: str | None = None, limit: int = 100) -> list[GameSummary]: ...

    def active_game_ids(self) -> list[str]: ...

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
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    agent TEXT,
    token_hash TEXT,
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

    def create_game(self, record: GameRecord) -> None:
        now = time.time()
        record.created = record.updated = now
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (
                "INSERT INTO games (id, name, options, seed, status, result, created, updated)"
                " VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
                (record.id, record.name, json.dumps(record.options), record.seed, record.status, now, now),
            )
        ]
        for seat in record.seats:
            statements.append(
                (
                    "INSERT INTO seats (game_id, seat, kind, agent, token_hash) VALUES (?, ?, ?, ?, ?)",
                    (record.id, seat.seat, seat.kind, seat.agent, seat.token_hash),
                )
            )
        for ply, entry in enumerate(record.moves):
            sql = "INSERT INTO moves (game_id, ply, entry, at) VALUES (?, ?, ?, ?)"
            statements.append((sql, (record.id, ply, entry, now)))
        self._write(statements)

    def load_game(self, game_id: str) -> GameRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, name, options, seed, status, result, created, updated FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                return None
            seats = self._db.execute(
                "SELECT seat, kind, agent, token_hash FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
            ).fetchall()
            moves = self._db.execute("SELECT entry FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()
            pending = self._db.execute("SELECT seat, entry FROM pending WHERE game_id = ?", (game_id,)).fetchall()
        return GameRecord(
            id=row[0],
            name=row[1],
            options=json.loads(row[2]),
            seed=row[3],
            seats=[SeatRecord(s[0], s[1], s[2], s[3]) for s in seats],
            moves=[m[0] for m in moves],
            pending={int(p[0]): p[1] for p in pending},
            status=row[4],
            result=json.loads(row[5]) if row[5] else None,
            created=row[6],
            updated=row[7],
        )

    def append_moves(self, game_id: str, first_ply: int, entries: list[str]) -> None:
        now = time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("INSERT INTO moves (game_id, ply, entry, at) VALUES (?, ?, ?, ?)", (game_id, first_ply + i, entry, now))
            for i, entry in enumerate(entries)
        ]
        statements.append(("DELETE FROM pending WHERE game_id = ?", (game_id,)))
        statements.append(("UPDATE games SET updated = ? WHERE id = ?", (now, game_id)))
        self._write(statements)

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

    def finish(self, game_id: str, result: dict[str, Any]) -> None:
        self._write(
            [
                (
                    "UPDATE games SET status = ?, result = ?, updated = ? WHERE id = ?",
                    (FINISHED, json.dumps(result), time.time(), game_id),
                )
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
