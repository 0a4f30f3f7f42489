"""The Shibumi board: a 30-site square pyramid over integer bitboards.

Sites are numbered level by level, rank by rank, file by file::

    level 0 (4x4): 0..15     site = row * 4 + col
    level 1 (3x3): 16..24    site = 16 + row * 3 + col
    level 2 (2x2): 25..28    site = 25 + row * 2 + col
    level 3 (1x1): 29

A site is named ``{level}{file}{rank}``: file ``a``.. is the column, rank ``1``.. is
``row + 1``, both counted within the level (``0a1`` .. ``0d4``, ``1a1`` .. ``1c3``,
``2a1`` .. ``2b2``, ``3a1``).

The level-``l`` site at (row ``r``, col ``c``) rests on the four level-``l-1`` sites
(``r..r+1``, ``c..c+1``). Every table below is computed once at import time; the
functions that games call in their hot paths take and return plain ``int`` masks.

>>> parse_site("1b2") == site_index(1, 1, 1)
True
>>> site_name(TOP)
'3a1'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from spheria.i18n import N_, gettext
from spheria.i18n.width import pad

LEVELS = 4
LEVEL_SIZES = (4, 3, 2, 1)
LEVEL_OFFSETS = (0, 16, 25, 29)
NUM_SITES = 30
TOP = 29
ALL_SITES = (1 << NUM_SITES) - 1

WHITE, BLACK, RED = 0, 1, 2
COLORS = (WHITE, BLACK, RED)
COLOR_CHARS = "wbr"
COLOR_NAMES = ("white", "black", "red")
EMPTY_CHAR = "."


def site_index(level: int, row: int, col: int) -> int:
    """The site number of (level, row, col); raises ``ValueError`` off the pyramid."""
    if not 0 <= level < LEVELS:
        raise ValueError(f"level {level} is not 0..3")
    n = LEVEL_SIZES[level]
    if not (0 <= row < n and 0 <= col < n):
        raise ValueError(f"row {row}, col {col} is off level {level} ({n}x{n})")
    return LEVEL_OFFSETS[level] + row * n + col


def _coords(site: int) -> tuple[int, int, int]:
    for level in range(LEVELS - 1, -1, -1):
        if site >= LEVEL_OFFSETS[level]:
            n = LEVEL_SIZES[level]
            row, col = divmod(site - LEVEL_OFFSETS[level], n)
            return level, row, col
    raise ValueError(f"site {site} is not 0..29")


SITE_COORDS: tuple[tuple[int, int, int], ...] = tuple(_coords(s) for s in range(NUM_SITES))
SITE_LEVEL: tuple[int, ...] = tuple(c[0] for c in SITE_COORDS)
SITE_NAMES: tuple[str, ...] = tuple(f"{level}{'abcd'[col]}{row + 1}" for level, row, col in SITE_COORDS)
_SITE_BY_NAME = {name: s for s, name in enumerate(SITE_NAMES)}

BB_SITES: tuple[int, ...] = tuple(1 << s for s in range(NUM_SITES))
BB_LEVELS: tuple[int, ...] = tuple(
    sum(1 << s for s in range(NUM_SITES) if SITE_LEVEL[s] == level) for level in range(LEVELS)
)


def site_name(site: int) -> str:
    return SITE_NAMES[site]


#: The texts of this layer a person reads: the heading over each level of a drawn pyramid, and
#: the refusal of a mistyped site (the other errors concern position notation, read by programs).
LEVEL_LABEL = N_("level {level}")
NOT_A_SITE = N_("{text} is not a site name (expected e.g. 0a1..0d4, 1a1..1c3, 2a1..2b2, 3a1)")
SPN_NOT_TEXT = N_("a board is written as text such as {example}, not {text}")
SPN_LEVEL_COUNT = N_("board {text} must have 4 levels separated by '/', found {n}")
SPN_LEVEL_SIZE = N_("level {level} of the board must have {size} sites, found {n}")
SPN_BAD_CHAR = N_("level {level} has {char}; a site is one of 'w', 'b', 'r' or '.'")
FLOATS = N_("ball on {sites} floats: a ball needs all four balls below it")


def parse_site(text: str) -> int:
    """Parse a site name such as ``0a1`` or ``2b2``; raises ``ValueError`` naming the text."""
    site = _SITE_BY_NAME.get(text.strip().lower())
    if site is None:
        raise ValueError(gettext(NOT_A_SITE).format(text=repr(text)))
    return site


def _valid(level: int, row: int, col: int) -> bool:
    return 0 <= level < LEVELS and 0 <= row < LEVEL_SIZES[level] and 0 <= col < LEVEL_SIZES[level]


def _mask(sites: Iterator[int] | list[int] | tuple[int, ...]) -> int:
    m = 0
    for s in sites:
        m |= 1 << s
    return m


def _below(site: int) -> list[int]:
    level, row, col = SITE_COORDS[site]
    if level == 0:
        return []
    return [site_index(level - 1, row + a, col + b) for a in (0, 1) for b in (0, 1)]


#: ``BELOW[s]``: the sites that a ball on ``s`` rests on (0 on level 0).
BELOW: tuple[int, ...] = tuple(_mask(_below(s)) for s in range(NUM_SITES))
#: ``ABOVE[s]``: the sites whose balls rest (partly) on ``s``.
ABOVE: tuple[int, ...] = tuple(_mask(t for t in range(NUM_SITES) if BELOW[t] >> s & 1) for s in range(NUM_SITES))


def _same_level(site: int, steps: tuple[tuple[int, int], ...]) -> int:
    level, row, col = SITE_COORDS[site]
    return _mask(site_index(level, row + dr, col + dc) for dr, dc in steps if _valid(level, row + dr, col + dc))


_ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
_KING = (*_ORTHOGONAL, (-1, -1), (-1, 1), (1, -1), (1, 1))

#: Same-level orthogonal neighbours.
NEIGHBOURS: tuple[int, ...] = tuple(_same_level(s, _ORTHOGONAL) for s in range(NUM_SITES))
#: Same-level orthogonal and diagonal neighbours (a move of one site to the next).
ADJACENT: tuple[int, ...] = tuple(_same_level(s, _KING) for s in range(NUM_SITES))
#: Balls that touch: same-level orthogonal neighbours, the balls below and the balls above.
TOUCHING: tuple[int, ...] = tuple(NEIGHBOURS[s] | BELOW[s] | ABOVE[s] for s in range(NUM_SITES))

#: The six touching axes as (dlevel, drow, dcol) steps: two along a level, four rising.
AXES: tuple[tuple[int, int, int], ...] = (
    (0, 0, 1),
    (0, 1, 0),
    (1, 0, 0),
    (1, 0, -1),
    (1, -1, 0),
    (1, -1, -1),
)


def _maximal_lines() -> list[tuple[int, ...]]:
    lines = []
    for dl, dr, dc in AXES:
        for start in range(NUM_SITES):
            level, row, col = SITE_COORDS[start]
            if _valid(level - dl, row - dr, col - dc):
                continue  # not the first site of its line
            line = []
            while _valid(level, row, col):
                line.append(site_index(level, row, col))
                level, row, col = level + dl, row + dr, col + dc
            if len(line) >= 2:
                lines.append(tuple(line))
    return lines


#: Every maximal straight line of two or more sites on the six touching axes.
LINES: tuple[tuple[int, ...], ...] = tuple(_maximal_lines())
#: Every run of two or more consecutive sites of a maximal line: what a player may name as a line.
SEGMENTS: tuple[tuple[int, ...], ...] = tuple(
    line[i:j] for line in LINES for i in range(len(line)) for j in range(i + 2, len(line) + 1)
)
SEGMENT_MASKS: tuple[int, ...] = tuple(_mask(seg) for seg in SEGMENTS)


def _rising_chains() -> dict[tuple[int, int], tuple[int, ...]]:
    """For each pair (s, t) with t resting on s: the sites s, t, ... up that diagonal."""
    chains = {}
    for s in range(NUM_SITES):
        level, row, col = SITE_COORDS[s]
        for t in range(NUM_SITES):
            if not ABOVE[s] >> t & 1:
                continue
            _, trow, tcol = SITE_COORDS[t]
            dr, dc = trow - row, tcol - col
            chain = [s]
            lv, r, c = level + 1, trow, tcol
            while _valid(lv, r, c):
                chain.append(site_index(lv, r, c))
                lv, r, c = lv + 1, r + dr, c + dc
            chains[(s, t)] = tuple(chain)
    return chains


_RISING_CHAINS = _rising_chains()
#: ``RISING_CHAINS[(s, t)]``: the sites s, t, ... up the diagonal through t resting on s (drops, solvers).
RISING_CHAINS = _RISING_CHAINS

#: The straight rows, columns and diagonals spanning each level.
SPAN_LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(site_index(level, *rc) for rc in cells)
    for level in range(LEVELS - 1)
    for n in (LEVEL_SIZES[level],)
    for cells in (
        [[(r, c) for c in range(n)] for r in range(n)]
        + [[(r, c) for r in range(n)] for c in range(n)]
        + [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    )
)


# The 8 symmetries of the square as maps of (row, col) on an n x n level; the identity first.
_SQUARE_MAPS: tuple[Callable[[int, int, int], tuple[int, int]], ...] = (
    lambda r, c, n: (r, c),
    lambda r, c, n: (c, n - 1 - r),
    lambda r, c, n: (n - 1 - r, n - 1 - c),
    lambda r, c, n: (n - 1 - c, r),
    lambda r, c, n: (r, n - 1 - c),
    lambda r, c, n: (n - 1 - r, c),
    lambda r, c, n: (c, r),
    lambda r, c, n: (n - 1 - c, n - 1 - r),
)

#: The 8 symmetries of the pyramid as site permutations: ``SYMMETRIES[k][site]`` is the image.
#: Each applies the same symmetry of the square to every level; the identity comes first.
SYMMETRIES: tuple[tuple[int, ...], ...] = tuple(
    tuple(site_index(level, *square(row, col, LEVEL_SIZES[level])) for level, row, col in SITE_COORDS)
    for square in _SQUARE_MAPS
)


def iter_sites(mask: int) -> Iterator[int]:
    """The sites of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def can_hold(occupied: int, site: int) -> bool:
    """Whether an empty ``site`` can take a ball: level 0, or all four sites below are full."""
    return not occupied >> site & 1 and occupied & BELOW[site] == BELOW[site]


