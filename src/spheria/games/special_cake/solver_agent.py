"""The solver agent: perfect play in Special Cake's eating phase.

In a won position it plays a winning move the exact solver proved; in a lost one it eats as
little as it can (a random choice among the smallest eats), leaving a fallible opponent the
most room to go wrong. The set-up phase is not solved: another agent (option ``setup``,
default ``greedy``) builds the cake; ``setup=planner`` plans it for the eating phase with the
solver's help (see :mod:`spheria.games.special_cake.planner`), and ``setup=guided`` is that planner with its
early placements guided by solved random finishes (``planner:early=sampled``). The default,
``setup=table``, plays the set-up of mint and poisoned with mixed lines perfectly from their
shipped set-up tables (a random best placement, seeded), and builds other cakes greedily.

In mint and poisoned with mixed lines it first asks the retrograde eating table, when ``spheria tablebase
build`` has built it (``tablebase``, default true; :mod:`spheria.games.special_cake.eating_table`): a
lookup per legal move, exact and instant, so a mint game's eating never depends on a solve
finishing within its cap. Elsewhere, or without the table, it searches; a search that runs out
of its ``time`` hands the move to the set-up agent (greedy unless ``setup`` says otherwise; a
planner then eats greedily too, not with a second solve that would double the move's time),
which is counted in ``fallbacks`` and logged (level INFO, logger ``spheria.games.special_cake.solver_agent``:
by design at small ``time``, so not a warning in a player's terminal). That the table is not
built is a warning, once per process and variant, on the first position of 20 candies or more
it has to search: the command that builds it, its disk and its time
(:func:`spheria.games.special_cake.eating_table.missing_table_note`).

While it solves, the positions searched so far go to the callback given to ``watch`` (from the
solver's progress report: every 65,536 positions, and as each first move is taken up).

``last_value`` holds the solver's verdict on the last eating position it was asked about
(+1 won, -1 lost), so a test or the arena can check that it never loses a game it judged won.

>>> import spheria
>>> state = spheria.load_game("special-cake").state_from_spn("w.b............./........./..../. 1 eat")
>>> agent = SolverAgent(seed=1, tablebase=False)  # the built mint table, if any, is not asked
>>> str(agent.choose(state, 0)), agent.last_value
('0a1', 1)
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from spheria.agents.heuristics import require_state
from spheria.agents.options import CLOCK, SEED, check_max_time, time_option
from spheria.agents.registry import make_agent
from spheria.games.special_cake.eating_table import missing_table_note, shared_probe
from spheria.games.special_cake.rules import (
    MINT,
    MIXED,
    PLACE,
    POISONED,
    CakeMove,
    CakeState,
    SpecialCake,
    eating_moves,
)
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import PlayerView
from spheria.kernel.options import Option

LOG = logging.getLogger(__name__)
#: The variants whose missing eating table this process has warned about (once each).
_WARNED: set[str] = set()

if TYPE_CHECKING:
    from spheria.games.special_cake.solver import SolveProgress

SETUP_TABLE = "table"
SETUP_AGENTS = (SETUP_TABLE, "random", "greedy", "mcts", "planner", "guided")
#: Set-up choices that are another agent's spec with options: ``guided`` is the planner whose
#: early placements follow solved random finishes (:mod:`spheria.games.special_cake.planner`). A planner's own
#: eater is reached only when a solve here ran over its cap, so it eats greedily at once rather
#: than solve the same cake again (which made a 5 s move take up to 5 s plus ``max_time``).
SETUP_SPECS = {"planner": "planner:eat=greedy", "guided": "planner:early=sampled,eat=greedy"}


def _with_option(spec: str, option: str) -> str:
    """``spec`` with one more ``name=value`` option."""
    return f"{spec}{',' if ':' in spec else ':'}{option}"


class SolverAgent(Agent):
    """Exact in the eating phase; ``setup`` agent in the set-up; ``time`` caps a solve (seconds)."""

    spec_name = "solver"
    option_specs = (
        SEED,
        Option("setup", SETUP_TABLE, "the agent that builds the cake", SETUP_AGENTS),
        time_option(None, "seconds a solve may take (default: the caller's max_time)"),
        Option("tablebase", True, "eat mint and poisoned from the built eating tables when they are there", kind=bool),
        Option("clock", CLOCK.default, "what the set-up agent's time counts (a solve's cap: wall)", CLOCK.choices),
    )
    plays = Plays(games=(SpecialCake,), seats=(2,))

    def __init__(
        self,
        seed: int | None = None,
        setup: str | None = None,
        time: float | None = None,
        tablebase: bool | None = None,
        clock: str | None = None,
        max_time: float | None = None,
    ) -> None:
        self.time_cap = check_max_time(max_time)
        values = self.checked_options(
            self.time_cap, seed=seed, setup=setup, time=time, tablebase=tablebase, clock=clock
        )
        self.seed: int | None = values["seed"]
        self.time: float | None = values["time"]
        self.use_tablebase: bool = values["tablebase"]
        self.rng = random.Random(self.seed)
        self.use_table = values["setup"] == SETUP_TABLE
        builder = "greedy" if self.use_table else SETUP_SPECS.get(values["setup"], values["setup"])
        setup_spec = builder if self.seed is None else _with_option(builder, f"seed={self.seed}")
        self.setup = make_agent(setup_spec, max_time=self.time_cap)
        if values["clock"] != CLOCK.default and any(option.name == CLOCK.name for option in self.setup.option_specs):
            self.setup = make_agent(_with_option(setup_spec, f"clock={values['clock']}"), max_time=self.time_cap)
        self.plays = Plays((SpecialCake,), self.setup.plays.options, (2,))  # setup=planner narrows it
        self.name = self.spec_from(values)
        self.last_value: int | None = None
        #: Eating moves handed to the set-up agent because a solve ran out of its time.
        self.fallbacks = 0

    def watch(self, progress: Callable[[int], object] | None) -> None:
        super().watch(progress)
        self.setup.watch(progress)  # the planner solves cakes while it builds one

    def max_seconds_per_move(self) -> float:
        """A solve's limit (``time``, else the caller's ``max_time``), or the set-up agent's budget."""
        return max(self.within_limit(self._solve_limit()), self.setup.max_seconds_per_move())

    def _solve_limit(self) -> float:
        return self.time if self.time is not None else self.time_cap

    def limit_time(self, seconds: float | None) -> None:
        super().limit_time(seconds)
        self.setup.limit_time(seconds)

    def choose(self, view: PlayerView, player: int) -> Any:
        # the compiled solver loads only when it is needed
        from spheria.games.special_cake.solver import solve, solves_set_up

        state = require_state(view, player, "solver")
        if not isinstance(state, CakeState):
            raise ValueError(f"the solver plays Special Cake, not {state.game.name}")
        if state.phase == PLACE:
            if self.use_table and solves_set_up(state.game):
                placing = solve(state)
                self.last_value = placing.value
                return self.rng.choice(placing.best_moves)
            return self.setup.choose(state, player)
        move = self._table_move(state)
        if move is not None:
            return move
        limit = self.within_limit(self._solve_limit())
        self._say_table_missing(state, limit)
        try:
            result = solve(state, time_limit=limit, stop_at_first=True, progress=self._report())
        except TimeoutError:
            self.last_value = None
            self.fallbacks += 1
            LOG.info("solver: a solve ran over its %g s cap; %s eats at %s", limit, self.setup.name, state.to_spn())
            return self.setup.choose(state, player)
        self.last_value = result.value
        if result.value > 0:
            return result.best_moves[0]
        return self._smallest_eat(result.best_moves)

    def _smallest_eat(self, moves: list[CakeMove]) -> CakeMove:
        """A random one of the moves that eat the fewest candies: the most room for the opponent to go wrong."""
        smallest = min(len(move.sites) for move in moves)
        return self.rng.choice([move for move in moves if len(move.sites) == smallest])

    def _table_move(self, state: CakeState) -> CakeMove | None:
        """The move the built eating table (mint or poisoned) gives (a random winning one), or
        ``None`` without a table."""
        game = state.game
        if not self.use_tablebase or game.variant not in (MINT, POISONED) or game.line_rule != MIXED:
            return None
        table = shared_probe(game.variant)
        won = table.wins(*state.masks())
        if won is None:
            return None
        outcomes = eating_moves(state.masks(), game.variant, game.line_rule)
        if not won:
            self.last_value = -1
            return self._smallest_eat(list(outcomes))
        winning = [move for move, child in outcomes.items() if table.wins(*child) is False]
        if not winning:
            return None  # a level below is missing: search instead
        self.last_value = 1
        return self.rng.choice(winning)

    def _say_table_missing(self, state: CakeState, limit: float | None) -> None:
        """Warn once per process and variant that the eating is searched, capped at ``limit``,
        because the variant's eating table is not built (the command that builds it, its disk
        and time): the one place a player running this agent learns why its eating may falter."""
        game = state.game
        if not self.use_tablebase or game.variant in _WARNED:
            return
        note = missing_table_note(game.variant, game.line_rule, state.masks(), limit)
        if note is not None:
            _WARNED.add(game.variant)
            LOG.warning("%s", note)

    def _report(self) -> Callable[[SolveProgress], None] | None:
        """The solver's progress callback that hands the positions searched to ``watch``'s callback."""
        progress = self.progress
        if progress is None:
            return None

        def report(solving: SolveProgress) -> None:
            progress(solving.positions)

        return report

    def reset(self) -> None:
        self.last_value = None
        self.setup.reset()
