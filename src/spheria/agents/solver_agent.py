"""The solver agent: perfect play in Special Cake's eating phase.

In a won position it plays a winning move the exact solver proved; in a lost one it eats as
little as it can (a random choice among the smallest eats), leaving a fallible opponent the
most room to go wrong. The set-up phase is not solved: another agent (option ``setup``,
default ``greedy``) builds the cake; ``setup=planner`` plans it for the eating phase with the
solver's help (see :mod:`spheria.agents.planner`).

``last_value`` holds the solver's verdict on the last eating position it was asked about
(+1 won, -1 lost), so a test or the arena can check that it never loses a game it judged won.

>>> import spheria
>>> state = spheria.load_game("special-cake").state_from_spn("w.b............./........./..../. 1 eat")
>>> agent = SolverAgent(seed=1)
>>> str(agent.choose(state, 0)), agent.last_value
('0a1', 1)
"""

from __future__ import annotations

import random
from typing import Any

from spheria.agents.base import Agent, Plays
from spheria.agents.heuristics import require_state
from spheria.agents.options import SEED, AgentOption, check_max_time, time_option
from spheria.games.base import PlayerView
from spheria.games.special_cake import PLACE, CakeState, SpecialCake

SETUP_AGENTS = ("random", "greedy", "mcts", "planner")


class SolverAgent(Agent):
    """Exact in the eating phase; ``setup`` agent in the set-up; ``time`` caps a solve (seconds)."""

    spec_name = "solver"
    option_specs = (
        SEED,
        AgentOption("setup", "greedy", "the agent that builds the cake", SETUP_AGENTS),
        time_option(None, "seconds a solve may take (default: the caller's max_time)"),
    )
    plays = Plays(games=(SpecialCake,), seats=(2,))

    def __init__(
        self, seed: int | None = None, setup: str = "greedy", time: float | None = None, max_time: float | None = None
    ) -> None:
        from spheria.agents.registry import make_agent  # the registry imports this module

        self.time_cap = check_max_time(max_time)
        values = self.checked_options(self.time_cap, seed=seed, setup=setup, time=time)
        self.seed: int | None = values["seed"]
        self.time: float | None = values["time"]
        self.rng = random.Random(self.seed)
        setup_spec = values["setup"] if self.seed is None else f"{values['setup']}:seed={self.seed}"
        self.setup = make_agent(setup_spec, max_time=self.time_cap)
        self.plays = Plays((SpecialCake,), self.setup.plays.variants, (2,))  # setup=planner narrows it
        self.name = self.spec_from(values)
        self.last_value: int | None = None

    def max_seconds_per_move(self) -> float:
        """A solve's limit (``time``, else the caller's ``max_time``), or the set-up agent's budget."""
        return max(self.time if self.time is not None else self.time_cap, self.setup.max_seconds_per_move())

    def choose(self, view: PlayerView, player: int) -> Any:
        from spheria.solver import solve  # the compiled solver loads only when it is needed

        state = require_state(view, player, "solver")
        if not isinstance(state, CakeState):
            raise ValueError(f"the solver plays Special Cake, not {state.game.name}")
        if state.phase == PLACE:
            return self.setup.choose(state, player)
        try:
            limit = self.time if self.time is not None else self.time_cap
            result = solve(state, time_limit=limit, stop_at_first=True)
        except TimeoutError:
            self.last_value = None
            return self.setup.choose(state, player)
        self.last_value = result.value
        if result.value > 0:
            return result.best_moves[0]
        smallest = min(len(move.sites) for move in result.best_moves)
        return self.rng.choice([move for move in result.best_moves if len(move.sites) == smallest])

    def reset(self) -> None:
        self.last_value = None
        self.setup.reset()
