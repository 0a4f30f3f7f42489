"""The exact solver of small Spagyric games: backward induction with a matrix game at each reveal.

Spagyric hides only the choice in progress: every ball on the pyramid beat one ball of the
colour it beats, so a player who knows their own supply can count the opponent's (see
:func:`spheria.games.spagyric.agent.reconstruct`). What decides the rest of the game — the
pyramid, both supplies by colour, the stunned balls, the phase, who places which colour — is
therefore common knowledge, and the game is a two-player zero-sum game with simultaneous moves
and otherwise perfect information. Such a game is solved by backward induction:

* at a **placement** the placer picks the site with the best value for them;
* at a **reveal** the two choices form a matrix game whose entries are the values of the
  positions each pair of colours leads to (a stun, or a placement by the stronger ball's owner);
  its minimax value — found exactly by support enumeration (:func:`solve_matrix_game`), or
  directly when the matrix has a pure saddle point — is the value of the reveal, and its
  optimal mixed strategies are how the seats should choose.

Values are for seat 0 (Player 1): +1 a win, -1 a loss, 0 a draw. The bags of defeat are left
out: they never affect the rest of the game. Two reductions keep the tables small, and both are
exact:

* **symmetry** — the 8 symmetries of the square, the 3 rotations of the colours (white beats
  black beats red beats white, so turning every colour one step keeps the rules) and the swap of
  the seats (which negates the value) map positions onto one canonical position;
* **no group possible** — a ball enters play only by beating a ball of the colour it beats, so
  ``n_c + min(c_0, k_1) + min(c_1, k_0)`` bounds the balls of colour ``c`` that can ever be in
  play (``c_p`` seat ``p``'s balls of colour ``c``, ``k_p`` of the colour ``c`` beats). When that
  is below 3 for every colour no group of 3 or more can ever form, and every continuation is a
  draw.

Sudden death (a full pyramid) is a symmetric game and is worth 0; it needs more than 27
placements, so it never arises with ``supply`` 9 or less.

With ``supply=1`` no colour can have three balls in play, so every game is a draw. ``supply=2``
is the smallest real game (24 572 canonical reveals and 15 879 placements; about 3 seconds).
At the start both seats are alike, so the value is 0 for every supply; what the solver measures
is the value of every other position and how far a strategy falls short of it:
:func:`exploitability` plays a best responder against a policy exactly.

>>> game_value(supply=1)
0.0
>>> solver = SpagyricSolver()
>>> import spheria
>>> state = spheria.load_game("spagyric", supply=2).state_from_spn(
...     "ww.w............/........./..../. place 2w 0,0,2 0,0,2 0,0,0 0,2,0 0,2,0")
>>> solver.value(position_of(state))  # Player 2 makes four whites on 0c1: 0a1 0b1 0c1 0d1
-1.0

The canonical form, the transitions and the counting bound are shared with the ``spagyric``
agent (:mod:`spheria.games.spagyric.agent`), which plays this solver's strategies in small
endgames. The command line ``spheria spagyric-solve`` (:mod:`spheria.games.spagyric.cli`) prints the
value of a supply and the exploitability of agents.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from spheria.engine.board import (
    ALL_SITES,
    COLORS,
    NUM_SITES,
    SYMMETRIES,
    TOUCHING,
    Board,
    group_of,
    iter_sites,
    placeable,
)
from spheria.games.spagyric.rules import (
    BEATS,
    OVER,
    PLACE,
    REVEAL,
    SUDDEN,
    WINNING_SIZE,
    Choice,
    Place,
    Spagyric,
    SpagyricMove,
    SpagyricState,
    SpagyricView,
    stronger,
)
from spheria.kernel.registry import load_game

__all__ = [
    "Counts",
    "Exploitability",
    "MatrixGame",
    "Policy",
    "Position",
    "RevealSolution",
    "SolveLimitError",
    "SpagyricSolver",
    "Symmetry",
    "canonical",
    "choosable",
    "exploitability",
    "fixed_color_policy",
    "game_value",
    "group_possible",
    "initial_position",
    "place_result",
    "placement_sites",
    "placement_size",
    "position_of",
    "position_value",
    "reveal_result",
    "solve_matrix_game",
    "stabilizer",
    "state_at",
    "transform_move",
    "uniform_policy",
]

Counts = tuple[int, int, int]
_NONE: Counts = (0, 0, 0)

_RevealKey = tuple[Counts, Counts, Counts, Counts]
_PlaceKey = tuple[Counts, Counts, Counts, int, int]

#: A matrix game's pure saddle point is accepted when its maximin and minimax differ by at most this.
TOLERANCE = 1e-9


class Position(NamedTuple):
    """What decides the rest of a Spagyric game (no bags, no history).

    ``hands`` are the balls each seat may choose from (the supply: stunned balls and the ball
    being placed are not in it); ``stunned`` counts stunned pairs by colour; ``placer`` and
    ``placing`` name who places which colour in the ``place`` phase; ``winner`` is the winning
    seat of a finished game (``None`` for a draw).
    """

    masks: Counts
    hands: tuple[Counts, Counts]
    stunned: Counts = _NONE
    phase: str = REVEAL
    placer: int | None = None
    placing: int | None = None
    winner: int | None = None

    def value(self) -> float:
        """The result of a finished game for seat 0."""
        if self.phase != OVER or self.winner is None:
            return 0.0
        return 1.0 if self.winner == 0 else -1.0


def initial_position(supply: int) -> Position:
    """The start: an empty pyramid, ``supply`` balls of each colour in each hand."""
    hand = (supply, supply, supply)
    return Position(_NONE, (hand, hand))


def position_of(state: SpagyricState) -> Position:
    """The position of an engine state (the referee's full state, not a player's view).

    In sudden death the hands are the fresh balls not yet stunned, as ``state.hand`` gives them.
    """
    return Position(
        (state.board.masks[0], state.board.masks[1], state.board.masks[2]),
        (_counts(state.hand(0)), _counts(state.hand(1))),
        _counts(state.stunned),
        state.phase,
        state.placer,
        state.placing,
        state.winner,
    )


def state_at(game: Spagyric, position: Position) -> SpagyricState:
    """An engine state at ``position``, with bags that fit it (``check_position`` passes, sudden
    death and finished games aside).

    Which seat lost which balls is not part of a position; the bags chosen here are one
    assignment that fits. No observation shows a bag, so every fitting assignment gives every
    seat the same view. Raises ``ValueError`` if no assignment fits (the position cannot arise).
    """
    s = game.supply
    in_play = _in_play(position)
    bag = [[0, 0, 0], [0, 0, 0]]
    if position.phase != SUDDEN:
        # won[p][c]: seat p's balls of colour c in play. Seat 0's counts fix won[0] up to one
        # constant (the colours form a cycle): try each, keep the first that fits.
        deficit = [s - position.stunned[c] - position.hands[0][c] for c in COLORS]  # = won0[c] + won1[c+2]
        won: list[list[int]] | None = None
        for base in range(in_play[0] + 1):
            # deficit[c] = won0[c] + won1[b] = won0[c] + in_play[b] - won0[b], b the colour beating c
            won0 = [base, 0, 0]
            won0[1] = deficit[1] - in_play[0] + won0[0]
            won0[2] = deficit[2] - in_play[1] + won0[1]
            if deficit[0] != won0[0] + in_play[2] - won0[2] or not all(0 <= won0[c] <= in_play[c] for c in COLORS):
                continue
            candidate = [won0, [in_play[c] - won0[c] for c in COLORS]]
            placer, placing = position.placer, position.placing
            if placer is not None and placing is not None and candidate[placer][placing] < 1:
                continue  # the ball being placed is the placer's
            won = candidate
            break
        if won is None:
            raise ValueError(f"no assignment of won and lost balls fits the position {position}")
        for p in (0, 1):
            for c in COLORS:
                bag[1 - p][BEATS[c]] += won[p][c]
    state = SpagyricState(
        game,
        Board(*position.masks),
        [list(position.hands[0]), list(position.hands[1])],
        list(position.stunned),
        bag,
        phase=position.phase,
        placer=position.placer,
        placing=position.placing,
        winner=position.winner,
    )
    if position.phase != SUDDEN:
        for p in (0, 1):
            for c in COLORS:
                total = position.hands[p][c] + position.stunned[c] + bag[p][c] + state.won(p, c)
                if total != s:
                    raise ValueError(f"seat {p} holds {total} balls of colour {c}, not {s}: {position}")
    return state


def _counts(values: Sequence[int]) -> Counts:
    return (values[0], values[1], values[2])


def _in_play(position: Position) -> list[int]:
    """Balls of each colour on the pyramid or about to be placed."""
    counts = [m.bit_count() for m in position.masks]
    if position.phase == PLACE and position.placing is not None:
        counts[position.placing] += 1
    return counts


def choosable(position: Position, seat: int) -> list[int]:
    """The colours ``seat`` may choose at a reveal (none outside one)."""
    if position.phase == SUDDEN:
        return [c for c in COLORS if not position.stunned[c]]
    if position.phase != REVEAL:
        return []
    hand = position.hands[seat]
    return [c for c in COLORS if hand[c]]


def placement_sites(position: Position) -> list[int]:
    """The sites the placer may use (none outside a placement)."""
    if position.phase != PLACE:
        return []
    occupied = position.masks[0] | position.masks[1] | position.masks[2]
    return list(iter_sites(placeable(occupied)))


# -- the rules on positions --------------------------------------------------------------------


def reveal_result(position: Position, first: int, second: int) -> Position:
    """The position after a reveal: seat 0 shows ``first``, seat 1 ``second`` (both legal)."""
    winner = stronger(first, second)
    if position.phase == SUDDEN:
        if winner is not None:
            return position._replace(phase=OVER, stunned=_NONE, winner=winner)
        stunned = list(position.stunned)
        stunned[first] = 1
        if all(stunned):
            stunned = [0, 0, 0]  # all three stunned: the sudden death starts again
        hand = (1 - stunned[0], 1 - stunned[1], 1 - stunned[2])
        return position._replace(hands=(hand, hand), stunned=_counts(stunned))
    h0, h1 = list(position.hands[0]), list(position.hands[1])
    h0[first] -= 1
    h1[second] -= 1
    hands = (_counts(h0), _counts(h1))
    if winner is None:
        stunned = list(position.stunned)
        stunned[first] += 1
        over = not any(h0) or not any(h1)
        return position._replace(hands=hands, stunned=_counts(stunned), phase=OVER if over else REVEAL)
    return position._replace(hands=hands, phase=PLACE, placer=winner, placing=first if winner == 0 else second)


def placement_size(masks: Counts, color: int, site: int) -> int:
    """The size of the group of ``color`` holding a ball placed on ``site``."""
    mask = masks[color]
    if not TOUCHING[site] & mask:
        return 1
    return group_of(mask | 1 << site, site).bit_count()


def place_result(position: Position, site: int) -> Position:
    """The position after the placer puts the ball on ``site`` (a legal site)."""
    placer, color = position.placer, position.placing
    assert placer is not None and color is not None
    size = placement_size(position.masks, color, site)
    masks = list(position.masks)
    masks[color] |= 1 << site
    st = position.stunned
    h0, h1 = position.hands
    hands = (
        (h0[0] + st[0], h0[1] + st[1], h0[2] + st[2]),
        (h1[0] + st[0], h1[1] + st[1], h1[2] + st[2]),
    )
    after = Position(_counts(masks), hands)
    if size == WINNING_SIZE:
        return after._replace(phase=OVER, winner=placer)
    if size >= 3:
        return after._replace(phase=OVER, winner=1 - placer)
    if masks[0] | masks[1] | masks[2] == ALL_SITES:
        return after._replace(phase=SUDDEN, hands=((1, 1, 1), (1, 1, 1)))  # a fresh ball of each colour
    if not any(hands[0]) or not any(hands[1]):
        return after._replace(phase=OVER)
    return after


def group_possible(position: Position) -> bool:
    """Whether a group of 3 or more can still form (if not, every continuation is a draw).

    A ball of colour ``c`` enters play only by beating a ball of ``BEATS[c]``, one from each
    seat's holding (supply and stunned; the ball being placed is already in play).
    """
    if position.phase == OVER:
        return False
    if position.phase == SUDDEN:
        return True
    return _group_possible(_in_play(position), position.hands[0], position.hands[1], position.stunned)


def _group_possible(in_play: Sequence[int], h0: Counts, h1: Counts, st: Counts) -> bool:
    w0, b0, r0 = h0[0] + st[0], h0[1] + st[1], h0[2] + st[2]
    w1, b1, r1 = h1[0] + st[0], h1[1] + st[1], h1[2] + st[2]
    # white beats black, black beats red, red beats white
    return (
        in_play[0] + min(w0, b1) + min(w1, b0) >= 3
        or in_play[1] + min(b0, r1) + min(b1, r0) >= 3
        or in_play[2] + min(r0, w1) + min(r1, w0) >= 3
    )


# -- symmetry ------------------------------------------------------------------------------------


#: The 8 symmetries of the pyramid as site permutations (the identity first): ``site -> image``.
SITE_MAPS: tuple[tuple[int, ...], ...] = SYMMETRIES
_SITE_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(1 << t for t in perm) for perm in SITE_MAPS)
_INVERSE_MAPS: tuple[tuple[int, ...], ...] = tuple(tuple(perm.index(t) for t in range(NUM_SITES)) for perm in SITE_MAPS)


def _map_mask(mask: int, bits: tuple[int, ...]) -> int:
    out = 0
    while mask:
        low = mask & -mask
        out |= bits[low.bit_length() - 1]
        mask ^= low
    return out


def _rotate(counts: Counts, k: int) -> Counts:
    """Counts with colour ``c`` moved to ``(c - k) % 3``."""
    return (counts[k % 3], counts[(k + 1) % 3], counts[(k + 2) % 3])


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of the game: a square symmetry ``square`` (index into :data:`SITE_MAPS`),
    colours turned so that colour ``c`` becomes ``(c - turn) % 3``, and the seats swapped or not."""

    square: int = 0
    turn: int = 0
    swap: bool = False

    def site(self, site: int) -> int:
        return SITE_MAPS[self.square][site]

    def color(self, color: int) -> int:
        return (color - self.turn) % 3

    def seat(self, seat: int) -> int:
        return 1 - seat if self.swap else seat

    def inverse_site(self, site: int) -> int:
        return _INVERSE_MAPS[self.square][site]

    def inverse_color(self, color: int) -> int:
        return (color + self.turn) % 3

    def apply(self, position: Position) -> Position:
        bits = _SITE_BITS[self.square]
        w, b, r = (_map_mask(m, bits) for m in position.masks)
        masks = _rotate((w, b, r), self.turn)
        h0, h1 = _rotate(position.hands[0], self.turn), _rotate(position.hands[1], self.turn)

        def seat(p: int | None) -> int | None:
            return None if p is None else self.seat(p)

        return Position(
            masks,
            (h1, h0) if self.swap else (h0, h1),
            _rotate(position.stunned, self.turn),
            position.phase,
            seat(position.placer),
            None if position.placing is None else self.color(position.placing),
            seat(position.winner),
        )


