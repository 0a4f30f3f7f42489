# ruff: noqa: F811  (the fixtures redis_url and workers come from tests.server.test_agent_queue)
"""The analysis board's jobs off the web processes (docs/server.md, Agent workers and Redis): queued in a
real Redis by :class:`RedisAnalysisQueue`, run by ``spheria agents --redis URL`` workers started as real
subprocesses, cancelled, killed, or cut off from Redis in the middle of a job."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import time
from pathlib import Path
from typing import Any, TypeVar

import pytest
from redis import Redis
from starlette.testclient import TestClient, WebSocketTestSession

import spheria
from spheria.analysis import analyse_game
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import solve
from spheria.server import agent_queue
from spheria.server.analysis import AnalysisLimits
from spheria.server.analysis_pool import GameJob, Job, JobFailed, PositionJob
from spheria.server.analysis_queue import (
    CANCEL_PREFIX,
    GROUP,
    REPLY_PREFIX,
    STREAM,
    RedisAnalysisQueue,
    cancel_key,
    decode_entry,
    decode_job,
    encode_job,
    reply_key,
)
from spheria.server.app import create_app
from tests.server.test_agent_queue import (  # noqa: F401  (redis_url and workers are fixtures: a Redis per test)
    HOSTILE,
    Workers,
    assert_all_ended,
    children_of,
    in_background,
    keys,
    redis_url,
    workers,
)
from tests.server.test_analysis import ROW, answer, finished_game
from tests.server.test_server import TEST_LIMITS
from tests.services import redis_server

Frame = dict[str, Any]
T = TypeVar("T")
#: A position job that searches the whole of its time (Spline's start is not solved in seconds).
LONG = PositionJob("spline", {}, None, (), None, 4.0)


def app_client(url: str, tmp_path: Path, **limits: Any) -> TestClient:
    settings = AnalysisLimits(**{"workers": 1, **limits})
    app = create_app(
        str(tmp_path / "games.sqlite3"), agent_delay=0, limits=TEST_LIMITS, analysis_limits=settings, redis=url
    )
    return TestClient(app)


def ask(url: str, job: Job, budget: float, grace: float, reports: list[Frame] | None = None) -> Frame:
    """A job's answer through a queue of this call's own (its failure raised)."""

    async def run() -> Frame:
        queue = RedisAnalysisQueue(agent_queue.connect(url), grace)
        try:
            return await queue.run(job, (reports if reports is not None else []).append, budget, "127.0.0.1")
        finally:
            await queue.redis.aclose()

    return asyncio.run(run())


def pending(url: str) -> int:
    with Redis.from_url(url, decode_responses=True) as client:
        return int(client.xpending(STREAM, GROUP)["pending"])


def lists(url: str) -> list[str]:
    return [key for key in keys(url) if key.startswith((REPLY_PREFIX, CANCEL_PREFIX))]


def first_progress(ws: WebSocketTestSession, job_id: int) -> Frame:
    while True:
        frame: Frame = ws.receive_json()
        assert frame["type"] != "error", frame
        if frame["type"] == "progress" and frame.get("id") == job_id:
            return frame


# -- the wire -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "job",
    [
        PositionJob("special-cake", {"variant": "mint"}, ROW, ("0b1 0a1",), None, 2.5),
        PositionJob("spagyric", {"supply": 2}, None, ("w:b",), 1, 15.0),
        GameJob("spline", {}, None, 7, ("0a1", "0b1"), 0.5),
    ],
)
def test_a_job_goes_over_the_wire_as_json_and_comes_back_the_same(job: Job) -> None:
    assert decode_job(encode_job(job)) == job


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[]", "JSON object"),
        ('{"kind": "everything"}', "kind"),
        ('{"kind": "position", "game": "spline"}', "exactly the fields"),
        (encode_job(LONG).replace('"seat":null', '"seat":true'), "seat"),
        (encode_job(LONG).replace('"moves":[]', '"moves":[1]'), "moves"),
        (encode_job(LONG).replace('"time":4.0', '"time":-1'), "time"),
        (encode_job(LONG).replace('"time":4.0', '"time":1e999'), "time"),
        (encode_job(LONG)[:-1] + ',"extra":1}', "exactly the fields"),
    ],
)
def test_a_garbled_job_is_refused_naming_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        decode_job(text)


def test_a_pickle_never_passes_for_a_job() -> None:
    import pickle

    with pytest.raises(ValueError):
        decode_job(pickle.dumps(LONG).decode("latin-1"))


@pytest.mark.parametrize("job_id", [HOSTILE, "*", "0" * 31, "0" * 33, "A" * 32, "../" + "0" * 29])
def test_only_a_server_made_id_becomes_a_key(job_id: str) -> None:
    for key in (reply_key, cancel_key):
        with pytest.raises(ValueError, match="not a job id"):
            key(job_id)
    with pytest.raises(ValueError, match="not a job id"):
        decode_entry({"id": job_id, "job": encode_job(LONG), "deadline": "1e12"})
    assert cancel_key("0123456789abcdef" * 2) == CANCEL_PREFIX + "0123456789abcdef" * 2


# -- workers ----------------------------------------------------------------------------------------------


def test_the_board_gets_the_same_answers_and_progress_from_a_worker_and_no_local_pool(
    redis_url: str, workers: Workers, tmp_path: Path
) -> None:
    worker = workers.start()
    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=7)
    assert isinstance(state, CakeState)
    for _ in range(4):
        state.apply(state.legal_moves()[0])
    expected = solve(state)
    with app_client(redis_url, tmp_path) as client:
        assert isinstance(client.app.state.analysis.pool, RedisAnalysisQueue)  # type: ignore[attr-defined]
        with client.websocket_connect("/ws/analysis") as ws:
            # the solver's verdict and every winning move, as from the local pool
            job = {"type": "analyse", "id": 1, "game": "special-cake", "options": "variant=sugar"}
            ws.send_json({**job, "spn": state.to_spn()})
            result = answer(ws, 1)
            analysis = result["analysis"]
            assert result["type"] == "analysis" and not result["cached"]
            assert analysis["status"] == "exact" and analysis["verdict"] == expected.value
            assert analysis["best_moves"] == [state.notation(m) for m in expected.best_moves]
            assert len(analysis["moves"]) == len(state.legal_moves())
            ws.send_json({**job, "id": 2, "spn": state.to_spn()})
            assert answer(ws, 2)["cached"]  # the web process's cache still answers at once
            # MCTS reports its iterations as it runs, across Redis
            seen: list[Frame] = []
            ws.send_json({"type": "analyse", "id": 5, "game": "spinca", "time": 1.5})
            final = answer(ws, 5, seen)["analysis"]
            partial = [f for f in seen if f.get("partial")]
            counts = [f["iterations"] for f in partial]
            assert len(counts) >= 2 and counts == sorted(counts) and counts[0] >= 1, seen
            assert final["status"] == "estimate" and final["iterations"] >= counts[-1] and len(final["moves"]) == 16
            # a whole game's analysis, each position's progress on its way (the game's agents
            # played their moves through the same worker)
            created = finished_game(client)
            opened = client.get(f"/api/analysis/record/{created['id']}").json()
            played = spheria.load_game("special-cake", variant="sugar").state_from_spn(opened["spn"])
            for move in opened["moves"]:
                played.apply_notation(move)
            ws.send_json({"type": "analyse_game", "id": 9, "record": created["id"]})
            steps: list[Frame] = []
            report = answer(ws, 9, steps)["report"]
        assert client.app.state.analysis.pool.busy == 0  # type: ignore[attr-defined]
    assert [f["number"] for f in steps] == list(range(1, len(opened["moves"]) + 1))
    assert report["threw_away_win"] == analyse_game(played, time=None).threw_away_win
    assert [m["move"] for m in report["moves"]] == opened["moves"]
    log = workers.log(worker)
    assert len(re.findall(r"analysis job \S+ answered in", log)) == 3, log  # two positions and a game
    assert pending(redis_url) == 0 and not lists(redis_url)


def test_a_cancel_or_a_closed_board_stops_the_workers_job_and_the_next_starts_at_once(
    redis_url: str, workers: Workers, tmp_path: Path
) -> None:
    worker = workers.start()
    with app_client(redis_url, tmp_path) as client:
        with client.websocket_connect("/ws/analysis") as ws:
            ws.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 20})
            first_progress(ws, 1)
            ws.send_json({"type": "cancel", "id": 1})
            started = time.monotonic()
            ws.send_json({"type": "analyse", "id": 2, "game": "special-cake", "options": "variant=mint", "spn": ROW})
            result = answer(ws, 2)
            assert result["type"] == "analysis" and result["analysis"]["verdict"] == 1
            assert time.monotonic() - started < 8  # not behind the 20 s search it replaced
            workers.wait_log(worker, "cancelled by the board")
            ws.send_json({"type": "analyse", "id": 3, "game": "spline", "time": 20})
            first_progress(ws, 3)
        workers.wait_log(worker, "cancelled by the board", 10)
        deadline = time.monotonic() + 10
        while workers.log(worker).count("cancelled by the board") < 2:  # the closed board's job too
            assert time.monotonic() < deadline, workers.log(worker)
            time.sleep(0.1)
        assert client.app.state.analysis.pool.busy == 0  # type: ignore[attr-defined]
    assert pending(redis_url) == 0


def test_with_no_worker_the_board_gets_its_timeout_and_a_late_worker_never_starts_the_job(
    redis_url: str, workers: Workers, tmp_path: Path
) -> None:
    client = app_client(redis_url, tmp_path, max_time=1.0, grace=1.0)
    with client, client.websocket_connect("/ws/analysis") as ws:
        started = time.monotonic()
        ws.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 1.0})
        failed = answer(ws, 1)
        waited = time.monotonic() - started
        assert client.app.state.analysis.pool.busy == 0  # type: ignore[attr-defined]
    assert failed["type"] == "error" and failed["code"] == "timeout", failed
    assert "no analysis worker answered within 2 s" in failed["message"]
    assert 2.0 <= waited < 2.0 + 2.0 + 3, waited  # the budget and grace, then the margin for a worker's own answer
    late = workers.start()
    log = workers.wait_log(late, "dropped: its deadline passed")
    assert "s left" not in log
    assert pending(redis_url) == 0


def test_a_worker_killed_mid_job_is_taken_over_by_another_within_the_deadline(redis_url: str, workers: Workers) -> None:
    first = workers.start()
    reports: list[Frame] = []
    result = in_background(lambda: ask(redis_url, LONG, budget=4.0, grace=12.0, reports=reports))
    workers.wait_log(first, "s left")
    while not reports:  # its analysis process is searching
        time.sleep(0.05)
    processes = children_of(first.pid)
    first.send_signal(signal.SIGKILL)
    first.wait(20)
    second = workers.start()
    analysis: Frame = result()
    assert analysis["status"] == "estimate" and analysis["moves"]
    log = workers.wait_log(second, "answered in")
    assert "taken over from a worker that stopped answering" in log, log
    assert "answered" not in workers.log(first)
    assert_all_ended(processes)  # no orphan of the killed worker goes on searching
    assert pending(redis_url) == 0
    time.sleep(0.5)  # no second answer turns up later
    assert not [key for key in keys(redis_url) if key.startswith(REPLY_PREFIX)]


def test_a_worker_killed_mid_job_with_no_other_worker_fails_the_job_as_a_dead_worker(
    redis_url: str, workers: Workers
) -> None:
    first = workers.start()
    failure = in_background(lambda: _failure(redis_url, LONG, budget=4.0, grace=1.0))
    workers.wait_log(first, "s left")
    first.send_signal(signal.SIGKILL)
    started = time.monotonic()
    code, _message = failure()
    assert code == "worker_died"
    assert time.monotonic() - started < 4.0 + 1.0 + 2.0 + 1
    late = workers.start()  # after the deadline: dropped, never started again
    workers.wait_log(late, "dropped: its deadline passed")
    assert pending(redis_url) == 0


def _failure(url: str, job: Job, budget: float, grace: float) -> tuple[str, str]:
    with pytest.raises(JobFailed) as failed:
        ask(url, job, budget, grace)
    return failed.value.code, failed.value.message


def test_redis_stopped_mid_job_fails_the_job_clearly_and_the_board_stays_up(tmp_path: Path) -> None:
    with contextlib.ExitStack() as redis_running:
        url = redis_running.enter_context(redis_server())
        workers = Workers(url, tmp_path)
        try:
            workers.start()
            with app_client(url, tmp_path) as client, client.websocket_connect("/ws/analysis") as ws:
                ws.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 6})
                first_progress(ws, 1)
                redis_running.close()  # Redis stops
                started = time.monotonic()
                failed = answer(ws, 1)
                assert time.monotonic() - started < 5
                assert failed["type"] == "error" and failed["code"] == "queue_down", failed
                assert "cannot be reached" in failed["message"]
                ws.send_json({"type": "analyse", "id": 2, "game": "spline", "time": 1})
                again = answer(ws, 2)
                assert again["code"] == "queue_down"  # said at once, each time
                ws.send_json({"type": "ping"})
                assert ws.receive_json() == {"type": "pong"}  # the socket is still served
                assert client.get("/api/analysis/position", params={"game": "spline"}).status_code == 200
                assert client.app.state.analysis.pool.busy == 0  # type: ignore[attr-defined]
        finally:
            workers.stop_all()


def test_hostile_text_travels_only_inside_json_and_never_becomes_a_key(redis_url: str, workers: Workers) -> None:
    workers.start()
    hostile = PositionJob(HOSTILE, {HOSTILE: HOSTILE}, HOSTILE, (HOSTILE,), None, 1.0)
    code, message = _failure(redis_url, hostile, budget=1.0, grace=5.0)
    assert code == "failed" and message
    with Redis.from_url(redis_url, decode_responses=True) as client:
        # a garbled entry written by someone else is dropped, the worker goes on
        client.xadd(STREAM, {"id": HOSTILE, "job": "{", "deadline": "1e12", "owner": HOSTILE})
    answered = ask(redis_url, PositionJob("special-cake", {"variant": "mint"}, ROW, (), None, 5.0), 5.0, 5.0)
    assert answered["verdict"] == 1
    assert keys(redis_url) == sorted([STREAM, agent_queue.STREAM]), keys(redis_url)
    assert pending(redis_url) == 0
