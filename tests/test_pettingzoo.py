"""Spheria's games as PettingZoo AEC environments: the API test, masks, rewards, hidden information."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test

import spheria
from spheria.engine.board import parse_site
from spheria.games.base import SIMULTANEOUS
from spheria.integrations.encoding import codec_for
from spheria.integrations.pettingzoo import SpheriaEnv, env, raw_env

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned"}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spline", {}),
    ("spagyric", {}),
    ("spagyric", {"supply": 2}),
]
IDS = [name + "".join(f"-{v}" for v in options.values()) for name, options in CONFIGS]


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_pettingzoo_api_test_passes(name: str, options: dict[str, Any]) -> None:
    environment = env(name, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(environment, num_cycles=300)
    # The only remarks are the two api_test makes of every dict observation it does not know by name.
    remarks = {str(w.message).split(" probably")[0].split(" is not")[0] for w in caught}
    assert remarks <= {"Observation", "Observation space for each agent"}, remarks


def _random_game(environment: SpheriaEnv, seed: int) -> tuple[list[tuple[str, np.ndarray]], dict[str, float]]:
    """Play one game with random legal actions; check each mask against Spheria; return the
    (agent, observation) steps and each agent's total reward."""
    environment.reset(seed=seed)
    rng = np.random.default_rng(seed)
    codec = environment.codec
    totals: dict[str, float] = {}
    seen = []
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            environment.step(None)
            continue
        seat = environment.possible_agents.index(agent)
        state = environment.spheria_state
        legal = codec.legal_actions(state, seat)
        assert list(np.flatnonzero(observation["action_mask"])) == legal
        assert observation["action_mask"].dtype == np.int8 and observation["observation"].dtype == np.float32
        for other in environment.agents:  # every other agent's mask is empty
            if other != agent:
                assert not environment.observe(other)["action_mask"].any()
        seen.append((agent, observation["observation"]))
        environment.step(int(rng.choice(legal)))
    return seen, totals


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_masks_are_spheria_legal_moves_and_rewards_its_returns(name: str, options: dict[str, Any]) -> None:
    environment = raw_env(name, **options)
    _, totals = _random_game(environment, seed=4)
    returns = environment.spheria_state.returns()
    assert environment.spheria_state.is_terminal()
    assert totals == {f"player_{seat}": value for seat, value in enumerate(returns)}
    assert environment.agents == []  # every agent was stepped out with None


def test_the_agent_to_act_is_the_seat_to_move() -> None:
    environment = raw_env("special-cake", variant="poisoned")
    environment.reset(seed=0)
    # Mint places the 29th candy (the cherry goes on top by itself), then Mint eats first.
    state = environment.spheria_state
    while state.phase == "place":  # type: ignore[attr-defined]
        assert environment.agent_selection == f"player_{state.current_player()}"
        mask = environment.observe(environment.agent_selection)["action_mask"]
        environment.step(int(np.flatnonzero(mask)[0]))
    assert state.board.count() == 30  # type: ignore[attr-defined]
    assert environment.agent_selection == "player_0"
    assert len(state.history) == 29  # 15 mint and 14 liquorice placed


def test_the_seed_fixes_the_sugar_cake() -> None:
    environment = raw_env("special-cake", variant="sugar")
    cakes = []
    for seed in (1, 1, 2):
        environment.reset(seed=seed)
        cakes.append(environment.spheria_state.to_spn())
    assert cakes[0] == cakes[1] != cakes[2]


def test_an_illegal_action_is_refused() -> None:
    environment = raw_env("spline")
    environment.reset()
    environment.step(parse_site("0a1"))
    with pytest.raises(ValueError, match="not legal"):
        environment.step(parse_site("0a1"))  # taken
    with pytest.raises(ValueError, match=r"not 0\.\.29"):
        environment.step(30)


