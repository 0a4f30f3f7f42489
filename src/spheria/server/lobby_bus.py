"""How the lobby's changes reach the lobby sockets of every server process (docs/server.md, Several
processes, "The lobby").

A lobby socket is served by whichever process it reaches. The open challenges are decided by one
process, the holder of the lease ``lobby`` (its challenge requests are routed there, so an accept
race has one winner); every other process keeps a **mirror** of them, so the hello and ``following``
frames and the pushes to its own sockets are made locally, encoded once per process.

* :class:`LobbyBus` (the embedded default, no ``--redis``): one process, which owns the lobby; an
  event goes to its own sockets and nowhere else.
* :class:`RedisLobbyBus`: the owner publishes each challenge event (the challenge as
  :meth:`~spheria.server.challenges.Challenge.stored` has it: what a process needs to decide which of
  its sockets may see it) and each ``game_ready`` on :data:`CHANNEL`, once, and keeps the open
  challenges in the hash :data:`OPEN_CHALLENGES` (written in the same transaction), from which a
  process starting, a process whose subscription came back, and a new owner load them.

Keys and channels are constants; a challenge id (drawn by the server) is only a field of the hash,
and everything else travels inside JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any, Protocol

from spheria.server.ownership import LOBBY, PREFIX, ClusterUnavailable

if TYPE_CHECKING:
    from spheria.server.cluster import RedisCluster

log = logging.getLogger("spheria.server")

#: The channel of the lobby's events, and the hash of the open challenges (id: the challenge's JSON).
CHANNEL = f"{PREFIX}lobby:events"
OPEN_CHALLENGES = f"{PREFIX}lobby:challenges"
#: Seconds between two tries to take the lobby's lease (and to notice it was lost).
KEEP = 1.0


class Mirror(Protocol):
    """What a bus asks of the lobby (:class:`spheria.server.challenges.Lobby`)."""

    owning: bool

    def apply(self, event: str, stored: dict[str, Any]) -> None:
        """Another process's challenge event: update the mirror and push it to this process's sockets."""

    def told(self, player_id: str, frame: dict[str, Any]) -> None:
        """Push ``frame`` to this process's lobby sockets of ``player_id``."""

    def reload(self, stored: list[dict[str, Any]]) -> None:
        """The open challenges are ``stored`` (as the hash holds them): the mirror becomes them."""

    def stored_open(self) -> list[dict[str, Any]]:
        """The open challenges of this process (the owner's: the true ones)."""

    async def become_owner(self, stored: list[dict[str, Any]]) -> None:
        """This process took the lobby's lease: its challenges are ``stored`` from now on."""

    def stop_owning(self) -> None:
        """This process lost the lobby's lease (its timers stop; it mirrors again)."""


class LobbyBus:
    """One process: it owns the lobby and its events go nowhere else."""

    local = True

    async def start(self, lobby: Mirror) -> None:
        """Begin (in the app's lifespan)."""

    async def stop(self) -> None:
        """Stop the loops."""

    def holds(self) -> bool:
        """Whether this process holds the lobby's lease (as far as it knows)."""
        return True

    async def load(self) -> list[dict[str, Any]]:
        """The open challenges as shared (none: the one process's memory is all there is)."""
        return []

    def challenge(self, event: str, stored: dict[str, Any], still_open: bool) -> None:
        """The owner's challenge event, already pushed to this process's sockets: tell the others."""

    def tell(self, player_id: str, frame: dict[str, Any]) -> None:
        """The owner's frame to a player's lobby sockets, already pushed here: tell the others."""


