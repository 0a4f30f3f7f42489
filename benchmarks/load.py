"""Load benchmark of the server (not a test): K concurrent games driven over websockets on loopback.

``python -m benchmarks.load --games K --seconds S [--game spline] [--option k=v]``

Starts ``spheria serve`` in a subprocess on a free loopback port with a fresh SQLite file (or
uses ``--url``, which must be a loopback address), creates K games with two human seats, and
plays each with two websocket clients that answer with random legal moves: agent against agent,
every move going through the server (parse, rules, storage, frames to both seats). A finished
game is replaced by a new one until the time is up. Bounded in time (``--seconds``) and count
(``--max-games``). Reports moves per second and the latency of a move: from sending it to
receiving the new position on the mover's socket (p50, p95, max).

``--abuse`` plays the same games while the server is attacked, each on a fresh server:
``agents`` (the runaway specs ``mcts:time=nan`` and ``mcts:iterations=10**12`` are submitted
and must be refused; two agent-against-agent games at the largest allowed budget,
``mcts:time=<--agent-max-time>``, keep the agent pool busy), ``spectators`` (1,000 spectators
join the first normal game, and the next game in play each time theirs ends; the server allows
1,000 per game for this run), ``sockets``
(10,000 idle TCP connections kept open: reopened as the server's header timeout closes them),
``hints`` (50 websockets, each the human seat of a game against a ``random`` agent, half of the
games with hints and half without, send ``{"type": "hint"}`` frames as fast as the server takes
them and read the answers; reported beside the run: the server process's resident memory,
``VmRSS``, when the games are under way, at its peak and a second after the run, and the share
of a core it used), ``analysis``
(one address opens 20 ``/ws/analysis`` sockets and keeps two heavy jobs asked on each, a
30-second estimate of Spinca; meanwhile an honest client from 127.0.0.2 asks for one 1-second
analysis at a time: its waits for its job's first frame and for the answer, and its refusals,
``server_busy`` among them), ``halfopen`` (5,000 connections from one address each begin a
request's headers and never end them, reopened when the server closes them; meanwhile honest
GETs of ``/api/catalog`` from 127.0.0.2, ten a second: their statuses and latency). What an
attack is measured by besides the moves (its *probe*: the memory, the honest analysis client,
the honest GETs) runs in the quiet run beside it too. ``--abuse compare`` runs each attack
(``--kinds K,K``: those, in that order; default all six) after a quiet run of its own and prints
a table with the ratio of their p95 latencies, the longest a game waited for a move, and each
run's notes (the attacker's counts and the probe's figures). ``--attack-size N`` replaces an
attack's size (a quick try; the sizes above are ``ATTACK_SIZES``). The attacker runs in a
process of its own (``--attack KIND --url URL --target GAME_ID``), so its work does not slow
the measured clients (``--attacker-niceness N`` lowers its CPU priority, so that it stands in
for another machine). The file-descriptor limit is raised to its hard limit if needed.

Every client socket of the games and of the lobby (HTTP and websocket) comes from a pool of
loopback addresses, 127.0.0.3 on (``--addresses N``; Linux routes the whole of 127/8 to loopback,
past 127.0.0.255 too; 127.0.0.1 stays the attacker's and 127.0.0.2 the honest probe's), game
``k`` from address ``k mod N``: by default twice as many as the server's per-address limits need
at the size asked (websockets, ``--connections-per-address``; guests, ``--signup-per-address``;
challenges posted, ``--challenges-per-address``; their defaults, or the values given by
``--serve-option``), so a run measures the server and not those caps (128 games from one address
would need 256 sockets of its 200).

``--lobby [P]`` (P people, default 1000; ``--games`` then defaults to 100): a quiet run (the
games alone) on a fresh server, then the lobby run on another, printed as one table as
``--abuse compare`` prints it. In the lobby run P people come first, before the clock starts (a
guest each, ``GET /api/session`` for the CSRF cookie then ``POST /api/guest``, and a
``/ws/lobby`` socket following the game played and a few others); then, ``--lobby-rate R``
times a second each (default 10), a free person posts a casual challenge of the game (seat
drawn), one lists the open ones (``GET /api/challenges``) and one accepts the oldest open
challenge of a free poster. A game an accept starts is played by the next free game driver on
the two people's sockets (their cookies: the seats are held by them), the others create their
games as in the quiet run, so K games are in play throughout. Reported in the notes: when a
challenge's ``created`` event reached the last open lobby, from its ``POST``'s answer
(p50/p95/max; 0 when every lobby had it before the poster had the answer: the server pushes
before it answers), from the ``POST``'s sending, and from when it reached the first lobby (the
fan-out itself); the latency of posts, accepts and lists; the share of a core the server and
this process used (which of them was the bottleneck). The lobby sockets are read in the
transport's callback by a minimal websocket client (:class:`LobbyWire`): read by the
``websockets`` client, their 20,000 frames a second at the default rate took this process's CPU
from the game drivers measured beside them (a p95 21 times the quiet run's). No server
option beyond the benchmark's own is needed: with the addresses spread, the per-address limits
are not met, and P lobby sockets plus 2K game sockets stay under ``--max-connections`` (4096;
raise it with ``--serve-option`` for more than about 3,500 people).

``--processes 1,2`` (with ``--spread``, ``--failover``, ``--idle-websockets M``): the same games on
several server processes sharing PostgreSQL and Redis, one run per count (:mod:`benchmarks.processes`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import ipaddress
import itertools
import json
import math
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from spheria.kernel.clock import TimeControl
from spheria.kernel.registry import game_names
from spheria.server.accounts import CSRF_COOKIE, CSRF_HEADER
from spheria.server.limits import Limits


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"refusing {url}: the load benchmark only targets loopback addresses")


def host_and_port(base: str) -> tuple[str, int]:
    parsed = urlparse(base)
    return parsed.hostname or "127.0.0.1", parsed.port or 80


def get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return json.load(response)


def post(base: str, path: str, data: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path, data=json.dumps(data).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, Any] = json.load(response)
        return result


class Answer(NamedTuple):
    status: int
    cookies: dict[str, str]  # the cookies it set
    body: Any


async def http(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    *,
    cookies: dict[str, str] | None = None,
    source: str | None = None,
) -> Answer:
    """One request on a connection of its own from the address ``source``, with ``cookies`` (and the
    CSRF header their CSRF cookie asks for); the answer's status, the cookies it set and its JSON."""
    host, port = host_and_port(base)
    payload = b"" if body is None else json.dumps(body).encode()
    head = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close", f"Content-Length: {len(payload)}"]
    if body is not None:
        head.append("Content-Type: application/json")
    for name, value in cookie_header(cookies or {}).items():
        head.append(f"{name}: {value}")
    if cookies and CSRF_COOKIE in cookies:
        head.append(f"{CSRF_HEADER}: {cookies[CSRF_COOKIE]}")
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local(source)), 60)
    try:
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        raw = await asyncio.wait_for(reader.read(), 60)
    finally:
        writer.close()
    header, _, content = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        raise ConnectionError(f"{method} {path}: no answer")
    set_cookies = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "set-cookie":
            key, _, text = value.strip().split(";", 1)[0].partition("=")
            set_cookies[key] = text
    return Answer(int(lines[0].split()[1]), set_cookies, json.loads(content) if content else None)


