"""Progress of the solver where the server runs it (docs/server.md, "Agents thinking" and Hints).

An agent seat whose agent is the Special Cake solver, and a hint worked out by it, report the
positions searched so far, live, to the page: ``thinking`` frames to every client (seats and
spectators) and ``hint_progress`` frames to the seat that asked. The position below (mint,
after ``0a1 0d4 0a4`` and ``0d1`` from the measured cake "mint 1" of docs/solver.md) takes the
solver about half a million positions, a second or so: several reports, each counting more.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import spheria
from spheria.agents import registry
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import clear_tables, solve
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView
from spheria.server.agents import AgentPool, AgentProcessPool
from spheria.server.analysis_pool import PROGRESS_EVERY
from spheria.server.app import create_app
from tests.server.test_server import HUMAN, TEST_LIMITS, Frame, join, receive, state_at, token_of

#: Mint to eat, Liquorice human: Liquorice eats ``0d1`` and leaves the solver the measured position.
BEFORE = "bwbbbwwwwbbbwwww/wbbbwwwbw/bw../. 2 eat"
LAST_EAT = "0d1"
#: Mint (seat 0) to eat: the solver expands about 480,000 positions to find its win.
SEARCHED = "bwbbbwwwwbbbwwww/wbwbwwwbw/b.../. 1 eat"
SOLVER = {"kind": "agent", "agent": "solver"}
LIMITS = replace(TEST_LIMITS, hint_time=10.0)


def create(client: TestClient, seats: list[Frame], start: str, hints: bool = False) -> Frame:
    body = {"game": "special-cake", "options": {"variant": "mint"}, "seats": seats, "start": start, "hints": hints}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: Frame = response.json()
    return data


@pytest.fixture
def process_client(tmp_path: Path) -> Iterator[TestClient]:
    """Agents in the server's own process pool (one worker, a fresh solver table): the progress pipe."""
    app = create_app(
        str(tmp_path / "games.sqlite3"), agent_pool="process", agent_workers=1, agent_delay=0, limits=LIMITS
    )
    with TestClient(app) as client:
        yield client


@pytest.fixture
def thread_client(tmp_path: Path) -> Iterator[TestClient]:
    """Agents in a thread pool (the solver's table is this process's: emptied first)."""
    clear_tables()
    app = create_app(str(tmp_path / "games.sqlite3"), executor=ThreadPoolExecutor(2), agent_delay=0, limits=LIMITS)
    with TestClient(app) as client:
        yield client


def pool_of(client: TestClient) -> AgentPool:
    pool: AgentPool = client.app.state.manager.agents  # type: ignore[attr-defined]
    return pool


def counts(frames: list[Frame], seat: int) -> list[int]:
    """The positions searched in the ``thinking`` frames read, for ``seat``, in order."""
    return [
        entry["positions"]
        for frame in frames
        if frame["type"] == "thinking"
        for entry in frame["thinking"]
        if entry["seat"] == seat and "positions" in entry
    ]


def assert_growing(positions: list[int]) -> None:
    assert len(positions) >= 2, positions
    assert positions == sorted(positions), positions
    assert positions[-1] > positions[0] and positions[-1] >= 50_000, positions


def test_a_solver_seat_shows_every_client_the_positions_it_searched_before_its_move(
    process_client: TestClient,
) -> None:
    created = create(process_client, [SOLVER, HUMAN], BEFORE)
    path = f"/ws/{created['id']}"
    with process_client.websocket_connect(path) as player, process_client.websocket_connect(path) as spectator:
        _, state = join(player, token_of(created, 1))
        join(spectator)
        player.send_json({"type": "move", "move": LAST_EAT, "version": state["version"]})
        seen: list[Frame] = []
        answered = state_at(player, state["version"] + 2, seen)  # the human's eat, then the solver's
        watched: list[Frame] = []
        state_at(spectator, answered["version"], watched)
    assert answered["last_move"] is not None
    assert_growing(counts(seen, 0))
    assert counts(watched, 0), watched  # a spectator is shown the search too
    before_move = seen.index(next(f for f in seen if f["type"] == "state" and f["version"] == answered["version"]))
    last_thinking = [f for f in seen[:before_move] if f["type"] == "thinking"][-1]
    assert last_thinking["thinking"] == []  # the line goes away with the move, nothing stale
    assert answered["thinking"] == []
    assert pool_of(process_client).listeners == {}


