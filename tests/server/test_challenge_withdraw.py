"""Leaving a seat of a 3–4-seat Spinca challenge before it fills: ``DELETE /api/challenges/{id}/seat``
(docs/server.md, "Challenges and the lobby"), as a player and as an attacker would try it."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
from starlette.applications import Starlette
from starlette.testclient import TestClient

from spheria.server.accounts import SESSION_COOKIE
from tests.server.people import app, browser, guest, make_app, send
from tests.server.test_challenges import accept, next_frame, players_of, posted

__all__ = ["app", "make_app"]  # the fixtures, used by name

SPINCA_4 = {"game": "spinca", "options": {"players": 4}, "seat": 0}


def withdraw(client: TestClient, challenge_id: str) -> httpx.Response:
    return send(client, "DELETE", f"/api/challenges/{challenge_id}/seat")


def code(response: httpx.Response) -> str:
    found: str = response.json()["error"]["code"]
    return found


def joined_names(client: TestClient, challenge_id: str) -> list[Any]:
    return [p["name"] for p in client.get(f"/api/challenges/{challenge_id}").json()["joined"]]


def test_a_joined_player_leaves_and_the_seat_opens_for_another_and_every_lobby_hears_it(app: Starlette) -> None:
    mina, joon, hana, dae, watcher = (guest(app, name) for name in ("Mina", "Joon", "Hana", "Dae", "Suji"))
    challenge_id = posted(mina, **SPINCA_4)
    with watcher.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        assert accept(joon, challenge_id).json()["waiting"] == 2
        assert next_frame(lobby, "challenge")["event"] == "joined"
        left = withdraw(joon, challenge_id)
        assert left.status_code == 200, left.text
        assert left.json() == {"left": challenge_id, "waiting": 3}
        frame = next_frame(lobby, "challenge")
        assert frame["event"] == "left" and frame["challenge"]["status"] == "open"
        assert [p["name"] for p in frame["challenge"]["joined"]] == ["Mina"]
    assert joined_names(joon, challenge_id) == ["Mina"]
    for taker in (hana, dae):
        assert accept(taker, challenge_id).status_code == 200
    started = accept(joon, challenge_id)  # Joon may come back: the last seat is his again
    assert started.status_code == 200 and started.json()["game_id"], started.text
    names = [p["player"]["name"] for p in players_of(mina, started.json()["game_id"])]
    assert names == ["Mina", "Hana", "Dae", "Joon"]


def test_a_stranger_cannot_withdraw_someone_elses_seat(app: Starlette) -> None:
    mina, joon, stranger = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Mallory")
    challenge_id = posted(mina, **SPINCA_4)
    assert accept(joon, challenge_id).status_code == 200
    refused = withdraw(stranger, challenge_id)
    assert refused.status_code == 403 and code(refused) == "no_seat_held"
    assert joined_names(stranger, challenge_id) == ["Mina", "Joon"]  # nothing changed
    guesser = browser(app)
    guesser.cookies.set(SESSION_COOKIE, "not-a-session")  # a guessed session is nobody
    guessed = withdraw(guesser, challenge_id)
    assert guessed.status_code == 401 and code(guessed) == "not_signed_in"
    assert joined_names(mina, challenge_id) == ["Mina", "Joon"]


def test_withdrawing_needs_the_csrf_token_and_an_open_challenge(app: Starlette) -> None:
    mina, joon, hana = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Hana")
    challenge_id = posted(mina, game="spinca", options={"players": 3}, seat=0)
    assert accept(joon, challenge_id).status_code == 200
    forged = joon.request("DELETE", f"/api/challenges/{challenge_id}/seat", json={})  # no X-CSRF-Token header
    assert forged.status_code == 403 and code(forged) == "bad_csrf"
    foreign = send(joon, "DELETE", f"/api/challenges/{challenge_id}/seat", Origin="https://evil.example")
    assert foreign.status_code == 403 and code(foreign) == "bad_origin"
    assert joined_names(joon, challenge_id) == ["Mina", "Joon"]
    poster = withdraw(mina, challenge_id)  # the poster cancels instead
    assert poster.status_code == 409 and code(poster) == "poster_cancels"
    assert withdraw(joon, "no-such-challenge").status_code == 404
    assert accept(hana, challenge_id).json()["game_id"]  # full: the game started
    late = withdraw(joon, challenge_id)
    assert late.status_code == 409 and code(late) == "challenge_closed"


def test_leaving_twice_is_refused_the_second_time(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    challenge_id = posted(mina, **SPINCA_4)
    assert accept(joon, challenge_id).status_code == 200
    assert withdraw(joon, challenge_id).status_code == 200
    again = withdraw(joon, challenge_id)
    assert again.status_code == 403 and code(again) == "no_seat_held"
    assert "seat" in again.json()["error"]["message"]
    korean = send(joon, "DELETE", f"/api/challenges/{challenge_id}/seat", **{"Accept-Language": "ko"})
    assert code(korean) == "no_seat_held" and "자리" in korean.json()["error"]["message"]
