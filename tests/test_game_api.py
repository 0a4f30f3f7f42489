"""The game API that every game shares: loading, options, and the calls agents and tools rely on."""

from __future__ import annotations

import json
from typing import Any

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.match import play

EVERY_GAME: list[tuple[str, dict[str, Any]]] = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned", "line_rule": "same"}),
    ("spagyric", {"supply": 3}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spline", {}),
]


def test_every_game_is_registered() -> None:
    assert spheria.game_names() == ["spagyric", "special-cake", "spinca", "spline"]


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


def test_options_given_as_text_mean_the_same() -> None:
    assert spheria.load_game("spinca", players="3").options == spheria.load_game("spinca", players=3).options
    assert spheria.load_game("spagyric", memory="off").options["memory"] is False


@pytest.mark.parametrize(("name", "options"), EVERY_GAME)
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
    assert state.to_spn() == start_spn
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
        with pytest.raises(spheria.IllegalMoveError):
            state.parse_move(text, seat)
        assert state.to_spn() == before


def test_every_game_describes_itself_from_its_own_class() -> None:
    described = {d["name"]: d for d in spheria.describe_games()}
    assert list(described) == spheria.game_names()
    assert json.loads(json.dumps(described)) == described
    seats = {name: [(s["name"], s["color"], s["side"]) for s in d["seats"]] for name, d in described.items()}
    assert seats == {
        "spagyric": [("Player 1", None, 0), ("Player 2", None, 1)],
        "special-cake": [("Mint", "w", 0), ("Liquorice", "b", 1)],
        "spinca": [("White", "w", 0), ("Black", "b", 1)],
        "spline": [("White", "w", 0), ("Black", "b", 1)],
    }
    ranges = {name: (d["min_players"], d["max_players"]) for name, d in described.items()}
    assert ranges == {"spagyric": (2, 2), "special-cake": (2, 2), "spinca": (2, 4), "spline": (2, 2)}
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
