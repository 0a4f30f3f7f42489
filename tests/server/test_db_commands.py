"""``spheria db migrate`` and ``spheria db copy`` (spheria.server.dbcommand; docs/server.md, "Storage"):
upgrading a database in place, and moving a SQLite server to PostgreSQL, on real PostgreSQL and on
the file today's server wrote (tests/server/data/today.sqlite3).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
from starlette.testclient import TestClient

from spheria.server import dbcommand, migrations, storage
from spheria.server.accounts import SQLiteAccounts
from spheria.server.app import create_app
from spheria.server.chat import SQLiteChat
from spheria.server.clocks import ClockStore
from spheria.server.database import Database
from spheria.server.dbcommand import Failed, Refused, copy_database
from spheria.server.migrations import MIGRATIONS, Migration, ledger, stored_tables
from spheria.server.storage import PostgresStorage, SQLStorage, open_storage
from tests.server.data.write_today_file import PLAYING, RATED
from tests.server.people import FAST, PASSWORD, send
from tests.server.test_migrations import stop_postgres
from tests.server.test_server import TEST_LIMITS
from tests.services import fresh_database, postgres_server, wait_for_port

DATA = Path(__file__).parent / "data"
NEWEST = max(m.version for m in MIGRATIONS)
ROOT = Path(__file__).parents[2]


@pytest.fixture
def today_file(tmp_path: Path) -> Path:
    """A copy of the file today's server wrote (never the committed one)."""
    copy = tmp_path / "today.sqlite3"
    shutil.copy(DATA / "today.sqlite3", copy)
    return copy


