"""Special Cake's puzzle maker (``GameKit.puzzles``): mint positions with exactly one winning move.

Two kinds: eating positions (the exact solver, :func:`spheria.games.special_cake.solver.solve`) and
set-up positions (the shipped set-up table, through the same ``solve``). A move is one per
resulting cake: orders of eating a line that leave the same cake are one move. The themes:

* ``setup``: a placement in the set-up;
* ``line``: the winning move eats a line;
* ``line-order``: ... and another order of eating the same candies is legal but leaves another cake
  (one that loses);
* ``drop``: a candy resting on an eaten one drops;
* ``opens-line``: after the move the opponent may eat a line that could not be eaten before
  (a drop or an eaten candy unpinned it);
* ``quiet``: one candy eaten, nothing drops, no line opened: the only waiting move.

"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from spheria.engine.board import ABOVE
from spheria.games.special_cake.rules import EAT, MINT, POISONED, CakeMove, CakeState, eating_outcomes
from spheria.games.special_cake.solver import SolveProgress, clear_tables, solve, solves_set_up
from spheria.i18n import N_
from spheria.kernel.game import MoveError

SETUP, LINE, LINE_ORDER, DROP, OPENS_LINE, QUIET = "setup", "line", "line-order", "drop", "opens-line", "quiet"
#: The positions the solver may search for one position while puzzles are made (a second or so).
BUDGET = 1_000_000
#: The most candies of an eating position that may become a puzzle (bigger cakes take the solver long).
MOST_CANDIES = 24


class _OverBudget(Exception):
    """The solver searched more positions than the budget allows."""


def _occupied(masks: tuple[int, int, int]) -> int:
    return masks[0] | masks[1] | masks[2]


def _lines(state: CakeState) -> set[frozenset[int]]:
    """The sets of sites the player to move may eat as a line."""
    return {frozenset(move.sites) for move in state.legal_moves() if len(move.sites) > 1}


class SpecialCakePuzzles:
    """Special Cake's puzzle maker; a new one empties the solver's table (an oracle of its own)."""

    def __init__(self) -> None:
        clear_tables()
        self.budget = BUDGET
        self.options: Mapping[str, Any] = {"variant": MINT}
        self.players: Sequence[str] = ("greedy:blunder=0.3", "greedy:blunder=0.6", "random")
        self.theme_names: Mapping[str, str] = {
            SETUP: N_("set-up: the one placement that keeps the win"),
            LINE: N_("line: eat a line"),
            LINE_ORDER: N_("line order: eat the line in the right order"),
            DROP: N_("drop: a candy falls"),
            OPENS_LINE: N_("opens a line: a line becomes free to eat"),
            QUIET: N_("quiet move: the only waiting move"),
        }

    def wanted(self, state: Any) -> bool:
        if not isinstance(state, CakeState):
            return False
        if state.phase == EAT:
            return _occupied(state.masks()).bit_count() <= MOST_CANDIES
        return solves_set_up(state.game)

    def winning_moves(self, state: Any, budget: int | None) -> list[Any] | None:
        def count(progress: SolveProgress) -> None:
            if budget is not None and progress.positions > budget:
                raise _OverBudget

        try:
            result = solve(state, progress=count)
        except _OverBudget:
            return None
        moves: list[Any] = list(result.best_moves) if result.value > 0 else []
        return moves

    def plausible(self, state: Any) -> list[Any]:
        """In the set-up every placement; in the eating, every move that leaves the opponent no move
        that wins at once (leaving one candy, or only the cherry) and does not eat the last candy."""
        moves: list[Any] = state.legal_moves()
        if state.phase != EAT:
            return moves
        variant, line_rule = state.game.variant, state.game.line_rule
        kept = []
        for move in moves:
            after = state.child(move)
            if after.is_terminal():
                continue
            masks = after.masks()
            if not any(_wins_at_once(child, variant) for child in eating_outcomes(masks, variant, line_rule)):
                kept.append(move)
        return kept

    def themes(self, state: Any, move: Any) -> tuple[str, ...]:
        assert isinstance(move, CakeMove)
        if state.phase != EAT:
            return (SETUP,)
        after = state.child(move)
        occupied = _occupied(state.masks())
        eaten = sum(1 << site for site in move.sites)
        themes = []
        if len(move.sites) > 1:
            themes.append(LINE)
            if self._order_matters(state, move, after.to_spn()):
                themes.append(LINE_ORDER)
        if any(ABOVE[site] & occupied & ~eaten for site in move.sites):
            themes.append(DROP)
        if not after.is_terminal() and _lines(after) - _lines(state):
            themes.append(OPENS_LINE)
        return tuple(themes) or (QUIET,)

    @staticmethod
    def _order_matters(state: CakeState, move: CakeMove, result: str) -> bool:
        """Whether another legal order of eating ``move``'s candies leaves another cake."""
        for order in itertools.permutations(move.sites):
            if order == move.sites:
                continue
            try:
                if state.child(CakeMove(order)).to_spn() != result:
                    return True
            except MoveError:
                continue
        return False


def _wins_at_once(masks: tuple[int, int, int], variant: str) -> bool:
    """Whether the player who left ``masks`` to their opponent has won: one candy left (the
    opponent must eat it), or in the poisoned cake the cherry alone."""
    occupied = _occupied(masks)
    if variant == POISONED:
        return occupied == masks[2]
    return occupied.bit_count() == 1
