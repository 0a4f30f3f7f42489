"""Attacks on open challenges and the lobby, as an attacker would make them (docs/server.md,
Challenges and the lobby): each must get a clear error and leave everything as it was."""

from __future__ import annotations

import asyncio

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from spheria.server.accounts import CSRF_COOKIE
from tests.server import people
from tests.server.people import MakeApp, account, browser, guest, send
from tests.server.test_challenges import (
    MINT,
    accept,
    claim,
    next_frame,
    open_ids,
    post,
    posted,
)

app, make_app = people.app, people.make_app  # the fixtures


def code(response: httpx.Response) -> str:
    error: str = response.json()["error"]["code"]
    return error


def test_accepting_ones_own_challenge_is_refused_and_it_stays_open(app: Starlette) -> None:
    poster = guest(app, "Mina")
    challenge_id = posted(poster)
    response = accept(poster, challenge_id)
    assert response.status_code == 409 and code(response) == "own_challenge"
    assert "own challenge" in response.json()["error"]["message"]
    assert open_ids(poster) == [challenge_id] and app.state.manager.sessions == {}


def test_two_accepts_raced_at_once_make_exactly_one_game(app: Starlette) -> None:
    poster = guest(app, "Mina")
    challenge_id = posted(poster)
    takers = [guest(app, name) for name in ("Joon", "Hana")]

    async def race() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        clients = [
            httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=dict(t.cookies))
            for t in takers
        ]
        try:
            calls = [
                c.post(
                    f"/api/challenges/{challenge_id}/accept",
                    json={},
                    headers={"X-CSRF-Token": t.cookies.get(CSRF_COOKIE) or ""},
                )
                for c, t in zip(clients, takers, strict=True)
            ]
            return list(await asyncio.gather(*calls))
        finally:
            for c in clients:
                await c.aclose()

    answers = app.state.test_keeper.portal.call(race)
    assert sorted(a.status_code for a in answers) == [200, 409]
    loser = next(a for a in answers if a.status_code == 409)
    assert code(loser) == "challenge_taken" and "already taken" in loser.json()["error"]["message"]
    assert len(app.state.manager.sessions) == 1
    winner = next(a for a in answers if a.status_code == 200).json()
    assert winner["game_id"] in app.state.manager.sessions


def test_a_stranger_cannot_cancel_someone_elses_challenge(app: Starlette) -> None:
    poster, stranger = guest(app, "Mina"), guest(app, "Joon")
    challenge_id = posted(poster)
    response = send(stranger, "DELETE", f"/api/challenges/{challenge_id}")
    assert response.status_code == 403 and code(response) == "not_poster"
    nobody = send(browser(app), "DELETE", f"/api/challenges/{challenge_id}")
    assert nobody.status_code == 401 and code(nobody) == "not_signed_in"
    assert open_ids(stranger) == [challenge_id]


def test_a_seat_won_by_a_challenge_cannot_be_taken_with_a_leaked_invite(app: Starlette) -> None:
    poster, taker, thief = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Hana")
    answer = accept(taker, posted(poster)).json()
    assert claim(thief, answer["game_id"], answer["invite"])["code"] == "not_your_seat"
    assert claim(browser(app), answer["game_id"], answer["invite"])["code"] == "not_your_seat"
    assert claim(taker, answer["game_id"], answer["invite"])["type"] == "claimed"


def test_a_flood_of_challenges_from_one_player_is_limited(make_app: MakeApp) -> None:
    app = make_app(challenges_per_player=3, challenges_open_per_player=10)
    poster = guest(app, "Mina")
    for _ in range(3):
        challenge_id = posted(poster)
        assert send(poster, "DELETE", f"/api/challenges/{challenge_id}").status_code == 200
    response = post(poster)
    assert response.status_code == 429 and code(response) == "rate_limited"
    assert int(response.headers["Retry-After"]) > 0
    assert open_ids(poster) == []
    assert post(guest(app, "Joon")).status_code == 201  # another player is not held back


def test_a_flood_of_challenges_from_one_address_is_limited_across_players(make_app: MakeApp) -> None:
    app = make_app(challenges_per_address=4, challenges_per_player=10)
    for index in range(4):
        assert post(guest(app, f"Mina{index}")).status_code == 201
    response = post(guest(app, "Joon"))  # a fresh guest from the same address
    assert response.status_code == 429 and code(response) == "rate_limited"
    assert len(open_ids(browser(app))) == 4


def test_a_player_has_few_open_challenges_at_once(make_app: MakeApp) -> None:
    app = make_app(challenges_open_per_player=2)
    poster = guest(app, "Mina")
    posted(poster)
    posted(poster)
    response = post(poster)
    assert response.status_code == 429 and "2 open challenges" in response.json()["error"]["message"]


def test_a_guest_cannot_post_or_take_a_rated_challenge(app: Starlette) -> None:
    visitor = guest(app, "Mina")
    response = post(visitor, rated=True)
    assert response.status_code == 403 and code(response) == "rated_needs_account"
    assert "registered" in response.json()["error"]["message"] and open_ids(visitor) == []
    rated = posted(account(app, "Joon"), rated=True)
    response = accept(visitor, rated)
    assert response.status_code == 403 and code(response) == "rated_needs_account"
    assert open_ids(visitor) == [rated]


@pytest.mark.parametrize("opponent", ["random", "mcts", "Level-3", "admin", "level:9", "level:x", "<b>x</b>", 7])
def test_a_challenge_to_an_agent_or_house_name_that_is_not_a_level_is_refused(app: Starlette, opponent: object) -> None:
    client = account(app, "Mina")
    response = post(client, opponent=opponent)
    assert response.status_code == 400, response.text
    assert code(response) in ("bad_opponent", "bad_name")
    assert open_ids(client) == [] and app.state.manager.sessions == {}


