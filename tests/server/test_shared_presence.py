"""Presence shared by the server processes on one real Redis (docs/server.md, Agent workers and
Redis): :class:`SharedPresence` directly, two apps in this process, and an app in a process of its
own killed with ``-9``, whose people vanish from the others within seconds."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis
from starlette.applications import Starlette
from starlette.testclient import TestClient
from websockets.sync.client import connect as ws_connect

from spheria.server.agent_queue import connect
from spheria.server.app import create_app
from spheria.server.presence import PROCESS_PREFIX, PROCESSES, SharedPresence
from tests.server.cluster_helpers import start_process
from tests.server.people import FAST, accounts_of, browser, guest
from tests.server.test_challenges import next_frame
from tests.server.test_lobby_push import names, presence_frame
from tests.server.test_server import TEST_LIMITS
from tests.services import redis_server

SRC = Path(__file__).resolve().parents[2] / "src"
HOSTILE = "x:*\r\nFLUSHALL\r\n{}"
KIM = {"name": "Kim", "guest": False}


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis of this test's own (no other test's processes in its presence)."""
    with redis_server() as url:
        yield url


def keys(url: str) -> list[str]:
    with Redis.from_url(url, decode_responses=True) as client:
        return sorted(str(key) for key in client.keys("*"))


async def until(check: Callable[[], bool], seconds: float = 5.0) -> float:
    """Wait until ``check()``; the seconds it took (fails after ``seconds``)."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < seconds, "never came true"
        await asyncio.sleep(0.02)
    return time.monotonic() - started


def shared(run: Callable[..., Awaitable[None]], url: str, **how: Any) -> None:
    """Run ``run(a, b)``: two started :class:`SharedPresence` on ``url`` (as two processes), stopped after."""

    async def main() -> None:
        a, b = SharedPresence(connect(url), **how), SharedPresence(connect(url), **how)
        await a.start()
        await b.start()
        try:
            await run(a, b)
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(main())


def test_people_of_one_process_are_online_on_the_other_and_counted_once(redis_url: str) -> None:
    async def run(a: SharedPresence, b: SharedPresence) -> None:
        a.enter("p1", KIM, lobby=True)
        a.enter("socket:1", None, lobby=True)  # a socket with no session, on a
        b.enter("socket:1", None)  # another on b: the same key in another process is another socket
        b.enter("p1", KIM)  # Kim on both: one person
        b.enter("p2", {"name": "joon", "guest": True})
        await until(lambda: b.online() == 4 and a.online() == 4)
        for presence in (a, b):
            assert presence.names() == [{"name": "joon", "guest": True}, KIM]
            assert presence.in_lobby() == 2 and presence.is_online("p1") and presence.is_online("p2")
            assert not presence.is_online("p3")
        a.leave("p1", lobby=True)
        await until(lambda: a.in_lobby() == 1 and b.in_lobby() == 1)
        assert b.is_online("p1") and a.is_online("p1")  # still on b

    shared(run, redis_url)


def test_a_change_reaches_the_other_processes_listeners_through_pub_sub(redis_url: str) -> None:
    async def run(a: SharedPresence, b: SharedPresence) -> None:
        await asyncio.sleep(0.5)  # both subscribed, both read once
        told: list[int] = []
        b.listeners.append(lambda: told.append(b.online()))
        a.enter("p1", KIM)
        took = await until(lambda: 1 in told, seconds=3.0)
        assert took < 3.0  # far below the refresh of 30 s: pushed, not polled

    shared(run, redis_url, refresh=30.0)


def test_a_dead_processs_people_vanish_when_its_entry_expires(redis_url: str) -> None:
    async def run(a: SharedPresence, b: SharedPresence) -> None:
        a.enter("p1", KIM)
        await until(lambda: b.is_online("p1"))
        told: list[int] = []
        b.listeners.append(lambda: told.append(b.online()))
        for task in a.tasks:  # a dies: it neither refreshes nor cleans up
            task.cancel()
        took = await until(lambda: not b.is_online("p1"), seconds=6.0)
        assert 0.5 < took < 3.0, took  # its entry lived out its 1.5 s, then the next read dropped it
        assert b.online() == 0 and b.names() == [] and told[-1] == 0

    shared(run, redis_url, ttl=1.5, refresh=0.3)


def test_hostile_keys_and_names_travel_inside_the_json_never_as_keys(redis_url: str) -> None:
    async def run(a: SharedPresence, b: SharedPresence) -> None:
        a.enter(HOSTILE, {"name": HOSTILE, "guest": True}, lobby=True)
        await until(lambda: b.is_online(HOSTILE))
        assert b.names() == [{"name": HOSTILE, "guest": True}]
        assert keys(redis_url) == sorted([PROCESSES, PROCESS_PREFIX + a.process, PROCESS_PREFIX + b.process])
        assert all(len(process) == 32 for process in (a.process, b.process))

    shared(run, redis_url)


def test_a_garbled_entry_of_another_process_counts_nobody(redis_url: str) -> None:
    async def run(a: SharedPresence, b: SharedPresence) -> None:
        with Redis.from_url(redis_url, decode_responses=True) as client:
            client.set(PROCESS_PREFIX + "f" * 32, json.dumps({"people": 5}), ex=30)
            client.zadd(PROCESSES, {"f" * 32: time.time() + 30})
        a.enter("p1", KIM)
        await until(lambda: b.is_online("p1"))
        assert b.online() == 1

    shared(run, redis_url)


def test_with_redis_down_presence_answers_what_this_process_knows_and_logs_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        with redis_server() as url:
            a, b = SharedPresence(connect(url), refresh=0.2), SharedPresence(connect(url), refresh=0.2)
            await a.start()
            await b.start()
            b.enter("p2", KIM)
            await until(lambda: a.is_online("p2"))
        # Redis has stopped.
        with caplog.at_level(logging.INFO, logger="spheria.server"):
            a.enter("p1", {"name": "Mina", "guest": True}, lobby=True)
            await until(lambda: not a.is_online("p2"))  # what it cannot read it no longer claims
            await asyncio.sleep(1.0)  # several refreshes fail
            assert a.online() == 1 and a.names() == [{"name": "Mina", "guest": True}] and a.in_lobby() == 1
            a.leave("p1", lobby=True)
            await asyncio.sleep(0.3)
            assert a.online() == 0
        down = [record for record in caplog.records if "Redis cannot be reached" in record.getMessage()]
        assert len(down) == 2, [record.getMessage() for record in caplog.records]  # once by each process
        await a.stop()
        await b.stop()

    asyncio.run(main())


# -- apps ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def redis_apps(tmp_path: Path, url: str) -> Iterator[Callable[[str], Starlette]]:
    """``make(name)``: an app on Redis ``url`` (a process of the service), all on one store, as the
    processes of a service are (``name`` only tells them apart)."""
    opened: list[TestClient] = []

    def make(name: str) -> Starlette:
        app = create_app(str(tmp_path / "service.sqlite3"), agent_delay=0, limits=TEST_LIMITS, redis=url)
        accounts_of(app).use_hasher(FAST)
        keeper = TestClient(app)
        keeper.__enter__()
        app.state.test_keeper = keeper
        opened.append(keeper)
        return app

    try:
        yield make
    finally:
        for keeper in opened:
            keeper.__exit__(None, None, None)


def test_a_person_in_the_lobby_of_app_a_is_pushed_to_the_lobby_of_app_b(tmp_path: Path, redis_url: str) -> None:
    with redis_apps(tmp_path, redis_url) as make:
        first, second = make("a"), make("b")
        mina = guest(first, "Mina")
        watcher = browser(second)
        with watcher.websocket_connect("/ws/lobby") as seen_on_b:
            next_frame(seen_on_b, "lobby")
            with mina.websocket_connect("/ws/lobby") as on_a:
                next_frame(on_a, "lobby")
                pushed = presence_frame(seen_on_b, lambda frame: frame["lobby"] == 2)
                assert names(pushed) == ["Mina"] and pushed["online"] == 2
                assert watcher.get("/api/presence").json()["online"] == 2
            gone = presence_frame(seen_on_b, lambda frame: frame["lobby"] == 1)
        assert names(gone) == [] and gone["online"] == 1
        assert first.state.presence is first.state.chat.presence  # the chat counts the same presence


def test_the_people_of_a_server_process_killed_with_9_vanish_from_the_others(tmp_path: Path, redis_url: str) -> None:
    process = start_process(str(tmp_path / "service.sqlite3"), redis_url, tmp_path)  # one store, as a service has
    try:
        base = f"127.0.0.1:{process.port}"
        with redis_apps(tmp_path, redis_url) as make:
            second = make("b")
            watcher = browser(second)
            with ws_connect(f"ws://{base}/ws/lobby") as on_a, watcher.websocket_connect("/ws/lobby") as seen_on_b:
                assert json.loads(on_a.recv(timeout=10))["type"] == "lobby"
                both = {"lobby": 2, "online": 2}
                hello = next_frame(seen_on_b, "lobby")["presence"]  # A's socket may be read before B's opens
                if {key: hello[key] for key in both} != both:
                    presence_frame(seen_on_b, lambda frame: {key: frame[key] for key in both} == both)
                process.kill()  # A dies with its lobby socket open: nobody takes it out of Redis
                killed = time.monotonic()
                for _ in range(5):  # presence_frame waits 5 s a time
                    with contextlib.suppress(AssertionError):
                        gone = presence_frame(seen_on_b, lambda frame: frame["lobby"] == 1)
                        break
                else:
                    raise AssertionError("A's people never vanished")
                took = time.monotonic() - killed
        assert gone["online"] == 1
        assert took < 10, took  # its entry's 5 s, then one more read
    finally:
        process.stop()
