"""Spheria's games as OpenSpiel games: registration, OpenSpiel's own API tests, MCTSBot, a solver.

Every check goes through ``pyspiel`` (the C++ core of OpenSpiel calling back into the Python
game) and compares what it sees with Spheria's own API on the same position.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts, sequence_form_lp
from scipy.optimize import linprog

import spheria
from spheria.engine.board import SEGMENTS, parse_site
from spheria.games.spagyric.codec import SpagyricCodec
from spheria.games.special_cake.codec import CAKE_LINE_BASE, CAKE_LINE_ORDERS
from spheria.games.spinca.codec import SPINCA_RELOCATIONS
from spheria.integrations import openspiel
from spheria.kernel import registry
from spheria.kernel.codec import Private, codec_for
from spheria.kernel.game import SIMULTANEOUS
from tests.conftest import SecretNumbers

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("spheria_special_cake", {"variant": "mint"}),
    ("spheria_special_cake_sugar", {}),
    ("spheria_special_cake", {"variant": "poisoned", "line_rule": "any"}),
    ("spheria_spinca", {"players": 2}),
    ("spheria_spinca_3", {}),
    ("spheria_spinca_4", {}),
    ("spheria_spline", {}),
    ("spheria_spagyric", {"supply": 2}),
    ("spheria_spagyric", {}),
]
IDS = [name.removeprefix("spheria_") + "".join(f"-{v}" for v in params.values()) for name, params in CONFIGS]
PERFECT = [(n, p) for n, p in CONFIGS if n != "spheria_spagyric"]
PERFECT_IDS = [i for i, (n, _) in zip(IDS, CONFIGS, strict=True) if n != "spheria_spagyric"]


def play_randomly(state: Any, rng: np.random.RandomState) -> None:
    """Play ``state`` to the end with uniformly random legal actions (chance by its odds)."""
    while not state.is_terminal():
        step_randomly(state, rng)


def step_randomly(state: Any, rng: np.random.RandomState) -> None:
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    elif state.is_simultaneous_node():
        state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


# -- registration and the action tables ----------------------------------------------------------


def test_every_game_is_registered_and_its_game_string_round_trips() -> None:
    names = set(pyspiel.registered_names())
    assert set(openspiel.GAME_NAMES.values()) <= names
    for name, params in CONFIGS:
        game = pyspiel.load_game(name, params)
        again = pyspiel.load_game(str(game))
        assert str(again) == str(game)
        assert again.num_distinct_actions() == game.num_distinct_actions()
    # "auto" is the variant's own default, and the game string states what was resolved.
    sugar = str(pyspiel.load_game("spheria_special_cake_sugar"))
    assert sugar == "spheria_special_cake_sugar(line_rule=any,outcomes=1000)"
    assert openspiel.load("special-cake", variant="poisoned").get_type().short_name == "spheria_special_cake"
    assert openspiel.load("special-cake", variant="sugar").get_type().short_name == "spheria_special_cake_sugar"
    assert openspiel.load("spinca", players=3).get_type().short_name == "spheria_spinca_3"
    with pytest.raises(ValueError, match="variant"):
        pyspiel.load_game("spheria_special_cake", {"variant": "vanilla"})


def test_every_game_numbers_its_moves_with_its_kit_s_codec() -> None:
    for name in spheria.game_names():
        game = spheria.load_game(name)
        factory = game.kit().codec
        if factory is None:  # a game that numbers no moves is no OpenSpiel game, and loading it says why
            with pytest.raises(ValueError, match=f"'{name}' offers no codec: its kit has none"):
                openspiel.load(name)
            assert name not in {r.spheria_name for r in openspiel.REGISTRATIONS.values()}
            continue
        codec = codec_for(game)
        assert type(codec) is factory and codec.game is game
        loaded = openspiel.load(name)
        if game.info().simultaneous:  # one more: the no-op of a seat with nothing to decide
            assert loaded.num_distinct_actions() == codec.num_actions + 1 == loaded.wait_action + 1
        else:
            assert loaded.num_distinct_actions() == codec.num_actions and loaded.wait_action is None
    # Views of hidden information are a capability: a game of perfect information offers none.
    with pytest.raises(NotImplementedError, match="spline's codec offers no views"):
        codec_for(spheria.load_game("spline")).view_layout(Private.SEAT, 0)


def test_a_game_without_a_codec_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._REGISTRY, SecretNumbers.name, SecretNumbers)
    refusal = "'test-secret-numbers' offers no codec"
    with pytest.raises(ValueError, match=refusal):
        codec_for(SecretNumbers())
    assert openspiel.register_all() == []  # nothing to register: it has no action numbers
    assert SecretNumbers.name not in {r.spheria_name for r in openspiel.REGISTRATIONS.values()}
    with pytest.raises(ValueError, match=refusal):
        openspiel.load(SecretNumbers.name)
    with pytest.raises(ValueError, match="unknown game 'no-such-game'"):
        openspiel.load("no-such-game")


def test_unknown_parameters_and_other_types_are_refused_by_name() -> None:
    with pytest.raises(pyspiel.SpielError, match="outcomes"):
        pyspiel.load_game("spheria_special_cake", {"outcomes": 3})
    with pytest.raises(pyspiel.SpielError, match="seats"):
        pyspiel.load_game("spheria_spline", {"seats": 2})
    # A random cake is a chance node: another game type, so another registration.
    with pytest.raises(ValueError, match="load spheria_special_cake_sugar"):
        pyspiel.load_game("spheria_special_cake", {"variant": "sugar"})
    with pytest.raises(ValueError, match="load spheria_spinca_3"):
        pyspiel.load_game("spheria_spinca", {"players": 3})
    with pytest.raises(ValueError, match="load spheria_spinca_4"):
        pyspiel.load_game("spheria_spinca", {"players": 4})
    # ... but a given sugar cake is deterministic, and loads as Special Cake.
    full = "wbrbbwbwwbwbbwbr/wbwbrbwbw/wbwb/b 1 eat"
    assert (
        str(pyspiel.load_game("spheria_special_cake", {"variant": "sugar", "start": full}).new_initial_state()) == full
    )


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_the_registered_type_is_the_loaded_type(name: str, params: dict[str, Any]) -> None:
    registered = {t.short_name: t for t in pyspiel.registered_games()}[name]
    assert pyspiel.load_game(name, params).get_type() == registered


def test_game_types_say_what_each_game_is() -> None:
    spagyric = pyspiel.load_game("spheria_spagyric").get_type()
    assert spagyric.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert spagyric.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert spagyric.provides_information_state_tensor
    cake = pyspiel.load_game("spheria_special_cake", {"variant": "mint"})
    assert cake.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert cake.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert cake.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    sugar = pyspiel.load_game("spheria_special_cake_sugar", {"outcomes": 5})
    assert sugar.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert sugar.max_chance_outcomes() == 5
    # Three Spinca players: one winner at +1 and two losers at -1, so the sum is not fixed.
    assert pyspiel.load_game("spheria_spinca_3").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert pyspiel.load_game("spheria_spinca_4").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert pyspiel.load_game("spheria_spinca_4").num_players() == 4


def test_every_registered_type_loads_with_every_seat_count_of_its_range() -> None:
    """OpenSpiel's games_sim_test loads a type that has a ``players`` parameter with every count from
    its least to its most: a type's range never spans a count of another type (Spinca: 2, 3 and 4 are
    three types, since three seats are general-sum)."""
    openspiel.register_all()
    names = openspiel.registered_types()
    for name in names:
        game_type = pyspiel.load_game(name).get_type()
        counts = range(game_type.min_num_players, game_type.max_num_players + 1)
        if "players" in game_type.parameter_specification:
            for seats in counts:
                game = pyspiel.load_game(name, {"players": seats})
                assert game.num_players() == seats and game.get_type() == game_type
                pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
        else:
            assert len(counts) == 1, name
    assert {"spheria_spinca", "spheria_spinca_3", "spheria_spinca_4"} <= set(names)


def test_the_action_tables_are_fixed() -> None:
    cake = pyspiel.load_game("spheria_special_cake")
    # 30 placements, 30 single eats, then every order of every nameable line: 96 pairs (2 orders
    # each), 42 triples (6) and 12 lines of four (24) — 192 + 252 + 288 = 732.
    assert cake.num_distinct_actions() == 30 + 30 + 732
    assert len(CAKE_LINE_ORDERS) == 732
    by_line: dict[frozenset[int], list[tuple[int, ...]]] = {}
    for order in CAKE_LINE_ORDERS:
        by_line.setdefault(frozenset(order), []).append(order)
    assert set(by_line) == {frozenset(segment) for segment in SEGMENTS}
    assert all(len(orders) == len(set(orders)) for orders in by_line.values())
    # Spinca: (no relocation + 136 same-level neighbour pairs) x 29 temple sites.
    assert pyspiel.load_game("spheria_spinca").num_distinct_actions() == 137 * 29
    assert SPINCA_RELOCATIONS[0] == (parse_site("0a1"), parse_site("0b1"))
    assert pyspiel.load_game("spheria_spline").num_distinct_actions() == 30
    assert pyspiel.load_game("spheria_spagyric").num_distinct_actions() == 33 + 1  # and the no-op

    state = cake.new_initial_state()
    # Spheria's notation: the site a candy is placed on or eaten from, a line's sites in order.
    assert state.action_to_string(0, 5) == "0b2"
    assert state.action_to_string(0, 30 + 5) == "0b2"
    assert state.action_to_string(0, CAKE_LINE_BASE + CAKE_LINE_ORDERS.index((0, 16))) == "0a1+1a1"
    spinca = pyspiel.load_game("spheria_spinca").new_initial_state()
    assert spinca.action_to_string(0, 28) == "2b2"  # no relocation, place on the last temple site
    assert spinca.action_to_string(0, 29 + parse_site("1b2")) == "0a1-0b1 1b2"
    spagyric = pyspiel.load_game("spheria_spagyric").new_initial_state()
    assert [spagyric.action_to_string(0, a) for a in (0, 1, 2, 3, 32, 33)] == ["w", "b", "r", "0a1", "3a1", "wait"]


def test_every_cake_action_decodes_to_its_own_number() -> None:
    spheria_game = spheria.load_game("special-cake")
    codec = codec_for(spheria_game)
    setup = spheria_game.new_initial_state()
    eating = spheria_game.state_from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat")
    for action in range(codec.num_actions):
        state = setup if action < 30 else eating
        assert codec.action_of(state, codec.decode(state, action)) == action
    assert codec.action_text(CAKE_LINE_BASE + CAKE_LINE_ORDERS.index((0, 16, 25))) == "0a1+1a1+2a1"


# -- OpenSpiel's own tests and the API against Spheria's ----------------------------------------------


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_openspiel_random_simulation_tests_pass(name: str, params: dict[str, Any]) -> None:
    """OpenSpiel's C++ API checks: sorted legal actions and masks, unique action strings, clones,
    serialisation round trips, observation and information-state shapes, returns and game length."""
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_legal_actions_are_spheria_legal_moves(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    codec = game.codec
    rng = np.random.RandomState(7)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                step_randomly(state, rng)
                continue
            mirror = state.spheria
            # A game of simultaneous moves is simultaneous at every decision, also where one seat places.
            assert state.is_simultaneous_node() == (game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS)
            seats = range(game.num_players()) if state.is_simultaneous_node() else [state.current_player()]
            for seat in seats:
                actions = state.legal_actions(seat)
                moves = mirror.legal_moves(seat)
                if not moves:  # a seat with nothing to decide at a simultaneous node: the one no-op
                    assert actions == [game.wait_action] and state.is_simultaneous_node()
                    no_op = [int(a == game.wait_action) for a in range(game.num_distinct_actions())]
                    assert state.legal_actions_mask(seat) == no_op
                    continue
                # One action per distinct legal move, ascending, each decoding to that move.
                assert len(actions) == len(moves) > 0
                assert actions == sorted(actions)
                assert [codec.decode(mirror, a) for a in actions] == sorted(
                    moves, key=lambda m: codec.action_of(mirror, m)
                )
                mask = state.legal_actions_mask(seat)
                assert len(mask) == game.num_distinct_actions() and sum(mask) == len(actions)
            if not state.is_simultaneous_node():
                others = [p for p in range(game.num_players()) if p != state.current_player()]
                assert all(state.legal_actions(p) == [] for p in others)
            before = mirror.clone()
            if state.is_simultaneous_node():
                joint = [int(rng.choice(state.legal_actions(p))) for p in range(game.num_players())]
                state.apply_actions(joint)
                moves = [codec.decode(before, a) for a in joint if a != game.wait_action]
                if before.current_player() >= 0:
                    before.apply(*moves)  # one seat places; the others waited
                else:
                    before.apply_joint(moves)
            else:
                action = int(rng.choice(state.legal_actions()))
                state.apply_action(action)
                before.apply(codec.decode(before, action))
            assert state.spheria.to_spn() == before.to_spn()
        assert state.returns() == state.spheria.returns()
        if game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM:
            assert sum(state.returns()) == 0


def test_observation_tensors_show_the_board_and_the_seat_to_move() -> None:
    game = pyspiel.load_game("spheria_spline")
    state = game.new_initial_state()
    state.apply_action(parse_site("0b1"))  # White on 0b1; Black to move
    view = np.reshape(state.observation_tensor(1)[:120], (4, 30))  # planes empty, white, black, red
    assert view[1, parse_site("0b1")] == 1 and view[0, parse_site("0b1")] == 0
    assert view[0].sum() == 29 and view[2].sum() == 0
    assert list(state.observation_tensor(1)[120:]) == [0, 1, 0, 1]  # Black to move, seen by Black
    assert state.observation_string(1) == ".w............../........./..../. 2"
    assert state.information_state_string(0) == "................/........./..../. 1 | 0b1"


def test_serialised_states_come_back_identical() -> None:
    rng = np.random.RandomState(3)
    for name, params in CONFIGS:
        game = pyspiel.load_game(name, params)
        state = game.new_initial_state()
        for _ in range(6):
            if state.is_terminal():
                break
            text = pyspiel.serialize_game_and_state(game, state)
            _, copy = pyspiel.deserialize_game_and_state(text)
            restored = pickle.loads(pickle.dumps(state))
            for other in (copy, restored):
                assert str(other) == str(state) and other.history() == state.history()
                assert other.current_player() == state.current_player()
                if not state.is_chance_node():
                    for p in range(game.num_players()):
                        assert other.information_state_string(p) == state.information_state_string(p)
                        assert other.legal_actions(p) == state.legal_actions(p)
            step_randomly(state, rng)


def test_a_sugar_cake_is_a_chance_outcome() -> None:
    game = pyspiel.load_game("spheria_special_cake_sugar", {"outcomes": 10})
    state = game.new_initial_state()
    assert state.is_chance_node()
    # The chance node is worded as the integration's own (a first position), never in one game's words.
    assert str(state) == "first position not drawn yet"
    assert state.information_state_string(0) == state.information_state_string(1) == "first position to draw"
    assert state.chance_outcomes() == [(k, 0.1) for k in range(10)]
    state.apply_action(7)
    assert state.current_player() == 0
    cake = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=7)
    assert str(state) == cake.to_spn()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "start 7"


def test_a_game_can_start_from_any_spheria_position() -> None:
    spn = "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat"
    game = pyspiel.load_game("spheria_special_cake", {"start": spn})
    state = game.new_initial_state()
    assert str(state) == spn and not state.is_chance_node()
    assert state.legal_actions() == codec_for(spheria.load_game("special-cake")).legal_actions(
        spheria.load_game("special-cake").state_from_spn(spn), 0
    )
    # Spinca's locks and Spagyric's counts use commas: a start parameter writes them with ';'.
    spinca = "w.......b......./........./..../. 1 0a3"
    assert str(pyspiel.load_game("spheria_spinca", {"start": spinca}).new_initial_state()) == spinca
    spagyric = "................/........./..../. reveal - 1,1,1 1,1,1 0,0,0 0,0,0 0,0,0"
    started = pyspiel.load_game("spheria_spagyric", {"supply": 1, "start": openspiel.spn_parameter(spagyric)})
    assert str(started.new_initial_state()) == spagyric
    assert str(pyspiel.load_game(str(started)).new_initial_state()) == spagyric
    # new_initial_state(spn) takes a position directly; a bad one is refused, naming the fault.
    assert str(pyspiel.load_game("spheria_spinca").new_initial_state(spinca)) == spinca
    with pytest.raises(ValueError, match="player to move must be 1 or 2"):
        pyspiel.load_game("spheria_special_cake", {"start": "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 3 eat"})


# -- MCTSBot ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "params"), PERFECT, ids=PERFECT_IDS)
def test_mcts_bots_play_every_perfect_information_game_to_the_end(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(11)
    bot = mcts.MCTSBot(game, 1.4, 12, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            step_randomly(state, rng)
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions > 0
    assert state.returns() == state.spheria.returns()


def test_mcts_beats_random_play_at_spline() -> None:
    game = pyspiel.load_game("spheria_spline")
    rng = np.random.RandomState(5)
    bot = mcts.MCTSBot(game, 1.4, 150, mcts.RandomRolloutEvaluator(2, rng), random_state=rng)
    for seat in (0, 1, 0, 1):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == seat:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert state.returns()[seat] == 1.0


# -- Spagyric: hidden information and an equilibrium ------------------------------------------------------

# Two positions reached in play that differ only in what the observers may not know: the
# same board and supplies, but in the first seat 1 lost a white, a black and a red to seat 2,
# who placed them, and in the second it was the other way round (see the bags).
SAME_VIEW = (
    "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 1,1,1 0,0,0",
    "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 0,0,0 1,1,1",
)


def test_spagyric_observations_hide_what_a_seat_may_not_know() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    first, second = (game.new_initial_state(spn) for spn in SAME_VIEW)
    assert str(first) != str(second)  # the referee's states differ ...
    for seat in (0, 1):  # ... but no seat can tell them apart
        assert first.observation_string(seat) == second.observation_string(seat)
        assert first.information_state_string(seat) == second.information_state_string(seat)
        assert first.observation_tensor(seat) == second.observation_tensor(seat)
        assert first.information_state_tensor(seat) == second.information_state_tensor(seat)
    # Every value comes from Spheria's observation(player), and nothing else.
    codec = game.codec
    assert isinstance(codec, SpagyricCodec)
    for seat in (0, 1):
        expected = codec.features_from_observation(first.spheria.observation(seat))
        assert np.allclose(first.observation_tensor(seat), expected)
    assert "supply 1,1,1" in first.observation_string(0) and "bag" not in first.observation_string(0)


def test_spagyric_supplies_by_colour_are_private() -> None:
    game = pyspiel.load_game("spheria_spagyric", {"supply": 2})
    state = game.new_initial_state()
    state.apply_actions([0, 1])  # white beats black: seat 1 places
    state.apply_actions([3 + parse_site("0a1"), game.wait_action])
    # Seat 1 now holds w1 b2 r2, seat 2 w2 b1 r2. Each sees its own colours, and the other's count.
    assert "seat 1; supply 1,2,2; opponent holds 5" in state.observation_string(0)
    assert "seat 2; supply 2,1,2; opponent holds 5" in state.observation_string(1)
    public = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    spectator = game.make_py_observer(public)
    assert spectator.string_from(state, 0) == spectator.string_from(state, 1)
    assert "spectator; hands 5,5" in spectator.string_from(state, 0)
    # The information state remembers the public history: the reveal and the placement.
    assert state.information_state_string(0).endswith("history w:b 0a1")
    # One row per turn: stuns by colour, the deciding reveal (seat 1's colour * 3 + seat 2's), the site.
    history = np.reshape(state.information_state_tensor(0)[141:], (game.history_rows, 42))
    assert history[0, 3 + 0 * 3 + 1] == 1 and history[0, 12 + parse_site("0a1")] == 1
    assert history[0].sum() == 2 and history[1:].sum() == 0


def test_spagyric_turn_based_second_chooser_cannot_see_the_first_choice() -> None:
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("spheria_spagyric", {"supply": 2}))
    views = set()
    for first_choice in (0, 1, 2):
        state = game.new_initial_state()
        state.apply_action(first_choice)  # seat 1 chooses; seat 2 is to choose
        assert state.current_player() == 1
        views.add((state.information_state_string(1), tuple(state.information_state_tensor(1))))
    assert len(views) == 1


def spagyric_value(state: Any, memo: dict[str, float]) -> float:
    """Seat 1's equilibrium value by backward induction over Spheria's own API: the placer
    maximises its return; a reveal is a zero-sum matrix game, solved as a linear program."""
    key = state.to_spn()
    if key in memo:
        return memo[key]
    value: float
    if state.is_terminal():
        value = float(state.returns()[0])
    elif state.current_player() == SIMULTANEOUS:
        payoff = np.array(
            [
                [_joint_value(state, mine, theirs, memo) for theirs in state.legal_moves(1)]
                for mine in state.legal_moves(0)
            ]
        )
        value = matrix_game_value(payoff)
    else:
        values = [spagyric_value(state.child(move), memo) for move in state.legal_moves()]
        value = max(values) if state.current_player() == 0 else min(values)
    memo[key] = value
    return value


def _joint_value(state: Any, mine: Any, theirs: Any, memo: dict[str, float]) -> float:
    child = state.clone()
    child.apply_joint([mine, theirs])
    return spagyric_value(child, memo)


def matrix_game_value(payoff: np.ndarray) -> float:
    """max over mixed rows x of min over columns of x.A: maximise v with x.A[:, j] >= v."""
    rows, cols = payoff.shape
    cost = np.zeros(rows + 1)
    cost[-1] = -1.0
    result = linprog(
        cost,
        A_ub=np.hstack([-payoff.T, np.ones((cols, 1))]),
        b_ub=np.zeros(cols),
        A_eq=[[1.0] * rows + [0.0]],
        b_eq=[1.0],
        bounds=[(0, None)] * rows + [(None, None)],
    )
    assert result.success
    return float(result.x[-1])


def test_openspiel_solves_a_small_spagyric_to_spheria_s_value() -> None:
    # Supply 2, after a white stun: seat 1 holds a white and a black, seat 2 a white and a red.
    # Three black balls lie on 0a2, 0c2 and 0d2, so a black on 0b2 makes a group of exactly four.
    # w:w stuns again and leaves black against red (black wins); b:r is black against red;
    # w:r and b:w let seat 2 place. Seat 1 wins exactly when the colours match up in one of two
    # ways, a matching-pennies reveal worth 1/2 to seat 1.
    spn = "....b.bb......../........./..../. reveal - 1,1,0 1,0,1 1,0,0 0,0,2 0,0,1"
    spheria_state = spheria.load_game("spagyric", supply=2).state_from_spn(spn)
    own_value = spagyric_value(spheria_state, {})
    assert own_value == pytest.approx(0.5, abs=1e-6)

    game = pyspiel.load_game("spheria_spagyric", {"supply": 2, "start": openspiel.spn_parameter(spn)})
    value0, value1, policy0, _ = sequence_form_lp.solve_zero_sum_game(pyspiel.convert_to_turn_based(game))
    assert value0 == pytest.approx(own_value, abs=1e-6)
    assert value1 == pytest.approx(-own_value, abs=1e-6)
    root = pyspiel.convert_to_turn_based(game).new_initial_state()
    assert policy0.action_probabilities(root) == pytest.approx({0: 0.5, 1: 0.5}, abs=1e-4)
