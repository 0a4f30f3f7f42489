"""Agents off the web processes (docs/server.md, Agent workers and Redis): jobs queued in a real
Redis by :class:`RedisAgentQueue`, run by ``spheria agents --redis URL`` workers started as real
subprocesses, and killed, stopped or cut off from Redis in the middle of a job."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
from redis import Redis
from starlette.testclient import TestClient

from spheria.server.agent_queue import (
    GROUP,
    REPLY_PREFIX,
    STREAM,
    AgentFailed,
    RedisAgentQueue,
    connect,
    decode_entry,
    decode_job,
    encode_job,
    reply_key,
)
from spheria.server.agents import AgentJob, AgentTimeout, agent_budget
from spheria.server.analysis_queue import STREAM as ANALYSIS_STREAM
from spheria.server.app import create_app
from tests.server.test_progress import SEARCHED
from tests.server.test_server import HUMAN, TEST_LIMITS, create, join, state_at, token_of
from tests.services import redis_server

SRC = Path(__file__).resolve().parents[2] / "src"
#: An agent that thinks two seconds, long enough to kill or stop its worker in the middle.
SLOW = "mcts:time=2"
HOSTILE = "x:*\r\nFLUSHALL\r\n../{}"

Worker = subprocess.Popen[bytes]


T = TypeVar("T")


class Workers:
    """``spheria agents --redis URL --workers 1`` subprocesses, each logging to a file of its own."""

    def __init__(self, url: str, logs: Path) -> None:
        self.url = url
        self.logs = logs
        self.started: list[tuple[Worker, Path]] = []

    def start(self) -> Worker:
        log = self.logs / f"worker-{len(self.started)}.log"
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        command = [sys.executable, "-m", "spheria.cli.main", "agents", "--redis", self.url, "--workers", "1"]
        with open(log, "wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        self.started.append((process, log))
        self.wait_log(process, "started")
        return process

    def log(self, process: Worker) -> str:
        return next(log for started, log in self.started if started is process).read_text()

    def wait_log(self, process: Worker, text: str, seconds: float = 60.0) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            log = self.log(process)
            if text in log:
                return log
            assert process.poll() is None or text in self.log(process), self.log(process)
            time.sleep(0.05)
        raise AssertionError(f"the worker never logged {text!r}:\n{self.log(process)}")

    def stop_all(self) -> None:
        for process, _log in self.started:
            if process.poll() is None:
                process.terminate()
        for process, _log in self.started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(20)


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis of this test's own: no job or worker of another test shares its stream."""
    with redis_server() as url:
        yield url


@pytest.fixture
def workers(redis_url: str, tmp_path: Path) -> Iterator[Workers]:
    started = Workers(redis_url, tmp_path)
    yield started
    started.stop_all()


def job(spec: str = "random", game_id: str = "g1", **fields: Any) -> AgentJob:
    return AgentJob(game_id, fields.pop("name", "spline"), fields.pop("options", {}), 1, (), 0, spec, **fields)


def run(url: str, agent_job: AgentJob, budget: float, grace: float = 3.0, reports: list[Any] | None = None) -> str:
    async def ask() -> str:
        queue = RedisAgentQueue(connect(url), grace)
        try:
            return await queue.run(agent_job, budget, None if reports is None else reports.append)
        finally:
            await queue.redis.aclose()

    return asyncio.run(ask())


def in_background(call: Callable[[], T]) -> Callable[[], T]:
    """Run ``call`` in a thread; the returned function waits for its answer (or raises its error)."""
    import concurrent.futures

    executor = concurrent.futures.ThreadPoolExecutor(1)
    future = executor.submit(call)
    executor.shutdown(wait=False)
    return lambda: future.result(timeout=60)


def keys(url: str) -> list[str]:
    with Redis.from_url(url, decode_responses=True) as client:
        return sorted(str(key) for key in client.keys("*"))


def pending(url: str) -> int:
    with Redis.from_url(url, decode_responses=True) as client:
        return int(client.xpending(STREAM, GROUP)["pending"])


def faults(db: Path) -> list[tuple[int, int, str]]:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return list(connection.execute("SELECT ply, seat, code FROM faults ORDER BY ply"))


