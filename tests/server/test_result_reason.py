"""Why a finished game ended: the game's reason (a code with parameters) in the server's frame.

The terminal said "Mint ate the last candy" while the page showed only "You lose": now the game
gives the reason once (``State.result_reason``), the terminal's result line is worded from it,
and every frame of a finished game carries it as ``result.reason`` with the sites that decided
it (``result.sites``), for the page to word and ring (issue 36, item 2).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import spheria
from spheria.games.spinca.rules import SpincaState
from spheria.i18n import using
from spheria.kernel.game import SIMULTANEOUS, State
from spheria.server.views import public_frame, seat_frame
from tests.conftest import EVERY_GAME


def played_out(state: State[Any], seed: int) -> State[Any]:
    """``state`` played to its end by random moves."""
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.current_player() == SIMULTANEOUS:
            seats = range(state.game.num_players)
            state.apply_joint([rng.choice(state.legal_moves(seat)) for seat in seats])
        else:
            state.apply(rng.choice(state.legal_moves()))
    return state


def reasons(state: State[Any]) -> list[Any]:
    """The reason in each seat's frame and in the spectators' frame."""
    frames = [seat_frame(state, seat, {}, 1) for seat in range(state.game.num_players)]
    return [frame["result"]["reason"] for frame in [*frames, public_frame(state, {}, 1)]]


def test_special_cake_mint_says_who_ate_the_last_candy_and_rings_it() -> None:
    state = spheria.load_game("special-cake", variant="mint").state_from_spn(".wb............./........./..../. 2 eat")
    state.apply(state.parse_move("0c1"))  # Liquorice eats a candy, Mint the last one
    state.apply(state.parse_move("0b1"))
    frame = seat_frame(state, 1, {}, 2)
    assert frame["result"]["reason"] == {"code": "last_candy", "seat": 0}
    assert frame["result"]["winners"] == [1]
    assert frame["result"]["sites"] == ["0b1"]  # the candy that lost the game
    assert reasons(state) == [{"code": "last_candy", "seat": 0}] * 3
    # The terminal words the same reason.
    assert state.status_lines()[0] == "Mint ate the last candy. Liquorice wins."
    with using("ko"):
        assert state.status_lines()[0] == "민트가 마지막 사탕을 먹었습니다. 감초의 승리입니다."


def test_special_cake_poisoned_says_who_must_eat_the_cherry_and_rings_it() -> None:
    state = spheria.load_game("special-cake", variant="poisoned").state_from_spn(
        "wr............../........./..../. 1 eat"
    )
    state.apply(state.parse_move("0a1"))  # Mint eats; only the cherry is left for Liquorice
    assert reasons(state) == [{"code": "cherry_left", "seat": 1}] * 3
    assert seat_frame(state, 0, {}, 1)["result"]["sites"] == ["0b1"]
    assert state.status_lines()[0] == "Only the cherry is left: Liquorice must eat it. Mint wins."


def test_spagyric_names_the_maker_the_colour_and_the_size_of_the_group() -> None:
    state = spheria.load_game("spagyric").new_initial_state(1)
    # Player 1 wins four reveals with red against white and makes a row of four red balls.
    for site in ("0a1", "0b1", "0d1", "0c1"):
        state.apply_joint([state.parse_move("r", 0), state.parse_move("w", 1)])
        state.apply(state.parse_move(site, 0))
    group = {"code": "group", "seat": 0, "color": "r", "size": 4}
    assert reasons(state) == [group] * 3
    assert seat_frame(state, 1, {}, 8)["result"]["sites"] == ["0a1", "0b1", "0c1", "0d1"]
    assert state.status_lines(0)[0] == "Player 1 wins: Player 1 made a group of 4 red balls."


def test_a_spagyric_group_of_three_loses_for_its_maker() -> None:
    state = spheria.load_game("spagyric").new_initial_state(1)
    for site in ("0a1", "0b1", "0c1"):
        state.apply_joint([state.parse_move("w", 0), state.parse_move("b", 1)])
        state.apply(state.parse_move(site, 0))
    assert state.is_terminal() and state.winners() == [1]
    assert reasons(state) == [{"code": "group", "seat": 0, "color": "w", "size": 3}] * 3
    assert state.status_lines(None)[0] == "Player 2 wins: Player 1 made a group of 3 white balls."


def test_spline_names_the_winner_and_the_level_of_the_line() -> None:
    state = spheria.load_game("spline").new_initial_state()
    for site in ("0a1", "0a2", "0b1", "0b2", "0c1", "0c2", "0d1"):
        state.apply(state.parse_move(site))
    assert reasons(state) == [{"code": "line", "seat": 0, "level": 0}] * 3
    assert state.status_lines()[0] == "White wins with 0a1 0b1 0c1 0d1 on level 0."


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spinca_names_the_rule_that_decided_and_the_winning_sides(players: int) -> None:
    for seed in range(4):
        state = played_out(spheria.load_game("spinca", players=players).new_initial_state(), seed)
        assert isinstance(state, SpincaState)
        reason = state.result_reason()
        assert reason is not None
        scores = state.side_scores()
        sides, code = state.result()
        assert reason.to_json() == {
            "code": code,
            "sides": sides,
            "totals": [s.total for s in scores],
            "inner": [s.inner for s in scores],
        }
        assert sides == sorted({state.game.seat_sides()[w] for w in state.winners()})
        totals = reason.params["totals"]
        if code == "face_sum":
            assert [side for side, total in enumerate(totals) if total == max(totals)] == sides
        assert reasons(state) == [reason.to_json()] * (players + 1)


@pytest.mark.parametrize(("name", "options"), EVERY_GAME, ids=[f"{n}-{o}" for n, o in EVERY_GAME])
def test_every_finished_game_gives_a_reason_and_none_before(name: str, options: dict[str, Any]) -> None:
    """Every game's every end has a reason the frame carries as JSON; a game in play has none."""
    game = spheria.load_game(name, **options)
    for seed in range(3):
        state = game.new_initial_state(seed)
        assert state.result_reason() is None
        assert seat_frame(state, 0, {}, 0)["result"] is None
        played_out(state, seed)
        reason = state.result_reason()
        assert reason is not None and reason.code
        shown = reasons(state)
        assert shown == [reason.to_json()] * (game.num_players + 1)
        assert json.loads(json.dumps(shown[0])) == shown[0]
        if "seat" in reason.params:
            assert reason.params["seat"] in range(game.num_players)
        if "color" in reason.params:
            assert reason.params["color"] in ("w", "b", "r")
