"""The game API that every game shares: loading, options, and the calls agents and tools rely on."""

from __future__ import annotations

import json
from typing import Any

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.engine.board import BoardView
from spheria.games.sandbox.rules import SandboxState
from spheria.games.spagyric.rules import SpagyricState
from spheria.games.special_cake.rules import CakeState
from spheria.games.spinca.rules import SpincaState
from spheria.games.spline.rules import SplineState
from spheria.match import play
from tests.conftest import EVERY_GAME


def test_every_game_is_registered() -> None:
    assert spheria.game_names() == ["sandbox", "spagyric", "special-cake", "spinca", "spline"]


def test_unknown_games_and_options_are_named() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        spheria.load_game("chess")
    with pytest.raises(ValueError, match="special-cake has no option 'colour'"):
        spheria.load_game("special-cake", colour="red")
    with pytest.raises(ValueError, match="option 'variant' must be one of mint, sugar, poisoned; got 'lemon'"):
        spheria.load_game("special-cake", variant="lemon")
    with pytest.raises(ValueError, match="option 'supply' takes a whole number, not 'many'"):
        spheria.load_game("spagyric", supply="many")
    with pytest.raises(ValueError, match="option 'memory' takes true or false"):
        spheria.load_game("spagyric", memory="perhaps")


def test_a_games_options_are_fixed_once_it_is_loaded() -> None:
    game = spheria.load_game("spinca", players=2)
    state = game.new_initial_state()
    with pytest.raises(TypeError):
        game.options["players"] = 4  # type: ignore[index]
    with pytest.raises(TypeError):
        del game.options["players"]  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        game.options = {"players": 4}  # type: ignore[misc]
    info = game.info()
    info.values["players"] = 4  # type: ignore[index]  # a copy: the game is not changed through it
    assert dict(game.options) == {"players": 2} and game.num_players == 2
    assert len(game.info().seats) == 2 and repr(game) == "load_game('spinca', players=2)"
    assert state.game.num_players == 2 and len(game.new_initial_state().returns()) == 2
    # Other options make another game.
    assert spheria.load_game("spinca", players=4).num_players == 4 and game.num_players == 2


def test_options_resolved_from_others_are_read_only_too() -> None:
    sugar = spheria.load_game("special-cake", variant="sugar")
    assert sugar.options["line_rule"] == "any"  # filled in from the variant when the game was loaded
    with pytest.raises(TypeError):
        sugar.options["line_rule"] = "same"  # type: ignore[index]
    assert sugar.info().values["line_rule"] == "any" and sugar.new_initial_state().game.options["line_rule"] == "any"


def test_options_given_as_text_mean_the_same() -> None:
    assert spheria.load_game("spinca", players="3").options == spheria.load_game("spinca", players=3).options
    assert spheria.load_game("spagyric", memory="off").options["memory"] is False


#: The games agents play (with these options): a game for people only refuses them.
AGENTS_PLAY = [
    (name, options) for name, options in EVERY_GAME if spheria.load_game(name, **options).why_no_agents is None
]


@pytest.mark.parametrize(("name", "options"), AGENTS_PLAY)
def test_a_whole_game_through_the_shared_calls(name: str, options: dict[str, Any]) -> None:
    game = spheria.load_game(name, **options)
    state = game.new_initial_state(seed=11)
    start_spn = state.to_spn()
    assert game.state_from_spn(start_spn).to_spn() == start_spn
    agents = [RandomAgent(seed=seat) for seat in range(game.num_players)]
    returns = play(state, agents)
    assert state.is_terminal() and state.current_player() == spheria.TERMINAL
    assert len(returns) == game.num_players and all(r in (-1.0, 0.0, 1.0) for r in returns)
    assert state.legal_moves() == []
    # The same seed and agents replay the same game; undoing everything returns to the start.
    again = game.new_initial_state(seed=11)
    play(again, [RandomAgent(seed=seat) for seat in range(game.num_players)])
    assert again.history_notation() == state.history_notation()
    while state.history:
        state.undo()
    assert state.to_spn() == start_spn and state.history == ()
    # Every observation is JSON, and a spectator's names no seat.
    for seat in range(game.num_players):
        json.dumps(state.observation(seat))
    public = state.public_observation()
    assert public["player"] is None
    json.dumps(public)


