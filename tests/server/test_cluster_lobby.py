# ruff: noqa: F811  (the fixture store comes from tests.server.cluster_helpers)
"""The lobby on several processes (issue 39; docs/server.md, Several processes, "The lobby"): real
processes, a Redis of each test's own, one PostgreSQL store.

Every process serves the lobby sockets that reach it (none is relayed); the process holding the lease
``lobby`` decides the challenges and its events reach the lobby sockets of every process once; the
open challenges outlive their owner (``kill -9``); a private challenge reaches no one else's socket
on any process; the poster's grace counts their lobby sockets on every process.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from tests.server.cluster_helpers import (  # noqa: F401  (store is a fixture)
    Frame,
    Person,
    Process,
    Socket,
    request,
    start_process,
    store,
)
from tests.services import redis_server

LEASE = "spheria:lease:lobby"
CAKE = {"game": "special-cake", "options": {"variant": "mint"}, "seat": 0, "rated": False}


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis of this test's own: no other test's open challenges in its lobby."""
    with redis_server() as url:
        yield url


@pytest.fixture
def started(store: str, redis_url: str, tmp_path: Path) -> Iterator[list[Process]]:
    """The processes a test starts with ``start(...)``, stopped after it."""
    processes: list[Process] = []
    yield processes
    for process in processes:
        process.stop()


def pair(started: list[Process], store: str, redis_url: str, tmp_path: Path, *extra: str) -> tuple[Process, Process]:
    """A, then B: A, started first and asked first, holds the lobby's lease (asserted through Redis)."""
    first = start_process(store, redis_url, tmp_path, *extra)
    started.append(first)
    assert request(f"{first.url}/api/challenges")[0] == 200
    deadline = time.monotonic() + 10
    while lease_holder(redis_url) is None:
        assert time.monotonic() < deadline, "nobody took the lobby's lease"
        time.sleep(0.05)
    second = start_process(store, redis_url, tmp_path, *extra)
    started.append(second)
    return first, second


def lease_holder(redis_url: str) -> str | None:
    with Redis.from_url(redis_url, decode_responses=True) as client:
        holder = client.get(LEASE)
    return None if holder is None else str(holder)


def guest(process: Process, name: str) -> Person:
    person = Person(process)
    assert person.send(process, "POST", "/api/guest", {"name": name}).status_code == 201
    return person


def lobby(person: Person | None, process: Process) -> Socket:
    """A lobby socket on ``process`` (of ``person``, or of nobody), its hello read."""
    socket = process.ws("/ws/lobby") if person is None else person.ws(process, "/ws/lobby")
    socket.until(lambda f: f["type"] == "lobby")
    return socket


def challenge_frames(socket: Socket, seconds: float) -> list[Frame]:
    """The challenge and game_ready frames ``socket`` is sent within ``seconds`` (presence left out)."""
    deadline = time.monotonic() + seconds
    frames = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            frame = socket.next(left)
        except TimeoutError:
            break
        if frame["type"] in ("challenge", "game_ready"):
            frames.append(frame)
    return frames


def events_of(frames: list[Frame], challenge_id: str) -> list[str]:
    return [f["event"] for f in frames if f["type"] == "challenge" and f["challenge"]["id"] == challenge_id]


