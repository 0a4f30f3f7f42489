"""The greedy agent: look one move ahead, win if it can, never hand the opponent a win in one.

For each legal move it judges the position the move leaves, in this order:

1. the move wins at once — take it;
2. the game goes on and the next player cannot win with their next move (or the move ends
   the game in a draw) — rank by the game's evaluation (its kit's knowledge, see :mod:`spheria.agents.heuristics`);
3. the next player could then win at once — only if nothing better exists;
4. the move loses at once — last resort.

Ties are broken at random with the agent's own generator, so the same seed gives the same game.

>>> import spheria
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> GreedyAgent(seed=1).choose(state, 0) in state.legal_moves()
True
"""

from __future__ import annotations

import random
from typing import Any

from spheria.agents.heuristics import evaluation, require_state, win_test
from spheria.agents.options import SEED
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import PlayerView, State

_WINS, _SAFE, _UNSAFE, _LOSES = 30.0, 20.0, 10.0, 0.0


class GreedyAgent(Agent):
    """One-ply search with the game's evaluation and a random tie-break."""

    spec_name = "greedy"
    option_specs = (SEED,)
    plays = Plays(hidden_information=False)

    def __init__(self, seed: int | None = None) -> None:
        values = self.checked_options(seed=seed)
        self.seed: int | None = values["seed"]
        self.name = self.spec_from(values)
        self.rng = random.Random(self.seed)

    def choose(self, view: PlayerView, player: int) -> Any:
        state = require_state(view, player, "greedy")
        work = state.clone()
        best: list[Any] = []
        best_score = float("-inf")
        for move in state.legal_moves():
            work.apply(move)
            score = round(self.score(work, player), 9)
            work.undo()
            if score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return self.rng.choice(best)

    @staticmethod
    def score(state: State[Any], player: int) -> float:
        """How much ``player`` likes the position a move left: tier (30/20/10/0) plus evaluation."""
        if state.is_terminal():
            result = state.returns()[player]
            return _WINS if result > 0 else _LOSES if result < 0 else _SAFE
        value = evaluation(state.game)(state, player)
        to_move = state.current_player()
        if to_move >= 0 and to_move != player and win_test(state.game)(state):
            return _UNSAFE + value
        return _SAFE + value