def cookie_header(cookies: dict[str, str]) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}


def local(source: str | None) -> tuple[str, int] | None:
    """The ``local_addr`` of a socket from ``source`` (any free port), or None: the system's choice."""
    return None if source is None else (source, 0)


#: Challenges posted a second in lobby mode, and as many accepts and as many lists (``--lobby-rate``).
LOBBY_RATE = 10.0

#: The clients' addresses: 127.0.0.3 on (Linux routes the whole of 127/8 to loopback); 127.0.0.1 is
#: the attacker's and 127.0.0.2 the honest probe's (:data:`HONEST_ADDRESS`), counted apart from both.
FIRST_CLIENT_ADDRESS = ipaddress.ip_address("127.0.0.3")


def client_addresses(count: int) -> list[str]:
    return [str(FIRST_CLIENT_ADDRESS + number) for number in range(count)]


def addresses_needed(games: int, people: int, lobby_rate: float, seconds: float, serve_options: list[str]) -> int:
    """Enough client addresses that no per-address limit of the server is met at this size, with room to
    spare (half of each limit): websockets (each game's two and each person's lobby socket), guests
    (one a person, within the login window) and challenges posted (within the challenge window). The
    limits are the server's defaults, or their ``--serve-option`` values."""
    given = dict(itertools.pairwise(serve_options))
    for option in serve_options:
        if "=" in option:
            key, _, value = option.partition("=")
            given[key] = value

    def limit(option: str, default: int) -> int:
        return max(1, int(given.get(option) or default))

    defaults = Limits()
    needs = [
        (2 * games + people) / limit("--connections-per-address", defaults.connections_per_address),
        people / limit("--signup-per-address", defaults.signup_per_address),
        (lobby_rate * seconds if people else 0) / limit("--challenges-per-address", defaults.challenges_per_address),
    ]
    return max(1, math.ceil(2 * max(needs)))


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.games = 0
        self.errors = 0
        self.first_game: asyncio.Future[str] | None = None
        self.notes: dict[str, Any] = {}
        self.joined = 0
        self.attacker_niceness = 0
        self.last_progress: dict[int, float] = {}
        self.longest_wait = 0.0
        self.played_seconds: float | None = None  # from when the games began (after the lobby's people came)

    def progress(self, player: int) -> None:
        """Player ``player`` (one of the K concurrent games' drivers) made progress: a game joined or a
        move answered. The longest wait between two is how long a game stalled."""
        now = time.monotonic()
        self.longest_wait = max(self.longest_wait, now - self.last_progress.get(player, now))
        self.last_progress[player] = now


async def next_state(ws: ClientConnection, version: int) -> dict[str, Any]:
    while True:
        frame = json.loads(await ws.recv())
        if frame["type"] == "error":
            raise RuntimeError(frame["message"])
        if frame["type"] == "state" and frame["version"] >= version:
            return dict(frame)


@dataclass
class Table:
    """A game ready to be played: per seat, its invite token, the cookies its player sends (none for a
    game the benchmark created) and the address its socket comes from; the people seated (lobby mode)."""

    game_id: str
    tokens: list[str]
    cookies: list[dict[str, str]]
    sources: list[str | None]
    people: list[Person] = field(default_factory=list)


#: ``--clock``: the time control every game is created with (None: untimed), as the API takes it.
TIME_CONTROL: dict[str, int] | None = None


async def new_table(base: str, game: str, options: dict[str, str], source: str | None) -> Table:
    """A game of two human seats created by ``POST /api/games`` from ``source``."""
    body: dict[str, Any] = {"game": game, "options": options, "seats": [{"kind": "human"}] * 2}
    if TIME_CONTROL is not None:
        body["clock"] = TIME_CONTROL
    created = await http(base, "POST", "/api/games", body, source=source)
    if created.status != 201:
        raise RuntimeError(f"POST /api/games answered {created.status}: {created.body}")
    tokens = [seat["invite"].split("#", 1)[1] for seat in created.body["seats"]]
    return Table(created.body["id"], tokens, [{}, {}], [source, source])


async def play_game(base: str, table: Table, stats: Stats, deadline: float, seed: int, player: int) -> None:
    rng = random.Random(seed)
    if stats.first_game is not None and not stats.first_game.done():
        stats.first_game.set_result(table.game_id)
    ws_base = base.replace("http", "ws", 1)
    url = f"{ws_base}/ws/{table.game_id}"
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(
                connect(url, open_timeout=60, additional_headers=cookie_header(cookies), local_addr=local(source))
            )
            for cookies, source in zip(table.cookies, table.sources, strict=True)
        ]
        for ws, token in zip(sockets, table.tokens, strict=True):
            await ws.send(json.dumps({"type": "join", "token": token}))
        frames = [await next_state(ws, 0) for ws in sockets]
        stats.joined += 1
        stats.progress(player)
        version = frames[0]["version"]
        while time.monotonic() < deadline:
            if frames[0]["terminal"]:
                stats.games += 1
                return
            movers = [seat for seat in (0, 1) if frames[seat]["legal_moves"]]
            if not movers:
                raise RuntimeError("no seat has a move")
            started = time.perf_counter()
            for seat in movers:
                move = rng.choice(frames[seat]["legal_moves"])
                await sockets[seat].send(json.dumps({"type": "move", "move": move, "version": version}))
            version += 1
            last = movers[-1]
            reply = await next_state(sockets[last], version)
            stats.latencies.append(time.perf_counter() - started)
            stats.progress(player)
            other = await next_state(sockets[1 - last], version)
            frames = [reply, other] if last == 0 else [other, reply]
            version = frames[0]["version"]


async def worker(
    base: str,
    game: str,
    options: dict[str, str],
    stats: Stats,
    deadline: float,
    budget: list[int],
    player: int,
    source: str | None,
    crowd: Crowd | None = None,
) -> None:
    """Play games one after another until the deadline: in lobby mode a game started by an accepted
    challenge when one waits (its two people's sockets), else one this worker creates."""
    stats.progress(player)
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        table = None
        try:
            if crowd is not None and not crowd.started.empty():
                table = crowd.started.get_nowait()
                crowd.games_played += 1
            else:
                table = await new_table(base, game, options, source)
            await play_game(base, table, stats, deadline, budget[0], player)
        except (RuntimeError, OSError, WebSocketException) as error:
            stats.errors += 1
            print(f"game failed: {error}", file=sys.stderr)
            await asyncio.sleep(0.5)  # a refused game is not retried in a tight loop
        finally:
            for person in table.people if table is not None else []:
                person.busy = False


