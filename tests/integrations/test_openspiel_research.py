"""Spheria's OpenSpiel games as a researcher uses them, through OpenSpiel's own tools.

OpenSpiel's ``games_sim_test`` (its ``sim_game``: pickling the game, cloning, both kinds of
serialisation at every power of two), ``rl_environment`` with random agents, ISMCTS on
Spagyric, the notation round trip of every legal move, joint actions at a reveal, the struct
and JSON API, the observers, and the bounds of the information-state tensor.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts, tabular_qlearner
from open_spiel.python.algorithms import random_agent as rl_random_agent
from open_spiel.python.tests import games_sim_test

import spheria
from spheria.engine.board import parse_site
from spheria.games.spagyric.codec import SpagyricCodec, spagyric_max_length
from spheria.games.spagyric.rules import Spagyric
from spheria.integrations import openspiel

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("spheria_special_cake", {"variant": "mint"}),
    ("spheria_special_cake", {"variant": "poisoned", "line_rule": "any"}),
    ("spheria_special_cake_sugar", {"outcomes": 50}),
    ("spheria_spinca", {"players": 2}),
    ("spheria_spinca_3", {}),
    ("spheria_spinca_4", {}),
    ("spheria_spline", {}),
    ("spheria_spagyric", {"supply": 2}),
    ("spheria_spagyric", {}),
]
IDS = [name.removeprefix("spheria_") + "".join(f"-{v}" for v in params.values()) for name, params in CONFIGS]


class _SimTest(games_sim_test.GamesSimTest):  # type: ignore[misc]
    """OpenSpiel's own simulation test case, run on one game at a time."""

    __test__ = False  # not OpenSpiel's parameterised tests of its own games: only sim_game, called below

    def runTest(self) -> None:  # unittest needs a test method to build the case
        pass


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_openspiel_games_sim_test_passes(name: str, params: dict[str, Any]) -> None:
    """OpenSpiel's ``sim_game``: the game and its type pickle, states clone, serialise and pickle."""
    game = pyspiel.load_game(name, params)
    np.random.seed(3)
    _SimTest().sim_game(game)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        _SimTest().sim_game(pyspiel.convert_to_turn_based(game))


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_games_pickle_and_come_back_equal(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.get_type() == game.get_type()
    assert again.max_game_length() == game.max_game_length()
    # The classes are bound in the module, so pickle also finds them by name.
    assert getattr(openspiel, type(game).__name__) is type(game)


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_rl_environment_plays_whole_games_with_random_agents(name: str, params: dict[str, Any]) -> None:
    """The loop of OpenSpiel's RL examples (DQN, NFSP, PSRO), as they write it: in a simultaneous
    game every seat's agent steps every time, so every seat needs a legal action at every step
    (a seat with nothing to decide has the one no-op), as on goofspiel."""
    env = rl_environment.Environment(pyspiel.load_game(name, params), enable_legality_check=True)
    seats = env.num_players
    np.random.seed(5)
    agents = [
        rl_random_agent.RandomAgent(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in range(seats)
    ]
    for _ in range(3):
        time_step = env.reset()
        steps = 0
        while not time_step.last():
            if env.is_turn_based:
                actions = [agents[time_step.observations["current_player"]].step(time_step).action]
            else:
                assert time_step.observations["current_player"] == pyspiel.PlayerId.SIMULTANEOUS
                actions = [agent.step(time_step).action for agent in agents]
            time_step = env.step(actions)
            steps += 1
        assert steps > 0
        assert sum(time_step.rewards) == pytest.approx(0.0) or seats == 3
        assert all(r in (-1.0, 0.0, 1.0) for r in time_step.rewards)


def test_openspiel_s_tabular_q_learners_train_on_spagyric_in_the_plain_loop() -> None:
    """OpenSpiel's own tabular QLearner for both seats, every seat stepping every time (its
    examples' loop), over whole episodes; the decided games teach each seat some values."""
    game = pyspiel.load_game("spheria_spagyric", {"supply": 3})
    env = rl_environment.Environment(game, enable_legality_check=True)
    np.random.seed(8)
    learners = [tabular_qlearner.QLearner(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in range(2)]
    waited = [0, 0]
    outcomes = []
    for _ in range(30):
        time_step = env.reset()
        while not time_step.last():
            actions = [learner.step(time_step).action for learner in learners]
            for seat, action in enumerate(actions):
                waited[seat] += action == game.wait_action
            time_step = env.step(actions)
        for learner in learners:
            learner.step(time_step)  # the last step: each learns from the episode's end
        outcomes.append(tuple(time_step.rewards))
    assert len(outcomes) == 30 and set(outcomes) <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    assert {(1.0, -1.0), (-1.0, 1.0)} <= set(outcomes)  # each seat won some
    assert waited[0] > 0 and waited[1] > 0  # each seat sat out some of the other's placements
    for learner in learners:
        assert any(q != 0.0 for values in learner._q_values.values() for q in values.values())


def test_a_placement_gives_the_idle_seat_one_no_op_action() -> None:
    """As in OpenSpiel's own simultaneous games, a seat with nothing to decide has one legal action."""
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    wait = game.wait_action
    assert wait == SpagyricCodec(game.spheria).num_actions == game.num_distinct_actions() - 1
    state = game.new_initial_state()
    assert wait not in state.legal_actions(0) + state.legal_actions(1)  # both choose at a reveal
    state.apply_actions([0, 1])  # white beats black: seat 1 places
    assert state.spheria.current_player() == 0  # Spheria's placer; to OpenSpiel a joint move with a wait
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS and state.is_simultaneous_node()
    assert state.legal_actions(0) == [3 + site for site in range(16)] and state.legal_actions(1) == [wait]
    assert state.action_to_string(1, wait) == "wait" and state.string_to_action(1, "wait") == wait
    # The flat joint actions are the placements, each with the idle seat's wait.
    assert state.legal_actions() == list(range(16))
    assert state.action_to_string(5) == "0b2:wait" and state.string_to_action("0b2:wait") == 5
    with pytest.raises(ValueError, match="seat 0 has a move to choose here: it cannot wait"):
        state.string_to_action(0, "wait")
    with pytest.raises(ValueError, match=r"seat 1 has nothing to decide here: its one action is 33 \(wait\), not 0"):
        state.apply_actions([3 + parse_site("0a1"), 0])
    assert str(state).endswith("place 1w 1,2,2 2,1,2 0,0,0 0,0,0 0,1,0")  # refused: unchanged
    state.apply_actions([3 + parse_site("0a1"), wait])
    assert str(state).startswith("w...") and state.history() == [0, 1, 3, wait]
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert state.legal_actions(0) == state.legal_actions(1) == [0, 1, 2]  # the next reveal
    # A flat joint action plays the same placement; seat 2 placing is written the other way round.
    flat = game.new_initial_state()
    flat.apply_actions([0, 1])
    flat.apply_action(flat.string_to_action("0a1:wait"))
    assert str(flat) == str(state)
    other = game.new_initial_state()
    other.apply_actions([1, 0])  # black loses to white: seat 2 places
    assert other.legal_actions(0) == [wait] and other.action_to_string(0) == "wait:0a1"


def test_a_struct_names_one_seat_s_placement() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="seat 1 chooses too here: name every seat's choice"):
        state.apply_action_struct(state.action_to_struct(0, 1))  # a reveal needs both colours
    state.apply_actions([0, 1])
    struct = state.action_to_struct(0, 3 + parse_site("0b2"))
    assert json.loads(struct.to_json()) == {"player": 0, "move": "0b2"}
    state.apply_action_struct(struct)  # the idle seat's wait is implied
    assert str(state).startswith(".....w..")


def test_a_reveal_lists_flat_joint_actions_and_reads_joint_notation() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state()
    # Seat 1's colour varies fastest, as in OpenSpiel's C++ simultaneous games.
    assert state.legal_actions() == list(range(9))
    assert [state.action_to_string(a) for a in state.legal_actions()[:4]] == ["w:w", "b:w", "r:w", "w:b"]
    assert state.string_to_action("w:b") == 3
    assert state.string_to_action(0, "r") == 2 and state.string_to_action(1, "b") == 1
    flat, joint = state.clone(), state.clone()
    flat.apply_action(state.string_to_action("r:w"))
    joint.apply_actions([2, 0])
    assert str(flat) == str(joint) and flat.spheria.current_player() == 0  # red beats white: seat 1 places
    assert flat.current_player() == pyspiel.PlayerId.SIMULTANEOUS and flat.legal_actions(1) == [game.wait_action]
    with pytest.raises(ValueError, match="one choice per seat"):
        state.string_to_action("w")


def _random_positions(name: str, params: dict[str, Any], seed: int) -> list[Any]:
    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    state = game.new_initial_state()
    positions = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        positions.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return positions


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_every_legal_action_round_trips_through_spheria_notation(name: str, params: dict[str, Any]) -> None:
    """action -> action_to_string -> Spheria's parse_move and string_to_action -> the same action."""
    for state in _random_positions(name, params, seed=9)[::3]:
        seats = range(state.num_players()) if state.is_simultaneous_node() else [state.current_player()]
        for seat in seats:
            mirror = state.spheria
            for action in state.legal_actions(seat):
                text = state.action_to_string(seat, action)
                if action == state.get_game().wait_action:  # the no-op is no Spheria move
                    assert text == "wait" and not mirror.legal_moves(seat)
                    assert state.string_to_action(seat, text) == action
                    continue
                move = mirror.parse_move(text, seat)
                assert str(move) == text
                assert state.get_game().codec.action_of(mirror, move) == action
                assert state.string_to_action(seat, text) == action
        if state.is_simultaneous_node():
            for flat in state.legal_actions():
                assert state.string_to_action(state.action_to_string(flat)) == flat


def test_special_cake_reads_any_order_spheria_accepts() -> None:
    game = pyspiel.load_game("spheria_special_cake")
    state = game.new_initial_state("wb..bw........../w......../..../. 2 eat")
    # 1a1 drops into whichever of the four candies under it is eaten: eating 0b2 leaves what
    # eating 0a1 leaves, so "0b2" is read as the listed move 0a1.
    assert state.string_to_action("0b2") == state.string_to_action("0a1") == 30 + parse_site("0a1")
    assert state.action_to_string(state.string_to_action("0a1+0b1")) == "0a1+0b1"
    with pytest.raises(ValueError, match="no candy on 0c3"):
        state.string_to_action("0c3")


# -- structs, observers, bounds ----------------------------------------------------------------


def test_states_and_actions_convert_to_structs_and_json() -> None:
    game = pyspiel.load_game("spheria_spline")
    state = game.new_initial_state()
    state.apply_action(parse_site("0b1"))
    data = json.loads(state.to_json())
    assert data["spn"] == ".w............../........./..../. 2" and data["history"] == ["0b1"]
    assert data["current_player"] == 1 and data["game"] == "spline"
    action = state.action_to_struct(1, parse_site("0c1"))
    assert json.loads(action.to_json()) == {"player": 1, "move": "0c1"}
    state.apply_action_struct(action)
    assert str(state) == ".wb............./........./..../. 1"
    observed = json.loads(state.to_observation_struct(0).to_json())
    assert observed["spn"] == str(state)


def test_spagyric_observation_struct_hides_the_opponent_s_colours() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state()
    state.apply_actions([0, 1])
    state.apply_actions([3 + parse_site("0a1"), game.wait_action])
    seen = json.loads(state.to_observation_struct(0).to_json())
    assert seen["supply"] == {"w": 1, "b": 2, "r": 2} and seen["opponent_supply"] == 5
    assert "bag" not in json.dumps(seen) and "supplies" not in seen
    referee = json.loads(state.to_json())
    assert referee["spn"].endswith("1,2,2 2,1,2 0,0,0 0,0,0 0,1,0")


def test_spagyric_has_an_all_players_observer() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state()
    state.apply_actions([0, 1])
    state.apply_actions([3 + parse_site("0a1"), game.wait_action])
    everyone = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
    )
    observer = game.make_py_observer(everyone)
    assert observer.string_from(state, 0).endswith("supplies 1,2,2 2,1,2")
    observer.set_from(state, 0)
    assert list(observer.dict["supplies"].ravel()) == [0.5, 1.0, 1.0, 1.0, 0.5, 1.0]
    # pyspiel's own observation wrapper takes it too.
    from open_spiel.python.observation import make_observation

    made = make_observation(game, everyone)
    made.set_from(state, 1)
    assert made.string_from(state, 1) == observer.string_from(state, 0)


def test_the_information_state_tensor_is_one_row_a_turn() -> None:
    game = pyspiel.load_game("spheria_spagyric")  # supply 8
    codec = game.codec
    assert isinstance(codec, SpagyricCodec)
    # At most 24 turns with 8 balls of each colour (each takes a ball from each seat for good),
    # and one more that only stuns before a draw: 25 rows of 42, after the 141 of the position.
    assert game.history_rows == 25
    assert game.information_state_tensor_size() == 141 + 25 * 42 == 1191  # was 12,777


def test_the_length_bound_is_reached_by_a_game_that_only_stalls() -> None:
    # Supply 1 (w, b, r each): r:r stuns and w:b decides, seat 1 placing; then r:r and b:w,
    # seat 2 placing; then both hold only red: r:r stuns the last pair and the game is a draw.
    # 7 record entries, and no game has more (the bound is exact over the hands).
    spheria_game = spheria.load_game("spagyric", supply=1)
    state = spheria_game.new_initial_state()
    for entry in ("r:r", "w:b", "0a1", "r:r", "b:w", "0d4", "r:r"):
        state.apply_notation(entry)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert len(state.history) == 7 == spagyric_max_length(1)
    assert pyspiel.load_game("spheria_spagyric", {"supply": 1}).max_game_length() == 7


# -- information-set search on Spagyric --------------------------------------------------------

# The same board and supplies; in the first seat 1 lost a white, a black and a red to seat 2,
# who placed them, in the second the other way round: only the bags differ.
SAME_VIEW = (
    "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 1,1,1 0,0,0",
    "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 0,0,0 1,1,1",
)


def test_resampling_draws_every_world_the_seat_cannot_tell_apart() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state(SAME_VIEW[0])
    state.apply_actions([0, 1])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = set()
    for _ in range(30):
        world = state.resample_from_infostate(0, sampler)
        assert world.information_state_string(0) == state.information_state_string(0)
        assert world.history() == state.history()
        worlds.add(world.spheria.to_spn().split()[-2])
    assert worlds == {"1,1,1", "0,0,0"}  # seat 1's bag: it lost the three, or seat 2 did
    # The usual first position hides nothing: the world is the state itself.
    fresh = game.new_initial_state()
    fresh.apply_actions([0, 1])
    assert str(fresh.resample_from_infostate(1, sampler)) == str(fresh)


def test_resampling_replays_each_placement_with_the_idle_seat_s_wait() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    wait = game.wait_action
    state = game.new_initial_state(SAME_VIEW[0])
    state.apply_actions([0, 1])  # white beats black: seat 1 places, seat 2 waits
    state.apply_actions([3 + parse_site("0a1"), wait])
    state.apply_actions([1, 0])  # seat 2 places, seat 1 waits
    state.apply_actions([wait, 3 + parse_site("0b1")])
    rng = random.Random(4)
    worlds = set()
    for seat in (0, 1):
        for _ in range(12):
            world = state.resample(seat, rng)
            assert world.history() == state.history() == [0, 1, 3, wait, 1, 0, wait, 4]
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.legal_actions(0) == state.legal_actions(0) == [2]  # seat 1 holds only its red now
            worlds.add(world.spheria.to_spn())
    assert len(worlds) == 2  # who lost the three balls to the bags is still drawn


def test_the_turn_based_resampler_draws_a_placement_the_waiting_seat_has_not_seen() -> None:
    """Through ``convert_to_turn_based`` a placement is two turns, the placer's and the idle seat's
    wait; at the wait the placement is not applied yet, so the waiting seat does not see it."""
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("spheria_spagyric", {"supply": 2}))
    wait = game.num_distinct_actions() - 1
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)  # white beats black: seat 1 places
    state.apply_action(3 + parse_site("0c3"))
    assert state.current_player() == 1 and state.legal_actions() == [wait]
    assert state.information_state_string(1).endswith("history w:b")  # the placement not yet
    resample = openspiel.resampler(5)
    drawn = set()
    for _ in range(40):
        world = resample(state, 1)
        assert world.current_player() == 1 and world.legal_actions() == [wait]
        assert world.information_state_string(1) == state.information_state_string(1)
        drawn.add(world.history()[-1])
    assert len(drawn) > 5 and drawn <= set(range(3, 19))  # any of the 16 sites, not the one played
    state.apply_action(wait)
    assert state.information_state_string(1).endswith("history w:b 0c3")  # seen once both have moved


