"""Spinca's levels, one ladder per seat count (``spinca/2``, ``spinca/3``, ``spinca/4``).

Chosen by measurement with benchmarks/ladder.py (docs/agents.md, Levels), as every game's ladder
is (:mod:`spheria.agents.levels`).

>>> import spheria
>>> LEVELS.key(spheria.load_game("spinca", players=3))
'spinca/3'
"""

from __future__ import annotations

from spheria.agents.levels import ladder
from spheria.kernel.game import Game
from spheria.kernel.kit import Levels

#: Spinca's levels with 2 and 4 seats: one agent, mcts with Spinca's own playout exploring less and
#: giving untried moves one visit's worth of the mean (``c=0.3,widen=1``), which beat plain mcts at
#: equal time with 2 seats and with 4 and was no worse with 3 (docs/agents.md, "Stronger tops"), at
#: 0.05, 0.2 and 1 s a move, weakened below that by random moves.
_SPINCA = (
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.5", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.25", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1", 0.05),
    ("mcts:time=0.2,c=0.3,widen=1", 0.2),
    ("mcts:time=1,c=0.3,widen=1", 1.0),
)
#: With three seats the same search gains little from time (0.05 to 1 s, 125 Elo) and a share of
#: random moves costs little below half and much above it, so the levels under the top all search
#: 0.05 s, with shares picked from the first three three-seat ladders' ratings (docs/agents.md);
#: level 4 plays 8 % random moves, or it sits too close to the top.
_SPINCA_3 = (
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.8", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.55", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.3", 0.05),
    ("mcts:time=0.05,c=0.3,widen=1,blunder=0.08", 0.05),
    ("mcts:time=1,c=0.3,widen=1", 1.0),
)

#: The ladders by seat count.
TABLES = {"spinca/2": ladder(*_SPINCA), "spinca/3": ladder(*_SPINCA_3), "spinca/4": ladder(*_SPINCA)}


def ladder_key(game: Game) -> str:
    """The ladder of a temple: its seat count's."""
    return f"{game.name}/{game.options.get('players', 2)}"


LEVELS = Levels(TABLES, ladder_key)
