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