def placeable(occupied: int) -> int:
    """The mask of every site that can take a ball now."""
    mask = ~occupied & BB_LEVELS[0]
    for site in range(16, NUM_SITES):
        below = BELOW[site]
        if occupied & below == below and not occupied >> site & 1:
            mask |= 1 << site
    return mask


def is_pinned(occupied: int, site: int) -> bool:
    """A ball is pinned when it holds up two or more balls on the level above."""
    return (ABOVE[site] & occupied).bit_count() >= 2


def drop_chain(occupied: int, site: int) -> tuple[int, ...]:
    """The sites that shift when the ball on ``site`` leaves it.

    Returns ``(site, t1, t2, ...)``: the ball on ``t1`` drops into ``site``, the ball on
    ``t2`` into ``t1``, and so on; the last site ends up empty. The ball must not be pinned.
    In a stable position the chain always runs straight up one rising diagonal.
    """
    held = ABOVE[site] & occupied
    if not held:
        return (site,)
    chain = _RISING_CHAINS[(site, held.bit_length() - 1)]
    n = 2
    while n < len(chain) and occupied >> chain[n] & 1:
        n += 1
    return chain[:n]


def shift_down(mask: int, chain: tuple[int, ...]) -> int:
    """Apply a drop chain to one colour mask: each ball moves one step down the chain."""
    result = mask & ~(1 << chain[0])
    for i in range(1, len(chain)):
        result &= ~(1 << chain[i])
        if mask >> chain[i] & 1:
            result |= 1 << chain[i - 1]
    return result


