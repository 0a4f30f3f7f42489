"""Load of several server processes (not a test): ``python -m benchmarks.load --processes 1,2``.

For each count N given, a fresh service is started: a PostgreSQL cluster and a ``redis-server``
of their own (Debian's binaries, loopback: tests/services.py), and N ``spheria serve`` processes
on the same ``--db postgresql://…`` and ``--redis redis://…``. Then K game drivers play as
:mod:`benchmarks.load` does (two human seats, random legal moves, each move through the server),
for ``--seconds``. Each game is created on the processes in turn; its two sockets go where
``--spread`` says: ``random`` (each socket to any process, as a proxy without sticky sessions
spreads them; most games then have a socket on a process that does not own the game, whose frames
are relayed) or ``game`` (both to the process that created it, as a proxy hashing the game's path
sends them). Reported per N: moves per second, the latency of a move (p50, p95, max), each
server process's share of a core and resident memory, and with two or more counts the ratio of
each count's moves per second to the first's.

``--failover``: halfway through, the process that created the first game is killed (SIGKILL). A
driver whose socket closes reconnects to any live process and joins again with its seat's
credential; measured: per interrupted game, the time from the kill to its next acknowledged move
(the failover time; an interrupted game has :data:`RECOVERY` seconds from the kill to come back,
past the run's end if need be, and is counted unrecovered only if it does not), and — checked
against the moves stored in PostgreSQL at the end — the acknowledged moves lost (stored fewer than
acknowledged) and moves applied twice (stored more than acknowledged plus the one in flight). Both
must be 0.

``--idle-websockets M``: M lobby websockets opened before the games (spread over the processes
and over the client addresses), held idle through the run: how many opened, how long that took,
how many were still open at the end, and each process's memory with them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from benchmarks.load import (
    Crowd,
    LobbyWire,
    client_addresses,
    cpu_seconds,
    free_port,
    http,
    local,
    percentile,
    resident_mb,
)
from tests.services import postgres_server, redis_server

#: What a driver treats as its socket's process gone: it reconnects elsewhere.
GONE = (ConnectionClosed, WebSocketException, OSError, asyncio.TimeoutError)
#: Seconds a driver waits for a frame before it counts its socket as gone.
FRAME_WAIT = 30.0
#: Seconds from the kill an interrupted game has to come back, even past the run's end: a game
#: interrupted near the end is measured, not cut short (the lease alone takes 5 s to lapse).
RECOVERY = 30.0


@dataclass
class Server:
    """One ``spheria serve`` process of the service."""

    base: str
    process: subprocess.Popen[bytes]
    killed: bool = False


@dataclass
class Service:
    servers: list[Server]
    db: str
    redis: str
    killed_at: float | None = None

    def live(self) -> list[Server]:
        return [server for server in self.servers if not server.killed]


@contextlib.contextmanager
def service(processes: int, serve_options: list[str], idle: int) -> Iterator[Service]:
    """PostgreSQL, Redis and ``processes`` servers on them, stopped (and their files removed) at the end."""
    logs = Path(tempfile.mkdtemp(prefix="spheria-load-"))
    print(f"server logs: {logs}", file=sys.stderr)
    with postgres_server() as db, redis_server() as redis:
        servers: list[Server] = []
        try:
            for _ in range(processes):
                port = free_port()
                command = [
                    sys.executable, "-m", "spheria.server", "--port", str(port), "--db", db, "--redis", redis,
                    "--agent-delay", "0", "--frame-rate", "0", "--create-per-minute", "1000000",
                    "--create-burst", "1000", "--max-connections", str(4096 + idle),
                    *serve_options,
                ]  # fmt: skip
                with open(logs / f"server-{port}.log", "wb") as log:
                    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
                servers.append(Server(f"http://127.0.0.1:{port}", process))
            for server in servers:
                wait_until_serving(server)
            yield Service(servers, db, redis)
        finally:
            for server in servers:
                if server.process.poll() is None:
                    server.process.terminate()
            for server in servers:
                try:
                    server.process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.process.kill()
                    server.process.wait()


def pids_listening(port: int, program: str) -> list[int]:
    """The processes of ``program`` started with ``port`` in their command line, and their children
    (PostgreSQL's backends are the postmaster's children)."""
    found: list[int] = []
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        name = (
            command[0].split(b" ", 1)[0].rsplit(b"/", 1)[-1]
        )  # redis-server rewrites its title: "redis-server host:port"
        if name == program.encode() and str(port).encode() in b" ".join(command):
            found.append(int(entry.name))
    return found + [pid for pid, parent in parents.items() if parent in found]


def stack_cpu(service: Service) -> dict[str, float]:
    """CPU seconds used so far by the service's PostgreSQL and Redis."""
    db_port = int(service.db.rsplit(":", 1)[1].split("/", 1)[0])
    redis_port = int(service.redis.rsplit(":", 1)[1].split("/", 1)[0])
    return {
        "postgres": sum(cpu_seconds(pid) for pid in pids_listening(db_port, "postgres")),
        "redis": sum(cpu_seconds(pid) for pid in pids_listening(redis_port, "redis-server")),
    }


