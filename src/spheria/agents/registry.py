"""Agents by spec string: ``name`` or ``name:key=value,key=value`` (``mcts:time=1,c=1.4``).

One registry serves the command line, the arena, the server and the library, so a spec means
the same agent everywhere and is checked the same way everywhere: :func:`make_agent` (or
:func:`check_spec`, which also checks the agent fits a game) is the one door.

>>> make_agent("random:seed=3").name
'random:seed=3'
>>> make_agent("nobody")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown agent 'nobody' (agents: alphabeta, fixed, greedy, ..., spagyric; or a level: level:1 to level:5)
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
from spheria.agents.base import Agent, Plays
from spheria.agents.blunder import BlunderAgent
from spheria.agents.greedy import GreedyAgent
from spheria.agents.levels import LevelAgent
from spheria.agents.mcts import MCTSAgent
from spheria.agents.messages import message, shown
from spheria.agents.options import BLUNDER, SEED, check_max_time, check_names
from spheria.agents.random_agent import RandomAgent
from spheria.games.spagyric.agent import FixedColorAgent, SpagyricAgent
from spheria.games.special_cake.planner import PlannerAgent
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.i18n import gettext
from spheria.kernel.game import Game

AgentFactory = Callable[..., Agent]

#: The longest spec accepted (characters).
MAX_SPEC_LENGTH = 200

_AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
    "alphabeta": AlphaBetaAgent,
    "solver": SolverAgent,
    "planner": PlannerAgent,
    "spagyric": SpagyricAgent,
    "fixed": FixedColorAgent,
}

#: The agent a game starts with when nobody chose one: the first of these that fits.
_DEFAULT_ORDER = ("mcts", "spagyric", "random")


def register_agent(name: str, factory: AgentFactory) -> None:
    _AGENTS[name] = factory


def agent_names() -> list[str]:
    return sorted(_AGENTS)


def is_agent_name(name: str) -> bool:
    """Whether a spec starting ``name`` names an agent: a registered one or ``level``."""
    return name in _AGENTS or name == LevelAgent.spec_name


def _factory(name: str) -> AgentFactory | None:
    return LevelAgent if name == LevelAgent.spec_name else _AGENTS.get(name)


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
        if not sep and not params and name.strip() == LevelAgent.spec_name:
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
    share = BLUNDER.check(name, params.pop(BLUNDER.name, None))  # every agent takes it: handled here
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
    plays = getattr(_AGENTS[name], "plays", Plays())
    return plays if isinstance(plays, Plays) else Plays()


def agents_for(game: Game) -> list[str]:
    """The names of the agents that can play ``game`` (with their default options), sorted."""
    return [name for name in agent_names() if plays_of(name).fits(game)]


def default_agent(game: Game) -> str:
    """A spec that plays ``game`` well enough to start with (for a lobby's first choice)."""
    fitting = agents_for(game)
    for name in _DEFAULT_ORDER:
        if name in fitting:
            try:
                make_agent(name)
            except ValueError:  # an agent that needs an extra not installed
                continue
            return name
    return "random"


def check_fit(game: Game, agents: Sequence[Agent | None]) -> None:
    """Refuse, before a game starts, an agent that cannot play ``game`` (``None`` seats are people).

    The ``ValueError`` names the agent, what it plays and the agents that fit ``game``.
    """
    for agent in agents:
        if agent is not None and not agent.fits(game):
            narrowed = agent.plays != type(agent).plays  # by its options: name them
            raise ValueError(
                message(
                    "misfit",
                    agent=agent.name if narrowed else agent.spec_name,
                    game=game_words(game),
                    plays=agent.plays.describe(),
                    fitting=", ".join(agents_for(game)),
                )
            )


def game_words(game: Game) -> str:
    """``Special Cake (sugar)``, ``Spinca (3 seats)``: the game as a fit message names it."""
    details = [str(game.options["variant"])] if "variant" in game.options else []
    if "players" in game.options:
        details.append(message("seat_count", seats=game.num_players))
    return gettext(game.title) + (f" ({', '.join(details)})" if details else "")


def describe_options(name: str, max_time: float | None = None) -> list[tuple[str, str, str]]:
    """The options of agent ``name`` for help texts: ``(option, range or choices, help)``."""
    specs = (*getattr(_AGENTS[name], "option_specs", ()), BLUNDER)  # blunder: every agent, in make_agent
    return [(spec.name, spec.range_text(max_time), spec.help) for spec in specs]
