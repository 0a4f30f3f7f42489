"""``blunder=p``: any agent, weakened by playing a uniformly random legal move in a share of its turns.

The registry handles the option for every agent in one place (:func:`spheria.agents.registry.make_agent`):
``greedy:blunder=0.3`` is greedy wrapped in a :class:`BlunderAgent`. On each move a coin with
probability ``p`` decides: heads, the move is drawn uniformly from the legal moves (at a node
where every seat chooses at once, the seat's own choices), exactly as ``random`` draws it;
tails, the wrapped agent chooses. The coin and the random moves have generators of their own,
both seeded from the agent's ``seed``, so a seeded blunderer is reproducible, and at ``p = 1`` it
plays move for move as ``random`` with the same seed. ``p = 0`` is the agent itself (no wrapper).
Strength falls as ``p`` rises, which places levels between agents of fixed strength.

>>> import spheria
>>> from spheria.agents.registry import make_agent
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> make_agent("greedy:seed=4,blunder=1").choose(state, 0) == make_agent("random:seed=4").choose(state, 0)
True
>>> make_agent("alphabeta:depth=2,blunder=0.25").name
'alphabeta:depth=2,blunder=0.25'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from spheria.agents.options import BLUNDER
from spheria.agents.random_agent import RandomAgent
from spheria.kernel.agent import Agent, check_option, value_text
from spheria.kernel.game import Game, PlayerView


class BlunderAgent(Agent):
    """``agent``, except that with probability ``share`` a move is ``random``'s instead."""

    def __init__(self, agent: Agent, share: float, seed: int | None = None) -> None:
        self.share: float = check_option(agent.spec_name, BLUNDER, share)
        self.agent = agent
        self.spec_name = agent.spec_name  # type: ignore[misc]  # it is the wrapped agent, weakened
        self.plays = agent.plays
        self.name = f"{agent.name}{',' if ':' in agent.name else ':'}blunder={value_text(self.share)}"
        self.random = RandomAgent(seed)  # the same moves as random:seed=S
        self.coin = random.Random(None if seed is None else f"blunder/{seed}")

    def choose(self, view: PlayerView, player: int) -> Any:
        if self.coin.random() < self.share:
            return self.random.choose(view, player)
        return self.agent.choose(view, player)

    def fits(self, game: Game) -> bool:
        return self.agent.fits(game)

    def reset(self) -> None:
        self.agent.reset()

    def watch(self, progress: Callable[[int], object] | None) -> None:
        super().watch(progress)
        self.agent.watch(progress)  # the wrapped search is the one that counts positions

    def limit_time(self, seconds: float | None) -> None:
        super().limit_time(seconds)
        self.agent.limit_time(seconds)  # the wrapped search is the one that thinks

    def max_seconds_per_move(self) -> float:
        return self.agent.max_seconds_per_move()
