"""Special Cake's levels, one ladder per variant (``special-cake/mint``, ``/sugar``, ``/poisoned``).

Chosen by measurement with benchmarks/ladder.py (docs/agents.md, Levels), as every game's ladder
is (:mod:`spheria.agents.levels`). Here the exact solver is cheap (a few milliseconds a move) and
two perfect eaters only split their games by who eats first, so every level is the solver,
weakened by random moves (``blunder``); the top solves the eating phase exactly (time caps one
solve; past it the set-up agent eats) after a perfect set-up from the variant's shipped set-up
table (mint and poisoned). Mint's lower levels set up from the table too (with their random
moves); poisoned's build greedily, as they were measured.

>>> import spheria
>>> LEVELS.key(spheria.load_game("special-cake", variant="poisoned"))
'special-cake/poisoned'
"""

from __future__ import annotations

from spheria.agents.levels import ladder
from spheria.games.special_cake.rules import MINT
from spheria.kernel.game import Game
from spheria.kernel.kit import Levels

_SUGAR = (
    ("solver:time=0.2,blunder=0.62", 0.2),
    ("solver:time=0.2,blunder=0.35", 0.2),
    ("solver:time=0.2,blunder=0.18", 0.2),
    ("solver:time=0.5,blunder=0.05", 0.5),
    ("solver:time=5", 5.0),
)
_FILLED_CAKE = (
    ("solver:time=0.2,blunder=0.6", 0.2),
    ("solver:time=0.2,blunder=0.3", 0.2),
    ("solver:time=0.2,blunder=0.12", 0.2),
    ("solver:time=0.5,blunder=0.03", 0.5),
)
#: Poisoned's levels 1 to 4 build the cake greedily, as when they were measured (before its
#: set-up table shipped); only level 5 sets up from the table.
_POISONED = (
    ("solver:setup=greedy,time=0.2,blunder=0.6", 0.2),
    ("solver:setup=greedy,time=0.2,blunder=0.3", 0.2),
    ("solver:setup=greedy,time=0.2,blunder=0.12", 0.2),
    ("solver:setup=greedy,time=0.5,blunder=0.03", 0.5),
)

#: The ladders by variant.
TABLES = {
    "special-cake/sugar": ladder(*_SUGAR),
    "special-cake/mint": ladder(*_FILLED_CAKE, ("solver:setup=table,time=5", 5.0)),
    "special-cake/poisoned": ladder(*_POISONED, ("solver:setup=table,time=5", 5.0)),
}


def ladder_key(game: Game) -> str:
    """The ladder of a cake: its variant's."""
    return f"{game.name}/{game.options.get('variant', MINT)}"


LEVELS = Levels(TABLES, ladder_key)
