"""Server-authoritative clocks (issue 38): a fake clock injected into the server, nothing sleeps.

The server's time is ``manager.clocks.now``; each test replaces it with a :class:`FakeClock` that
moves only when the test says. The server's own sweeper runs too (it reads the same fake clock),
so a test that lets a deadline pass accepts that the sweeper may flag the game before the test
asks it to.
"""

from __future__ import annotations

import json
import signal
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import pytest
from starlette.testclient import TestClient
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from spheria.agents import registry
from spheria.kernel.agent import Agent
from spheria.kernel.clock import DAY, LAG_CREDIT_CAP, SeatClock, TimeControl
from spheria.kernel.game import PlayerView
from spheria.kernel.record import Record
from spheria.server import clocks as server_clocks
from spheria.server.app import create_app
from spheria.server.clocks import ServerClocks
from tests.server.test_server import HUMAN, TEST_LIMITS, Frame, error, join, receive, state_at, token_of
from tests.web.e2e.test_browser import free_port, start_server

START = 1_800_000_000_000


class FakeClock:
    """The server's milliseconds, moving only when :meth:`advance` says."""

    def __init__(self, ms: int = START) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


MakeClient = Callable[..., TestClient]


@pytest.fixture
def fake() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_client(tmp_path: Path, fake: FakeClock) -> Iterator[MakeClient]:
    """``make_client()``: a running app on the test's SQLite file, its clocks on ``fake``."""
    opened: list[TestClient] = []

    def make() -> TestClient:
        app = create_app(
            str(tmp_path / "games.sqlite3"), executor=ThreadPoolExecutor(2), agent_delay=0, limits=TEST_LIMITS
        )
        clocks_of(app).now = fake
        client = TestClient(app)
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


def clocks_of(app: Any) -> ServerClocks:
    clocks = app.state.manager.clocks
    assert isinstance(clocks, ServerClocks)
    return clocks


def timed(client: TestClient, game: str, clock: Frame, seats: list[Frame] | None = None, **options: Any) -> Frame:
    body = {"game": game, "options": options, "seats": seats or [HUMAN, HUMAN], "seed": 11, "clock": clock}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: Frame = response.json()
    return data


def sweep(client: TestClient) -> list[str]:
    found: list[str] = client.portal.call(clocks_of(client.app).sweep)  # type: ignore[union-attr]
    return found


def result_of(client: TestClient, game_id: str) -> Frame:
    """The stored result of a game, as the games list shows it."""
    games = client.get("/api/games").json()["games"]
    found: Frame = next(game["result"] for game in games if game["id"] == game_id)
    return found


def test_a_bad_clock_is_refused_naming_the_problem(client: TestClient) -> None:
    for clock, words in [
        ({"base": 0, "increment": 2}, "base is 1 to 10800 seconds, not 0"),
        ({"days": 2}, "1, 3 or 7 days per move, not 2"),
        ("5+3", "a time control is null"),
    ]:
        response = client.post("/api/games", json={"game": "spline", "seats": [HUMAN, HUMAN], "clock": clock})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "bad_clock"
        assert words in response.json()["error"]["message"]
    assert client.get("/api/games").json()["games"] == []


def test_the_server_stamps_each_move_adds_the_increment_once_and_ignores_a_forged_clock(
    client: TestClient, fake: FakeClock
) -> None:
    created = timed(client, "spline", {"base": 60, "increment": 2})
    with (
        client.websocket_connect(f"/ws/{created['id']}") as white,
        client.websocket_connect(f"/ws/{created['id']}") as black,
    ):
        _welcome, state = join(white, token_of(created, 0))
        join(black, token_of(created, 1))
        assert state["clock"]["clock"] == {"base": 60, "increment": 2}
        assert state["clock"]["left"] == [60_000, 60_000] and state["clock"]["running"] == [0]
        fake.advance(4_000)
        move = state["legal_moves"][0]
        white.send_json({"type": "move", "move": move, "version": 0, "used": 1})  # a client's own time: refused
        assert error(white)["code"] == "bad_frame"
        white.send_json({"type": "move", "move": move, "version": 0})
        state = state_at(white, 1)
        assert state["clock"]["left"] == [58_000, 60_000]  # 60 - 4 + 2, once
        assert state["clock"]["running"] == [1]
        fake.advance(1_500)
        black.send_json({"type": "move", "move": state_at(black, 1)["legal_moves"][0], "version": 1})
        state = state_at(white, 2)
        assert state["clock"]["left"] == [58_000, 60_500]
        fake.advance(10_000)
    clocks = clocks_of(client.app)
    session = client.portal.call(clocks.manager.get, created["id"])  # type: ignore[union-attr]
    assert session is not None
    frame = clocks.frame(session)
    assert frame is not None and frame["left"] == [48_000, 60_500]  # white's runs: now, 10 s later


