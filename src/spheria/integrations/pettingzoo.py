"""Spheria's games as PettingZoo AEC environments (``pip install 'spheria[pettingzoo]'``).

One environment class serves every game: ``env("special-cake", variant="mint")`` (wrapped
like PettingZoo's classic environments) or ``raw_env(...)``. Agents are ``player_0``,
``player_1``, ... in seat order; the agent to act is the seat to move, so a seat may act twice
in a row when the rules say so (Mint places the 29th poisoned candy, then eats first).

* Actions are the fixed numbers of :mod:`spheria.integrations.encoding`
  (``Discrete(num_actions)``); an illegal action raises ``ValueError``.
* ``observe(agent)`` is ``{"observation": float32 features, "action_mask": int8 mask}``. The
  mask is the agent's legal actions when it is the agent to act, else all zeros.
* Spagyric's simultaneous reveal becomes two AEC steps: ``player_0`` chooses, then
  ``player_1``, and only then is the reveal played. The first choice is held by the
  environment, outside the game, and every observation is built from Spheria's
  ``observation(player)`` alone, so the second chooser cannot see the first's choice — nor
  the opponent's supply by colour, which the rules keep hidden.
* ``reset(seed=...)`` seeds what the rules leave to chance (the sugar cake);
  ``reset(options={"start": spn})`` starts from a Spheria position.
* Rewards come at the end: +1 win, -1 loss, 0 draw (teams share theirs in 4-seat Spinca).

>>> from spheria.integrations.pettingzoo import env
>>> e = env("spline")
>>> e.reset(seed=0)
>>> observation, reward, terminated, truncated, info = e.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((124,), 16)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from spheria.games.base import SIMULTANEOUS, IllegalMoveError, State, load_game
from spheria.integrations.encoding import Codec, codec_for


def _agent(seat: int) -> str:
    return f"player_{seat}"


class SpheriaEnv(AECEnv):  # type: ignore[misc]
    """An AEC environment for one Spheria game with its options fixed."""

    render_modes = ("ansi", "human")

    def __init__(self, game: str = "spline", render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        self.game = load_game(game, **options)
        self.codec: Codec = codec_for(self.game)
        if render_mode is not None and render_mode not in self.render_modes:
            raise ValueError(f"render_mode must be one of {', '.join(self.render_modes)}, not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata: dict[str, Any] = {
            "name": f"spheria_{game.replace('-', '_')}_v0",
            "render_modes": list(self.render_modes),
            "is_parallelizable": False,
            "render_fps": 1,
        }
        seats = self.game.num_players
        self.possible_agents: list[str] = [_agent(seat) for seat in range(seats)]
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (self.codec.feature_size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.codec.num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.codec.num_actions) for agent in self.possible_agents}
        self._rng = np.random.default_rng()
        self._state: State[Any] | None = None
        self._pending: dict[int, Any] = {}  # choices made so far at a simultaneous node, by seat

    # -- spaces ---------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the game ---------------------------------------------------------------------------------

    @property
    def spheria_state(self) -> State[Any]:
        """The Spheria state being played (the referee's view: read it, do not move in it)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` seeds the draw of a sugar cake; ``options={"start": SPN}`` starts
        from that Spheria position instead of the first one."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(2**32))
        start = (options or {}).get("start")
        self._state = self.game.new_initial_state(seed=game_seed) if start is None else self.game.state_from_spn(start)
        self._pending = {}
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._to_act()

    def _to_act(self) -> str:
        """The agent to act next: the seat to move, or the first seat still to choose at a simultaneous node."""
        state = self.spheria_state
        player = state.current_player()
        if player == SIMULTANEOUS:
            return _agent(min(set(range(self.game.num_players)) - set(self._pending)))
        if player >= 0:
            return _agent(player)
        return self.agents[0]  # the game is over: each agent is stepped once more with None

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.possible_agents.index(agent)
        state = self.spheria_state
        features = np.asarray(self.codec.features(state, seat), dtype=np.float32)
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations.get(agent, True) and seat not in self._pending:
            for action in self.codec.legal_actions(state, seat):
                mask[action] = 1
        return {"observation": features, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.spheria_state
        seat = self.possible_agents.index(agent)
        try:
            move = self.codec.legal_move(state, seat, int(action))
        except IllegalMoveError as error:
            raise ValueError(f"{agent}: {error}") from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if state.current_player() == SIMULTANEOUS:
            self._pending[seat] = move
            if len(self._pending) < self.game.num_players:
                self.agent_selection = self._to_act()
                return
            state.apply_joint([self._pending[s] for s in range(self.game.num_players)])
            self._pending = {}
        else:
            state.apply(move)
        if state.is_terminal():
            for s, value in enumerate(state.returns()):
                self.rewards[_agent(s)] = float(value)
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self._to_act()
        if self.render_mode == "human":
            self.render()

    # -- display ----------------------------------------------------------------------------------

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        state = self.spheria_state
        text = "\n".join([str(state), *state.status_lines()])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(game: str = "spline", render_mode: str | None = None, **options: Any) -> SpheriaEnv:
    """The environment without PettingZoo's checking wrappers."""
    return SpheriaEnv(game, render_mode=render_mode, **options)


def env(game: str = "spline", render_mode: str | None = None, **options: Any) -> Any:
    """The environment inside PettingZoo's usual wrappers (out-of-bounds actions, call order)."""
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw_env(game, render_mode=render_mode, **options))
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = ["SpheriaEnv", "env", "raw_env"]
