"""Glicko-2 (spheria.ratings.glicko2) against Glickman's "Example of the Glicko-2 system", and its properties."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spheria.ratings.glicko2 import (
    DRAW,
    LOSS,
    NEW,
    NEW_DEVIATION,
    PERIOD,
    PROVISIONAL_DEVIATION,
    SCALE,
    TAU,
    WIN,
    Rating,
    Result,
    aged,
    idle_periods,
    rate,
)

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

ratings = st.floats(min_value=600, max_value=2600, allow_nan=False)
deviations = st.floats(min_value=30, max_value=NEW_DEVIATION)
volatilities = st.floats(min_value=0.03, max_value=0.12)
scores = st.sampled_from([WIN, DRAW, LOSS])


@st.composite
def a_rating(draw: st.DrawFn, last_played: datetime | None = START) -> Rating:
    return Rating(draw(ratings), draw(deviations), draw(volatilities), draw(st.integers(0, 500)), last_played)


def test_glickmans_worked_example() -> None:
    """The paper's example: 1500 ± 200 (σ 0.06, τ 0.5) beats 1400 ± 30, loses to 1550 ± 100 and
    1700 ± 300 in one period: 1464.06 ± 151.52, σ' 0.05999 (the paper rounds each step)."""
    player = Rating(1500, 200, 0.06)
    results = [Result(Rating(1400, 30), WIN), Result(Rating(1550, 100), LOSS), Result(Rating(1700, 300), LOSS)]
    after = rate(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    assert after.games == 1
    assert TAU == 0.5  # the example's system constant is the one in force


def test_the_volatility_solves_glickmans_equation_away_from_1500() -> None:
    """Step 5 finds the root of f(x) = eˣ(Δ² − φ² − v − eˣ) / 2(φ² + v + eˣ)² − (x − a)/τ², with the
    player's deviation φ in it (a player far from 1500 tells it from the rating μ: see the module)."""
    player, opponent = Rating(1900, 60, 0.06), Rating(1400, 30)
    after = rate(player, [Result(opponent, LOSS)] * 10)
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.deviation / SCALE, player.volatility
    g = 1 / math.sqrt(1 + 3 * (opponent.deviation / SCALE) ** 2 / math.pi**2)
    expected = 1 / (1 + math.exp(-g * (mu - (opponent.rating - 1500) / SCALE)))
    v = 1 / (10 * g * g * expected * (1 - expected))
    delta = v * 10 * g * (LOSS - expected)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / TAU**2

    root = 2 * math.log(after.volatility)
    assert abs(f(root)) < 1e-5
    assert f(root - 0.01) > 0 > f(root + 0.01)  # f falls through its one root there
    assert after.volatility > player.volatility  # ten surprising losses: the player is less predictable


@settings(max_examples=200, deadline=None)
@given(a_rating(), a_rating(), st.integers(0, 30))
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_one(player: Rating, opponent: Rating, days: int) -> None:
    when = START + timedelta(days=days)
    assert rate(player, [Result(opponent, WIN)], when).rating >= player.rating
    assert rate(player, [Result(opponent, LOSS)], when).rating <= player.rating


@settings(max_examples=200, deadline=None)
@given(a_rating(), st.integers(0, 30))
def test_a_draw_between_equals_keeps_the_rating(player: Rating, days: int) -> None:
    after = rate(player, [Result(player, DRAW)], START + timedelta(days=days))
    assert after.rating == pytest.approx(player.rating, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(a_rating(), a_rating(), scores)
def test_between_equals_one_gains_what_the_other_loses(player: Rating, opponent: Rating, score: float) -> None:
    twin = Rating(player.rating, player.deviation, player.volatility, opponent.games, START)
    mine = rate(player, [Result(twin, score)], START)
    theirs = rate(twin, [Result(player, 1 - score)], START)
    assert mine.rating - player.rating == pytest.approx(-(theirs.rating - twin.rating), abs=1e-6)


@settings(max_examples=200, deadline=None)
@given(a_rating(), st.lists(st.tuples(a_rating(), scores), min_size=1, max_size=4))
def test_a_game_right_after_the_last_narrows_the_deviation(player: Rating, games: list[tuple[Rating, float]]) -> None:
    after = rate(player, [Result(opponent, score) for opponent, score in games], START)
    assert after.deviation < player.deviation
    assert (after.games, after.last_played) == (player.games + 1, START)


@settings(max_examples=200, deadline=None)
@given(a_rating(), st.floats(min_value=0, max_value=3000), st.floats(min_value=0, max_value=3000))
def test_idle_time_grows_the_deviation_up_to_350(player: Rating, days: float, more: float) -> None:
    sooner = aged(player, START + timedelta(days=days))
    later = aged(player, START + timedelta(days=days + more))
    assert player.deviation <= sooner.deviation <= later.deviation <= NEW_DEVIATION
    assert (sooner.rating, sooner.volatility, sooner.games) == (player.rating, player.volatility, player.games)
    periods = idle_periods(player, START + timedelta(days=days))
    growth = math.sqrt((player.deviation / SCALE) ** 2 + periods * player.volatility**2) * SCALE
    assert sooner.deviation == pytest.approx(min(growth, NEW_DEVIATION))


def test_a_long_absence_leaves_a_newcomers_deviation_and_a_clock_gone_back_none() -> None:
    settled = Rating(1800, 50, 0.06, 120, START)
    assert aged(settled, START + timedelta(days=20 * 365)).deviation == NEW_DEVIATION
    assert aged(settled, START - timedelta(days=3)).deviation == 50
    assert idle_periods(settled, START + PERIOD) == pytest.approx(1)
    assert idle_periods(NEW, START) == 0  # never played: nothing to age from


def test_idle_time_before_a_game_widens_its_update() -> None:
    """The same game after a month away moves the rating more than right after the last one."""
    player, opponent = Rating(1600, 80, 0.06, 40, START), Rating(1600, 80, 0.06, 40, START)
    at_once = rate(player, [Result(opponent, WIN)], START)
    month = START + timedelta(days=30)
    after_a_month = rate(player, [Result(opponent, WIN)], month)
    assert after_a_month.rating - player.rating > at_once.rating - player.rating > 0


def test_provisional_is_a_deviation_above_110() -> None:
    assert NEW.provisional
    assert Rating(1500, PROVISIONAL_DEVIATION).provisional is False
    assert Rating(1500, PROVISIONAL_DEVIATION + 0.01).provisional


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"deviation": 0}, "deviation"),
        ({"deviation": 351}, "deviation"),
        ({"rating": math.nan}, "rating"),
        ({"rating": "1500"}, "rating"),
        ({"volatility": 0}, "volatility"),
        ({"games": -1}, "games"),
        ({"games": 1.5}, "games"),
    ],
)
def test_an_impossible_rating_is_refused_naming_the_field(fields: dict[str, object], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        Rating(**fields)  # type: ignore[arg-type]


def test_bad_results_are_refused() -> None:
    with pytest.raises(ValueError, match="a win"):
        Result(NEW, 2)
    with pytest.raises(ValueError, match="at least one result"):
        rate(NEW, [])


def test_ratings_are_immutable() -> None:
    with pytest.raises(AttributeError):
        NEW.rating = 2000  # type: ignore[misc]
