"""The agent interface: one call, ``choose(view, player) -> move``.

``view`` is what ``state.view(player)`` returns: the state itself in a perfect-information
game, an observation-only view in a game with hidden information. Agents are named by
spec strings (``random``, ``random:seed=3``) so that the command line, the arena and the
server all make them the same way.

Each agent class declares, in one place:

* ``option_specs`` — its options (:class:`spheria.kernel.options.Option`, the type game options
  have too: kind, default, range), from which its spec name is derived and its defaults are read;
* ``plays`` — what it can play (:class:`Plays`: games, option values, seat counts, hidden
  information), so a misfit is refused before a game starts;
* ``max_seconds_per_move()`` — the longest its budget lets it think about one move.

An agent that counts the positions it searches (an exact solver) reports them while it
thinks to the callback given to :meth:`Agent.watch` (a server's progress line shows them).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from spheria.i18n import gettext
from spheria.kernel import messages
from spheria.kernel.game import Game, PlayerView
from spheria.kernel.messages import shown
from spheria.kernel.options import Option, number_text


@dataclass(frozen=True)
class Plays:
    """What an agent can play. An empty tuple (or mapping) means "any".

    ``games`` — the game classes; ``options`` — a game option's name to the values of it the agent
    plays (a game without that option is not played); ``seats`` — seat counts;
    ``hidden_information`` — whether it plays games with hidden information (and simultaneous
    moves), or needs the whole position.

    >>> import spheria
    >>> Plays(seats=(3,)).fits(spheria.load_game(spheria.default_game_name()))  # a game of two seats
    False
    >>> Plays(options={"colour": ("red",)}).fits(spheria.load_game(spheria.default_game_name()))  # no such option
    False
    """

    games: tuple[type[Game], ...] = ()
    options: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, hash=False)
    seats: tuple[int, ...] = ()
    hidden_information: bool = True

    def __post_init__(self) -> None:
        # Read-only and the caller's mapping copied: what an agent plays does not change under it.
        object.__setattr__(self, "options", MappingProxyType({k: tuple(v) for k, v in self.options.items()}))

    def fits(self, game: Game) -> bool:
        if game.why_no_agents is not None:
            return False
        if self.games and not isinstance(game, self.games):
            return False
        if any(name not in game.options or game.options[name] not in values for name, values in self.options.items()):
            return False
        if self.seats and game.num_players not in self.seats:
            return False
        return self.hidden_information or game.perfect_information

    def describe(self) -> str:
        """What it plays, in words: the titles of its games, with the option values it plays
        written as the command line's ``--option`` lists them (``name=a|b``)."""
        restricted = ", ".join(f"{name}={'|'.join(map(value_text, values))}" for name, values in self.options.items())
        options = f" ({restricted})" if restricted else ""
        if self.games:
            return gettext(messages.AND).join(gettext(game.title) for game in self.games) + options
        games = gettext(messages.PLAYS_ANY if self.hidden_information else messages.PLAYS_PERFECT)
        if self.seats:
            seats = gettext(messages.OR).join(map(str, self.seats))
            return gettext(messages.PLAYS_SEATS).format(games=games, seats=seats) + options
        return (games if not self.hidden_information else gettext(messages.PLAYS_ALL)) + options


class Agent(ABC):
    """Something that picks moves."""

    name: str = "agent"
    #: The name the registry knows the agent by (the part of a spec before ``:``).
    spec_name: ClassVar[str] = "agent"
    #: The options a spec may give, in the order the agent's name lists them.
    option_specs: ClassVar[tuple[Option, ...]] = ()
    #: Options written in the agent's name even at their default.
    named_options: ClassVar[tuple[str, ...]] = ()
    #: What the agent can play; an agent whose options narrow it sets its own.
    plays: Plays = Plays()
    #: Called with the positions searched so far while the agent thinks about a move (see :meth:`watch`).
    progress: Callable[[int], object] | None = None
    #: The most the caller lets the agent think about each move from now on, in seconds; None: the
    #: agent's own budget (see :meth:`limit_time`).
    time_limit: float | None = None

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

    def limit_time(self, seconds: float | None) -> None:
        """Think at most ``seconds`` about each move from now on (None: the agent's own budget
        again): a timed game shrinks an agent's budget to the time its seat has left. A search
        reads it through :meth:`within_limit`; an agent that wraps another passes it on."""
        self.time_limit = seconds

    def within_limit(self, seconds: float) -> float:
        """``seconds`` (the agent's own budget), or the caller's :attr:`time_limit` when less."""
        return seconds if self.time_limit is None else min(seconds, self.time_limit)

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


