"""The agent interface: one call, ``choose(view, player) -> move``.

``view`` is what ``state.view(player)`` returns: the state itself in a perfect-information
game, an observation-only view in a game with hidden information. Agents are named by
spec strings (``random``, ``random:seed=3``) so that the command line, the arena and the
server all make them the same way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from spheria.games.base import PlayerView


class Agent(ABC):
    """Something that picks moves."""

    name: str = "agent"

    @abstractmethod
    def choose(self, view: PlayerView, player: int) -> Any:
        """A legal move for seat ``player`` in ``view``."""

    def reset(self) -> None:  # noqa: B027  (optional hook)
        """Forget anything kept from the previous game."""

    def __repr__(self) -> str:
        return self.name
