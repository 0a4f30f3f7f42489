"""The level agents' ratings: each level starts from what the ladder measured, so a player sees what it is worth.

A level agent (``level:1`` .. ``level:5``) holds a rating in each game (each rating key) like
anyone, and it moves like anyone's in rated games against people. It starts from its seed:

* where the game's kit holds the ladder's measurement for exactly this game
  (:class:`spheria.kernel.kit.MeasuredLevels`, the Elo of ``benchmarks/ladder.py`` with
  ``random`` at 0, matched by :func:`spheria.ratings.keys.rating_key`), the level starts at
  :data:`RANDOM_RATING` plus its measured Elo, with deviation :data:`LEVEL_DEVIATION`;
* elsewhere (a game without levels measured, or options the ladder was not played with) at a
  newcomer's 1500 ± 350.

Bradley–Terry Elo and Glicko-2 ratings share one scale (400 points: ten to one odds), so the
ladder's gaps between levels are the gaps between their seeds. Only the anchor is chosen: a
player who moves at random is worth :data:`RANDOM_RATING` in every game, which puts the middle
level near a newcomer's 1500 (1331 to 1507) in six of the eight ladders measured; the other two,
whose levels spread widest, put it at 1907 and 1930.
"""

from __future__ import annotations

from spheria.agents.levels import LEVEL_NUMBERS, check_level, level_spec
from spheria.kernel.game import Game
from spheria.ratings.glicko2 import NEW, Rating
from spheria.ratings.keys import rating_key

#: The rating of random play, in every game: the anchor of the measured levels.
RANDOM_RATING = 1000.0
#: A measured level's first deviation: below the provisional mark (the ladder measured it over
#: thousands of games, to within ±60 at one standard deviation), yet wider than that, since the
#: ladder placed it among agents and people may find it easier or harder.
LEVEL_DEVIATION = 100.0


def measured_elo(game: Game) -> tuple[float, ...] | None:
    """Levels 1-5's measured Elo (``random`` at 0) for ``game`` with its options, or ``None``."""
    key = rating_key(game)
    for measured in game.kit().measured_levels:
        if rating_key(type(game)(**measured.options)) == key:
            return measured.elo
    return None


def level_seed(game: Game, level: int) -> Rating:
    """The rating ``level`` starts with in ``game`` (see the module); ``ValueError`` unless 1 to 5."""
    elo = measured_elo(game)
    index = check_level(level) - 1
    if elo is None:
        return NEW
    return Rating(RANDOM_RATING + elo[index], LEVEL_DEVIATION)


def level_seeds(game: Game) -> dict[str, Rating]:
    """Every level's starting rating in ``game``, by its holder's name (``level:3``)."""
    return {level_spec(level): level_seed(game, level) for level in LEVEL_NUMBERS}
