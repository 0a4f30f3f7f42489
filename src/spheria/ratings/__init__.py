"""Ratings: Glicko-2 for registered players and level agents, one rating per game and options.

* :mod:`~spheria.ratings.glicko2`: the rating (immutable), Glickman's update, idle time;
* :mod:`~spheria.ratings.keys`: which game a rating is for (:func:`rating_key`);
* :mod:`~spheria.ratings.outcomes`: a finished game's returns as pairs of seats, and every
  player's update from them (:func:`rate_game`);
* :mod:`~spheria.ratings.rated`: whether an ended game changes ratings at all (:func:`is_rated`);
* :mod:`~spheria.ratings.levels`: the level agents' first ratings, from the ladders' measurements.

It never names a game: it asks each through its :class:`~spheria.kernel.game.Game` and its kit.
docs/server.md, "Ratings", says how it all fits.
"""

from spheria.ratings.glicko2 import NEW, PROVISIONAL_DEVIATION, Rating, Result, aged, rate
from spheria.ratings.keys import rating_key
from spheria.ratings.levels import level_seed, level_seeds
from spheria.ratings.outcomes import RatingChange, pairwise, rate_game
from spheria.ratings.rated import Holder, SeatHolder, Unrated, agent_holder, is_rated, unrated_reason

__all__ = [
    "NEW",
    "PROVISIONAL_DEVIATION",
    "Holder",
    "Rating",
    "RatingChange",
    "Result",
    "SeatHolder",
    "Unrated",
    "aged",
    "agent_holder",
    "is_rated",
    "level_seed",
    "level_seeds",
    "pairwise",
    "rate",
    "rate_game",
    "rating_key",
    "unrated_reason",
]