def wait_until_serving(server: Server) -> None:
    for _ in range(600):
        if server.process.poll() is not None:
            raise RuntimeError(f"the server {server.base} ended with {server.process.returncode} while starting")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(server.base + "/api/catalog", timeout=1)
            return
        time.sleep(0.1)
    raise RuntimeError(f"the server {server.base} did not answer within a minute")


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    games: int = 0
    errors: int = 0
    #: Per game: the moves its drivers saw acknowledged, and whether one was in flight at the end.
    acknowledged: dict[str, int] = field(default_factory=dict)
    in_flight: set[str] = field(default_factory=set)
    #: Seconds from the kill to each interrupted game's next acknowledged move.
    failovers: list[float] = field(default_factory=list)
    reconnects: int = 0
    #: Games that came back after a failover at an older version than their seats had seen.
    lost_seen: int = 0
    unrecovered: int = 0
    #: Games whose sockets went while no process had been killed (and that came back).
    dropped: int = 0


class Seat:
    """One seat's socket and credential; it reconnects to any live process when its socket goes."""

    def __init__(self, game_id: str, token: str, source: str | None) -> None:
        self.game_id, self.token, self.source = game_id, token, source
        self.credential: str | None = None
        self.ws: ClientConnection | None = None

    async def open(self, base: str) -> dict[str, Any]:
        """Connect to ``base``, join (the invite the first time, the credential after) and return the state."""
        await self.close()
        url = base.replace("http", "ws", 1) + f"/ws/{self.game_id}"
        self.ws = await connect(url, open_timeout=FRAME_WAIT, local_addr=local(self.source))
        held = {"credential": self.credential} if self.credential else {"token": self.token}
        await self.ws.send(json.dumps({"type": "join", **held}))
        return await self.state(0)

    async def state(self, version: int) -> dict[str, Any]:
        """The next state frame of at least ``version`` (keeping the credential a ``claimed`` frame gives)."""
        assert self.ws is not None
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), FRAME_WAIT))
            if frame["type"] == "claimed":
                self.credential = frame["credential"]
            elif frame["type"] == "error":
                raise ConnectionError(f"{frame.get('code')}: {frame.get('message')}")
            elif frame["type"] == "state" and frame["version"] >= version:
                return dict(frame)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
            self.ws = None


async def play(service: Service, tally: Tally, deadline: float, driver: int, source: str | None, spread: str) -> None:
    """Create and play games one after another until the deadline."""
    rng = random.Random(driver)
    while time.monotonic() < deadline:
        live = service.live()
        creator = live[driver % len(live)]
        try:
            body = {"game": "spline", "seats": [{"kind": "human"}] * 2}
            created = await http(creator.base, "POST", "/api/games", body, source=source)
            if created.status != 201:
                raise ConnectionError(f"POST /api/games answered {created.status}: {created.body}")
        except (ConnectionError, OSError) as error:
            if creator.killed:  # asked as it was killed: the next game is asked of a live process
                continue
            tally.errors += 1
            print(f"game not created: {error}", file=sys.stderr)
            await asyncio.sleep(0.5)
            continue
        game_id = created.body["id"]
        tokens = [seat["invite"].split("#", 1)[1] for seat in created.body["seats"]]
        seats = [Seat(game_id, token, source) for token in tokens]
        try:
            await play_one(service, tally, deadline, rng, seats, creator, spread)
        except (*GONE, ConnectionError) as error:  # not a process gone: counted, and the next game begins
            tally.errors += 1
            print(f"game {game_id} failed: {error!r}", file=sys.stderr)
        finally:
            for seat in seats:
                await seat.close()