def transform_move(move: SpagyricMove, symmetry: Symmetry, inverse: bool = False) -> SpagyricMove:
    """A choice or placement carried through ``symmetry`` (or back, with ``inverse``)."""
    if isinstance(move, Choice):
        return Choice(symmetry.inverse_color(move.color) if inverse else symmetry.color(move.color))
    if isinstance(move, Place):
        return Place(symmetry.inverse_site(move.site) if inverse else symmetry.site(move.site))
    raise ValueError(f"{move!r} is not one seat's choice or placement")


_BOARD_CACHE: dict[Counts, tuple[Counts, tuple[tuple[int, int], ...]]] = {}
_BOARD_CACHE_LIMIT = 1 << 18


def _canonical_board(masks: Counts) -> tuple[Counts, tuple[tuple[int, int], ...]]:
    """The least image of ``masks`` under the 24 board-and-colour symmetries, and every
    ``(square, turn)`` that reaches it."""
    hit = _BOARD_CACHE.get(masks)
    if hit is not None:
        return hit
    best: Counts | None = None
    reach: list[tuple[int, int]] = []
    for square, bits in enumerate(_SITE_BITS):
        w, b, r = _map_mask(masks[0], bits), _map_mask(masks[1], bits), _map_mask(masks[2], bits)
        for turn, image in enumerate(((w, b, r), (b, r, w), (r, w, b))):
            if best is None or image < best:
                best, reach = image, [(square, turn)]
            elif image == best:
                reach.append((square, turn))
    assert best is not None
    if len(_BOARD_CACHE) >= _BOARD_CACHE_LIMIT:
        _BOARD_CACHE.clear()
    result = (best, tuple(reach))
    _BOARD_CACHE[masks] = result
    return result


