"""Attacks on resign, ratings and profiles, written as an attacker would try them
(docs/server.md, "Profiles" and "Resign, abort and rematch")."""

from __future__ import annotations

import json
from typing import Any

from spheria.server.accounts import CSRF_COOKIE, SESSION_COOKIE
from tests.server.people import error_code, invite, new_game, send
from tests.server.test_profiles import (
    MakeServer,
    Server,
    make_server,
    move_once,
    profile,
    server,
)
from tests.server.test_server import HUMAN, join, receive

__all__ = ["make_server", "server"]  # the fixtures


def test_a_stranger_cannot_resign_anothers_seat(server: Server) -> None:
    kim, lee, mallory = server.browser("Kim"), server.browser("Lee"), server.browser("Mallory")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        join(first, invite(created, 0))
        join(second, invite(created, 1))
        resign = f"/api/games/{created['id']}/resign"
        by_session = send(mallory, "POST", resign)
        by_invite = send(mallory, "POST", resign, {"credential": invite(created, 0)})  # the invite is no credential
        by_guess = send(mallory, "POST", resign, {"credential": "x" * 43})
        too_long = send(mallory, "POST", resign, {"credential": "x" * 5000})
        forged = mallory.post(resign, json={})  # no CSRF header: a foreign page's post
        for response in (by_session, by_invite, by_guess):
            assert response.status_code == 403 and error_code(response) == "not_seat_holder"
        assert too_long.status_code in (403, 413)
        assert forged.status_code == 403 and error_code(forged) == "bad_csrf"
    assert kim.get(f"/api/games/{created['id']}").json()["status"] == "active"


def test_a_finished_game_cannot_be_resigned_or_rated_again(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
        move_once({0: first, 1: second}, move_once({0: first, 1: second}, states))
        assert send(lee, "POST", f"/api/games/{created['id']}/resign").status_code == 200
        receive(first, lambda f: f["type"] == "state" and f["terminal"])
    before = profile(kim, "Kim")["ratings"]
    for who in (kim, lee):
        again = send(who, "POST", f"/api/games/{created['id']}/resign")
        assert again.status_code == 409 and error_code(again) == "game_over"
    profiles = server.keeper.app.state.profiles  # type: ignore[attr-defined]
    session = server.keeper.portal.call(server.manager.get, created["id"])  # type: ignore[union-attr]
    assert session is not None
    game = session.game
    again = profiles.store.rate_once(created["id"], game, [-1.0, 1.0], [], True, True)  # the end, forged
    assert again == session.outcome  # the stored outcome: nothing rated twice
    assert profile(kim, "Kim")["ratings"] == before and before["spline"]["games"] == 1


def test_aborting_or_resigning_at_once_moves_no_rating_and_is_still_listed(server: Server) -> None:
    kim, lee = server.browser("Kim"), server.browser("Lee")
    for resigner in (0, 1):
        created = new_game(kim, "spline", [HUMAN, HUMAN], rated=True)
        path = f"/ws/{created['id']}"
        with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
            states = {0: join(first, invite(created, 0))[1], 1: join(second, invite(created, 1))[1]}
            if resigner == 1:
                move_once({0: first, 1: second}, states)  # seat 0 moved, seat 1 gives up at once
            response = send((kim, lee)[resigner], "POST", f"/api/games/{created['id']}/resign")
            assert response.status_code == 200 and response.json()["status"] == "aborted"
            assert response.json()["result"]["rated"] is False
    for who in ("Kim", "Lee"):
        data = profile(kim, who)
        assert data["ratings"] == {} and [line["status"] for line in data["games"]] == ["aborted", "aborted"]


def words_of(data: Any) -> set[str]:
    """Every key, and every whitespace-separated word of every string, anywhere in ``data``."""
    if isinstance(data, dict):
        return set(map(str, data)).union(*(words_of(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(words_of(value) for value in data))
    return set(data.split()) if isinstance(data, str) else set()


def test_a_profile_shows_nothing_private(server: Server) -> None:
    kim, lee = server.browser("Kim", guest=True), server.browser("Lee")
    created = new_game(kim, "spagyric", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with kim.websocket_connect(path) as first, lee.websocket_connect(path) as second:
        _, state = join(first, invite(created, 0))
        join(second, invite(created, 1))
        secret = state["legal_moves"][0]
        first.send_json({"type": "move", "move": secret, "version": state["version"]})
        receive(first, lambda f: f["type"] == "state" and f["your_choice"] is not None)
        for who in ("Kim", "Lee"):
            text = lee.get(f"/api/players/{who}").text
            data = json.loads(text)
            assert [line["id"] for line in data["playing"]] == [created["id"]]
            for private in (invite(created, 0), invite(created, 1), created["owner"]):
                assert private not in text
            # The secret is one short word (a colour such as "w"): look for it as a value or a word
            # of one, not as a letter anywhere (a random game id may hold it).
            assert secret not in words_of(data)
            for cookie in (SESSION_COOKIE, CSRF_COOKIE):
                for client in (kim, lee):
                    assert str(client.cookies.get(cookie)) not in text
            assert "id" not in data and "created" not in data


def test_huge_or_bad_limits_and_cursors_are_refused(server: Server) -> None:
    kim = server.browser("Kim")
    for query in ({"limit": 10**30}, {"limit": 0}, {"limit": -1}, {"limit": 51}, {"cursor": 10**9}, {"cursor": "x"}):
        response = kim.get("/api/players/Kim", params=query)
        assert response.status_code == 400 and error_code(response) == "bad_query", query
    assert kim.get("/api/players/" + "K" * 5000).status_code == 404
    assert kim.get("/api/players/Kim", params={"limit": 50, "cursor": 10000}).status_code == 200


def test_prefix_search_floods_are_limited(make_server: MakeServer) -> None:
    server = make_server(player_search_per_minute=5)
    kim = server.browser("Kim")
    for prefix in ("", "k" * 21, "%", "k%", "k'"):
        response = kim.get("/api/players", params={"prefix": prefix})
        assert response.status_code == 400 and error_code(response) == "bad_query", prefix
    answers = [kim.get("/api/players", params={"prefix": "k"}).status_code for _ in range(7)]
    assert answers == [200] * 5 + [429] * 2
