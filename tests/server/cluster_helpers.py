"""Real server processes joined by a real Redis, for the multi-process tests (test_cluster*.py).

:func:`start_process` runs ``python -m spheria.server --redis URL`` on a loopback port and waits until
it answers; every process of a test shares one store (the ``store`` fixture: a fresh PostgreSQL
database on the test run's server, ``postgres_url``). :func:`start_worker` runs ``spheria agents``,
where the agents of processes started with ``--redis`` think. :class:`Socket` is a websocket client with the helpers of
tests/server/test_server.py, over a real connection.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from spheria.server.storage import StoredGame, open_storage
from tests.services import free_port, fresh_database, wait_for_port

Frame = dict[str, Any]
#: Frames that depend on timing (who is connected, agents thinking), not on the game: left out when
#: two servers' frames are compared.
TIMING_FRAMES = {"presence", "thinking", "pong"}


@pytest.fixture
def store(postgres_url: str) -> Iterator[str]:
    """The PostgreSQL database every process of a test shares (a fresh one). A fixture: the test
    modules import it."""
    yield from fresh_database(postgres_url)


def stored(store: str, game_id: str) -> StoredGame:
    """The game as the shared store holds it now (read as any process would)."""
    storage = open_storage(store)
    try:
        found = storage.load_game(game_id)
    finally:
        storage.close()
    assert found is not None
    return found


class Process:
    """One ``spheria serve`` subprocess."""

    def __init__(self, port: int, popen: subprocess.Popen[bytes], log: Path) -> None:
        self.port = port
        self.popen = popen
        self.log = log

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, path: str) -> Socket:
        return Socket(f"ws://127.0.0.1:{self.port}{path}")

    def kill(self) -> None:
        """``kill -9``: no goodbye, no lease released."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=20)

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


def start_process(store: str, redis: str | None, log_dir: Path, *extra: str) -> Process:
    """``python -m spheria.server`` on a free loopback port with ``--db store`` (and ``--redis``)."""
    port = free_port()
    command = [sys.executable, "-m", "spheria.server", "--port", str(port), "--db", store]
    command += ["--agent-pool", "thread", "--agent-workers", "2", "--agent-delay", "0.05", *extra]
    if redis is not None:
        command += ["--redis", redis]
    log = log_dir / f"server-{port}.log"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    with open(log, "wb") as out:
        popen = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    process = Process(port, popen, log)
    try:
        wait_for_port(port, popen, 60)
    except RuntimeError:
        raise RuntimeError(log.read_text()) from None
    return process


def start_worker(redis: str, log_dir: Path) -> subprocess.Popen[bytes]:
    """``spheria agents --redis URL --workers 1``: the agents of every process on that Redis think here."""
    command = [sys.executable, "-m", "spheria.cli.main", "agents", "--redis", redis, "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    with open(log_dir / "agents.log", "wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)


def request(url: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """An HTTP request: the status and the JSON answer (or the text)."""
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    call = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(call, timeout=20) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except json.JSONDecodeError:
        return status, text


def create_game(process: Process, game: str, seats: list[Frame], seed: int = 11, **options: Any) -> Frame:
    status, created = request(
        f"{process.url}/api/games", "POST", {"game": game, "options": options, "seats": seats, "seed": seed}
    )
    assert status == 201, created
    result: Frame = created
    return result


def token_of(created: Frame, seat: int) -> str:
    return str(created["seats"][seat]["invite"].split("#", 1)[1])


class Person:
    """A browser with cookies of its own (shared by every process, as behind one proxy)."""

    def __init__(self, process: Process) -> None:
        self.http = httpx.Client(timeout=20)
        assert self.http.get(f"{process.url}/api/session").status_code == 200  # the CSRF cookie

    def send(self, process: Process, method: str, path: str, body: Any = None) -> httpx.Response:
        token = self.http.cookies.get("spheria_csrf") or ""
        return self.http.request(method, f"{process.url}{path}", json=body or {}, headers={"X-CSRF-Token": token})

    def ws(self, process: Process, path: str) -> Socket:
        cookies = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        return Socket(f"ws://127.0.0.1:{process.port}{path}", {"Cookie": cookies})


class Socket:
    """A websocket client over a real connection; every frame read is kept in ``seen``."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.stack = contextlib.ExitStack()
        opened = connect(url, open_timeout=20, close_timeout=2, additional_headers=headers)
        self.connection: ClientConnection = self.stack.enter_context(opened)
        self.seen: list[Frame] = []

    def send(self, frame: Frame) -> None:
        self.connection.send(json.dumps(frame))

    def send_text(self, text: str) -> None:
        self.connection.send(text)

    def next(self, seconds: float = 20.0) -> Frame:
        frame: Frame = json.loads(self.connection.recv(timeout=seconds))
        self.seen.append(frame)
        return frame

    def until(self, wanted: Callable[[Frame], bool], seconds: float = 20.0) -> Frame:
        deadline = time.monotonic() + seconds
        while True:
            frame = self.next(max(0.01, deadline - time.monotonic()))
            if wanted(frame):
                return frame

    def close_code(self, seconds: float = 20.0) -> int | None:
        """Read until the server closes the socket: its close code."""
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                self.next(max(0.01, deadline - time.monotonic()))
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None
        raise AssertionError("the socket stayed open")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stack.close()

    def join(self, token: str | None = None, credential: str | None = None) -> Frame:
        """Join (a seat by invite or credential, or as a spectator): the first state frame."""
        frame: Frame = {"type": "join"}
        if token is not None:
            frame["token"] = token
        if credential is not None:
            frame["credential"] = credential
        self.send(frame)
        return self.until(lambda f: f["type"] == "state")

    def game_frames(self) -> list[Frame]:
        """The frames seen that do not depend on timing."""
        return [f for f in self.seen if f["type"] not in TIMING_FRAMES]


@contextlib.contextmanager
def redis_on(port: int, log: IO[bytes] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """``redis-server`` on ``port`` (a test that stops Redis starts it again on the same port)."""
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=20)