async def run(
    base: str,
    games: int,
    seconds: float,
    game: str,
    options: dict[str, str],
    max_games: int,
    abuse: str = "none",
    attacker_niceness: int = 0,
    probe: str = "none",
    server_pid: int | None = None,
    attack_size: int | None = None,
    sources: list[str] | None = None,
    people: int = 0,
    lobby_rate: float = LOBBY_RATE,
    cpu_shares: bool = False,
) -> Stats:
    """Play the games; meanwhile the attack ``abuse`` runs in its own process, and the probe
    ``probe`` (one of :data:`PROBES`: what an attack is measured by besides the games' moves) in
    this one, both from when the games are under way until the deadline. With ``people``, that
    many people come to the lobby first (not timed), then post, list and accept challenges at
    ``lobby_rate`` each a second while the games are played. Game ``k``'s sockets come from
    ``sources[k % len(sources)]``. ``cpu_shares``: note the share of a core the server and this
    process used while the games were played (which of the two was the bottleneck)."""
    stats = Stats()
    stats.attacker_niceness = attacker_niceness
    stats.first_game = asyncio.get_running_loop().create_future()
    pool: list[str | None] = list(sources) if sources else [None]
    crowd = None
    if people:
        crowd = Crowd(base, game, options, [pool[i % len(pool)] for i in range(people)], lobby_rate)
        await crowd.arrive()
    started = time.monotonic()
    deadline = started + seconds
    cpu = (cpu_seconds(server_pid) if server_pid else 0.0, time.process_time())
    budget = [max_games]
    finished = asyncio.Event()
    attack = None
    if abuse in ATTACKS:
        attack = asyncio.create_task(attack_when_playing(abuse, base, stats, deadline, games, attack_size))
    watch = None
    if probe in PROBES:
        watch = asyncio.create_task(probe_when_playing(probe, base, stats, deadline, games, server_pid, finished))
    lobby = None if crowd is None else asyncio.create_task(crowd.meet(deadline))
    await asyncio.gather(
        *(
            worker(base, game, options, stats, deadline, budget, player, pool[player % len(pool)], crowd)
            for player in range(games)
        )
    )
    stats.played_seconds = time.monotonic() - started
    if cpu_shares:
        server_cpu = cpu_seconds(server_pid) - cpu[0] if server_pid else float("nan")
        stats.notes["server_cpu_share"] = round(server_cpu / stats.played_seconds, 2)
        stats.notes["client_cpu_share"] = round((time.process_time() - cpu[1]) / stats.played_seconds, 2)
    if attack is not None:
        await attack
    finished.set()
    if watch is not None:
        await watch
    if crowd is not None and lobby is not None:
        await lobby
        stats.notes.update(await crowd.leave())
    return stats


# -- the lobby: people posting, listing and accepting challenges while the games are played ----------

#: A lobby frame telling of a new challenge (the server's compact JSON), read without parsing the rest.
CREATED = re.compile(rb'"event":"created","challenge":\{"id":"([^"]+)"')


@dataclass(eq=False)
class Person:
    """One of the lobby's people: a guest with a session cookie and a lobby socket, from one address."""

    name: str
    source: str | None
    cookies: dict[str, str] = field(default_factory=dict)
    busy: bool = False  # seated at a game (or about to be)
    challenge: str | None = None  # their open challenge (one at a time)
    lobby: LobbyWire | None = None


def ms_spread(values: list[float]) -> str:
    """``p50/p95/max`` in milliseconds of seconds, or ``-`` for none."""
    if not values:
        return "-"
    return "/".join(f"{1000 * v:.0f}" for v in (statistics.median(values), percentile(values, 0.95), max(values)))


class LobbyWire(asyncio.Protocol):
    """A person's ``/ws/lobby`` socket, read frame by frame in the transport's callback (no task, no
    parsing beyond the challenge id of a ``created`` event): 1,000 of them must cost this process
    little, as their frames would otherwise take the CPU of the game drivers measured beside them.
    Speaks just what the lobby needs of RFC 6455: the handshake, unmasked frames from the server
    (text, ping answered by pong, close), masked text frames to it; no extension is offered."""

    def __init__(self, crowd: Crowd) -> None:
        self.crowd = crowd
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.open = False

    @classmethod
    async def connect(cls, crowd: Crowd, base: str, cookies: dict[str, str], source: str | None) -> LobbyWire:
        host, port = host_and_port(base)
        _, wire = await asyncio.get_running_loop().create_connection(
            lambda: cls(crowd), host, port, local_addr=local(source)
        )
        head = [
            "GET /ws/lobby HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
            "Sec-WebSocket-Version: 13",
            *(f"{k}: {v}" for k, v in cookie_header(cookies).items()),
        ]
        assert wire.transport is not None
        wire.transport.write(("\r\n".join(head) + "\r\n\r\n").encode())
        await asyncio.wait_for(wire.opened, 60)
        return wire

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("the lobby socket closed before it opened"))
        if self.open:
            self.open = False
            self.crowd.lobbies -= 1
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.opened.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buffer[: self.buffer.find(b"\r\n")])
            del self.buffer[: end + 4]
            if b" 101 " not in status:
                self.opened.set_exception(ConnectionError(f"lobby socket refused: {status.decode('latin-1')}"))
                return
            self.open = True
            self.crowd.lobbies += 1
            self.opened.set_result(None)
        while len(self.buffer) >= 2:
            opcode, size, start = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
            if size == 126:
                if len(self.buffer) < 4:
                    return
                size, start = int.from_bytes(self.buffer[2:4], "big"), 4
            elif size == 127:
                if len(self.buffer) < 10:
                    return
                size, start = int.from_bytes(self.buffer[2:10], "big"), 10
            if len(self.buffer) < start + size:
                return
            payload = bytes(self.buffer[start : start + size])
            del self.buffer[: start + size]
            if opcode == 0x1:
                found = CREATED.search(payload)
                if found:
                    self.crowd.reached(found[1].decode())
            elif opcode == 0x9:  # ping: answer at once (the server closes a socket that does not)
                self.frame(0xA, payload)
            elif opcode == 0x8:
                code = str(int.from_bytes(payload[:2], "big")) if len(payload) >= 2 else "none"
                if self.open:
                    self.crowd.closes[code] = self.crowd.closes.get(code, 0) + 1
                self.close()

    def frame(self, opcode: int, payload: bytes) -> None:
        """Send one frame, masked as a client's must be."""
        if self.transport is None or self.transport.is_closing():
            return
        mask = os.urandom(4)
        size = len(payload)
        head = bytes([0x80 | opcode])
        if size < 126:
            head += bytes([0x80 | size])
        elif size < 1 << 16:
            head += bytes([0x80 | 126]) + size.to_bytes(2, "big")
        else:
            head += bytes([0x80 | 127]) + size.to_bytes(8, "big")
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.transport.write(head + mask + masked)

    def send(self, text: str) -> None:
        self.frame(0x1, text.encode())

    def close(self) -> None:
        """Close the socket (a close frame, then the connection) without waiting for the server."""
        if self.open:
            self.open = False
            self.crowd.lobbies -= 1
        self.frame(0x8, (1000).to_bytes(2, "big"))
        if self.transport is not None:
            self.transport.close()