def test_a_seat_out_of_time_loses_with_nobody_connected(client: TestClient, fake: FakeClock) -> None:
    created = timed(client, "spline", {"base": 3, "increment": 0})
    fake.advance(2_999)
    assert sweep(client) == []
    fake.advance(1)  # exactly nothing left: out of time
    assert sweep(client) in ([created["id"]], [])  # [] if the server's own sweeper came first
    info = client.get(f"/api/games/{created['id']}").json()
    assert info["status"] == "finished"
    result = result_of(client, created["id"])
    assert result["reason"] == {"code": "time", "seat": 0}
    assert result["returns"] == [-1.0, 1.0] and result["winners"] == [1]
    data = client.get(f"/api/games/{created['id']}/record").json()
    assert (data["clock"], data["clocks"], data["lost_on_time"], data["result"]) == (
        {"base": 3, "increment": 0},
        [],
        0,
        None,
    )
    assert Record.from_json(data).replay().history_notation() == []


def test_correspondence_flags_after_the_days_of_a_move(client: TestClient, fake: FakeClock) -> None:
    created = timed(client, "spline", {"days": 1})
    with client.websocket_connect(f"/ws/{created['id']}") as white:
        _welcome, state = join(white, token_of(created, 0))
        assert state["clock"]["left"] == [DAY, DAY]
        fake.advance(DAY - 1)
        white.send_json({"type": "move", "move": state["legal_moves"][0], "version": 0})
        state = state_at(white, 1)
        assert state["clock"]["left"] == [DAY, DAY]  # a whole day again for the next move
    fake.advance(DAY - 1)
    assert sweep(client) == []
    fake.advance(1)
    sweep(client)
    assert result_of(client, created["id"])["reason"] == {"code": "time", "seat": 1}
    record = Record.from_json(client.get(f"/api/games/{created['id']}/record").json())  # the record keeps the clocks
    assert record.clock == TimeControl(days=1) and record.lost_on_time == 1
    assert record.clocks == [[SeatClock(0, DAY - 1, DAY)]]
    assert len(record.replay().history_notation()) == 1


def test_a_move_after_the_flag_is_refused(client: TestClient, fake: FakeClock) -> None:
    created = timed(client, "spline", {"base": 5, "increment": 0})
    with client.websocket_connect(f"/ws/{created['id']}") as white:
        _welcome, state = join(white, token_of(created, 0))
        fake.advance(5_001)
        white.send_json({"type": "move", "move": state["legal_moves"][0], "version": 0})
        refusal = error(white)
        assert refusal["code"] in ("out_of_time", "game_over", "stale")  # flagged by the move, or the sweeper first
    info = client.get(f"/api/games/{created['id']}").json()
    assert info["status"] == "finished" and info["plies"] == 0
    assert result_of(client, created["id"])["reason"] == {"code": "time", "seat": 0}


