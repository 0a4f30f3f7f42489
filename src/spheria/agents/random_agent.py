"""The random agent: a uniformly random legal move."""

from __future__ import annotations

import random
from typing import Any

from spheria.agents.options import SEED
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView


class RandomAgent(Agent):
    """Picks uniformly among the legal moves; the same seed gives the same choices.

    >>> import spheria
    >>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
    >>> RandomAgent(seed=1).choose(state, 0) == RandomAgent(seed=1).choose(state, 0)
    True
    """

    spec_name = "random"
    option_specs = (SEED,)

    def __init__(self, seed: int | None = None) -> None:
        values = self.checked_options(seed=seed)
        self.seed: int | None = values["seed"]
        self.name = self.spec_from(values)
        self.rng = random.Random(self.seed)

    def choose(self, view: PlayerView, player: int) -> Any:
        moves = view.legal_moves(player)
        if not moves:
            raise ValueError(f"seat {player} has no legal move here")
        return self.rng.choice(moves)