class Crowd:
    """The lobby's people: they come (a guest each, a lobby socket following the game and a few others),
    then, at ``rate`` a second each, one posts a challenge, one lists the open challenges and one accepts
    the oldest open challenge whose poster is free; the game an accept starts waits in :attr:`started`
    for the next free player (:func:`worker`), who plays it on the two people's sockets.

    Measured: for each challenge, when the ``created`` event reached the last open lobby, from the
    moment its ``POST`` was answered (0 when every lobby had it first: the server pushes it before it
    answers), from the moment the ``POST`` was sent, and from when it reached the first lobby (the
    fan-out itself); the latency of posts, accepts and lists."""

    def __init__(self, base: str, game: str, options: dict[str, str], sources: list[str | None], rate: float) -> None:
        self.base, self.game, self.options, self.rate = base, game, options, rate
        self.people = [Person(f"Person{number}", source) for number, source in enumerate(sources)]
        self.started: asyncio.Queue[Table] = asyncio.Queue()
        self.open: dict[str, Person] = {}  # open challenges, oldest first
        self.lobbies = 0  # lobby sockets open
        #: challenge: when its POST was sent and answered, and the lobby sockets open then
        self.answered: dict[str, tuple[float, float, int]] = {}
        #: challenge: [lobbies it reached, when it reached the first, when it reached the last]
        self.arrivals: dict[str, list[float]] = {}
        self.posts: list[float] = []
        self.accepts: list[float] = []
        self.lists: list[float] = []
        self.listed: list[int] = []
        self.refusals: dict[str, int] = {}
        self.closes: dict[str, int] = {}
        self.nobody_free = 0  # a post or accept skipped: everyone tried was busy
        self.nothing_open = 0  # an accept skipped: no open challenge of a free poster
        self.games_played = 0
        self.setup_seconds = 0.0
        self.actions: set[asyncio.Task[None]] = set()

    def refused(self, what: str) -> None:
        self.refusals[what] = self.refusals.get(what, 0) + 1

    async def arrive(self) -> None:
        """Every person becomes a guest and opens a lobby socket (50 at a time, as people trickle in)."""
        started = time.monotonic()
        gate = asyncio.Semaphore(50)
        games = [name for name in game_names() if name != self.game]

        async def come(person: Person, follows: list[str]) -> None:
            async with gate:
                session = await http(self.base, "GET", "/api/session", source=person.source)
                person.cookies.update(session.cookies)
                guest = await http(
                    self.base, "POST", "/api/guest", {"name": person.name}, cookies=person.cookies, source=person.source
                )
                if guest.status != 201:
                    raise RuntimeError(f"POST /api/guest answered {guest.status}: {guest.body}")
                person.cookies.update(guest.cookies)
                person.lobby = await LobbyWire.connect(self, self.base, person.cookies, person.source)
                person.lobby.send(json.dumps({"type": "follow", "games": follows}))

        rng = random.Random(0)
        await asyncio.gather(
            *(come(person, [self.game, *rng.sample(games, rng.randint(0, len(games)))]) for person in self.people)
        )
        self.setup_seconds = time.monotonic() - started

    def reached(self, challenge: str) -> None:
        """The ``created`` event of ``challenge`` reached one more lobby, now."""
        now = time.perf_counter()
        reached = self.arrivals.setdefault(challenge, [0, now, now])
        reached[0] += 1
        reached[2] = now

    def free_person(self, rng: random.Random, besides: Person | None = None) -> Person | None:
        """Someone neither at a game nor waiting on a challenge of their own (a few random tries)."""
        for _ in range(50):
            person = rng.choice(self.people)
            if not person.busy and person.challenge is None and person is not besides and person.lobby is not None:
                return person
        self.nobody_free += 1
        return None

    async def post(self, rng: random.Random) -> None:
        person = self.free_person(rng)
        if person is None:
            return
        person.challenge = ""  # posting
        body = {"game": self.game, "options": self.options, "seat": "random", "rated": False}
        sent = time.perf_counter()
        answer = await http(self.base, "POST", "/api/challenges", body, cookies=person.cookies, source=person.source)
        now = time.perf_counter()
        if answer.status != 201:
            person.challenge = None
            self.refused(f"post_{answer.status}_{(answer.body or {}).get('error', {}).get('code')}")
            return
        self.posts.append(now - sent)
        person.challenge = answer.body["id"]
        self.answered[person.challenge] = (sent, now, self.lobbies)
        self.open[person.challenge] = person

    async def accept(self, rng: random.Random) -> None:
        challenge = next((key for key, poster in self.open.items() if not poster.busy), None)
        if challenge is None:
            self.nothing_open += 1
            return
        poster = self.open[challenge]
        taker = self.free_person(rng, besides=poster)
        if taker is None:
            return
        del self.open[challenge]
        poster.challenge, poster.busy, taker.busy = None, True, True
        try:
            sent = time.perf_counter()
            path = f"/api/challenges/{challenge}/accept"
            answer = await http(self.base, "POST", path, {}, cookies=taker.cookies, source=taker.source)
            if answer.status != 200 or answer.body.get("game_id") is None:
                self.refused(f"accept_{answer.status}_{(answer.body or {}).get('error', {}).get('code')}")
                poster.busy = taker.busy = False
                return
            self.accepts.append(time.perf_counter() - sent)
            path = f"/api/challenges/{challenge}"
            mine = await http(self.base, "GET", path, cookies=poster.cookies, source=poster.source)
        except BaseException:
            poster.busy = taker.busy = False
            raise
        seats = {answer.body["seat"]: taker, mine.body["seat"]: poster}
        invites = {answer.body["seat"]: answer.body["invite"], mine.body["seat"]: mine.body["invite"]}
        order = [seats[seat] for seat in sorted(seats)]
        self.started.put_nowait(
            Table(
                answer.body["game_id"],
                [invites[seat].split("#", 1)[1] for seat in sorted(invites)],
                [person.cookies for person in order],
                [person.source for person in order],
                order,
            )
        )

    async def list(self, rng: random.Random) -> None:
        person = rng.choice(self.people)
        sent = time.perf_counter()
        answer = await http(
            self.base, "GET", f"/api/challenges?game={self.game}", cookies=person.cookies, source=person.source
        )
        if answer.status != 200:
            self.refused(f"list_{answer.status}")
            return
        self.lists.append(time.perf_counter() - sent)
        self.listed.append(len(answer.body["challenges"]))

    async def meet(self, deadline: float) -> None:
        """Post, list and accept, each ``rate`` times a second (on a clock: a slow answer delays none of
        the next ones) until the deadline; then wait for the actions under way."""
        rng = random.Random(1)
        start, tick = time.monotonic(), 0
        while (at := start + tick / self.rate) < deadline:
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            for action in (self.post, self.list, self.accept):
                task = asyncio.create_task(self.act(action, rng))
                self.actions.add(task)
                task.add_done_callback(self.actions.discard)
            tick += 1
        if self.actions:
            await asyncio.wait(list(self.actions), timeout=30)

    async def act(self, action: Any, rng: random.Random) -> None:
        try:
            await action(rng)
        except (OSError, TimeoutError, KeyError, TypeError, AttributeError) as error:
            self.refused(f"{action.__name__}_{type(error).__name__}")

    async def leave(self) -> dict[str, Any]:
        """Let the last events arrive, close the lobby sockets and say what the lobby measured."""
        await asyncio.sleep(1.0)
        unplayed = self.started.qsize()
        while not self.started.empty():  # games accepted faster than the drivers were free to play them
            for person in self.started.get_nowait().people:
                person.busy = False
        open_at_end = self.lobbies
        wires = [person.lobby for person in self.people if person.lobby is not None]
        for wire in wires:
            wire.close()
        await asyncio.wait([wire.closed for wire in wires], timeout=10)
        reached, reached_from_sent, fan_out, missed = [], [], [], 0
        for challenge, (sent, answered, lobbies) in self.answered.items():
            count, first, last = self.arrivals.get(challenge, [0, 0.0, 0.0])
            if lobbies and count >= lobbies:
                reached.append(max(0.0, last - answered))
                reached_from_sent.append(last - sent)
                fan_out.append(last - first)
            else:
                missed += 1
        return {
            "people": len(self.people),
            "lobbies_open_at_end": open_at_end,
            "arrival_s": round(self.setup_seconds, 1),
            "lobby_rate": self.rate,
            "challenges_posted": len(self.answered),
            "reached_every_lobby_ms_p50/p95/max": ms_spread(reached),
            "from_post_sent": ms_spread(reached_from_sent),
            "first_to_last_lobby": ms_spread(fan_out),
            "not_reaching_every_lobby": missed,
            "post_ms": ms_spread(self.posts),
            "accepts": len(self.accepts),
            "accept_ms": ms_spread(self.accepts),
            "lists": len(self.lists),
            "list_ms": ms_spread(self.lists),
            "listed_p50": statistics.median(self.listed) if self.listed else 0,
            "challenge_games_played": self.games_played,
            "accepted_unplayed": unplayed,
            "nobody_free": self.nobody_free,
            "nothing_open": self.nothing_open,
            "refusals": self.refusals or "none",
            "lobby_closes": self.closes or "none",
        }


