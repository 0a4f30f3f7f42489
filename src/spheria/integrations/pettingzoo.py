"""Spheria's games as PettingZoo environments (``pip install 'spheria[pettingzoo]'``).

One AEC environment class serves every game that offers a codec (see
:mod:`spheria.kernel.codec`): ``env(game, **options)`` (wrapped like PettingZoo's classic
environments) or ``raw_env(...)``; ``parallel_env(...)`` is the same game as a
``ParallelEnv``. Agents are ``player_0``, ``player_1``, ... in seat order.

* Actions are the fixed numbers of the game's codec (``Discrete(num_actions)``); an illegal
  action raises ``ValueError``.
* ``observe(agent)`` is ``{"observation": float32 features, "action_mask": int8 mask}``. The
  mask is the agent's legal actions when it has something to decide, else all zeros.
* Observations are agent-relative by default (``relative=False`` gives the absolute frame):
  the board's colour planes are empty, the agent's own colour, then the colours of the seats
  after it in turn order (then any other colour), and every per-seat block (the codec's
  ``seat_blocks``: seat to move, observer, ...) starts at the agent's own seat. So one policy
  can play every seat. Seats without a colour of their own keep the absolute colour planes.
* AEC: the agent to act is the seat to move, so a seat may act twice in a row when the rules
  say so. A simultaneous move becomes one AEC step per seat, in seat order, and only then is
  it played; the choices made so far are held by the environment, outside the game, and a
  game of hidden information builds every observation from Spheria's ``observation(player)``
  alone, so a later chooser cannot see an earlier one's choice.
* Parallel: every live agent sends an action each step; those with something to decide are
  played (all at once at a simultaneous move), the others' are ignored (send 0, or sample
  with the all-zero mask, as ``parallel_api_test`` does).
* ``reset(seed=...)`` seeds what the rules leave to chance (a first position drawn at random);
  ``reset(options={"start": spn})`` starts from a Spheria position.
* Rewards come at the end: the game's returns (+1 win, -1 loss, 0 draw; teams share theirs).
* ``render_mode``: ``"ansi"`` (text), ``"human"`` (printed) or ``"rgb_array"`` (the pyramid
  seen from above, see :mod:`spheria.integrations.render`).

Every game's first observation has its codec's size and some legal action:

>>> from spheria.integrations.pettingzoo import env
>>> from spheria.kernel.codec import offers_codec
>>> from spheria.kernel.registry import game_class, game_names
>>> names = [name for name in game_names() if offers_codec(game_class(name))]
>>> for name in names:
...     e = env(name)
...     e.reset(seed=0)
...     observation, reward, terminated, truncated, info = e.last()
...     codec = e.unwrapped.codec
...     assert observation["observation"].shape == (codec.feature_size,), name
...     assert observation["action_mask"].shape == (codec.num_actions,) and observation["action_mask"].any(), name
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from spheria.integrations.render import board_of, pyramid_image
from spheria.kernel.codec import Codec, codec_for, relative_permutation
from spheria.kernel.game import SIMULTANEOUS, Game, MoveError, State
from spheria.kernel.record import set_up
from spheria.kernel.registry import load_game

RENDER_MODES = ("ansi", "human", "rgb_array")


def _agent(seat: int) -> str:
    return f"player_{seat}"


class _Spaces:
    """What the AEC and parallel environments share: the game, its codec, spaces and observations."""

    def _setup(self, game: str, render_mode: str | None, relative: bool, options: dict[str, Any]) -> None:
        self.game: Game = load_game(game, **options)
        self.codec: Codec = codec_for(self.game)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        self.render_mode = render_mode
        self.relative = relative
        self.possible_agents: list[str] = [_agent(seat) for seat in range(self.game.num_players)]
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
        seats = range(self.game.num_players)
        self._frames = [np.array(relative_permutation(self.codec, seat), dtype=np.intp) for seat in seats]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def spheria_state(self) -> State[Any]:
        """The Spheria state being played (the referee's view: read it, do not move in it)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _new_state(self, seed: int | None, options: dict[str, Any] | None) -> State[Any]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(2**32))
        start = (options or {}).get("start")
        return set_up(self.game, start=start, seed=game_seed)

    def _features(self, seat: int) -> np.ndarray:
        values = np.asarray(self.codec.features(self.spheria_state, seat), dtype=np.float32)
        return values[self._frames[seat]] if self.relative else values

    def _mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        mask[self.codec.legal_actions(self.spheria_state, seat)] = 1
        return mask

    def _render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        state = self.spheria_state
        if self.render_mode == "rgb_array":
            return pyramid_image(board_of(state))
        text = "\n".join([str(state), *state.status_lines()])
        if self.render_mode == "human":
            print(text)
            return None
        return text


class SpheriaEnv(_Spaces, AECEnv):  # type: ignore[misc]
    """An AEC environment for one Spheria game with its options fixed."""

    render_modes = RENDER_MODES

    def __init__(self, game: str, render_mode: str | None = None, relative: bool = True, **options: Any) -> None:
        AECEnv.__init__(self)
        self._setup(game, render_mode, relative, options)
        self.metadata: dict[str, Any] = {
            "name": f"spheria_{game.replace('-', '_')}_v0",
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,  # parallel_env() is the parallel form
            "render_fps": 1,
        }
        self._pending: dict[int, Any] = {}  # choices made so far at a simultaneous node, by seat

    # -- the game ---------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` seeds what the rules leave to chance; ``options={"start": SPN}`` starts
        from that Spheria position instead of the first one."""
        self._state = self._new_state(seed, options)
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
        if agent == self.agent_selection and not self.terminations.get(agent, True) and seat not in self._pending:
            mask = self._mask(seat)
        else:
            mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        return {"observation": self._features(seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.spheria_state
        seat = self.possible_agents.index(agent)
        try:
            move = self.codec.legal_move(state, seat, int(action))
        except MoveError as error:
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

    def render(self) -> str | np.ndarray | None:
        return self._render()

    def close(self) -> None:
        pass


class SpheriaParallelEnv(_Spaces, ParallelEnv):  # type: ignore[misc]
    """A parallel environment for one Spheria game: every live agent sends an action each step;
    those of the agents with something to decide are played, at once at a simultaneous node."""

    render_modes = RENDER_MODES

    def __init__(self, game: str, render_mode: str | None = None, relative: bool = True, **options: Any) -> None:
        self._setup(game, render_mode, relative, options)
        self.metadata: dict[str, Any] = {
            "name": f"spheria_{game.replace('-', '_')}_parallel_v0",
            "render_modes": list(RENDER_MODES),
            "render_fps": 1,
        }
        self.agents: list[str] = []

    def _deciding(self) -> list[int]:
        state = self.spheria_state
        return [seat for seat in range(self.game.num_players) if state.legal_moves(seat)]

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        deciding = set(self._deciding())
        zeros = np.zeros(self.codec.num_actions, dtype=np.int8)
        return {
            agent: {
                "observation": self._features(seat),
                "action_mask": self._mask(seat) if seat in deciding else zeros.copy(),
            }
            for seat, agent in enumerate(self.possible_agents)
            if agent in self.agents
        }

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new game (``seed`` and ``options={"start": SPN}`` as in the AEC environment)."""
        self._state = self._new_state(seed, options)
        self.agents = self.possible_agents[:]
        return self._observations(), {agent: {} for agent in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        state = self.spheria_state
        deciding = self._deciding()
        moves = []
        for seat in deciding:
            agent = self.possible_agents[seat]
            if agent not in actions:
                raise ValueError(f"{agent} has a decision to make and sent no action")
            try:
                moves.append(self.codec.legal_move(state, seat, int(actions[agent])))
            except MoveError as error:
                raise ValueError(f"{agent}: {error}") from None
        if state.current_player() == SIMULTANEOUS:
            state.apply_joint(moves)
        else:
            state.apply(moves[0])
        over = state.is_terminal()
        values = state.returns() if over else [0.0] * self.game.num_players
        rewards = {agent: float(values[seat]) for seat, agent in enumerate(self.possible_agents)}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        observations = self._observations()
        rewards = {agent: rewards[agent] for agent in self.agents}
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | np.ndarray | None:
        return self._render()

    def close(self) -> None:
        pass


def raw_env(game: str, render_mode: str | None = None, relative: bool = True, **options: Any) -> SpheriaEnv:
    """The AEC environment without PettingZoo's checking wrappers."""
    return SpheriaEnv(game, render_mode=render_mode, relative=relative, **options)


def env(game: str, render_mode: str | None = None, relative: bool = True, **options: Any) -> Any:
    """The AEC environment inside PettingZoo's usual wrappers (out-of-bounds actions, call order)."""
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw_env(game, render_mode=render_mode, relative=relative, **options))
    return wrappers.OrderEnforcingWrapper(wrapped)


def parallel_env(
    game: str, render_mode: str | None = None, relative: bool = True, **options: Any
) -> SpheriaParallelEnv:
    """The game as a PettingZoo ``ParallelEnv`` (a simultaneous move is one step for every seat)."""
    return SpheriaParallelEnv(game, render_mode=render_mode, relative=relative, **options)


__all__ = ["RENDER_MODES", "SpheriaEnv", "SpheriaParallelEnv", "env", "parallel_env", "raw_env"]