def test_challenging_oneself_by_name_is_refused(app: Starlette) -> None:
    client = account(app, "Mina")
    assert code(post(client, opponent="MINA")) == "own_challenge"


@pytest.mark.parametrize(
    ("fields", "error", "named"),
    [
        ({"options": {"variant": "lemon"}}, "bad_game", "variant"),
        ({"options": {"variant": "x" * 101}}, "bad_game", "variant"),
        ({"options": {"colour": "red"}}, "bad_game", "colour"),
        ({"options": ["mint"]}, "bad_game", "options"),
        ({"options": {"variant": {"deep": 1}}}, "bad_game", "variant"),
        ({"game": "chess"}, "bad_game", "chess"),
        ({"seat": 2}, "bad_seat", "0 to 1"),
        ({"seat": True}, "bad_seat", "0 to 1"),
        ({"rated": "yes"}, "bad_request", "rated"),
        ({"colour": "white"}, "bad_request", "colour"),
    ],
)
def test_malformed_challenges_get_errors_naming_the_problem(
    app: Starlette, fields: dict[str, object], error: str, named: str
) -> None:
    client = guest(app, "Mina")
    response = post(client, **fields)
    assert response.status_code == 400, response.text
    assert code(response) == error and named in response.json()["error"]["message"]
    assert open_ids(client) == []


def test_an_oversized_challenge_is_refused(app: Starlette) -> None:
    client = guest(app, "Mina")
    response = post(client, options={f"o{i}": "x" * 90 for i in range(300)})
    assert response.status_code == 413 and code(response) == "too_large"


def test_a_lobby_socket_flood_is_rate_limited_and_malformed_frames_are_named(make_app: MakeApp) -> None:
    app = make_app(frame_rate=5.0)
    client = browser(app)
    with client.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        for _ in range(40):
            lobby.send_json({"type": "ping"})
        frames = [lobby.receive_json() for _ in range(40)]
        limited = [f for f in frames if f["type"] == "error"]
        assert limited and all(f["code"] == "rate_limited" for f in limited)
    with client.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        lobby.send_text("{not json")
        assert next_frame(lobby, "error")["code"] == "bad_frame"
        lobby.send_text("x" * 5000)
        assert next_frame(lobby, "error")["code"] == "bad_frame"
        lobby.send_json({"type": "follow", "games": ["chess"]})
        assert next_frame(lobby, "error")["code"] == "bad_game"
        lobby.send_json({"type": "follow", "games": ["spline"] * 50})
        assert next_frame(lobby, "error")["code"] == "bad_frame"
        lobby.send_json({"type": "ping"})
        assert next_frame(lobby, "pong") == {"type": "pong"}  # still up


def test_lobby_sockets_from_one_address_are_capped(make_app: MakeApp) -> None:
    app = make_app(connections_per_address=2)
    client = browser(app)
    with client.websocket_connect("/ws/lobby") as first, client.websocket_connect("/ws/lobby") as second:
        next_frame(first, "lobby")
        next_frame(second, "lobby")
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect("/ws/lobby") as third:
            third.receive_json()
        assert refused.value.code == 1008


def test_challenges_from_a_foreign_origin_or_without_the_token_are_refused(app: Starlette) -> None:
    poster, taker = guest(app, "Mina"), guest(app, "Joon")
    evil = send(poster, "POST", "/api/challenges", MINT, Origin="http://evil.example")
    assert evil.status_code == 403 and code(evil) == "bad_origin"
    forged = poster.post("/api/challenges", json=MINT)  # no X-CSRF-Token header
    assert forged.status_code == 403 and code(forged) == "bad_csrf"
    challenge_id = posted(poster)
    forged = taker.post(f"/api/challenges/{challenge_id}/accept", json={})
    assert forged.status_code == 403 and code(forged) == "bad_csrf"
    forged = poster.request("DELETE", f"/api/challenges/{challenge_id}", json={})
    assert forged.status_code == 403 and code(forged) == "bad_csrf"
    assert open_ids(taker) == [challenge_id]
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        taker.websocket_connect("/ws/lobby", headers={"Origin": "http://evil.example"}) as ws,
    ):
        ws.receive_json()
    assert refused.value.code == 1008


def test_nobody_signed_out_posts_or_accepts(app: Starlette) -> None:
    nobody: TestClient = browser(app)
    assert code(post(nobody)) == "not_signed_in"
    challenge_id = posted(guest(app, "Mina"))
    assert code(accept(nobody, challenge_id)) == "not_signed_in"
    assert code(accept(guest(app, "Joon"), "no-such-id")) == "unknown_challenge"


def test_serve_options_set_the_challenge_limits() -> None:
    import argparse

    from spheria.server.command import add_arguments, limits_of
    from spheria.server.limits import Limits

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = limits_of(parser.parse_args([]))
    assert defaults.challenges_per_address == Limits.challenges_per_address
    assert defaults.challenge_ttl_seconds == Limits.challenge_ttl_seconds
    options = (
        "--challenges-per-address 7 --challenges-per-player 2 --challenge-window-minutes 3"
        " --challenges-open-per-player 1 --challenge-grace 5 --challenge-ttl-minutes 0"
    )
    asked = limits_of(parser.parse_args(options.split()))
    assert (asked.challenges_per_address, asked.challenges_per_player, asked.challenges_open_per_player) == (7, 2, 1)
    assert (asked.challenge_window_seconds, asked.challenge_grace_seconds, asked.challenge_ttl_seconds) == (180, 5, 0)
