"""The server attacked: one test per attack of the hardening issue, each checking that the
server keeps serving other games and that no acknowledged move or choice is lost.

Most tests run the app in-process (Starlette's test client); the attacks on sockets and HTTP
framing (a stalled reader, a join storm, slow headers) run ``spheria serve`` in a subprocess on a
free port of 127.0.0.1. All traffic stays on loopback; every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from spheria.agents import registry
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView
from spheria.server.agents import AgentPool
from spheria.server.app import create_app
from spheria.server.limits import Limits
from spheria.server.session import Client, SessionManager
from spheria.server.storage import SQLiteStorage
from tests.server.test_server import HUMAN, RANDOM, TEST_LIMITS, create, error, join, receive, state_at, token_of

Frame = dict[str, Any]
SPAGYRIC_FIRST_REVEAL = ("r", "w")  # red beats white: seat 0 then places


# -- a runaway agent (registered here and, through the pool's initializer, in its workers) --------


class SleeperAgent(Agent):
    """An agent that ignores every budget: it never answers."""

    name = "sleeper"

    def choose(self, state: PlayerView, player: int) -> Any:
        time.sleep(3600)
        raise AssertionError("unreachable")


def register_sleeper() -> None:
    """Registers the sleeper (in a pool worker: its initializer)."""
    registry.register_agent("sleeper", SleeperAgent)


@pytest.fixture
def sleeper() -> Iterator[str]:
    """The sleeper, known to the server process for the test (and to no other test)."""
    register_sleeper()
    yield "sleeper"
    registry._AGENTS.pop("sleeper", None)


def process_pool(workers: int = 1) -> Executor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=register_sleeper)


# -- a store that fails (or crashes) at a chosen write ---------------------------------------------


class StorageFault(Exception):
    """What the faulty store raises: like ``database is locked`` past the busy timeout."""


class FaultyStorage:
    """SQLite storage that fails the ``n``-th call of a write method, before or after it commits."""

    def __init__(self, path: str) -> None:
        self.inner = SQLiteStorage(path)
        self.fail: dict[str, tuple[int, bool]] = {}  # method -> (calls left before failing, after commit)

    def arm(self, method: str, after_commit: bool = False, skip: int = 0) -> None:
        self.fail[method] = (skip, after_commit)

    def _maybe_fail(self, method: str, call: Callable[[], Any]) -> Any:
        plan = self.fail.get(method)
        if plan is None:
            return call()
        skip, after_commit = plan
        if skip > 0:
            self.fail[method] = (skip - 1, after_commit)
            return call()
        del self.fail[method]
        if after_commit:
            call()
        raise StorageFault(f"{method}: database is locked")

    def append_moves(self, game_id: str, first_ply: int, entries: list[str], result: Any = None) -> None:
        self._maybe_fail("append_moves", lambda: self.inner.append_moves(game_id, first_ply, entries, result))

    def set_pending(self, game_id: str, seat: int, entry: str) -> None:
        self._maybe_fail("set_pending", lambda: self.inner.set_pending(game_id, seat, entry))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# -- fixtures -----------------------------------------------------------------------------------------

MakeApp = Callable[..., TestClient]


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[MakeApp]:
    """``make_app(db=None, storage=None, executor_factory=None, **limits)``: a running app."""
    opened: list[TestClient] = []

    def make(
        db: Path | None = None,
        storage: Any = None,
        executor_factory: Callable[[], Executor] | None = None,
        **limits: Any,
    ) -> TestClient:
        factory = executor_factory or (lambda: ThreadPoolExecutor(4))
        app = create_app(
            str(db or tmp_path / "games.sqlite3"),
            storage=storage,
            executor_factory=factory,
            agent_delay=0,
            limits=replace(TEST_LIMITS, **limits),
        )
        client = TestClient(app)
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in reversed(opened):
        client.__exit__(None, None, None)


def manager_of(client: TestClient) -> SessionManager:
    manager: SessionManager = client.app.state.manager  # type: ignore[attr-defined]
    return manager


def play_spline_move(client: TestClient, created: Frame, token: str) -> Frame:
    """Seat 0 of a spline game plays its first legal move; returns the acknowledged state."""
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token)
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        return state_at(ws, state["version"] + 1)


def still_serving(client: TestClient) -> None:
    """Another game can be created and played to its first acknowledged move."""
    created = create(client, "spline", [HUMAN, HUMAN])
    acknowledged = play_spline_move(client, created, token_of(created, 0))
    assert acknowledged["version"] == 1


# -- specs ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("mcts:time=nan", "time"),
        ("mcts:time=inf", "time"),
        ("mcts:iterations=1000000000000", "iterations"),
        ("alphabeta:depth=99", "depth"),
        ("mcts:time=11", "time"),  # above the server's --agent-max-time (10 s by default)
        ("random:seed=1.5", "seed"),
    ],
)
def test_a_nan_or_huge_budget_spec_is_refused_naming_the_option(make_app: MakeApp, spec: str, named: str) -> None:
    client = make_app()
    body = {"game": "spline", "seats": [HUMAN, {"kind": "agent", "agent": spec}]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_seats"
    assert named in response.json()["error"]["message"]
    assert client.get("/api/games").json()["games"] == []
    still_serving(client)


def test_an_agent_that_does_not_fit_the_game_is_refused(make_app: MakeApp) -> None:
    client = make_app()
    body = {"game": "spinca", "options": {"players": 3}, "seats": [HUMAN, HUMAN, {"kind": "agent", "agent": "solver"}]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.text
    assert "solver" in response.json()["error"]["message"]


@pytest.mark.parametrize("spec", ["random:seed=\x1b]0;owned\x07", "random\x1b[2J", "mcts:time=1\r\nX: y"])
def test_control_characters_in_a_spec_are_refused_and_never_stored(
    make_app: MakeApp, tmp_path: Path, spec: str
) -> None:
    client = make_app()
    response = client.post("/api/games", json={"game": "spline", "seats": [HUMAN, {"kind": "agent", "agent": spec}]})
    assert response.status_code == 400
    assert "control" in response.json()["error"]["message"]
    stored = sqlite3.connect(tmp_path / "games.sqlite3").execute("SELECT agent FROM seats").fetchall()
    assert stored == []
    still_serving(client)


# -- agents that hold the pool ----------------------------------------------------------------------------


def test_a_runaway_agent_is_stopped_its_worker_killed_and_a_visible_random_move_played(
    make_app: MakeApp, tmp_path: Path, sleeper: str
) -> None:
    client = make_app(executor_factory=process_pool, agent_max_time=1.0, agent_grace=2.0)
    pool = manager_of(client).agents
    assert isinstance(pool, AgentPool)
    created = create(client, "spline", [HUMAN, {"kind": "agent", "agent": "sleeper"}])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        ws.send_json({"type": "move", "move": state["legal_moves"][0]})
        answered = state_at(ws, 2)  # the server played for the sleeper once its deadline passed
    assert answered["fallbacks"] == [{"seat": 1, "ply": 1, "code": "agent_timeout"}]
    assert pool.rebuilds == 1
    faults = sqlite3.connect(tmp_path / "games.sqlite3").execute("SELECT ply, seat, code FROM faults").fetchall()
    assert faults == [(1, 1, "agent_timeout")]
    # The rebuilt pool serves the next agent at once.
    other = create(client, "spline", [HUMAN, RANDOM])
    with client.websocket_connect(f"/ws/{other['id']}") as ws:
        _, state = join(ws, token_of(other, 0))
        ws.send_json({"type": "move", "move": state["legal_moves"][0]})
        assert state_at(ws, 2)["fallbacks"] == []


def test_a_killed_worker_is_replaced_and_later_agent_moves_are_the_agents_own(make_app: MakeApp) -> None:
    client = make_app(executor_factory=process_pool, agent_grace=60.0)
    pool = manager_of(client).agents
    assert isinstance(pool, AgentPool)
    created = create(client, "spline", [HUMAN, RANDOM])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        ws.send_json({"type": "move", "move": state["legal_moves"][0]})
        state = state_at(ws, 2)
        for process in list(pool.executor._processes.values()):  # type: ignore[attr-defined]
            os.kill(process.pid, signal.SIGKILL)
            process.join(10)
        for version in (4, 6):
            ws.send_json({"type": "move", "move": state["legal_moves"][0]})
            state = state_at(ws, version)
    assert state["fallbacks"] == []  # every agent move after the kill was the agent's
    assert pool.rebuilds == 1


def test_a_job_that_timed_out_before_a_restart_is_not_run_again(
    make_app: MakeApp, tmp_path: Path, sleeper: str
) -> None:
    db = tmp_path / "games.sqlite3"
    first = make_app(db)
    created = create(first, "spline", [HUMAN, {"kind": "agent", "agent": "sleeper"}])
    first.__exit__(None, None, None)
    # The server died after noting the time-out, before it played the fallback move.
    store = SQLiteStorage(str(db))
    store.append_moves(created["id"], 0, ["0a1"])
    store.add_fault(created["id"], 1, 1, "agent_timeout")
    store.close()
    second = make_app(db, executor_factory=process_pool, agent_max_time=1.0, agent_grace=60.0)
    with second.websocket_connect(f"/ws/{created['id']}") as ws:
        _, joined = join(ws)  # the fallback move may be played before or after this join
        resumed = joined if joined["version"] >= 2 else state_at(ws, 2)  # a sleeper run again: 600 s
    assert resumed["fallbacks"] == [{"seat": 1, "ply": 1, "code": "agent_timeout"}]
    rebuilt = manager_of(second).agents
    assert isinstance(rebuilt, AgentPool) and rebuilt.rebuilds == 0


# -- reveals -------------------------------------------------------------------------------------------------


def test_a_storage_failure_at_the_first_choice_keeps_nothing_and_says_so(make_app: MakeApp, tmp_path: Path) -> None:
    store = FaultyStorage(str(tmp_path / "games.sqlite3"))
    client = make_app(storage=store)
    created = create(client, "spagyric", [HUMAN, HUMAN])
    with client.websocket_connect(f"/ws/{created['id']}") as north:
        join(north, token_of(created, 0))
        store.arm("set_pending")
        north.send_json({"type": "move", "move": "r"})
        refused = error(north)
        assert refused["code"] == "storage_error" and refused["kept"] is False
        assert "nothing was kept" in refused["message"]
        north.send_json({"type": "move", "move": "r"})  # nothing was kept: the seat may choose again
        assert receive(north, lambda f: f["type"] == "state" and f["your_choice"] is not None)["your_choice"] == "r"
    still_serving(client)


@pytest.mark.parametrize("after_commit", [False, True])
def test_a_storage_failure_at_the_reveal_never_freezes_the_game(
    make_app: MakeApp, tmp_path: Path, after_commit: bool
) -> None:
    """The write of the second choice and its reveal fails (before or after it commits): the game
    goes on, the first choice is kept, and after a restart the reveal is there exactly once."""
    db = tmp_path / "games.sqlite3"
    store = FaultyStorage(str(db))
    client = make_app(db, storage=store)
    created = create(client, "spagyric", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with client.websocket_connect(path) as north, client.websocket_connect(path) as south:
        join(north, token_of(created, 0))
        join(south, token_of(created, 1))
        north.send_json({"type": "move", "move": "r"})
        receive(north, lambda f: f["type"] == "state" and f["your_choice"] == "r")  # acknowledged
        store.arm("append_moves", after_commit=after_commit)
        south.send_json({"type": "move", "move": "w"})
        refused = error(south)
        assert refused["code"] == "storage_error" and refused["kept"] is after_commit
        if not refused["kept"]:
            south.send_json({"type": "move", "move": "w"})  # north's choice is still held: choose again
        resolved = state_at(south, 1)
    assert resolved["to_move"] == 0 and resolved["waiting_for"] == []
    client.__exit__(None, None, None)
    moves = sqlite3.connect(db).execute("SELECT ply, entry FROM moves ORDER BY ply").fetchall()
    pending = sqlite3.connect(db).execute("SELECT seat FROM pending").fetchall()
    assert len(moves) == 1  # the reveal, stored once
    assert pending == []


def test_a_reveal_with_every_choice_stored_is_resolved_at_load(make_app: MakeApp, tmp_path: Path) -> None:
    """A file left by an older server (both choices stored, the reveal not) heals when loaded."""
    db = tmp_path / "games.sqlite3"
    first = make_app(db)
    created = create(first, "spagyric", [HUMAN, HUMAN])
    first.__exit__(None, None, None)
    store = SQLiteStorage(str(db))
    for seat, entry in enumerate(SPAGYRIC_FIRST_REVEAL):
        store.set_pending(created["id"], seat, entry)
    store.close()
    second = make_app(db)
    with second.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
    assert state["version"] == 1 and state["to_move"] == 0 and state["legal_moves"]
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM pending").fetchone() == (0,)


WRITE_POINTS = [
    ("move", "append_moves", False),
    ("move", "append_moves", True),
    ("first choice", "set_pending", False),
    ("first choice", "set_pending", True),
    ("reveal", "append_moves", False),
    ("reveal", "append_moves", True),
]


@pytest.mark.parametrize(("step", "method", "after_commit"), WRITE_POINTS)
def test_a_crash_at_any_write_loses_nothing_acknowledged_duplicates_nothing_and_sticks_nothing(
    make_app: MakeApp, tmp_path: Path, step: str, method: str, after_commit: bool
) -> None:
    """The server dies at a write point (before or after the commit) and starts again on the file."""
    db = tmp_path / "games.sqlite3"
    store = FaultyStorage(str(db))
    first = make_app(db, storage=store)
    game = "spline" if step == "move" else "spagyric"
    created = create(first, game, [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with first.websocket_connect(path) as north, first.websocket_connect(path) as south:
        _, state = join(north, token_of(created, 0))
        join(south, token_of(created, 1))
        if step == "move":
            north.send_json({"type": "move", "move": state["legal_moves"][0]})
            acknowledged = [state_at(north, 1)["last_move"]]
            state = state_at(south, 1)
            store.arm(method, after_commit)
            south.send_json({"type": "move", "move": state["legal_moves"][0]})
            assert error(south)["code"] == "storage_error"  # the crash: never acknowledged
        else:
            if step == "reveal":
                north.send_json({"type": "move", "move": SPAGYRIC_FIRST_REVEAL[0]})
                receive(north, lambda f: f["type"] == "state" and f["your_choice"] is not None)
            acknowledged = []
            store.arm(method, after_commit)
            mover, choice = (south, SPAGYRIC_FIRST_REVEAL[1]) if step == "reveal" else (north, "r")
            mover.send_json({"type": "move", "move": choice})
            assert error(mover)["code"] == "storage_error"
    first.__exit__(None, None, None)  # as if killed: nothing more reaches the file

    second = make_app(db)
    stored = [entry for (entry,) in sqlite3.connect(db).execute("SELECT entry FROM moves ORDER BY ply")]
    assert stored[: len(acknowledged)] == acknowledged  # nothing acknowledged lost
    assert len(stored) == len(acknowledged) + (1 if after_commit and step != "first choice" else 0)  # no duplicate
    # Nothing stuck: both seats can go on from where the file says.
    with second.websocket_connect(path) as north, second.websocket_connect(path) as south:
        _, north_state = join(north, token_of(created, 0))
        _, south_state = join(south, token_of(created, 1))
        version = north_state["version"]
        if north_state["simultaneous"]:
            for ws, frame, choice in ((north, north_state, "b"), (south, south_state, "b")):
                if frame["your_choice"] is None:
                    ws.send_json({"type": "move", "move": choice})
        else:
            mover_ws, mover_state = (north, north_state) if north_state["legal_moves"] else (south, south_state)
            mover_ws.send_json({"type": "move", "move": mover_state["legal_moves"][0]})
        assert state_at(north, version + 1)["version"] == version + 1


# -- seats -------------------------------------------------------------------------------------------------------


def test_the_creator_opening_the_opponents_link_gets_seat_taken_and_no_secret(make_app: MakeApp) -> None:
    client = make_app()
    created = create(client, "spagyric", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with client.websocket_connect(path) as invitee:
        join(invitee, token_of(created, 1))  # the invitee's browser claims seat 1
        invitee.send_json({"type": "move", "move": "b"})
        receive(invitee, lambda f: f["type"] == "state" and f["your_choice"] == "b")  # acknowledged
        with client.websocket_connect(path) as creator:
            creator.send_json({"type": "join", "token": token_of(created, 1)})
            refused = error(creator)
            assert refused["code"] == "seat_taken"
            creator.send_json({"type": "join"})  # it may watch, and sees no choice
            watched = receive(creator, lambda f: f["type"] == "state")
            assert watched["seat"] is None and watched["your_choice"] is None and watched["waiting_for"] == [0]
        owner = created["owner"]
        taken = client.post(f"/api/games/{created['id']}/invites", json={"seat": 1, "owner": owner})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
        invitee.send_json({"type": "ping"})
        assert receive(invitee, lambda f: f["type"] == "pong") == {"type": "pong"}  # the invitee is untouched


def test_an_invitee_whose_seat_was_taken_first_is_told_and_the_creator_can_reissue_an_unclaimed_link(
    make_app: MakeApp,
) -> None:
    client = make_app()
    created = create(client, "spline", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    first_link, second_link = token_of(created, 0), token_of(created, 1)
    with client.websocket_connect(path) as early, client.websocket_connect(path) as late:
        early.send_json({"type": "join", "token": first_link})
        claimed = receive(early, lambda f: f["type"] == "claimed")
        assert claimed["seat"] == 0 and len(claimed["credential"]) >= 40
        late.send_json({"type": "join", "token": first_link})
        assert error(late)["code"] == "seat_taken"
    # The creator replaces the unclaimed seat's link: the old one stops working.
    wrong = client.post(f"/api/games/{created['id']}/invites", json={"seat": 1, "owner": "x" * 43})
    assert wrong.status_code == 403
    fresh = client.post(f"/api/games/{created['id']}/invites", json={"seat": 1, "owner": created["owner"]})
    assert fresh.status_code == 200
    new_link = fresh.json()["invite"].split("#", 1)[1]
    with client.websocket_connect(path) as old, client.websocket_connect(path) as new:
        old.send_json({"type": "join", "token": second_link})
        assert error(old)["code"] == "bad_token"
        new.send_json({"type": "join", "token": new_link})
        assert receive(new, lambda f: f["type"] == "welcome")["seat"] == 1
    # The claimed seat's browser comes back with its credential.
    with client.websocket_connect(path) as back:
        back.send_json({"type": "join", "credential": claimed["credential"]})
        assert receive(back, lambda f: f["type"] == "welcome")["seat"] == 0


# -- limits --------------------------------------------------------------------------------------------------------


def test_a_creation_flood_is_rate_limited_and_games_in_play_go_on(make_app: MakeApp) -> None:
    client = make_app(create_burst=5, create_per_minute=0.0)
    created = create(client, "spline", [HUMAN, HUMAN])
    answers = [
        client.post("/api/games", json={"game": "spline", "seats": [HUMAN, HUMAN]}).status_code for _ in range(40)
    ]
    assert answers[:4] == [201] * 4 and set(answers[4:]) == {429}
    assert len(client.get("/api/games").json()["games"]) == 5
    assert play_spline_move(client, created, token_of(created, 0))["version"] == 1


def test_an_idle_game_is_aborted_and_a_finished_game_is_served_from_storage(make_app: MakeApp, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    client = make_app(db, idle_game_seconds=3600.0)
    manager = manager_of(client)
    idle = create(client, "spline", [HUMAN, HUMAN])
    finished = create(client, "spline", [RANDOM, RANDOM])
    for _ in range(200):  # the agents finish it (bounded: each turn is quick)
        if client.get(f"/api/games/{finished['id']}").json()["status"] == "finished":
            break
        time.sleep(0.05)
    sqlite3.connect(db, isolation_level=None).execute(
        "UPDATE games SET updated = updated - 7200 WHERE id = ?", (idle["id"],)
    )
    aborted = client.portal.call(manager.expire_idle)  # type: ignore[union-attr]
    assert aborted == [idle["id"]]
    assert idle["id"] not in manager.sessions and finished["id"] not in manager.sessions
    assert client.get(f"/api/games/{idle['id']}").json()["status"] == "aborted"
    assert client.get(f"/api/games/{finished['id']}/record").status_code == 200
    assert finished["id"] not in manager.sessions  # fetched from the file, not kept
    with client.websocket_connect(f"/ws/{idle['id']}") as ws:
        ws.send_json({"type": "join", "token": token_of(idle, 0)})
        assert receive(ws, lambda f: f["type"] == "state")["aborted"] is True
        ws.send_json({"type": "move", "move": "0a1"})
        assert error(ws)["code"] == "game_over"


# -- browser-facing checks --------------------------------------------------------------------------------------------


def test_a_cross_origin_post_and_websocket_are_refused(make_app: MakeApp) -> None:
    client = make_app()
    body = json.dumps({"game": "spline", "seats": [HUMAN, HUMAN]})
    form = client.post("/api/games", content=body, headers={"Content-Type": "text/plain"})
    assert form.status_code == 415
    evil = {"Content-Type": "application/json", "Origin": "http://evil.example"}
    assert client.post("/api/games", content=body, headers=evil).status_code == 403
    assert client.get("/api/games").json()["games"] == []
    created = create(client, "spline", [HUMAN, HUMAN])
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/{created['id']}", headers={"Origin": "http://evil.example"}),
    ):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect(f"/ws/{created['id']}", headers={"Origin": "http://testserver"}) as ws:
        join(ws)  # the page's own origin is welcome
    still_serving(client)


def test_a_rebinding_host_header_is_refused(make_app: MakeApp) -> None:
    client = make_app()
    created = create(client, "spline", [HUMAN, HUMAN])
    rebound = {"Host": "attacker.example"}
    assert client.get("/api/games", headers=rebound).status_code == 421
    assert client.get(f"/api/games/{created['id']}", headers=rebound).status_code == 421
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(f"/ws/{created['id']}", headers=rebound):
        pass
    still_serving(client)


@pytest.mark.parametrize("path", ["/", "/static/js/game.js", "/api/games", "/no/such/page", "/api/games/nope"])
def test_every_response_carries_the_security_headers(make_app: MakeApp, path: str) -> None:
    response = make_app().get(path)
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


# -- sockets and framing, against the real server --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """``serve(*options)``: ``spheria serve`` on 127.0.0.1 in a subprocess; returns its base URL."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(*options: str) -> str:
        port = free_port()
        db = tmp_path / f"serve-{port}.sqlite3"
        command = [
            sys.executable,
            "-m",
            "spheria.server",
            "--port",
            str(port),
            "--db",
            str(db),
            "--agent-pool",
            "thread",
        ]
        process = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(process)
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):  # at most 60 s to start on a loaded machine
            try:
                with urllib.request.urlopen(base + "/api/catalog", timeout=5):
                    return base
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise AssertionError("the server did not start")

    yield start
    for process in processes:
        process.terminate()
        process.wait(20)