def canonical(position: Position, seat: int | None = None) -> tuple[Position, Symmetry]:
    """The canonical image of ``position`` and the symmetry that takes ``position`` to it.

    Positions that a symmetry maps onto each other have the same canonical image. With
    ``seat`` given the seats are not free: the image puts ``seat`` in seat 0 (how an agent
    looks at a position from its own side). Without, the seats may swap too; the value of the
    image is then the value of ``position`` negated when ``symmetry.swap`` is set.
    """
    board, reach = _canonical_board(position.masks)
    swaps = (False, True) if seat is None else (seat == 1,)
    best_key: tuple[int, ...] | None = None
    best_symmetry = Symmetry()
    for square, turn in reach:
        h0, h1 = _rotate(position.hands[0], turn), _rotate(position.hands[1], turn)
        st = _rotate(position.stunned, turn)
        placing = -1 if position.placing is None else (position.placing - turn) % 3
        for swap in swaps:
            placer = -1 if position.placer is None else position.placer ^ swap
            winner = -1 if position.winner is None else position.winner ^ swap
            key = (*(h1 + h0 if swap else h0 + h1), *st, placer, placing, winner)
            if best_key is None or key < best_key:
                best_key, best_symmetry = key, Symmetry(square, turn, swap)
    image = best_symmetry.apply(position)
    assert image.masks == board
    return image, best_symmetry


