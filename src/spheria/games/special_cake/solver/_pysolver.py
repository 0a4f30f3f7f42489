"""The exact search of Special Cake's eating phase in pure Python: the fallback of ``_cakesolver.c``.

The same search as the compiled one, step by step (see that file and docs/solver.md): a
position is packed as ``A | B << 30`` with ``A = white | red`` and ``B = black | red``; the
children follow :func:`spheria.games.special_cake.eating_outcomes`; negamax over canonical
codes (least over the 8 symmetries and the colour permutations the line rule cannot see,
ordered by occupancy first), enhanced transposition cutoffs and the same move ordering. With a
table that never fills, it expands exactly the positions the compiled search expands.

The hot paths use tables built once at import: per site and occupancy of the sites above it
(at most 4 of them), whether the candy is pinned and how both planes shift when it is eaten;
the symmetries map 10-bit chunks of a mask through lookup lists. The transposition table is a
dict, capped at ``2**min(max_table_bits, MAX_TABLE_BITS)`` entries and emptied when full.
"""

from __future__ import annotations

import functools
import operator
import time
from collections.abc import Callable
from typing import TypeVar

from spheria.engine.board import ABOVE, BELOW, NUM_SITES, RISING_CHAINS, SEGMENTS, SYMMETRIES

__all__ = ["MAX_TABLE_BITS", "PROGRESS_EVERY", "Search"]

#: The most entries (about 100 bytes each in a dict) the pure table may hold: 2**22.
MAX_TABLE_BITS = 22
#: Positions between two checks of the time limit and two calls of the progress callback.
PROGRESS_EVERY = 4096

_M30 = (1 << 30) - 1
_MINT, _SUGAR, _POISONED = 0, 1, 2
_MIXED, _ANY, _SAME = 0, 1, 2
_WIN, _LOSS = 1, -1
_PERMUTATIONS = ((0, 1, 2), (1, 0, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0), (2, 0, 1))
_T = TypeVar("_T")


def _pair(site: int) -> int:
    """The bits of ``site`` in both planes."""
    return 1 << site | 1 << (site + 30)


def _chain(occupied: int, site: int) -> tuple[int, ...]:
    """The drop chain of an unpinned ``site`` (as ``board.drop_chain``)."""
    held = ABOVE[site] & occupied
    if not held:
        return (site,)
    full = RISING_CHAINS[(site, held.bit_length() - 1)]
    n = 2
    while n < len(full) and occupied >> full[n] & 1:
        n += 1
    return full[:n]


def _pinned(occupied: int, site: int) -> bool:
    return (ABOVE[site] & occupied).bit_count() >= 2


# A move is applied to a code as a "map": pairs (mask, shift), the child being the union of
# (code & mask) >> shift. Every ball of the parent either is eaten or ends ``shift`` sites
# lower (drops only go down the rising chains, to lower site numbers), so one pair per shift.
Map = tuple[tuple[int, int], ...]


def _cone(site: int) -> int:
    """``site`` and every site resting on it, directly or through others: all a drop can touch."""
    cone = 1 << site
    for level_site in range(site + 1, NUM_SITES):
        if BELOW[level_site] & cone:
            cone |= 1 << level_site
    return cone


_CONES = tuple(_cone(s) for s in range(NUM_SITES))
_ALL_PAIRS = (1 << 60) - 1


def _map_of(where: dict[int, int], reach: int) -> Map:
    """The map sending the ball first on site x to ``where[x]``; balls of ``reach`` not in ``where``
    are eaten, balls outside ``reach`` stay."""
    masks: dict[int, int] = {0: _ALL_PAIRS & ~(reach | reach << 30)}
    for origin, site in where.items():
        masks[origin - site] = masks.get(origin - site, 0) | _pair(origin)
    return tuple((mask, shift) for shift, mask in sorted(masks.items()))


def _eat(where: dict[int, int], occupied: int, site: int) -> tuple[dict[int, int], int]:
    """Eat the ball now on ``site`` (unpinned): ``where`` (origin -> site now) and the occupancy after."""
    chain = _chain(occupied, site)
    step = {chain[i]: chain[i - 1] for i in range(1, len(chain))}
    moved = {origin: step.get(now, now) for origin, now in where.items() if now != site}
    return moved, occupied & ~(1 << chain[-1])