# -- attacks (each runs beside the normal games until the deadline, in a process of its own) -----------


async def games_under_way(stats: Stats, games: int) -> None:
    """Return once the normal games are all joined (or after 30 s)."""
    for _ in range(300):
        if stats.joined >= games:
            break
        await asyncio.sleep(0.1)


async def attack_when_playing(
    abuse: str, base: str, stats: Stats, deadline: float, games: int, size: int | None = None
) -> None:
    """Start the attack once the normal games are under way, in another process: the attacker's
    own work (handshakes, reading frames) must not slow the measured clients."""
    await games_under_way(stats, games)
    stats.notes["games_joined_before_attack"] = stats.joined
    if stats.attacker_niceness:
        stats.notes["attacker_niceness"] = stats.attacker_niceness
    assert stats.first_game is not None
    target = await stats.first_game
    seconds = max(0.0, deadline - time.monotonic())
    command = [sys.executable, "-m", "benchmarks.load", "--attack", abuse, "--url", base, f"--target={target}"]
    command.append(f"--attacker-niceness={stats.attacker_niceness}")
    if size is not None:
        command.append(f"--attack-size={size}")
    attacker = await asyncio.create_subprocess_exec(
        *command, "--seconds", f"{seconds:.2f}", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await attacker.communicate()
    stats.notes.update(json.loads(out or b"{}"))


def attack(
    kind: str, base: str, target: str, seconds: float, niceness: int = 0, size: int | None = None
) -> dict[str, Any]:
    """Run one attack for ``seconds`` (the ``--attack`` process); returns what it saw.

    ``niceness`` lowers the attacker's CPU priority, so that it stands in for a machine of its own
    and its work on shared cores does not count as the server's (it then delivers less of its
    attack on a busy machine: see its notes)."""
    with contextlib.suppress(OSError):
        os.nice(niceness)
    deadline = time.monotonic() + seconds
    return asyncio.run(ATTACKS[kind](base, target, deadline, ATTACK_SIZES[kind] if size is None else size))


AGENT_MAX_TIME = 10.0


async def runaway_agents(base: str, target: str, deadline: float, count: int = 2) -> dict[str, Any]:
    refused = 0
    for spec in ("mcts:time=nan", f"mcts:iterations={10**12}"):
        body = {"game": "spline", "seats": [{"kind": "agent", "agent": spec}] * 2}
        try:
            await asyncio.to_thread(post, base, "/api/games", body)
        except urllib.error.HTTPError as error:
            refused += error.code == 400
    busiest = f"mcts:time={AGENT_MAX_TIME:g}"
    for _ in range(count):
        body = {"game": "spline", "seats": [{"kind": "agent", "agent": busiest}] * 2}
        await asyncio.to_thread(post, base, "/api/games", body)
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    return {"runaway_specs_refused": refused, "max_budget_agent_games": count}


async def spectator_storm(base: str, target: str, deadline: float, count: int = 1000) -> dict[str, Any]:
    """``count`` spectators join ``target`` at once; when it ends they all move to another game in
    play (found in the public list of games, as anyone can), so a game in play is watched by
    ``count`` spectators for the whole run."""
    ws_base = base.replace("http", "ws", 1)
    games = [target]  # the games watched, the current one last
    moved = asyncio.Condition()
    frames, joins = [0], [0]

    async def next_game(finished: str) -> None:
        async with moved:
            if games[-1] != finished:
                return  # another spectator already found the next one
            while time.monotonic() < deadline:
                listed = (await asyncio.to_thread(get, base, "/api/games?status=active"))["games"]
                fresh = sorted((g.get("plies", 0), g["id"]) for g in listed if g["id"] not in games)
                if fresh:  # the game with the most of its play ahead
                    games.append(fresh[0][1])
                    moved.notify_all()
                    return
                await asyncio.sleep(0.2)

    async def spectate() -> None:
        while time.monotonic() < deadline:
            game_id = games[-1]
            try:
                async with connect(f"{ws_base}/ws/{game_id}", open_timeout=60) as ws:
                    await ws.send(json.dumps({"type": "join"}))
                    joins[0] += 1
                    while time.monotonic() < deadline:
                        frame = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
                        frames[0] += 1
                        if frame.get("type") == "state" and frame.get("terminal"):
                            break
            except Exception:  # refused by a limit, closed as too slow, or the run's end
                await asyncio.sleep(0.5)
            await next_game(game_id)

    await asyncio.gather(*(spectate() for _ in range(count)))
    return {"spectator_joins": joins[0], "games_watched": len(games), "spectator_frames": frames[0]}


async def idle_sockets(base: str, target: str, deadline: float, count: int = 10_000) -> dict[str, Any]:
    host, port = host_and_port(base)
    opened = [0]

    async def hold() -> None:
        while time.monotonic() < deadline:
            try:
                reader, writer = await asyncio.open_connection(host, port)
            except OSError:
                await asyncio.sleep(0.5)
                continue
            opened[0] += 1
            with contextlib.suppress(Exception):  # wait until the server closes it, or the end
                await asyncio.wait_for(reader.read(1), max(0.1, deadline - time.monotonic()))
            writer.close()

    await asyncio.gather(*(hold() for _ in range(count)))
    return {"idle_connections_opened": opened[0]}


#: The loopback address the honest clients of ``analysis`` and ``halfopen`` come from, so that the
#: server counts them apart from the attacker's (127.0.0.1; Linux routes all of 127/8 to loopback).
HONEST_ADDRESS = "127.0.0.2"


async def hint_flood(base: str, target: str, deadline: float, count: int = 50) -> dict[str, Any]:
    """``count`` websockets, each the human seat of a game against a ``random`` agent (half of
    the games created with hints, half without), send ``{"type": "hint"}`` frames as fast as the
    server takes them (the benchmark's server has no frame-rate limit) and read every answer; a
    connection the server closes is opened again and joined."""
    ws_base = base.replace("http", "ws", 1)
    seats = [{"kind": "human"}, {"kind": "agent", "agent": "random"}]
    games = []
    for number in range(count):
        body = {"game": "spline", "seats": seats, "hints": number % 2 == 0}
        games.append(await asyncio.to_thread(post, base, "/api/games", body))
    sent, reconnects = [0], [0]
    answers: dict[str, int] = {}
    closes: dict[str, int] = {}

    async def read(ws: ClientConnection) -> None:
        with contextlib.suppress(WebSocketException):
            async for text in ws:
                frame = json.loads(text)
                kind = str(frame["code"] if frame.get("type") == "error" else frame.get("type"))
                answers[kind] = answers.get(kind, 0) + 1

    async def flood(created: dict[str, Any]) -> None:
        join = {"type": "join", "token": created["seats"][0]["invite"].split("#", 1)[1]}
        while time.monotonic() < deadline:
            try:
                async with connect(f"{ws_base}/ws/{created['id']}", open_timeout=60, close_timeout=0.5) as ws:
                    await ws.send(json.dumps(join))
                    frame = json.loads(await ws.recv())
                    if frame["type"] == "claimed":  # the invite is spent: a new connection joins by credential
                        join = {"type": "join", "credential": frame["credential"]}
                        frame = json.loads(await ws.recv())
                    if frame["type"] != "welcome":  # the seat is still held by the connection closed before
                        await asyncio.sleep(0.2)
                        continue
                    reader = asyncio.create_task(read(ws))
                    while time.monotonic() < deadline and not reader.done():
                        await ws.send('{"type":"hint"}')  # waits while the server's buffer is full
                        sent[0] += 1
                        await asyncio.sleep(0)  # let the reader drain the answers
                    reader.cancel()
            except ConnectionClosed as closed:  # the server's code: 1013 for a client too slow to read
                code = str(closed.rcvd.code if closed.rcvd else "none")
                closes[code] = closes.get(code, 0) + 1
            except (OSError, WebSocketException):
                await asyncio.sleep(0.1)
            finally:
                reconnects[0] += 1

    await asyncio.gather(*(flood(created) for created in games))
    answers = dict(sorted(answers.items(), key=lambda item: -item[1]))
    return {
        "hint_sockets": count,
        "hint_frames_sent": sent[0],
        "answers": answers,
        "connections": reconnects[0],
        "closed": closes,
    }


#: What the analysis attacker asks for: an estimate (no exact answer, so never cached) that
#: takes its whole time, at the longest time the server allows (``AnalysisLimits.max_time``).
HEAVY_ANALYSIS = {"type": "analyse", "game": "spinca", "time": 30}


async def analysis_flood(base: str, target: str, deadline: float, count: int = 20) -> dict[str, Any]:
    """One address opens ``count`` ``/ws/analysis`` sockets and keeps asking for two heavy jobs on
    each: a job refused (``busy``: the address's share is held) is asked again half a second
    later, a job answered at once; a request the frame limit drops unanswered is asked again."""
    ws_base = base.replace("http", "ws", 1)
    codes: dict[str, int] = {}
    asked, answered = [0], [0]

    async def hold(ws: ClientConnection, slot: int, replies: dict[int, asyncio.Queue[dict[str, Any]]]) -> None:
        number = slot
        while time.monotonic() < deadline:
            number += 2
            queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            replies[number] = queue
            await ws.send(json.dumps({**HEAVY_ANALYSIS, "id": number}))
            asked[0] += 1
            running = False
            while True:
                try:
                    frame = await asyncio.wait_for(queue.get(), None if running else 2.0)
                except TimeoutError:  # dropped by the frame limit (its error names no request)
                    break
                if frame["type"] == "progress":
                    running = True
                    continue
                code = str(frame.get("code") or frame["type"])
                codes[code] = codes.get(code, 0) + 1
                answered[0] += frame["type"] == "analysis"
                if frame["type"] == "error":
                    await asyncio.sleep(0.5)
                break
            del replies[number]

    async def socket_of_jobs() -> None:
        while time.monotonic() < deadline:
            try:
                async with connect(f"{ws_base}/ws/analysis", open_timeout=60, close_timeout=0.5) as ws:
                    replies: dict[int, asyncio.Queue[dict[str, Any]]] = {}
                    slots = [asyncio.create_task(hold(ws, slot, replies)) for slot in (0, 1)]
                    async for text in ws:
                        frame = json.loads(text)
                        if frame.get("id") in replies:
                            replies[frame["id"]].put_nowait(frame)
                        elif frame.get("code"):
                            codes[frame["code"]] = codes.get(frame["code"], 0) + 1
                        if all(slot.done() for slot in slots):
                            break
            except (OSError, WebSocketException):
                await asyncio.sleep(0.5)

    tasks = [asyncio.create_task(socket_of_jobs()) for _ in range(count)]
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "analysis_sockets": count,
        "heavy_jobs_asked": asked[0],
        "heavy_jobs_answered": answered[0],
        "analysis_replies": codes,
    }