def wait_finished(client: TestClient, game_id: str, seconds: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        info: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if info["status"] == "finished":
            return info
        time.sleep(0.1)
    raise AssertionError(f"game {game_id} did not finish: {info}")


def children_of(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
            if fields.get("PPid", "").strip() == str(pid):
                found.append(int(status.parent.name))
    return found


def assert_all_ended(pids: list[int], seconds: float = 10.0) -> None:
    """Every process of ``pids`` has ended (a zombie counts as ended) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        left = [pid for pid in pids if Path(f"/proc/{pid}").exists() and "State:\tZ" not in _status(pid)]
        if not left:
            return
        assert time.monotonic() < deadline, f"these processes outlived their worker: {left}"
        time.sleep(0.2)


def _status(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/status").read_text()
    return ""


# -- the wire -----------------------------------------------------------------------------------------


def test_a_job_goes_over_the_wire_as_json_and_comes_back_the_same() -> None:
    sent = job("solver", options={"variant": "mint"}, name="special-cake", start=SEARCHED, time_limit=2.5)
    assert decode_job(encode_job(sent)) == sent


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"game_id": "g"}',
        encode_job(job()).replace('"seat":0', '"seat":"0"'),
        encode_job(job()).replace('"entries":[]', '"entries":[1]'),
        encode_job(job()).replace('"seat":0', '"seat":true'),
        encode_job(job())[:-1] + ',"extra":1}',
    ],
)
def test_a_garbled_job_is_refused_naming_the_problem(text: str) -> None:
    with pytest.raises(ValueError, match="agent job"):
        decode_job(text)


def test_a_pickle_never_passes_for_a_job() -> None:
    import pickle

    with pytest.raises(ValueError):
        decode_job(pickle.dumps(job()).decode("latin-1"))


@pytest.mark.parametrize("job_id", [HOSTILE, "*", "0" * 31, "0" * 33, "A" * 32, "../" + "0" * 29])
def test_only_a_server_made_id_becomes_a_reply_key(job_id: str) -> None:
    with pytest.raises(ValueError, match="not a job id"):
        reply_key(job_id)
    with pytest.raises(ValueError, match="not a job id"):
        decode_entry({"id": job_id, "job": encode_job(job()), "deadline": "1e12"})
    assert reply_key("0123456789abcdef" * 2) == REPLY_PREFIX + "0123456789abcdef" * 2


# -- workers ----------------------------------------------------------------------------------------------


def test_a_game_between_agents_is_played_to_the_end_by_a_worker_and_no_local_pool(
    redis_url: str, workers: Workers, tmp_path: Path
) -> None:
    worker = workers.start()
    db = tmp_path / "games.sqlite3"
    app = create_app(str(db), agent_delay=0, limits=TEST_LIMITS, redis=redis_url)
    assert isinstance(app.state.manager.agents, RedisAgentQueue)  # no pool in the web process
    with TestClient(app) as client:
        created = create(
            client, "spline", [{"kind": "agent", "agent": "random:seed=5"}, {"kind": "agent", "agent": "greedy"}]
        )
        info = wait_finished(client, created["id"])
    assert info["plies"] >= 5
    assert faults(db) == []  # every move was the agents' own, answered by the worker
    log = workers.log(worker)
    assert log.count("answered in") == info["plies"], log
    assert pending(redis_url) == 0 and not [key for key in keys(redis_url) if key.startswith(REPLY_PREFIX)]


def test_a_human_plays_an_agent_seat_over_the_queue_and_a_hint_comes_from_the_worker(
    redis_url: str, workers: Workers, tmp_path: Path
) -> None:
    worker = workers.start()
    app = create_app(str(tmp_path / "games.sqlite3"), agent_delay=0, limits=TEST_LIMITS, redis=redis_url)
    with TestClient(app) as client:
        response = client.post(
            "/api/games",
            json={"game": "spline", "seats": [HUMAN, {"kind": "agent", "agent": "greedy"}], "seed": 3, "hints": True},
        )
        created = response.json()
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            _, state = join(ws, token_of(created, 0))
            ws.send_json({"type": "hint"})
            while (frame := ws.receive_json())["type"] != "hint":
                assert frame["type"] != "error", frame
            assert frame["move"] in state["legal_moves"]
            ws.send_json({"type": "move", "move": frame["move"], "version": state["version"]})
            answered = state_at(ws, state["version"] + 2)
    assert answered["fallbacks"] == []
    assert workers.log(worker).count("answered in") == 2  # the hint, then the agent's move


def test_progress_reports_of_a_worker_reach_the_asker_and_only_an_asker_who_wants_them(
    redis_url: str, workers: Workers
) -> None:
    solver = job("solver", name="special-cake", options={"variant": "mint"}, start=SEARCHED)
    # A game with hidden information asks for none: none crosses Redis (the asker would drop them).
    first = workers.start()  # a fresh worker: its solver searches the whole position
    with Redis.from_url(redis_url, decode_responses=True) as client, client.monitor() as watched:
        move = run(redis_url, solver, budget=30.0)
        commands: list[str] = []
        for command in watched.listen():
            commands.append(command["command"])
            if command["command"].startswith("XDEL"):
                break
    pushed = [command for command in commands if command.startswith("RPUSH")]
    assert len(pushed) == 1 and '"move"' in pushed[0], pushed
    first.terminate()
    assert first.wait(30) == 0
    workers.start()  # fresh again
    reports: list[Any] = []
    assert run(redis_url, replace(solver, game_id="g2"), budget=30.0, reports=reports) == move
    positions = [report["positions"] for report in reports]
    assert len(positions) >= 2 and positions == sorted(positions) and positions[-1] > positions[0], reports


def test_with_no_worker_the_deadline_passes_and_the_session_falls_back(redis_url: str, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    limits = replace(TEST_LIMITS, agent_max_time=1.0, agent_grace=1.0)
    app = create_app(str(db), agent_delay=0, limits=limits, redis=redis_url)
    with TestClient(app) as client:
        created = create(client, "spline", [HUMAN, {"kind": "agent", "agent": "random:seed=5"}])
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            _, state = join(ws, token_of(created, 0))
            started = time.monotonic()
            ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
            answered = state_at(ws, state["version"] + 2)
            waited = time.monotonic() - started
    assert answered["fallbacks"] == [{"seat": 1, "ply": 1, "code": "agent_timeout"}]
    deadline = agent_budget("random:seed=5", 1.0) + 1.0  # the budget and the grace
    assert deadline - 0.1 < waited < deadline + 5, waited
    assert faults(db) == [(1, 1, "agent_timeout")]


def test_a_job_past_its_deadline_is_dropped_not_started(redis_url: str, workers: Workers) -> None:
    with pytest.raises(AgentTimeout):
        run(redis_url, job(SLOW), budget=0.2, grace=0.1)  # queued with nobody to take it
    worker = workers.start()
    log = workers.wait_log(worker, "dropped: its deadline passed")
    assert "answered" not in log
    assert run(redis_url, job(), budget=5.0)  # the worker goes on with the next job
    assert pending(redis_url) == 0


def test_a_failing_agent_is_reported_as_a_failure_not_a_move(redis_url: str, workers: Workers) -> None:
    workers.start()
    with pytest.raises(AgentFailed, match="ValueError"):
        run(redis_url, job("nosuchagent"), budget=5.0)


def test_a_worker_killed_mid_job_is_taken_over_by_another_within_the_deadline_answered_once(
    redis_url: str, workers: Workers
) -> None:
    first = workers.start()
    answer = in_background(lambda: run(redis_url, job(SLOW), budget=2.0, grace=10.0))
    workers.wait_log(first, "s left")
    pool = children_of(first.pid)
    assert pool  # its agent processes
    first.send_signal(signal.SIGKILL)
    first.wait(20)
    second = workers.start()
    move = answer()
    assert move
    log = workers.wait_log(second, "answered in")
    assert "taken over from a worker that stopped answering" in log, log
    assert "answered" not in workers.log(first)
    assert_all_ended(pool)  # no orphan of the killed worker goes on thinking
    assert pending(redis_url) == 0
    time.sleep(0.5)  # no second answer turns up later
    assert not [key for key in keys(redis_url) if key.startswith(REPLY_PREFIX)]


def test_a_worker_killed_mid_job_with_no_other_worker_ends_in_the_deadline(redis_url: str, workers: Workers) -> None:
    first = workers.start()
    answer = in_background(lambda: run(redis_url, job(SLOW), budget=2.0, grace=1.0))
    workers.wait_log(first, "s left")
    first.send_signal(signal.SIGKILL)
    started = time.monotonic()
    with pytest.raises(AgentTimeout):
        answer()
    assert time.monotonic() - started < 5
    late = workers.start()  # a worker that comes after the deadline drops the job
    workers.wait_log(late, "dropped: its deadline passed")
    assert pending(redis_url) == 0


def test_sigterm_finishes_the_running_job_then_the_worker_exits(redis_url: str, workers: Workers) -> None:
    worker = workers.start()
    answer = in_background(lambda: run(redis_url, job(SLOW), budget=2.0, grace=10.0))
    workers.wait_log(worker, "s left")
    worker.send_signal(signal.SIGTERM)
    assert answer()
    assert worker.wait(30) == 0
    log = workers.log(worker)
    assert "stopping: finishing the 1 jobs running" in log and "stopped after 1 answers" in log, log
    assert pending(redis_url) == 0


def test_redis_down_mid_game_plays_the_fallback_at_once_and_notes_a_fault(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with contextlib.ExitStack() as redis_running:
        url = redis_running.enter_context(redis_server())
        app = create_app(str(db), agent_delay=0, limits=TEST_LIMITS, redis=url)
        with TestClient(app) as client:
            created = create(client, "spline", [HUMAN, {"kind": "agent", "agent": "random:seed=5"}])
            with client.websocket_connect(f"/ws/{created['id']}") as ws:
                _, state = join(ws, token_of(created, 0))
                redis_running.close()  # Redis stops
                started = time.monotonic()
                ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
                answered = state_at(ws, state["version"] + 2)
                waited = time.monotonic() - started
            assert client.get("/api/presence").status_code == 200  # presence answers what this process knows
    assert answered["fallbacks"] == [{"seat": 1, "ply": 1, "code": "agent_failed"}]
    assert waited < 3, waited  # far below the agent's budget and grace
    assert faults(db) == [(1, 1, "agent_failed")]


def test_a_worker_waits_out_a_redis_outage_and_serves_again(tmp_path: Path) -> None:
    with redis_server() as url:
        workers = Workers(url, tmp_path)
        try:
            worker = workers.start()
            with Redis.from_url(url) as client:
                client.client_kill_filter(_type="normal", skipme=True)  # every connection of the worker cut
            assert run(url, job(), budget=10.0)
            assert worker.poll() is None
        finally:
            workers.stop_all()


def test_hostile_game_ids_and_specs_never_become_keys(redis_url: str, workers: Workers) -> None:
    workers.start()
    hostile = job("random:seed=1", game_id=HOSTILE)
    assert run(redis_url, hostile, budget=5.0)
    with pytest.raises(AgentFailed):
        run(redis_url, job(HOSTILE, game_id=HOSTILE), budget=5.0)
    with Redis.from_url(redis_url, decode_responses=True) as client:
        # a garbled entry written by someone else is dropped, the worker goes on
        client.xadd(STREAM, {"id": HOSTILE, "job": "{", "deadline": "1e12"})
    assert run(redis_url, job(), budget=5.0)
    assert keys(redis_url) == sorted([STREAM, ANALYSIS_STREAM]), keys(redis_url)  # the worker serves both streams
    assert pending(redis_url) == 0


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--redis", "http://127.0.0.1:6379", "--workers", "1"], "--redis must be a redis:// or rediss:// URL"),
        (["--redis", "redis://127.0.0.1:6379/0", "--workers", "0"], "--workers must be 1 or more, not 0"),
    ],
)
def test_the_agents_command_refuses_bad_options_naming_them(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from spheria.cli.main import main

    assert main(["--lang", "en", "agents", *argv]) != 0
    assert problem in capsys.readouterr().err
