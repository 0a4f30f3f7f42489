# ruff: noqa: F811  (the fixture store comes from tests.server.cluster_helpers)
"""Faults of a service of several processes (issue 39): an owner killed with ``kill -9`` in the middle
of a move, Redis stopped and started again, and an attacker's game ids. Real processes, a real Redis,
one shared store (see tests/server/cluster_helpers.py).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidStatus

from spheria.kernel.record import replay
from spheria.kernel.registry import load_game
from tests.server.cluster_helpers import (  # noqa: F401  (store is a fixture)
    Frame,
    Process,
    Socket,
    create_game,
    redis_on,
    request,
    start_process,
    start_worker,
    store,
    stored,
    token_of,
)
from tests.server.test_cluster import acting_seat, play_out
from tests.services import free_port

HUMAN = {"kind": "human"}
RANDOM = {"kind": "agent", "agent": "random:seed=5"}


def credentials(*sockets: Socket) -> dict[int, str]:
    return {f["seat"]: f["credential"] for s in sockets for f in s.seen if f["type"] == "claimed"}


def rejoin(process: Process, game_id: str, credential: str | None, seconds: float = 20.0) -> tuple[Socket, Frame]:
    """Reconnect as the browser does (web/js/game.js: again after any close but 4404) until served."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket = process.ws(f"/ws/{game_id}")
            return socket, socket.join(credential=credential)
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@contextlib.contextmanager
def processes(store: str, redis: str, log_dir: Path, *extra: str) -> Iterator[tuple[Process, Process]]:
    first = start_process(store, redis, log_dir, *extra)
    second = start_process(store, redis, log_dir, *extra)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def test_killing_the_owner_mid_move_loses_no_acknowledged_move_and_applies_none_twice(
    store: str, redis_url: str, tmp_path: Path
) -> None:
    with processes(store, redis_url, tmp_path) as (a, b):
        created = create_game(a, "spline", [HUMAN, HUMAN])
        game = created["id"]
        seat0, seat1 = a.ws(f"/ws/{game}"), b.ws(f"/ws/{game}")  # seat 1 through the tunnel to A
        states = {0: seat0.join(token_of(created, 0)), 1: seat1.join(token_of(created, 1))}
        acknowledged = play_out({0: seat0, 1: seat1}, [], states, most=4)
        assert acknowledged == 4 and len(stored(store, game).record.moves) == 4
        mover = acting_seat(states)
        assert mover is not None
        in_flight = {"type": "move", "move": states[mover]["legal_moves"][0], "version": states[mover]["version"]}
        (seat0, seat1)[mover].send(in_flight)
        a.kill()  # kill -9 of the owner, the move in flight
        killed = time.monotonic()
        assert seat1.close_code() == 1012  # B's relay: the owner is gone, come again
        seat0.close()
        keys = credentials(seat0, seat1)
        seat0, first = rejoin(b, game, keys[0])  # both to the survivor
        seat1, second = rejoin(b, game, keys[1])
        failover = time.monotonic() - killed
        assert failover < 15, failover
        moves = len(stored(store, game).record.moves)
        assert moves in (acknowledged, acknowledged + 1)  # the one in flight: applied once or not at all
        assert first["version"] == second["version"] and first["seat"] == 0 and second["seat"] == 1
        states = {0: first, 1: second}
        assert play_out({0: seat0, 1: seat1}, [], states, most=2) == 2  # the game goes on, on B
        record = stored(store, game).record
        assert len(record.moves) == moves + 2
        replay(load_game(record.game, **record.options), seed=record.seed, entries=record.moves)  # all legal
        seat0.close()
        seat1.close()
        (tmp_path / "failover.txt").write_text(f"{failover:.2f}\n")


def test_an_agent_game_goes_on_after_its_owner_dies_with_nobody_connected(
    store: str, redis_url: str, tmp_path: Path
) -> None:
    worker = start_worker(redis_url, tmp_path)  # where the agents of both processes think
    with processes(store, redis_url, tmp_path, "--agent-delay", "0.3") as (a, _b), contextlib.ExitStack() as stack:
        stack.callback(worker.wait, 20)
        stack.callback(worker.terminate)
        game = create_game(a, "spline", [RANDOM, RANDOM])["id"]
        deadline = time.monotonic() + 30
        while len(stored(store, game).record.moves) < 2:
            assert time.monotonic() < deadline, "the agents did not start"
            time.sleep(0.1)
        a.kill()
        at_death = stored(store, game)
        assert at_death.status == "active", "the game ended before its owner died: make it longer"
        deadline = time.monotonic() + 90
        while (final := stored(store, game)).status == "active":
            assert time.monotonic() < deadline, "nobody adopted the orphaned game"
            time.sleep(0.3)
        assert final.status == "finished" and len(final.record.moves) > len(at_death.record.moves)
        assert final.faults == {}, "an agent move fell back: the worker's answers did not reach the new owner"
        assert final.record.moves[: len(at_death.record.moves)] == at_death.record.moves
        record = final.record
        state = replay(load_game(record.game, **record.options), seed=record.seed, entries=record.moves)
        assert state.is_terminal()  # every move legal, none twice