def stabilizer(position: Position) -> list[Symmetry]:
    """The symmetries that keep the seats and map ``position`` onto itself (the identity first).

    >>> len(stabilizer(initial_position(2)))  # the 8 of the square times the 3 colour turns
    24
    """
    masks = position.masks
    found = []
    for square, bits in enumerate(_SITE_BITS):
        w, b, r = _map_mask(masks[0], bits), _map_mask(masks[1], bits), _map_mask(masks[2], bits)
        for turn in range(3):
            if _rotate((w, b, r), turn) == masks:  # the board first: most positions stop here
                symmetry = Symmetry(square, turn)
                if symmetry.apply(position) == position:
                    found.append(symmetry)
    return found


def _canonical_reveal(masks: Counts, h0: Counts, h1: Counts, stunned: Counts) -> tuple[_RevealKey, bool]:
    """:func:`canonical` of a reveal, as the solver's table key; and whether the seats swapped."""
    board, reach = _canonical_board(masks)
    best: tuple[Counts, Counts, Counts] | None = None
    swapped = False
    for _, turn in reach:
        r0, r1, rs = _rotate(h0, turn), _rotate(h1, turn), _rotate(stunned, turn)
        if best is None or (r0, r1, rs) < best:
            best, swapped = (r0, r1, rs), False
        if (r1, r0, rs) < best:
            best, swapped = (r1, r0, rs), True
    assert best is not None
    return (board, *best), swapped