def _flood(mask: int, seed: int, touching: tuple[int, ...]) -> int:
    """The sites of ``mask`` connected to the ``seed`` bits under ``touching``."""
    group = frontier = seed
    while frontier:
        grown = 0
        for s in iter_sites(frontier):
            grown |= touching[s]
        frontier = grown & mask & ~group
        group |= frontier
    return group


def group_of(mask: int, site: int) -> int:
    """The connected group (by touching) of ``mask`` that contains ``site``."""
    return _flood(mask, 1 << site, TOUCHING)


def groups(mask: int, touching: tuple[int, ...] = TOUCHING) -> list[int]:
    """Split a mask into its connected groups under the given touching relation."""
    result = []
    rest = mask
    while rest:
        group = _flood(mask, rest & -rest, touching)
        result.append(group)
        rest &= ~group
    return result


def unstable_sites(occupied: int) -> int:
    """Balls that float: above level 0 without all four supports. Empty in a legal position."""
    bad = 0
    for site in iter_sites(occupied & ~BB_LEVELS[0]):
        if occupied & BELOW[site] != BELOW[site]:
            bad |= 1 << site
    return bad


class BaseBoard:
    """What can be asked of a board without changing it: shared by :class:`Board` and :class:`BoardView`."""

    __slots__ = ()
    masks: Sequence[int]

    @property
    def occupied(self) -> int:
        m = self.masks
        return m[0] | m[1] | m[2]

    def key(self) -> tuple[int, int, int]:
        """The balls as a hashable value: use it in sets and dictionaries (a board itself is not hashable)."""
        m = self.masks
        return (m[0], m[1], m[2])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseBoard):
            return NotImplemented
        return self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # a Board changes: compare key() instead

    def color_at(self, site: int) -> int | None:
        for color in COLORS:
            if self.masks[color] >> site & 1:
                return color
        return None

    def count(self, color: int | None = None) -> int:
        return (self.occupied if color is None else self.masks[color]).bit_count()

    def can_hold(self, site: int) -> bool:
        return can_hold(self.occupied, site)

    def placeable(self) -> int:
        return placeable(self.occupied)

    def is_pinned(self, site: int) -> bool:
        return is_pinned(self.occupied, site)

    def group(self, site: int) -> int:
        """The touching same-colour group holding ``site``."""
        color = self.color_at(site)
        return 0 if color is None else group_of(self.masks[color], site)

    def copy(self) -> Board:
        """A new mutable board with the same balls."""
        return Board(*self.key())

    def spn(self) -> str:
        """The board part of SPN: four ``/``-separated level strings, rank by rank."""
        chars = []
        for site in range(NUM_SITES):
            color = self.color_at(site)
            chars.append(EMPTY_CHAR if color is None else COLOR_CHARS[color])
        text = "".join(chars)
        return "/".join(text[LEVEL_OFFSETS[lv] : LEVEL_OFFSETS[lv] + LEVEL_SIZES[lv] ** 2] for lv in range(LEVELS))

    def diagram(self, marks: dict[int, str] | None = None) -> str:
        """The pyramid drawn level by level, top level first, rank 1 at the bottom.

        ``marks`` maps sites to a one-character suffix (e.g. ``'+'`` for a locked ball).
        """
        return render_levels(lambda s: self._site_char(s), marks)

    def _site_char(self, site: int) -> str:
        color = self.color_at(site)
        return EMPTY_CHAR if color is None else COLOR_CHARS[color]

    def __str__(self) -> str:
        return self.diagram()


