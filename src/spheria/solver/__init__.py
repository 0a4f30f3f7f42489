"""The exact solver of Special Cake's eating phase.

The eating phase is an impartial game (either player may eat any candy), so every position is
either won or lost for the player to move. :func:`solve` finds which, and every winning move,
with a compiled win/loss search (``_cakesolver.c``: negamax over positions reduced by the
symmetries of the square and by the colours the line rule cannot tell apart, a transposition
table, enhanced transposition cutoffs and move ordering). The moves it returns are always
those of the Python engine: the legal moves come from
:func:`spheria.games.special_cake.eating_outcomes`, and the compiled search values each child.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> result = solve_spn(game, "w.b............./........./..../. 1 eat")
>>> result.value, [str(m) for m in result.best_moves]
(1, ['0a1', '0c1'])

The compiled search keeps one transposition table, for the last (variant, line rule) solved;
solving another combination, or :func:`clear_tables`, frees it. See docs/solver.md.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from spheria.engine.board import ABOVE, ALL_SITES, NUM_SITES, SEGMENTS, SYMMETRIES, drop_chain
from spheria.games.base import Game
from spheria.games.special_cake import ANY, EAT, MINT, MIXED, POISONED, SAME, SUGAR, CakeMove, CakeState, Masks
from spheria.games.special_cake import SpecialCake as _SpecialCake
from spheria.games.special_cake import eating_outcomes as _eating_outcomes
from spheria.solver import _cakesolver

__all__ = [
    "DEFAULT_TABLE_BITS",
    "SYMMETRIES",
    "SolveResult",
    "clear_tables",
    "compiled_outcomes",
    "position_value",
    "solve",
    "solve_spn",
    "transform",
]

#: log2 of the most entries (8 bytes each) the transposition table may grow to: 2**26 = 512 MiB.
DEFAULT_TABLE_BITS = 26

_VARIANT_CODES = {MINT: 0, SUGAR: 1, POISONED: 2}
_RULE_CODES = {MIXED: 0, ANY: 1, SAME: 2}


def transform(masks: Masks, symmetry: int) -> Masks:
    """The position ``masks`` under ``SYMMETRIES[symmetry]``.

    >>> transform((1, 0, 0), 2)  # 0a1 goes to the opposite corner, 0d4
    (32768, 0, 0)
    """
    perm = SYMMETRIES[symmetry]
    out = []
    for mask in masks:
        image = 0
        for site in range(NUM_SITES):
            if mask >> site & 1:
                image |= 1 << perm[site]
        out.append(image)
    return (out[0], out[1], out[2])


def _rising_chains() -> list[tuple[int, ...]]:
    """For each site s and each site t resting on s: the full chain s, t, ... up that diagonal."""
    chains = []
    for s in range(NUM_SITES):
        for t in range(NUM_SITES):
            if ABOVE[s] >> t & 1:
                # with every site full except the other sites resting on s, the chain runs to the edge
                occupied = ALL_SITES & ~(ABOVE[s] & ~(1 << t))
                chains.append(drop_chain(occupied, s))
    return chains


_cakesolver.init(list(ABOVE), _rising_chains(), [list(seg) for seg in SEGMENTS], [list(p) for p in SYMMETRIES])

_lock = threading.Lock()
_current: tuple[tuple[str, str, int], _cakesolver.Search] | None = None


def _search(variant: str, line_rule: str, table_bits: int = DEFAULT_TABLE_BITS) -> _cakesolver.Search:
    """The compiled search for one rule set; the previous one (and its table) is dropped. Hold ``_lock``."""
    global _current
    if variant not in _VARIANT_CODES:
        raise ValueError(f"unknown variant {variant!r} (mint, sugar, poisoned)")
    if line_rule not in _RULE_CODES:
        raise ValueError(f"unknown line rule {line_rule!r} (mixed, any, same)")
    key = (variant, line_rule, table_bits)
    if _current is None or _current[0] != key:
        _current = None  # free the old table before making the new one
        _current = (key, _cakesolver.Search(_VARIANT_CODES[variant], _RULE_CODES[line_rule], table_bits))
    return _current[1]


def clear_tables() -> None:
    """Free the compiled search's transposition table."""
    global _current
    with _lock:
        _current = None


@dataclass(frozen=True)
class SolveResult:
    """The solved value of a position.

    ``value`` is +1 when the player to move wins with perfect play, -1 when they lose;
    ``best_moves`` are the legal moves that keep the win (every legal move when the position
    is lost); ``positions`` counts the positions the compiled search expanded and
    ``seconds`` the wall time of the whole solve.
    """

    value: int
    best_moves: list[CakeMove]
    positions: int
    seconds: float