@pytest.mark.parametrize(("name", "options"), [g for g in EVERY_GAME if g[0] != "spagyric"])
def test_child_leaves_the_parent_alone_and_matches_apply(name: str, options: dict[str, Any]) -> None:
    state = spheria.load_game(name, **options).new_initial_state(seed=3)
    for move in state.legal_moves()[:10]:
        before = state.to_spn()
        child = state.child(move)
        assert state.to_spn() == before
        state.apply(move)
        assert state.to_spn() == child.to_spn()
        state.undo()


@pytest.mark.parametrize(("name", "options"), EVERY_GAME)
def test_garbage_moves_are_refused_without_change(name: str, options: dict[str, Any]) -> None:
    state = spheria.load_game(name, **options).new_initial_state(seed=5)
    before = state.to_spn()
    seat = 0 if state.current_player() == spheria.SIMULTANEOUS else None
    for text in ("", "zz9", "0e1", "4a1", "0a1+", "0a1-", "%%%"):
        with pytest.raises(spheria.InvalidMoveError):  # not written as a move: not "illegal" here
            state.parse_move(text, seat)
        assert state.to_spn() == before and state.history == ()


@pytest.mark.parametrize(("name", "options"), EVERY_GAME)
def test_the_history_is_read_only_and_moves_alone_change_it(name: str, options: dict[str, Any]) -> None:
    state = spheria.load_game(name, **options).new_initial_state(seed=6)
    for _ in range(3):
        if state.current_player() == spheria.SIMULTANEOUS:
            state.apply_joint([state.legal_moves(seat)[0] for seat in range(state.game.num_players)])
        else:
            state.apply(state.legal_moves()[0])
    history = state.history
    played = list(history)
    assert isinstance(history, tuple) and len(played) == 3
    assert [state.notation(m) for m in history] == state.history_notation()
    with pytest.raises(AttributeError):
        state.history = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.history.clear()  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        del state.history[0]  # type: ignore[attr-defined]
    spn = state.to_spn()
    assert state.history == history and state.to_spn() == spn
    # What was handed out is a snapshot: playing on and taking back do not change it.
    last = state.undo()
    assert state.history == history[:-1] and list(history) == played and played[-1] == last
    clone = state.clone()
    clone.apply_notation(state.notation(last))
    assert clone.history == history and state.history == history[:-1]


def test_every_game_describes_itself_from_its_own_class() -> None:
    described = {d["name"]: d for d in spheria.describe_games()}
    assert list(described) == spheria.game_names()
    assert json.loads(json.dumps(described)) == described
    seats = {name: [(s["name"], s["color"], s["side"]) for s in d["seats"]] for name, d in described.items()}
    assert seats == {
        "sandbox": [("Player 1", None, 0), ("Player 2", None, 1)],
        "spagyric": [("Player 1", None, 0), ("Player 2", None, 1)],
        "special-cake": [("Mint", "w", 0), ("Liquorice", "b", 1)],
        "spinca": [("White", "w", 0), ("Black", "b", 1)],
        "spline": [("White", "w", 0), ("Black", "b", 1)],
    }
    ranges = {name: (d["min_players"], d["max_players"]) for name, d in described.items()}
    assert ranges == {"sandbox": (1, 4), "spagyric": (2, 2), "special-cake": (2, 2), "spinca": (2, 4), "spline": (2, 2)}
    hidden = {name for name, d in described.items() if not d["perfect_information"]}
    together = {name for name, d in described.items() if d["simultaneous"]}
    assert hidden == together == {"spagyric"}
    memory = next(o for o in described["spagyric"]["options"] if o["name"] == "memory")
    assert (memory["type"], memory["default"], memory["value"]) == ("bool", True, True)
    supply = next(o for o in described["spagyric"]["options"] if o["name"] == "supply")
    assert (supply["type"], supply["minimum"], supply["maximum"]) == ("int", 1, 99)