class Board(BaseBoard):
    """Balls on the pyramid: one bitboard per colour (white, black, red). Mutable; not hashable
    (use :meth:`key`). A game state keeps its own and hands out :class:`BoardView` snapshots.

    >>> board = Board.from_spn("wb............../........./..../.")
    >>> board.color_at(parse_site("0b1")) == BLACK
    True
    >>> board.can_hold(parse_site("1a1"))
    False
    """

    __slots__ = ("masks",)
    masks: list[int]

    def __init__(self, white: int = 0, black: int = 0, red: int = 0) -> None:
        self.masks = [white, black, red]

    def view(self) -> BoardView:
        """A read-only snapshot of the balls as they are now."""
        return BoardView(self.masks[0], self.masks[1], self.masks[2])

    def place(self, site: int, color: int) -> None:
        """Put a ball on ``site``; the caller has checked ``can_hold``."""
        self.masks[color] |= 1 << site

    def remove(self, site: int) -> tuple[int, ...]:
        """Take the ball off ``site`` (not pinned); the balls it held drop. Returns the chain."""
        chain = drop_chain(self.occupied, site)
        m = self.masks
        m[0] = shift_down(m[0], chain)
        m[1] = shift_down(m[1], chain)
        m[2] = shift_down(m[2], chain)
        return chain

    def relocate(self, source: int, target: int) -> tuple[int, ...]:
        """Move the ball on ``source`` to the empty ``target``; balls it held drop. Returns the chain.

        Raises ``ValueError`` if ``source`` holds no ball.
        """
        color = self.color_at(source)
        if color is None:
            raise ValueError(f"there is no ball on {SITE_NAMES[source]} to move")
        chain = self.remove(source)
        self.masks[color] |= 1 << target
        return chain

    # -- position notation ------------------------------------------------------------

    @classmethod
    def from_spn(cls, text: str) -> Board:
        """Parse the board part of SPN; raises ``ValueError`` naming the problem (``TypeError``
        if ``text`` is not a string)."""
        if not isinstance(text, str):
            example = f"{'.' * 16}/{'.' * 9}/..../."
            raise TypeError(gettext(SPN_NOT_TEXT).format(example=example, text=repr(text)))
        levels = text.split("/")
        if len(levels) != LEVELS:
            raise ValueError(gettext(SPN_LEVEL_COUNT).format(text=repr(text), n=len(levels)))
        board = cls()
        for level, row_text in enumerate(levels):
            size = LEVEL_SIZES[level] ** 2
            if len(row_text) != size:
                raise ValueError(gettext(SPN_LEVEL_SIZE).format(level=level, size=size, n=len(row_text)))
            for i, ch in enumerate(row_text):
                if ch == EMPTY_CHAR:
                    continue
                color = COLOR_CHARS.find(ch)
                if color < 0:
                    raise ValueError(gettext(SPN_BAD_CHAR).format(level=level, char=repr(ch)))
                board.place(LEVEL_OFFSETS[level] + i, color)
        board.check_stable()
        return board

    def check_stable(self) -> None:
        """Raise ``ValueError`` naming any ball that floats."""
        floating = unstable_sites(self.occupied)
        if floating:
            names = ", ".join(SITE_NAMES[s] for s in iter_sites(floating))
            raise ValueError(gettext(FLOATS).format(sites=names))

    def __repr__(self) -> str:
        return f"Board.from_spn({self.spn()!r})"