def test_a_hint_shows_the_asking_seat_the_positions_its_search_reached(thread_client: TestClient) -> None:
    created = create(thread_client, [HUMAN, {"kind": "agent", "agent": "greedy"}], SEARCHED, hints=True)
    with thread_client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))
        ws.send_json({"type": "hint"})
        seen: list[Frame] = []
        hint = receive(ws, lambda f: f["type"] in ("hint", "error"), seen)
    assert hint["type"] == "hint", hint
    position = spheria.load_game("special-cake", variant="mint").state_from_spn(SEARCHED)
    position.apply_notation(hint["move"])  # the hint is worked out from the game's set-up position
    assert isinstance(position, CakeState)
    assert solve(position).value == -1  # and wins: it leaves Liquorice lost
    kinds = [f["type"] for f in seen]
    assert kinds.index("hint_thinking") < kinds.index("hint_progress")
    assert_growing([f["positions"] for f in seen if f["type"] == "hint_progress"])
    assert pool_of(thread_client).listeners == {}


def test_a_worker_killed_mid_search_leaves_no_stale_line_and_its_pipe_is_closed(process_client: TestClient) -> None:
    created = create(process_client, [SOLVER, HUMAN], BEFORE)
    pool = pool_of(process_client)
    with process_client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 1))
        first = pool.executor
        assert isinstance(first, AgentProcessPool)
        ws.send_json({"type": "move", "move": LAST_EAT, "version": state["version"]})
        seen: list[Frame] = []
        receive(ws, lambda f: bool(counts([f], 0)), seen)  # the solver is searching
        for pid in list(first._processes):
            os.kill(pid, signal.SIGKILL)
        answered = state_at(ws, state["version"] + 2, seen)  # run again on a new pool, and answered
    assert pool.executor is not first and pool.rebuilds == 1
    assert first.progress.reader.closed and first.progress.writer.closed  # the old pool's pipe is gone
    assert answered["thinking"] == [] and pool.listeners == {}
    assert [f for f in seen if f["type"] == "thinking"][-1]["thinking"] == []


def test_a_game_aborted_mid_search_clears_the_line_and_drops_the_searchs_reports(process_client: TestClient) -> None:
    created = create(process_client, [SOLVER, HUMAN], BEFORE)
    manager = process_client.app.state.manager  # type: ignore[attr-defined]
    with process_client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 1))
        ws.send_json({"type": "move", "move": LAST_EAT, "version": state["version"]})
        seen: list[Frame] = []
        receive(ws, lambda f: bool(counts([f], 0)), seen)  # the solver is searching
        manager.limits = replace(manager.limits, idle_game_seconds=1e-9)

        async def abort() -> Any:
            await asyncio.sleep(0.01)
            return await manager.expire_idle()

        assert process_client.portal.call(abort) == [created["id"]]  # type: ignore[union-attr]
        aborted = receive(ws, lambda f: f["type"] == "thinking" and f["thinking"] == [], seen)
    assert aborted["thinking"] == []
    assert pool_of(process_client).listeners == {}
    assert manager.sessions.get(created["id"]) is None


class CountingAgent(Agent):
    """Reports 1,000, 2,000 and 3,000 positions (once the test lets it start), then plays its first move."""

    gate = threading.Event()

    def __init__(self) -> None:
        self.name = "counting"

    def choose(self, view: PlayerView, player: int) -> Any:
        assert CountingAgent.gate.wait(30)
        for positions in (1000, 2000, 3000):
            if self.progress is not None:
                self.progress(positions)
            time.sleep(PROGRESS_EVERY + 0.05)
        return view.legal_moves(player)[0]


@pytest.fixture
def counting_agent() -> Iterator[None]:
    CountingAgent.gate.clear()
    registry.register_agent("test-counting", CountingAgent)
    yield
    CountingAgent.gate.set()
    registry._AGENTS.pop("test-counting", None)


@pytest.mark.parametrize(("game", "shown"), [("spline", [1000, 2000, 3000]), ("spagyric", [])])
@pytest.mark.usefixtures("counting_agent")
def test_only_a_perfect_information_game_shows_the_positions_searched(
    thread_client: TestClient, game: str, shown: list[int]
) -> None:
    """In Spagyric a search's size could tell what it saw: the page is shown its time only."""
    body = {"game": game, "seats": [HUMAN, {"kind": "agent", "agent": "test-counting"}], "seed": 3}
    response = thread_client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    with thread_client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        if game == "spline":
            ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        CountingAgent.gate.set()
        seen: list[Frame] = []

        def stopped(frame: Frame) -> bool:
            started = any(f["type"] in ("thinking", "state") and f["thinking"] for f in [state, *seen])
            return started and frame["type"] == "thinking" and frame["thinking"] == []

        receive(ws, stopped, seen)  # it thought (the page was told), then stopped
    assert counts(seen, 1) == shown
