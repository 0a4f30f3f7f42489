"""The server's limits, in one place: their defaults (documented in docs/server.md, set by the
``spheria serve`` options), a token bucket per address and a log that does not repeat itself.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass(frozen=True)
class Limits:
    """What one server allows; every field is a ``spheria serve`` option of the same name."""

    #: Longest thinking time per agent move, in seconds (an agent spec's ``time`` is capped to it).
    agent_max_time: float = 10.0
    #: Seconds past an agent's budget before its job is killed and the fallback move played.
    agent_grace: float = 5.0
    #: Longest the engine thinks about a hint, in seconds (docs/server.md, Hints).
    hint_time: float = 2.0
    #: Agent seats thinking at once, server-wide (0: the pool's size).
    agent_thinking: int = 0
    #: Steps below normal CPU priority for the agents' worker processes (``nice``): the event loop first.
    agent_niceness: int = 10
    #: Frames per second a connection may send (bursts of twice as many); 0 for no limit.
    frame_rate: float = 50.0
    #: Frames refused for the rate within 10 s before a connection is closed as flooding (1008); 0: never.
    frame_refusals: int = 200
    #: Frames a client may have waiting before it is closed as too slow (code 4408: it reconnects).
    client_queue: int = 256
    #: Spectators per game.
    spectators_per_game: int = 500
    #: State frames a second sent to all spectators together, server-wide (0: no limit). With more
    #: spectators than that, each is sent the latest position less often (1,000 spectators: twice a second).
    spectator_rate: float = 2000.0
    #: Websocket connections open at once from one address.
    connections_per_address: int = 200
    #: Games one address may create per minute (steady rate) and in a burst.
    create_per_minute: float = 30.0
    create_burst: int = 20
    #: An unfinished game with no move for this many seconds is aborted and leaves memory (0: never).
    idle_game_seconds: float = 7 * 24 * 3600.0
    #: Host names the server answers to (the Host header); loopback by default.
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    #: Origins (scheme://host[:port]) allowed to post and open websockets, besides the server's own.
    allowed_origins: tuple[str, ...] = ()
    #: Failed logins (or password checks) per account, and login attempts per address, within the
    #: sliding window of ``login_window_seconds``; more are answered 429 (docs/server.md, Accounts).
    login_per_account: int = 10
    login_per_address: int = 30
    login_window_seconds: float = 15 * 60.0
    #: Accounts and guests one address may create within ``login_window_seconds``.
    signup_per_address: int = 20
    #: Player searches by name prefix one address may make a minute (docs/server.md, Profiles).
    player_search_per_minute: int = 60
    #: Whether the session cookie is always ``Secure`` (an https ``--public-url`` behind a proxy);
    #: it is also whenever the request itself came over https.
    secure_cookies: bool = False
    #: Challenges one address, and one player, may post within ``challenge_window_seconds``; open
    #: challenges one player may have at once; seconds a poster whose last lobby socket closed has to
    #: come back before their challenges expire; seconds an open challenge lasts (0: no limit).
    challenges_per_address: int = 30
    challenges_per_player: int = 10
    challenge_window_seconds: float = 10 * 60.0
    challenges_open_per_player: int = 3
    challenge_grace_seconds: float = 60.0
    challenge_ttl_seconds: float = 3600.0
    #: Chat (docs/server.md, Chat): messages a second per connection (bursts of ``chat_burst``), per
    #: sender a minute, refusals in a row before the socket is closed, and reports per player an hour.
    chat_rate: float = 1.0
    chat_burst: int = 5
    chat_per_minute: int = 20
    chat_flood_refusals: int = 20
    chat_reports_per_hour: int = 20


@dataclass
class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved, per key (the most recent 10,000 keys)."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    _buckets: OrderedDict[str, tuple[float, float]] = field(default_factory=OrderedDict)

    def take(self, key: str) -> bool:
        now = self.clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        self._buckets[key] = (tokens - 1 if allowed else tokens, now)
        while len(self._buckets) > 10_000:
            self._buckets.popitem(last=False)
        return allowed


@dataclass
class SlidingWindow:
    """At most ``limit`` events per key within the last ``seconds`` (the most recent 10,000 keys).

    >>> now = [0.0]
    >>> window = SlidingWindow(2, 60.0, clock=lambda: now[0])
    >>> window.add("k"); window.add("k"); window.wait("k")
    60.0
    >>> now[0] = 61.0
    >>> window.wait("k")
    0.0
    """

    limit: int
    seconds: float
    clock: Callable[[], float] = time.monotonic
    _events: OrderedDict[str, list[float]] = field(default_factory=OrderedDict)

    def _recent(self, key: str) -> list[float]:
        since = self.clock() - self.seconds
        events = [t for t in self._events.pop(key, []) if t > since]
        if events:
            self._events[key] = events
        return events

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may have one more event (0 when it may now)."""
        events = self._recent(key)
        if len(events) < self.limit:
            return 0.0
        return max(0.0, events[-self.limit] + self.seconds - self.clock())

    def add(self, key: str) -> None:
        """Count one event of ``key`` now."""
        events = self._recent(key)
        events.append(self.clock())
        self._events[key] = events
        while len(self._events) > 10_000:
            self._events.popitem(last=False)


class QuietLog:
    """Logs a repeated message at most once per ``interval`` seconds per key, with the count skipped."""

    def __init__(self, log: logging.Logger, interval: float = 60.0) -> None:
        self.log = log
        self.interval = interval
        self._last: dict[str, tuple[float, int]] = {}

    def warning(self, key: str, message: str, *args: object, exc_info: bool = False) -> None:
        now = time.monotonic()
        last, skipped = self._last.get(key, (-self.interval, 0))
        if now - last < self.interval:
            self._last[key] = (last, skipped + 1)
            return
        if len(self._last) > 1000:
            self._last.clear()
        self._last[key] = (now, 0)
        suffix = f" ({skipped} like it not logged)" if skipped else ""
        self.log.warning(message + suffix, *args, exc_info=exc_info)
