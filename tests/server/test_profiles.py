"""Profiles, ratings at the end of games, resign, abort and rematch through the HTTP and websocket
interfaces (docs/server.md, "Profiles" and "Resign, abort and rematch"), on a real app with its
SQLite file: two browsers with their own cookies, sharing the app's event loop."""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

import spheria
from spheria.kernel.record import Record
from spheria.ratings import NEW, level_seed, rate_game, rating_key
from spheria.server.command import add_arguments, limits_of
from spheria.server.session import SessionManager
from tests.server import people
from tests.server.people import Frame, error_code, invite, new_game, register, send, started_apps
from tests.server.test_server import HUMAN, join, receive, state_at

MINT = {"variant": "mint"}


@dataclass
class Server:
    """A started app and what makes browsers of it (each its own cookies, all on the app's loop)."""

    app: Starlette

    @property
    def keeper(self) -> TestClient:
        """The client that runs the app (its lifespan and its one event loop)."""
        keeper: TestClient = self.app.state.test_keeper
        return keeper

    def browser(self, name: str | None = None, guest: bool = False) -> TestClient:
        """A browser; given a name, signed in under it as a guest or (by default) a new account."""
        if name is None:
            return people.browser(self.app)
        return people.guest(self.app, name) if guest else people.account(self.app, name)

    @property
    def manager(self) -> SessionManager:
        manager: SessionManager = self.app.state.manager
        return manager


MakeServer = Callable[..., Server]


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[MakeServer]:
    """``make_server(**limits)``: a started app (on the test's one SQLite file: a second is a restart)."""
    with started_apps(tmp_path) as make:
        yield lambda **limits: Server(make(**limits))


@pytest.fixture
def server(make_server: MakeServer) -> Server:
    return make_server()


def profile(client: TestClient, name: str, **query: Any) -> Frame:
    response = client.get(f"/api/players/{name}", params=query)
    assert response.status_code == 200, response.text
    data: Frame = response.json()
    return data


def play_to_end(sockets: dict[int, WebSocketTestSession], states: dict[int, Frame], seed: int = 3) -> dict[int, Frame]:
    """Random legal moves, each by the socket of the seat to move (agents play their own), until
    the game ends; every socket's last frame."""
    rng = random.Random(seed)
    while not next(iter(states.values()))["terminal"]:
        version = max(state["version"] for state in states.values())
        movers = [seat for seat, state in states.items() if state["legal_moves"]]
        if movers:
            move = rng.choice(states[movers[0]]["legal_moves"])
            sockets[movers[0]].send_json({"type": "move", "move": move, "version": version})
        states = {seat: state_at(ws, version + 1) for seat, ws in sockets.items()}
    return states


def move_once(sockets: dict[int, WebSocketTestSession], states: dict[int, Frame]) -> dict[int, Frame]:
    """The seat to move plays its first legal move; every socket's frame after it."""
    version = max(state["version"] for state in states.values())
    mover = next(seat for seat, state in states.items() if state["legal_moves"])
    sockets[mover].send_json({"type": "move", "move": states[mover]["legal_moves"][0], "version": version})
    return {seat: state_at(ws, version + 1) for seat, ws in sockets.items()}


def expected_changes(game: Any, returns: list[float]) -> dict[str, Any]:
    """What spheria.ratings computes for two newcomers ``a`` (seat 0) and ``b`` (seat 1)."""
    return rate_game(game, returns, ["a", "b"], {"a": NEW, "b": NEW}, datetime.now(UTC))


def test_a_rated_game_between_two_accounts_moves_both_ratings_as_glicko2_does(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "special-cake", [HUMAN, HUMAN], rated=True, **MINT)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        final = play_to_end({0: first, 1: second}, states)
    result = final[0]["result"]
    assert result == final[1]["result"]
    game = spheria.load_game("special-cake", **MINT)
    changes = expected_changes(game, result["returns"])
    assert result["rated"] is True and result["unrated"] is None
    for seat, name in enumerate("ab"):
        shown = result["ratings"][seat]
        assert shown["before"] == pytest.approx(1500.0)
        assert shown["after"] == pytest.approx(changes[name].after.rating, abs=1e-6)
        assert shown["provisional"] is True and shown["after"] != shown["before"]
    listed = next(line for line in kim.get("/api/games").json()["games"] if line["id"] == created["id"])
    assert listed["result"] == result  # the stored result says what changed too
    key = rating_key(game)
    for who, seat in (("Kim", 0), ("Lee", 1)):
        data = profile(lee, who)
        assert data["name"] == who and data["guest"] is False
        rating = data["ratings"][key]
        assert rating["games"] == 1 and rating["provisional"] is True
        assert rating["rating"] == pytest.approx(changes["ab"[seat]].after.rating, abs=0.01)
        assert rating["deviation"] == pytest.approx(changes["ab"[seat]].after.deviation, abs=0.01)
        assert [point[1] for point in data["history"][key]] == [pytest.approx(rating["rating"], abs=0.01)]
        (line,) = data["games"]
        assert line["id"] == created["id"] and line["status"] == "finished" and line["seats"] == [seat]
        other = "Lee" if who == "Kim" else "Kim"
        assert line["opponents"] == [{"seat": 1 - seat, "name": other, "guest": False, "deleted": False}]
        assert line["result"]["winners"] == result["winners"]
        assert line["rating"]["after"] == pytest.approx(rating["rating"], abs=0.01)
        assert line["replay"] == f"/replay/{created['id']}" and line["analysis"] == f"/analysis?record={created['id']}"
        assert data["playing"] == []


