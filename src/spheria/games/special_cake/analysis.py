"""Special Cake's own analysis, offered through its kit (``KIT.analyse``, see
:mod:`spheria.analysis`): exact values wherever the solvers reach.

* The eating phase: the exact solver (:mod:`spheria.games.special_cake.solver`): the verdict for
  the player to move and win/loss for every legal move (``status`` ``exact``, ``method``
  ``solver``); answers are cached per position.
* A mint or poisoned set-up with mixed lines: the variant's shipped set-up table, as exactly
  (the verdict and every placement's value).
* Another set-up: the planner's exact search (every way the set-up can finish, each cake solved)
  once few enough placements are left (:data:`spheria.games.special_cake.planner.DEFAULT_EXACT`)
  and the solves fit the time (``method`` ``planner``); otherwise nothing, and the generic
  estimate answers.

A search of an eating position that runs out of time where the variant's eating table (not built
on this machine) would have answered at once says so: ``note`` ``eating_table_missing``, with the
variant and the table's disk and build time.

>>> import spheria
>>> from spheria.analysis import analyse
>>> game = spheria.load_game("special-cake", variant="mint")
>>> result = analyse(game.state_from_spn("w.b............./........./..../. 1 eat"))
>>> result.status, result.verdict, [(m.move, m.value) for m in result.moves]
('exact', 1, [('0a1', 1.0), ('0c1', 1.0)])
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from spheria.analysis.budget import Budget
from spheria.analysis.cache import on_clear
from spheria.analysis.result import EXACT, UNSOLVED, Analysis, MoveValue, Progress, base, two
from spheria.games.special_cake.rules import EAT, CakeMove, CakeState
from spheria.kernel.game import PlayerView, State

#: ``method``: the eating-phase solver (or the shipped set-up table).
SOLVER = "solver"
#: ``method``: the planner's exact search over the last placements.
PLANNER = "planner"
#: ``note``: the search ran out where the variant's eating table, not built here, answers at once.
NOTE_TABLE_MISSING = "eating_table_missing"
#: The share of the time the exact set-up search may take before the estimate takes over.
EXACT_SHARE = 2 / 3
#: The most positions whose exact eating-phase analysis is kept.
CACHE_SIZE = 4096

_cache: OrderedDict[tuple[str, str], Analysis] = OrderedDict()
#: Guards the cache (the server analyses from several threads).
_lock = threading.RLock()


@on_clear
def clear_cache() -> None:
    """Forget the cached exact analyses."""
    with _lock:
        _cache.clear()


def analyse(target: State[Any] | PlayerView, budget: Budget) -> Analysis | None:
    """The kit's ``analyse``: the exact answer for a Special Cake ``target``; ``None`` for an
    early set-up (or one whose exact search overran its share of the time)."""
    if not isinstance(target, CakeState):
        return None
    if target.phase == EAT:
        return _eating(target, budget)
    return _set_up(target, budget)


def _eating(state: CakeState, budget: Budget) -> Analysis:
    """The solver's exact answer: the eating phase by search, a mint or poisoned set-up from its shipped table.

    The search proves one move after another. With a ``progress`` callback, as soon as a move
    is proved to win, the verdict is reported with that move (``partial``: a proof of a win is
    a winning move), and again as each other move is proved. If the time runs out, what was
    proved stands: the verdict with its winning moves, or the lost moves of a position not yet
    decided (``unsolved``), and the moves not yet proved have no value.
    """
    from spheria.games.special_cake.solver import SolveProgress, solve

    key = (repr(state.game), state.to_spn())
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return replace(cached, seconds=budget.elapsed())
    known = _full_cake_value(state) if state.phase == EAT else None
    if known is not None and known < 0:  # a lost full cake: every move is lost, no search
        return _remember(key, _proved(state, dict.fromkeys(map(str, state.legal_moves()), -1), budget, known))
    proved: dict[str, int] = {}
    positions = 0

    def forward(report: SolveProgress) -> None:
        nonlocal positions
        positions = report.positions
        budget.report(Progress(SOLVER, budget.elapsed(), positions=positions))

    def on_proved(move: CakeMove, value: int) -> None:
        proved[str(move)] = value
        if budget.progress is not None and 1 in proved.values():
            partial = _proved(state, proved, budget, known, positions)
            budget.report(Progress(SOLVER, budget.elapsed(), positions=positions, partial=partial))

    try:
        result = solve(state, time_limit=budget.left(), progress=forward if budget.progress else None, proved=on_proved)
    except TimeoutError:
        return replace(_proved(state, proved, budget, known, positions), note=_why_unproved(state))
    return _remember(key, _solved(state, result, result.positions, budget))


def _why_unproved(state: CakeState) -> dict[str, Any] | None:
    """The note of a search that ran out of time on a position the variant's eating table would
    have answered at once, had it been built (``eating_table_missing``: the variant, the table's
    disk and build time); ``None`` if no table would have."""
    from spheria.games.special_cake.eating_table import BUILD_COST, table_missing_for

    game = state.game
    if state.phase != EAT or not table_missing_for(game.variant, game.line_rule, state.masks()):
        return None
    disk, minutes = BUILD_COST[game.variant]
    return {"code": NOTE_TABLE_MISSING, "variant": game.variant, "disk": disk, "minutes": minutes}


def _full_cake_value(state: CakeState) -> int | None:
    """The value of a full mint or poisoned cake (mixed lines) read from the variant's shipped
    set-up table, whose last level holds every full cake (poisoned's with the cherry on top):
    eating is impartial, so "Mint, eating first, wins" is "the player to move wins". ``None``
    for any other position."""
    from spheria.games.special_cake.solver import solves_set_up
    from spheria.games.special_cake.solver.setup_table import shipped_table

    white, black, _ = state.masks()
    placements = state.game.placements
    full = (white | black).bit_count() == placements and white.bit_count() == (placements + 1) // 2
    if not (full and solves_set_up(state.game)):
        return None
    return 1 if shipped_table(state.game.variant).mint_wins(white, black) else -1


def _proved(
    state: CakeState, proved: dict[str, int], budget: Budget, known: int | None, positions: int | None = None
) -> Analysis:
    """What the moves ``proved`` so far (notation: +1 wins, -1 loses) show: the verdict once a
    move wins or every move loses (or ``known`` from the set-up table), with the winning moves
    found; otherwise ``unsolved``. The moves not proved have no value."""
    seat = state.player
    legal = [(state.notation(m), str(m)) for m in state.legal_moves()]
    winning = [notation for notation, move in legal if proved.get(move) == 1]
    if winning:
        verdict: int | None = 1
    elif len(proved) == len(legal):
        verdict = -1
    else:
        verdict = known
    moves = [MoveValue(notation, None if move not in proved else float(proved[move])) for notation, move in legal]
    analysis = replace(
        base(state, seat, SOLVER, EXACT if verdict is not None else UNSOLVED),
        moves=moves,
        best_moves=winning,
        positions=positions,
        seconds=budget.elapsed(),
    )
    if verdict is None:
        return analysis
    return replace(analysis, verdict=verdict, value=float(verdict), values=two(float(verdict), seat))


def _solved(state: CakeState, result: Any, positions: int, budget: Budget) -> Analysis:
    """The analysis of a whole solve: every move valued."""
    seat = state.player
    winning = {str(m) for m in result.best_moves} if result.value > 0 else set()
    moves = [MoveValue(state.notation(m), 1.0 if str(m) in winning else -1.0) for m in state.legal_moves()]
    return replace(
        base(state, seat, SOLVER, EXACT),
        verdict=result.value,
        value=float(result.value),
        values=two(float(result.value), seat),
        moves=moves,
        best_moves=[state.notation(m) for m in result.best_moves],
        positions=positions,
        seconds=budget.elapsed(),
    )


def _remember(key: tuple[str, str], analysis: Analysis) -> Analysis:
    """Cache a complete exact answer (every move valued) and return it."""
    if all(m.value is not None for m in analysis.moves):
        with _lock:
            _cache[key] = analysis
            if len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return analysis


def _set_up(state: CakeState, budget: Budget) -> Analysis | None:
    from spheria.games.special_cake.planner import DEFAULT_EXACT, placed
    from spheria.games.special_cake.solver import solves_set_up

    if solves_set_up(state.game):  # mint or poisoned with mixed lines: the shipped set-up table is exact
        return _eating(state, budget)
    variant = state.game.variant
    left = state.game.placements - placed(state.masks())
    if variant in DEFAULT_EXACT and left <= DEFAULT_EXACT[variant]:
        # The exact search may take EXACT_SHARE of the time; if it does not finish, the
        # estimate has the rest.
        share = None if budget.time is None else budget.time * EXACT_SHARE
        return _set_up_exact(state, replace(budget, time=share))
    return None


def _set_up_exact(state: CakeState, budget: Budget) -> Analysis | None:
    """Minimax over every way the set-up can finish, each complete cake solved exactly (the
    planner's exact search, without its tie-break); ``None`` if the solves overrun the time."""
    from spheria.games.special_cake.planner import complete_cakes, finished, placed, set_up_children
    from spheria.games.special_cake.solver import position_value

    game = state.game
    variant, line_rule, placements = game.variant, game.line_rule, game.placements
    cakes = complete_cakes(state.masks(), state.player, placements, variant)
    solved: dict[Any, int] = {}
    for number, cake in enumerate(cakes):
        try:
            solved[cake] = position_value(cake, variant, line_rule, time_limit=budget.left())
        except TimeoutError:
            return None
        budget.report(Progress(PLANNER, budget.elapsed(), positions=number + 1))
    memo: dict[Any, int] = {}

    def first_eater(masks: Any, mover: int) -> int:
        """+1 if Mint (seat 0, the first eater) wins with perfect play from this set-up."""
        if masks in memo:
            return memo[masks]
        if placed(masks) == placements:
            value = solved[finished(masks, variant)]
        else:
            values = [first_eater(child, 1 - mover) for child in set_up_children(masks, mover)]
            value = max(values) if mover == 0 else min(values)
        memo[masks] = value
        return value

    seat = state.player
    sign = 1 if seat == 0 else -1
    children = list(set_up_children(state.masks(), seat))
    moves = [
        MoveValue(state.notation(move), float(sign * first_eater(child, 1 - seat)))
        for move, child in zip(state.legal_moves(), children, strict=True)
    ]
    verdict = max(int(m.value or 0) for m in moves)
    return replace(
        base(state, seat, PLANNER, EXACT),
        verdict=verdict,
        value=float(verdict),
        values=two(float(verdict), seat),
        moves=moves,
        best_moves=[m.move for m in moves if m.value == verdict],
        positions=len(cakes),
        seconds=budget.elapsed(),
    )
