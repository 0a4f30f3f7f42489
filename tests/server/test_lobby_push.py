"""The lobby's socket (``/ws/lobby``) as a browser and an attacker use it: its connection handling
shared with a game's socket (one base), the fan-out of its events, presence pushed, and leaving a
seat of a 3–4-seat challenge (docs/server.md, "Challenges and the lobby" and "Presence")."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import WebSocketTestSession

from spheria.server import connection as connection_module
from spheria.server.challenges import Lobby
from spheria.server.endpoints import WEB_DIR
from spheria.server.limits import Limits
from spheria.server.presence import Presence
from spheria.server.session import Client
from tests.server.people import MakeApp, app, browser, guest, make_app
from tests.server.test_challenges import accept, next_frame, posted

Frame = dict[str, Any]

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


def presence_frame(ws: WebSocketTestSession, done: Callable[[Frame], bool]) -> Frame:
    """The first presence frame that ``done`` accepts, within 5 s (other frames skipped): the socket
    is pinged and read up to its pong, again and again, so a push that never comes fails, not hangs."""
    for _ in range(25):
        ws.send_json({"type": "ping"})
        frame: Frame = ws.receive_json()
        while frame["type"] != "pong":
            if frame["type"] == "presence" and done(frame):
                return frame
            frame = ws.receive_json()
        time.sleep(0.2)
    raise AssertionError("no such presence frame within 5 s")


def names(frame: Frame) -> list[str]:
    return [player["name"] for player in frame["players"]]


def test_a_second_person_arriving_is_pushed_to_the_first_lobby(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    with mina.websocket_connect("/ws/lobby") as first:
        hello = next_frame(first, "lobby")
        assert names(hello["presence"]) == ["Mina"] and hello["presence"]["lobby"] == 1
        with joon.websocket_connect("/ws/lobby") as second:
            assert names(next_frame(second, "lobby")["presence"]) == ["Joon", "Mina"]
            pushed = presence_frame(first, lambda f: f["lobby"] == 2)
            assert names(pushed) == ["Joon", "Mina"] and pushed["online"] == 2 and pushed["games"] == 0
        gone = presence_frame(first, lambda f: f["lobby"] == 1)  # Joon left: pushed too
    assert names(gone) == ["Mina"] and gone["online"] == 1


def test_a_game_being_played_is_pushed_to_the_lobby(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    with mina.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        challenge_id = posted(mina)
        answer = accept(joon, challenge_id).json()
        with joon.websocket_connect(f"/ws/{answer['game_id']}") as ws:
            ws.send_json({"type": "join", "token": answer["invite"].split("#", 1)[1]})
            playing = presence_frame(lobby, lambda f: f["games"] == 1)
            assert [game["id"] for game in playing["playing"]] == [answer["game_id"]]
        assert presence_frame(lobby, lambda f: f["games"] == 0)["playing"] == []


@dataclass(eq=False)
class Watcher:
    """What the lobby's push needs of a lobby socket: its queue and what it was last told."""

    direct: Client
    presence_seen: str = ""


def test_presence_is_pushed_at_most_once_a_second_and_encoded_once(app: Starlette) -> None:
    """A burst of arrivals and departures reaches every lobby as few frames, at least a second
    apart, each one text shared by every socket; the last says how things ended."""
    lobby: Lobby = app.state.lobby
    presence: Presence = app.state.presence
    sent: dict[int, list[tuple[float, str]]] = {0: [], 1: []}
    portal = app.state.test_keeper.portal

    async def burst() -> None:
        loop = asyncio.get_running_loop()
        watchers, pumps = [], []
        for index in sent:

            async def record(text: str, index: int = index) -> None:
                sent[index].append((loop.time(), text))

            watcher = Watcher(Client(record))
            watchers.append(watcher)
            lobby.sockets.add(watcher)  # type: ignore[arg-type]
            pumps.append(asyncio.create_task(watcher.direct.pump()))
        for step in range(30):  # 1.5 s of changes, one every 50 ms
            presence.enter(f"person:{step}", {"name": f"P{step:02}", "guest": True}, lobby=True)
            if step % 2:
                presence.leave(f"person:{step - 1}", lobby=True)
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.5)
        for watcher in watchers:
            lobby.sockets.discard(watcher)
            watcher.direct.queue.put_nowait(None)
        await asyncio.gather(*pumps)

    portal.call(burst)
    times = [at for at, _text in sent[0]]
    assert 2 <= len(times) <= 4  # 3 s: never thirty frames
    assert all(later - earlier >= 0.95 for earlier, later in itertools.pairwise(times))
    assert [text for _at, text in sent[0]] == [text for _at, text in sent[1]]
    assert all(a is b for (_, a), (_, b) in zip(sent[0], sent[1], strict=True))  # one text for every socket
    last = json.loads(sent[0][-1][1])
    assert last["type"] == "presence" and last["lobby"] == 15 and "P29" in names(last)


def test_the_lobby_page_follows_presence_on_its_socket_without_polling() -> None:
    script = (WEB_DIR / "js" / "lobby.js").read_text(encoding="utf-8")
    assert "/api/presence" not in script
    assert 'frame.type === "presence"' in script


def test_a_challenge_event_is_one_text_for_every_lobby_following_its_game(app: Starlette) -> None:
    """The fan-out encodes an event once: every lobby that follows the game is handed the same
    text (one object), and a lobby following other games none."""
    mina = guest(app, "Mina")
    with (
        browser(app).websocket_connect("/ws/lobby") as every,
        browser(app).websocket_connect("/ws/lobby") as cake,
        browser(app).websocket_connect("/ws/lobby") as spline,
    ):
        for ws, games in ((cake, ["special-cake"]), (spline, ["spline"])):
            next_frame(ws, "lobby")
            ws.send_json({"type": "follow", "games": games})
            next_frame(ws, "following")
        next_frame(every, "lobby")
        lobby: Lobby = app.state.lobby
        handed: list[tuple[str, object]] = []
        for socket in lobby.sockets:
            push = socket.direct.push

            def spy(frame: Frame | str, push: Callable[[Frame | str], None] = push, socket: Any = socket) -> None:
                handed.append((str(sorted(socket.follows or ["*"])), frame))
                push(frame)

            socket.direct.push = spy  # type: ignore[method-assign]
        challenge_id = posted(mina)
        for ws in (every, cake):
            assert next_frame(ws, "challenge")["challenge"]["id"] == challenge_id
        spline.send_json({"type": "ping"})
        assert next_frame(spline, "pong") == {"type": "pong"}  # and no challenge frame before it
    events = [(who, frame) for who, frame in handed if isinstance(frame, str) and '"challenge"' in frame]
    assert sorted(who for who, _frame in events) == ["['*']", "['special-cake']"]
    assert events[0][1] is events[1][1]