def test_a_casual_game_leaves_ratings_alone_and_is_listed(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        final = play_to_end({0: first, 1: second}, states)
    result = final[0]["result"]
    assert result["rated"] is False and result["unrated"] == "casual" and result["ratings"] == [None, None]
    for who in ("Kim", "Lee"):
        data = profile(kim, who)
        assert data["ratings"] == {} and data["history"] == {}
        assert [line["id"] for line in data["games"]] == [created["id"]]


def test_a_level_agent_gains_a_rating_from_its_seed(server: Server) -> None:
    kim = server.browser("Kim")
    created = new_game(kim, "spline", [HUMAN, {"kind": "agent", "agent": "level:1"}], rated=True)
    with kim.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, invite(created, 0))
        final = play_to_end({0: ws}, {0: state})[0]
    game = spheria.load_game("spline")
    seed = level_seed(game, 1)
    result = final["result"]
    assert result["rated"] is True
    assert result["ratings"][1]["before"] == pytest.approx(seed.rating)
    expected = rate_game(game, result["returns"], ["kim", "level:1"], {"kim": NEW, "level:1": seed}, datetime.now(UTC))
    assert result["ratings"][1]["after"] == pytest.approx(expected["level:1"].after.rating, abs=1e-6)
    level = profile(kim, "level:1", game="spline")
    assert level["name"] == "level:1" and level["level"] == 1
    assert level["ratings"]["spline"]["games"] == 1
    assert level["ratings"]["spline"]["rating"] == pytest.approx(expected["level:1"].after.rating, abs=0.01)
    assert [line["id"] for line in level["games"]] == [created["id"]]
    untouched = profile(kim, "level:2", game="spline")["ratings"]["spline"]
    assert untouched["games"] == 0 and untouched["rating"] == pytest.approx(level_seed(game, 2).rating)
    assert kim.get("/api/players/level:9").status_code == 404


