"""Who is online now, who is in the lobby and the games being played (docs/server.md, Presence):
kept in memory, counted as sockets join and leave (shared by every process on one Redis:
:class:`SharedPresence`), read by ``GET /api/presence`` and pushed to
every lobby socket when it changes (:meth:`spheria.server.challenges.Lobby.presence_changed`, told
by :attr:`Presence.listeners`).

A player is online while one of their sockets is open (a game's, or the lobby's, which also counts
them in the lobby: ``lobby=True``); a socket with no session counts once, unnamed. Guests are
listed under the display name they chose, marked ``guest``.

>>> presence = Presence()
>>> told = []
>>> presence.listeners.append(lambda: told.append(1))
>>> presence.enter("p1", {"name": "Kim", "guest": False, "deleted": False})
>>> presence.enter("p1", {"name": "Kim", "guest": False, "deleted": False}, lobby=True)
>>> presence.enter("socket:7", None)
>>> presence.online(), presence.names(), presence.in_lobby(), len(told)
(2, [{'name': 'Kim', 'guest': False}], 1, 3)
>>> presence.leave("p1", lobby=True); presence.leave("p1"); presence.online(), presence.in_lobby()
(1, 0)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from spheria.i18n import gettext as _
from spheria.server import queue_messages as M

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("spheria.server")

#: Names listed at most (the count is always whole), and ongoing games listed at most.
NAMES_MOST = 100
GAMES_MOST = 20


class Presence:
    """Open sockets by key (a player's id, or one key per anonymous socket) and the names to list."""

    def __init__(self) -> None:
        self.sockets: Counter[str] = Counter()
        self.shown: dict[str, dict[str, Any]] = {}
        #: Lobby sockets open by key (a person in the lobby counts once however many tabs they have).
        self.lobby: Counter[str] = Counter()
        #: Called after every change (each must be quick: the lobby only schedules its push).
        self.listeners: list[Callable[[], None]] = []

    def enter(self, key: str, shown: dict[str, Any] | None, lobby: bool = False) -> None:
        """One more socket of ``key`` (a lobby socket: ``lobby``); ``shown``: how the player is
        named (None: not listed)."""
        self.sockets[key] += 1
        if lobby:
            self.lobby[key] += 1
        if shown is not None and shown.get("name"):
            self.shown[key] = {"name": shown["name"], "guest": bool(shown.get("guest"))}
        self.changed()

    def leave(self, key: str, lobby: bool = False) -> None:
        self.sockets[key] -= 1
        if self.sockets[key] <= 0:
            del self.sockets[key]
            self.shown.pop(key, None)
        if lobby:
            self.lobby[key] -= 1
            if self.lobby[key] <= 0:
                del self.lobby[key]
        self.changed()

    def changed(self) -> None:
        """Tell the listeners that something presence shows may have changed."""
        for listener in self.listeners:
            listener()

    def in_lobby(self) -> int:
        return len(self.lobby)

    def is_in_lobby(self, key: str) -> bool:
        """Whether ``key`` has a lobby socket open (on any process, for :class:`SharedPresence`)."""
        return key in self.lobby

    def knows_all(self) -> bool:
        """Whether the counts are every process's (a :class:`SharedPresence` cut off from Redis
        knows only its own: nobody is taken for gone on its word)."""
        return True

    def is_online(self, key: str) -> bool:
        return self.sockets[key] > 0 if key in self.sockets else False

    def online(self) -> int:
        return len(self.sockets)

    def names(self) -> list[dict[str, Any]]:
        return sorted(self.shown.values(), key=lambda shown: str(shown["name"]).lower())[:NAMES_MOST]

    def snapshot(self, manager: Any) -> dict[str, Any]:
        """``{"online", "players", "games", "playing"}`` (``GET /api/presence``): games being played
        are the ongoing games in play now (a seat connected), the most watched listed first."""
        playing = [
            session
            for session in list(manager.sessions.values())
            if not session.is_over() and not session.closed and session.seats_connected
        ]
        playing.sort(key=lambda session: -session.spectators())
        listed = [
            {"id": s.id, "game": s.game.name, "title": s.game.title, "spectators": s.spectators()}
            for s in playing[:GAMES_MOST]
        ]
        return {"online": self.online(), "players": self.names(), "games": len(playing), "playing": listed}


#: A key of a socket with no session (counted once, unnamed): it means something in its own process only.
ANONYMOUS = "socket:"
#: Redis: the set of processes with presence (scored by when their entry expires), each one's entry
#: (this, then the process's id) and the channel a process tells the others it changed on.
PROCESSES = "spheria:presence:processes"
PROCESS_PREFIX = "spheria:presence:process:"
CHANNEL = "spheria:presence:changed"
#: Seconds a process's entry lives unless refreshed (a dead process's people vanish this fast).
PROCESS_TTL = 5.0
#: Seconds a process waits after another's change before it reads (the rest of a burst is read with it).
COALESCE = 0.05
#: Seconds between a process's refreshes of its entry and reads of the others' (the cache's age at most).
REFRESH = 1.0


class SharedPresence(Presence):
    """Presence over every server process on one Redis (``create_app(redis=URL)``).

    Each process counts its own sockets as :class:`Presence` does and keeps them in Redis under
    its own id (drawn at start, never from client text) with an expiry of :data:`PROCESS_TTL` it
    refreshes every :data:`REFRESH` seconds; it reads the other processes' entries as often, so
    :meth:`online`, :meth:`names`, :meth:`in_lobby`, :meth:`is_online` and :meth:`is_in_lobby` answer for all from a
    cache at most that old (the lobby's once-a-second push reads Redis once). A change is published
    on :data:`CHANNEL`: every process re-reads and tells its listeners (its lobby pushes to its own
    sockets). With Redis down it answers what this process knows and logs it once.

    Names and player ids travel only inside the JSON of an entry, never in a key."""

    def __init__(self, redis: Redis, *, ttl: float = PROCESS_TTL, refresh: float = REFRESH) -> None:
        """``redis``: the process's client (:func:`spheria.server.agent_queue.connect`); closed by :meth:`stop`."""
        super().__init__()
        self.redis = redis
        self.process = uuid.uuid4().hex
        self.ttl = ttl
        self.refresh = refresh
        #: The other processes' entries as last read (``{"people": {key: shown}, "anonymous": n, ...}``).
        self.others: dict[str, dict[str, Any]] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self._publish: asyncio.Task[None] | None = None
        self._down = False
        #: This process's named keys (online, and in the lobby) and how many keys have no name, kept
        #: as sockets come and go: a count costs the named people, not every anonymous socket.
        self.named: set[str] = set()
        self.lobby_named: set[str] = set()
        self.unnamed = 0
        self.lobby_unnamed = 0

    def enter(self, key: str, shown: dict[str, Any] | None, lobby: bool = False) -> None:
        first, first_in_lobby = key not in self.sockets, lobby and key not in self.lobby
        if key.startswith(ANONYMOUS):
            self.unnamed += first
            self.lobby_unnamed += first_in_lobby
        else:
            self.named.add(key)
            if lobby:
                self.lobby_named.add(key)
        super().enter(key, shown, lobby)

    def leave(self, key: str, lobby: bool = False) -> None:
        last, last_in_lobby = self.sockets[key] == 1, lobby and self.lobby[key] == 1
        if key.startswith(ANONYMOUS):
            self.unnamed -= last
            self.lobby_unnamed -= last_in_lobby
        else:
            if last:
                self.named.discard(key)
            if last_in_lobby:
                self.lobby_named.discard(key)
        super().leave(key, lobby)

    # -- what every process sees -------------------------------------------------------------------

    def _people(self) -> dict[str, dict[str, Any] | None]:
        people: dict[str, dict[str, Any] | None] = {}
        for entry in self.others.values():
            people.update(entry["people"])
        for key in self.named:
            people[key] = self.shown.get(key)
        return people

    def _anonymous(self, local: int, field: str) -> int:
        return local + sum(int(e[field]) for e in self.others.values())

    def online(self) -> int:
        return len(self._people()) + self._anonymous(self.unnamed, "anonymous")

    def in_lobby(self) -> int:
        keys = set(self.lobby_named)
        for entry in self.others.values():
            keys.update(entry["lobby"])
        return len(keys) + self._anonymous(self.lobby_unnamed, "lobby_anonymous")

    def is_online(self, key: str) -> bool:
        return super().is_online(key) or any(key in entry["people"] for entry in self.others.values())

    def is_in_lobby(self, key: str) -> bool:
        return super().is_in_lobby(key) or any(key in entry["lobby"] for entry in self.others.values())

    def knows_all(self) -> bool:
        return not self._down

    def names(self) -> list[dict[str, Any]]:
        shown = [person for person in self._people().values() if person is not None]
        return sorted(shown, key=lambda person: str(person["name"]).lower())[:NAMES_MOST]

    # -- keeping Redis up to date ------------------------------------------------------------------

    def entry(self) -> dict[str, Any]:
        """This process's entry: its named people, its lobby, and how many sockets have no name."""
        return {
            "people": {key: self.shown.get(key) for key in self.named},
            "anonymous": self.unnamed,
            "lobby": list(self.lobby_named),
            "lobby_anonymous": self.lobby_unnamed,
        }

    def changed(self) -> None:
        """A change here: tell this process's listeners now and the other processes soon."""
        super().changed()
        with contextlib.suppress(RuntimeError):  # no event loop: nothing to share yet
            if self._publish is None or self._publish.done():
                self._publish = asyncio.get_running_loop().create_task(self._share())

    async def start(self) -> None:
        """Start refreshing this process's entry and following the others (in the app's lifespan)."""
        self.tasks = [asyncio.create_task(self._refreshing()), asyncio.create_task(self._following())]

    async def stop(self) -> None:
        """Stop, and take this process's people out of Redis at once."""
        for task in self.tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await self.redis.delete(PROCESS_PREFIX + self.process)
            await self.redis.zrem(PROCESSES, self.process)
            await self.redis.publish(CHANNEL, self.process)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _share(self) -> None:
        await asyncio.sleep(0)  # a burst of changes in one step of the loop is written once
        if await self._guarded(self._write()):
            await self._guarded(self.redis.publish(CHANNEL, self.process))

    async def _write(self) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(PROCESS_PREFIX + self.process, json.dumps(self.entry()), px=int(self.ttl * 1000))
            pipe.zadd(PROCESSES, {self.process: time.time() + self.ttl})
            await pipe.execute()

    async def read_others(self) -> None:
        """Read the other processes' entries (dropping those expired) and tell the listeners if they changed."""
        now = time.time()
        await self.redis.zremrangebyscore(PROCESSES, "-inf", now)
        processes = [str(p) for p in await self.redis.zrange(PROCESSES, 0, -1) if p != self.process]
        others: dict[str, dict[str, Any]] = {}
        if processes:
            texts = await self.redis.mget([PROCESS_PREFIX + p for p in processes])
            for process, text in zip(processes, texts, strict=True):
                if text is not None:
                    others[process] = _entry_of(str(text))
        if others != self.others:
            self.others = others
            super().changed()

    async def _refreshing(self) -> None:
        while True:
            if await self._guarded(self._write()):
                await self._guarded(self.read_others())
            await asyncio.sleep(self.refresh)

    async def _following(self) -> None:
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    while True:
                        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=self.refresh)
                        if message is not None and message.get("data") != self.process:
                            await asyncio.sleep(COALESCE)  # the changes of a burst, read once
                            while await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.0):
                                pass
                            await self.read_others()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._lost(error)
                await asyncio.sleep(self.refresh)

    async def _guarded(self, work: Any) -> bool:
        """Run ``work`` (a coroutine on Redis); on failure forget the others, log once, say False."""
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self._lost(error)
            return False
        if self._down:
            self._down = False
            log.info(_(M.PRESENCE_REDIS_BACK))
        return True

    def _lost(self, error: Exception) -> None:
        if self.others:
            self.others = {}
            super().changed()
        if not self._down:
            self._down = True
            log.warning(_(M.PRESENCE_REDIS_DOWN).format(error=str(error)[:300]))


def _entry_of(text: str) -> dict[str, Any]:
    """A process's entry read back; an entry of another make counts nobody."""
    try:
        data = json.loads(text)
        people = {str(k): v if isinstance(v, dict) else None for k, v in dict(data["people"]).items()}
        return {
            "people": people,
            "anonymous": int(data["anonymous"]),
            "lobby": [str(key) for key in data["lobby"]],
            "lobby_anonymous": int(data["lobby_anonymous"]),
        }
    except (ValueError, KeyError, TypeError):
        return {"people": {}, "anonymous": 0, "lobby": [], "lobby_anonymous": 0}