def test_a_restart_mid_move_keeps_both_clocks_to_the_millisecond(make_client: MakeClient, fake: FakeClock) -> None:
    client = make_client()
    created = timed(client, "spline", {"base": 300, "increment": 3})
    with client.websocket_connect(f"/ws/{created['id']}") as white:
        _welcome, state = join(white, token_of(created, 0))
        fake.advance(12_345)
        white.send_json({"type": "move", "move": state["legal_moves"][0], "version": 0})
        state_at(white, 1)
    fake.advance(7_777)  # black thinks... and the server stops
    client.__exit__(None, None, None)
    fake.advance(1_000)  # the server was down for a second: black's clock ran on
    again = make_client()
    with again.websocket_connect(f"/ws/{created['id']}") as black:
        _welcome, state = join(black, token_of(created, 1))
        assert state["clock"]["left"] == [300_000 - 12_345 + 3_000, 300_000 - 7_777 - 1_000]
        assert state["clock"]["running"] == [1]
        black.send_json({"type": "move", "move": state["legal_moves"][0], "version": 1})
        assert state_at(black, 2)["clock"]["left"] == [290_655, 300_000 - 8_777 + 3_000]


def test_both_choosing_seats_run_during_a_secret_choice(client: TestClient, fake: FakeClock) -> None:
    created = timed(client, "spagyric", {"base": 60, "increment": 0})
    with (
        client.websocket_connect(f"/ws/{created['id']}") as first,
        client.websocket_connect(f"/ws/{created['id']}") as second,
    ):
        _welcome, state = join(first, token_of(created, 0))
        _welcome, other = join(second, token_of(created, 1))
        assert state["clock"]["running"] == [0, 1]
        fake.advance(2_000)
        first.send_json({"type": "move", "move": state["legal_moves"][0]})
        chosen = state_at(first, 0)
        while chosen["clock"]["running"] != [1]:  # the frame after the first seat chose
            chosen = state_at(first, 0)
        assert chosen["clock"]["left"] == [58_000, 58_000]  # seat 0 stopped at 2 s; seat 1 runs on
        fake.advance(3_000)
        second.send_json({"type": "move", "move": other["legal_moves"][0]})
        revealed = state_at(second, 1)
        assert revealed["clock"]["left"] == [58_000, 55_000]