class BoardView(BaseBoard):
    """A read-only snapshot of a board: what ``State.board`` gives. It answers every question a
    :class:`Board` does but cannot change, so nothing done with it reaches the game state;
    :meth:`copy` gives a mutable :class:`Board` to experiment on.

    >>> view = Board.from_spn("wb............../........./..../.").view()
    >>> view.masks, view.count()
    ((1, 2, 0), 2)
    >>> view.place(0, 0)
    Traceback (most recent call last):
    ...
    AttributeError: 'BoardView' object has no attribute 'place'
    """

    __slots__ = ("masks",)
    masks: tuple[int, int, int]

    def __init__(self, white: int = 0, black: int = 0, red: int = 0) -> None:
        object.__setattr__(self, "masks", (white, black, red))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a BoardView is read-only: copy() it to change {name!r}")

    def __repr__(self) -> str:
        return f"Board.from_spn({self.spn()!r}).view()"


_LEVEL_WIDTHS = (12, 10, 8, 6)
_LEVEL_COLUMNS = tuple(sum(w + 2 for w in _LEVEL_WIDTHS[:lv]) for lv in range(LEVELS))


def parse_diagram(text: str) -> tuple[Board, dict[int, str]]:
    """Read a pyramid drawn by :func:`render_levels` back into a board and its marks.

    Tests use this to state positions as pictures. Raises ``ValueError`` naming the problem.
    """
    rows: dict[int, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and stripped[0] in "1234" and line[:1] in "1234":
            rows[int(line[0])] = line
    if sorted(rows) != [1, 2, 3, 4]:
        raise ValueError("a diagram needs ranks 4 to 1, each starting at the first column")
    board = Board()
    marks: dict[int, str] = {}
    for rank, line in rows.items():
        for level in range(LEVELS):
            n = LEVEL_SIZES[level]
            if rank > n:
                continue
            start = _LEVEL_COLUMNS[level]
            part = line[start : start + _LEVEL_WIDTHS[level] + 2].ljust(_LEVEL_WIDTHS[level] + 2)
            if part[0] != str(rank):
                raise ValueError(f"rank {rank} of level {level} must start at column {start}")
            for col in range(n):
                ch, mark = part[2 + 2 * col], part[3 + 2 * col]
                site = site_index(level, rank - 1, col)
                if mark != " ":
                    marks[site] = mark
                if ch == EMPTY_CHAR:
                    continue
                color = COLOR_CHARS.find(ch)
                if color < 0:
                    raise ValueError(f"{ch!r} on {SITE_NAMES[site]} is not one of 'w', 'b', 'r', '.'")
                board.place(site, color)
    board.check_stable()
    return board, marks


def render_levels(char_at: object, marks: dict[int, str] | None = None) -> str:
    """Draw the four levels side by side, each rank on its own line, rank 1 at the bottom.

    Level ``l`` is indented by ``l`` columns so a ball sits between the four it rests on::

          level 0      level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 w b . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
    """
    assert callable(char_at)
    marks = marks or {}
    width = _LEVEL_WIDTHS
    label = gettext(LEVEL_LABEL)
    header = "".join(pad("  " + label.format(level=lv), width[lv] + 2) for lv in range(LEVELS)).rstrip()
    lines = [header]
    for rank in range(4, 0, -1):
        parts = []
        for level in range(LEVELS):
            n = LEVEL_SIZES[level]
            if rank > n:
                parts.append(" " * (width[level] + 2))
                continue
            cells = []
            for col in range(n):
                site = site_index(level, rank - 1, col)
                cells.append(char_at(site) + marks.get(site, " "))
            parts.append(f"{rank} {''.join(cells)}".ljust(width[level] + 2))
        lines.append("".join(parts).rstrip())
    files = ("  " + " ".join("abcd"[: LEVEL_SIZES[lv]]) for lv in range(LEVELS))
    lines.append("".join(f.ljust(width[lv] + 2) for lv, f in enumerate(files)).rstrip())
    return "\n".join(lines)