def _single_map(site: int, occupied: int) -> Map | None:
    """The map of eating ``site`` alone, ``None`` when it is pinned (``occupied`` within its cone)."""
    if _pinned(occupied, site):
        return None
    start = {s: s for s in range(NUM_SITES) if occupied >> s & 1}
    return _map_of(_eat(start, occupied, site)[0], _CONES[site])


def _line_maps(segment: int, occupied: int) -> list[Map]:
    """The distinct maps of eating ``SEGMENTS[segment]`` in every order where each candy is
    unpinned in turn (``occupied`` within the segment's reach)."""
    found: dict[Map, None] = {}
    reach = _LINE_REACH[segment]

    def eat_rest(where: dict[int, int], occ: int, origins: tuple[int, ...]) -> None:
        if not origins:
            found[_map_of(where, reach)] = None
            return
        for origin in origins:
            site = where[origin]
            if not _pinned(occ, site):
                moved, after = _eat(where, occ, site)
                eat_rest(moved, after, tuple(o for o in origins if o != origin))

    eat_rest({s: s for s in range(NUM_SITES) if occupied >> s & 1}, occupied, SEGMENTS[segment])
    return list(found)


_SEGMENT_MASKS = tuple(functools.reduce(operator.or_, (1 << s for s in seg)) for seg in SEGMENTS)
_LINE_REACH = tuple(functools.reduce(operator.or_, (_CONES[s] for s in seg)) for seg in SEGMENTS)
_LINES = tuple(zip(range(len(SEGMENTS)), _SEGMENT_MASKS, _LINE_REACH, strict=True))
# Maps by site (or segment) and the occupancy of its reach, made on first use.
_SINGLE_MAPS: list[dict[int, Map | None]] = [{} for _ in range(NUM_SITES)]
_LINE_MAPS: list[dict[int, list[Map]]] = [{} for _ in SEGMENTS]


def _symmetries_of(occupied: int) -> tuple[int, tuple[_Chunks, ...]]:
    """The least image of ``occupied`` and the symmetries reaching it (identity: ``None`` chunks)."""
    best, chosen = occupied, [_IDENTITY]
    for chunks in _SYMMETRY_CHUNKS:
        t0, t1, t2 = chunks
        image = t0[occupied & 1023] | t1[occupied >> 10 & 1023] | t2[occupied >> 20]
        if image < best:
            best, chosen = image, []
        if image == best:
            chosen.append(chunks)
    return best, tuple(chosen)


def _order_score(occupied: int) -> int:
    """Move ordering, lower first: fewest candies, then fewest unpinned candies."""
    free = 0
    m = occupied
    while m:
        low = m & -m
        m ^= low
        held = ABOVE[low.bit_length() - 1] & occupied
        if not held & (held - 1):
            free += 1
    return occupied.bit_count() * 64 + free


class _Cache(dict[int, _T]):
    """Facts about occupancies, computed on first use; emptied when it holds ``limit`` of them."""

    def __init__(self, compute: Callable[[int], _T], limit: int) -> None:
        super().__init__()
        self._compute = compute
        self._limit = limit

    def __missing__(self, occupied: int) -> _T:
        if len(self) >= self._limit:
            self.clear()
        value = self[occupied] = self._compute(occupied)
        return value


_Chunks = tuple[list[int], list[int], list[int]]


def _symmetry_chunks(perm: tuple[int, ...]) -> _Chunks:
    """The image of every 10-bit chunk of a mask (sites 0-9, 10-19, 20-29) under ``perm``."""
    chunks = []
    for base in (0, 10, 20):
        table = []
        for value in range(1024):
            image = 0
            for bit in range(10):
                if value >> bit & 1:
                    image |= 1 << perm[base + bit]
            table.append(image)
        chunks.append(table)
    return chunks[0], chunks[1], chunks[2]


_IDENTITY = _symmetry_chunks(SYMMETRIES[0])
_SYMMETRY_CHUNKS = tuple(_symmetry_chunks(perm) for perm in SYMMETRIES[1:])
_SYMMETRIES: _Cache[tuple[int, tuple[_Chunks, ...]]] = _Cache(_symmetries_of, 1 << 17)
_SCORES: _Cache[int] = _Cache(_order_score, 1 << 17)


