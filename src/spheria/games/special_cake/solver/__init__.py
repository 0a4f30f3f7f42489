"""The exact solver of Special Cake's eating phase.

The eating phase is an impartial game (either player may eat any candy), so every position is
either won or lost for the player to move. :func:`solve` finds which, and every winning move,
with a win/loss search (negamax over positions reduced by the symmetries of the square and by
the colours the line rule cannot tell apart, a transposition table, enhanced transposition
cutoffs and move ordering). The search has two backends with the same answers: the compiled
one (``_cakesolver.c``, built at install when a C compiler is found) and a pure-Python one
(``_pysolver.py``, about a hundred times slower). :func:`backend` says which one runs; the
environment variable ``SPHERIA_SOLVER=python`` forces the pure one (``compiled`` insists on the
compiled one). Neither is loaded before a solve asks for it. The moves :func:`solve` returns
are always those of the Python engine: the legal moves come from
:func:`spheria.games.special_cake.eating_outcomes`, and the search values each child.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> result = solve_spn(game, "w.b............./........./..../. 1 eat")
>>> result.value, [str(m) for m in result.best_moves]
(1, ['0a1', '0c1'])

The search keeps one transposition table, for the last (variant, line rule) solved; solving
another combination, or :func:`clear_tables`, frees it. See docs/solver.md.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from spheria.engine.board import ABOVE, NUM_SITES, RISING_CHAINS, SEGMENTS, SYMMETRIES
from spheria.games.special_cake.rules import ANY, EAT, MINT, MIXED, POISONED, SAME, SUGAR, CakeMove, CakeState, Masks
from spheria.games.special_cake.rules import SpecialCake as _SpecialCake
from spheria.games.special_cake.rules import eating_outcomes as _eating_outcomes
from spheria.kernel.game import Game

__all__ = [
    "BACKEND_VARIABLE",
    "DEFAULT_TABLE_BITS",
    "SET_UP_TABLES",
    "SYMMETRIES",
    "SolveProgress",
    "SolveResult",
    "backend",
    "clear_tables",
    "compiled_outcomes",
    "position_value",
    "solve",
    "solve_spn",
    "solves_set_up",
    "transform",
]

#: log2 of the most entries (8 bytes each) the transposition table may grow to: 2**26 = 512 MiB.
DEFAULT_TABLE_BITS = 26
#: The environment variable that picks the backend: ``python``, ``compiled`` or ``auto`` (the default).
BACKEND_VARIABLE = "SPHERIA_SOLVER"
COMPILED = "compiled"
PYTHON = "python"

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


class _Search(Protocol):
    """What both backends' ``Search`` offer (``_cakesolver.Search``, ``_pysolver.Search``)."""

    def value(
        self, white: int, black: int, red: int, time_limit: float = ..., progress: Callable[[int], object] | None = ...
    ) -> int: ...
    def children(self, white: int, black: int, red: int) -> list[tuple[int, int, int]]: ...
    @property
    def positions(self) -> int: ...


_lock = threading.Lock()
_backend: tuple[str, Callable[[int, int, int], _Search]] | None = None
_current: tuple[tuple[str, str, int], _Search] | None = None


def _load_backend() -> tuple[str, Callable[[int, int, int], _Search]]:
    """The backend's name and its ``Search`` class, loaded on first use. Hold ``_lock``."""
    global _backend
    if _backend is None:
        choice = os.environ.get(BACKEND_VARIABLE, "auto").strip().lower() or "auto"
        if choice not in ("auto", COMPILED, PYTHON):
            raise ValueError(f"{BACKEND_VARIABLE} must be auto, compiled or python, not {choice!r}")
        _backend = _compiled_backend(required=choice == COMPILED) if choice != PYTHON else None
        if _backend is None:
            from spheria.games.special_cake.solver import _pysolver

            _backend = (PYTHON, _pysolver.Search)
    return _backend


def _compiled_backend(required: bool) -> tuple[str, Callable[[int, int, int], _Search]] | None:
    try:
        from spheria.games.special_cake.solver import _cakesolver
    except ImportError:
        if required:
            raise ImportError(
                f"{BACKEND_VARIABLE}=compiled, but the compiled solver was not built "
                "(it needs a C compiler when spheria is installed)"
            ) from None
        return None
    chains = [list(chain) for chain in RISING_CHAINS.values()]
    _cakesolver.init(list(ABOVE), chains, [list(seg) for seg in SEGMENTS], [list(p) for p in SYMMETRIES])
    return COMPILED, _cakesolver.Search


def backend() -> str:
    """Which search runs: ``"compiled"`` (the C extension) or ``"python"`` (the pure fallback).

    The compiled one unless it was not built or ``SPHERIA_SOLVER=python`` is set; calling this
    loads the backend.
    """
    with _lock:
        return _load_backend()[0]


def _search(variant: str, line_rule: str, table_bits: int = DEFAULT_TABLE_BITS) -> _Search:
    """The search for one rule set; the previous one (and its table) is dropped. Hold ``_lock``."""
    global _current
    _check_rules(variant, line_rule)
    key = (variant, line_rule, table_bits)
    if _current is None or _current[0] != key:
        _current = None  # free the old table before making the new one
        search_class = _load_backend()[1]
        _current = (key, search_class(_VARIANT_CODES[variant], _RULE_CODES[line_rule], table_bits))
    return _current[1]


