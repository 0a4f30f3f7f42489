"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system"): a rating, its deviation and its volatility.

Written here, not taken from PyPI. The package ``glicko2`` (2.1.0, MIT, last release January 2024,
a fork of a 2009 script) was the one candidate: its ``Player`` is changed in place by
``update_player``, it has no type hints, it knows nothing of idle time, and its volatility
function puts the player's rating μ where Glickman's has the deviation φ (``Δ² − μ² − v − eˣ``
for ``Δ² − φ² − v − eˣ``), which Glickman's worked example, where μ is 0, hides to its printed
digits: a player at 1900 ± 60 losing ten games to a 1400 ± 30 gets volatility 0.0601 from it,
0.0611 from Glickman's steps. The steps themselves are short; here they are, over immutable
values, with the volatility found by Glickman's Illinois iteration (step 5).

The rating period (as lichess does): every rated game is one period for each player in it,
rated against all its opponents in that game at once (:func:`rate`). Between games the
deviation grows with idle time, as Glickman's step 6 grows it over a period with no games:
``φ² + t·σ²`` for ``t`` periods of :data:`PERIOD` (lichess's 0.21436 periods a day, about 4.7
days), capped at :data:`NEW_DEVIATION`. A rating never played (a level agent's seed, say) ages
one period at its first game, Glickman's own step. A game played right after the last one
(no idle time) always narrows the deviation; a rating is :attr:`Rating.provisional` while its
deviation is above :data:`PROVISIONAL_DEVIATION` (110, as lichess).

>>> player = Rating(1500, 200, 0.06)
>>> after = rate(player, [Result(Rating(1400, 30), 1), Result(Rating(1550, 100), 0), Result(Rating(1700, 300), 0)])
>>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 5)
(1464.05, 151.52, 0.06)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

#: Glicko-2's scale: ``μ = (rating − 1500) / SCALE`` (400 / ln 10).
SCALE = 173.7178
#: A newcomer's rating, deviation (the most a deviation grows to) and volatility: Glickman's.
NEW_RATING = 1500.0
NEW_DEVIATION = 350.0
NEW_VOLATILITY = 0.06
#: Above this deviation a rating is provisional (lichess's mark): shown with a "?", not yet trusted.
PROVISIONAL_DEVIATION = 110.0
#: The system constant τ: how far the volatility may move in a period (Glickman's example: 0.5).
TAU = 0.5
#: One rating period of idle time: lichess's 0.21436 periods a day.
PERIOD = timedelta(days=1 / 0.21436)
#: Glickman's convergence tolerance of the volatility iteration.
EPSILON = 0.000001
#: What a game's result is worth to one side: a win, a draw, a loss.
WIN, DRAW, LOSS = 1.0, 0.5, 0.0

_NEW_PHI = NEW_DEVIATION / SCALE


@dataclass(frozen=True)
class Rating:
    """One player's rating in one game (immutable: :func:`rate` returns a new one).

    ``games`` counts the rated games played; ``last_played`` is when the last ended (``None``:
    never, a newcomer or a seed).
    """

    rating: float = NEW_RATING
    deviation: float = NEW_DEVIATION
    volatility: float = NEW_VOLATILITY
    games: int = 0
    last_played: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("rating", "deviation", "volatility"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"a rating's {name} is a finite number, not {value!r}")
        if not 0 < self.deviation <= NEW_DEVIATION:
            raise ValueError(f"a rating's deviation is above 0 and at most {NEW_DEVIATION:g}, not {self.deviation!r}")
        if self.volatility <= 0:
            raise ValueError(f"a rating's volatility is above 0, not {self.volatility!r}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise ValueError(f"a rating's games are a whole number from 0, not {self.games!r}")

    @property
    def provisional(self) -> bool:
        """Whether the deviation is still above :data:`PROVISIONAL_DEVIATION` (too few recent games)."""
        return self.deviation > PROVISIONAL_DEVIATION


#: A newcomer: 1500 ± 350, volatility 0.06, no games.
NEW = Rating()


@dataclass(frozen=True)
class Result:
    """One result of a rating period: the opponent's rating before the game and the score (1, ½, 0)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if self.score not in (WIN, DRAW, LOSS):
            raise ValueError(f"a result scores 1 (a win), 0.5 (a draw) or 0 (a loss), not {self.score!r}")


def idle_periods(rating: Rating, when: datetime) -> float:
    """The rating periods from ``rating``'s last game to ``when``: none for a rating never played
    or a clock that went back."""
    if rating.last_played is None:
        return 0.0
    return max(0.0, (when - rating.last_played) / PERIOD)


def aged(rating: Rating, when: datetime) -> Rating:
    """``rating`` as it stands at ``when``: its deviation grown by the idle periods (at most 350)."""
    periods = idle_periods(rating, when)
    if not periods:
        return rating
    grown = math.sqrt(rating.deviation**2 + periods * (rating.volatility * SCALE) ** 2)
    return replace(rating, deviation=min(grown, NEW_DEVIATION))


def _grown(phi: float, sigma: float, periods: float) -> float:
    return min(math.sqrt(phi * phi + periods * sigma * sigma), _NEW_PHI)


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1 / (1 + math.exp(-g_j * (mu - mu_j)))


def rate(rating: Rating, results: Sequence[Result], when: datetime | None = None, tau: float = TAU) -> Rating:
    """``rating`` after one rating period with ``results`` (one game, against all its opponents).

    Opponents count as they stood before the game, aged to ``when``. The player's deviation
    grows by its idle periods up to ``when`` (Glickman's step 6 with the new volatility), by one
    period for a rating never played or without ``when`` (a plain Glickman period). The new
    rating has one more game and was last played at ``when``. ``ValueError`` without results.
    """
    if not results:
        raise ValueError("a rating period needs at least one result")
    mu, phi, sigma = (rating.rating - NEW_RATING) / SCALE, rating.deviation / SCALE, rating.volatility
    terms = []
    for result in results:
        opponent = result.opponent if when is None else aged(result.opponent, when)
        g_j = _g(opponent.deviation / SCALE)
        terms.append((g_j, _expected(mu, (opponent.rating - NEW_RATING) / SCALE, g_j), result.score))
    v = 1 / sum(g_j * g_j * e * (1 - e) for g_j, e, _ in terms)
    improvement = sum(g_j * (score - e) for g_j, e, score in terms)
    sigma = _volatility(phi, sigma, v, v * improvement, tau)
    periods = 1.0 if when is None or rating.last_played is None else idle_periods(rating, when)
    phi_star = _grown(phi, sigma, periods)
    phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu += phi * phi * improvement
    return Rating(NEW_RATING + SCALE * mu, phi * SCALE, sigma, rating.games + 1, when)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Glickman's step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = middle, f_middle
    return math.exp(low / 2)
