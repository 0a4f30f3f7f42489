"""Spline's puzzle maker (``GameKit.puzzles``): positions where exactly one move keeps the win.

The oracle is the prover of :class:`spheria.games.spline.search.SplineSearch` (a proof to the end:
Spline has no draws). The themes, from the mover's threat sites (empty sites that would complete a
line of the mover's colour) before and after the winning move:

* ``win-now``: the move completes a line;
* ``block``: the move fills the opponent's placeable threat site (the only way not to lose at once);
* ``double-threat``: after it the mover has two placeable threat sites: the opponent blocks one;
* ``threat``: after it the mover has one placeable threat site (the opponent must block it);
* ``quiet``: none of these: the only waiting move, and the opponent must move.

>>> import spheria
>>> maker = SplinePuzzles()
>>> state = spheria.load_game("spline").state_from_spn("ww......bb.w.bbw/........./..../. 1")
>>> [str(m) for m in maker.winning_moves(state, None)]
['0d1', '0b2', '0c2', '0d2', '0c3']
>>> maker.themes(state, state.parse_move("0d1"))  # threats on 0c1 and 0d2
('double-threat',)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from spheria.agents.alphabeta import OutOfTime
from spheria.games.spline.rules import SplineMove, SplineState
from spheria.games.spline.search import _CLOCK_EVERY, SplineSearch, _masks
from spheria.i18n import N_

WIN_NOW, BLOCK, DOUBLE_THREAT, THREAT, QUIET = "win-now", "block", "double-threat", "threat", "quiet"
#: The positions the prover may search for one position while puzzles are made (a second or so).
BUDGET = 300_000
#: How often the prover looks at its clock, in positions searched.
PROVER_CLOCK_EVERY = _CLOCK_EVERY + 1
#: The balls a position needs before it may become a puzzle (the first few moves decide nothing yet).
FEWEST_BALLS = 8


class SplinePuzzles:
    """Spline's puzzle maker, with a prover of its own (its table kept from position to position)."""

    def __init__(self) -> None:
        self.search = SplineSearch()
        self.budget = BUDGET
        self.options: Mapping[str, Any] = {}
        self.players: Sequence[str] = ("greedy:blunder=0.25", "greedy:blunder=0.5", "alphabeta:depth=2,engine=game")
        self.theme_names: Mapping[str, str] = {
            WIN_NOW: N_("win now: complete a line"),
            BLOCK: N_("block: fill the opponent's threat"),
            DOUBLE_THREAT: N_("double threat: two lines to finish, one block"),
            THREAT: N_("threat: a line to finish, the opponent must block"),
            QUIET: N_("quiet move: the only waiting move"),
        }

    def wanted(self, state: Any) -> bool:
        if not isinstance(state, SplineState):
            return False
        white, black = state.masks()
        return (white | black).bit_count() >= FEWEST_BALLS

    def winning_moves(self, state: Any, budget: int | None) -> list[Any] | None:
        # The prover looks at its clock once every 1,024 positions: a clock that counts its looks
        # stops it after the budget's positions, the same on every machine.
        looks = itertools.count(1)
        deadline = None if budget is None else budget / PROVER_CLOCK_EVERY
        clock = lambda: float(next(looks))  # noqa: E731
        try:
            if self.search.winning_move(state, deadline, clock) is None:
                return []
            return list(self.search.winning_moves(state, deadline, clock))
        except OutOfTime:
            return None

    def plausible(self, state: Any) -> list[Any]:
        """Every move after which the opponent cannot complete a line at once."""
        moves = []
        for move in state.legal_moves():
            after = state.child(move)
            if after.is_terminal() or not any(after.child(reply).is_terminal() for reply in after.legal_moves()):
                moves.append(move)
        return moves

    def themes(self, state: Any, move: Any) -> tuple[str, ...]:
        assert isinstance(move, SplineMove)
        bit = 1 << move.site
        after = state.child(move)
        if after.is_terminal():
            return (WIN_NOW,)
        _, _, free, _, _, theirs = _masks(state)
        themes = []
        if theirs & free & bit:
            themes.append(BLOCK)
        # after the move the opponent is to move: the mover's threats are the opponent's "theirs"
        _, _, free_after, _, _, mine_after = _masks(after)
        threats = (mine_after & free_after).bit_count()
        if threats >= 2:
            themes.append(DOUBLE_THREAT)
        elif threats == 1:
            themes.append(THREAT)
        return tuple(themes) or (QUIET,)
