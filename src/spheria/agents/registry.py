"""Agents by spec string: ``name`` or ``name:key=value,key=value`` (``mcts:time=1,c=1.4``).

One registry serves the command line, the arena, the server and the library, so a spec means
the same agent everywhere and is checked the same way everywhere: :func:`make_agent` (or
:func:`check_spec`, which also checks the agent fits a game) is the one door.

The registry knows the generic agents (``random``, ``greedy``, ``mcts``, ``alphabeta``), the
agents a caller registers (:func:`register_agent`), every registered game's own agents (its kit's
``agents``, found through :func:`spheria.kernel.registry.game_classes`) and the levels
(``level:N``, :class:`LevelAgent`, which resolves to the game's ladder's agent).

>>> make_agent("random:seed=3").name
'random:seed=3'
>>> make_agent("nobody")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown agent 'nobody' (agents: alphabeta, ...; or a level: level:1 to level:5)
>>> make_agent("level:3").name
'level:3'
>>> make_agent("mcts:time=60", max_time=10)
Traceback (most recent call last):
...
ValueError: mcts option time must be a number of seconds from 0.01 to 10, not 60
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from spheria.agents.alphabeta import AlphaBetaAgent
from spheria.agents.blunder import BlunderAgent
from spheria.agents.greedy import GreedyAgent
from spheria.agents.levels import LEVEL_SPEC, all_ladders, check_level, level_key, level_spec, levels_for
from spheria.agents.mcts import MCTSAgent
from spheria.agents.messages import message
from spheria.agents.options import BLUNDER, CLOCK, SEED, check_max_time
from spheria.agents.random_agent import RandomAgent
from spheria.i18n import gettext
from spheria.kernel.agent import Agent, Plays, check_names, check_option, value_text
from spheria.kernel.game import Game, PlayerView
from spheria.kernel.kit import LevelEntry
from spheria.kernel.messages import shown
from spheria.kernel.options import Option
from spheria.kernel.registry import game_classes, load_game

AgentFactory = Callable[..., Agent]

#: The longest spec accepted (characters).
MAX_SPEC_LENGTH = 200

#: The generic agents, and those registered with :func:`register_agent`; the games' own agents are
#: their kits' (see :func:`all_agents`).
_AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
    "alphabeta": AlphaBetaAgent,
}

#: The agent a game starts with when nobody chose one, if it fits; else the game's own first agent
#: that fits, else this fallback.
_DEFAULT, _FALLBACK = "mcts", "random"


def register_agent(name: str, factory: AgentFactory) -> None:
    _AGENTS[name] = factory


def all_agents() -> dict[str, AgentFactory]:
    """Every agent by name: the generic and registered ones and every registered game's own.

    Two games' kits (or a kit and a registered agent) that name different agents alike are refused.
    """
    found = dict(_AGENTS)
    for game_class in game_classes():
        for name, factory in game_class.kit().agents.items():
            if found.setdefault(name, factory) is not factory:
                raise ValueError(f"two agents are named {name!r}: {found[name]!r} and {game_class.name}'s {factory!r}")
    return found


def agent_names() -> list[str]:
    return sorted(all_agents())


def is_agent_name(name: str) -> bool:
    """Whether a spec starting ``name`` names an agent: a registered one or ``level``."""
    return name == LEVEL_SPEC or name in all_agents()


def _factory(name: str) -> AgentFactory | None:
    return LevelAgent if name == LEVEL_SPEC else all_agents().get(name)


def _value(text: str) -> int | float | str:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"mcts:time=1,c=1.4"`` into ``("mcts", {"time": 1, "c": 1.4})``.

    Values that read as numbers become numbers, the rest stay text; each agent's declared
    options then check them (range, whole or not, finite, choices). Refused with a
    ``ValueError``: a spec that is not text, longer than :data:`MAX_SPEC_LENGTH`, holds a control
    character, or has an option not written ``key=value`` or given twice.
    """
    if not isinstance(spec, str):
        raise ValueError(message("spec_text", value=shown(spec)))
    if len(spec) > MAX_SPEC_LENGTH:
        raise ValueError(message("spec_long", spec=shown(spec), length=len(spec), most=MAX_SPEC_LENGTH))
    bad = next((ch for ch in spec if not ch.isprintable()), None)
    if bad is not None:
        raise ValueError(message("spec_control", spec=shown(spec), char=repr(bad)[1:-1]))
    name, _, rest = spec.strip().partition(":")
    if not name.strip():
        raise ValueError(message("spec_empty", agents=", ".join(agent_names())))
    params: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = pair.partition("=")
        if not sep and not params and name.strip() == LEVEL_SPEC:
            key, sep, value = "level", "=", key  # level:3 is short for level:level=3
        if not sep or not key.strip():
            raise ValueError(message("spec_pair", pair=shown(pair), spec=shown(spec)))
        if key.strip() in params:
            raise ValueError(message("spec_repeat", option=shown(key.strip()), spec=shown(spec)))
        params[key.strip()] = _value(value.strip())
    return name.strip(), params