def test_a_move_is_credited_its_connection_s_round_trip_never_more_than_the_cap(
    client: TestClient, fake: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    connection_clock = FakeClock(5_000)  # what the server times round trips with
    monkeypatch.setattr(server_clocks, "monotonic_ms", connection_clock)
    created = timed(client, "spline", {"base": 60, "increment": 0})
    with (
        client.websocket_connect(f"/ws/{created['id']}") as white,
        client.websocket_connect(f"/ws/{created['id']}") as black,
    ):
        _welcome, state = join(white, token_of(created, 0))
        join(black, token_of(created, 1))
        probe = receive(white, lambda f: f["type"] == "clock_ping")  # sent on joining, and every 5 s
        connection_clock.advance(200)
        white.send_json({"type": "clock_pong", "id": probe["id"]})  # a round trip of 200 ms
        white.send_json({"type": "clock_pong", "id": 999})  # the answer to no probe: nothing
        fake.advance(4_000)
        white.send_json({"type": "move", "move": state["legal_moves"][0], "version": 0})
        assert state_at(white, 1)["clock"]["left"] == [60_000 - 3_800, 60_000]  # 4 s, less 200 ms of lag
        # Black answers its probe 5.2 s late: a page cannot buy itself time, the credit is capped.
        probe = receive(black, lambda f: f["type"] == "clock_ping")
        connection_clock.advance(5_000)
        black.send_json({"type": "clock_pong", "id": probe["id"]})
        fake.advance(3_000)
        black.send_json({"type": "move", "move": state_at(black, 1)["legal_moves"][0], "version": 1})
        assert state_at(black, 2)["clock"]["left"] == [56_200, 60_000 - 3_000 + LAG_CREDIT_CAP]
    assert LAG_CREDIT_CAP == 500


class Watcher(Agent):
    """Plays the first legal move; remembers the limit the clock gave it."""

    limits: ClassVar[list[float | None]] = []

    def __init__(self, **_options: Any) -> None:
        self.name = "watcher"

    def choose(self, view: PlayerView, player: int) -> Any:
        Watcher.limits.append(self.time_limit)
        return view.legal_moves(player)[0]


def test_an_agent_seat_is_on_the_clock_and_thinks_within_half_its_time(
    client: TestClient, fake: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry._AGENTS, "watcher", Watcher)
    monkeypatch.setattr(Watcher, "limits", [])
    created = timed(
        client, "spline", {"base": 60, "increment": 0}, seats=[{"kind": "agent", "agent": "watcher"}, HUMAN]
    )
    with client.websocket_connect(f"/ws/{created['id']}") as black:
        _welcome, state = join(black, token_of(created, 1))
        if state["version"] < 1:  # the agent had not moved yet when black joined
            state = state_at(black, 1)
    assert Watcher.limits == [30.0]
    assert state["clock"]["running"] == [1]


# -- kill -9: the real server in its own process, on the wall clock ---------------------------------


def post_json(url: str, body: Frame) -> Frame:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        found: Frame = json.loads(response.read())
        return found


def frames_until(ws: ClientConnection, wanted: Callable[[Frame], bool]) -> Frame:
    while True:
        frame: Frame = json.loads(ws.recv(timeout=20))
        assert frame["type"] != "error", frame
        if wanted(frame):
            return frame


def test_the_clocks_survive_kill_9_of_the_server(tmp_path: Path) -> None:
    db, port = tmp_path / "games.sqlite3", free_port()
    base = f"http://127.0.0.1:{port}"
    with (tmp_path / "server.log").open("w") as log:
        server = start_server(port, db, log)
        try:
            body = {"game": "spline", "seats": [HUMAN, HUMAN], "clock": {"base": 300, "increment": 3}}
            created = post_json(base + "/api/games", body)
            with connect(f"ws://127.0.0.1:{port}/ws/{created['id']}", origin=Origin(base)) as white:
                white.send(json.dumps({"type": "join", "token": token_of(created, 0)}))
                state = frames_until(white, lambda f: f["type"] == "state")
                white.send(json.dumps({"type": "move", "move": state["legal_moves"][0], "version": 0}))
                moved = frames_until(white, lambda f: f["type"] == "state" and f["version"] == 1)
            white_left = moved["clock"]["left"][0]
            assert 300_000 < white_left <= 303_000 and moved["clock"]["running"] == [1]
            killed_at = time.time()
        finally:
            server.kill()  # kill -9: no shutdown, nothing written on the way out
            server.wait(timeout=20)
        assert server.returncode == -signal.SIGKILL
        server = start_server(port, db, log)
        restarted_at = time.time()
        try:
            with connect(f"ws://127.0.0.1:{port}/ws/{created['id']}", origin=Origin(base)) as black:
                black.send(json.dumps({"type": "join", "token": token_of(created, 1)}))
                state = frames_until(black, lambda f: f["type"] == "state")
                waited = (time.time() - killed_at) * 1000
        finally:
            server.terminate()
            server.wait(timeout=20)
    clock = state["clock"]
    assert clock["left"][0] == white_left  # the stored clock, to the millisecond
    assert clock["running"] == [1]
    # Black's clock ran on from white's move through the kill and the restart, as a chess clock left running.
    down = (restarted_at - killed_at) * 1000
    assert 300_000 - waited - 2_000 <= clock["left"][1] <= 300_000 - down


def test_a_game_lost_on_time_is_analysed_move_by_move(client: TestClient, fake: FakeClock) -> None:
    """Its rules position is not over, yet the game is: the analysis board takes it like any ended game."""
    created = timed(client, "spline", {"base": 3, "increment": 0})
    fake.advance(3_000)
    sweep(client)
    assert result_of(client, created["id"])["reason"] == {"code": "time", "seat": 0}
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse_game", "id": 1, "record": created["id"]})
        while (reply := ws.receive_json())["type"] == "progress":
            pass
    assert reply["type"] == "game_analysis", reply
    assert reply["report"]["moves"] == [] and len(reply["report"]["evaluation"]) == 1
