"""Floods of frames on a game socket (docs/server.md, Limits), as the load benchmark's ``hints``
attack sends them: hint frames as fast as the server takes them.

A frame the server refuses costs it no task and no fresh text; a connection far over its frame
rate is closed with code 1008 after ``frame_refusals`` refusals instead of being answered frame
by frame; and while sockets flood, every move of an honest game is answered at once. The first
tests run the app in-process (a stopped clock makes the rate exact); the last one attacks
``spheria serve`` in a subprocess over loopback, as the benchmark does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from spheria.server import connection as connection_module
from spheria.server.limits import Limits
from spheria.server.session import encode
from tests.server import test_abuse, test_server
from tests.server.test_abuse import next_of, open_socket, post
from tests.server.test_server import HUMAN, RANDOM, create, join, receive, token_of

Frame = dict[str, Any]
#: The fixtures of the other server tests: an app in-process (``client``) and ``spheria serve`` (``serve``).
make_client, client, serve = test_server.make_client, test_server.client, test_abuse.serve
HINT = {"type": "hint"}
#: The burst of the default frame rate (a connection's token bucket starts full).
BURST = int(max(2 * Limits.frame_rate, 10.0))


def refusal(frame: Frame) -> bool:
    return bool(frame["type"] == "error")


@pytest.fixture
def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Time stands still for the rate limit: no allowance is earned, every refusal is in one window."""
    monkeypatch.setattr(connection_module, "clock", lambda: 1000.0)


@pytest.fixture
def tasks_started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The name of every coroutine the server starts a task for (``asyncio.create_task``)."""
    started: list[str] = []
    create_task = asyncio.create_task

    def counting(coro: Coroutine[Any, Any, Any], **how: Any) -> asyncio.Task[Any]:
        started.append(getattr(coro, "__qualname__", ""))
        return create_task(coro, **how)

    monkeypatch.setattr(asyncio, "create_task", counting)
    yield started


def test_a_socket_far_over_its_rate_is_closed_with_1008_after_the_documented_refusals(
    client: TestClient, stopped_clock: None
) -> None:
    refusals = Limits.frame_refusals
    created = create(client, "spline", [HUMAN, RANDOM])  # no hints: each frame within the rate is refused too
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))  # one frame of the burst
        for _ in range(BURST - 1 + refusals):
            ws.send_json(HINT)
        codes = [receive(ws, refusal)["code"] for _ in range(BURST - 1 + refusals)]
        assert codes == ["hints_off"] * (BURST - 1) + ["rate_limited"] * refusals  # each answered, still open
        ws.send_json(HINT)  # one refusal too many
        for _ in range(100):
            message = ws.receive()
            if message["type"] != "websocket.send":
                break
            assert json.loads(message["text"])["type"] in ("state", "presence")  # no answer to that frame
        assert message == {"type": "websocket.close", "code": 1008, "reason": "too_many_frames"}


def test_refusals_spread_over_more_than_the_window_never_close_the_socket(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client now and then over its rate (a burst of clicks) is refused, never closed: the
    refusals are counted per window of ``REFUSAL_WINDOW`` seconds."""
    now = [1000.0]
    monkeypatch.setattr(connection_module, "clock", lambda: now[0])
    half = Limits.frame_refusals // 2 + 1
    created = create(client, "spline", [HUMAN, HUMAN])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        for _ in range(BURST - 1):
            ws.send_json({"type": "ping"})
        assert [receive(ws, lambda f: f["type"] == "pong") for _ in range(BURST - 1)]
        for window in range(3):  # three windows of more than half the refusals each
            now[0] += connection_module.REFUSAL_WINDOW + 1  # allowance earned: spend it first
            for _ in range(BURST + half):
                ws.send_json({"type": "ping"})
            replies = [receive(ws, lambda f: f["type"] in ("pong", "error")) for _ in range(BURST + half)]
            assert [r.get("code") for r in replies if r["type"] == "error"] == ["rate_limited"] * half, window
        ws.send_json({"type": "ping"})
        assert receive(ws, lambda f: f["type"] in ("pong", "error"))["code"] == "rate_limited"  # still open


