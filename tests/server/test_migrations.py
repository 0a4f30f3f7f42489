"""Versioned migrations: old SQLite files come out at the newest version with their data, a
PostgreSQL database is migrated once by processes starting together, a newer database is refused,
and a PostgreSQL server that goes away mid-game is today's storage fault (docs/server.md, "Storage").
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from starlette.testclient import TestClient

from spheria.server.accounts import SESSION_COOKIE, SQLiteAccounts
from spheria.server.app import create_app
from spheria.server.challenges import SQLiteSeats
from spheria.server.chat import SQLiteChat
from spheria.server.clocks import ClockStore
from spheria.server.database import Database
from spheria.server.migrations import MIGRATIONS, DatabaseTooNew, Migration, migrate
from spheria.server.profiles import ProfileStore
from spheria.server.puzzles import PuzzleStore
from spheria.server.session import token_digest
from spheria.server.storage import FINISHED, PostgresStorage, SQLStorage, open_storage
from tests.server.data.write_today_file import PLAYING, PUZZLE, RATED, TODAY_TOKEN
from tests.server.test_server import HUMAN, TEST_LIMITS, create, join, play_both, play_out, state_at, token_of
from tests.services import _as_server_user, fresh_database, postgres_binaries, postgres_server, wait_for_port

DATA = Path(__file__).parent / "data"
NEWEST = max(m.version for m in MIGRATIONS)


def versions(store: SQLStorage) -> list[int]:
    return store.transaction(lambda db: [r[0] for r in db.execute("SELECT version FROM schema_migrations").fetchall()])


@pytest.fixture
def today_file(tmp_path: Path) -> Path:
    """A copy of the file today's server wrote (tests/server/data/write_today_file.py)."""
    copy = tmp_path / "games.sqlite3"
    shutil.copy(DATA / "today.sqlite3", copy)
    return copy


def test_the_file_today_s_server_wrote_has_no_migrations_yet() -> None:
    db = sqlite3.connect(DATA / "today.sqlite3")
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        db.close()
    assert "schema_migrations" not in tables and {"games", "players", "chat_messages", "game_clocks"} <= tables


def test_a_file_written_by_today_s_server_is_migrated_with_everything_readable(today_file: Path) -> None:
    store = open_storage(str(today_file))
    try:
        assert versions(store) == list(range(1, NEWEST + 1))
        accounts, profiles = SQLiteAccounts(store), ProfileStore(store)
        mina = accounts.account_named("mina")
        assert mina is not None and mina[1] == "$argon2id$not-a-real-hash"
        ana = profiles.player_named("Ana")
        assert ana is not None and ana.kind == "guest"
        rated = store.load_game(RATED)
        assert rated is not None and rated.status == FINISHED and rated.rated and rated.result is not None
        assert rated.result["rated"] is True  # the rating's outcome merged into the stored result
        clock = ClockStore(store).load(RATED)
        assert clock is not None and len(clock.moves) == len(rated.record.moves) and clock.control.base == 300
        ratings, charts = profiles.ratings_of(mina[0].id)
        assert [r.games for r in ratings.values()] == [1] and len(next(iter(charts.values()))) == 1
        assert profiles.ratings_of("level:2")[0]  # the level's rating moved too
        chat = SQLiteChat(store)
        assert [m.text for m in chat.history(RATED, "players")] == ["good game"]
        [report] = chat.reports()
        assert report["text"] == "hello from the stands" and report["reporter"] == "mina"
        assert SQLiteSeats(store).holders(PLAYING)[0].name == "mina"
        assert accounts.games_of(mina[0].id) == [PLAYING]
        puzzles = PuzzleStore(store)
        assert PUZZLE.id in puzzles.tried(mina[0].id) and puzzles.ratings([mina[0].id], "spline")
        playing = store.load_game(PLAYING)
        assert playing is not None and len(playing.record.moves) == 4
        # a new chat message gets the next id after the file's (the counter came along)
        assert chat.add(PLAYING, "players", mina[0].id, "mina", False, 0, "again").id == 3
    finally:
        store.close()


def test_a_game_in_a_file_written_by_today_s_server_is_played_on_to_the_end(today_file: Path) -> None:
    store = open_storage(str(today_file))  # mina signs in again (the file's session may have expired)
    accounts = SQLiteAccounts(store)
    mina = accounts.account_named("mina")
    assert mina is not None
    accounts.start_session(mina[0].id, token_digest("mina signs in again"), None)
    store.close()
    app = create_app(str(today_file), executor=ThreadPoolExecutor(2), agent_delay=0, limits=TEST_LIMITS)
    with (
        TestClient(app, cookies={SESSION_COOKIE: "mina signs in again"}) as client,
        client.websocket_connect(f"/ws/{PLAYING}") as ws,
    ):
        _, state = join(ws, TODAY_TOKEN)
        assert state["version"] == 4 and state["to_move"] == 0
        final = play_out(ws, 0, state, random.Random(4))
        listed = {g["id"]: g for g in client.get("/api/games?status=finished").json()["games"]}
    assert final["terminal"] and listed[PLAYING]["result"] == final["result"]
    store = open_storage(str(today_file))
    try:
        stored = store.load_game(PLAYING)
        assert stored is not None and stored.status == FINISHED
        assert stored.record.moves == final["observation"]["history"]
        assert versions(store) == list(range(1, NEWEST + 1))  # opened again: nothing applied twice
    finally:
        store.close()


