"""The lobby's socket (``/ws/lobby``) as a browser and an attacker use it: its connection handling
shared with a game's socket (one base), the fan-out of its events, presence pushed, and leaving a
seat of a 3–4-seat challenge (docs/server.md, "Challenges and the lobby" and "Presence")."""

from __future__ import annotations

import json

import pytest
from starlette.applications import Starlette

from spheria.server import connection as connection_module
from spheria.server.limits import Limits
from tests.server.test_challenges import MakeApp, app, browser, make_app, next_frame

__all__ = ["app", "make_app"]  # the fixtures, used by name


@pytest.fixture
def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Time stands still for the rate limit: no allowance is earned, every refusal is in one window."""
    monkeypatch.setattr(connection_module, "clock", lambda: 1000.0)


def test_a_flooding_lobby_socket_is_closed_with_1008_as_a_games_socket_is(
    make_app: MakeApp, stopped_clock: None
) -> None:
    refusals = 5
    app = make_app(frame_refusals=refusals)
    burst = int(max(2 * Limits.frame_rate, 10.0))
    with browser(app).websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        for _ in range(burst + refusals):
            lobby.send_json({"type": "ping"})
        answers = [lobby.receive_json() for _ in range(burst + refusals)]
        assert [a["type"] for a in answers] == ["pong"] * burst + ["error"] * refusals
        assert {a["code"] for a in answers[burst:]} == {"rate_limited"}  # each answered, still open
        lobby.send_json({"type": "ping"})  # one refusal too many
        message = lobby.receive()
    assert message == {"type": "websocket.close", "code": 1008, "reason": "too_many_frames"}


def test_a_lobby_frame_is_limited_in_bytes_as_a_games_frame_is(app: Starlette) -> None:
    padded = json.dumps({"type": "ping", "pad": "한" * 1500}, ensure_ascii=False)  # 1,500 characters, 4,500 bytes
    with browser(app).websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        lobby.send_text(padded)
        refusal = lobby.receive_json()
        assert refusal["type"] == "error" and refusal["code"] == "bad_frame" and "4096 bytes" in refusal["message"]
        lobby.send_bytes(b'{"type": "ping"}')
        assert lobby.receive_json()["code"] == "bad_frame"
        lobby.send_json({"type": "ping"})
        assert lobby.receive_json() == {"type": "pong"}  # still up


def test_one_base_holds_the_connection_handling_of_both_sockets() -> None:
    from spheria.server.challenges import LobbySocket
    from spheria.server.connection import FrameSocket, GameSocket

    shared = ("run", "serve", "answer", "allowed", "flooding", "close_flooding", "refuse", "cleanup", "_too_slow")
    for socket in (LobbySocket, GameSocket):
        assert issubclass(socket, FrameSocket)
        assert not [name for name in shared if name in vars(socket)], socket  # none written again