async def half_open_requests(base: str, target: str, deadline: float, count: int = 5000) -> dict[str, Any]:
    """``count`` connections from one address each begin a request's headers and never end them
    (slowloris without the trickle: the header timeout runs from the first byte); one the server
    closes is opened again at once."""
    host, port = host_and_port(base)
    opened, closed = [0], [0]
    start = f"GET /api/catalog HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: half-open\r\n".encode()

    async def hold() -> None:
        while time.monotonic() < deadline:
            try:
                reader, writer = await asyncio.open_connection(host, port)
                writer.write(start)
            except OSError:
                await asyncio.sleep(0.5)
                continue
            opened[0] += 1
            with contextlib.suppress(Exception):  # wait until the server closes it, or the end
                await asyncio.wait_for(reader.read(1), max(0.1, deadline - time.monotonic()))
                closed[0] += 1
            writer.close()

    await asyncio.gather(*(hold() for _ in range(count)))
    return {"half_open_requests_opened": opened[0], "closed_by_server": closed[0]}


ATTACKS = {
    "agents": runaway_agents,
    "spectators": spectator_storm,
    "sockets": idle_sockets,
    "hints": hint_flood,
    "analysis": analysis_flood,
    "halfopen": half_open_requests,
}
#: Each attack's size unless ``--attack-size`` says otherwise: games at the largest agent budget,
#: spectators, idle sockets, hint sockets, analysis sockets (two jobs each), half-open requests.
ATTACK_SIZES = {"agents": 2, "spectators": 1000, "sockets": 10_000, "hints": 50, "analysis": 20, "halfopen": 5000}