# -- matrix games --------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixGame:
    """A solved zero-sum matrix game: the row player's value and both optimal mixed strategies."""

    value: float
    row: tuple[float, ...]
    column: tuple[float, ...]
    pure: bool


def solve_matrix_game(matrix: Sequence[Sequence[float]]) -> MatrixGame:
    """Solve a zero-sum matrix game (the row player maximises ``matrix[i][j]``) exactly.

    A pure saddle point (the best row's worst entry equals the best column's worst entry) is
    taken directly; otherwise both optimal strategies come from :func:`_kernel_strategy`, in
    exact arithmetic (Spagyric's reveals are at most 3×3, so this needs no LP library).

    >>> solve_matrix_game([[0, 1, -1], [-1, 0, 1], [1, -1, 0]]).value  # rock-paper-scissors
    0.0
    >>> game = solve_matrix_game([[1, -1], [0, 0.5]])
    >>> game.value, game.row
    (0.2, (0.2, 0.8))
    """
    rows, columns = len(matrix), len(matrix[0]) if matrix else 0
    if not rows or not columns or any(len(row) != columns for row in matrix):
        raise ValueError("a matrix game needs a non-empty rectangular matrix")
    row_worst = [min(row) for row in matrix]
    column_worst = [max(matrix[i][j] for i in range(rows)) for j in range(columns)]
    maximin, minimax = max(row_worst), min(column_worst)
    if minimax - maximin <= TOLERANCE:
        i, j = row_worst.index(maximin), column_worst.index(minimax)
        return MatrixGame(
            matrix[i][j], tuple(float(k == i) for k in range(rows)), tuple(float(k == j) for k in range(columns)), True
        )
    # Floats are fractions with a power of two below: scaled by the largest, every entry is an
    # exact integer, and the whole search runs in integers.
    exact = [[Fraction(entry) for entry in row] for row in matrix]
    scale = max(entry.denominator for row in exact for entry in row)
    integers = [[int(entry * scale) for entry in row] for row in exact]
    row_value, row = _kernel_strategy(integers)
    column_value, column = _kernel_strategy([[-integers[i][j] for i in range(rows)] for j in range(columns)])
    if row_value != -column_value:
        raise ArithmeticError(f"no equilibrium found for the matrix game {matrix}")  # cannot happen (minimax theorem)
    return MatrixGame(float(row_value / scale), row, column, False)


def _kernel_strategy(matrix: list[list[int]]) -> tuple[Fraction, tuple[float, ...]]:
    """The row player's maximin value and an optimal strategy, by support enumeration.

    Every matrix game has an optimal strategy that is a basic solution on a square submatrix
    (Shapley and Snow): rows ``I`` mixed so that each column of ``J`` pays the same. Each such
    candidate that is a distribution is scored, exactly, by what it secures against every
    column; the first best in the order of the supports is returned (deterministic).
    """
    rows, columns = len(matrix), len(matrix[0])
    best: tuple[Fraction, tuple[float, ...]] | None = None
    for size in range(1, min(rows, columns) + 1):
        for support in itertools.combinations(range(rows), size):
            for against in itertools.combinations(range(columns), size):
                mix = _indifferent_mix(matrix, support, against)
                if mix is None:
                    continue
                weights, total = mix
                pairs = list(zip(support, weights, strict=True))
                secured = min(sum(w * matrix[i][j] for i, w in pairs) for j in range(columns))
                if best is None or Fraction(secured, total) > best[0]:
                    strategy = [0.0] * rows
                    for i, weight in pairs:
                        strategy[i] = weight / total
                    best = (Fraction(secured, total), tuple(strategy))
    assert best is not None  # size 1 always gives the pure strategies
    return best


def _indifferent_mix(
    matrix: list[list[int]], support: tuple[int, ...], against: tuple[int, ...]
) -> tuple[list[int], int] | None:
    """Weights on ``support``, as integers over a positive total, making every column of
    ``against`` pay the same; ``None`` when no unique such distribution exists.

    Cramer's rule on the system ``sum_i w_i A[i][j] - v = 0`` (j in ``against``), ``sum_i w_i = 1``.
    """
    size = len(support)
    system = [[matrix[i][j] for i in support] + [-1] for j in against]
    system.append([1] * size + [0])
    rhs = [0] * size + [1]
    determinant = _determinant(system)
    if determinant == 0:
        return None
    weights = []
    for k in range(size):
        replaced = [[*row[:k], rhs[r], *row[k + 1 :]] for r, row in enumerate(system)]
        weights.append(_determinant(replaced))
    if determinant < 0:
        determinant, weights = -determinant, [-w for w in weights]
    if any(w < 0 for w in weights):
        return None
    return weights, determinant