#: A file from before seats were claimed, games were set up or given hints, and before ``games.rated``.
OLDEST_SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER,
    status TEXT NOT NULL DEFAULT 'active', result TEXT, created REAL NOT NULL, updated REAL NOT NULL
);
CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL, kind TEXT NOT NULL, agent TEXT,
    token_hash TEXT, PRIMARY KEY (game_id, seat)
);
CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games(id), ply INTEGER NOT NULL, entry TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE rated_games (game_id TEXT PRIMARY KEY);
"""


def test_an_older_file_gets_every_column_it_lacks_and_its_rated_games(tmp_path: Path) -> None:
    path = tmp_path / "oldest.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(OLDEST_SCHEMA)
    for game_id in ("old-rated", "old-casual"):
        sql = "INSERT INTO games (id, name, options, seed, created, updated) VALUES (?, 'spline', '{}', 3, 1.5, 2.5)"
        db.execute(sql, (game_id,))
        db.execute("INSERT INTO seats (game_id, seat, kind, token_hash) VALUES (?, 0, 'human', 'h0')", (game_id,))
        db.execute("INSERT INTO seats (game_id, seat, kind, agent) VALUES (?, 1, 'agent', 'random')", (game_id,))
    db.execute("INSERT INTO rated_games VALUES ('old-rated')")
    db.commit()
    db.close()
    store = open_storage(str(path))
    try:
        assert versions(store) == list(range(1, NEWEST + 1))
        rated, casual = store.load_game("old-rated"), store.load_game("old-casual")
        assert rated is not None and casual is not None and rated.rated and not casual.rated
        assert rated.record.start is None and not rated.hints and rated.owner_hash is None
        assert rated.created == 1.5 and rated.seats[0].token_hash == "h0"
        assert store.claim_seat("old-rated", 0, "h0", "claim")  # the new column works
        store.append_moves("old-rated", 0, ["0a1"])
        tables = store.transaction(
            lambda db: {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
        )
        assert "rated_games" not in tables and {"players", "chat_messages", "puzzle_tries"} <= tables
    finally:
        store.close()


# -- the ledger: in order, never twice, never a newer database -------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLStorage]:
    if request.param == "sqlite":
        opened = open_storage(str(tmp_path / "games.sqlite3"))
        yield opened
        opened.close()
    else:
        for url in fresh_database(request.getfixturevalue("postgres_url")):
            opened = open_storage(url)
            yield opened
            opened.close()


def counting(version: int, seen: list[int]) -> Migration:
    """A migration that adds a table row naming itself (and notes that it ran)."""

    def adapt(db: Database) -> None:
        seen.append(version)
        db.execute("INSERT INTO steps (version) VALUES (?)", (version,))

    first = ("CREATE TABLE steps (version INTEGER NOT NULL)",) if version == 2 else ()
    return Migration(version, f"step {version}", first, first, adapt)


def test_migrations_apply_in_order_once_each(store: SQLStorage) -> None:
    seen: list[int] = []
    later = (*MIGRATIONS, counting(3, seen), counting(2, seen))  # listed out of order: applied by version
    assert migrate(store.transaction, later) == [2, 3]
    assert migrate(store.transaction, later) == []
    assert seen == [2, 3] and versions(store) == [1, 2, 3]
    assert store.transaction(lambda db: db.execute("SELECT version FROM steps").fetchall()) == [(2,), (3,)]


def test_a_failing_migration_leaves_nothing_of_itself(store: SQLStorage) -> None:
    def broken(db: Database) -> None:
        raise RuntimeError("midway")

    failing = Migration(2, "broken", ("CREATE TABLE half (x INTEGER)",), ("CREATE TABLE half (x INTEGER)",), broken)
    with pytest.raises(RuntimeError):
        migrate(store.transaction, (*MIGRATIONS, failing))
    assert versions(store) == [1]
    seen: list[int] = []
    assert migrate(store.transaction, (*MIGRATIONS, counting(2, seen))) == [2]  # no table "half" stood in the way


def test_a_database_newer_than_the_code_is_refused_and_left_as_it_was(store: SQLStorage) -> None:
    sql = "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)"
    store.transaction(lambda db: db.execute(sql, (NEWEST + 7, "from the future", time.time())))
    seen: list[int] = []
    with pytest.raises(DatabaseTooNew, match=f"schema version {NEWEST + 7}, newer than this Spheria knows"):
        migrate(store.transaction, (*MIGRATIONS, counting(2, seen)))
    assert seen == [] and versions(store) == [1, NEWEST + 7]


def test_opening_a_newer_database_fails_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    open_storage(str(path)).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_migrations VALUES (99, 'from the future', 0)")
    db.commit()
    db.close()
    with pytest.raises(DatabaseTooNew, match="schema version 99"):
        open_storage(str(path))
    with pytest.raises(DatabaseTooNew, match="schema version 99"):
        create_app(str(path), limits=TEST_LIMITS)


OPEN = "import sys; from spheria.server.storage import PostgresStorage; PostgresStorage(sys.argv[1]).close()"


def test_processes_starting_together_migrate_a_postgresql_database_once(postgres_url: str) -> None:
    for url in fresh_database(postgres_url):
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
        starters = [subprocess.Popen([sys.executable, "-c", OPEN, url], env=env) for _ in range(4)]
        assert [starter.wait(timeout=120) for starter in starters] == [0] * 4
        with psycopg.connect(url) as db:
            rows = db.execute("SELECT version, name FROM schema_migrations").fetchall()
            tables = {r[0] for r in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert rows == [(1, MIGRATIONS[0].name)]
        assert {"games", "players", "chat_messages", "game_clocks", "ratings", "puzzle_tries"} <= tables


# -- PostgreSQL goes away mid-game --------------------------------------------------------------------------


def test_a_whole_game_on_postgresql_is_kept_and_read_back_by_a_new_app(postgres_url: str) -> None:
    for url in fresh_database(postgres_url):
        store = PostgresStorage(url)
        app = create_app(storage=store, executor=ThreadPoolExecutor(2), agent_delay=0, limits=TEST_LIMITS)
        with TestClient(app) as client:
            created = create(client, "special-cake", [HUMAN, HUMAN], variant="poisoned")
            path = f"/ws/{created['id']}"
            with client.websocket_connect(path) as a, client.websocket_connect(path) as b:
                _, frame_a = join(a, token_of(created, 0))
                _, frame_b = join(b, token_of(created, 1))
                final = play_both([a, b], [frame_a, frame_b], random.Random(6))
            record = client.get(f"/api/games/{created['id']}/record").json()
        store.close()
        assert final["terminal"] and record["moves"] == final["observation"]["history"]
        again = PostgresStorage(url)
        with TestClient(create_app(storage=again, limits=TEST_LIMITS)) as client:
            again_record = client.get(f"/api/games/{created['id']}/record").json()
            # 'created' is when a record file is written (docs/records.md): each download is stamped anew
            assert {**again_record, "created": None} == {**record, "created": None}
            listed = client.get("/api/games?status=finished").json()["games"]
        again.close()
        assert [g["id"] for g in listed] == [created["id"]] and listed[0]["result"] == final["result"]


def stop_postgres(url: str) -> tuple[list[str], int]:
    """Stop the PostgreSQL server of ``url`` (a fast shutdown); the command that starts it again."""
    with psycopg.connect(url, autocommit=True) as db:
        data = Path(str(db.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    pid = int((data / "postmaster.pid").read_text().split()[0])
    os.kill(pid, signal.SIGINT)
    for _ in range(200):
        if not (data / "postmaster.pid").exists():
            break
        time.sleep(0.05)
    command = [str(postgres_binaries() / "postgres"), "-D", str(data), "-p", str(port), "-h", "127.0.0.1"]
    return _as_server_user([*command, "-k", str(data.parent), "-c", "fsync=off"]), port


def test_postgresql_stopped_mid_game_refuses_the_move_and_loses_nothing_acknowledged() -> None:
    with postgres_server() as url:
        store = PostgresStorage(url)
        app = create_app(storage=store, executor=ThreadPoolExecutor(2), agent_delay=0, limits=TEST_LIMITS)
        restarted: subprocess.Popen[bytes] | None = None
        try:
            with TestClient(app) as client:
                created = create(client, "spline", [HUMAN, HUMAN])
                path = f"/ws/{created['id']}"
                with client.websocket_connect(path) as a, client.websocket_connect(path) as b:
                    _, frame_a = join(a, token_of(created, 0))
                    _, frame_b = join(b, token_of(created, 1))
                    before = play_both([a, b], [frame_a, frame_b], random.Random(2), moves=4)
                    acknowledged = before["observation"]["history"]
                    command, port = stop_postgres(url)
                    assert before["to_move"] == 0  # Spline alternates: seat 0 after four moves
                    mover = a
                    move = {"type": "move", "move": before["legal_moves"][0], "version": before["version"]}
                    mover.send_json(move)
                    refused = mover.receive_json()
                    while refused["type"] != "error":
                        refused = mover.receive_json()
                    assert refused["code"] == "storage_error" and refused["kept"] is False
                    assert client.get("/api/catalog").status_code == 200  # the server keeps running
                    restarted = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    wait_for_port(port, restarted)
                    for _ in range(100):  # the port opens a moment before the server takes connections
                        try:
                            psycopg.connect(url).close()
                            break
                        except psycopg.OperationalError:
                            time.sleep(0.1)
                    mover.send_json(move)  # the same move, now that the store is back
                    after = state_at(mover, before["version"] + 1)
                    assert after["observation"]["history"] == [*acknowledged, move["move"]]
            store.close()
            again = PostgresStorage(url)
            stored = again.load_game(created["id"])
            again.close()
            assert stored is not None and stored.record.moves == [*acknowledged, move["move"]]
        finally:
            if restarted is not None:
                restarted.terminate()
                restarted.wait(timeout=30)