# -- probes (what an attack is measured by besides the moves; in the quiet run beside it too) -----------


async def probe_when_playing(
    probe: str, base: str, stats: Stats, deadline: float, games: int, server_pid: int | None, finished: asyncio.Event
) -> None:
    await games_under_way(stats, games)
    stats.notes.update(await PROBES[probe](base, deadline, server_pid, finished))


def resident_mb(pid: int) -> float | None:
    """The process's resident memory (``VmRSS`` in /proc/<pid>/status), in MB; None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """The CPU time the process has used (user and system, /proc/<pid>/stat), in seconds; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


async def server_memory(base: str, deadline: float, pid: int | None, finished: asyncio.Event) -> dict[str, Any]:
    """The server process's resident memory when the games are under way, its peak (sampled every
    0.1 s) until the run's end, and a second after the run (games and attacker gone); and the
    share of one core the server used meanwhile (whether a stall is the server's own work)."""
    if pid is None:
        return {"server_rss": "unknown (a server given by --url)"}
    before, cpu, started = resident_mb(pid) or 0.0, cpu_seconds(pid), time.monotonic()
    peak = before
    while not finished.is_set():
        peak = max(peak, resident_mb(pid) or 0.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(finished.wait(), 0.1)
    busy = (cpu_seconds(pid) - cpu) / max(0.1, time.monotonic() - started)
    await asyncio.sleep(1.0)
    after = resident_mb(pid) or 0.0
    return {
        "server_rss_mb_before": round(before, 1),
        "peak": round(max(peak, after), 1),
        "after": round(after, 1),
        "server_cpu_share": round(busy, 2),
    }


def spread(values: list[float]) -> str:
    """``p50/max`` of seconds, or ``-`` for none."""
    if not values:
        return "-"
    return f"{statistics.median(values):.2f}/{max(values):.2f}"


async def honest_analysis(base: str, deadline: float, pid: int | None, finished: asyncio.Event) -> dict[str, Any]:
    """A client from another address (:data:`HONEST_ADDRESS`) asks for one analysis at a time (a
    one-second look at the start of Spline) and times each: to its job's first frame (its job
    began) and to the answer; refusals are counted by code."""
    ws_base = base.replace("http", "ws", 1)
    begun: list[float] = []
    answered: list[float] = []
    codes: dict[str, int] = {}
    asked = 0
    waiting = 0.0
    try:
        async with connect(f"{ws_base}/ws/analysis", open_timeout=60, local_addr=(HONEST_ADDRESS, 0)) as ws:
            while time.monotonic() < deadline:
                asked += 1
                started = time.perf_counter()
                await ws.send(json.dumps({"type": "analyse", "id": asked, "game": "spline", "time": 1}))
                first = True
                while True:
                    left = deadline - time.monotonic()
                    try:
                        frame = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, left)))
                    except TimeoutError:
                        waiting = time.perf_counter() - started  # unanswered at the run's end
                        break
                    if frame.get("id") != asked:
                        continue
                    if first and frame["type"] in ("progress", "analysis"):
                        begun.append(time.perf_counter() - started)
                        first = False
                    if frame["type"] == "analysis":
                        answered.append(time.perf_counter() - started)
                        break
                    if frame["type"] == "error":
                        codes[frame["code"]] = codes.get(frame["code"], 0) + 1
                        await asyncio.sleep(0.5)
                        break
    except (OSError, WebSocketException) as error:
        codes[type(error).__name__] = codes.get(type(error).__name__, 0) + 1
    return {
        "honest_analyses_asked": asked,
        "answered": len(answered),
        "first_frame_s_p50/max": spread(begun),
        "answer_s_p50/max": spread(answered),
        "server_busy": codes.pop("server_busy", 0),
        "other_refusals": codes or "none",
        "unanswered_at_end_s": round(waiting, 2),
    }


async def honest_get(host: str, port: int, path: str) -> tuple[str, float]:
    """One GET from :data:`HONEST_ADDRESS` on a connection of its own: its status (or the error
    that ended it) and the seconds to the end of the response."""
    started = time.perf_counter()
    try:
        connecting = asyncio.open_connection(host, port, local_addr=(HONEST_ADDRESS, 0))
        reader, writer = await asyncio.wait_for(connecting, 30)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        status = await asyncio.wait_for(reader.readline(), 30)
        await asyncio.wait_for(reader.read(), 30)
        writer.close()
        code = status.split()[1].decode() if status.startswith(b"HTTP/") else "no_status"
    except (OSError, TimeoutError) as error:
        code = type(error).__name__
    return code, time.perf_counter() - started


async def honest_requests(base: str, deadline: float, pid: int | None, finished: asyncio.Event) -> dict[str, Any]:
    """A client from another address (:data:`HONEST_ADDRESS`) GETs ``/api/catalog`` ten times a
    second, each on a new connection: the statuses and the latency to the whole response."""
    host, port = host_and_port(base)
    codes: dict[str, int] = {}
    latencies: list[float] = []
    while time.monotonic() < deadline:
        code, seconds = await honest_get(host, port, "/api/catalog")
        codes[code] = codes.get(code, 0) + 1
        latencies.append(seconds)
        await asyncio.sleep(0.1)
    return {
        "honest_gets": len(latencies),
        "statuses": codes,
        "get_ms_p50": round(1000 * statistics.median(latencies), 1) if latencies else None,
        "p95": round(1000 * percentile(latencies, 0.95), 1) if latencies else None,
        "max": round(1000 * max(latencies), 1) if latencies else None,
    }


PROBES = {"hints": server_memory, "analysis": honest_analysis, "halfopen": honest_requests}


