"""The one way a server process (or an agent worker) opens its Redis clients.

A client fails fast (no retries; a server down is reported in :data:`CONNECT_TIMEOUT`) and keeps
at most ``connections`` open connections: past that a command waits for a free one (a
:class:`~redis.asyncio.BlockingConnectionPool`) instead of failing, so a burst of relayed frames or
of agent jobs waiting for their answers queues for a moment rather than counting as Redis down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from redis.asyncio import Redis

#: Seconds to open a connection to Redis (a server down is reported this fast).
CONNECT_TIMEOUT = 2.0
#: Seconds a command may wait for a free connection of the pool before it fails.
POOL_WAIT = 10.0


#: The schemes a ``--redis`` URL may have.
URL_SCHEMES = ("redis://", "rediss://")


def is_redis_url(url: object) -> bool:
    """Whether ``url`` (as typed after ``--redis``) is a redis:// or rediss:// URL."""
    return str(url).startswith(URL_SCHEMES)


def connect(url: str, *, connections: int, read_timeout: float, decode: bool = False) -> Redis:
    """A client of the Redis at ``url``: ``connections`` connections at most, ``read_timeout`` seconds
    for an answer on an open one, answers as text when ``decode``."""
    from redis.asyncio import BlockingConnectionPool, Redis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=connections,
        timeout=POOL_WAIT,
        socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=read_timeout,
        retry=Retry(NoBackoff(), 0),
        decode_responses=decode,
    )
    return Redis(connection_pool=pool)