def make_agent(spec: str, max_time: float | None = None) -> Agent:
    """The agent a spec names, every option checked against its declared range.

    ``max_time`` caps thinking time (seconds, default :data:`spheria.agents.options.MAX_TIME`):
    a ``time`` option above it is refused, and searches bounded by iterations or depth stop
    there too. Every agent also takes ``blunder=p`` (a share from 0 to 1, handled here): the agent
    then plays a uniformly random legal move in that share of its turns
    (:class:`spheria.agents.blunder.BlunderAgent`). Raises ``ValueError`` naming an unknown agent,
    an unknown option (listing the
    valid ones) or a bad value (naming the option and its range).
    """
    cap = check_max_time(max_time)
    name, params = parse_spec(spec)
    factory = _factory(name)
    if factory is None:
        raise ValueError(message("unknown_agent", agent=shown(name), agents=", ".join(agent_names())))
    share = check_option(name, BLUNDER, params.pop(BLUNDER.name, None))  # every agent takes it: handled here
    specs = getattr(factory, "option_specs", None)
    if specs is not None:
        check_names(name, (*specs, BLUNDER), params)  # named here; the constructor checks the values
    agent = _build(name, factory, params, cap)
    return BlunderAgent(agent, share, params.get(SEED.name)) if share else agent


def _build(name: str, factory: AgentFactory, params: dict[str, Any], cap: float) -> Agent:
    if "max_time" in inspect.signature(factory).parameters:
        return factory(**params, max_time=cap)
    try:
        return factory(**params)
    except TypeError as error:  # an agent registered without declared options
        raise ValueError(f"{name}: {error}") from None


def check_spec(spec: str, game: Game | None = None, max_time: float | None = None) -> Agent:
    """The agent ``spec`` names, checked as :func:`make_agent` does, and fitting ``game`` if given.

    This is the check every caller runs before a game starts (command line, arena, server).
    """
    agent = make_agent(spec, max_time=max_time)
    if game is not None:
        check_fit(game, [agent])
    return agent


# -- what fits a game --------------------------------------------------------------------------


def plays_of(name: str) -> Plays:
    """What the agent called ``name`` plays with its default options."""
    plays = getattr(all_agents()[name], "plays", Plays())
    return plays if isinstance(plays, Plays) else Plays()


def agents_for(game: Game) -> list[str]:
    """The names of the agents that can play ``game`` (with their default options), sorted."""
    return [name for name in agent_names() if plays_of(name).fits(game)]


def default_agent(game: Game) -> str:
    """A spec that plays ``game`` well enough to start with (for a lobby's first choice): ``mcts`` if
    it fits, else the game's own first agent that fits (its kit's order), else ``random``."""
    fitting = agents_for(game)
    for name in (_DEFAULT, *game.kit().agents):
        if name in fitting:
            try:
                make_agent(name)
            except ValueError:  # an agent that needs an extra not installed
                continue
            return name
    return _FALLBACK


def check_fit(game: Game, agents: Sequence[Agent | None]) -> None:
    """Refuse, before a game starts, an agent that cannot play ``game`` (``None`` seats are people).

    The ``ValueError`` names the agent, what it plays and the agents that fit ``game``; for a game
    no agent plays (``Game.why_no_agents``), the agent and the game's reason.
    """
    for agent in agents:
        if agent is not None and game.why_no_agents is not None:
            raise ValueError(
                message(
                    "no_agents",
                    agent=agent.spec_name,
                    game=game_words(game, agent.plays),
                    why=gettext(game.why_no_agents),
                )
            )
    for agent in agents:
        if agent is not None and not agent.fits(game):
            narrowed = agent.plays != type(agent).plays  # by its options: name them
            raise ValueError(
                message(
                    "misfit",
                    agent=agent.name if narrowed else agent.spec_name,
                    game=game_words(game, agent.plays),
                    plays=agent.plays.describe(),
                    fitting=", ".join(agents_for(game)),
                )
            )


def game_words(game: Game, plays: Plays) -> str:
    """The game as a fit message names it: its title, with what of it ``plays`` does not take — the
    values of the options it restricts (``name=value``, as ``--option`` writes them), the seat count.
    """
    details = [
        f"{name}={value_text(game.options[name])}"
        for name, values in plays.options.items()
        if name in game.options and game.options[name] not in values
    ]
    if plays.seats and game.num_players not in plays.seats:
        details.append(message("seat_count", seats=game.num_players))
    return gettext(game.title) + (f" ({', '.join(details)})" if details else "")


def describe_options(name: str, max_time: float | None = None) -> list[tuple[str, str, str]]:
    """The options of agent ``name`` for help texts: ``(option, range or choices, help)``."""
    specs = (*getattr(all_agents()[name], "option_specs", ()), BLUNDER)  # blunder: every agent, in make_agent
    return [(spec.name, spec.range_text(max_time), spec.help) for spec in specs]


# -- levels ----------------------------------------------------------------------------------


