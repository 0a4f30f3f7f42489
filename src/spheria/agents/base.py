"""The agent interface: one call, ``choose(view, player) -> move``.

``view`` is what ``state.view(player)`` returns: the state itself in a perfect-information
game, an observation-only view in a game with hidden information. Agents are named by
spec strings (``random``, ``random:seed=3``) so that the command line, the arena and the
server all make them the same way.

Each agent class declares, in one place:

* ``option_specs`` — its options (:class:`spheria.agents.options.AgentOption`: type, default,
  range), from which its spec name is derived;
* ``plays`` — what it can play (:class:`Plays`: games, variants, seat counts, hidden
  information), so a misfit is refused before a game starts;
* ``max_seconds_per_move()`` — the longest its budget lets it think about one move.

An agent that counts the positions it searches (the Special Cake solver) reports them while it
thinks to the callback given to :meth:`Agent.watch` (a server's progress line shows them).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from spheria.agents.messages import message
from spheria.agents.options import AgentOption, check_options, spec_text
from spheria.i18n import gettext
from spheria.kernel.game import Game, PlayerView


@dataclass(frozen=True)
class Plays:
    """What an agent can play. An empty tuple means "any".

    ``games`` — the game classes; ``variants`` — values of the game's ``variant`` option;
    ``seats`` — seat counts; ``hidden_information`` — whether it plays games with hidden
    information (and simultaneous moves), or needs the whole position.

    >>> import spheria
    >>> Plays(seats=(2,), hidden_information=False).fits(spheria.load_game("spinca", players=3))
    False
    """

    games: tuple[type[Game], ...] = ()
    variants: tuple[str, ...] = ()
    seats: tuple[int, ...] = ()
    hidden_information: bool = True

    def fits(self, game: Game) -> bool:
        if self.games and not isinstance(game, self.games):
            return False
        if self.variants and game.options.get("variant") not in self.variants:
            return False
        if self.seats and game.num_players not in self.seats:
            return False
        return self.hidden_information or game.perfect_information

    def describe(self) -> str:
        """What it plays, in words: ``Special Cake (mint, poisoned)``."""
        if self.games:
            titles = message("and").join(gettext(game.title) for game in self.games)
            return titles + (f" ({', '.join(self.variants)})" if self.variants else "")
        games = message("plays_any" if self.hidden_information else "plays_perfect")
        if self.seats:
            return message("plays_seats", games=games, seats=message("or").join(map(str, self.seats)))
        return games if not self.hidden_information else message("plays_all")


class Agent(ABC):
    """Something that picks moves."""

    name: str = "agent"
    #: The name the registry knows the agent by (the part of a spec before ``:``).
    spec_name: ClassVar[str] = "agent"
    #: The options a spec may give, in the order the agent's name lists them.
    option_specs: ClassVar[tuple[AgentOption, ...]] = ()
    #: Options written in the agent's name even at their default.
    named_options: ClassVar[tuple[str, ...]] = ()
    #: What the agent can play; an agent whose options narrow it sets its own.
    plays: Plays = Plays()
    #: Called with the positions searched so far while the agent thinks about a move (see :meth:`watch`).
    progress: Callable[[int], object] | None = None

    @abstractmethod
    def choose(self, view: PlayerView, player: int) -> Any:
        """A legal move for seat ``player`` in ``view``."""

    def reset(self) -> None:  # noqa: B027  (optional hook)
        """Forget anything kept from the previous game."""

    def watch(self, progress: Callable[[int], object] | None) -> None:
        """Have ``progress(positions)`` called while the agent thinks about a move, with the positions
        searched so far in that move, at the search's own pace (every few thousand positions, never
        once per position); ``None`` stops it. An agent that counts no positions never calls it."""
        self.progress = progress

    def fits(self, game: Game) -> bool:
        """Whether the agent can play ``game`` from its first move to its last."""
        return self.plays.fits(game)

    def max_seconds_per_move(self) -> float:
        """The longest the agent's budget lets it think about one move, in seconds.

        0 for an agent that does not search (it answers at once). A caller that enforces a
        hard deadline adds its own grace for the work around the search.
        """
        return 0.0

    @classmethod
    def checked_options(cls, max_time: float | None = None, **given: Any) -> dict[str, Any]:
        """Every declared option, ``given`` (typed, or text from a spec) checked, the rest defaulted."""
        return check_options(
            cls.spec_name, cls.option_specs, {k: v for k, v in given.items() if v is not None}, max_time
        )

    def spec_from(self, values: Mapping[str, Any]) -> str:
        """The agent's name: its spec with the options that differ from their defaults."""
        return spec_text(self.spec_name, self.option_specs, values, self.named_options)

    def __repr__(self) -> str:
        return self.name