def post(base: str, path: str, data: Frame) -> Frame:
    request = urllib.request.Request(
        base + path, json.dumps(data).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        result: Frame = json.load(response)
        return result


async def open_socket(base: str, game_id: str) -> Any:
    """A websocket that keeps reading (and answering the server's pings) whatever the test reads."""
    from websockets.asyncio.client import connect

    return await connect(base.replace("http", "ws") + f"/ws/{game_id}", open_timeout=60, max_queue=None)


async def next_of(ws: Any, wanted: Callable[[Frame], bool], seconds: float = 60) -> Frame:
    async def read() -> Frame:
        for _ in range(100_000):
            frame: Frame = json.loads(await ws.recv())
            if wanted(frame):
                return frame
        raise AssertionError("no such frame")

    return await asyncio.wait_for(read(), seconds)


def newer(version: int) -> Callable[[Frame], bool]:
    return lambda frame: frame["type"] == "state" and frame["version"] >= version


async def play_out(base: str, created: Frame) -> list[list[int]]:
    """Both seats of ``created`` play random moves to the end; returns the versions each saw."""
    seats = [await open_socket(base, created["id"]) for _ in range(2)]
    seen: list[list[int]] = [[], []]
    states: list[Frame] = []
    for seat, ws in enumerate(seats):
        await ws.send(json.dumps({"type": "join", "token": token_of(created, seat)}))
        states.append(await next_of(ws, lambda f: f["type"] == "state"))
    for version in range(1, 200):
        if states[0]["terminal"]:
            break
        mover = 0 if states[0]["legal_moves"] else 1
        await seats[mover].send(json.dumps({"type": "move", "move": states[mover]["legal_moves"][0]}))
        for seat in (0, 1):
            states[seat] = await next_of(seats[seat], newer(version))
            seen[seat].append(states[seat]["version"])
    for ws in seats:
        await ws.close()
    assert states[0]["terminal"]
    return seen


def test_a_join_storm_of_a_thousand_spectators_leaves_both_players_every_move(serve: Callable[..., str]) -> None:
    # The 1,000 clients run in this one test process on a shared machine: they may take longer
    # than the default 10 s to send their handshakes, which the header timeout would rightly close.
    base = serve("--spectators-per-game", "1000", "--connections-per-address", "1100", "--header-timeout", "120")
    created = post(base, "/api/games", {"game": "spline", "seats": [HUMAN, HUMAN]})

    async def storm() -> tuple[list[list[int]], list[Frame]]:
        async def spectate() -> Any:
            ws = await open_socket(base, created["id"])
            await ws.send(json.dumps({"type": "join"}))
            return ws

        spectators = list(await asyncio.gather(*(spectate() for _ in range(1000))))
        seen = await play_out(base, created)
        extra = await open_socket(base, created["id"])
        await extra.send(json.dumps({"type": "join"}))
        refusal = await next_of(extra, lambda f: f["type"] == "error")
        last = await next_of(spectators[-1], lambda f: f["type"] == "state" and bool(f["terminal"]))
        for ws in [*spectators, extra]:
            await ws.close()
        return seen, [refusal, last]

    seen, (refusal, last) = asyncio.run(asyncio.wait_for(storm(), 600))
    moves = len(seen[0])
    assert seen == [list(range(1, moves + 1))] * 2  # both players: every move, in order
    assert refusal["code"] == "spectators_full"  # the 1,001st spectator
    assert last["terminal"]


def test_a_stalled_reader_is_closed_and_other_games_go_on(serve: Callable[..., str]) -> None:
    base = serve("--frame-rate", "0", "--client-queue", "16")
    victim = post(base, "/api/games", {"game": "special-cake", "seats": [HUMAN, HUMAN]})
    other = post(base, "/api/games", {"game": "spline", "seats": [HUMAN, HUMAN]})
    host, port = base.removeprefix("http://").split(":")
    stalled = socket.create_connection((host, int(port)), timeout=30)
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.sendall(
        f"GET /ws/{victim['id']} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )

    def frame(data: Frame) -> bytes:  # a masked client text frame
        payload = json.dumps(data).encode()
        mask = b"\x01\x02\x03\x04"
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        length = bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + len(payload).to_bytes(2)
        return b"\x81" + length + mask + masked

    stalled.sendall(frame({"type": "join", "token": token_of(victim, 0)}))
    closed = False
    for _ in range(20_000):  # previews it never reads, until the server closes it
        try:
            stalled.sendall(frame({"type": "preview", "move": "0a1"}))
        except OSError:
            closed = True
            break
    # Meanwhile another game is served at once.
    seen = asyncio.run(asyncio.wait_for(play_out(base, other), 300))
    assert seen[0] and seen[0] == seen[1]
    if not closed:  # what it did not read is still in the pipe, then the close (1013) and the end
        stalled.settimeout(60)
        for _ in range(100_000):
            try:
                if not stalled.recv(65536):
                    closed = True
                    break
            except ConnectionResetError:
                closed = True
                break
    assert closed  # the server ended the connection (a socket left open would time the read out)
    stalled.close()


def test_slow_headers_and_silent_sockets_are_closed(serve: Callable[..., str]) -> None:
    base = serve("--header-timeout", "1")
    host, port = base.removeprefix("http://").split(":")
    silent = socket.create_connection((host, int(port)), timeout=30)
    slow = socket.create_connection((host, int(port)), timeout=30)
    slow.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the headers never end
    for sock in (silent, slow):
        assert sock.recv(1024) == b""  # closed by the server (within the socket's 30 s timeout)
        sock.close()
    with urllib.request.urlopen(base + "/api/games", timeout=20) as response:
        assert response.status == 200


def test_serve_options_set_the_limits_and_a_public_url_is_the_only_other_origin(tmp_path: Path) -> None:
    import argparse

    from spheria.server.command import add_arguments, limits_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = limits_of(parser.parse_args([]))
    assert defaults == Limits()  # the options' defaults are the documented limits
    public = parser.parse_args(["--public-url", "https://Spheria.example.org", "--allowed-host", "lan.local:8000"])
    limits = limits_of(public)
    assert {"spheria.example.org", "lan.local", "127.0.0.1"} <= set(limits.allowed_hosts)
    assert limits.allowed_origins == ("https://spheria.example.org",)
    with pytest.raises(SystemExit):
        limits_of(parser.parse_args(["--agent-max-time", "nan"]))
    client = TestClient(create_app(str(tmp_path / "g.sqlite3"), executor=ThreadPoolExecutor(1), limits=limits))
    with client:
        body = {"game": "spline", "seats": [HUMAN, HUMAN]}
        own = {"Host": "spheria.example.org", "Origin": "https://spheria.example.org"}
        assert client.post("/api/games", json=body, headers=own).status_code == 201
        other = {"Host": "spheria.example.org", "Origin": "https://evil.example"}
        assert client.post("/api/games", json=body, headers=other).status_code == 403


# -- what the load benchmark found under attack (docs/server.md, "Limits") -------------------------------------------


def test_a_thousand_spectators_of_a_fast_game_get_the_latest_position_not_a_backlog(tmp_path: Path) -> None:
    """Spectators share the server's spectator rate: however fast a game is played, each is sent
    the latest position (one text, built once) and never falls behind; the players get every move."""

    async def storm() -> tuple[list[list[str]], list[list[str]], float, int]:
        limits = replace(TEST_LIMITS, spectator_rate=2000.0)
        storage = SQLiteStorage(str(tmp_path / "g.sqlite3"))
        manager = SessionManager(storage, AgentPool(lambda: ThreadPoolExecutor(1)), 0.0, limits)
        session, _, _ = await manager.create("spline", {}, [HUMAN, HUMAN])
        queued: Callable[[Any], list[str]] = lambda client: list(client.queue._queue)  # noqa: E731
        watchers = [Client(lambda text: None) for _ in range(1000)]
        seats = [Client(lambda text: None, seat) for seat in (0, 1)]
        for client in [*watchers, *seats]:
            session.attach(client)
        started = time.monotonic()
        while not session.state.is_terminal():  # a whole game, as fast as the server takes it
            seat = session.state.current_player()
            await session.submit(seat, str(session.state.legal_moves(seat)[0]))
        elapsed = time.monotonic() - started
        await asyncio.sleep(1000 / limits.spectator_rate + 0.2)  # the spectators' next turn
        result = [queued(c) for c in watchers], [queued(c) for c in seats], elapsed, session.version
        await manager.close()
        storage.close()
        return result

    watchers, seats, elapsed, moves = asyncio.run(storm())
    states = [[json.loads(t)["version"] for t in q if '"type":"state"' in t] for q in watchers]
    assert moves >= 7 and all(versions[-1] == moves for versions in states)  # every spectator has the latest position
    allowed = 1 + (elapsed + 0.5) * 2000 / 1000 + 1  # the join's frame, the rate's share, the last flush
    assert max(len(versions) for versions in states) <= allowed  # not one frame per move
    assert len({id(q[-1]) for q in watchers}) == 1  # one text shared by all of them
    for queue in seats:  # the players: every move, in order
        assert [json.loads(t)["version"] for t in queue if '"type":"state"' in t] == list(range(moves + 1))


def test_idle_sockets_filling_the_server_never_cost_an_honest_request_a_503(serve: Callable[..., str]) -> None:
    base = serve("--max-connections", "40", "--header-timeout", "60")
    host, port = base.removeprefix("http://").split(":")
    idle = [socket.create_connection((host, int(port)), timeout=30) for _ in range(60)]
    try:
        for _ in range(3):  # the oldest silent sockets are closed to make room, not the newcomer
            with urllib.request.urlopen(base + "/api/games", timeout=20) as response:
                assert response.status == 200
        idle[0].settimeout(20)
        assert idle[0].recv(1) == b""  # the socket silent the longest was closed
    finally:
        for sock in idle:
            sock.close()


def still_open(sockets: list[socket.socket], seconds: float) -> list[socket.socket]:
    """The sockets the server has not closed within ``seconds`` (a closed one reads as end of file)."""
    deadline = time.monotonic() + seconds
    open_ = list(sockets)
    while open_ and time.monotonic() < deadline:
        readable, _, _ = select.select(open_, [], [], max(0.0, deadline - time.monotonic()))
        for sock in readable:
            try:
                closed = sock.recv(1) == b""
            except ConnectionResetError:
                closed = True
            if closed:
                open_.remove(sock)
    return open_


def test_half_sent_requests_from_one_address_never_cost_another_address_a_503(serve: Callable[..., str]) -> None:
    """Slowloris: one address holds many requests open by sending their headers a byte at a time.
    It gets its share of the connection table (``--http-per-address``) and no more; an honest
    client at another loopback address (127.0.0.2) is answered at once, and the attacker's own
    connections within its share are still served."""
    base = serve("--max-connections", "60", "--http-per-address", "20", "--header-timeout", "60")
    host, port = base.removeprefix("http://").split(":")
    attack = []
    try:
        for _ in range(80):  # more than the whole table
            sock = socket.create_connection((host, int(port)), timeout=30)
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHo")  # and never the rest
            attack.append(sock)
        started = time.monotonic()
        honest = http.client.HTTPConnection(host, int(port), timeout=20, source_address=("127.0.0.2", 0))
        honest.request("GET", "/api/games")
        assert honest.getresponse().status == 200
        honest.close()
        assert time.monotonic() - started < 10
        kept = still_open(attack, seconds=10)
        assert len(kept) == 20  # the attacker's share; which 20 depends on the order bytes arrived
        kept[0].sendall(f"st: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())  # ... is served
        kept[0].settimeout(20)
        assert kept[0].recv(12).startswith(b"HTTP/1.1 200")
    finally:
        for sock in attack:
            sock.close()


def test_the_header_timeout_counts_from_the_first_byte_so_a_late_but_honest_client_is_served(
    serve: Callable[..., str],
) -> None:
    """A loaded client (or server) may send its request a while after connecting: it gets the
    whole header timeout from its first byte. Slow headers are still closed (the test above)."""
    base = serve("--header-timeout", "2")
    host, port = base.removeprefix("http://").split(":")
    late = socket.create_connection((host, int(port)), timeout=30)
    time.sleep(1.5)
    late.sendall(b"GET /api/catalog HTTP/1.1\r\n")
    time.sleep(1.5)  # 3 s after connecting, 1.5 s after the first byte
    late.sendall(f"Host: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
    answer = b""
    while chunk := late.recv(65536):
        answer += chunk
    late.close()
    assert answer.startswith(b"HTTP/1.1 200")


def test_agent_workers_think_below_the_servers_priority() -> None:
    from spheria.server.agents import make_executor

    pool = make_executor("process", 1, niceness=5)
    try:
        assert pool.submit(os.nice, 0).result(timeout=120) == min(19, os.nice(0) + 5)
    finally:
        pool.shutdown()


class SlowFinishStorage:
    """SQLite storage whose write of a game's last move (the one with the result) waits for ``go``."""

    def __init__(self, path: str) -> None:
        self.inner = SQLiteStorage(path)
        self.writing, self.go = threading.Event(), threading.Event()

    def append_moves(self, game_id: str, first_ply: int, entries: list[str], result: Any = None) -> None:
        if result is not None:
            self.writing.set()
            self.go.wait(30)
        self.inner.append_moves(game_id, first_ply, entries, result)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_game_read_while_its_last_move_is_written_is_one_consistent_game(make_app: MakeApp, tmp_path: Path) -> None:
    """The last move is played (the game is over) while its write is under way: whoever reads the
    game then gets a record whose moves reach that end, never a finished record one move short."""
    storage = SlowFinishStorage(str(tmp_path / "slow.sqlite3"))
    client = make_app(storage=storage)
    created = create(client, "spline", [HUMAN, HUMAN])
    with (
        client.websocket_connect(f"/ws/{created['id']}") as white,
        client.websocket_connect(f"/ws/{created['id']}") as black,
    ):
        seats = [white, black]
        states = [join(ws, token_of(created, seat))[1] for seat, ws in enumerate(seats)]
        plan = ["0a1", "0a2", "0b1", "0b2", "0c1", "0c2", "0d1"]  # White's row on rank 1
        for ply, move in enumerate(plan[:-1]):
            seats[ply % 2].send_json({"type": "move", "move": move, "version": ply})
            states[0] = state_at(white, ply + 1)
        white.send_json({"type": "move", "move": plan[-1], "version": len(plan) - 1})
        assert storage.writing.wait(30)  # the winning move is played; its write waits
        try:
            info = client.get(f"/api/games/{created['id']}").json()
            record = client.get(f"/api/games/{created['id']}/record")
            if info["status"] == "finished":
                assert record.status_code == 200
                data = record.json()
                assert data["moves"] == plan and data["result"] == [1.0, -1.0]
        finally:
            storage.go.set()
        assert state_at(white, len(plan))["terminal"]
    data = client.get(f"/api/games/{created['id']}/record").json()
    assert data["moves"] == plan and data["result"] == [1.0, -1.0]


def test_players_agents_think_ahead_of_the_analysis_board() -> None:
    """Agents in people's games come first: the analysis board's workers run below their priority,
    so a busy board never makes an agent in someone's game run out of time."""
    from spheria.server.agents import make_executor
    from spheria.server.analysis import AnalysisLimits
    from spheria.server.analysis_pool import AnalysisPool

    agents = make_executor("process", 1, niceness=Limits().agent_niceness)
    try:
        agent_niceness = agents.submit(os.nice, 0).result(timeout=120)
    finally:
        agents.shutdown()

    async def analysis_niceness() -> int:
        pool = AnalysisPool(1, niceness=AnalysisLimits().niceness)
        worker = pool._spawn()
        stat = Path(f"/proc/{worker.process.pid}/stat")
        try:
            for _ in range(600):  # the worker lowers its own priority as it starts
                niceness = int(stat.read_text().rsplit(")", 1)[1].split()[16])
                if niceness > os.nice(0):
                    return niceness
                await asyncio.sleep(0.1)
            return niceness
        finally:
            pool.shutdown()

    assert asyncio.run(analysis_niceness()) > agent_niceness > os.nice(0)
