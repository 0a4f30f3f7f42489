"""``spheria db``: the operator's database commands, upgrading a store and moving it to another.

``spheria db migrate --db TARGET`` applies the migrations the database lacks (as ``spheria serve``
does when it starts) and says which; ``--list`` shows every migration, applied or pending, and
changes nothing. ``spheria db copy --from SRC --to DST`` copies everything one store holds into an
empty other one (typically a SQLite file into a new PostgreSQL database): both are migrated first,
then every table the migrations made (:func:`spheria.server.migrations.stored_tables`, parents
before the tables whose foreign keys name them) is copied in batches, in one transaction on DST,
so DST gets all of it or nothing; counter columns keep their values and DST's counters move past
them. A TARGET is a SQLite file's path or a ``postgresql://`` URL (docs/server.md, "Storage").

Importing this module does not import the server's dependencies (as :mod:`spheria.server.command`).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spheria.i18n import N_, N_plural, ngettext
from spheria.i18n import gettext as _

if TYPE_CHECKING:
    from spheria.server.database import Database
    from spheria.server.migrations import Applied, Table
    from spheria.server.storage import SQLStorage

#: Rows read and written at a time: a copy holds no more of a table in memory than this.
BATCH_ROWS = 1000
#: The exit status of a refusal (nothing was changed) and of a copy that failed midway (nothing kept).
REFUSED, FAILED = 2, 1

DB = N_("the database: upgrade it, or copy it into another (a SQLite file into PostgreSQL)")
DB_DESCRIPTION = N_(
    "The operator's database commands. A database is a SQLite file's path or a postgresql:// URL; "
    "see docs/server.md, 'Storage'."
)
MIGRATE = N_("apply the migrations the database lacks (or list them)")
MIGRATE_DESCRIPTION = N_(
    "Bring the database to this Spheria's schema, as spheria serve does when it starts, "
    "and say which migrations were applied."
)
MIGRATE_EXAMPLE = N_("example: spheria db migrate --db spheria.sqlite3 --list")
COPY = N_("copy everything one database holds into an empty other one")
COPY_DESCRIPTION = N_(
    "Copy every table of one database into an empty other one, all or nothing: "
    "stop the server first, then start it on the new database."
)
COPY_EXAMPLE = N_("example: spheria db copy --from spheria.sqlite3 --to postgresql://spheria@127.0.0.1/spheria")
HELP: dict[str, str] = {
    "--db": N_("the database: a SQLite file or a postgresql:// URL (default %(default)s)"),
    "--list": N_("list every migration, applied or pending, and change nothing"),
    "--from": N_("the database to copy from: a SQLite file or a postgresql:// URL"),
    "--to": N_("the empty database to copy into: a SQLite file or a postgresql:// URL"),
}

APPLIED_NOW = N_("applied migration {version}: {name}")
UP_TO_DATE = N_("{target} is up to date (schema version {version})")
LISTED_APPLIED = N_("{version}  applied {when}  {name}")
LISTED_PENDING = N_("{version}  pending  {name}")
LISTED_UNKNOWN = N_("{version}  applied {when}  {name} (unknown to this Spheria: written by a newer one)")
NOT_THERE_YET = N_("{target} does not exist yet: every migration is pending")
TABLE_COPIED = N_plural("{table}: {n} row", "{table}: {n} rows")
COPIED = N_plural(
    "copied {n} row from {source} to {target} in {seconds} s",
    "copied {n} rows from {source} to {target} in {seconds} s",
)
UNKNOWN_SCHEME = N_("{target}: unknown scheme {scheme}://; give a SQLite file's path or a postgresql:// URL")
SAME_DATABASE = N_("--from and --to name the same database ({target}): copy into another, empty one")
NO_SOURCE = N_("{target}: no such SQLite file to copy from")
NOT_EMPTY = N_("{target} is not empty: it holds {found}; copy into an empty database (nothing was copied)")
TABLES_DIFFER = N_(
    "the tables of {source} and {target} differ ({detail}): migrate both with this Spheria (nothing was copied)"
)
COPY_FAILED = N_("the copy stopped and nothing was kept in {target}: {error}")
CANNOT_OPEN = N_("cannot open {target}: {error}")
NEEDS_PSYCOPG = N_("a postgresql:// database needs psycopg: pip install 'spheria[postgres]'")


class Refused(Exception):
    """The command will not do what was asked (the message says why); nothing was changed."""


class Failed(Exception):
    """The command started and could not finish (the message says why); nothing of it was kept."""


# -- targets -------------------------------------------------------------------------------------------------


def is_postgres(target: str) -> bool:
    from spheria.server.storage import POSTGRES_SCHEMES

    return target.startswith(POSTGRES_SCHEMES)


def check_target(target: str) -> None:
    """Refuse a target that is neither a SQLite path nor a PostgreSQL URL (``mysql://…``: any other
    ``scheme://``)."""
    if "://" in target and not is_postgres(target):
        raise Refused(_(UNKNOWN_SCHEME).format(target=_shown(target), scheme=target.split("://", 1)[0]))


def _shown(target: str) -> str:
    from spheria.server.storage import shown_target

    return shown_target(target)


def same_database(first: str, second: str) -> bool:
    """Whether two targets name one database: the same file, or the same server and database name."""
    if is_postgres(first) != is_postgres(second):
        return False
    if not is_postgres(first):
        a, b = Path(first), Path(second)
        if a.exists() and b.exists():
            return a.samefile(b)
        return a.resolve() == b.resolve()
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise Failed(_(NEEDS_PSYCOPG)) from None

    def place(url: str) -> tuple[str, str, str]:
        info = conninfo_to_dict(url)
        host, port = str(info.get("host") or "localhost"), str(info.get("port") or "5432")
        return host, port, str(info.get("dbname") or info.get("user") or "")

    try:
        return place(first) == place(second)
    except _open_errors() as error:  # a URL psycopg cannot read
        raise Failed(_(CANNOT_OPEN).format(target=_shown(second), error=_problem(error))) from None


def _problem(error: BaseException) -> str:
    """An engine's error as one line (psycopg's may run over several)."""
    return " ".join(str(error).split()) or type(error).__name__


def _open_errors() -> tuple[type[BaseException], ...]:
    from spheria.server.database import engine_errors

    return (*engine_errors(), OSError)


def open_store(target: str) -> SQLStorage:
    """The store of ``target``, migrated to the newest version. :class:`Refused` for a database newer
    than the code, :class:`Failed` if it cannot be reached."""
    from spheria.server.migrations import DatabaseTooNew
    from spheria.server.storage import open_storage

    check_target(target)
    try:
        return open_storage(target)  # a store that fails to open closes itself
    except DatabaseTooNew as error:
        raise Refused(f"{_shown(target)}: {error}") from None
    except ImportError:
        raise Failed(_(NEEDS_PSYCOPG)) from None
    except _open_errors() as error:
        raise Failed(_(CANNOT_OPEN).format(target=_shown(target), error=_problem(error))) from None


def read_ledger(target: str) -> list[Applied] | None:
    """The migrations ``target`` records, read without changing anything; None if there is no such
    SQLite file yet."""
    from spheria.server.database import PostgresDatabase, reading_sqlite
    from spheria.server.migrations import ledger

    check_target(target)
    try:
        if is_postgres(target):
            import psycopg

            with psycopg.connect(target, autocommit=True, connect_timeout=10) as connection:
                return ledger(PostgresDatabase(connection))
        if not Path(target).is_file():  # (":memory:" too: a new database each time it is opened)
            return None
        reader = reading_sqlite(target)
        try:
            return ledger(reader)
        finally:
            reader.connection.close()
    except ImportError:
        raise Failed(_(NEEDS_PSYCOPG)) from None
    except _open_errors() as error:
        raise Failed(_(CANNOT_OPEN).format(target=_shown(target), error=_problem(error))) from None


# -- spheria db migrate ------------------------------------------------------------------------------------


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def list_migrations(target: str, say: Callable[[str], None] = print) -> None:
    """Every migration this Spheria knows, applied (when) or pending, and any the database records
    that it does not know; nothing is changed."""
    from spheria.server.migrations import MIGRATIONS

    recorded = read_ledger(target)
    if recorded is None:
        say(_(NOT_THERE_YET).format(target=_shown(target)))
    applied = {row.version: row for row in recorded or []}
    known = {migration.version for migration in MIGRATIONS}
    for migration in sorted(MIGRATIONS, key=lambda m: m.version):
        row = applied.get(migration.version)
        if row is None:
            say(_(LISTED_PENDING).format(version=migration.version, name=migration.name))
        else:
            say(_(LISTED_APPLIED).format(version=row.version, when=_when(row.applied), name=row.name))
    for row in recorded or []:
        if row.version not in known:
            say(_(LISTED_UNKNOWN).format(version=row.version, when=_when(row.applied), name=row.name))


def apply_migrations(target: str, say: Callable[[str], None] = print) -> list[int]:
    """Migrate ``target`` to the newest version; say each migration applied now (or that it was up to
    date) and return their versions. :class:`Refused` for a database newer than this code."""
    from spheria.server.migrations import ledger

    before = {row.version for row in read_ledger(target) or []}
    store = open_store(target)
    try:
        after = store.read(ledger)
    finally:
        store.close()
    now = [row for row in after if row.version not in before]
    for row in now:
        say(_(APPLIED_NOW).format(version=row.version, name=row.name))
    if not now:
        say(_(UP_TO_DATE).format(target=_shown(target), version=max((row.version for row in after), default=0)))
    return [row.version for row in now]


# -- spheria db copy ---------------------------------------------------------------------------------------


def _batches(db: Database, table: Table) -> Iterator[list[tuple[Any, ...]]]:
    """The rows of ``table`` in ``db``, :data:`BATCH_ROWS` at a time (never the whole table at once:
    SQLite's cursor steps through the file; PostgreSQL's is a server-side cursor)."""
    columns = ", ".join(f'"{column}"' for column in table.columns)
    select = f'SELECT {columns} FROM "{table.name}"'
    if db.engine == "postgresql":
        db.execute(f"DECLARE spheria_copy NO SCROLL CURSOR FOR {select}")
        while rows := db.execute(f"FETCH FORWARD {BATCH_ROWS} FROM spheria_copy").fetchall():
            yield [tuple(row) for row in rows]
        db.execute("CLOSE spheria_copy")
        return
    cursor = iter(db.execute(select))
    while rows := list(itertools.islice(cursor, BATCH_ROWS)):
        yield [tuple(row) for row in rows]


def _held(db: Database, tables: list[Table]) -> list[tuple[str, int]]:
    counts = [(table.name, int(db.execute(f'SELECT COUNT(*) FROM "{table.name}"').fetchone()[0])) for table in tables]
    return [(name, count) for name, count in counts if count]


def _differences(source: list[Table], target: list[Table]) -> str:
    theirs = {table.name: set(table.columns) for table in target}
    ours = {table.name: set(table.columns) for table in source}
    found = [f"-{name}" for name in sorted(ours.keys() - theirs.keys())]
    found += [f"+{name}" for name in sorted(theirs.keys() - ours.keys())]
    for name in sorted(ours.keys() & theirs.keys()):
        if ours[name] != theirs[name]:
            found.append(f"{name}: {', '.join(sorted(ours[name] ^ theirs[name]))}")
    return "; ".join(found)


def _move_counter(db: Database, table: Table) -> None:
    """Set DST's counter of ``table`` past the largest value copied (SQLite's AUTOINCREMENT follows by itself)."""
    if db.engine != "postgresql" or table.counter is None:
        return
    largest = db.execute(f'SELECT MAX("{table.counter}") FROM "{table.name}"').fetchone()[0]
    if largest is not None:
        db.execute("SELECT setval(pg_get_serial_sequence(?, ?), ?)", (f'"{table.name}"', table.counter, largest))


def copy_database(source: str, target: str, say: Callable[[str], None] = print) -> list[tuple[str, int]]:
    """Copy every table of ``source`` into the empty ``target``, both migrated first to the newest
    version; all of it in one transaction on ``target``. Says and returns the
    rows copied per table. :class:`Refused` (nothing changed) or :class:`Failed` (nothing kept)."""
    check_target(source)
    check_target(target)
    if same_database(source, target):
        raise Refused(_(SAME_DATABASE).format(target=_shown(target)))
    if not is_postgres(source) and not Path(source).is_file():
        raise Refused(_(NO_SOURCE).format(target=_shown(source)))
    started = time.monotonic()
    reader = open_store(source)
    try:
        writer = open_store(target)
        try:
            copied = _copy_tables(reader, writer, source, target, say)
        finally:
            writer.close()
    finally:
        reader.close()
    total = sum(rows for _, rows in copied)
    seconds = f"{time.monotonic() - started:.1f}"
    say(ngettext(COPIED, total).format(n=total, source=_shown(source), target=_shown(target), seconds=seconds))
    return copied


def _copy_tables(
    reader: SQLStorage,
    writer: SQLStorage,
    source: str,
    target: str,
    say: Callable[[str], None],
) -> list[tuple[str, int]]:
    from spheria.server.database import IntegrityError
    from spheria.server.migrations import stored_tables

    def into(out: Database) -> list[tuple[str, int]]:
        tables = stored_tables(out)
        held = _held(out, tables)
        if held:
            found = ", ".join(f"{name} ({count})" for name, count in held)
            raise Refused(_(NOT_EMPTY).format(target=_shown(target), found=found))
        return reader.read(lambda from_db: copy_rows(from_db, out, tables))

    def copy_rows(from_db: Database, out: Database, tables: list[Table]) -> list[tuple[str, int]]:
        if from_db.engine == "postgresql":  # every table as of one moment
            from_db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        theirs = stored_tables(from_db)
        if {(t.name, frozenset(t.columns)) for t in theirs} != {(t.name, frozenset(t.columns)) for t in tables}:
            detail = _differences(theirs, tables)
            raise Refused(_(TABLES_DIFFER).format(source=_shown(source), target=_shown(target), detail=detail))
        copied: list[tuple[str, int]] = []
        for table in tables:
            columns = ", ".join(f'"{column}"' for column in table.columns)
            insert = f'INSERT INTO "{table.name}" ({columns}) VALUES ({", ".join("?" * len(table.columns))})'
            rows = 0
            for batch in _batches(from_db, table):
                out.executemany(insert, batch)
                rows += len(batch)
            _move_counter(out, table)
            copied.append((table.name, rows))
            say(ngettext(TABLE_COPIED, rows).format(table=table.name, n=rows))
        return copied

    stopping: tuple[type[BaseException], ...] = (IntegrityError, *_open_errors())
    try:
        return writer.transaction(into)
    except (Refused, Failed):
        raise
    except stopping as error:
        raise Failed(_(COPY_FAILED).format(target=_shown(target), error=_problem(error))) from None


# -- the command line --------------------------------------------------------------------------------------


def add_parser(commands: Any) -> None:
    """Add ``db`` (``migrate`` and ``copy``) to the ``spheria`` command's subcommands."""
    db = commands.add_parser("db", help=_(DB), description=_(DB_DESCRIPTION))
    actions = db.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    migrate = actions.add_parser(
        "migrate", help=_(MIGRATE), description=_(MIGRATE_DESCRIPTION), epilog=_(MIGRATE_EXAMPLE)
    )
    migrate.add_argument("--db", default="spheria.sqlite3", metavar="PATH|URL", help=_(HELP["--db"]))
    migrate.add_argument("--list", action="store_true", help=_(HELP["--list"]))
    migrate.set_defaults(handler=lambda args, term: run(args), no_color=False)
    copy = actions.add_parser("copy", help=_(COPY), description=_(COPY_DESCRIPTION), epilog=_(COPY_EXAMPLE))
    copy.add_argument("--from", dest="source", required=True, metavar="PATH|URL", help=_(HELP["--from"]))
    copy.add_argument("--to", dest="target", required=True, metavar="PATH|URL", help=_(HELP["--to"]))
    copy.set_defaults(handler=lambda args, term: run(args), no_color=False)


def run(args: argparse.Namespace) -> int:
    """Run ``spheria db migrate`` or ``spheria db copy``: 0 done, 2 refused, 1 failed midway."""

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        if args.db_command == "copy":
            copy_database(args.source, args.target, say)
        elif args.list:
            list_migrations(args.db, say)
        else:
            apply_migrations(args.db, say)
    except Refused as refusal:
        print(f"spheria db {args.db_command}: {refusal}", file=sys.stderr)
        return REFUSED
    except Failed as failure:
        print(f"spheria db {args.db_command}: {failure}", file=sys.stderr)
        return FAILED
    return 0
