"""A finished game's ratings: its returns as results between pairs of seats, and every player's update.

Seats are compared pair by pair, as the arena's and the ladder's Bradley–Terry fits compare
them (:meth:`spheria.arena.ArenaReport.ratings`, ``benchmarks/ladder.py``): of two seats on
different sides, the one with the higher return beat the other, and equal returns are a draw
when the whole game was drawn. Two seats ranked alike in a game that was not drawn — the two
losers of a three-seat game — are no pair: the rules rank them alike whatever they played.
Partners (seats of one side, :attr:`spheria.kernel.game.Seat.side`) are never a pair, so in a
game of two teams of two each player meets both opponents. A player holding several seats
meets each opponent once from each of its sides (once for a whole team, twice from two of three
seats) and never meets itself.

Each player's new rating comes from all its pairs at once, one Glicko-2 period against the
ratings every opponent had before the game (:func:`spheria.ratings.glicko2.rate`), so the order
of the seats changes nothing.

>>> pairwise([1.0, -1.0, -1.0], [0, 1, 2])  # three seats: the winner beat both, the losers are no pair
[(0, 1, 1.0), (0, 2, 1.0)]
>>> pairwise([-1.0, 1.0, -1.0, 1.0], [0, 1, 0, 1])  # two teams: each seat meets both opponents
[(0, 1, 0.0), (0, 3, 0.0), (1, 2, 1.0), (2, 3, 0.0)]
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from spheria.kernel.game import Game
from spheria.ratings.glicko2 import DRAW, LOSS, WIN, Rating, Result, rate


@dataclass(frozen=True)
class RatingChange:
    """One player's rating before and after a game (what a result card shows)."""

    before: Rating
    after: Rating

    @property
    def change(self) -> float:
        """Rating points won (negative: lost)."""
        return self.after.rating - self.before.rating


def pairwise(returns: Sequence[float], sides: Sequence[int]) -> list[tuple[int, int, float]]:
    """``(a, b, score)`` for every pair of seats ``a < b`` the game parted: ``score`` is 1 when
    ``a`` beat ``b``, 0 when ``b`` beat ``a``, ½ in a drawn game (see the module)."""
    if len(returns) != len(sides):
        raise ValueError(f"{len(returns)} returns for {len(sides)} seats")
    drawn = len(set(returns)) == 1
    pairs = []
    for a, b in itertools.combinations(range(len(returns)), 2):
        if sides[a] == sides[b] or (returns[a] == returns[b] and not drawn):
            continue
        pairs.append((a, b, WIN if returns[a] > returns[b] else LOSS if returns[a] < returns[b] else DRAW))
    return pairs


def rate_game(
    game: Game,
    returns: Sequence[float],
    players: Sequence[str],
    ratings: Mapping[str, Rating],
    when: datetime,
) -> dict[str, RatingChange]:
    """Every player's change from one finished, rated game (see :mod:`spheria.ratings.rated`).

    ``players`` names the holder of each seat (an account, a level's ``level:N``; one holder may
    hold several seats); ``ratings`` holds each holder's rating in this game's key before it
    (:func:`spheria.ratings.keys.rating_key`). A ``ValueError`` names a seat count that is not
    the game's or a holder without a rating; a player whom no pair touches (it played only
    itself) keeps its rating and is left out.
    """
    seats = game.info().seats
    if len(players) != len(seats):
        raise ValueError(f"{game.name} has {len(seats)} seats, not {len(players)} players")
    missing = sorted(set(players) - set(ratings))
    if missing:
        raise ValueError(f"no rating given for {', '.join(missing)}")
    sides = [seat.side for seat in seats]
    met: dict[tuple[str, int, str, int], float] = {}  # (player, its side, opponent, their side): score
    for a, b, score in pairwise(returns, sides):
        if players[a] != players[b]:
            met[(players[a], sides[a], players[b], sides[b])] = score
            met[(players[b], sides[b], players[a], sides[a])] = 1 - score
    results: dict[str, list[Result]] = {}
    for (player, _side, opponent, _their_side), score in met.items():
        results.setdefault(player, []).append(Result(ratings[opponent], score))
    return {
        player: RatingChange(ratings[player], rate(ratings[player], found, when)) for player, found in results.items()
    }
