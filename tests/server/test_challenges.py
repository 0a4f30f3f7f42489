# ruff: noqa: F811  (the fixtures app and make_app come from tests.server.people)
"""Open challenges and the lobby through the HTTP interface and ``/ws/lobby`` (docs/server.md,
Challenges and the lobby): each as a browser uses it, on a real app with its SQLite file.

Every browser here shares the app's one event loop (as the server has one): see :func:`tests.server.people.browser`."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

from spheria.server.accounts import CSRF_COOKIE
from spheria.server.challenges import Lobby
from tests.server.people import (  # noqa: F401  (app and make_app are fixtures)
    Frame,
    MakeApp,
    account,
    app,
    browser,
    guest,
    make_app,
    send,
)

MINT = {"game": "special-cake", "options": {"variant": "mint"}}


def lobby_of(app: Starlette) -> Lobby:
    lobby: Lobby = app.state.lobby
    return lobby


def post(client: TestClient, **fields: Any) -> httpx.Response:
    return send(client, "POST", "/api/challenges", {**MINT, "seat": 0, "rated": False, **fields})


def posted(client: TestClient, **fields: Any) -> str:
    response = post(client, **fields)
    assert response.status_code == 201, response.text
    challenge_id: str = response.json()["id"]
    return challenge_id


def accept(client: TestClient, challenge_id: str) -> httpx.Response:
    return send(client, "POST", f"/api/challenges/{challenge_id}/accept")


def open_ids(client: TestClient, game: str | None = None) -> list[str]:
    query = "" if game is None else f"?game={game}"
    return [c["id"] for c in client.get(f"/api/challenges{query}").json()["challenges"]]


def next_frame(ws: WebSocketTestSession, kind: str) -> Frame:
    """The next frame of type ``kind`` (others skipped, at most 50)."""
    for _ in range(50):
        frame: Frame = ws.receive_json()
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


def claim(client: TestClient, game_id: str, invite: str) -> Frame:
    """Open the game page's socket and claim the invite's seat: the first answer frame."""
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        ws.send_json({"type": "join", "token": invite.split("#", 1)[1]})
        frame: Frame = ws.receive_json()
        return frame


def players_of(client: TestClient, game_id: str) -> list[Frame]:
    players: list[Frame] = client.get(f"/api/games/{game_id}").json()["players"]
    return players


def test_a_posted_challenge_reaches_another_lobby_without_polling(app: Starlette) -> None:
    poster, watcher = guest(app, "Mina"), guest(app, "Joon")
    with watcher.websocket_connect("/ws/lobby") as lobby:
        hello = next_frame(lobby, "lobby")
        assert hello["challenges"] == [] and hello["player"]["name"] == "Joon"
        challenge_id = posted(poster)
        frame = next_frame(lobby, "challenge")
        assert frame["event"] == "created" and frame["challenge"]["id"] == challenge_id
        assert frame["challenge"]["poster"] == {"name": "Mina", "guest": True, "deleted": False}
        assert frame["challenge"]["options"]["variant"] == "mint" and frame["challenge"]["seats"] == 2
    assert open_ids(watcher) == [challenge_id] and open_ids(watcher, "spline") == []


def test_a_lobby_follows_only_the_games_it_names(app: Starlette) -> None:
    poster, watcher = guest(app, "Mina"), browser(app)
    with watcher.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        lobby.send_json({"type": "follow", "games": ["spline"]})
        assert next_frame(lobby, "following")["games"] == ["spline"]
        posted(poster)  # Special Cake: not followed
        spline = send(poster, "POST", "/api/challenges", {"game": "spline", "seat": 1})
        assert spline.status_code == 201, spline.text
        frame = next_frame(lobby, "challenge")
        assert frame["challenge"]["game"] == "spline" and frame["challenge"]["id"] == spline.json()["id"]


def test_accepting_seats_both_players_in_the_game_and_the_players_view_names_them(app: Starlette) -> None:
    poster, taker = guest(app, "Mina"), account(app, "Joon")
    with poster.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        challenge_id = posted(poster, seat=1)
        next_frame(lobby, "challenge")
        response = accept(taker, challenge_id)
        assert response.status_code == 200, response.text
        answer = response.json()
        game_id = answer["game_id"]
        assert answer["seat"] == 0 and answer["invite"].startswith(f"/game/{game_id}#")
        assert next_frame(lobby, "challenge")["event"] == "taken"
        ready = next_frame(lobby, "game_ready")
        assert ready["game_id"] == game_id and ready["seat"] == 1 and ready["invite"] != answer["invite"]
    # Each lands in the game by their own invite; a seat held by a challenge's player is theirs alone.
    assert claim(poster, game_id, answer["invite"])["code"] == "not_your_seat"
    assert claim(taker, game_id, answer["invite"])["type"] == "claimed"
    assert claim(poster, game_id, ready["invite"])["type"] == "claimed"
    players = players_of(taker, game_id)
    assert [p["player"] for p in players] == [
        {"name": "Joon", "guest": False, "deleted": False},
        {"name": "Mina", "guest": True, "deleted": False},
    ]
    assert all(p["claimed"] for p in players)
    assert open_ids(taker) == []
    assert game_id in taker.get("/api/session").json()["games"]
    assert game_id in poster.get("/api/session").json()["games"]


def test_a_seat_taken_by_invite_is_held_by_the_player_who_took_it_and_kept(make_app: MakeApp) -> None:
    app = make_app()
    creator = guest(app, "Mina")
    response = send(creator, "POST", "/api/games", {"game": "spline", "seats": [{"kind": "human"}] * 2})
    created = response.json()
    invites = [seat["invite"] for seat in created["seats"]]
    assert claim(creator, created["id"], invites[0])["type"] == "claimed"
    assert claim(browser(app), created["id"], invites[1])["type"] == "claimed"  # nobody: no holder
    players = players_of(creator, created["id"])
    assert players[0]["player"] == {"name": "Mina", "guest": True, "deleted": False}
    assert players[1]["player"] is None and players[1]["claimed"]
    # Stored: a game rebuilt from the file names its holder as well.
    app.state.manager.sessions.clear()
    assert players_of(creator, created["id"])[0]["player"]["name"] == "Mina"


def test_an_agent_seat_has_no_player(app: Starlette) -> None:
    client = account(app, "Joon")
    response = post(client, opponent="level:2")
    assert response.status_code == 201, response.text
    players = players_of(client, response.json()["game_id"])
    agent = next(p for p in players if p["kind"] == "agent")
    assert agent["player"] is None and agent["agent"] == "level:2"


def test_a_challenge_to_a_level_starts_a_game_against_that_agent_at_once(app: Starlette) -> None:
    client = guest(app, "Mina")
    response = post(client, opponent="level:3", seat=1)
    assert response.status_code == 201, response.text
    answer = response.json()
    assert answer["seat"] == 1 and answer["invite"].startswith(f"/game/{answer['game_id']}#")
    seats = {p["seat"]: p for p in players_of(client, answer["game_id"])}
    assert seats[0]["kind"] == "agent" and seats[0]["agent"] == "level:3"
    assert seats[1]["player"]["name"] == "Mina"
    assert open_ids(client) == []


def test_the_poster_cancels_and_every_lobby_hears_it(app: Starlette) -> None:
    poster, watcher = guest(app, "Mina"), browser(app)
    challenge_id = posted(poster)
    with watcher.websocket_connect("/ws/lobby") as lobby:
        assert [c["id"] for c in next_frame(lobby, "lobby")["challenges"]] == [challenge_id]
        response = send(poster, "DELETE", f"/api/challenges/{challenge_id}")
        assert response.status_code == 200, response.text
        frame = next_frame(lobby, "challenge")
        assert frame["event"] == "cancelled" and frame["challenge"]["id"] == challenge_id
    assert open_ids(poster) == []
    assert accept(guest(app, "Joon"), challenge_id).json()["error"]["code"] == "challenge_taken"


def test_a_challenge_expires_when_its_poster_leaves_the_lobby_and_does_not_come_back(make_app: MakeApp) -> None:
    app = make_app(challenge_grace_seconds=1.0)
    poster, watcher, back = guest(app, "Mina"), browser(app), guest(app, "Joon")
    with back.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        staying = posted(back)
        with poster.websocket_connect("/ws/lobby") as own:
            next_frame(own, "lobby")
            leaving = posted(poster)
        # Joon leaves too but comes back within the grace: his challenge stays.
    with back.websocket_connect("/ws/lobby") as lobby, watcher.websocket_connect("/ws/lobby") as seen:
        next_frame(lobby, "lobby")
        next_frame(seen, "lobby")
        frame = next_frame(seen, "challenge")
        assert frame["event"] == "expired" and frame["challenge"]["id"] == leaving
        assert open_ids(watcher) == [staying]


def test_an_open_challenge_expires_after_its_time_to_live(make_app: MakeApp) -> None:
    app = make_app(challenge_ttl_seconds=0.2)
    poster, watcher = guest(app, "Mina"), browser(app)
    with watcher.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        challenge_id = posted(poster)
        assert next_frame(lobby, "challenge")["event"] == "created"
        frame = next_frame(lobby, "challenge")
        assert frame["event"] == "expired" and frame["challenge"]["id"] == challenge_id
    assert open_ids(watcher) == []


def test_quick_pairing_takes_a_matching_challenge_or_posts_one(app: Starlette) -> None:
    first, second, third = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Hana")
    response = send(first, "POST", "/api/challenges/quick", MINT)
    assert response.status_code == 201, response.text
    waiting = response.json()["id"]
    assert open_ids(second) == [waiting]
    other = send(third, "POST", "/api/challenges/quick", {"game": "special-cake", "options": {"variant": "sugar"}})
    assert other.status_code == 201  # another variant does not match: a challenge of its own
    response = send(second, "POST", "/api/challenges/quick", MINT)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["challenge"] == waiting and answer["game_id"]
    names = {p["player"]["name"] for p in players_of(second, answer["game_id"])}
    assert names == {"Mina", "Joon"}
    assert open_ids(first) == [other.json()["id"]]


def test_spinca_for_three_fills_seat_by_seat_and_starts_when_full(app: Starlette) -> None:
    poster, second, third = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Hana")
    challenge_id = posted(poster, game="spinca", options={"players": 3}, seat=2)
    with poster.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        response = accept(second, challenge_id)
        assert response.status_code == 200, response.text
        assert response.json() == {"game_id": None, "challenge": challenge_id, "waiting": 1}
        frame = next_frame(lobby, "challenge")
        assert frame["event"] == "joined" and [p["name"] for p in frame["challenge"]["joined"]] == ["Mina", "Joon"]
        assert accept(second, challenge_id).json()["error"]["code"] == "own_challenge"
        answer = accept(third, challenge_id).json()
        assert answer["game_id"] and answer["seat"] == 1
        assert next_frame(lobby, "challenge")["event"] == "taken"
    mine = second.get(f"/api/challenges/{challenge_id}").json()
    assert mine["seat"] == 0 and mine["invite"].startswith(f"/game/{answer['game_id']}#")
    names = [p["player"]["name"] for p in players_of(third, answer["game_id"])]
    assert names == ["Joon", "Hana", "Mina"]


def test_a_challenge_to_a_named_player_is_theirs_to_see_and_take(app: Starlette) -> None:
    poster, named, stranger = account(app, "Mina"), account(app, "Joon"), account(app, "Hana")
    challenge_id = posted(poster, opponent="joon", rated=True)
    assert open_ids(stranger) == [] and open_ids(named) == [challenge_id] and open_ids(poster) == [challenge_id]
    refused = accept(stranger, challenge_id)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_for_you"
    assert accept(named, challenge_id).status_code == 200


def test_a_refusal_is_told_in_the_pages_language(app: Starlette) -> None:
    client = guest(app, "Mina")
    response = post(client, rated=True)
    english = response.json()["error"]["message"]
    token = client.cookies.get(CSRF_COOKIE) or ""
    korean = client.post(
        "/api/challenges?lang=ko",
        json={**MINT, "seat": 0, "rated": True},
        headers={"X-CSRF-Token": token},
    ).json()["error"]
    assert korean["code"] == "rated_needs_account" and korean["message"] != english
    assert "레이팅 대국은 등록한 플레이어만" in korean["message"]