async def play_one(
    service: Service, tally: Tally, deadline: float, rng: random.Random, seats: list[Seat], creator: Server, spread: str
) -> None:
    """Play one game to its end or the deadline. A frame's ``version`` is the game's stored plies, so
    the newest version the seats saw is what the server acknowledged (:func:`check_stored`)."""
    game_id = seats[0].game_id
    tally.acknowledged[game_id] = 0
    interrupted: float | None = None  # when its sockets went, until a move is acknowledged again
    frames: list[dict[str, Any]] | None
    try:
        frames = [
            await seat.open(creator.base if spread == "game" else rng.choice(service.live()).base) for seat in seats
        ]
    except (*GONE, ConnectionError) as error:  # a process killed as the game began
        interrupted = went(game_id, error)
        frames = await reconnect(service, tally, game_end(service, deadline, interrupted), rng, seats)
    while frames is not None and time.monotonic() < game_end(service, deadline, interrupted):
        if frames[0]["terminal"]:
            tally.games += 1
            return
        version = frames[0]["version"]
        movers = [index for index in (0, 1) if frames[index]["legal_moves"]]
        started = time.perf_counter()
        try:
            tally.in_flight.add(game_id)
            for index in movers:
                ws = seats[index].ws
                assert ws is not None
                await ws.send(
                    json.dumps({"type": "move", "move": rng.choice(frames[index]["legal_moves"]), "version": version})
                )
            last = movers[-1]
            reply = await seats[last].state(version + 1)
            tally.acknowledged[game_id] = reply["version"]
            tally.latencies.append(time.perf_counter() - started)
            tally.in_flight.discard(game_id)
            other = await seats[1 - last].state(version + 1)
            frames = [reply, other] if last == 0 else [other, reply]
            if interrupted is not None:
                back_after_kill(service, tally, interrupted)
                interrupted = None
        except (*GONE, ConnectionError) as error:
            interrupted = went(game_id, error)
            frames = await reconnect(service, tally, game_end(service, deadline, interrupted), rng, seats)
            if frames is not None:
                if frames[0]["version"] < tally.acknowledged[game_id]:
                    tally.lost_seen += 1  # a move this game's seats saw acknowledged is gone
                tally.acknowledged[game_id] = frames[0]["version"]
                tally.in_flight.discard(game_id)  # the version joined again says whether it was kept
    if frames is None or interrupted is not None:  # never a move acknowledged again
        tally.unrecovered += 1


def went(game_id: str, error: BaseException) -> float:
    """Say why a game's sockets went (on stderr, beside the run's errors) and return when."""
    print(f"game {game_id}: connection gone: {error!r}", file=sys.stderr)
    return time.monotonic()


def back_after_kill(service: Service, tally: Tally, interrupted: float) -> None:
    """A game whose sockets went at ``interrupted`` has a move acknowledged again: a failover if
    the kill had come by then (timed from the kill), otherwise a connection lost by itself."""
    if service.killed_at is not None and interrupted >= service.killed_at:
        tally.failovers.append(time.monotonic() - service.killed_at)
    else:
        tally.dropped += 1


def game_end(service: Service, deadline: float, interrupted: float | None) -> float:
    """When a game stops: at the run's end; an interrupted one (its sockets gone since ``interrupted``)
    has until :data:`RECOVERY` after the kill to come back, if that is later."""
    if interrupted is None or service.killed_at is None:
        return deadline
    return max(deadline, service.killed_at + RECOVERY)


async def reconnect(
    service: Service, tally: Tally, deadline: float, rng: random.Random, seats: list[Seat]
) -> list[dict[str, Any]] | None:
    """Both seats join again on live processes (tried in turn, as a proxy would) until ``deadline``."""
    while time.monotonic() < deadline:
        tally.reconnects += 1
        try:
            return [await seat.open(rng.choice(service.live()).base) for seat in seats]
        except (*GONE, ConnectionError):
            await asyncio.sleep(0.2)
    return None


async def hold_idle(service: Service, count: int, sources: list[str]) -> tuple[Crowd, list[LobbyWire], float]:
    """Open ``count`` lobby websockets spread over the processes and addresses, 200 at a time."""
    crowd = Crowd(service.servers[0].base, "spline", {}, [], 0.0)
    gate = asyncio.Semaphore(200)
    wires: list[LobbyWire] = []
    started = time.monotonic()

    async def open_one(number: int) -> None:
        async with gate:
            server = service.servers[number % len(service.servers)]
            with contextlib.suppress(ConnectionError, OSError, asyncio.TimeoutError):
                wires.append(await LobbyWire.connect(crowd, server.base, {}, sources[number % len(sources)]))

    await asyncio.gather(*(open_one(number) for number in range(count)))
    return crowd, wires, time.monotonic() - started


async def kill_halfway(service: Service, at: float) -> None:
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    victim = service.servers[0]
    victim.process.send_signal(signal.SIGKILL)
    victim.killed = True
    service.killed_at = time.monotonic()