def _determinant(matrix: list[list[int]]) -> int:
    """The determinant of a square integer matrix (Bareiss elimination: integers throughout)."""
    m = [row[:] for row in matrix]
    n, sign, previous = len(m), 1, 1
    for k in range(n - 1):
        if m[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if m[r][k] != 0), None)
            if swap is None:
                return 0
            m[k], m[swap] = m[swap], m[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // previous
        previous = m[k][k]
    return sign * m[n - 1][n - 1]


# -- the solver ------------------------------------------------------------------------------------


class SolveLimitError(RuntimeError):
    """The solver's table reached its ``max_states`` bound before the position was solved."""


@dataclass(frozen=True)
class RevealSolution:
    """A reveal solved: its value for seat 0, each seat's colours and optimal mixed strategy,
    and the matrix of values (rows: seat 0's colours, columns: seat 1's)."""

    value: float
    colors: tuple[tuple[int, ...], tuple[int, ...]]
    strategies: tuple[tuple[float, ...], tuple[float, ...]]
    matrix: tuple[tuple[float, ...], ...]

    def strategy(self, seat: int) -> dict[int, float]:
        """Seat ``seat``'s optimal mixed strategy as ``{colour: probability}``."""
        return dict(zip(self.colors[seat], self.strategies[seat], strict=True))


class SpagyricSolver:
    """Exact values of Spagyric positions for seat 0, memoised on canonical positions.

    ``symmetry`` and ``prune`` switch the two reductions (see the module docstring) — both exact,
    so switching them off changes only the time taken. ``max_states`` bounds the number of
    reveals the table may hold: past it :class:`SolveLimitError` is raised (what was solved
    stays in the table). The tables persist between calls: solve many positions of one game
    with one solver.
    """

    def __init__(self, *, symmetry: bool = True, prune: bool = True, max_states: int | None = None) -> None:
        self.symmetry = symmetry
        self.prune = prune
        self.max_states = max_states
        self._reveals: dict[_RevealKey, float] = {}
        self._places: dict[_PlaceKey, float] = {}
        self.mixed_solves = 0
        self.saddle_points = 0

    @property
    def states(self) -> int:
        """Reveals and placements held in the tables."""
        return len(self._reveals) + len(self._places)

    @property
    def reveals(self) -> int:
        """Canonical reveals held in the table (what ``max_states`` bounds)."""
        return len(self._reveals)

    def reveal_values(self) -> list[float]:
        """The values (for seat 0) of every canonical reveal solved so far."""
        return list(self._reveals.values())

    def clear(self) -> None:
        self._reveals.clear()
        self._places.clear()

    # -- values --------------------------------------------------------------------------------

    def value(self, position: Position) -> float:
        """The value of ``position`` for seat 0 under optimal play by both seats."""
        if position.phase == OVER:
            return position.value()
        if position.phase == SUDDEN:
            return 0.0  # a symmetric game: see solve_reveal for its strategies
        if position.phase == PLACE:
            assert position.placer is not None and position.placing is not None
            h0, h1, st = position.hands[0], position.hands[1], position.stunned
            return self._place(
                position.masks,
                (h0[0] + st[0], h0[1] + st[1], h0[2] + st[2]),
                (h1[0] + st[0], h1[1] + st[1], h1[2] + st[2]),
                position.placer,
                position.placing,
            )
        return self._reveal(position.masks, position.hands[0], position.hands[1], position.stunned)

    def placement_values(self, position: Position) -> dict[int, float]:
        """At a placement: the value for seat 0 after the ball goes on each legal site."""
        if position.phase != PLACE:
            raise ValueError(f"no placement in the {position.phase} phase")
        return {site: self.value(place_result(position, site)) for site in placement_sites(position)}

    def solve_reveal(self, position: Position) -> RevealSolution:
        """At a reveal (or a sudden-death reveal): the matrix game and its solution."""
        if position.phase not in (REVEAL, SUDDEN):
            raise ValueError(f"no reveal in the {position.phase} phase")
        rows, columns = choosable(position, 0), choosable(position, 1)
        matrix = tuple(
            tuple(
                self._sudden_entry(a, b) if position.phase == SUDDEN else self.value(reveal_result(position, a, b))
                for b in columns
            )
            for a in rows
        )
        game = solve_matrix_game(matrix)
        return RevealSolution(game.value, (tuple(rows), tuple(columns)), (game.row, game.column), matrix)

    @staticmethod
    def _sudden_entry(first: int, second: int) -> float:
        # A stun leads to another sudden-death reveal, worth 0 (a symmetric game); else the reveal decides.
        winner = stronger(first, second)
        return 0.0 if winner is None else (1.0 if winner == 0 else -1.0)

    def policy(self, position: Position, seat: int) -> dict[SpagyricMove, float]:
        """An optimal policy for ``seat``: the equilibrium mix at a reveal, the best sites
        (equally likely) at its placement."""
        if position.phase in (REVEAL, SUDDEN):
            return {Choice(c): p for c, p in self.solve_reveal(position).strategy(seat).items() if p > 0}
        if position.phase == PLACE and position.placer == seat:
            values = self.placement_values(position)
            sign = 1.0 if seat == 0 else -1.0
            best = max(sign * v for v in values.values())
            sites = [s for s, v in values.items() if sign * v >= best - TOLERANCE]
            return {Place(s): 1.0 / len(sites) for s in sites}
        raise ValueError(f"seat {seat} has no decision in this position")

    # -- the search ----------------------------------------------------------------------------

    def _reveal(self, masks: Counts, h0: Counts, h1: Counts, stunned: Counts) -> float:
        if not any(h0) or not any(h1):
            return 0.0
        if self.prune and not _group_possible(
            (masks[0].bit_count(), masks[1].bit_count(), masks[2].bit_count()), h0, h1, stunned
        ):
            return 0.0
        sign = 1.0
        if self.symmetry:
            key, swap = _canonical_reveal(masks, h0, h1, stunned)
            masks, h0, h1, stunned = key
            if swap:
                sign = -1.0
        else:
            key = (masks, h0, h1, stunned)
        known = self._reveals.get(key)
        if known is not None:
            return sign * known
        if self.max_states is not None and len(self._reveals) >= self.max_states:
            raise SolveLimitError(f"the solver's table is full ({self.max_states} reveals)")
        matrix: list[list[float]] = []
        for a in COLORS:
            if not h0[a]:
                continue
            row = []
            for b in COLORS:
                if not h1[b]:
                    continue
                if a == b:
                    n0, n1, ns = list(h0), list(h1), list(stunned)
                    n0[a] -= 1
                    n1[a] -= 1
                    ns[a] += 1
                    row.append(self._reveal(masks, _counts(n0), _counts(n1), _counts(ns)))
                else:
                    n0 = [h0[c] + stunned[c] for c in COLORS]
                    n1 = [h1[c] + stunned[c] for c in COLORS]
                    n0[a] -= 1
                    n1[b] -= 1
                    placer = 0 if BEATS[a] == b else 1
                    row.append(self._place(masks, _counts(n0), _counts(n1), placer, a if placer == 0 else b))
            matrix.append(row)
        game = solve_matrix_game(matrix)
        if game.pure:
            self.saddle_points += 1
        else:
            self.mixed_solves += 1
        self._reveals[key] = game.value
        return sign * game.value

    def _place(self, masks: Counts, h0: Counts, h1: Counts, placer: int, color: int) -> float:
        """Value for seat 0 of ``placer`` placing ``color``; the hands are those after the turn."""
        key = (masks, h0, h1, placer, color)
        known = self._places.get(key)
        if known is not None:
            return known
        occupied = masks[0] | masks[1] | masks[2]
        sign = 1.0 if placer == 0 else -1.0
        empty = not any(h0) or not any(h1)
        best = -2.0
        for site in iter_sites(placeable(occupied)):
            size = placement_size(masks, color, site)
            if size == WINNING_SIZE:
                best = 1.0
                break
            if size >= 3:
                value = -1.0
            elif occupied | 1 << site == ALL_SITES or empty:
                value = 0.0  # sudden death (a symmetric game), or nobody has a ball to choose: a draw
            else:
                after = list(masks)
                after[color] |= 1 << site
                value = sign * self._reveal(_counts(after), h0, h1, _NONE)
            best = max(best, value)
        result = sign * best
        self._places[key] = result
        return result


_SOLVERS: dict[int, SpagyricSolver] = {}


def game_value(supply: int = 1) -> float:
    """The exact value for Player 1 (seat 0) of Spagyric's start with ``supply`` balls of each colour.

    Spheria's own answer, for checking other solvers (OpenSpiel's, say) against. Seats are alike
    at the start, so this is 0 for every supply; ``supply`` 1 and 2 solve in a few seconds, more
    is out of reach of this exact search. The solved tables are kept for further calls.

    >>> game_value(supply=1), game_value(supply=2)
    (0.0, 0.0)
    """
    if supply < 1:
        raise ValueError(f"supply must be at least 1, not {supply}")
    solver = _SOLVERS.setdefault(supply, SpagyricSolver())
    return solver.value(initial_position(supply)) + 0.0  # no -0.0


def position_value(state: SpagyricState, solver: SpagyricSolver | None = None) -> float:
    """The exact value for seat 0 of an engine state (small positions only: see ``max_states``)."""
    return (solver or SpagyricSolver()).value(position_of(state)) + 0.0


# -- exploitability ------------------------------------------------------------------------------

#: A seat's mixed strategy: given its view (``view.player`` decides), a probability per legal move.
Policy = Callable[[SpagyricView], Mapping[SpagyricMove, float]]


def uniform_policy(view: SpagyricView) -> dict[SpagyricMove, float]:
    """Every legal move equally likely (the ``random`` agent)."""
    moves = view.legal_moves()
    return {move: 1.0 / len(moves) for move in moves}


def fixed_color_policy(color: int) -> Policy:
    """``color`` whenever it is in hand, else any choosable colour; any site (the ``fixed`` agent)."""

    def policy(view: SpagyricView) -> dict[SpagyricMove, float]:
        moves = view.legal_moves()
        if Choice(color) in moves:
            return {Choice(color): 1.0}
        return {move: 1.0 / len(moves) for move in moves}

    return policy


@dataclass(frozen=True)
class Exploitability:
    """How a policy fares against a best responder, exactly.

    ``value`` is the game value for seat 0 at the root; ``first`` is what the policy secures in
    seat 0 (the value for seat 0 when seat 1 best-responds) and ``second`` what it secures in
    seat 1 (the value for seat 1). ``loss_first`` and ``loss_second`` are how far each falls
    short of the game value, and ``exploitability`` their mean (NashConv / 2): 0 for an
    optimal policy, at most 2. ``decisions`` counts the positions the policy was asked about.
    """

    value: float
    first: float
    second: float
    decisions: int
    seconds: float

    @property
    def loss_first(self) -> float:
        return self.value - self.first

    @property
    def loss_second(self) -> float:
        return -self.value - self.second

    @property
    def exploitability(self) -> float:
        return (self.loss_first + self.loss_second) / 2


@dataclass
class _BestResponse:
    game: Spagyric
    policy: Policy
    symmetric: bool
    memo: dict[tuple[Position, int], float] = field(default_factory=dict)
    decisions: int = 0

    def value(self, position: Position, me: int) -> float:
        """``me``'s expected result when ``me`` plays the policy and the other seat best-responds."""
        if position.phase == OVER:
            return position.value() if me == 0 else -position.value()
        if position.phase == SUDDEN:
            raise ValueError("sudden death is not searched by the best response (it needs 28+ placements)")
        if not group_possible(position):
            return 0.0
        if self.symmetric:
            position, _ = canonical(position, seat=me)
            me = 0
        key = (position, me)
        known = self.memo.get(key)
        if known is not None:
            return known
        if position.phase == REVEAL:
            mine = self._ask(position, me)
            worst = math.inf
            for theirs in choosable(position, 1 - me):
                total = 0.0
                for move, p in mine.items():
                    assert isinstance(move, Choice)
                    pair = (move.color, theirs) if me == 0 else (theirs, move.color)
                    total += p * self.value(reveal_result(position, *pair), me)
                worst = min(worst, total)
            result = worst
        elif position.placer == me:
            result = 0.0
            for move, p in self._ask(position, me).items():
                assert isinstance(move, Place)
                result += p * self.value(place_result(position, move.site), me)
        else:
            result = min(self.value(place_result(position, site), me) for site in placement_sites(position))
        self.memo[key] = result
        return result

    def _ask(self, position: Position, me: int) -> dict[SpagyricMove, float]:
        self.decisions += 1
        view = state_at(self.game, position).view(me)
        legal = view.legal_moves()
        given = self.policy(view)
        dist = {move: float(p) for move, p in given.items() if p > 0}
        if any(move not in legal for move in dist) or any(p < 0 for p in given.values()):
            raise ValueError(f"the policy gave illegal moves or negative probabilities: {given}")
        total = sum(dist.values())
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"the policy's probabilities add up to {total}, not 1")
        return {move: p / total for move, p in dist.items()}