def raise_file_limit(wanted: int) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="concurrent games (default 8; 100 with --lobby)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to play (default 20)")
    parser.add_argument("--game", default="spline", help="the game (default spline)")
    parser.add_argument("--option", action="append", default=[], metavar="K=V", help="a game option (repeatable)")
    parser.add_argument("--max-games", type=int, default=10_000, help="stop after this many games (default 10000)")
    parser.add_argument("--clock", metavar="CONTROL", help="play every game on this clock, e.g. 10+5 (default untimed)")
    parser.add_argument("--url", help="a running server on loopback (default: start one)")
    parser.add_argument(
        "--serve-option", action="append", default=[], metavar="OPT", help="an option for the server (repeatable)"
    )
    parser.add_argument(
        "--abuse", choices=["none", *ATTACKS, "compare"], default="none", help="attack the server meanwhile"
    )
    parser.add_argument(
        "--kinds",
        type=attack_kinds,
        default=list(ATTACKS),
        metavar="K,K",
        help=f"the attacks --abuse compare runs, in order (default: all, {','.join(ATTACKS)})",
    )
    parser.add_argument(
        "--attack-size",
        type=int,
        metavar="N",
        help="the attack's size instead of its own (a quick try: see ATTACK_SIZES)",
    )
    parser.add_argument(
        "--lobby",
        type=int,
        nargs="?",
        const=1000,
        default=0,
        metavar="P",
        help="P people in the lobby meanwhile, after a quiet run (default 1000)",
    )
    parser.add_argument(
        "--lobby-rate",
        type=float,
        default=LOBBY_RATE,
        metavar="R",
        help=f"challenges posted a second, and as many accepts and lists (default {LOBBY_RATE:g})",
    )
    parser.add_argument(
        "--addresses",
        type=int,
        metavar="N",
        help="client addresses 127.0.0.3 on (default: enough for no per-address limit of the server)",
    )
    parser.add_argument(
        "--processes",
        metavar="N,N",
        help="several server processes on PostgreSQL and Redis, one run per count (benchmarks/processes.py)",
    )
    parser.add_argument(
        "--spread",
        choices=("random", "game"),
        default="random",
        help="with --processes: each socket to any process, or a game's to the process that made it",
    )
    parser.add_argument("--failover", action="store_true", help="with --processes: kill -9 one process halfway")
    parser.add_argument(
        "--idle-websockets", type=int, default=0, metavar="M", help="with --processes: M idle lobby sockets meanwhile"
    )
    parser.add_argument("--attack", choices=list(ATTACKS), help=argparse.SUPPRESS)  # the attacker's process
    parser.add_argument("--target", default="", help=argparse.SUPPRESS)  # the game the attacker aims at
    parser.add_argument(
        "--attacker-niceness", type=int, default=0, help="the attacker's lower CPU priority, 0-19 (default 0)"
    )
    args = parser.parse_args(argv)
    options = dict(pair.split("=", 1) for pair in args.option)
    global TIME_CONTROL  # one setting for every game the run creates
    TIME_CONTROL = None if args.clock is None else TimeControl.parse(args.clock).to_json()
    if args.games is None:
        args.games = 100 if args.lobby else 8
    if args.addresses is None:
        people = args.lobby + (args.idle_websockets if args.processes else 0)
        args.addresses = addresses_needed(args.games, people, args.lobby_rate, args.seconds, args.serve_option)
    raise_file_limit(25_000)
    if args.processes:
        from benchmarks import processes

        return processes.run(args)
    if args.attack:
        check_loopback(args.url or "")
        seen = attack(
            args.attack, args.url.rstrip("/"), args.target, args.seconds, args.attacker_niceness, args.attack_size
        )
        print(json.dumps(seen))
        return 0
    if args.lobby:
        print_comparison([measure(args, options, "none"), measure(args, options, "lobby")])
        return 0
    if args.abuse == "compare":
        print_comparison([measure(args, options, abuse, kind) for kind in args.kinds for abuse in ("none", kind)])
        return 0
    report = measure(args, options, args.abuse, args.abuse)
    print(json.dumps(report, indent=2))
    return 0 if report["errors"] == 0 else 1


def attack_kinds(text: str) -> list[str]:
    """``--kinds``: attack names separated by commas."""
    kinds = [kind.strip() for kind in text.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in ATTACKS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(
            f"unknown attack {unknown[0] if unknown else text!r} (attacks: {', '.join(ATTACKS)})"
        )
    return kinds


def note_text(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}:{v}" for k, v in value.items()) or "none"
    return str(value)


def print_comparison(rows: list[dict[str, Any]]) -> None:
    """A markdown table: each attack after the quiet run measured just before it, with the ratio of p95s."""
    columns = ["run", "moves/s", "p50 ms", "p95 ms", "p95 / quiet", "max ms", "longest wait ms", "games", "errors"]
    print("| " + " | ".join([*columns, "load", "notes"]) + " |")
    print("|" + " --- |" * (len(columns) + 2))
    quiet: dict[str, Any] | None = None
    for row in rows:
        quiet = row if row["abuse"] == "none" else quiet
        ratio = "" if row is quiet or quiet is None else f"{row['latency_ms_p95'] / quiet['latency_ms_p95']:.2f}"
        keys = ("moves_per_second", "latency_ms_p50", "latency_ms_p95")
        cells = [*(str(row[k]) for k in keys), ratio, str(row["latency_ms_max"]), str(row["longest_wait_ms"])]
        cells += [str(row["games_finished"]), str(row["errors"]), str(row["load_average"][0])]
        notes = ", ".join(f"{k} {note_text(v)}" for k, v in row["notes"].items())
        print(f"| {row['abuse']} | " + " | ".join(cells) + f" | {notes} |", flush=True)


def measure(args: argparse.Namespace, options: dict[str, str], abuse: str, probe: str = "none") -> dict[str, Any]:
    """One run on a fresh server (unless ``--url``): the games, the attack ``abuse`` and the probe ``probe``."""
    server: subprocess.Popen[bytes] | None = None
    folder = tempfile.TemporaryDirectory()
    if args.url:
        check_loopback(args.url)
        base = args.url.rstrip("/")
    else:
        port = free_port()
        db = Path(folder.name) / "load.sqlite3"
        command = [
            sys.executable,
            "-m",
            "spheria.server",
            "--port",
            str(port),
            "--db",
            str(db),
            "--agent-delay",
            "0",
            "--frame-rate",
            "0",
            "--agent-max-time",
            f"{AGENT_MAX_TIME:g}",
            "--create-per-minute",  # one client plays every game here: the per-address limit is lifted
            "1000000",
            "--create-burst",
            "1000",
        ]
        if abuse == "spectators":
            command += ["--spectators-per-game", "1000", "--connections-per-address", "1100"]
        server = subprocess.Popen([*command, *args.serve_option], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(base + "/api/catalog", timeout=1)
                break
            time.sleep(0.1)
    try:
        started = time.monotonic()
        pid = server.pid if server is not None else None
        played = run(
            base, args.games, args.seconds, args.game, options, args.max_games, abuse, args.attacker_niceness,
            probe, pid, args.attack_size, client_addresses(args.addresses), args.lobby if abuse == "lobby" else 0,
            args.lobby_rate, bool(args.lobby),
        )  # fmt: skip
        stats = asyncio.run(played)
        elapsed = stats.played_seconds or time.monotonic() - started
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        folder.cleanup()
    moves = len(stats.latencies)
    return {
        "abuse": abuse,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "notes": {**stats.notes, "addresses": args.addresses},
        "game": args.game,
        "options": options,
        "concurrent_games": args.games,
        "seconds": round(elapsed, 2),
        "games_finished": stats.games,
        "moves": moves,
        "moves_per_second": round(moves / elapsed, 1) if elapsed else 0.0,
        "latency_ms_p50": round(1000 * statistics.median(stats.latencies), 2) if moves else None,
        "latency_ms_p95": round(1000 * percentile(stats.latencies, 0.95), 2) if moves else None,
        "latency_ms_max": round(1000 * max(stats.latencies), 2) if moves else None,
        "longest_wait_ms": round(1000 * stats.longest_wait),
        "errors": stats.errors,
    }


if __name__ == "__main__":
    raise SystemExit(main())
