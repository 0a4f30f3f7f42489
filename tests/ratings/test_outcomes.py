"""A finished game's results between pairs of seats and every player's update (spheria.ratings.outcomes)."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime

import pytest

from spheria.kernel.game import State
from spheria.kernel.registry import load_game
from spheria.ratings.glicko2 import DRAW, LOSS, NEW, WIN, Rating, Result, rate
from spheria.ratings.outcomes import pairwise, rate_game

WHEN = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)


def finished(state: State[object], seed: int) -> State[object]:
    """``state`` played to its end by random moves."""
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_moves()))
    return state


def test_three_seats_the_winner_beats_both_and_the_losers_are_no_pair() -> None:
    assert pairwise([-1.0, -1.0, 1.0], [0, 1, 2]) == [(0, 2, LOSS), (1, 2, LOSS)]


def test_three_seats_drawn_every_pair_is_a_draw() -> None:
    assert pairwise([0.0, 0.0, 0.0], [0, 1, 2]) == [(0, 1, DRAW), (0, 2, DRAW), (1, 2, DRAW)]


def test_two_teams_each_seat_meets_both_opponents_and_never_its_partner() -> None:
    sides = [seat.side for seat in load_game("spinca", players=4).info().seats]
    assert sides == [0, 1, 0, 1]
    assert pairwise([1.0, -1.0, 1.0, -1.0], sides) == [(0, 1, WIN), (0, 3, WIN), (1, 2, LOSS), (2, 3, WIN)]
    assert pairwise([0.0] * 4, sides) == [(0, 1, DRAW), (0, 3, DRAW), (1, 2, DRAW), (2, 3, DRAW)]


def test_returns_and_seats_must_agree() -> None:
    with pytest.raises(ValueError, match="3 returns for 2 seats"):
        pairwise([1.0, -1.0, -1.0], [0, 1])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_pairs_of_real_games_agree_with_their_returns(players: int) -> None:
    game = load_game("spinca", players=players)
    sides = [seat.side for seat in game.info().seats]
    for seed in range(4):
        returns = finished(game.new_initial_state(), seed).returns()
        pairs = pairwise(returns, sides)
        drawn = len(set(returns)) == 1
        for a, b in itertools.combinations(range(players), 2):
            found = [score for x, y, score in pairs if (x, y) == (a, b)]
            if sides[a] == sides[b] or (returns[a] == returns[b] and not drawn):
                assert found == []
            else:
                assert found == [WIN if returns[a] > returns[b] else LOSS if returns[a] < returns[b] else DRAW]
        for seat, value in enumerate(returns):  # every seat is rated against someone
            assert any(seat in (a, b) for a, b, _ in pairs), (returns, pairs)
            assert value in (-1, 0, 1)


def test_a_three_seat_win_raises_the_winner_and_lowers_both_losers_alike() -> None:
    game = load_game("spinca", players=3)
    ratings = {"ann": NEW, "bo": NEW, "cy": NEW}
    changes = rate_game(game, [-1.0, 1.0, -1.0], ["ann", "bo", "cy"], ratings, WHEN)
    assert changes["bo"].after == rate(NEW, [Result(NEW, WIN), Result(NEW, WIN)], WHEN)
    assert changes["ann"].after == rate(NEW, [Result(NEW, LOSS)], WHEN) == changes["cy"].after
    assert changes["bo"].change > 0 > changes["ann"].change
    assert changes["ann"].before == NEW


def test_teams_each_player_is_rated_against_both_opponents_at_once() -> None:
    game = load_game("spinca", players=4)
    ratings = {
        "ann": Rating(1600, 80, 0.06, 30, WHEN),
        "bo": Rating(1450, 120, 0.06, 8, WHEN),
        "cy": Rating(1500, 60, 0.06, 90, WHEN),
        "di": Rating(1700, 200, 0.06, 2, WHEN),
    }
    seats = ["ann", "bo", "cy", "di"]  # ann and cy are White, bo and di Black
    changes = rate_game(game, [-1.0, 1.0, -1.0, 1.0], seats, ratings, WHEN)
    lost = [Result(ratings["bo"], LOSS), Result(ratings["di"], LOSS)]
    assert changes["ann"].after == rate(ratings["ann"], lost, WHEN)
    won = [Result(ratings["ann"], WIN), Result(ratings["cy"], WIN)]
    assert changes["di"].after == rate(ratings["di"], won, WHEN)
    assert all(change.after.games == change.before.games + 1 for change in changes.values())


def test_the_order_of_the_seats_changes_nothing() -> None:
    game = load_game("spinca", players=3)
    ratings = {"ann": Rating(1300, 90), "bo": Rating(1700, 150), "cy": Rating(1500, 300)}
    one = rate_game(game, [1.0, -1.0, -1.0], ["ann", "bo", "cy"], ratings, WHEN)
    other = rate_game(game, [-1.0, -1.0, 1.0], ["cy", "bo", "ann"], ratings, WHEN)
    assert one == other


def test_one_player_holding_a_whole_team_meets_each_opponent_once() -> None:
    game = load_game("spinca", players=4)
    ratings = {"level:3": Rating(1900, 100), "ann": NEW, "bo": Rating(1400, 200)}
    changes = rate_game(game, [1.0, -1.0, 1.0, -1.0], ["level:3", "ann", "level:3", "bo"], ratings, WHEN)
    assert changes["level:3"].after == rate(ratings["level:3"], [Result(NEW, WIN), Result(ratings["bo"], WIN)], WHEN)
    assert changes["ann"].after == rate(NEW, [Result(ratings["level:3"], LOSS)], WHEN)


def test_a_player_meets_each_seat_an_opponent_holds_on_another_side() -> None:
    """Three seats, one person against two seats of the same level: the person beat two seats and the
    level lost with both (each side of it meets the person once; it never meets itself)."""
    game = load_game("spinca", players=3)
    ratings = {"ann": NEW, "level:2": Rating(1300, 100)}
    changes = rate_game(game, [1.0, -1.0, -1.0], ["ann", "level:2", "level:2"], ratings, WHEN)
    assert changes["ann"].after == rate(NEW, [Result(ratings["level:2"], WIN)] * 2, WHEN)
    assert changes["level:2"].after == rate(ratings["level:2"], [Result(NEW, LOSS)] * 2, WHEN)


def test_a_two_seat_draw_between_equals_changes_no_rating() -> None:
    game = load_game("special-cake", variant="poisoned")
    even = Rating(1500, 90, 0.06, 20, WHEN)
    changes = rate_game(game, [0.0, 0.0], ["ann", "bo"], {"ann": even, "bo": even}, WHEN)
    assert changes["ann"].change == pytest.approx(0) == changes["bo"].change
    assert changes["ann"].after.deviation < even.deviation


def test_bad_games_are_refused_naming_the_problem() -> None:
    game = load_game("spinca", players=3)
    with pytest.raises(ValueError, match="3 seats, not 2 players"):
        rate_game(game, [1.0, -1.0, -1.0], ["ann", "bo"], {"ann": NEW, "bo": NEW}, WHEN)
    with pytest.raises(ValueError, match="no rating given for cy"):
        rate_game(game, [1.0, -1.0, -1.0], ["ann", "bo", "cy"], {"ann": NEW, "bo": NEW}, WHEN)
