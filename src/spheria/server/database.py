"""One SQL for two engines: what a store's transaction may call, on SQLite or PostgreSQL.

The server's tables are reached through :meth:`spheria.server.storage.Storage.transaction`, whose
``work(db)`` gets a :class:`Database`: ``db.execute(sql, params)`` with ``?`` placeholders, the
same text on both engines (``INSERT … ON CONFLICT … DO NOTHING`` / ``DO UPDATE``, ``RETURNING id``;
SQLite has had both since 3.35). A broken constraint is :class:`IntegrityError` whichever engine
raised it.

>>> import sqlite3
>>> db = SQLiteDatabase(sqlite3.connect(":memory:", isolation_level=None))
>>> _ = db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER)")
>>> db.execute("INSERT INTO t (k, n) VALUES (?, ?) RETURNING n", ("a", 1)).fetchone()
(1,)
>>> db.execute("INSERT INTO t (k, n) VALUES (?, ?) ON CONFLICT DO NOTHING", ("a", 2)).rowcount
0
>>> try:
...     db.execute("INSERT INTO t (k, n) VALUES (?, ?)", ("a", 3))
... except IntegrityError:
...     print("refused")
refused
>>> postgres_sql("SELECT k FROM t WHERE k LIKE 'a%' AND n = ?")
"SELECT k FROM t WHERE k LIKE 'a%%' AND n = %s"
"""

from __future__ import annotations

import functools
import sqlite3
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

SQLITE, POSTGRESQL = "sqlite", "postgresql"


class IntegrityError(Exception):
    """A statement broke a constraint (a unique name, a key); the transaction is rolled back."""


class Cursor(Protocol):
    """What a statement gives back: its rows (tuples) and how many rows it changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    """One open transaction of a store: SQL with ``?`` placeholders, the same text on both engines."""

    #: :data:`SQLITE` or :data:`POSTGRESQL` (only the migrations ask: their DDL differs a little).
    engine: str

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class SQLiteDatabase:
    """A :class:`Database` on a ``sqlite3`` connection (the caller holds the transaction)."""

    engine = SQLITE

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        try:
            return self.connection.execute(sql, tuple(params))
        except sqlite3.IntegrityError as error:
            raise IntegrityError(str(error)) from error

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self.connection.executemany(sql, [tuple(row) for row in rows])
        except sqlite3.IntegrityError as error:
            raise IntegrityError(str(error)) from error


def open_sqlite(path: str) -> sqlite3.Connection:
    """A connection to the SQLite file ``path`` (or ``:memory:``): autocommit (transactions are
    explicit, ``BEGIN IMMEDIATE``), foreign keys on, WAL journal for a file."""
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    if path != ":memory:":
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
    return connection


@functools.lru_cache(maxsize=1024)
def postgres_sql(sql: str) -> str:
    """``sql`` with its ``?`` placeholders as psycopg's ``%s`` (and a literal ``%`` doubled); the
    text of each statement is rewritten once. A ``?`` inside a quoted literal stays."""
    out: list[str] = []
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
            out.append(char)
        elif char == "%":
            out.append("%%")
        elif char == "?" and not quoted:
            out.append("%s")
        else:
            out.append(char)
    return "".join(out)


class PostgresDatabase:
    """A :class:`Database` on a psycopg 3 connection (the caller holds the transaction)."""

    engine = POSTGRESQL

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        import psycopg

        try:
            cursor: Cursor = self.connection.execute(postgres_sql(sql), tuple(params))
        except psycopg.errors.IntegrityError as error:
            raise IntegrityError(str(error)) from error
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        import psycopg

        try:
            with self.connection.cursor() as cursor:
                cursor.executemany(postgres_sql(sql), [tuple(row) for row in rows])
        except psycopg.errors.IntegrityError as error:
            raise IntegrityError(str(error)) from error


# -- for the operator's commands (spheria db: spheria.server.dbcommand) --------------------------------------


def reading_sqlite(path: str) -> SQLiteDatabase:
    """A :class:`Database` on the existing SQLite file ``path`` that only reads it: opened read-only,
    journal mode left as it is (close it with ``.connection.close()``)."""
    uri = "file:" + urllib.parse.quote(str(Path(path).resolve())) + "?mode=ro"
    return SQLiteDatabase(sqlite3.connect(uri, uri=True, check_same_thread=False))


def engine_errors() -> tuple[type[Exception], ...]:
    """What either engine raises for a database it cannot open, reach or write (besides
    :class:`IntegrityError`): ``sqlite3.Error``, and ``psycopg.Error`` where psycopg is installed."""
    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)
