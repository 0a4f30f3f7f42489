"""A sandbox game on the server (issue 40, item 3): made over the API for people only, played through
the websocket action by action, ended by an agreed result, then recorded and replayed.

This checks what the server already does with the sandbox through the generic game API; the
browser's view of it (marks on the page, clicking an action) is a later part of the issue.
"""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from tests.server.test_server import HUMAN, RANDOM, client, create, join, make_client, state_at, token_of

__all__ = ["client", "make_client"]  # the server tests' fixtures, used here


def test_the_lobby_refuses_an_agent_seat_saying_why(client: TestClient) -> None:
    catalog = {game["name"]: game for game in client.get("/api/catalog").json()["games"]}
    assert catalog["sandbox"]["agents"] == []
    refused = client.post("/api/games", json={"game": "sandbox", "options": {}, "seats": [HUMAN, RANDOM]})
    assert refused.status_code == 400
    assert "nor does any agent: the sandbox enforces only the physics of the set" in refused.json()["error"]["message"]


def test_two_people_play_a_sandbox_game_through_the_websocket(client: TestClient) -> None:
    created = create(client, "sandbox", [HUMAN, HUMAN], players=2)
    path = f"/ws/{created['id']}"
    with client.websocket_connect(path) as first, client.websocket_connect(path) as second:
        join(first, token_of(created, 0))
        join(second, token_of(created, 1))
        version = 0
        for ws, text in [
            (first, "w 0a1"),
            (first, "b 0b1"),
            (first, "r 0a2"),
            (first, "w 0b2"),
            (first, "r 1a1"),
            (first, "end"),
            (second, "0a1-0d4"),  # the red 1a1 drops into 0a1
            (second, "end"),
        ]:
            ws.send_json({"type": "move", "move": text, "version": version})
            version += 1
            frame: dict[str, Any] = state_at(first, version)
            state_at(second, version)
        assert frame["to_move"] == 0 and frame["board"] == "rb..rw.........w/........./..../."
        observation = frame["observation"]
        assert observation["last_turn"] == {
            "seat": 1,
            "placed": [],
            "moved": ["0d4"],
            "dropped": ["0a1"],
            "removed": ["1a1"],
        }
        assert "end" in frame["legal_moves"] and "x 0a1" in frame["legal_moves"]
        second.send_json({"type": "move", "move": "w 0c1", "version": version})
        refused = second.receive_json()
        assert refused["type"] == "error" and refused["message"] == "it is Player 1's turn, not yours"
        first.send_json({"type": "move", "move": "offer draw", "version": version})
        state_at(second, version + 1)
        second.send_json({"type": "move", "move": "accept", "version": version + 1})
        final = state_at(first, version + 2)
    assert final["terminal"] and final["result"]["reason"] == {"code": "agreed_draw"}
    record = client.get(f"/api/games/{created['id']}/record")
    assert record.status_code == 200, record.text
    assert record.json()["moves"][-2:] == ["offer draw", "accept"]
