"""The store, written once and run on both engines: a SQLite file and a real PostgreSQL server.

Every :class:`~spheria.server.storage.Storage` method, and the store-level calls of the modules that
keep tables in it (accounts, the seats' players of challenges, chat, clocks, profiles and ratings,
puzzles), run on each engine. Each PostgreSQL test gets a database of its own (made from
``template0`` on the session's server: tests/services.py), so tests never see each other's rows.
"""

from __future__ import annotations

import ast
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import spheria
from spheria.kernel.clock import SeatClock, TimeControl
from spheria.kernel.record import Record, timestamp
from spheria.kernel.registry import load_game
from spheria.puzzles.puzzle import Puzzle
from spheria.server.accounts import NameTaken, SQLiteAccounts
from spheria.server.challenges import SQLiteSeats
from spheria.server.chat import SQLiteChat
from spheria.server.clocks import ClockStore
from spheria.server.database import IntegrityError
from spheria.server.profiles import ProfileStore, seat_of
from spheria.server.puzzles import PuzzleStore
from spheria.server.storage import (
    ABORTED,
    ACTIVE,
    FINISHED,
    PostgresStorage,
    SeatRecord,
    SQLiteStorage,
    SQLStorage,
    StoredGame,
    open_storage,
)
from spheria.server.waiting import active_controls
from tests.services import fresh_database


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a store is opened: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "games.sqlite3")
    else:
        yield from fresh_database(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(target: str) -> Iterator[SQLStorage]:
    opened = open_storage(target)
    yield opened
    opened.close()


def a_game(game_id: str, moves: list[str] | None = None, **how: object) -> StoredGame:
    record = Record("spline", {}, 7, None, ["human", "random"], list(moves or []))
    seats = [SeatRecord(0, "human", None, "token-0"), SeatRecord(1, "agent", "random")]
    return StoredGame(game_id, record, seats, owner_hash="owner", **how)  # type: ignore[arg-type]


def test_open_storage_picks_the_engine_from_the_target(target: str) -> None:
    store = open_storage(target)
    try:
        assert isinstance(store, PostgresStorage if target.startswith("postgresql://") else SQLiteStorage)
    finally:
        store.close()


def test_a_game_is_stored_whole_and_loaded_back(store: SQLStorage) -> None:
    store.create_game(a_game("g1", ["0a1"], hints=True, rated=True))
    loaded = store.load_game("g1")
    assert loaded is not None
    assert loaded.record.moves == ["0a1"] and loaded.record.seed == 7 and loaded.record.players == ["human", "random"]
    assert [(s.seat, s.kind, s.agent, s.token_hash, s.claim_hash) for s in loaded.seats] == [
        (0, "human", None, "token-0", None),
        (1, "agent", "random", None, None),
    ]
    assert loaded.status == ACTIVE and loaded.owner_hash == "owner" and loaded.hints and loaded.rated
    assert isinstance(loaded.created, float) and abs(loaded.created - time.time()) < 60
    assert store.load_game("nothing") is None


def test_a_game_s_record_says_when_it_was_stored_before_and_after_a_reload(store: SQLStorage) -> None:
    """The live record and the one rebuilt from the store carry the same ``created`` (the second the
    game was stored), so a game's record does not change when its server restarts."""
    game = a_game("g1")
    game.record.created = "2000-01-01T00:00:00Z"  # made a moment (here: years) before it was stored
    store.create_game(game)
    loaded = store.load_game("g1")
    assert loaded is not None and loaded.record.created == game.record.created == timestamp(game.created)


def test_moves_pending_choices_and_the_end_are_one_transaction(store: SQLStorage) -> None:
    store.create_game(a_game("g1"))
    store.set_pending("g1", 0, "secret")
    store.set_pending("g1", 0, "changed")  # a choice replaced, not added
    assert store.load_game("g1").pending == {0: "changed"}  # type: ignore[union-attr]
    store.append_moves("g1", 0, ["0a1", "0b1"])
    loaded = store.load_game("g1")
    assert loaded is not None and loaded.record.moves == ["0a1", "0b1"] and loaded.pending == {}
    result = {"returns": [1.0, -1.0], "winners": [0], "text": "won"}
    store.append_moves("g1", 2, ["0c1"], result)
    loaded = store.load_game("g1")
    assert loaded is not None and loaded.status == FINISHED and loaded.result == result
    assert loaded.record.result == [1.0, -1.0] and loaded.record.moves == ["0a1", "0b1", "0c1"]
    with pytest.raises(IntegrityError):  # ply 2 is taken: nothing of the call is kept
        store.append_moves("g1", 2, ["0d1"])
    assert store.load_game("g1").record.moves == ["0a1", "0b1", "0c1"]  # type: ignore[union-attr]


def test_a_seat_is_claimed_once_and_reissued_only_unclaimed(store: SQLStorage) -> None:
    store.create_game(a_game("g1"))
    assert store.set_token("g1", 0, "token-new")
    assert not store.set_token("g1", 1, "token-agent")  # an agent seat has no invite
    assert not store.claim_seat("g1", 0, "token-0", "claim")  # the old token was re-issued
    assert store.claim_seat("g1", 0, "token-new", "claim")
    assert not store.claim_seat("g1", 0, "token-new", "claim-again")
    assert not store.set_token("g1", 0, "token-late")
    seat = store.load_game("g1").seats[0]  # type: ignore[union-attr]
    assert (seat.token_hash, seat.claim_hash) == ("token-new", "claim")


def test_faults_hints_abort_and_the_lists(store: SQLStorage) -> None:
    store.create_game(a_game("g1"))
    store.create_game(a_game("g2"))
    store.add_fault("g1", 3, 1, "timeout")
    store.add_fault("g1", 3, 1, "crash")  # the latest word kept
    store.add_hint("g1", 0, 2, "0a1")
    store.add_hint("g1", 0, 2, "0b1")
    loaded = store.load_game("g1")
    assert loaded is not None and loaded.faults == {(3, 1): "crash"} and loaded.hints_given == [(0, 2)]
    assert sorted(store.active_game_ids()) == ["g1", "g2"]
    assert sorted(store.idle_game_ids(time.time() + 1)) == ["g1", "g2"]
    assert store.idle_game_ids(time.time() - 3600) == []
    store.append_moves("g2", 0, ["0a1"])
    store.abort("g1")
    store.abort("g1")
    assert store.load_game("g1").status == ABORTED  # type: ignore[union-attr]
    assert store.active_game_ids() == ["g2"]
    listed = store.list_games()
    assert [(g.id, g.plies, g.status) for g in listed] == [("g1", 0, ABORTED), ("g2", 1, ACTIVE)]
    assert [s.kind for s in listed[0].seats] == ["human", "agent"] and listed[0].seats[1].agent == "random"
    assert [g.id for g in store.list_games(ACTIVE)] == ["g2"] and len(store.list_games(limit=1)) == 1


def test_a_transaction_keeps_all_of_its_work_or_none(store: SQLStorage) -> None:
    store.create_game(a_game("g1"))

    def half(db: object) -> None:
        store_db = db
        store_db.execute("UPDATE games SET status = ? WHERE id = ?", (ABORTED, "g1"))  # type: ignore[attr-defined]
        raise RuntimeError("midway")

    with pytest.raises(RuntimeError):
        store.transaction(half)
    assert store.load_game("g1").status == ACTIVE  # type: ignore[union-attr]
    sql = "SELECT name FROM games WHERE id = ? AND options LIKE '{%'"
    assert store.transaction(lambda db: db.execute(sql, ("g1",)).fetchone()) == ("spline",)


# -- the modules' tables -------------------------------------------------------------------------------


def test_accounts_sessions_and_names(store: SQLStorage) -> None:
    accounts = SQLiteAccounts(store)
    guest = accounts.create_guest("Ana", "s-ana", None)
    mina = accounts.create_account("Mina", "hash-1", "s-mina", None, None)
    with pytest.raises(NameTaken):
        accounts.create_account("MINA", "hash-2", "s-other", None, None)
    with pytest.raises(NameTaken):
        accounts.create_guest("mina", "s-guest", None)
    assert accounts.player_of_session("s-other") is None  # the refused account left nothing
    became = accounts.create_account("ana-account", "hash-3", "s-ana-2", "s-ana", guest.id)
    assert became.id == guest.id and became.kind == "account"
    assert accounts.player_of_session("s-ana") is None and accounts.player_of_session("s-ana-2") == became
    found = accounts.account_named("mina")
    assert found is not None and found[0] == mina and found[1] == "hash-1"
    assert accounts.password_hash(mina.id) == "hash-1"
    accounts.set_password(mina.id, "hash-4", "s-mina-2")
    assert accounts.player_of_session("s-mina") is None and accounts.player_of_session("s-mina-2") == mina
    accounts.start_session(mina.id, "s-mina-3", None)
    accounts.end_session("s-mina-3")
    assert accounts.player_of_session("s-mina-3") is None
    store.create_game(a_game("g1"))
    accounts.link_game(mina.id, "g1")
    accounts.link_game(mina.id, "g1")
    assert accounts.games_of(mina.id) == ["g1"] and accounts.players_of("g1") == [mina]
    accounts.end_sessions(mina.id)
    assert accounts.player_of_session("s-mina-2") is None
    accounts.delete_account(mina.id)
    assert accounts.account_named("mina") is None
    with pytest.raises(NameTaken):  # the deleted name stays held
        accounts.create_account("mina", "hash-5", "s-new", None, None)


def test_seat_players_and_chat(store: SQLStorage) -> None:
    accounts, seats, chat = SQLiteAccounts(store), SQLiteSeats(store), SQLiteChat(store)
    mina = accounts.create_account("mina", "h", "s1", None, None)
    ana = accounts.create_guest("Ana", "s2", None)
    store.create_game(a_game("g1"))
    seats.hold("g1", {0: mina.id})
    seats.hold("g1", {0: ana.id})  # a held seat keeps its player
    assert seats.holders("g1") == {0: mina}
    assert chat.seats_held(mina.id) == [("g1", 0)]
    first = chat.add("g1", "players", mina.id, "mina", False, 0, "hi")
    second = chat.add("g1", "players", ana.id, "Ana", True, None, "hello 100%")
    assert second.id > first.id
    assert [m.text for m in chat.history("g1", "players")] == ["hi", "hello 100%"]
    assert chat.history("g1", "players", most=1) == [second] and chat.message(first.id) == first
    assert chat.message(second.id).guest is True  # type: ignore[union-attr]
    chat.add_reader("g1", "players", ana.id)
    chat.add_reader("g1", "players", ana.id)
    assert chat.reads("g1", "players", ana.id) and not chat.reads("g1", "spectators", ana.id)
    chat.mute(mina.id, ana.id, True)
    chat.mute(mina.id, ana.id, True)
    assert chat.mutes(mina.id) == {ana.id}
    chat.mute(mina.id, ana.id, False)
    assert chat.mutes(mina.id) == set()
    assert chat.report(second.id, mina.id) and not chat.report(second.id, mina.id)
    [report] = chat.reports()
    assert (report["reporter"], report["text"], report["message"]) == ("mina", "hello 100%", second.id)


def test_clocks_are_kept_move_by_move_and_end_on_time(store: SQLStorage) -> None:
    clocks = ClockStore(store)
    store.create_game(a_game("g1"))
    deadline = 1_800_000_000_000  # milliseconds since the epoch: more than 32 bits hold
    clocks.create("g1", TimeControl(300, 2), {0: deadline - 300_000}, deadline)
    clocks.save("g1", {1: deadline}, deadline + 5, chosen=SeatClock(0, 10, 290_000))
    clocks.save("g1", {1: deadline}, deadline + 5, chosen=SeatClock(0, 20, 280_000))
    assert clocks.load("g1").chosen == [SeatClock(0, 20, 280_000)]  # type: ignore[union-attr]
    clocks.save("g1", {1: deadline}, deadline + 9, move=(0, [SeatClock(0, 1500, 298_500)]))
    clocks.save("g1", {1: deadline}, deadline + 9, move=(0, [SeatClock(0, 1600, 298_400)]))
    loaded = clocks.load("g1")
    assert loaded is not None and loaded.control == TimeControl(300, 2)
    assert (
        loaded.moves == {0: [SeatClock(0, 1600, 298_400)]} and loaded.chosen == [] and loaded.running == {1: deadline}
    )
    assert {"g1": TimeControl(300, 2)} == store.transaction(active_controls)
    assert clocks.due(deadline + 8) == [] and clocks.due(deadline + 9) == ["g1"]
    store.set_pending("g1", 1, "secret")
    result = {"returns": [1.0, -1.0], "winners": [0], "text": "on time"}
    assert clocks.end_on_time("g1", 1, result) and not clocks.end_on_time("g1", 1, result)
    loaded_game = store.load_game("g1")
    assert loaded_game is not None and loaded_game.status == FINISHED and loaded_game.pending == {}
    assert clocks.load("g1").flagged == 1 and clocks.due(deadline + 99) == []  # type: ignore[union-attr]
    assert clocks.load("nothing") is None


def test_ratings_profiles_and_search(store: SQLStorage) -> None:
    accounts, seats, profiles = SQLiteAccounts(store), SQLiteSeats(store), ProfileStore(store)
    mina = accounts.create_account("Mina", "h", "s1", None, None)
    accounts.create_account("minho", "h", "s2", None, None)
    guest = accounts.create_guest("Bora", "s3", None)
    store.create_game(a_game("g1", rated=True))
    seats.hold("g1", {0: mina.id})
    result = {"returns": [1.0, -1.0], "winners": [0], "text": "won"}
    assert profiles.end_game("g1", FINISHED, result) and not profiles.end_game("g1", FINISHED, result)
    assert profiles.unrated_ends() == ["g1"]
    both = [seat_of(mina, 10), seat_of("level:2", 10)]
    outcome = profiles.rate_once("g1", load_game("spline"), [1.0, -1.0], both, rated=True, finished=True)
    assert outcome["rated"] and outcome["ratings"][0]["after"] > outcome["ratings"][0]["before"]
    again = profiles.rate_once("g1", load_game("spline"), [-1.0, 1.0], both, rated=True, finished=True)
    assert again == outcome and profiles.unrated_ends() == []  # rated once
    stored = store.load_game("g1")
    assert stored is not None and stored.result is not None and stored.result["rated"] is True
    ratings, charts = profiles.ratings_of(mina.id)
    [(key, rating)] = ratings.items()
    assert rating.games == 1 and rating.rating == pytest.approx(outcome["ratings"][0]["after"])
    assert len(charts[key]) == 1 and charts[key][0][0] > 1_700_000_000  # a time, not rounded to 32 bits
    [line] = profiles.games_of(mina.id, active=False, limit=10, offset=0)
    assert line["id"] == "g1" and line["seats"] == [0] and line["rating"]["after"] > line["rating"]["before"]
    assert profiles.games_of(mina.id, active=True, limit=10, offset=0) == []
    assert [g["id"] for g in profiles.rated_games_of("level:2", 10, 0)] == ["g1"]
    assert profiles.player_named("MINA") == mina and profiles.player_named("bora") == guest
    assert profiles.search("MIN") == ["Mina", "minho"] and profiles.search("minh") == ["minho"]


def test_puzzle_tries_and_ratings(store: SQLStorage) -> None:
    puzzles = PuzzleStore(store)
    puzzle = Puzzle("spline", {}, "a position", ("0a1",), difficulty=4)
    other = Puzzle("spline", {}, "another position", ("0b1",), difficulty=1)
    rated = puzzles.end_try("p1", puzzle, solved=True, rated=True, now=1_700_000_000.5)
    assert rated is not None and rated.games == 1
    assert puzzles.end_try("p1", puzzle, solved=False, rated=True, now=1_700_000_001.0) is None  # once
    puzzles.note_hint("p1", other.id, 1_700_000_002.0)
    assert puzzles.end_try("p1", other, solved=True, rated=True, now=1_700_000_003.0) is None  # after a hint
    assert puzzles.tried("p1") == {puzzle.id, other.id}
    assert puzzles.ratings(["p1", "p2"], "spline") == {"p1": rated}
    assert set(puzzles.puzzle_ratings("spline")) == {puzzle.id}


# -- one SQL, one place ----------------------------------------------------------------------------------


def test_only_the_sqlite_implementation_imports_sqlite3() -> None:
    """The modules speak :class:`~spheria.server.database.Database`; only the SQLite engine knows sqlite3."""
    root = Path(spheria.__file__).parent
    importers = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if "sqlite3" in names or module == "sqlite3":
                importers.add(path.relative_to(root).as_posix())
    assert importers == {"server/database.py"}


def test_no_table_of_the_server_is_made_outside_the_migrations() -> None:
    root = Path(spheria.__file__).parent / "server"
    makers = {p.name for p in root.glob("*.py") if "CREATE TABLE" in p.read_text() or "ALTER TABLE" in p.read_text()}
    assert makers == {"migrations.py", "database.py"}  # database.py: its doctest's own table


def test_a_stored_time_keeps_its_fraction_of_a_second(store: SQLStorage) -> None:
    """PostgreSQL's REAL is 4 bytes: the schema must say DOUBLE PRECISION, or times lose minutes."""
    store.create_game(a_game("g1"))
    created = store.load_game("g1").created  # type: ignore[union-attr]
    stored = store.transaction(lambda db: db.execute("SELECT created FROM games").fetchone()[0])
    assert stored == created and json.dumps(stored) == json.dumps(created)


def test_the_operator_s_report_listing_reads_either_engine(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    from spheria.server import chat

    store = open_storage(target)
    try:
        mina = SQLiteAccounts(store).create_account("mina", "h", "s1", None, None)
        said = SQLiteChat(store).add("g1", "players", "someone", "Bo", True, None, "rude words")
        SQLiteChat(store).report(said.id, mina.id)
    finally:
        store.close()
    assert chat.main(["--db", target]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["text"] == "rude words" and json.loads(line)["reporter"] == "mina"


def test_serve_takes_a_sqlite_file_or_a_postgresql_url() -> None:
    import argparse

    from spheria.server.command import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    url = "postgresql://spheria@127.0.0.1:5432/spheria"
    assert parser.parse_args(["--db", url]).db == url
    assert "postgresql://" in parser.format_help()


def test_serve_names_a_database_it_cannot_open_and_a_redis_url_it_cannot_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Said in one line, with the password hidden, and no traceback (no server starts)."""
    from spheria.cli.main import main

    with pytest.raises(SystemExit) as refused:
        main(["--lang", "en", "serve", "--port", "1", "--db", "postgresql://mina:secret@127.0.0.1:1/nothing"])
    said = str(refused.value)
    assert said.startswith("spheria serve: cannot open the database postgresql://mina:***@127.0.0.1:1/nothing: ")
    assert "secret" not in said and "Traceback" not in said and "\n" not in said
    with pytest.raises(SystemExit) as refused:
        main(["--lang", "en", "serve", "--redis", "http://127.0.0.1:6379/0"])
    assert (
        str(refused.value) == "spheria serve: --redis must be a redis:// or rediss:// URL, not http://127.0.0.1:6379/0"
    )


#: Text an attacker sends where the server stores what people write (a chat message, a guest's name
#: at the store's level): SQL, and the placeholders of both engines' drivers, which must stay values.
HOSTILE = [
    "'); DROP TABLE games; --",
    "?', ?, ?) --",
    "%s %(name)s %% 100%",
    'Robert"); DELETE FROM players WHERE ("1"="1',
    "\\'; SELECT pg_sleep(10); --",
]


def test_client_text_reaches_the_database_only_as_values(store: SQLStorage) -> None:
    """Whatever a person writes is stored and read back exactly, on both engines, and changes nothing
    else: no statement is ever built from it (the PostgreSQL driver sees ``%s`` placeholders only)."""
    accounts, chat = SQLiteAccounts(store), SQLiteChat(store)
    store.create_game(a_game("g1"))
    mina = accounts.create_account("mina", "h", "s1", None, None)
    started = time.monotonic()
    said = [chat.add("g1", "players", mina.id, text, False, 0, text) for text in HOSTILE]
    assert time.monotonic() - started < 5  # pg_sleep never ran
    assert [(m.name, m.text) for m in chat.history("g1", "players")] == [(text, text) for text in HOSTILE]
    assert [chat.message(m.id) for m in said] == said
    guests = [accounts.create_guest(f"g{n}", f"s-guest-{n}", None) for n in range(len(HOSTILE))]
    assert [accounts.player_of_session(f"s-guest-{n}") for n in range(len(HOSTILE))] == guests
    assert store.load_game("g1") is not None and accounts.account_named("mina") == (mina, "h")  # nothing dropped
    assert [g.id for g in store.list_games()] == ["g1"]