@pytest.fixture
def database(postgres_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database of its own (dropped afterwards)."""
    yield from fresh_database(postgres_url)


def run(*args: str) -> tuple[int, str, str]:
    """``spheria db ARGS`` in this process: its exit status, output and errors."""
    from spheria.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["db", *args])
    return status, out.getvalue(), err.getvalue()


def rows_of(store: SQLStorage) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of ``store`` (columns by name, rows sorted): what the store holds."""

    def work(db: Database) -> dict[str, list[tuple[Any, ...]]]:
        held = {}
        for table in stored_tables(db):
            columns = ", ".join(sorted(table.columns))
            rows = db.execute(f"SELECT {columns} FROM {table.name}").fetchall()
            held[table.name] = sorted((tuple(row) for row in rows), key=repr)
        return held

    return store.read(work)


def counts_in(url: str) -> dict[str, int]:
    with psycopg.connect(url) as db:
        listed = db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename != 'schema_migrations'"
        )
        tables = [r[0] for r in listed]
        return {t: int(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in tables}  # type: ignore[index]


# -- spheria db migrate -----------------------------------------------------------------------------------


def test_migrate_lists_then_upgrades_the_file_today_s_server_wrote(today_file: Path) -> None:
    before = today_file.read_bytes()
    status, out, _ = run("migrate", "--db", str(today_file), "--list")
    assert status == 0 and out.splitlines() == [f"1  pending  {MIGRATIONS[0].name}"]
    assert today_file.read_bytes() == before  # listing changed nothing: not even the ledger was made

    started = time.time()
    status, out, _ = run("migrate", "--db", str(today_file))
    assert status == 0 and out.splitlines() == [f"applied migration 1: {MIGRATIONS[0].name}"]
    store = open_storage(str(today_file))
    try:
        assert [row.version for row in store.read(ledger)] == list(range(1, NEWEST + 1))
        assert store.load_game(RATED) is not None  # the data came along
    finally:
        store.close()

    status, out, _ = run("migrate", "--db", str(today_file))
    assert status == 0 and out.splitlines() == [f"{today_file} is up to date (schema version {NEWEST})"]
    status, out, _ = run("migrate", "--db", str(today_file), "--list")
    [line] = out.splitlines()
    version, word, day, clock, zone, name = line.split(None, 5)
    assert (version, word, zone, name) == ("1", "applied", "UTC", MIGRATIONS[0].name)
    applied = time.mktime(time.strptime(f"{day} {clock}", "%Y-%m-%d %H:%M:%S")) - time.timezone
    assert started - 2 <= applied <= time.time() + 2


def test_migrate_lists_a_postgresql_database_and_a_missing_file_without_making_them(
    database: str, tmp_path: Path
) -> None:
    assert run("migrate", "--db", database, "--list")[1].splitlines() == [f"1  pending  {MIGRATIONS[0].name}"]
    assert counts_in(database) == {}  # no table made
    assert run("migrate", "--db", database)[1].splitlines() == [f"applied migration 1: {MIGRATIONS[0].name}"]
    assert run("migrate", "--db", database, "--list")[1].split()[:2] == ["1", "applied"]
    missing = tmp_path / "none.sqlite3"
    status, out, _ = run("migrate", "--db", str(missing), "--list")
    assert status == 0 and out.splitlines()[0] == f"{missing} does not exist yet: every migration is pending"
    assert not missing.exists()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_migrate_refuses_a_database_newer_than_the_code_and_changes_nothing(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    target = str(tmp_path / "future.sqlite3") if engine == "sqlite" else request.getfixturevalue("database")
    open_storage(target).close()
    future = "INSERT INTO schema_migrations (version, name, applied) VALUES (99, 'from the future', 0)"
    if engine == "sqlite":
        with sqlite3.connect(target) as db:
            db.execute(future)
    else:
        with psycopg.connect(target) as db:
            db.execute(future)
    status, out, err = run("migrate", "--db", target)
    assert status == 2 and out == ""
    assert "schema version 99, newer than this Spheria knows" in err and err.startswith("spheria db migrate: ")
    status, out, _ = run("migrate", "--db", target, "--list")
    assert status == 0 and out.splitlines()[-1].endswith(
        "from the future (unknown to this Spheria: written by a newer one)"
    )
    with pytest.raises(Refused, match="schema version 99"):
        copy_database(target, str(tmp_path / "copy.sqlite3"))


# -- spheria db copy: a SQLite file into PostgreSQL ---------------------------------------------------------


def test_the_file_today_s_server_wrote_is_copied_into_postgresql_and_served_the_same(
    today_file: Path, database: str
) -> None:
    source = open_storage(str(today_file))
    accounts = SQLiteAccounts(source)
    mina = accounts.account_named("mina")
    assert mina is not None
    accounts.set_password(mina[0].id, FAST.hash(PASSWORD), None)  # a real password, to log in with after
    held = rows_of(source)
    source.close()

    said: list[str] = []
    copied = copy_database(str(today_file), database, said.append)
    assert dict(copied) == {table: len(rows) for table, rows in held.items()}
    assert said[:-1] == [f"{table}: {rows} row{'' if rows == 1 else 's'}" for table, rows in copied]
    assert said[-1].startswith(f"copied {sum(n for _, n in copied)} rows from {today_file} to {database} in ")
    order = [table for table, _ in copied]
    assert order.index("games") < min(order.index("seats"), order.index("moves"))  # parents first
    assert order.index("players") < order.index("player_sessions") and order.index("chat_messages") < order.index(
        "chat_reports"
    )

    store = PostgresStorage(database)
    assert rows_of(store) == held  # every row of every table, value for value
    app = create_app(storage=store, executor=ThreadPoolExecutor(2), agent_delay=0, limits=TEST_LIMITS)
    app.state.accounts.use_hasher(FAST)
    with TestClient(app) as client:
        finished = {g["id"]: g for g in client.get("/api/games?status=finished").json()["games"]}
        active = {g["id"]: g for g in client.get("/api/games?status=active").json()["games"]}
        assert list(finished) == [RATED] and list(active) == [PLAYING] and finished[RATED]["result"]["rated"]
        record = client.get(f"/api/games/{RATED}/record").json()
        assert record["moves"] == store.load_game(RATED).record.moves and len(record["moves"]) == 17  # type: ignore[union-attr]
        client.get("/api/session")
        assert send(client, "POST", "/api/session", {"name": "mina", "password": PASSWORD}).status_code == 200
        me = client.get("/api/session").json()
        assert me["player"]["name"] == "mina" and me["games"] == [PLAYING]
        profile = client.get("/api/players/mina").json()
        [rating] = profile["ratings"].values()
        assert rating["games"] == 1
    clock = ClockStore(store).load(RATED)
    assert clock is not None and len(clock.moves) == 17 and clock.control.base == 300
    chat = SQLiteChat(store)
    assert [m.text for m in chat.history(RATED, "players")] == ["good game"]
    # the counter moved past the copied ids: a new message gets the next one, not a taken one
    assert chat.add(PLAYING, "players", mina[0].id, "mina", False, 0, "again on PostgreSQL").id == 3
    store.close()


def test_a_row_breaking_a_constraint_stops_the_copy_and_leaves_the_target_empty(
    today_file: Path, database: str
) -> None:
    open_storage(str(today_file)).close()  # migrated, then a seat of no game slipped in (keys not checked)
    with sqlite3.connect(today_file) as db:
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("INSERT INTO seats (game_id, seat, kind) VALUES ('no-such-game', 0, 'human')")
    status, out, err = run("copy", "--from", str(today_file), "--to", database)
    assert status == 1 and "games: 2 rows" in out.splitlines()  # the tables before it were copied …
    assert err.startswith(f"spheria db copy: the copy stopped and nothing was kept in {database}: ")
    assert "seats" in err and "\n" not in err.rstrip("\n")
    counts = counts_in(database)
    assert counts["games"] == 0 and set(counts.values()) == {0} and len(counts) > 20  # … and none was kept


def test_the_target_server_stopped_midway_keeps_nothing(today_file: Path) -> None:
    with postgres_server() as url:
        restarted: list[subprocess.Popen[bytes]] = []

        def say(line: str) -> None:
            if not restarted and line.startswith("games:"):  # the games are copied, not committed
                command, port = stop_postgres(url)
                restarted.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                wait_for_port(port, restarted[0])

        try:
            with pytest.raises(Failed, match="the copy stopped and nothing was kept"):
                copy_database(str(today_file), url, say)
            for _ in range(100):  # the port opens a moment before the server takes connections
                try:
                    counts = counts_in(url)
                    break
                except psycopg.OperationalError:
                    time.sleep(0.1)
            assert counts["games"] == 0 and set(counts.values()) == {0}
            copy_database(str(today_file), url, lambda line: None)  # the same copy again, the server back: done
            assert counts_in(url)["games"] == 2
        finally:
            for process in restarted:
                process.terminate()
                process.wait(timeout=30)


# -- refusals: nothing is changed -------------------------------------------------------------------------


def test_a_target_holding_games_or_players_is_refused_naming_them(today_file: Path, database: str) -> None:
    store = open_storage(database)
    SQLiteAccounts(store).create_guest("Early", "a session", None)
    store.close()
    status, out, err = run("copy", "--from", str(today_file), "--to", database)
    assert status == 2 and out == ""
    assert f"{database} is not empty: it holds " in err and "players (1)" in err and "player_sessions (1)" in err
    assert counts_in(database)["players"] == 1 and counts_in(database)["games"] == 0


def test_copying_a_database_onto_itself_is_refused(today_file: Path, database: str) -> None:
    same = str(today_file.parent / "." / today_file.name)
    with pytest.raises(Refused, match="--from and --to name the same database"):
        copy_database(str(today_file), same)
    with pytest.raises(Refused, match="the same database"):  # the same URL, spelled with the other scheme
        copy_database(database, database.replace("postgresql://", "postgres://", 1))
    assert counts_in(database) == {}  # not even migrated


@pytest.mark.parametrize("target", ["mysql://root@127.0.0.1/spheria", "sqlite:///games.sqlite3"])
def test_an_unknown_scheme_is_refused(today_file: Path, target: str) -> None:
    before = today_file.read_bytes()
    for args in (("copy", "--from", str(today_file), "--to", target), ("copy", "--from", target, "--to", "x.db")):
        status, out, err = run(*args)
        assert (status, out) == (2, "")
        assert f"unknown scheme {target.split('://')[0]}://; give a SQLite file's path or a postgresql:// URL" in err
    assert run("migrate", "--db", target)[0] == 2
    assert today_file.read_bytes() == before


def test_a_missing_source_file_is_refused_and_not_made(tmp_path: Path) -> None:
    missing, target = tmp_path / "typo.sqlite3", tmp_path / "new.sqlite3"
    status, _, err = run("copy", "--from", str(missing), "--to", str(target))
    assert status == 2 and f"{missing}: no such SQLite file to copy from" in err
    assert not missing.exists() and not target.exists()


# -- what the copy reads: every table the migrations made, a batch at a time ------------------------------


def test_a_table_added_by_a_later_migration_is_copied_with_its_counter(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = {
        engine: (f"CREATE TABLE notes (id {serial}, game_id TEXT NOT NULL REFERENCES games(id), text TEXT NOT NULL)",)
        for engine, serial in (
            ("sqlite", "INTEGER PRIMARY KEY AUTOINCREMENT"),
            ("postgresql", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
        )
    }
    later = (*MIGRATIONS, Migration(NEWEST + 1, "notes on games", sql["sqlite"], sql["postgresql"]))
    # the stores open as if this migration had been appended to MIGRATIONS
    monkeypatch.setattr(storage, "migrate", functools.partial(migrations.migrate, migrations=later))
    source = tmp_path / "later.sqlite3"
    store = open_storage(str(source))
    store.transaction(
        lambda db: db.execute(
            "INSERT INTO games (id, name, options, created, updated) VALUES ('g', 'spline', '{}', 1, 1)"
        )
    )
    store.transaction(
        lambda db: db.executemany("INSERT INTO notes (id, game_id, text) VALUES (?, 'g', ?)", [(5, "a"), (9, "b")])
    )
    store.close()
    copied = dict(copy_database(str(source), database, lambda line: None))
    assert copied["notes"] == 2 and copied["games"] == 1
    with psycopg.connect(database) as db:
        assert db.execute("SELECT id, text FROM notes ORDER BY id").fetchall() == [(5, "a"), (9, "b")]
        assert db.execute("INSERT INTO notes (game_id, text) VALUES ('g', 'c') RETURNING id").fetchone() == (10,)
        assert db.execute("SELECT max(version) FROM schema_migrations").fetchone() == (NEWEST + 1,)


def test_a_large_file_is_copied_a_batch_at_a_time(tmp_path: Path) -> None:
    source, target = tmp_path / "large.sqlite3", tmp_path / "copy.sqlite3"
    open_storage(str(source)).close()
    text = "x" * 1000
    rows = 20_000  # some 20 MB of chat
    with sqlite3.connect(source) as db:
        db.executemany(
            "INSERT INTO chat_messages (game_id, room, sender, guest, text, at) VALUES ('g', 'players', 's', 0, ?, 0)",
            ((f"{n:06d}{text}",) for n in range(rows)),
        )
    open_storage(str(target)).close()
    tracemalloc.start()
    try:
        copied = dict(copy_database(str(source), str(target), lambda line: None))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert copied["chat_messages"] == rows
    assert peak < rows * len(text) / 5, f"the copy held {peak / 1e6:.1f} MB at once"  # a batch, not the table
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT COUNT(*), MAX(id) FROM chat_messages").fetchone() == (rows, rows)
        assert db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chat_messages'").fetchone() == (rows,)


# -- the real command ---------------------------------------------------------------------------------------


def test_the_spheria_command_migrates_and_copies(today_file: Path, database: str) -> None:
    spheria = Path(sys.executable).parent / "spheria"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LANGUAGE": "en"}

    def spheria_db(*args: str) -> subprocess.CompletedProcess[str]:
        command = [str(spheria), "db", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)

    done = spheria_db("migrate", "--db", str(today_file))
    assert done.returncode == 0 and done.stdout == f"applied migration 1: {MIGRATIONS[0].name}\n"
    done = spheria_db("copy", "--from", str(today_file), "--to", database)
    assert done.returncode == 0, done.stderr
    assert "games: 2 rows" in done.stdout.splitlines() and "copied " in done.stdout.splitlines()[-1]
    again = spheria_db("copy", "--from", str(today_file), "--to", database)
    assert again.returncode == 2 and "is not empty: it holds " in again.stderr and "games (2)" in again.stderr
    korean = subprocess.run(
        [str(spheria), "--lang", "ko", "db", "migrate", "--db", database],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert korean.returncode == 0 and "최신" in korean.stdout


def test_a_postgresql_database_is_copied_back_into_a_sqlite_file_a_few_rows_at_a_time(
    today_file: Path, database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy_database(str(today_file), database, lambda line: None)
    monkeypatch.setattr(dbcommand, "BATCH_ROWS", 2)  # PostgreSQL's cursor fetched in many small batches
    back = tmp_path / "back.sqlite3"
    copied = dict(copy_database(database, str(back), lambda line: None))
    assert copied["moves"] == 21 and copied["move_clocks"] == 17
    source, again = open_storage(str(today_file)), open_storage(str(back))
    try:
        assert rows_of(again) == rows_of(source)
        assert SQLiteChat(again).add(PLAYING, "players", "someone", "mina", False, 0, "back home").id == 3
    finally:
        source.close()
        again.close()


def test_the_db_commands_speak_korean(tmp_path: Path) -> None:
    from tests.cli.test_i18n import ENGLISH, KOREAN, prose_words, spheria

    for argv in (["db", "--help"], ["db", "migrate", "--help"], ["db", "copy", "--help"]):
        done = spheria(argv, KOREAN)
        assert done.returncode == 0 and "데이터베이스" in done.stdout
        assert {line: prose_words(line) for line in done.stdout.splitlines() if prose_words(line)} == {}
    missing = tmp_path / "typo.sqlite3"
    done = spheria(["db", "copy", "--from", str(missing), "--to", str(tmp_path / "new.sqlite3")], KOREAN)
    assert done.returncode == 2 and f"{missing}: 복사할 SQLite 파일이 없습니다" in done.stderr
    done = spheria(["db", "migrate", "--db", str(missing), "--list"], KOREAN)
    assert f"{missing}은(는) 아직 없습니다: 모든 마이그레이션이 대기 중입니다" in done.stdout
    assert "does not exist yet" in spheria(["db", "migrate", "--db", str(missing), "--list"], ENGLISH).stdout