class RedisLobbyBus(LobbyBus):
    """The lobby's events over Redis pub/sub (see the module's doc), on the cluster's client."""

    local = False

    def __init__(self, cluster: RedisCluster) -> None:
        self.cluster = cluster
        self.lobby: Mirror | None = None
        #: What the owner still has to write and publish, in order.
        self.outbox: asyncio.Queue[tuple[dict[str, Any], tuple[str, str] | None]] = asyncio.Queue()
        self.tasks: list[asyncio.Task[None]] = []
        #: A write failed: the hash is rewritten whole from the owner's memory when Redis answers again.
        self.dirty = False
        self._down = False

    async def start(self, lobby: Mirror) -> None:
        self.lobby = lobby
        self.tasks = [
            asyncio.create_task(self._writing(), name="lobby-writer"),
            asyncio.create_task(self._following(), name="lobby-follower"),
            asyncio.create_task(self._keeping(), name="lobby-lease"),
        ]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task

    def holds(self) -> bool:
        return self.cluster.holds(LOBBY)

    async def load(self) -> list[dict[str, Any]]:
        found = await self.cluster.redis.hgetall(OPEN_CHALLENGES)
        loaded = []
        for text in found.values():
            with contextlib.suppress(ValueError, TypeError):
                data = json.loads(text)
                if isinstance(data, dict):
                    loaded.append(data)
        return loaded

    def challenge(self, event: str, stored: dict[str, Any], still_open: bool) -> None:
        text = json.dumps(stored, separators=(",", ":"))
        message = {"origin": self.cluster.me, "kind": "challenge", "event": event, "challenge": stored}
        self.outbox.put_nowait((message, (str(stored["id"]), text if still_open else "")))

    def tell(self, player_id: str, frame: dict[str, Any]) -> None:
        self.outbox.put_nowait(({"origin": self.cluster.me, "kind": "tell", "player": player_id, "frame": frame}, None))

    # -- the loops ---------------------------------------------------------------------------------

    async def _writing(self) -> None:
        """Write and publish the outbox in order, all that waits in one transaction."""
        while True:
            batch = [await self.outbox.get()]
            while not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            await self._guarded(self._write(batch))

    async def _write(self, batch: list[tuple[dict[str, Any], tuple[str, str] | None]]) -> None:
        assert self.lobby is not None
        async with self.cluster.redis.pipeline(transaction=True) as pipe:
            if self.dirty:  # what Redis holds may be stale or lost: the owner's memory is the truth
                pipe.delete(OPEN_CHALLENGES)
                for stored in self.lobby.stored_open():
                    pipe.hset(OPEN_CHALLENGES, str(stored["id"]), json.dumps(stored, separators=(",", ":")))
                pipe.publish(CHANNEL, json.dumps({"origin": self.cluster.me, "kind": "reload"}))
            else:
                for message, change in batch:
                    if change is not None:
                        challenge_id, text = change
                        if text:
                            pipe.hset(OPEN_CHALLENGES, challenge_id, text)
                        else:
                            pipe.hdel(OPEN_CHALLENGES, challenge_id)
                    pipe.publish(CHANNEL, json.dumps(message, separators=(",", ":")))
            await pipe.execute()
        self.dirty = False

    async def _following(self) -> None:
        """Apply the other processes' events to the mirror; after every (re)subscription, reload it."""
        assert self.lobby is not None
        lobby = self.lobby
        while True:
            try:
                async with self.cluster.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    if not lobby.owning:
                        lobby.reload(await self.load())
                    self._back()
                    while True:
                        message = await pubsub.get_message(timeout=1.0)
                        if message is not None and message.get("type") == "message":
                            await self._dispatch(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._lost(error)
                await asyncio.sleep(KEEP)

    async def _dispatch(self, data: bytes | str) -> None:
        assert self.lobby is not None
        try:
            message = json.loads(data)
            if message.get("origin") == self.cluster.me or self.lobby.owning:
                return  # this process's own, or it decides the lobby now: what it holds is the truth
            if message["kind"] == "challenge":
                self.lobby.apply(str(message["event"]), dict(message["challenge"]))
            elif message["kind"] == "tell":
                self.lobby.told(str(message["player"]), dict(message["frame"]))
            elif message["kind"] == "reload":
                self.lobby.reload(await self.load())
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("a lobby event could not be read", exc_info=True)

    async def _keeping(self) -> None:
        """Take the lobby's lease when it is free (so the challenges' timers run after a failover);
        notice when it was lost."""
        assert self.lobby is not None
        lobby = self.lobby
        while True:
            try:
                taken = await self.cluster.take(LOBBY)
            except ClusterUnavailable:
                taken = self.holds()  # Redis away: an owner keeps deciding (nobody can take the lease)
            if taken and not lobby.owning:
                with contextlib.suppress(Exception):
                    await lobby.become_owner(await self.load())
            elif not taken and lobby.owning:
                lobby.stop_owning()
            await asyncio.sleep(KEEP)

    async def _guarded(self, work: Any) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.dirty = True
            self._lost(error)
            return
        self._back()

    def _lost(self, error: Exception) -> None:
        if not self._down:
            self._down = True
            log.warning("the lobby cannot reach Redis (%s): other processes' lobbies miss its changes", error)

    def _back(self) -> None:
        if self._down:
            self._down = False
            log.info("the lobby reaches Redis again")