def exploitability(
    policy: Policy,
    supply: int = 2,
    *,
    root: SpagyricState | None = None,
    symmetric: bool = False,
    solver: SpagyricSolver | None = None,
) -> Exploitability:
    """Play a best responder against ``policy`` in both seats, exactly, from the start of the game
    with ``supply`` (or from ``root``).

    ``policy`` is asked only through each seat's :class:`SpagyricView`, as an agent would be.
    With ``symmetric`` the search walks canonical positions only (each seen from the policy's
    side, in seat 0) — exact only for a policy that treats symmetric positions alike, as the
    ``spagyric`` agent does, and far fewer questions; without, every position is asked about as
    it stands. Positions where no group of three can form any more are draws whatever anyone
    does, and are not asked about.
    """
    start = time.perf_counter()
    if root is None:
        game = load_game("spagyric", supply=supply)
        assert isinstance(game, Spagyric)
        position = initial_position(supply)
    else:
        game, position = root.game, position_of(root)
    solver = solver or SpagyricSolver()
    value = solver.value(position)
    search = _BestResponse(game, policy, symmetric)
    first = search.value(position, 0)
    second = search.value(position, 1)
    return Exploitability(value + 0.0, first + 0.0, second + 0.0, search.decisions, time.perf_counter() - start)