class LevelAgent(Agent):
    """``level:N``: the agent its game's ladder names (:mod:`spheria.agents.levels`), made when it meets it.

    A level knows its game only when it meets it: ``fits(game)`` (which every caller runs before
    a game starts) or its first ``choose(view, player)`` resolves it to the ladder's agent for that
    game, built through :func:`make_agent` with the level's seed and the caller's ``max_time`` (a
    level's budget above it shrinks to it).

    >>> import spheria
    >>> agent = LevelAgent(4)
    >>> game = spheria.load_game(spheria.default_game_name())
    >>> agent.fits(game), agent.name, agent.resolved_spec == levels_for(game)[3].spec
    (True, 'level:4', True)
    """

    spec_name = LEVEL_SPEC
    option_specs = (
        Option("level", None, "the level, 1 (weakest) to 5 (strongest)", kind=int, minimum=1, maximum=5),
        CLOCK,
        SEED,
    )
    plays = Plays()  # whether a game has levels, fits() finds out

    def __init__(
        self, level: Any = None, clock: str | None = None, seed: int | None = None, max_time: float | None = None
    ) -> None:
        self.level = check_level(level)
        self.time_cap = check_max_time(max_time)
        values = self.checked_options(level=self.level, clock=clock, seed=seed)
        self.clock: str = values["clock"]
        self.seed: int | None = values["seed"]
        self.name = level_spec(self.level) + "".join(
            f",{option.name}={values[option.name]}"
            for option in (CLOCK, SEED)
            if values[option.name] not in (None, option.default)
        )
        self._key: str | None = None
        self._entry: LevelEntry | None = None
        self._agent: Agent | None = None

    @property
    def entry(self) -> LevelEntry | None:
        """The ladder's entry the level resolved to (``None`` before it met a game)."""
        return self._entry

    @property
    def agent(self) -> Agent | None:
        """The concrete agent (``None`` before the level met a game)."""
        return self._agent

    @property
    def resolved_spec(self) -> str | None:
        """The level's agent for its game as a spec, without the seed: ``mcts:time=0.1,c=1.4``."""
        if self._agent is None:
            return None
        return _without_seed(self._agent.name)

    def describe(self) -> str:
        """``level:3 (mcts:time=0.1,c=1.4)`` once resolved; ``level:3`` before."""
        resolved = self.resolved_spec
        return self.name if resolved is None else f"{self.name} ({resolved})"

    def resolve(self, game: Game) -> Agent:
        """The level's agent for ``game`` (its ladder's), made on first use of that ladder.

        ``ValueError`` for a game without levels.
        """
        key = level_key(game)
        if self._agent is None or key != self._key:
            entry = levels_for(game)[self.level - 1]
            self._agent = _make(entry.spec, self.seed, self.time_cap, self.clock)
            self._agent.watch(self.progress)
            self._agent.limit_time(self.time_limit)
            self._key, self._entry = key, entry
        return self._agent

    def watch(self, progress: Callable[[int], object] | None) -> None:
        """Report the resolved agent's progress (it is made when the level meets its game)."""
        super().watch(progress)
        if self._agent is not None:
            self._agent.watch(progress)

    def limit_time(self, seconds: float | None) -> None:
        """Limit the resolved agent (and the one a later game resolves to)."""
        super().limit_time(seconds)
        if self._agent is not None:
            self._agent.limit_time(seconds)

    def fits(self, game: Game) -> bool:
        try:
            agent = self.resolve(game)
        except ValueError:
            return False
        return agent.fits(game)

    def choose(self, view: PlayerView, player: int) -> Any:
        game = getattr(view, "game", None)
        if isinstance(game, Game):
            agent = self.resolve(game)
        elif self._agent is not None:
            agent = self._agent
        else:  # a view that hides the state still names its game
            agent = self.resolve(load_game(str(view.observation(player)["game"])))
        return agent.choose(view, player)

    def reset(self) -> None:
        if self._agent is not None:
            self._agent.reset()

    def max_seconds_per_move(self) -> float:
        """The resolved agent's bound; before a game, the largest this level has in any game."""
        if self._agent is not None:
            return self._agent.max_seconds_per_move()
        return min(self.time_cap, max(levels[self.level - 1].seconds for levels in all_ladders().values()))


def _make(spec: str, seed: int | None, max_time: float, clock: str = CLOCK.default) -> Agent:
    """The agent ``spec`` names, with ``seed``, its ``time`` shrunk to ``max_time`` if above it, and
    ``clock`` if the agent takes one and it is not the default."""
    name, params = parse_spec(spec)
    if isinstance(params.get("time"), int | float):
        params["time"] = min(params["time"], max_time)
    if clock != CLOCK.default and CLOCK.name in {option for option, _, _ in describe_options(name)}:
        params[CLOCK.name] = clock
    if seed is not None:
        params["seed"] = seed
    options = ",".join(f"{key}={value_text(value)}" for key, value in params.items())
    return make_agent(f"{name}:{options}" if options else name, max_time=max_time)


def _without_seed(name: str) -> str:
    head, _, rest = name.partition(":")
    kept = [pair for pair in rest.split(",") if pair and not pair.startswith("seed=")]
    return head + (":" + ",".join(kept) if kept else "")