class Search:
    """A solver for one rule set (variant 0 mint, 1 sugar, 2 poisoned; line_rule 0 mixed, 1 any, 2 same).

    The API of ``_cakesolver.Search``; ``value`` also takes ``progress``, called with the
    positions expanded so far every :data:`PROGRESS_EVERY` positions.
    """

    def __init__(self, variant: int, line_rule: int, max_table_bits: int = 26) -> None:
        if variant not in (_MINT, _SUGAR, _POISONED) or line_rule not in (_MIXED, _ANY, _SAME):
            raise ValueError("variant must be 0..2 (mint, sugar, poisoned), line_rule 0..2 (mixed, any, same)")
        if not 12 <= max_table_bits <= 34:
            raise ValueError("max_table_bits must be 12..34")
        self._variant = variant
        self._rule = line_rule
        self._cherry = variant == _POISONED
        self._normalise = line_rule == _ANY
        self._permutations = 1 if self._normalise else 6 if variant == _SUGAR else 2
        self._capacity = 1 << min(max_table_bits, MAX_TABLE_BITS)
        self._table: dict[int, int] = {}
        self._positions = 0
        self._next_check = PROGRESS_EVERY
        self._deadline = -1.0
        self._progress: Callable[[int], object] | None = None

    # -- the API of the compiled Search --------------------------------------------------------

    @property
    def positions(self) -> int:
        """Positions expanded since this Search was made."""
        return self._positions

    @property
    def table_entries(self) -> int:
        return len(self._table)

    @property
    def table_capacity(self) -> int:
        return self._capacity

    def clear(self) -> None:
        self._table = {}

    def value(
        self,
        white: int,
        black: int,
        red: int,
        time_limit: float = -1.0,
        progress: Callable[[int], object] | None = None,
    ) -> int:
        """+1 or -1 for the player to move; ``TimeoutError`` past ``time_limit`` seconds (negative: none)."""
        white, black, red = _check_masks(white, black, red)
        if self._normalise:
            if self._cherry:
                white |= black
            else:
                white |= black | red
                red = 0
            black = 0
        occupied = white | black | red
        if not self._cherry and not occupied:
            return 1
        if self._cherry and occupied == red:
            return -1
        a, b = white | red, black | red
        key = self._canonical(a, b)
        known = self._table.get(key)
        if known is not None:
            return known
        self._deadline = time.monotonic() + time_limit if time_limit >= 0 else -1.0
        self._progress = progress
        self._next_check = self._positions + PROGRESS_EVERY
        try:
            return self._search(a | b << 30, key)
        finally:
            self._progress = None

    def children(self, white: int, black: int, red: int) -> list[tuple[int, int, int]]:
        """The distinct positions one eating move reaches, as mask triples."""
        white, black, red = _check_masks(white, black, red)
        out = []
        for code in dict.fromkeys(self._generate(white | red, black | red)):
            a, b = code & _M30, code >> 30
            out.append((a & ~b, b & ~a, a & b))
        return out

    def canonical(self, white: int, black: int, red: int) -> tuple[int, int, int]:
        """The representative of the position's symmetry class."""
        white, black, red = _check_masks(white, black, red)
        code = self._canonical(white | red, black | red)
        a, b = code & _M30, code >> 30
        return (a & ~b, b & ~a, a & b)

    # -- the search ----------------------------------------------------------------------------

    def _generate(self, a: int, b: int) -> list[int]:
        """Every code one eating move reaches, with repeats (as the compiled ``generate``)."""
        occupied = a | b
        code = a | b << 30
        red = a & b
        cherry = self._cherry
        out = []
        m = occupied
        while m:
            low = m & -m
            m ^= low
            if cherry and red & low:
                continue  # eaten only alone, and then the game is over
            s = low.bit_length() - 1
            sub = occupied & _CONES[s]
            try:
                pairs = _SINGLE_MAPS[s][sub]
            except KeyError:
                pairs = _SINGLE_MAPS[s][sub] = _single_map(s, sub)
            if pairs is not None:
                child = 0
                for mask, shift in pairs:
                    child |= (code & mask) >> shift
                out.append(child)
        rule = self._rule
        white, black = a & ~b, b & ~a
        for segment, seg_mask, reach in _LINES:
            if occupied & seg_mask != seg_mask or (cherry and red & seg_mask):
                continue
            if rule != _ANY:
                colours = (white & seg_mask != 0) + (black & seg_mask != 0) + (red & seg_mask != 0)
                if colours < 2 if rule == _MIXED else colours != 1:
                    continue
            sub = occupied & reach
            try:
                maps_here = _LINE_MAPS[segment][sub]
            except KeyError:
                maps_here = _LINE_MAPS[segment][sub] = _line_maps(segment, sub)
            for pairs in maps_here:
                child = 0
                for mask, shift in pairs:
                    child |= (code & mask) >> shift
                out.append(child)
        return out

    def _canonical(self, a: int, b: int) -> int:
        """The least code, ordered by (occupancy, code), over symmetries and colour permutations."""
        permutations = self._permutations
        best = -1
        for t0, t1, t2 in _SYMMETRIES[a | b][1]:
            ta = t0[a & 1023] | t1[a >> 10 & 1023] | t2[a >> 20]
            tb = t0[b & 1023] | t1[b >> 10 & 1023] | t2[b >> 20]
            code = ta | tb << 30
            if best < 0 or code < best:
                best = code
            if permutations == 2:
                code = tb | ta << 30
                if code < best:
                    best = code
            elif permutations == 6:
                colours = (ta & ~tb, tb & ~ta, ta & tb)
                for perm in _PERMUTATIONS[1:]:
                    moved = [0, 0, 0]
                    moved[perm[0]] = colours[0]
                    moved[perm[1]] = colours[1]
                    moved[perm[2]] = colours[2]
                    code = (moved[0] | moved[2]) | (moved[1] | moved[2]) << 30
                    if code < best:
                        best = code
        return best

    def _store(self, key: int, value: int) -> None:
        table = self._table
        if len(table) >= self._capacity:
            table.clear()
        table[key] = value

    def _check_limits(self) -> None:
        self._next_check = self._positions + PROGRESS_EVERY
        if self._deadline >= 0 and time.monotonic() > self._deadline:
            raise TimeoutError("the solver ran out of time")
        if self._progress is not None:
            self._progress(self._positions)

    def _search(self, code: int, key: int) -> int:
        """Value for the player to move of the non-terminal position ``code`` (canonical ``key``)."""
        self._positions += 1
        if self._positions >= self._next_check:
            self._check_limits()
        a, b = code & _M30, code >> 30
        cherry = self._cherry
        table = self._table
        canonical = self._canonical
        seen: set[int] = set()
        listed: list[tuple[int, int]] = []
        for raw in self._generate(a, b):
            ca, cb = raw & _M30, raw >> 30
            occupied = ca | cb
            if cherry:
                if occupied == ca & cb:
                    self._store(key, _WIN)
                    return _WIN
            elif not occupied:
                continue  # eating the last candy loses
            if raw in seen:
                continue
            seen.add(raw)
            ck = canonical(ca, cb)
            if ck != raw:
                if ck in seen:
                    continue
                seen.add(ck)
            listed.append((raw, ck))
        unknown = []
        for raw, ck in listed:
            known = table.get(ck)
            if known is None:
                unknown.append((_SCORES[(raw | raw >> 30) & _M30], ck, raw))
            elif known == _LOSS:
                self._store(key, _WIN)
                return _WIN
        unknown.sort()
        search = self._search
        for _, ck, raw in unknown:
            if search(raw, ck) == _LOSS:
                self._store(key, _WIN)
                return _WIN
        self._store(key, _LOSS)
        return _LOSS


def _check_masks(white: int, black: int, red: int) -> tuple[int, int, int]:
    if (white | black | red) >> NUM_SITES or min(white, black, red) < 0:
        raise ValueError("masks must hold sites 0..29 only")
    if white & black or white & red or black & red:
        raise ValueError("a site holds two colours")
    occupied = white | black | red
    for s in range(NUM_SITES):
        if occupied >> s & 1 and occupied & BELOW[s] != BELOW[s]:
            raise ValueError(f"the ball on site {s} floats: a ball needs all four balls below it")
    return white, black, red