def clear_tables() -> None:
    """Free the search's transposition table."""
    global _current
    with _lock:
        _current = None


@dataclass(frozen=True)
class SolveResult:
    """The solved value of a position.

    ``value`` is +1 when the player to move wins with perfect play, -1 when they lose;
    ``best_moves`` are the legal moves that keep the win (every legal move when the position
    is lost); ``positions`` counts the positions the search expanded (or, ``looked_up``, the
    positions read from a table: the shipped set-up table, or the built eating table) and
    ``seconds`` the wall time of the whole solve.
    """

    value: int
    best_moves: list[CakeMove]
    positions: int
    seconds: float
    looked_up: bool = False


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
    masks: Masks,
    variant: str,
    line_rule: str,
    *,
    time_limit: float | None = None,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: Callable[[int], object] | None = None,
) -> int:
    """+1 if the player to move at ``masks`` (white, black, red) wins the eating phase, else -1.

    Raises ``TimeoutError`` past ``time_limit`` seconds and ``ValueError`` for an impossible
    position or unknown rules. ``progress`` is called now and then with the positions this call
    has searched so far.
    """
    _check_rules(variant, line_rule)
    with _lock:
        search = _search(variant, line_rule, table_bits)
        limit = -1.0 if time_limit is None else max(time_limit, 0.0)
        if progress is None:
            return search.value(*masks, time_limit=limit)
        before = search.positions
        return search.value(*masks, time_limit=limit, progress=lambda total: progress(total - before))


def compiled_outcomes(masks: Masks, variant: str, line_rule: str) -> set[Masks]:
    """The positions one eating move reaches, by the backend's move generator (for cross-checks)."""
    _check_rules(variant, line_rule)
    with _lock:
        return set(_search(variant, line_rule).children(*masks))


@dataclass(frozen=True)
class SolveProgress:
    """How far a :func:`solve` has got, handed to its ``progress`` callback.

    ``positions`` the search expanded so far in this solve, ``seconds`` since it began,
    ``move`` the first move whose position is being searched now (``index`` of ``moves`` in
    search order: biggest eats first).
    """

    positions: int
    seconds: float
    move: CakeMove
    index: int
    moves: int


def _child_order(child: Masks) -> tuple[int, int]:
    """The search's move ordering: fewest candies left, then fewest unpinned candies."""
    occupied = child[0] | child[1] | child[2]
    free = sum(1 for s in range(NUM_SITES) if occupied >> s & 1 and (ABOVE[s] & occupied).bit_count() < 2)
    return occupied.bit_count(), free


def solve(
    state: CakeState,
    *,
    time_limit: float | None = None,
    stop_at_first: bool = False,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: Callable[[SolveProgress], object] | None = None,
    proved: Callable[[CakeMove, int], object] | None = None,
) -> SolveResult:
    """Solve a Special Cake position in the eating phase exactly, or a mint or poisoned set-up from its table.

    ``best_moves`` lists every winning move in ``state.legal_moves()`` order, or with
    ``stop_at_first`` only the first one found (cheaper: the other children need no proof).
    A lost position lists every legal move. ``time_limit`` (seconds) bounds the whole solve:
    past it ``TimeoutError`` is raised (what was proved stays in the table, so a second call
    resumes cheaply). ``progress`` is called as each move's position is taken up and, during
    a long search, every few thousand (pure backend) or every 65,536 (compiled) positions;
    an exception it raises stops the solve. A set-up position of mint or poisoned with mixed
    lines is answered from its shipped set-up table (``best_moves`` every best placement, ``positions``
    the placements looked up). An eating position of mint or poisoned with mixed lines is looked
    up in the built eating table when it holds the position and every move's (``spheria
    tablebase build``; ``looked_up``, ``positions`` the positions read), and searched otherwise.
    ``proved(move, value)`` is called as soon as each eating move is proved: ``value`` +1 when
    it wins for the player to move, -1 when it loses. The first +1 is the proof that the
    position is won, and names its winning move; a solve cut short by ``time_limit`` has
    already handed over every move it proved (it is called while the solver is held: it must
    not solve). Raises ``ValueError`` for a state that is not a Special Cake position, or a
    set-up of another variant or line rule.
    """
    if not isinstance(state, CakeState) or not isinstance(state.game, _SpecialCake):
        raise ValueError(f"the solver solves Special Cake positions, not {type(state).__name__}")
    if state.phase != EAT:
        return _solve_setup(state, stop_at_first)
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
    table = _from_eating_table(state, outcomes)
    if table is not None:
        for child, order in outcomes.items():
            if proved is not None:
                proved(CakeMove(order), 1 if child in table else -1)
        winning_moves = [CakeMove(order) for child, order in outcomes.items() if child in table]
        if stop_at_first:
            winning_moves = winning_moves[:1]
        best = winning_moves or [CakeMove(order) for order in outcomes.values()]
        return SolveResult(1 if table else -1, best, len(outcomes) + 1, time.perf_counter() - start, looked_up=True)
    # The biggest eats first, as the search orders its children: a lost child is met early.
    children = sorted(outcomes.items(), key=lambda item: _child_order(item[0]))
    winning: set[Masks] = set()
    with _lock:
        search = _search(variant, line_rule, table_bits)
        before = search.positions
        for index, (child, order) in enumerate(children):
            child_value = _terminal_value(child, variant)
            if child_value is None:
                report = None
                if progress is not None:
                    report = _reporter(progress, search, before, start, CakeMove(order), index, len(children))
                    report(search.positions)
                child_value = search.value(*child, time_limit=remaining(), progress=report)
            if proved is not None:
                proved(CakeMove(order), -child_value)
            if child_value < 0:
                winning.add(child)
                if stop_at_first:
                    break
        positions = search.positions - before
    if winning:
        best = [CakeMove(order) for child, order in outcomes.items() if child in winning]
    else:
        best = [CakeMove(order) for order in outcomes.values()]
    return SolveResult(1 if winning else -1, best, positions, time.perf_counter() - start)


