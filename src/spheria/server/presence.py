"""Who is online now and the games being played (docs/server.md, Presence): kept in memory, counted
as sockets join and leave, read by ``GET /api/presence`` (the lobby polls it).

A player is online while one of their sockets is open (a game's, or the lobby's when it calls
:meth:`Presence.enter`/:meth:`Presence.leave`); a socket with no session counts once, unnamed. Guests
are listed under the display name they chose, marked ``guest``.

>>> presence = Presence()
>>> presence.enter("p1", {"name": "Kim", "guest": False, "deleted": False})
>>> presence.enter("p1", {"name": "Kim", "guest": False, "deleted": False})
>>> presence.enter("socket:7", None)
>>> presence.online(), presence.names()
(2, [{'name': 'Kim', 'guest': False}])
>>> presence.leave("p1"); presence.leave("p1"); presence.online()
1
"""

from __future__ import annotations

from collections import Counter
from typing import Any

#: Names listed at most (the count is always whole), and ongoing games listed at most.
NAMES_MOST = 100
GAMES_MOST = 20


class Presence:
    """Open sockets by key (a player's id, or one key per anonymous socket) and the names to list."""

    def __init__(self) -> None:
        self.sockets: Counter[str] = Counter()
        self.shown: dict[str, dict[str, Any]] = {}

    def enter(self, key: str, shown: dict[str, Any] | None) -> None:
        """One more socket of ``key``; ``shown``: how the player is named (None: not listed)."""
        self.sockets[key] += 1
        if shown is not None and shown.get("name"):
            self.shown[key] = {"name": shown["name"], "guest": bool(shown.get("guest"))}

    def leave(self, key: str) -> None:
        self.sockets[key] -= 1
        if self.sockets[key] <= 0:
            del self.sockets[key]
            self.shown.pop(key, None)

    def is_online(self, key: str) -> bool:
        return self.sockets[key] > 0 if key in self.sockets else False

    def online(self) -> int:
        return len(self.sockets)

    def names(self) -> list[dict[str, Any]]:
        return sorted(self.shown.values(), key=lambda shown: str(shown["name"]).lower())[:NAMES_MOST]

    def snapshot(self, manager: Any) -> dict[str, Any]:
        """``{"online", "players", "games", "playing"}``: games being played are the ongoing games in
        play now (a seat connected), the most watched listed first."""
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