# -- an agent's options: checked, defaulted and written back into its spec -------------------------


def check_option(agent: str, option: Option, value: Any, max_time: float | None = None) -> Any:
    """``value`` (typed, or text from a spec) parsed by ``option``; ``None`` stands for "not given":
    the default. Refused with a ``ValueError`` naming the agent, the option and what it takes.

    >>> TIME = Option("time", None, "seconds per move", kind=float, minimum=0.01, maximum=600, seconds=True)
    >>> check_option("mcts", TIME, "2", max_time=10)
    2.0
    >>> check_option("mcts", TIME, "nan")
    Traceback (most recent call last):
    ...
    ValueError: mcts option time must be a number of seconds from 0.01 to 600, not nan
    """
    if value is None:
        return option.default_within(max_time)
    if option.kind is str and not isinstance(value, str):
        value = str(value)  # a spec reads "engine=1" as a number; to a text option it is text
    try:
        return option.parse(value, max_time)
    except ValueError:
        raise ValueError(_problem(agent, option, value, max_time)) from None


def _problem(agent: str, option: Option, value: Any, max_time: float | None) -> str:
    """What ``option`` of ``agent`` takes, in the agent's words (its range, its choices)."""
    words: dict[str, Any] = {"agent": agent, "option": option.name, "value": shown(value)}
    if option.kind is bool:
        return gettext(messages.AGENT_FLAG).format(**words)
    if option.kind is str:
        return gettext(messages.AGENT_CHOICE).format(choices=", ".join(option.choices), **words)
    template = (
        messages.AGENT_WHOLE
        if option.kind is int
        else messages.AGENT_SECONDS
        if option.seconds
        else messages.AGENT_NUMBER
    )
    low, high = option.minimum, option.high(max_time)
    return gettext(template).format(
        low=number_text(-math.inf if low is None else low),
        high=number_text(math.inf if high is None else high),
        **words,
    )


def check_options(
    agent: str, options: tuple[Option, ...], given: Mapping[str, Any], max_time: float | None = None
) -> dict[str, Any]:
    """Every option of ``options``: its value in ``given`` checked, or its default."""
    check_names(agent, options, given)
    return {option.name: check_option(agent, option, given.get(option.name), max_time) for option in options}


def check_names(agent: str, options: tuple[Option, ...], given: Mapping[str, Any]) -> None:
    """Refuse an option ``options`` does not declare, listing the ones it does."""
    unknown = [name for name in given if name not in {option.name for option in options}]
    if unknown:
        if not options:
            raise ValueError(gettext(messages.AGENT_NO_OPTIONS).format(agent=agent, option=shown(unknown[0])))
        listed = ", ".join(option.name for option in options)
        raise ValueError(
            gettext(messages.AGENT_UNKNOWN_OPTION).format(agent=agent, option=shown(unknown[0]), options=listed)
        )


def spec_text(agent: str, options: tuple[Option, ...], values: Mapping[str, Any], always: tuple[str, ...] = ()) -> str:
    """The spec that names an agent: its options that differ from the default (or are listed in
    ``always``), in declaration order.

    >>> SEED = Option("seed", None, "a seed", kind=int, minimum=0)
    >>> spec_text("random", (SEED,), {"seed": 3}), spec_text("random", (SEED,), {"seed": None})
    ('random:seed=3', 'random')
    """
    parts = [
        f"{option.name}={value_text(values[option.name])}"
        for option in options
        if values.get(option.name) is not None and (values[option.name] != option.default or option.name in always)
    ]
    return agent + (":" + ",".join(parts) if parts else "")


def value_text(value: Any) -> str:
    """An option's value as a spec writes it: ``1``/``0`` for yes/no, numbers as short as exact."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return number_text(value)
    return str(value)