def test_a_hint_in_a_game_without_hints_is_refused_with_no_task_and_one_encoding(
    client: TestClient, stopped_clock: None, tasks_started: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[Frame] = []

    def counting(frame: Frame) -> str:
        encoded.append(frame)
        return encode(frame)

    monkeypatch.setattr(connection_module, "encode", counting)
    created = create(client, "spline", [HUMAN, RANDOM])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        before = len(tasks_started)
        for _ in range(60):
            ws.send_json(HINT)
        answers = [receive(ws, refusal) for _ in range(60)]
        assert {a["code"] for a in answers} == {"hints_off"}
        assert len({a["message"] for a in answers}) == 1
        assert tasks_started[before:] == []  # not one task for sixty refused frames
        assert [frame["code"] for frame in encoded] == ["hints_off"]  # its reply encoded once


def test_hints_asked_while_this_connections_hint_is_worked_out_start_no_task(
    client: TestClient, tasks_started: list[str]
) -> None:
    created = client.post("/api/games", json={"game": "spline", "seats": [HUMAN, RANDOM], "hints": True}).json()
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        before = len(tasks_started)
        for _ in range(40):
            ws.send_json(HINT)
        answers = [receive(ws, lambda f: f["type"] in ("hint", "error")) for _ in range(40)]
        codes = [a.get("code", a["type"]) for a in answers]
        # One hint worked out (answered last: the engine takes its time); every other frame refused.
        assert codes.count("hint_busy") == 39 and codes[-1] == "hint", codes
        assert [name for name in tasks_started[before:] if "hint" in name] == ["GameSocket.hint"]


# -- against ``spheria serve`` --------------------------------------------------------------------------------


def masked(data: Frame) -> bytes:
    """A client's text frame, masked as clients must."""
    payload = json.dumps(data).encode()
    mask = b"\x01\x02\x03\x04"
    length = bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + len(payload).to_bytes(2)
    return b"\x81" + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def flood(base: str, created: Frame, stop: threading.Event) -> None:
    """Join the human seat of ``created`` and send hint frames thousands to a write until ``stop``
    (two minutes at most), reading every answer (so that the server never closes it as too slow)."""
    until = time.monotonic() + 120
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        handshake = (
            f"GET /ws/{created['id']} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        sock.sendall(handshake.encode())
        sock.sendall(masked({"type": "join", "token": token_of(created, 0)}))

        def read() -> None:
            try:
                while sock.recv(1 << 20):
                    pass
            except OSError:
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        batch = masked(HINT) * 3000
        try:
            while time.monotonic() < until and not stop.is_set():
                sock.sendall(batch)
        except OSError:
            pass
        with contextlib.suppress(OSError):  # the server may have closed it first
            sock.shutdown(socket.SHUT_RDWR)
        reader.join(10)


async def honest_game(base: str, seed: int) -> list[float]:
    """Two people play a Spline game with random moves to its end; the seconds each move took to
    come back to its player as the new position."""
    created = post(base, "/api/games", {"game": "spline", "seats": [HUMAN, HUMAN]})
    seats = [await open_socket(base, created["id"]) for _ in range(2)]
    rng = random.Random(seed)
    states: list[Frame] = []
    for seat, ws in enumerate(seats):
        await ws.send(json.dumps({"type": "join", "token": token_of(created, seat)}))
        states.append(await next_of(ws, lambda f: f["type"] == "state", 30))
    waits: list[float] = []
    while not states[0]["terminal"]:
        mover = 0 if states[0]["legal_moves"] else 1
        version = states[mover]["version"] + 1
        started = time.monotonic()
        move = rng.choice(states[mover]["legal_moves"])
        await seats[mover].send(json.dumps({"type": "move", "move": move, "version": version - 1}))

        def newer(frame: Frame, version: int = version) -> bool:
            return bool(frame["type"] == "state" and frame["version"] >= version)

        states[mover] = await next_of(seats[mover], newer, 30)
        waits.append(time.monotonic() - started)
        states[1 - mover] = await next_of(seats[1 - mover], newer, 30)
    for ws in seats:
        await ws.close()
    return waits


def test_twenty_sockets_flooding_hints_never_stall_an_honest_game(serve: Callable[..., str]) -> None:
    """The benchmark's hint flood with no frame-rate limit (so every frame is answered): an honest
    game is played to its end meanwhile, every move answered within a few seconds (it once
    waited 13 to 21 s). Half the flooding games have hints, half not."""
    base = serve("--frame-rate", "0", "--create-burst", "100")
    quiet = asyncio.run(honest_game(base, 1))
    seats = [HUMAN, {"kind": "agent", "agent": "random"}]
    games = [post(base, "/api/games", {"game": "spline", "seats": seats, "hints": n % 2 == 0}) for n in range(20)]
    stop = threading.Event()
    floods = [threading.Thread(target=flood, args=(base, game, stop), daemon=True) for game in games]
    for thread in floods:
        thread.start()
    try:
        time.sleep(2)  # the floods are under way
        flooded = asyncio.run(honest_game(base, 2)) + asyncio.run(honest_game(base, 3))
    finally:
        stop.set()
        for thread in floods:
            thread.join(30)
    assert len(flooded) >= 2 * 15  # two whole games (a Spline game has at least 15 moves)
    assert max(flooded) < max(5.0, 20 * max(quiet)), (max(quiet), sorted(flooded)[-5:])