def test_resampling_asks_the_game_s_kit_for_its_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state(SAME_VIEW[0])
    state.apply_actions([0, 1])
    asked: list[tuple[str, list[str], int]] = []

    def other_world(spheria_game: Any, origin: str, history: Any, player: int, rng: random.Random) -> str:
        asked.append((origin, list(history), player))
        return SAME_VIEW[1]

    kit = Spagyric.kit()
    monkeypatch.setattr(Spagyric, "kit", classmethod(lambda cls: dataclasses.replace(kit, sample_origin=other_world)))
    world = state.resample(1, random.Random(0))
    assert asked == [(SAME_VIEW[0], ["w:b"], 1)]
    # The kit's world, replayed: seat 1's bag is empty there; seat 2's also holds the black w:b beat.
    assert world.spheria.to_spn().split()[-2:] == ["0,0,0", "1,2,1"]
    assert world.history() == state.history()
    # A game of hidden information whose kit draws no worlds is refused by name, not searched blind.
    monkeypatch.setattr(Spagyric, "kit", classmethod(lambda cls: dataclasses.replace(kit, sample_origin=None)))
    with pytest.raises(ValueError, match="spagyric offers no sample_origin"):
        state.resample(0, random.Random(0))


def _ismcts_bot(game: Any, seed: int) -> Any:
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 1.4, 60, random_state=rng)
    bot.set_resampler(openspiel.resampler(seed))
    return bot


def test_ismcts_plays_a_whole_game_of_spagyric() -> None:
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("spheria_spagyric", {"supply": 2}))
    bot = _ismcts_bot(game, 1)
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            action = int(bot.step(state))
            assert action in state.legal_actions()
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def test_ismcts_never_sees_the_opponent_s_secret_choice() -> None:
    """Twin states that differ only in seat 1's hidden choice get the same policy from seat 2's search."""
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("spheria_spagyric", {"supply": 2}))
    policies = []
    for secret in (0, 1, 2):
        state = game.new_initial_state()
        state.apply_action(secret)  # seat 1 chooses in secret; seat 2 is to choose
        policies.append(_ismcts_bot(game, 7).get_policy(state))
    assert policies[0] == policies[1] == policies[2]
    # The twins of hidden bags, likewise.
    states = []
    for spn in SAME_VIEW:
        started = pyspiel.load_game("spheria_spagyric", {"supply": 2, "start": openspiel.spn_parameter(spn)})
        state = pyspiel.convert_to_turn_based(started).new_initial_state()
        state.apply_action(2)
        states.append(state)
    assert _ismcts_bot(game, 3).get_policy(states[0]) == _ismcts_bot(game, 3).get_policy(states[1])
