"""Which games are this process's: the part of :mod:`spheria.server.cluster` the sessions see.

A live game is kept in memory by one process at a time, the holder of its lease.
:class:`LocalCluster` is the embedded one-process server (it owns every game, asks nobody);
:class:`spheria.server.cluster.RedisCluster` keeps the leases in Redis. This module imports no
other server module, so the sessions can ask it without an import circle.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

#: The close code a relayed socket gets when its game's owner is gone (service restart):
#: the browser reconnects (web/js/game.js) and lands on whichever process takes the game.
CLOSE_RESTART = 1012
#: The lease of the lobby (one process at a time decides the open challenges).
LOBBY = "lobby"
PREFIX = "spheria:"
#: A game id as :func:`spheria.server.session.new_game_id` makes them (``token_urlsafe(9)``).
GAME_ID = re.compile(r"[A-Za-z0-9_-]{12}")
_GAME_PATH = re.compile(r"/(?:ws|api/games)/([^/]+)(?:/.*)?")


class ClusterUnavailable(Exception):
    """Redis cannot be reached, and what was asked is not this process's to serve."""


def game_key(game_id: str) -> str | None:
    """The lease name of a game id of the server's own form; None for any other text (never a key)."""
    return f"game:{game_id}" if GAME_ID.fullmatch(game_id) else None


def lease_of(path: str) -> str | None:
    """The lease a request path needs (None: any process serves it): a game's socket and API, the
    lobby's challenges (one process decides them). The lobby's socket (every process serves its own
    from a mirror: :mod:`spheria.server.lobby_bus`), ``/ws/analysis`` and the creation of a game are anyone's.

    >>> lease_of("/ws/Ab3_-x9QzL0p"), lease_of("/api/games/Ab3_-x9QzL0p/resign"), lease_of("/api/challenges/x/accept")
    ('game:Ab3_-x9QzL0p', 'game:Ab3_-x9QzL0p', 'lobby')
    >>> [lease_of(p) for p in ("/ws/*", "/api/games/../x", "/ws/" + "x" * 10_000, "/api/games", "/ws/analysis")]
    [None, None, None, None, None]
    >>> lease_of("/ws/lobby") is None
    True
    """
    if path == "/api/challenges" or path.startswith("/api/challenges/"):
        return LOBBY
    if path in ("/ws/lobby", "/ws/analysis"):
        return None
    match = _GAME_PATH.fullmatch(path)
    if match is None:
        return None
    # A hostile or mistyped id is answered here ("no such game"), and never becomes a key.
    return game_key(match.group(1))


class Cluster:
    """Where games live. This base class is the embedded one-process server (:class:`LocalCluster`)."""

    async def start(self, app: ASGIApp) -> None:
        """Begin (in the app's lifespan): ``app`` serves the requests tunnelled to this process."""

    async def stop(self) -> None:
        """Release what this process holds and stop its loops."""

    async def take(self, key: str) -> bool:
        """Take (or keep) the lease ``key``: whether this process owns it now."""
        return True

    def holds(self, key: str) -> bool:
        """Whether this process holds the lease ``key`` (as far as it knows, without asking)."""
        return True

    def release(self, key: str) -> None:
        """Let the lease ``key`` go (its session left memory)."""

    async def owner(self, key: str) -> str | None:
        """The process that must serve ``key``: None for this one (it took the lease)."""
        return None

    async def take_game(self, game_id: str) -> bool:
        """Take the lease of a game: False when another process owns it, when Redis cannot be
        reached, or when ``game_id`` is not of the server's form (no such game: never a key)."""
        key = game_key(game_id)
        if key is None:
            return isinstance(self, LocalCluster)
        try:
            return await self.take(key)
        except ClusterUnavailable:
            return False

    def release_game(self, game_id: str) -> None:
        if (key := game_key(game_id)) is not None:
            self.release(key)

    async def relay(self, owner: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request through ``owner`` (never called on a local cluster)."""
        raise ClusterUnavailable


class LocalCluster(Cluster):
    """One process, no Redis: every game is local."""