def _from_eating_table(state: CakeState, outcomes: dict[Masks, tuple[int, ...]]) -> set[Masks] | None:
    """The children lost for the opponent (the winning moves' positions), read from the built
    eating table of mint or poisoned with mixed lines (``spheria tablebase build``;
    :mod:`spheria.games.special_cake.eating_table`); ``None`` when the table cannot answer
    the position and every child (not built, or a level missing), so the search does."""
    from spheria.games.special_cake.eating_table import BUILD_COST, shared_probe

    game = state.game
    if game.variant not in BUILD_COST or game.line_rule != MIXED:
        return None
    probe = shared_probe(game.variant)
    won = probe.wins(*state.masks())
    if won is None:
        return None
    losing: set[Masks] = set()
    for child in outcomes:
        terminal = _terminal_value(child, game.variant)
        child_won = probe.wins(*child) if terminal is None else terminal > 0
        if child_won is None:
            return None
        if not child_won:
            losing.add(child)
    return losing if bool(losing) == won else None


#: The variants whose set-up :func:`solve` answers from a shipped set-up table (with mixed lines).
SET_UP_TABLES = (MINT, POISONED)


def solves_set_up(game: Game) -> bool:
    """Whether :func:`solve` answers ``game``'s set-up positions (from the shipped tables: mint
    and poisoned, mixed lines)."""
    return isinstance(game, _SpecialCake) and game.variant in SET_UP_TABLES and game.line_rule == MIXED


def _solve_setup(state: CakeState, stop_at_first: bool) -> SolveResult:
    """A set-up position of mint or poisoned (mixed lines), answered from the shipped set-up
    table: each placement looked up. Poisoned's last placement (Mint's 15th candy) is valued by
    the table's last level, the full cake with the cherry on top and Mint to eat."""
    variant, line_rule = state.game.variant, state.game.line_rule
    if not solves_set_up(state.game):
        raise ValueError(
            f"the set-up is solved only for mint and poisoned with mixed lines (the shipped tables), "
            f"not {variant} with {line_rule} lines"
        )
    from spheria.games.special_cake.solver.setup_table import shipped_table

    start = time.perf_counter()
    table = shipped_table(variant)
    white, black, _ = state.masks()
    mint_to_place = state.player == 0
    moves = state.legal_moves()
    best = []
    for move in moves:
        bit = 1 << move.sites[0]
        mint_wins = table.mint_wins(white | bit, black) if mint_to_place else table.mint_wins(white, black | bit)
        if mint_wins == mint_to_place:
            best.append(move)
            if stop_at_first:
                break
    return SolveResult(1 if best else -1, best or moves, len(moves), time.perf_counter() - start, looked_up=True)


def _reporter(
    progress: Callable[[SolveProgress], object],
    search: _Search,
    before: int,
    start: float,
    move: CakeMove,
    index: int,
    moves: int,
) -> Callable[[int], None]:
    """The callback a backend calls with its position count, as a :class:`SolveProgress`."""

    def report(positions: int) -> None:
        progress(SolveProgress(positions - before, time.perf_counter() - start, move, index, moves))

    return report


def solve_spn(game: Game | str, spn: str, *, time_limit: float | None = None) -> SolveResult:
    """Solve the Special Cake position written as SPN (``game`` a loaded game or a variant name).

    >>> solve_spn("poisoned", "w.............../........./..../. 1 eat")
    Traceback (most recent call last):
    ...
    ValueError: the poisoned cake has exactly one cherry ('r') while it is eaten
    >>> solve_spn(None, "w.............../........./..../. 1 eat")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: the solver solves Special Cake: give a variant's name or a loaded Special Cake, not None
    """
    if isinstance(game, str):
        game = _SpecialCake(variant=game)
    if not isinstance(game, _SpecialCake):
        raise TypeError(f"the solver solves Special Cake: give a variant's name or a loaded Special Cake, not {game!r}")
    return solve(game.state_from_spn(spn), time_limit=time_limit)
