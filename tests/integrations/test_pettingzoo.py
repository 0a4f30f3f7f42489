"""Spheria's games as PettingZoo environments: the AEC and parallel API tests, masks, rewards,
hidden information, agent-relative observations and the rgb_array picture."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, parallel_api_test

import spheria
from spheria.engine.board import parse_site
from spheria.integrations.pettingzoo import SpheriaEnv, env, parallel_env, raw_env
from spheria.integrations.render import BALLS, CELL, MARGIN
from spheria.kernel import registry
from spheria.kernel.codec import codec_for, to_relative
from spheria.kernel.game import SIMULTANEOUS
from tests.conftest import SecretNumbers

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
        assert environment.spheria_state.history == ()  # nothing is played until both have chosen
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
        own = codec.features_from_observation(first.spheria_state.observation(seat))  # type: ignore[attr-defined]
        assert np.allclose(seen, to_relative(codec, own, seat))


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
        raw_env("spline", render_mode="svg")


# -- parallel environments ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_pettingzoo_parallel_api_test_passes(name: str, options: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(name, **options), num_cycles=300)
    assert not [w for w in caught if "Live agent" in str(w.message) or "dead" in str(w.message)]


def test_a_parallel_spagyric_reveal_is_one_step_for_both_seats() -> None:
    environment = parallel_env("spagyric", supply=2)
    observations, _ = environment.reset(seed=0)
    assert all(list(np.flatnonzero(observations[a]["action_mask"])) == [0, 1, 2] for a in environment.agents)
    observations, rewards, *_ = environment.step({"player_0": 2, "player_1": 0})  # red beats white
    assert environment.spheria_state.history_notation() == ["r:w"]
    # Seat 1 places alone; seat 2's mask is empty and whatever it sends is ignored.
    assert not observations["player_1"]["action_mask"].any()
    environment.step({"player_0": 3 + parse_site("0a1"), "player_1": 0})
    assert environment.spheria_state.history_notation() == ["r:w", "0a1"]
    with pytest.raises(ValueError, match="player_1 has a decision to make"):
        environment.step({"player_0": 0})
    assert rewards == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_parallel_games_end_with_spheria_s_returns(name: str, options: dict[str, Any]) -> None:
    environment = parallel_env(name, **options)
    observations, _ = environment.reset(seed=3)
    rng = np.random.default_rng(3)
    rewards: dict[str, float] = {}
    while environment.agents:
        actions = {}
        for agent in environment.agents:
            legal = np.flatnonzero(observations[agent]["action_mask"])
            actions[agent] = int(rng.choice(legal)) if len(legal) else 0
        observations, rewards, terminations, _, _ = environment.step(actions)
    assert all(terminations.values())
    returns = environment.spheria_state.returns()
    assert rewards == {f"player_{seat}": value for seat, value in enumerate(returns)}


# -- agent-relative observations and the picture ---------------------------------------------------


def test_observations_are_agent_relative() -> None:
    # White on 0a1, Black on 0b1. Each agent sees its own ball in plane 1 and the other's in plane 2,
    # and itself as seat 0 of the seat blocks (to move, observer).
    environment = raw_env("spline")
    environment.reset()
    environment.step(parse_site("0a1"))
    environment.step(parse_site("0b1"))
    a1, b1 = parse_site("0a1"), parse_site("0b1")
    for agent, own, other in (("player_0", a1, b1), ("player_1", b1, a1)):
        planes = environment.observe(agent)["observation"][:120].reshape(4, 30)
        assert planes[1, own] == 1 and planes[2, other] == 1 and planes[1, other] == 0
        assert planes[0].sum() == 28 and planes[3].sum() == 0
    assert list(environment.observe("player_0")["observation"][120:]) == [1, 0, 1, 0]  # I am to move
    assert list(environment.observe("player_1")["observation"][120:]) == [0, 1, 1, 0]  # the other is
    absolute = raw_env("spline", relative=False)
    absolute.reset(options={"start": environment.spheria_state.to_spn()})
    assert absolute.observe("player_1")["observation"][:120].reshape(4, 30)[1, a1] == 1  # white is white


def test_three_seat_spinca_planes_follow_turn_order() -> None:
    environment = raw_env("spinca", players=3)
    environment.reset(options={"start": "wbr............./........./..../. 1 0c1"})
    planes = environment.observe("player_1")["observation"][:120].reshape(4, 30)
    # Black's frame: black (own), red (the next seat), white (the one after).
    assert [int(planes[p, s]) for p, s in ((1, 1), (2, 2), (3, 0))] == [1, 1, 1]


def test_rgb_array_draws_the_pyramid_from_above() -> None:
    environment = raw_env("spline", render_mode="rgb_array")
    environment.reset()
    environment.step(parse_site("0a1"))  # a white ball in the corner (rank 1 at the bottom)
    image = environment.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.shape == (4 * CELL + 2 * MARGIN,) * 2 + (3,)
    corner = image[image.shape[0] - MARGIN - CELL // 2, MARGIN + CELL // 2]
    assert tuple(corner) == BALLS[0]
    opposite = image[MARGIN + CELL // 2, image.shape[1] - MARGIN - CELL // 2]  # 0d4: empty
    assert tuple(opposite) not in BALLS
    full = parallel_env("special-cake", variant="sugar", render_mode="rgb_array")
    full.reset(seed=1)
    top = full.render()
    assert isinstance(top, np.ndarray)
    centre = top[top.shape[0] // 2, top.shape[1] // 2]  # the apex, 3a1, over everything
    assert tuple(centre) == BALLS[full.spheria_state.board.color_at(parse_site("3a1"))]  # type: ignore[attr-defined]


def test_a_game_without_a_codec_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._REGISTRY, SecretNumbers.name, SecretNumbers)
    for make in (raw_env, env, parallel_env):
        with pytest.raises(ValueError, match="'test-secret-numbers' offers no codec"):
            make(SecretNumbers.name)
