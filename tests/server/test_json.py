"""An attacker's JSON: integers longer than Python converts (4,300 digits), in every POST body and
every websocket frame. Each is refused as bad input naming the field (400 or an error frame), the
connection stays usable, and nothing answers 500 or drops a socket without a close frame."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from spheria.server.app import create_app
from spheria.server.limits import Limits
from tests.server.test_server import HUMAN, create, join, token_of

HUGE = "9" * 5000  # past Python's 4,300-digit conversion limit


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(
        str(tmp_path / "games.sqlite3"),
        executor=ThreadPoolExecutor(2),
        agent_delay=0,
        limits=Limits(allowed_hosts=("testserver",)),
    )
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


#: POST routes that read no body: they answer about their path (no such game, message or
#: challenge here), never by parsing what was sent.
BODILESS = {
    "/api/games/x/chat/x/report",
    "/api/games/x/chat/x/mute",
    "/api/challenges/x/accept",
    "/api/puzzles/x/hint",
}


def post_routes(client: TestClient) -> list[str]:
    routes = [r.path for r in client.app.routes if isinstance(r, Route) and "POST" in (r.methods or ())]  # type: ignore[attr-defined]
    assert "/api/games" in routes and len(routes) >= 4
    return [re.sub(r"\{[^}]+\}", "x", path) for path in routes]


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ('{"game": "spline", "seed": ' + HUGE + "}", "field 'seed'"),
        ('{"game": "spline", "options": {"players": ' + HUGE + "}}", "field 'players'"),
        ('{"game": "spline", "seats": [[1, ' + HUGE + "]]}", "field 'seats'"),
        (HUGE, "the message"),
    ],
)
def test_every_post_refuses_a_huge_integer_naming_its_field(client: TestClient, body: str, named: str) -> None:
    csrf = client.get("/api/session").json()["csrf"]  # past the anti-forgery check, to the body
    headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf}
    assert client.post("/api/guest", json={"name": "Probe"}, headers=headers).status_code == 201  # signed in
    for path in post_routes(client):
        response = client.post(path, content=body, headers=headers)
        if path in BODILESS:
            assert response.status_code in (404, 409), (path, response.status_code, response.text[:200])
            continue
        assert response.status_code == 400, (path, response.status_code, response.text[:200])
        message = response.json()["error"]["message"]
        assert named in message and "5000 digits" in message, (path, message)
    assert create(client, "spline", [HUMAN, HUMAN])["id"]  # the server goes on serving


def test_a_game_socket_answers_a_huge_integer_with_an_error_and_stays_open(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, HUMAN])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        long_number = "9" * 4000  # game frames are at most 4,096 bytes
        ws.send_text('{"type": "move", "move": "0a1", "version": ' + long_number + "}")
        error: dict[str, Any] = ws.receive_json()
        assert error["type"] == "error" and "field 'version'" in error["message"]
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        while (frame := ws.receive_json())["type"] != "state":
            assert frame["type"] != "error", frame
        assert frame["version"] == state["version"] + 1


def test_the_analysis_socket_answers_a_huge_integer_with_an_error_and_stays_open(client: TestClient) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_text('{"type": "analyse", "id": ' + HUGE + ', "game": "spline"}')
        error: dict[str, Any] = ws.receive_json()
        assert error["type"] == "error" and "field 'id'" in error["message"], error
        ws.send_json({"type": "ping", "id": 3})
        assert ws.receive_json()["type"] == "pong"
