"""Several server processes, one service: who owns each live game, and how a request reaches it.

Every live game is owned by one process at a time, and everything about it runs there unchanged
(the same :class:`~spheria.server.connection.GameSocket` and endpoints). Other processes only relay.

* :class:`LocalCluster` (the embedded default, no ``--redis``): every game is this process's;
  nothing is asked of anyone — today's one-process server exactly.
* :class:`RedisCluster` (``--redis redis://…``): a random process id and a heartbeat key with an
  expiry; a **lease** per live game (``SET spheria:lease:game:<id> <proc> NX PX <ttl>``), renewed
  every ttl/3 while the game is held (compare-and-extend), released when it leaves memory
  (compare-and-delete); the lobby's challenges are one more lease (``spheria:lease:lobby``; its
  sockets are served anywhere: :mod:`spheria.server.lobby_bus`). A request or websocket for a game
  (or a challenge request) owned elsewhere goes through the **tunnel**
  (:mod:`spheria.server.tunnel`) to its owner.

:class:`Router` is the ASGI middleware that decides, inside the Guard: local, tunnelled, or refused
with ``cluster_unavailable`` when Redis cannot be reached for something this process does not own.
No Redis key or channel is ever built from client text: a game id becomes part of a key only when it
has the exact form of the server's own ids (:func:`game_key`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

from spheria.server import redis_client
from spheria.server.ownership import (
    LOBBY,
    PREFIX,
    Cluster,
    ClusterUnavailable,
    LocalCluster,
    game_key,
    lease_of,
)
from spheria.server.tunnel import TUNNELLED, Tunnel, refuse_unavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from spheria.server.session import SessionManager

log = logging.getLogger("spheria.server.cluster")

#: Connections the cluster's client keeps at most (leases, heartbeats, the tunnel's publishes).
CONNECTIONS = 64
#: Milliseconds a lease lasts unless renewed (renewed every third of it).
LEASE_MS = 5000
# KEYS[1] the lease, ARGV[1] this process, ARGV[2] milliseconds: keep (or take again) a lease this
# process holds; 0 when another process holds it now.
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""
# Delete the lease only if this process holds it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisCluster(Cluster):
    """Leases and a tunnel over Redis (``redis.asyncio``); see the module's doc."""

    def __init__(self, url: str, manager: SessionManager, lease_ms: int = LEASE_MS) -> None:
        self.url = url
        self.lease_ms = lease_ms
        self.me = secrets.token_hex(8)
        self.redis: Redis = redis_client.connect(url, connections=CONNECTIONS, read_timeout=2.0)
        #: Leases this process holds, with when each was taken (monotonic seconds).
        self.held: dict[str, float] = {}
        self.manager = manager
        self.tunnel: Tunnel | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.available = True
        self.beaten = False  # the heartbeat was set once (a heartbeat gone since: Redis lost its keys)
        #: No new lease before this (monotonic seconds): Redis came back, owners renew theirs first.
        self.settling_until = 0.0
        #: Orphans looked at that needed nothing (no agent to move, no clock): not loaded again soon.
        self.quiet: dict[str, float] = {}
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)

    def key(self, name: str) -> str:
        return f"{PREFIX}lease:{name}"

    def alive_key(self, process: str) -> str:
        return f"{PREFIX}alive:{process}"

    # -- health -------------------------------------------------------------------------------
    def went_down(self, error: Exception) -> None:
        if self.available:
            log.warning("Redis is unreachable (%s): serving only the games this process owns", error)
        self.available = False

    def came_back(self, lost_keys: bool) -> None:
        """Redis answered; when it was away (or lost its keys: restarted), no new lease is taken for
        one lease time, so that every owner puts its leases back first (no game gets two owners)."""
        if not self.available or lost_keys:
            log.warning("Redis is back: routing again once the owners have renewed their leases")
            self.settling_until = time.monotonic() + self.lease_ms / 1000
        self.available = True

    async def is_alive(self, process: str) -> bool:
        """Whether ``process`` still beats (an unreachable Redis says yes: nothing is known)."""
        from redis.exceptions import RedisError

        try:
            return bool(await self.redis.exists(self.alive_key(process)))
        except RedisError:
            return True

    # -- leases -------------------------------------------------------------------------------
    def holds(self, key: str) -> bool:
        return key in self.held

    async def take(self, key: str) -> bool:
        from redis.exceptions import RedisError

        if key in self.held:
            return True
        if not self.available:
            await self._beat()
        if not self.available or time.monotonic() < self.settling_until:
            raise ClusterUnavailable
        try:
            taken = await self.redis.set(self.key(key), self.me, nx=True, px=self.lease_ms)
            if not taken:
                taken = (await self.redis.get(self.key(key))) == self.me.encode()
        except RedisError as error:
            self.went_down(error)
            raise ClusterUnavailable from error
        if taken:
            self.held[key] = time.monotonic()
        return bool(taken)

    def release(self, key: str) -> None:
        if self.held.pop(key, None) is not None and key != LOBBY:
            task = asyncio.get_running_loop().create_task(self._let_go(key))
            self.tasks.append(task)
            task.add_done_callback(self.tasks.remove)

    async def _let_go(self, key: str) -> None:
        from redis.exceptions import RedisError

        with contextlib.suppress(RedisError):
            await self._release(keys=[self.key(key)], args=[self.me])

    async def owner(self, key: str) -> str | None:
        from redis.exceptions import RedisError

        if key in self.held:
            return None  # owned: served here even while Redis is down
        for _attempt in range(3):
            if await self.take(key):
                return None
            try:
                holder = await self.redis.get(self.key(key))
            except RedisError as error:
                self.went_down(error)
                raise ClusterUnavailable from error
            if holder is not None:
                process = holder.decode() if isinstance(holder, bytes) else str(holder)
                if not await self.is_alive(process):
                    raise ClusterUnavailable  # its owner died: the lease lapses in a moment, then taken
                return process
        raise ClusterUnavailable

    async def relay(self, owner: str, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.tunnel is not None
        await self.tunnel.relay(owner, scope, receive, send)

    # -- the loops ----------------------------------------------------------------------------
    async def start(self, app: ASGIApp) -> None:
        self.tunnel = Tunnel(self, app)
        await self.tunnel.start()
        await self._beat()
        self.tasks.append(asyncio.create_task(self._keep(), name="cluster-leases"))
        self.tasks.append(asyncio.create_task(self._adopt_orphans(), name="cluster-orphans"))

    async def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        if self.tunnel is not None:
            await self.tunnel.stop()
        with contextlib.suppress(Exception):
            for key in list(self.held):
                await self._release(keys=[self.key(key)], args=[self.me])
            await self.redis.delete(self.alive_key(self.me))
        self.held.clear()
        await self.redis.aclose()

    async def _beat(self) -> None:
        from redis.exceptions import RedisError

        try:
            before = await self.redis.set(self.alive_key(self.me), "1", px=self.lease_ms, get=True)
        except RedisError as error:
            self.went_down(error)
            return
        self.came_back(lost_keys=before is None and self.beaten)
        self.beaten = True

    async def _keep(self) -> None:
        """Beat, renew the leases held and let go of those whose game left memory (every ttl/3)."""
        from redis.exceptions import RedisError

        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            await self._beat()
            now = time.monotonic()
            renewing: list[str] = []
            for key, since in list(self.held.items()):
                game_id = key.removeprefix("game:")
                if key != LOBBY and game_id not in self.manager.sessions and now - since > self.lease_ms / 1000:
                    self.release(key)  # taken for a request that left nothing live here
                else:
                    renewing.append(key)
            try:  # one round trip for every lease held, not one a game
                async with self.redis.pipeline(transaction=False) as pipe:
                    for key in renewing:
                        await self._renew(keys=[self.key(key)], args=[self.me, self.lease_ms], client=pipe)
                    kept_all = await pipe.execute()
            except RedisError as error:
                self.went_down(error)
                continue  # keep serving: nobody can take a lease while Redis is down
            for key, kept in zip(renewing, kept_all, strict=True):
                if not kept and self.held.pop(key, None) is not None:
                    log.warning("lost the lease %s to another process: its session is dropped", key)
                    if key != LOBBY:
                        self.manager.drop(key.removeprefix("game:"))

    async def _adopt_orphans(self) -> None:
        """Every lease ttl: take the active games nobody holds that need acting (an agent to move, a
        clock running), so they go on with nobody connected after their owner died."""
        manager = self.manager
        while True:
            await asyncio.sleep(self.lease_ms / 1000)
            now = time.monotonic()
            self.quiet = {game_id: until for game_id, until in self.quiet.items() if until > now}
            try:
                active = await manager.db(manager.storage.active_game_ids)
                for game_id in await self._unleased(active):
                    if game_id not in manager.sessions and self.quiet.get(game_id, 0.0) <= time.monotonic():
                        await self.adopt(game_id)
            except ClusterUnavailable:
                continue
            except Exception:
                log.warning("could not adopt orphaned games", exc_info=True)

    async def _unleased(self, game_ids: list[str]) -> list[str]:
        """Those of ``game_ids`` whose lease nobody holds, read in batches (one ``MGET`` a thousand),
        so that only they are tried: not a ``SET NX`` for every active game every lease time."""
        from redis.exceptions import RedisError

        games = [(game_id, key) for game_id in game_ids if (key := game_key(game_id)) is not None]
        free: list[str] = []
        for start in range(0, len(games), 1000):
            batch = games[start : start + 1000]
            try:
                holders = await self.redis.mget([self.key(key) for _, key in batch])
            except RedisError as error:
                self.went_down(error)
                raise ClusterUnavailable from error
            free += [game_id for (game_id, _), holder in zip(batch, holders, strict=True) if holder is None]
        return free

    async def adopt(self, game_id: str) -> None:
        """Load ``game_id`` if its lease is free and it needs acting; else let it go again."""
        key = game_key(game_id)
        if key is None or key in self.held or not await self.take(key):
            return  # held here already, or another process's: not even read from storage
        session = await self.manager.adopt(game_id)
        if session is None:
            return
        clock = self.manager.clocks.games.get(game_id) if self.manager.clocks is not None else None
        running = clock is not None and clock.deadline() is not None
        if not session.clients and not running and not session.agent_seats_to_act():
            self.quiet[game_id] = time.monotonic() + 60.0
            self.manager.evict(session)


def make_cluster(redis: str | None, manager: SessionManager) -> Cluster:
    """The cluster of ``--redis URL`` for ``manager``'s games (None: the embedded one-process server)."""
    return LocalCluster() if redis is None else RedisCluster(redis, manager)


class Router:
    """ASGI middleware (inside the Guard): a request for a game or a challenge is served here when this
    process owns it (or takes its lease now), else relayed to the owner; refused with
    ``cluster_unavailable`` (503) when Redis is needed and cannot be reached."""

    def __init__(self, app: ASGIApp, cluster: Cluster) -> None:
        self.app = app
        self.cluster = cluster

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        local = isinstance(self.cluster, LocalCluster) or scope.get(TUNNELLED, False)
        if scope["type"] not in ("http", "websocket") or local:
            await self.app(scope, receive, send)
            return
        key = lease_of(scope["path"])
        if key is None:
            await self.app(scope, receive, send)
            return
        try:
            owner = await self.cluster.owner(key)
        except ClusterUnavailable:
            await refuse_unavailable(scope, send)
            return
        if owner is None:
            await self.app(scope, receive, send)
        else:
            await self.cluster.relay(owner, scope, receive, send)
