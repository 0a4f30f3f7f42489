"""Rated games: the flag stored with the game (``games.rated``, set at creation), the migration of
a file that kept rated games in their own table, and the startup pass that rates an ended rated
game whose end was never rated (docs/server.md, "Ratings")."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from spheria.server.storage import SQLiteStorage
from tests.server.people import invite, new_game, send
from tests.server.test_profiles import (
    MINT,
    MakeServer,
    Server,
    make_server,
    play_to_end,
    profile,
)
from tests.server.test_server import HUMAN, join

__all__ = ["make_server"]  # the fixture, used by name

#: The tables of a file written before ``games.rated`` (the columns then, and ``rated_games``).
OLD_SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER,
    status TEXT NOT NULL DEFAULT 'active', result TEXT, created REAL NOT NULL, updated REAL NOT NULL,
    owner_hash TEXT, start TEXT, hints INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL, kind TEXT NOT NULL, agent TEXT,
    token_hash TEXT, claim_hash TEXT, PRIMARY KEY (game_id, seat)
);
CREATE TABLE rated_games (game_id TEXT PRIMARY KEY);
"""


def write_old_file(path: Path) -> None:
    """A file from before the column: games ``old-rated`` (in ``rated_games``) and ``old-casual``."""
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    now = time.time()
    for game_id in ("old-rated", "old-casual"):
        db.execute(
            "INSERT INTO games (id, name, options, seed, status, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, "special-cake", json.dumps({"variant": "mint"}), 5, "active", now, now),
        )
        for seat in (0, 1):
            db.execute("INSERT INTO seats (game_id, seat, kind) VALUES (?, ?, 'human')", (game_id, seat))
    db.execute("INSERT INTO rated_games (game_id) VALUES ('old-rated')")
    db.commit()
    db.close()


def tables_of(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        db.close()


def test_an_old_file_opens_with_its_rated_games_moved_into_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    write_old_file(path)
    store = SQLiteStorage(str(path))
    rated, casual = store.load_game("old-rated"), store.load_game("old-casual")
    store.close()
    assert rated is not None and casual is not None
    assert rated.rated is True and casual.rated is False
    assert "rated_games" not in tables_of(path)
    again = SQLiteStorage(str(path))  # opening it once more changes nothing
    reopened = again.load_game("old-rated")
    again.close()
    assert reopened is not None and reopened.rated is True


def test_an_old_file_serves_its_rated_game_as_rated(make_server: MakeServer, tmp_path: Path) -> None:
    write_old_file(tmp_path / "games.sqlite3")  # the file the server opens
    server = make_server()
    session = server.keeper.portal.call(server.manager.load, "old-rated")  # type: ignore[union-attr]
    assert session is not None and session.stored.rated is True
    assert "rated_games" not in tables_of(tmp_path / "games.sqlite3")


@pytest.fixture
def server_with_two(make_server: MakeServer) -> tuple[Server, TestClient, TestClient]:
    """A server and the browsers of two accounts, Kim and Lee."""
    server = make_server()
    return server, server.browser("Kim"), server.browser("Lee")


def stored_rated(server: Server, game_id: str) -> bool:
    session = server.keeper.portal.call(server.manager.load, game_id)  # type: ignore[union-attr]
    assert session is not None
    return session.stored.rated


def test_a_game_is_rated_or_casual_from_its_creation(server_with_two: tuple[Server, TestClient, TestClient]) -> None:
    server, kim, lee = server_with_two
    assert stored_rated(server, new_game(kim, "spline", [HUMAN, HUMAN], rated=True)["id"]) is True
    assert stored_rated(server, new_game(kim, "spline", [HUMAN, HUMAN])["id"]) is False
    for rated in (True, False):
        body = {"game": "special-cake", "options": MINT, "seat": 0, "rated": rated}
        posted = send(kim, "POST", "/api/challenges", body)
        assert posted.status_code == 201, posted.text
        accepted = send(lee, "POST", f"/api/challenges/{posted.json()['id']}/accept")
        assert accepted.status_code == 200, accepted.text
        assert stored_rated(server, accepted.json()["game_id"]) is rated


def test_the_rematch_of_a_rated_game_is_rated(server_with_two: tuple[Server, TestClient, TestClient]) -> None:
    server, kim, lee = server_with_two
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        play_to_end({0: first, 1: second}, states)
    assert send(kim, "POST", f"/api/games/{created['id']}/rematch").status_code == 202
    rematch = send(lee, "POST", f"/api/games/{created['id']}/rematch")
    assert rematch.status_code == 201, rematch.text
    assert stored_rated(server, rematch.json()["game_id"]) is True


def test_a_rated_game_whose_end_was_never_rated_is_rated_once_at_startup(make_server: MakeServer) -> None:
    server = make_server()
    server.manager.end_hooks.clear()  # the server dies between the game's end and its rating
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        final = play_to_end({0: first, 1: second}, states)
    assert final[0]["terminal"] and "rated" not in final[0]["result"]
    assert profile(kim, "Kim")["ratings"] == {}
    server.keeper.__exit__(None, None, None)

    restarted = make_server()  # nobody opens the game: the startup pass rates it
    rated = profile(restarted.browser(), "Kim")
    assert rated["ratings"]["spline"]["games"] == 1 and rated["ratings"]["spline"]["rating"] != 1500
    assert profile(restarted.browser(), "Lee")["ratings"]["spline"]["games"] == 1
    (line,) = rated["games"]
    assert line["id"] == created["id"] and line["rating"] is not None
    restarted.keeper.__exit__(None, None, None)

    again = make_server()  # a second start rates nothing again
    assert profile(again.browser(), "Kim")["ratings"] == rated["ratings"]
    assert profile(again.browser(), "Kim")["history"] == rated["history"]
    with again.browser().websocket_connect(path) as ws:
        _, state = join(ws)
    assert state["result"]["rated"] is True
    assert state["result"]["ratings"][0]["after"] == pytest.approx(line["rating"]["after"], abs=0.01)


def test_a_casual_or_unfinished_game_is_left_alone_at_startup(make_server: MakeServer) -> None:
    server = make_server()
    server.manager.end_hooks.clear()
    kim, lee = server.browser("Kim"), server.browser("Lee")
    casual = new_game(kim, "spline", [HUMAN, HUMAN])
    path = f"/ws/{casual['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(casual, 0))[1], 1: join(second, invite(casual, 1))[1]}
        play_to_end({0: first, 1: second}, states)
    new_game(kim, "spline", [HUMAN, HUMAN], rated=True)  # rated, not played
    server.keeper.__exit__(None, None, None)
    restarted = make_server()
    assert profile(restarted.browser(), "Kim")["ratings"] == {}
    assert profile(restarted.browser(), "Kim")["history"] == {}