async def measure_async(service: Service, args: argparse.Namespace) -> dict[str, Any]:
    sources = client_addresses(args.addresses)
    notes: dict[str, Any] = {}
    crowd = None
    wires: list[LobbyWire] = []
    if args.idle_websockets:
        crowd, wires, seconds = await hold_idle(service, args.idle_websockets, sources)
        notes["idle_websockets_opened"] = crowd.lobbies
        notes["idle_open_seconds"] = round(seconds, 1)
    tally = Tally()
    pids = [server.process.pid for server in service.servers]
    cpu = [cpu_seconds(pid) for pid in pids]
    own_cpu = time.process_time()
    stack = stack_cpu(service)
    started = time.monotonic()
    deadline = started + args.seconds
    killer = asyncio.create_task(kill_halfway(service, started + args.seconds / 2)) if args.failover else None
    await asyncio.gather(
        *(play(service, tally, deadline, d, sources[d % len(sources)], args.spread) for d in range(args.games))
    )
    elapsed = time.monotonic() - started
    if killer is not None:
        await killer
    notes["server_cpu_share"] = [round((cpu_seconds(p) - c) / elapsed, 2) for p, c in zip(pids, cpu, strict=True)]
    notes["server_rss_mb"] = [round(resident_mb(p) or 0.0) for p in pids]
    notes["client_cpu_share"] = round((time.process_time() - own_cpu) / elapsed, 2)  # the load generator's own
    for part, seconds in stack_cpu(service).items():  # (backends that ended meanwhile are not counted)
        notes[f"{part}_cpu_share"] = round((seconds - stack[part]) / elapsed, 2)
    if crowd is not None:
        notes["idle_websockets_open_at_end"] = crowd.lobbies
        notes["idle_closes"] = dict(crowd.closes)
        for wire in wires:
            wire.close()
    if args.failover:
        lost, doubled = await check_stored(service.db, tally)
        notes.update(
            failover_s=spread_of(tally.failovers),
            games_interrupted=len(tally.failovers) + tally.unrecovered,
            unrecovered=tally.unrecovered,
            dropped_before_kill=tally.dropped,
            reconnects=tally.reconnects,
            acknowledged_lost=lost + tally.lost_seen,
            applied_twice=doubled,
        )
    moves = len(tally.latencies)
    return {
        "processes": len(service.servers),
        "spread": args.spread,
        "seconds": round(elapsed, 2),
        "moves": moves,
        "moves_per_second": round(moves / elapsed, 1),
        "latency_ms_p50": round(1000 * statistics.median(tally.latencies), 2) if moves else None,
        "latency_ms_p95": round(1000 * percentile(tally.latencies, 0.95), 2) if moves else None,
        "latency_ms_max": round(1000 * max(tally.latencies), 2) if moves else None,
        "games_finished": tally.games,
        "errors": tally.errors,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "notes": notes,
    }


def spread_of(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f}/{max(values):.2f} (median/max of {len(values)})"


async def check_stored(db: str, tally: Tally) -> tuple[int, int]:
    """Acknowledged moves missing from PostgreSQL, and moves stored beyond those acknowledged (plus one
    in flight): both counted over every game played."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(db) as connection:
        cursor = await connection.execute("SELECT game_id, COUNT(*) FROM moves GROUP BY game_id")
        stored = {str(game_id): int(count) for game_id, count in await cursor.fetchall()}
    lost = doubled = 0
    for game_id, acknowledged in tally.acknowledged.items():
        kept = stored.get(game_id, 0)
        lost += max(0, acknowledged - kept)
        doubled += max(0, kept - acknowledged - (1 if game_id in tally.in_flight else 0))
    return lost, doubled


def measure(processes: int, args: argparse.Namespace) -> dict[str, Any]:
    with service(processes, args.serve_option, args.idle_websockets) as running:
        return asyncio.run(measure_async(running, args))


def run(args: argparse.Namespace) -> int:
    """``--processes 1,2``: one run per count, printed as one table (and the JSON of each run)."""
    counts = [int(count) for count in args.processes.split(",")]
    rows = [measure(count, args) for count in counts]
    print(json.dumps(rows, indent=2))
    first = rows[0]["moves_per_second"] or float("nan")
    print("| processes | moves/s | × first | p50 ms | p95 ms | max ms | games | errors | notes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        notes = ", ".join(f"{key} {value}" for key, value in row["notes"].items())
        cells = [row["processes"], row["moves_per_second"], f"{row['moves_per_second'] / first:.2f}"]
        cells += [row[key] for key in ("latency_ms_p50", "latency_ms_p95", "latency_ms_max", "games_finished")]
        cells.append(row["errors"])
        print("| " + " | ".join(str(cell) for cell in cells) + f" | {notes} |")
    wrong = ("errors", "acknowledged_lost", "applied_twice")
    failed = any(row.get(key) or row["notes"].get(key) for row in rows for key in wrong)
    return 1 if failed else 0
