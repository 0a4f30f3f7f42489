"""Who is online now, who is in the lobby and the games being played (docs/server.md, Presence):
kept in memory, counted as sockets join and leave, read by ``GET /api/presence`` and pushed to
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

from collections import Counter
from collections.abc import Callable
from typing import Any

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