def test_with_redis_down_owned_games_go_on_and_the_rest_is_refused_clearly(store: str, tmp_path: Path) -> None:
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(redis_on(port))
        a, b = stack.enter_context(processes(store, url, tmp_path))
        created = create_game(a, "spline", [HUMAN, HUMAN])
        game = created["id"]
        seat0, seat1 = a.ws(f"/ws/{game}"), a.ws(f"/ws/{game}")  # both on the owner
        states = {0: seat0.join(token_of(created, 0)), 1: seat1.join(token_of(created, 1))}
        assert play_out({0: seat0, 1: seat1}, [], states, most=2) == 2
        redis.terminate()
        redis.wait(timeout=20)
        assert play_out({0: seat0, 1: seat1}, [], states, most=2) == 2  # A's own game goes on
        watcher = a.ws(f"/ws/{game}")  # and a new socket to it on A is served
        assert watcher.join()["version"] == states[0]["version"]
        watcher.close()
        status, refusal = request(f"{b.url}/api/games/{game}")
        assert status == 503 and refusal["error"]["code"] == "cluster_unavailable"
        assert "Redis" in refusal["error"]["message"]
        status, korean = request(f"{b.url}/api/games/{game}", headers={"Accept-Language": "ko"})
        assert status == 503 and korean["error"]["message"] != refusal["error"]["message"]
        assert re.search("[가-힣]", korean["error"]["message"])
        body = {"game": "spline", "options": {}, "seats": [HUMAN, HUMAN]}
        status, refused = request(f"{b.url}/api/games", "POST", body)
        assert status == 503 and refused["error"]["code"] == "cluster_unavailable"
        # Redis back (empty: restarted): A puts its lease back, B relays to A again.
        stack.enter_context(redis_on(port))
        deadline = time.monotonic() + 20
        while (status := request(f"{b.url}/api/games/{game}")[0]) != 200:
            assert time.monotonic() < deadline, status
            time.sleep(0.3)
        watcher = b.ws(f"/ws/{game}")
        assert watcher.join()["version"] == states[0]["version"]
        assert play_out({0: seat0, 1: seat1}, [watcher], states, most=1) == 1  # the same game, seen on B
        for socket in (seat0, seat1, watcher):
            socket.close()
        assert len(stored(store, game).record.moves) == 5


HOSTILE = ["..", "*", "x" * 10_000, "lobby", "spheria:lease:lobby", "alive:0123", "inbox:abc", "a%20b", "%2A"]


def test_no_client_text_becomes_a_redis_key_and_the_inbox_cannot_be_reached(
    store: str, redis_url: str, tmp_path: Path
) -> None:
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    with processes(store, redis_url, tmp_path) as (a, b), open(tmp_path / "monitor.log", "w") as log:
        created = create_game(a, "spline", [HUMAN, HUMAN])
        monitor = subprocess.Popen(["redis-cli", "-p", str(port), "monitor"], stdout=log, stderr=subprocess.STDOUT)
        try:
            time.sleep(0.5)
            for hostile in HOSTILE:
                for path in (f"/api/games/{hostile}", f"/api/games/{hostile}/record"):
                    status, _answer = request(b.url + path)
                    assert status in (400, 404, 414), (hostile[:20], status)
                status, _answer = request(f"{b.url}/api/games/{hostile}/resign", "POST", {})
                assert status in (403, 404, 405, 414), (hostile[:20], status)
                if len(hostile) < 1000 and hostile != "lobby":  # /ws/lobby is the lobby's socket
                    socket = b.ws(f"/ws/{hostile}")
                    assert socket.close_code() == 4404
            # A frame shaped like a tunnel message is only a frame to the game's socket (relayed to A).
            seat = b.ws(f"/ws/{created['id']}")
            seat.join(token_of(created, 1))
            forged: dict[str, Any] = {"op": "open", "cid": "x", "from": "y", "scope": {"type": "http", "path": "/"}}
            seat.send(forged)
            assert seat.until(lambda f: f["type"] == "error")["code"] == "bad_frame"
            seat.close()
            time.sleep(0.5)
        finally:
            monitor.terminate()
            monitor.wait(timeout=10)
    commands = (tmp_path / "monitor.log").read_text()
    assert "spheria:lease:game:" in commands  # the monitor saw the service's own keys
    commanded = r'\] "(?:SET|GET|EXISTS|DEL|PEXPIRE|PUBLISH|SUBSCRIBE)" "([^"]*)"'
    scripted = r'\] "(?:EVALSHA|EVAL)" "[^"]*" "1" "([^"]*)"'
    keys = re.findall(commanded, commands, flags=re.IGNORECASE) + re.findall(scripted, commands, flags=re.IGNORECASE)
    # The leases, heartbeats and inboxes, the shared presence and lobby, the agent queue: server-made ids only.
    own = re.compile(
        r"spheria:(lease:(game:[A-Za-z0-9_-]{12}|lobby)|(alive|inbox):[0-9a-f]{16}"
        r"|presence:(process:[0-9a-f]{32}|processes|changed)|lobby:(events|challenges)|agents:(jobs|reply:[0-9a-f]{32}))"
    )
    assert keys and [key for key in keys if not own.fullmatch(key)] == []
    for hostile in ("x" * 10_000, "alive:0123", "inbox:abc", "a%20b", "a b"):
        assert hostile not in commands


def test_a_process_that_loses_a_lease_drops_the_game_and_its_sockets_reconnect(
    store: str, redis_url: str, tmp_path: Path
) -> None:
    import redis

    with processes(store, redis_url, tmp_path) as (a, _b):
        created = create_game(a, "spline", [HUMAN, HUMAN])
        game = created["id"]
        seat = a.ws(f"/ws/{game}")
        states = {0: seat.join(token_of(created, 0))}
        client = redis.Redis.from_url(redis_url)
        try:
            lease = f"spheria:lease:game:{game}"
            assert client.get(lease) is not None
            client.set(lease, "0" * 16, px=60_000)  # another process holds it now (as after a long stall)
            assert seat.close_code(seconds=10) == 1012  # A let the game go and told the browser
            client.delete(lease)  # that process is gone: the game is free again
        finally:
            client.close()
        seat, state = rejoin(a, game, credentials(seat)[0])
        assert state["seat"] == 0 and state["version"] == states[0]["version"]
        seat.close()
