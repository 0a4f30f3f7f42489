"""Levels: ``level:1`` (the weakest) to ``level:5`` (the strongest Spheria has) for every game.

A level is a spec that stands for a concrete agent chosen per game (and per Special Cake
variant and Spinca seat count) in one table, :data:`LEVELS`. People meet the levels as words
(``level_words``: beginner, easy, medium, hard, strongest — in :mod:`spheria.agents.messages`);
the table says which agent each level is and the longest it thinks about a move.

A :class:`LevelAgent` knows its game only when it meets it: ``fits(game)`` (which every caller
runs before a game starts) or its first ``choose(view, player)`` resolves it to the table's
agent for that game, built through the registry with the level's seed and the caller's
``max_time`` (a level's budget above it shrinks to it).

>>> import spheria
>>> agent = LevelAgent(4)
>>> agent.fits(spheria.load_game("spline")), agent.name, agent.resolved_spec
(True, 'level:4', 'alphabeta:time=0.2,blunder=0.2')
>>> levels_for(spheria.load_game("special-cake", variant="poisoned"))[4].spec
'solver:setup=planner,time=5'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from spheria.agents.base import Agent, Plays
from spheria.agents.messages import message, shown
from spheria.agents.options import CLOCK, SEED, AgentOption, check_max_time, value_text
from spheria.kernel.game import Game, PlayerView

#: The levels, weakest first.
LEVEL_NUMBERS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class LevelEntry:
    """One level of one game: the agent it plays as and the longest it thinks about a move.

    ``seconds`` is the time per move the level is stated to answer within on the project's
    2-core machine: the agent's ``time`` budget, or for a budget in iterations what it takes.
    """

    level: int
    spec: str
    seconds: float

    @property
    def words(self) -> str:
        """The level as people see it: ``medium``."""
        return level_words(self.level)


def _ladder(*rungs: tuple[str, float]) -> tuple[LevelEntry, ...]:
    return tuple(LevelEntry(level, spec, seconds) for level, (spec, seconds) in zip(LEVEL_NUMBERS, rungs, strict=True))


# Chosen by measurement with benchmarks/ladder.py (docs/agents.md, Levels): each ladder's top is
# the strongest agent Spheria has for the game, and the levels below it are that agent (or a cheaper
# one of its kind) playing a random move in a share of its turns (``blunder``, see
# spheria.agents.blunder), the shares picked from screening round robins so that the levels spread
# evenly in Elo between random and the top. In Special Cake the exact solver is cheap (a few
# milliseconds a move) and two perfect eaters only split their games by who eats first, so every
# level is the solver, weakened; Special Cake's top solves the eating phase exactly (time caps one
# solve; past it the set-up agent eats), in mint from the shipped set-up table, in poisoned after
# the planner's set-up.
_SUGAR = (
    ("solver:time=0.2,blunder=0.62", 0.2),
    ("solver:time=0.2,blunder=0.35", 0.2),
    ("solver:time=0.2,blunder=0.18", 0.2),
    ("solver:time=0.5,blunder=0.05", 0.5),
    ("solver:time=5", 5.0),
)
_FILLED_CAKE = (
    ("solver:time=0.2,blunder=0.6", 0.2),
    ("solver:time=0.2,blunder=0.3", 0.2),
    ("solver:time=0.2,blunder=0.12", 0.2),
    ("solver:time=0.5,blunder=0.03", 0.5),
)
#: Spinca's levels with 2 and 4 seats: one agent, mcts with Spinca's own playout exploring less and
#: giving untried moves one visit's worth of the mean (``c=0.3,widen=1``), which beat plain mcts at
#: equal time with 2 seats and with 4 and was no worse with 3 (docs/agents.md, "Stronger tops"), at
#: 0.05, 0.2 and 1 s a move, weakened below that by random moves.
_SPINCA = (
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.5", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.25", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1", 0.05),
    ("mcts:time=0.2,c=0.3,widen=1", 0.2),
    ("mcts:time=1,c=0.3,widen=1", 1.0),
)
#: With three seats the same search gains little from time (0.05 to 1 s, 125 Elo) and a share of
#: random moves costs little below half and much above it, so the levels under the top all search
#: 0.05 s, with shares picked from the first three three-seat ladders' ratings (docs/agents.md);
#: level 4 plays 8 % random moves, or it sits too close to the top.
_SPINCA_3 = (
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.8", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.55", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.3", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.08", 0.05),
    ("mcts:time=1,c=0.3,widen=1", 1.0),
)

#: The option (and its default) that gives a game one ladder per value.
_LADDER_OPTION: dict[str, tuple[str, Any]] = {"special-cake": ("variant", "mint"), "spinca": ("players", 2)}

#: The level table: game key (see :func:`level_key`) to levels 1-5.
LEVELS: dict[str, tuple[LevelEntry, ...]] = {
    "special-cake/sugar": _ladder(*_SUGAR),
    "special-cake/mint": _ladder(*_FILLED_CAKE, ("solver:setup=table,time=5", 5.0)),
    "special-cake/poisoned": _ladder(*_FILLED_CAKE, ("solver:setup=planner,time=5", 5.0)),
    "spline": _ladder(
        ("greedy:blunder=0.7", 0.1),
        ("greedy:blunder=0.6", 0.1),
        ("greedy:blunder=0.4", 0.1),
        ("alphabeta:time=0.2,blunder=0.2", 0.2),
        ("alphabeta:time=1,engine=game", 1.0),
    ),
    "spinca/2": _ladder(*_SPINCA),
    "spinca/3": _ladder(*_SPINCA_3),
    "spinca/4": _ladder(*_SPINCA),
    # Spagyric's random decisions lose games even to random, so the levels next to the top are
    # unweakened searches of less work (docs/agents.md, the ladder).
    "spagyric": _ladder(
        ("spagyric:iterations=30,exact=1,blunder=0.65", 0.1),
        ("spagyric:iterations=30,exact=1,blunder=0.3", 0.1),
        ("spagyric:iterations=30,exact=1,blunder=0.05", 0.1),
        ("spagyric:iterations=100,exact=1", 0.1),
        ("spagyric:time=1", 1.0),
    ),
}


def level_words(level: int) -> str:
    """The word people see for ``level`` (``easy``); from the messages, for translation."""
    return message(f"level_{level}")


def level_key(name: str, options: Mapping[str, Any]) -> str:
    """The table key of a game by name and options: ``special-cake/mint``, ``spinca/3``, ``spline``."""
    option = _LADDER_OPTION.get(name)
    if option is None:
        return name
    return f"{name}/{options.get(option[0], option[1])}"


def levels_for(game: Game) -> tuple[LevelEntry, ...]:
    """Levels 1-5 of ``game`` (for a lobby or a help text); ``ValueError`` for a game without levels."""
    return _levels(level_key(game.name, game.options))


def level_catalog() -> dict[str, list[dict[str, Any]]]:
    """The whole table as JSON-ready data for a lobby, keyed by :func:`level_key`.

    Each level: ``{"spec": "level:3", "level": 3, "words": "medium", "agent": "mcts:time=0.1",
    "seconds": 0.1}``. A lobby offers the specs, shows the words, and may show the rest as details.
    """
    return {
        key: [
            {"spec": level_spec(e.level), "level": e.level, "words": e.words, "agent": e.spec, "seconds": e.seconds}
            for e in levels
        ]
        for key, levels in LEVELS.items()
    }


def _levels(key: str) -> tuple[LevelEntry, ...]:
    levels = LEVELS.get(key)
    if levels is None:
        raise ValueError(message("level_game", game=shown(key)))
    return levels


def level_spec(level: Any) -> str:
    """``level:3``: the spec that names a level (``ValueError`` unless it is 1 to 5)."""
    return f"{LevelAgent.spec_name}:{_check_level(level)}"


def _check_level(level: Any) -> int:
    text = str(level).strip()
    if isinstance(level, bool) or not text.isdigit() or int(text) not in LEVEL_NUMBERS:
        raise ValueError(message("level_range", low=LEVEL_NUMBERS[0], high=LEVEL_NUMBERS[-1], value=shown(level)))
    return int(text)


class LevelAgent(Agent):
    """``level:N``: the agent the level table names for the game it plays, made when it meets it."""

    spec_name = "level"
    option_specs = (
        AgentOption("level", None, "the level, 1 (weakest) to 5 (strongest)", kind=int, bounds=(1, 5)),
        CLOCK,
        SEED,
    )
    plays = Plays()  # every game has levels

    def __init__(
        self, level: Any = None, clock: str | None = None, seed: int | None = None, max_time: float | None = None
    ) -> None:
        self.level = _check_level(level)
        self.time_cap = check_max_time(max_time)
        self.clock: str = CLOCK.check(self.spec_name, clock)
        self.seed: int | None = SEED.check(self.spec_name, seed)
        named = {"clock": self.clock, "seed": self.seed}
        self.name = level_spec(self.level) + "".join(
            f",{option.name}={named[option.name]}"
            for option in (CLOCK, SEED)
            if named[option.name] not in (None, option.default)
        )
        self._key: str | None = None
        self._agent: Agent | None = None

    @property
    def entry(self) -> LevelEntry | None:
        """The table entry the level resolved to (``None`` before it met a game)."""
        return None if self._key is None else _levels(self._key)[self.level - 1]

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

    def resolve(self, name: str, options: Mapping[str, Any]) -> Agent:
        """The level's agent for the game ``name`` with ``options``, made on first use of that game."""
        key = level_key(name, options)
        if self._agent is None or key != self._key:
            entry = _levels(key)[self.level - 1]
            self._agent = _make(entry.spec, self.seed, self.time_cap, self.clock)
            self._agent.watch(self.progress)
            self._key = key
        return self._agent

    def watch(self, progress: Callable[[int], object] | None) -> None:
        """Report the resolved agent's progress (it is made when the level meets its game)."""
        super().watch(progress)
        if self._agent is not None:
            self._agent.watch(progress)

    def fits(self, game: Game) -> bool:
        try:
            agent = self.resolve(game.name, game.options)
        except ValueError:
            return False
        return agent.fits(game)

    def choose(self, view: PlayerView, player: int) -> Any:
        game = getattr(view, "game", None)
        if isinstance(game, Game):
            agent = self.resolve(game.name, game.options)
        elif self._agent is not None:
            agent = self._agent
        else:  # a view that hides the state (Spagyric's) still names its game
            agent = self.resolve(str(view.observation(player)["game"]), {})
        return agent.choose(view, player)

    def reset(self) -> None:
        if self._agent is not None:
            self._agent.reset()

    def max_seconds_per_move(self) -> float:
        """The resolved agent's bound; before a game, the largest this level has in any game."""
        if self._agent is not None:
            return self._agent.max_seconds_per_move()
        return min(self.time_cap, max(levels[self.level - 1].seconds for levels in LEVELS.values()))


def _make(spec: str, seed: int | None, max_time: float, clock: str = CLOCK.default) -> Agent:
    """The agent ``spec`` names, with ``seed``, its ``time`` shrunk to ``max_time`` if above it, and
    ``clock`` if the agent takes one and it is not the default."""
    from spheria.agents.registry import describe_options, make_agent, parse_spec  # the registry imports this

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
