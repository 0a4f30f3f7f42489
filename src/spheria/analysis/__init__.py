"""Analysis of any position of any game: who is winning, and what each legal move is worth.

:func:`analyse` asks the game first: a game's kit may offer its own analysis
(:attr:`spheria.kernel.kit.GameKit.analyse`: an exact solver, a planner's search, a view of a
game that hides information), which answers the positions it reaches. Any other position of a
sequential game of perfect information gets the generic estimate (:mod:`spheria.analysis.estimate`,
MCTS: visits and mean result per legal move, the principal variation and the iterations run).
A game that hides information is analysed from one seat's view only, and only by its own
analysis; without one it is refused until it is over. docs/analysis.md lists what each game gets.

Values are for the seat analysed (``seat``: the player to move, or the view's seat), from -1 (a
certain loss) to +1 (a certain win); ``win_rate`` is the same on a 0 to 1 scale.

>>> import spheria
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> result = analyse(state, time=60, iterations=200, seed=1)
>>> result.status in ("exact", "estimate"), result.move(result.best_moves[0]).value is not None
(True, True)

:func:`analyse_game` runs it over a finished game: the verdict before and after every move,
the moves that threw an exact win away, the moves where the engine's win rate fell most, and
the evaluation series. See docs/analysis.md.

The parts: :mod:`~spheria.analysis.result` (what an analysis answers),
:mod:`~spheria.analysis.budget` (what it may spend), :mod:`~spheria.analysis.position` (which
method answers), :mod:`~spheria.analysis.estimate` (the generic estimate),
:mod:`~spheria.analysis.record` (a whole game) and :mod:`~spheria.analysis.cache`.
"""

from __future__ import annotations

from spheria.analysis.cache import clear_cache
from spheria.analysis.position import analyse
from spheria.analysis.record import GameAnalysis, MoveAnalysis, analyse_game
from spheria.analysis.result import ESTIMATE, EXACT, OVER, UNSOLVED, Analysis, MoveValue, Progress

__all__ = [
    "ESTIMATE",
    "EXACT",
    "OVER",
    "UNSOLVED",
    "Analysis",
    "GameAnalysis",
    "MoveAnalysis",
    "MoveValue",
    "Progress",
    "analyse",
    "analyse_game",
    "clear_cache",
]