def until_served(person: Person, process: Process, method: str, path: str, seconds: float = 20.0) -> Any:
    """The answer once the lobby is served again (``cluster_unavailable`` while its lease lapses)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = person.send(process, method, path)
        if answer.status_code != 503:
            return answer
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


def test_a_challenge_posted_through_either_process_reaches_the_lobby_sockets_of_both_once(
    started: list[Process], store: str, redis_url: str, tmp_path: Path
) -> None:
    a, b = pair(started, store, redis_url, tmp_path)
    ann, ben = guest(a, "Ann"), guest(b, "Ben")
    on_a, on_b, ann_on_b = lobby(None, a), lobby(None, b), lobby(ann, b)
    posted_on_a = ann.send(a, "POST", "/api/challenges", CAKE)  # A decides: served there
    assert posted_on_a.status_code == 201, posted_on_a.text
    posted_on_b = ben.send(b, "POST", "/api/challenges", {**CAKE, "seat": 1})  # B relays it to A
    assert posted_on_b.status_code == 201, posted_on_b.text
    first, second = posted_on_a.json()["id"], posted_on_b.json()["id"]
    accepted = ben.send(b, "POST", f"/api/challenges/{first}/accept")  # accepted through the other
    assert accepted.status_code == 200, accepted.text
    game = accepted.json()["game_id"]
    for socket in (on_a, on_b):
        frames = challenge_frames(socket, 3.0)
        assert events_of(frames, first) == ["created", "taken"]  # each once, in order
        assert events_of(frames, second) == ["created"]
        assert [f for f in frames if f["type"] == "game_ready"] == []
    ready = [f for f in challenge_frames(ann_on_b, 3.0) if f["type"] == "game_ready"]
    assert len(ready) == 1 and ready[0]["game_id"] == game  # the poster's socket on the other process
    assert ready[0]["invite"].startswith(f"/game/{game}#")
    hello = lobby(None, b).seen[0]
    assert [c["id"] for c in hello["challenges"]] == [second]  # B's mirror: the taken one is gone
    assert lease_holder(redis_url) is not None
    for socket in (on_a, on_b, ann_on_b):
        socket.close()


def publishes(redis_url: str) -> int:
    """How many PUBLISH commands the Redis has run so far."""
    with Redis.from_url(redis_url, decode_responses=True) as client:
        stats = client.info("commandstats")
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


def test_a_challenge_event_is_one_redis_publish_however_many_lobby_sockets_see_it(
    started: list[Process], store: str, redis_url: str, tmp_path: Path
) -> None:
    a, b = pair(started, store, redis_url, tmp_path)
    ann = guest(a, "Ann")
    sockets = [lobby(None, b) for _ in range(20)]  # on B, which does not decide the lobby
    time.sleep(2.5)  # the presence of their arrival pushed and settled
    before = publishes(redis_url)
    posted = ann.send(a, "POST", "/api/challenges", CAKE)
    assert posted.status_code == 201, posted.text
    for socket in sockets:
        pushed = socket.until(lambda f: f["type"] == "challenge")
        assert pushed["event"] == "created" and pushed["challenge"]["id"] == posted.json()["id"]
    assert publishes(redis_url) - before == 1  # to B once, encoded once there for its 20 sockets
    for socket in sockets:
        socket.close()


def test_the_lobby_outlives_its_owner_killed_with_9(
    started: list[Process], store: str, redis_url: str, tmp_path: Path
) -> None:
    a, b = pair(started, store, redis_url, tmp_path)
    owner = lease_holder(redis_url)
    ann, ben = guest(b, "Ann"), guest(b, "Ben")
    on_a, on_b = lobby(None, a), lobby(ben, b)
    posted = ann.send(b, "POST", "/api/challenges", CAKE)
    assert posted.status_code == 201, posted.text
    challenge = posted.json()["id"]
    assert events_of(challenge_frames(on_b, 2.0), challenge) == ["created"]
    a.kill()  # the lobby's owner: no goodbye, its lease lapses
    on_a.close()
    on_b.send({"type": "ping"})
    assert on_b.until(lambda f: f["type"] == "pong", 5.0)  # B's lobby socket is B's own: still open
    listed = until_served(ann, b, "GET", "/api/challenges")  # B takes the lease, loads the challenges
    assert listed.status_code == 200 and [c["id"] for c in listed.json()["challenges"]] == [challenge]
    assert lease_holder(redis_url) not in (None, owner)
    assert [c["id"] for c in lobby(None, b).seen[0]["challenges"]] == [challenge]
    accepted = until_served(ben, b, "POST", f"/api/challenges/{challenge}/accept")
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["invite"].startswith(f"/game/{accepted.json()['game_id']}#")
    frames = challenge_frames(on_b, 3.0)
    assert events_of(frames, challenge) == ["taken"]
    on_b.send({"type": "ping"})
    assert on_b.until(lambda f: f["type"] == "pong", 5.0)
    on_b.close()


def test_a_private_challenge_reaches_no_other_socket_on_any_process(
    started: list[Process], store: str, redis_url: str, tmp_path: Path
) -> None:
    a, b = pair(started, store, redis_url, tmp_path)
    ann, ben, eve = guest(a, "Ann"), guest(b, "Ben"), guest(a, "Eve")
    eve_on_a, eve_on_b, nobody_on_b = lobby(eve, a), lobby(eve, b), lobby(None, b)
    ben_on_b = lobby(ben, b)
    private = ann.send(b, "POST", "/api/challenges", {**CAKE, "opponent": "Ben"})
    assert private.status_code == 201, private.text
    secret = private.json()["id"]
    assert events_of(challenge_frames(ben_on_b, 2.0), secret) == ["created"]  # Ben's socket on B sees it
    for asked in (a, b):
        listed = eve.send(asked, "GET", "/api/challenges").json()["challenges"]
        assert secret not in [c["id"] for c in listed]
        assert [c["id"] for c in lobby(eve, asked).seen[0]["challenges"]] == []
        assert eve.send(asked, "GET", f"/api/challenges/{secret}").status_code == 404
    refused = eve.send(a, "POST", f"/api/challenges/{secret}/accept")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_for_you"
    accepted = ben.send(a, "POST", f"/api/challenges/{secret}/accept")
    assert accepted.status_code == 200, accepted.text
    public = ann.send(a, "POST", "/api/challenges", CAKE)  # after it, nothing of the private one can come
    assert public.status_code == 201
    for socket in (eve_on_a, eve_on_b, nobody_on_b):
        frames = challenge_frames(socket, 3.0)
        assert events_of(frames, public.json()["id"]) == ["created"]
        assert events_of(frames, secret) == [] and [f for f in frames if f["type"] == "game_ready"] == []
        assert secret not in str(socket.seen) and accepted.json()["game_id"] not in str(socket.seen)
        socket.close()
    ben_on_b.close()


def test_the_posters_grace_counts_a_lobby_socket_on_the_other_process(
    started: list[Process], store: str, redis_url: str, tmp_path: Path
) -> None:
    a, b = pair(started, store, redis_url, tmp_path, "--challenge-grace", "1")
    ann = guest(a, "Ann")
    watcher, ann_on_a, ann_on_b = lobby(None, a), lobby(ann, a), lobby(ann, b)
    posted = ann.send(a, "POST", "/api/challenges", CAKE)
    assert posted.status_code == 201, posted.text
    challenge = posted.json()["id"]
    ann_on_a.close()  # on the owner, Ann has no lobby socket left: on B she has one
    frames = challenge_frames(watcher, 4.0)  # four times the grace
    assert events_of(frames, challenge) == ["created"]
    listed = ann.send(b, "GET", "/api/challenges").json()["challenges"]
    assert [c["id"] for c in listed] == [challenge] and listed[0]["status"] == "open"
    ann_on_b.close()  # now in no lobby anywhere: the grace runs out
    closed_at = time.monotonic()
    expired = watcher.until(lambda f: f["type"] == "challenge" and f["challenge"]["id"] == challenge, 10.0)
    assert expired["event"] == "expired"
    assert time.monotonic() - closed_at >= 0.9  # not before the grace
    assert ann.send(a, "GET", "/api/challenges").json()["challenges"] == []
    watcher.close()
