"""Hints in play (docs/server.md, Hints): the engine's move for the one person playing agents.

The server gives a hint only to the human seat of a game created with hints, where every other
seat is an agent; it refuses (with a code) a game without hints, two humans, spectators,
connections that never joined, the wrong moment, and a creation request asking for hints where
they do not belong. In Spagyric a hint is worked out from the asking seat's view only.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from spheria.kernel.record import Record
from spheria.server import hints as hints_module
from spheria.server.app import create_app
from spheria.server.session import GameError
from tests.server.test_server import HUMAN, RANDOM, TEST_LIMITS, Frame, error, join, receive, state_at, token_of

LIMITS = replace(TEST_LIMITS, hint_time=0.5)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(str(tmp_path / "games.sqlite3"), executor=ThreadPoolExecutor(4), agent_delay=0, limits=LIMITS)
    with TestClient(app) as test_client:
        yield test_client


def create(client: TestClient, game: str, seats: list[Frame], hints: Any = True, seed: int = 11) -> Frame:
    body = {"game": game, "seats": seats, "seed": seed, "hints": hints}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: Frame = response.json()
    return data


def ask(ws: WebSocketTestSession) -> Frame:
    """Ask for a hint; the answer (a hint or an error), after the deadline frame when it is worked out."""
    ws.send_json({"type": "hint"})
    return receive(ws, lambda f: f["type"] in ("hint", "error"))


def test_a_hint_is_a_legal_move_counted_in_the_frames_and_the_record(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, RANDOM])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        assert state["hints"] == {"allowed": True, "used": [0, 0]}
        seen: list[Frame] = []
        ws.send_json({"type": "hint"})
        hint = receive(ws, lambda f: f["type"] in ("hint", "error"), seen)
        assert hint["type"] == "hint", hint
        assert [f["seconds"] for f in seen if f["type"] == "hint_thinking"] == [pytest.approx(0.5)]
        assert hint["move"] in state["legal_moves"] and hint["clicks"] == [hint["move"]]
        assert hint["used"] == 1
        counted = [f for f in seen if f["type"] == "state"]  # every client is told the count first
        assert [(f["version"], f["hints"]["used"]) for f in counted] == [(state["version"], [1, 0])]
        assert ask(ws)["used"] == 1  # asked again in the same position: still one hint
        ws.send_json({"type": "move", "move": hint["move"], "version": state["version"]})
        state = state_at(ws, state["version"] + 2)  # the agent answered: the human's turn again
        assert ask(ws)["used"] == 2
        while not state["terminal"]:
            if state["legal_moves"]:
                ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
            state = state_at(ws, state["version"] + 1)
    record = client.get(f"/api/games/{created['id']}/record").json()
    assert record["hints"] == [2, 0]
    assert Record.from_json(record).hints == [2, 0]
    assert client.get(f"/api/games/{created['id']}/replay").json()["hints"] == {"allowed": True, "used": [2, 0]}


def test_an_agent_seat_thinking_is_announced_to_the_page(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, {"kind": "agent", "agent": "mcts:iterations=200"}], hints=False)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        assert state["thinking"] == []
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        seen: list[Frame] = []
        state_at(ws, state["version"] + 2, seen)
        thinking = [f["thinking"] for f in seen if f["type"] == "thinking"]
        assert thinking[0] == [{"seat": 1, "elapsed": 0.0}]  # it started
        assert thinking[-1] == []  # and it stopped before its move
        assert [f["thinking"] for f in seen if f["type"] == "state"][-1] == []


@pytest.mark.parametrize(
    ("seats", "hints", "words"),
    [
        ([HUMAN, HUMAN], True, "one person against agents"),
        ([RANDOM, RANDOM], True, "one person against agents"),
        ([HUMAN, RANDOM], "yes", "true or false"),
        ([HUMAN, RANDOM], 1, "true or false"),
    ],
)
def test_hints_are_refused_at_creation_where_they_do_not_belong(
    client: TestClient, seats: list[Frame], hints: Any, words: str
) -> None:
    response = client.post("/api/games", json={"game": "spline", "seats": seats, "hints": hints})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_hints"
    assert words in response.json()["error"]["message"]
    assert client.get("/api/games").json()["games"] == []


def test_a_forged_hint_request_between_two_humans_is_refused(client: TestClient, tmp_path: Path) -> None:
    created = create(client, "spline", [HUMAN, HUMAN], hints=False)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        assert state["hints"]["allowed"] is False
        assert ask(ws)["code"] == "hints_off"
    # Even a game whose stored flag says hints (a tampered file) gives none to two humans.
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        db.execute("UPDATE games SET hints = 1 WHERE id = ?", (created["id"],))
    client.app.state.manager.sessions.clear()  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 1))
        assert ask(ws)["code"] == "hints_off"
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM hints").fetchone() == (0,)


def test_a_game_created_without_hints_refuses_them(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, RANDOM], hints=False)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        assert ask(ws)["code"] == "hints_off"


def test_hint_frames_leave_nothing_behind_on_the_connection(client: TestClient) -> None:
    """An attacker sends hint frames over and over (here in a game without hints): each is answered,
    and the connection keeps no task of an answered hint (they once piled up, one a frame)."""
    from spheria.server.connection import GameSocket

    created = create(client, "spline", [HUMAN, RANDOM], hints=False)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        answers = [ask(ws)["code"] for _ in range(200)]
        assert set(answers) <= {"hints_off", "rate_limited"} and answers.count("hints_off") >= 50
        sockets = [o for o in gc.get_objects() if type(o) is GameSocket and o.session and o.session.id == created["id"]]
        assert len(sockets) == 1
        assert len(sockets[0].tasks) <= 2 and len(sockets[0].hints) <= 1  # the pumps; at most the last hint


def test_spectators_wrong_tokens_and_unjoined_connections_get_no_hint(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, RANDOM])
    path = f"/ws/{created['id']}"
    with client.websocket_connect(path) as ws:
        assert ask(ws)["code"] == "not_joined"
    with client.websocket_connect(path) as ws:
        join(ws)
        assert ask(ws)["code"] == "spectator"
    with client.websocket_connect(path) as ws:
        ws.send_json({"type": "join", "token": "not-a-real-token"})
        assert error(ws)["code"] == "bad_token"
        assert ask(ws)["code"] == "not_joined"
    with client.websocket_connect(path) as ws:
        ws.send_json({"type": "hint", "seat": 0})
        assert error(ws)["code"] == "bad_frame"  # a hint names no seat: it is the connection's own


def test_no_hint_out_of_turn_twice_at_once_or_after_the_end(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, RANDOM])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        session = client.app.state.manager.sessions[created["id"]]  # type: ignore[attr-defined]
        with pytest.raises(GameError) as refused:
            hints_module.check_hint_request(session, 1)  # not the seat to move
        assert refused.value.code == "not_your_turn"
        session.hinting.add(0)  # a hint for this seat is being worked out
        assert ask(ws)["code"] == "hint_busy"
        session.hinting.clear()
        while not state["terminal"]:
            if state["legal_moves"]:
                ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
            state = state_at(ws, state["version"] + 1)
        assert ask(ws)["code"] == "game_over"


def spagyric_hint(client: TestClient, agent_seed: int) -> tuple[str, str]:
    """A Spagyric game (human against random:seed=N): the agent's secret first choice and the hint."""
    created = create(client, "spagyric", [HUMAN, {"kind": "agent", "agent": f"random:seed={agent_seed}"}], seed=3)
    manager = client.app.state.manager  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        session = manager.sessions[created["id"]]
        while 1 not in session.pending:  # the agent has chosen in secret
            receive(ws, lambda f: f["type"] == "state")
        hint = ask(ws)
        assert hint["type"] == "hint", hint
        return session.pending[1], str(hint["move"])


def test_a_spagyric_hint_comes_from_the_seats_view_only(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin games that differ only in the agent's secret choice give the same hint."""
    monkeypatch.setattr(hints_module, "HINT_SPEC", "level:2")  # an iteration budget: the same search each time
    secrets, answers = zip(*(spagyric_hint(client, seed) for seed in range(1, 9)), strict=True)
    assert len(set(secrets)) > 1, secrets  # the opponents chose differently
    assert len(set(answers)) == 1, answers