def test_descriptions_follow_the_options() -> None:
    sugar = spheria.load_game("special-cake", variant="sugar").info()
    assert [s.color for s in sugar.seats] == [None, None] and sugar.chance
    assert not spheria.load_game("special-cake").info().chance
    line_rule = next(o for o in sugar.to_json()["options"] if o["name"] == "line_rule")
    assert (line_rule["default"], line_rule["value"]) == (None, "any")
    teams = spheria.load_game("spinca", players=4).info()
    assert [s.side for s in teams.seats] == [0, 1, 0, 1] and teams.sides == ("White team", "Black team")
    assert teams.zero_sum and not spheria.load_game("spinca", players=3).info().zero_sum
    assert [s.color for s in spheria.load_game("spinca", players=3).info().seats] == ["w", "b", "r"]


def test_the_picking_mode_follows_the_position() -> None:
    mint = spheria.load_game("special-cake").new_initial_state()
    assert mint.picking_mode() == "prefix"
    sugar = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=1)
    assert sugar.picking_mode() == "set"
    assert spheria.load_game("spinca").new_initial_state().picking_mode() == "relocate"
    assert spheria.load_game("spline").new_initial_state().picking_mode() == "prefix"
    assert spheria.load_game("spagyric").new_initial_state().picking_mode() == "prefix"
    for cls in spheria.game_classes():
        assert cls().new_initial_state(seed=1).picking_mode() in cls.picking_modes


def board_of_state(state: spheria.State[Any]) -> BoardView:
    assert isinstance(state, CakeState | SandboxState | SpagyricState | SpincaState | SplineState)
    return state.board


@pytest.mark.parametrize(("name", "options"), EVERY_GAME)
def test_state_board_is_a_read_only_snapshot(name: str, options: dict[str, Any]) -> None:
    state = spheria.load_game(name, **options).new_initial_state(seed=4)
    board = board_of_state(state)
    assert board.spn() == state.to_spn().split()[0]
    with pytest.raises(AttributeError):
        board.place(0, 0)  # type: ignore[attr-defined]
    copy = board.copy()
    copy.place(0, 2)  # changing a copy changes nothing in the game
    assert board_of_state(state) == board and board.spn() == state.to_spn().split()[0]


def test_the_legal_moves_follow_the_board_because_only_moves_change_it() -> None:
    cake = spheria.load_game("special-cake").new_initial_state()
    moves = [str(m) for m in cake.legal_moves()]
    assert "0a1" in moves
    board_of_state(cake).copy().place(0, 0)
    assert [str(m) for m in cake.legal_moves()] == moves
    cake.apply(cake.parse_move("0a1"))
    assert "0a1" not in [str(m) for m in cake.legal_moves()]


@pytest.mark.parametrize(("name", "options"), EVERY_GAME)
def test_every_observation_carries_the_board_in_the_same_field(name: str, options: dict[str, Any]) -> None:
    state = spheria.load_game(name, **options).new_initial_state(seed=2)
    board = state.to_spn().split()[0]
    for seat in range(state.game.num_players):
        observation = state.observation(seat)
        assert (observation["board"], observation["game"], observation["player"]) == (board, name, seat)
    public = state.public_observation()
    assert (public["board"], public["player"]) == (board, None)


def test_the_colour_a_seat_places_follows_the_position() -> None:
    mint = spheria.load_game("special-cake").new_initial_state()
    assert [mint.placing_color(seat) for seat in (0, 1)] == ["w", "b"]
    sugar = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=3)
    assert [sugar.placing_color(seat) for seat in (0, 1)] == [None, None]  # eating: nobody places
    teams = spheria.load_game("spinca", players=4).new_initial_state()
    assert [teams.placing_color(seat) for seat in range(4)] == ["w", "b", "w", "b"]
    spagyric = spheria.load_game("spagyric").new_initial_state()
    assert [spagyric.placing_color(seat) for seat in (0, 1)] == [None, None]  # a reveal first
    spagyric.apply_joint([spagyric.parse_move("r", 0), spagyric.parse_move("w", 1)])  # red beats white
    assert [spagyric.placing_color(seat) for seat in (0, 1)] == ["r", None]
    with pytest.raises(ValueError, match="no seat 2"):
        spagyric.placing_color(2)