def test_a_game_can_start_from_a_spheria_position() -> None:
    environment = raw_env("special-cake", variant="mint")
    environment.reset(options={"start": "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 2 eat"})
    assert environment.agent_selection == "player_1"
    mask = environment.observe("player_1")["action_mask"]
    state = spheria.load_game("special-cake").state_from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 2 eat")
    assert int(mask.sum()) == len(state.legal_moves())


def test_spinca_teams_share_their_reward() -> None:
    environment = raw_env("spinca", players=4)
    _, totals = _random_game(environment, seed=9)
    assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"]


def test_spagyric_reveals_are_two_steps_and_the_second_chooser_sees_no_first_choice() -> None:
    views = set()
    for first in (0, 1, 2):
        environment = raw_env("spagyric", supply=2)
        environment.reset(seed=0)
        assert environment.spheria_state.current_player() == SIMULTANEOUS
        assert environment.agent_selection == "player_0"
        before = environment.observe("player_1")["observation"].copy()
        environment.step(first)
        assert environment.agent_selection == "player_1"
        assert environment.spheria_state.history == []  # nothing is played until both have chosen
        assert not environment.observe("player_0")["action_mask"].any()
        after = environment.observe("player_1")
        assert np.array_equal(after["observation"], before)
        views.add(after["observation"].tobytes())
        assert list(np.flatnonzero(after["action_mask"])) == [0, 1, 2]
        environment.step(1)  # seat 2 shows black
        assert len(environment.spheria_state.history) == 1
    assert len(views) == 1


def test_spagyric_observations_are_built_from_the_seat_s_observation_only() -> None:
    # The same board and supplies, but the bags say who lost which ball: hidden from both seats.
    first, second = raw_env("spagyric", supply=2), raw_env("spagyric", supply=2)
    first.reset(options={"start": "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 1,1,1 0,0,0"})
    second.reset(options={"start": "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 0,0,0 1,1,1"})
    assert first.spheria_state.to_spn() != second.spheria_state.to_spn()
    codec = codec_for(first.game)
    for agent, seat in (("player_0", 0), ("player_1", 1)):
        seen = first.observe(agent)["observation"]
        assert np.array_equal(seen, second.observe(agent)["observation"])
        assert np.allclose(seen, codec.features_from_observation(first.spheria_state.observation(seat)))  # type: ignore[attr-defined]


def test_spagyric_own_supply_is_seen_and_the_opponent_s_only_as_a_count() -> None:
    environment = raw_env("spagyric", supply=2)
    environment.reset(seed=0)
    environment.step(0)  # white ...
    environment.step(1)  # ... beats black: seat 1 places
    environment.step(3 + parse_site("0a1"))
    layout = environment.codec.layout
    assert [name for name, _ in layout] == [
        "board",
        "phase",
        "to_decide",
        "placer",
        "placing",
        "stunned",
        "supply",
        "hands",
        "observer",
    ]
    # Blocks in order: board 4x30, phase 4, to_decide 2, placer 2, placing 3, stunned 3, supply 3, ...
    supply, hands = slice(134, 137), slice(137, 139)
    mine = environment.observe("player_0")["observation"]
    theirs = environment.observe("player_1")["observation"]
    # Supplies as fractions of 2: seat 1 holds w1 b2 r2, seat 2 w2 b1 r2; both hold 5 balls of 6.
    assert list(mine[supply]) == [0.5, 1.0, 1.0] and list(theirs[supply]) == [1.0, 0.5, 1.0]
    assert list(mine[hands]) == pytest.approx([5 / 6, 5 / 6])


def test_the_environment_is_a_pettingzoo_aec_env_that_renders_text() -> None:
    environment = raw_env("spline", render_mode="ansi")
    assert isinstance(environment, AECEnv)
    assert str(environment) == "spheria_spline_v0"
    environment.reset()
    text = environment.render()
    assert text is not None and "White to place." in text
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("spline", render_mode="rgb_array")