def _check_rules(variant: str, line_rule: str) -> None:
    if variant not in _VARIANT_CODES:
        raise ValueError(f"unknown variant {variant!r} (mint, sugar, poisoned)")
    if line_rule not in _RULE_CODES:
        raise ValueError(f"unknown line rule {line_rule!r} (mixed, any, same)")


def _terminal_value(masks: Masks, variant: str) -> int | None:
    occupied = masks[0] | masks[1] | masks[2]
    if variant == POISONED:
        return -1 if occupied == masks[2] else None  # the cherry alone: the mover must eat it
    return 1 if occupied == 0 else None  # an empty cake: the opponent ate the last candy


def position_value(
    masks: Masks, variant: str, line_rule: str, *, time_limit: float | None = None, table_bits: int = DEFAULT_TABLE_BITS
) -> int:
    """+1 if the player to move at ``masks`` (white, black, red) wins the eating phase, else -1.

    Raises ``TimeoutError`` past ``time_limit`` seconds and ``ValueError`` for an impossible
    position or unknown rules.
    """
    _check_rules(variant, line_rule)
    with _lock:
        search = _search(variant, line_rule, table_bits)
        return search.value(*masks, time_limit=-1.0 if time_limit is None else max(time_limit, 0.0))


def compiled_outcomes(masks: Masks, variant: str, line_rule: str) -> set[Masks]:
    """The positions one eating move reaches, by the compiled move generator (for cross-checks)."""
    _check_rules(variant, line_rule)
    with _lock:
        return set(_search(variant, line_rule).children(*masks))


def solve(
    state: CakeState,
    *,
    time_limit: float | None = None,
    stop_at_first: bool = False,
    table_bits: int = DEFAULT_TABLE_BITS,
) -> SolveResult:
    """Solve a Special Cake position in the eating phase exactly.

    ``best_moves`` lists every winning move in ``state.legal_moves()`` order, or with
    ``stop_at_first`` only the first one found (cheaper: the other children need no proof).
    A lost position lists every legal move. ``time_limit`` (seconds) bounds the whole solve:
    past it ``TimeoutError`` is raised (what was proved stays in the table, so a second call
    resumes cheaply). Raises ``ValueError`` for a state that is not a Special Cake eating position.
    """
    if not isinstance(state, CakeState) or not isinstance(state.game, _SpecialCake):
        raise ValueError(f"the solver solves Special Cake positions, not {type(state).__name__}")
    if state.phase != EAT:
        raise ValueError("the solver solves the eating phase; this cake is still being set up")
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    variant, line_rule = state.game.variant, state.game.line_rule
    masks = state.masks()
    terminal = _terminal_value(masks, variant)
    if terminal is not None:
        return SolveResult(terminal, [], 0, time.perf_counter() - start)

    def remaining() -> float:
        return -1.0 if deadline is None else max(deadline - time.perf_counter(), 0.0)

    outcomes = _eating_outcomes(masks, variant, line_rule)
    with _lock:
        search = _search(variant, line_rule, table_bits)
        before = search.positions
        value = search.value(*masks, time_limit=remaining())
        if value < 0:
            best = [CakeMove(order) for order in outcomes.values()]
        else:
            # Biggest eats first, as the compiled search orders them: the child it proved lost
            # is then met early, and its value is already in the table.
            children = sorted(outcomes, key=lambda child: (child[0] | child[1] | child[2]).bit_count())
            winning = set()
            for child in children:
                child_value = _terminal_value(child, variant)
                if child_value is None:
                    child_value = search.value(*child, time_limit=remaining())
                if child_value < 0:
                    winning.add(child)
                    if stop_at_first:
                        break
            best = [CakeMove(order) for child, order in outcomes.items() if child in winning]
        positions = search.positions - before
    return SolveResult(value, best, positions, time.perf_counter() - start)


def solve_spn(game: Game | str, spn: str, *, time_limit: float | None = None) -> SolveResult:
    """Solve the Special Cake position written as SPN (``game`` a loaded game or a variant name).

    >>> solve_spn("poisoned", "w.............../........./..../. 1 eat")
    Traceback (most recent call last):
    ...
    ValueError: the poisoned cake has exactly one cherry ('r') while it is eaten
    """
    if isinstance(game, str):
        game = _SpecialCake(variant=game)
    if not isinstance(game, _SpecialCake):
        raise ValueError(f"the solver solves Special Cake, not {game.name}")
    return solve(game.state_from_spn(spn), time_limit=time_limit)