def test_resigning_after_both_moved_ends_the_game_as_a_rated_resignation(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        sockets = {0: first, 1: second}
        states = move_once(sockets, move_once(sockets, states))
        response = send(lee, "POST", f"/api/games/{created['id']}/resign")
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "finished"
        frames = {seat: receive(ws, lambda f: f["type"] == "state" and f["terminal"]) for seat, ws in sockets.items()}
    result = frames[0]["result"]
    assert result["reason"] == {"code": "resigned", "seat": 1} and result["winners"] == [0]
    assert result["returns"] == [1.0, -1.0] and result["text"] == "Black resigned."  # the game's seat name
    assert frames[1]["legal_moves"] == [] and frames[1]["code"] == {"code": "over", "winners": [0]}
    assert result["rated"] is True and result["ratings"][0]["after"] > 1500 > result["ratings"][1]["after"]
    assert profile(kim, "Kim")["ratings"]["spline"]["games"] == 1
    record = kim.get(f"/api/games/{created['id']}/record")
    assert record.status_code == 200 and len(record.json()["moves"]) == 2 and record.json()["resigned"] == 1
    assert Record.from_json(record.json()).finished  # a record file of a resigned game, as the CLI writes
    assert send(kim, "POST", f"/api/games/{created['id']}/resign").status_code == 409  # over already


def test_resigning_before_every_seat_moved_aborts_unrated_and_both_histories_list_it(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        move_once({0: first, 1: second}, states)  # only seat 0 has moved
        response = send(kim, "POST", f"/api/games/{created['id']}/resign")
        assert response.status_code == 200, response.text
        frame = receive(second, lambda f: f["type"] == "state" and f["terminal"])
    assert response.json()["status"] == "aborted"
    result = frame["result"]
    assert result["reason"] == {"code": "aborted", "seat": 0} and result["winners"] == []
    assert result["rated"] is False and result["unrated"] == "aborted"
    assert frame["aborted"] is True
    for who in ("Kim", "Lee"):
        data = profile(kim, who)
        assert data["ratings"] == {}
        assert [(line["id"], line["status"]) for line in data["games"]] == [(created["id"], "aborted")]


def test_a_seat_claimed_without_a_session_resigns_with_its_credential(server: Server) -> None:
    nobody = server.browser()
    created = new_game(nobody, "spline", [HUMAN, {"kind": "agent", "agent": "random:seed=5"}])
    with nobody.websocket_connect(f"/ws/{created['id']}") as ws:
        ws.send_json({"type": "join", "token": invite(created, 0)})
        credential = receive(ws, lambda f: f["type"] == "claimed")["credential"]
        state = receive(ws, lambda f: f["type"] == "state")
        state = move_once({0: ws}, {0: state})[0]
        receive(ws, lambda f: f["type"] == "state" and f["to_move"] == 0)
        response = send(nobody, "POST", f"/api/games/{created['id']}/resign", {"credential": credential})
    assert response.status_code == 200, response.text
    assert response.json()["result"]["reason"] == {"code": "resigned", "seat": 0}
    assert response.json()["result"]["unrated"] == "casual"


def test_a_rematch_is_offered_then_accepted_with_seats_swapped(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    game_id = created["id"]
    path = f"/ws/{game_id}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        assert send(kim, "POST", f"/api/games/{game_id}/rematch").status_code == 409  # not over yet
        play_to_end({0: first, 1: second}, states)
        offered = send(kim, "POST", f"/api/games/{game_id}/rematch")
        assert offered.status_code == 202 and offered.json() == {"offered": [0]}
        assert receive(second, lambda f: f["type"] == "rematch_offer")["seats"] == [0]
        accepted = send(lee, "POST", f"/api/games/{game_id}/rematch")
        assert accepted.status_code == 201, accepted.text
        new_id = accepted.json()["game_id"]
        assert accepted.json()["seat"] == 0 and accepted.json()["invite"].startswith(f"/game/{new_id}#")
        told = receive(first, lambda f: f["type"] == "rematch")
    assert told["game_id"] == new_id and told["seat"] == 1 and told["invite"].startswith(f"/game/{new_id}#")
    again = send(kim, "POST", f"/api/games/{game_id}/rematch")  # Kim's browser lost the frame: asks again
    assert again.status_code == 201 and again.json()["invite"] == told["invite"]
    assert {line["id"]: line["seats"] for line in profile(kim, "Kim")["playing"]} == {new_id: [1]}
    assert {line["id"]: line["seats"] for line in profile(kim, "Lee")["playing"]} == {new_id: [0]}
    with kim.websocket_connect(f"/ws/{new_id}") as ws:
        welcome, _ = join(ws, told["invite"].split("#", 1)[1])
    assert welcome["seat"] == 1


def test_a_game_is_rated_once_though_its_end_is_processed_again(make_server: MakeServer) -> None:
    server = make_server()
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        final = play_to_end({0: first, 1: second}, states)
    before = profile(kim, "Kim")
    session = server.keeper.portal.call(server.manager.get, created["id"])  # type: ignore[union-attr]
    assert session is not None
    session.outcome = {}
    server.keeper.portal.call(server.manager.game_ended, session)  # type: ignore[union-attr]
    assert session.outcome["ratings"] == final[0]["result"]["ratings"]
    server.keeper.__exit__(None, None, None)  # a restart: the game's end is processed once more
    restarted = make_server()
    with restarted.browser().websocket_connect(path) as ws:
        _, state = join(ws)
    assert state["result"]["ratings"] == final[0]["result"]["ratings"]
    after = profile(restarted.browser(), "Kim")
    assert after["ratings"] == before["ratings"] and after["ratings"]["spline"]["games"] == 1
    assert after["history"] == before["history"]


def test_profiles_page_their_games_and_search_finds_names_by_prefix(server: Server) -> None:
    kim = server.browser("Kim")
    ids = []
    for _ in range(3):
        created = new_game(kim, "spline", [HUMAN, HUMAN])
        with kim.websocket_connect(f"/ws/{created['id']}") as ws:
            join(ws, invite(created, 0))
        assert send(kim, "POST", f"/api/games/{created['id']}/resign").status_code == 200  # aborted at once
        ids.append(created["id"])
    playing = new_game(kim, "spline", [HUMAN, HUMAN])["id"]  # created, no seat claimed yet: in play
    first = profile(kim, "Kim", limit=2)
    assert [line["id"] for line in first["games"]] == ids[::-1][:2] and first["next"] == 2
    assert [line["id"] for line in first["playing"]] == [playing]
    rest = profile(kim, "Kim", limit=2, cursor=first["next"])
    assert [line["id"] for line in rest["games"]] == ids[:1] and rest["next"] is None
    for name in ("Kimchi", "kimbap", "Lee", "Ki_m"):
        register(server.browser(), name)
    found = kim.get("/api/players", params={"prefix": "KIM"}).json()["players"]
    assert [player["name"] for player in found] == ["Kim", "kimbap", "Kimchi"]
    assert kim.get("/api/players", params={"prefix": "ki_"}).json()["players"] == [{"name": "Ki_m"}]
    assert kim.get("/api/players/kim").json()["name"] == "Kim"  # names are found whatever their case


def test_a_guest_has_a_profile_and_a_deleted_account_has_none(server: Server) -> None:
    guest = server.browser("Visitor", guest=True)
    data = profile(guest, "Visitor")
    assert data["guest"] is True and data["ratings"] == {}
    gone = server.browser("Gone")
    response = send(gone, "DELETE", "/api/account", {"password": "correct horse battery"})
    assert response.status_code == 200
    missing = guest.get("/api/players/Gone")
    assert missing.status_code == 404 and error_code(missing) == "unknown_player"
    assert guest.get("/api/players/nobody_here").status_code == 404


def test_the_player_search_limit_is_a_serve_option() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert limits_of(parser.parse_args(["--player-search-per-minute", "7"])).player_search_per_minute == 7
