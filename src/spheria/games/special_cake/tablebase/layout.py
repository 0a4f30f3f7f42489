"""The layout of the eating-phase table: levels, shapes, position indices, level files.

This is the pure-Python mirror of the compiled builder's indexing (``tbbuild.c``), used to
read a level file and to check the builder against the search solver. A *level* holds every
position with ``n`` candies; its *shapes* (stable occupancy masks inside the universe) are
sorted by mask, and every shape holds the same colourings: ``w`` whites with ``w`` and
``n - w`` both at most the cap. A position's index is::

    shape_rank * per_shape + woff[w] + colex_rank(white pattern)

where the white pattern is the white mask compressed onto the occupied sites (lowest site
first) and the colex rank of a ``w``-subset ``p_0 < p_1 < ...`` is ``sum(C(p_j, j + 1))`` (the
rank of the pattern among the ``w``-bit numbers in numeric order). The bit is 1 when the
player to move wins.

>>> layout = Layout(universe=SUB_PYRAMID_3, cap=7)
>>> level = layout.level(2)
>>> [bin(m) for m in level.shapes[:2]], level.per_shape
(['0b11', '0b101'], 4)
>>> level.index(0b11, 0b10)  # shape 0, one white (on the second occupied site): 1 + rank 1
2
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

from spheria.engine.board import ALL_SITES, BELOW, NUM_SITES, SITE_COORDS
from spheria.games.special_cake.solver.setup_table import colex_rank, pext, stable_shapes

#: Candies of each colour on a full mint cake: no eating position has more.
MINT_CAP = 15

#: A level file's header: magic, file version, level, blocks, per block, tables hash, checksum,
#: won positions, and a last field that version 1 used for the level's seconds (x 1000) and
#: version 2 leaves 0, so that every build of the same tables writes the same bytes (the times
#: go to :data:`TIMES_FILE`). Both versions are read: their bits are the same.
HEADER = struct.Struct("<8sIIQQQQQQ")
LEVEL_FILE_VERSION = 2
TIMED_LEVEL_FILE_VERSION = 1
#: The version of the builder's values, in the tables file (and so in every level's tables hash).
FORMAT_VERSION = 1
#: Beside the level files, one line per level written: kind, level, seconds ("level 25 57.301").
TIMES_FILE = "build-times.txt"

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


def config_hash(text: str) -> int:
    """The FNV-1a hash of the tables file, as the builder stamps it into every level's header
    (``config_hash``): a level file of another build of the tables is told apart by it."""
    h = _FNV_OFFSET
    for byte in text.encode():
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


#: The two tables of a build: their file names' prefix and their files' magic.
EATING, SETUP = "level", "setup"
MAGIC = {EATING: b"SPHTBLVL", SETUP: b"SPHTBSET"}


def sub_pyramid(base: int) -> int:
    """The sites of the corner sub-pyramid with a ``base`` x ``base`` bottom level (at 0a1)."""
    return sum(1 << s for s, (level, row, col) in enumerate(SITE_COORDS) if row < base - level and col < base - level)


#: The 14 sites of the 3x3 sub-pyramid in the 0a1 corner: eating never leaves it.
SUB_PYRAMID_3 = sub_pyramid(3)


def _shape_rank(ranks: dict[int, int], occupied: int) -> int:
    rank = ranks.get(occupied)
    if rank is None:
        raise ValueError(f"{occupied:#x} is not a stable shape of this table (a ball lacks a support)")
    return rank


@dataclass(frozen=True)
class Level:
    """The positions with ``n`` candies: their shapes and how they are numbered."""

    n: int
    cap: int
    shapes: tuple[int, ...]
    shape_rank: dict[int, int] = field(repr=False)
    woff: dict[int, int] = field(repr=False)
    per_shape: int

    @property
    def blocks(self) -> int:
        """The blocks of ``per_shape`` positions: the shapes."""
        return len(self.shapes)

    @property
    def positions(self) -> int:
        return len(self.shapes) * self.per_shape

    def index(self, occupied: int, white: int) -> int:
        """The bit index of the position (``white`` a subset of ``occupied``)."""
        pattern = pext(white, occupied)
        return (
            _shape_rank(self.shape_rank, occupied) * self.per_shape
            + self.woff[pattern.bit_count()]
            + colex_rank(pattern)
        )


@dataclass(frozen=True)
class SetupLevel:
    """The set-up positions with ``k`` candies placed: ceil(k/2) mint and floor(k/2) liquorice."""

    k: int
    shapes: tuple[int, ...]
    shape_rank: dict[int, int] = field(repr=False)
    per_shape: int

    @property
    def blocks(self) -> int:
        """The blocks of ``per_shape`` positions: the shapes."""
        return len(self.shapes)

    @property
    def positions(self) -> int:
        return len(self.shapes) * self.per_shape

    def index(self, occupied: int, white: int) -> int:
        """The bit index of the set-up position (``white`` the mint candies, a subset of ``occupied``)."""
        return _shape_rank(self.shape_rank, occupied) * self.per_shape + colex_rank(pext(white, occupied))


class Layout:
    """Levels 0..(sites in the universe) of a table over ``universe`` with at most ``cap`` of each colour."""

    def __init__(self, universe: int = ALL_SITES, cap: int = MINT_CAP) -> None:
        self.universe = universe
        self.cap = cap
        self.top = universe.bit_count()
        self._levels: dict[int, Level] = {}

    def level(self, n: int) -> Level:
        if n not in self._levels:
            shapes = tuple(m for m in stable_shapes(self.universe) if m.bit_count() == n)
            woff, per_shape = colour_offsets(n, self.cap)
            rank = {m: i for i, m in enumerate(shapes)}
            self._levels[n] = Level(n, self.cap, shapes, rank, woff, per_shape)
        return self._levels[n]

    def setup_level(self, k: int) -> SetupLevel:
        level = self.level(k)
        return SetupLevel(k, level.shapes, level.shape_rank, math.comb(k, (k + 1) // 2))


@dataclass(frozen=True)
class PoisonedLevel:
    """The poisoned positions with ``n`` candies besides the cherry, numbered by (shape, cherry) pairs.

    The shapes have ``n + 1`` balls; the cherry is on a ball with nothing on it (it starts on
    top and only ever drops, so nothing comes to rest on it). The pairs are sorted by shape
    mask, then cherry site; each holds the same ``per_shape`` colourings of its other ``n``
    sites. A position's index is ``pair_rank * per_shape + woff[w] + colex_rank(pattern)``,
    the pattern being the mint mask compressed onto the occupied sites but the cherry's.
    """

    n: int
    cap: int
    pairs: tuple[tuple[int, int], ...]
    first_pair: dict[int, int] = field(repr=False)
    woff: dict[int, int] = field(repr=False)
    per_shape: int

    @property
    def blocks(self) -> int:
        """The blocks of ``per_shape`` positions: the (shape, cherry) pairs."""
        return len(self.pairs)

    @property
    def positions(self) -> int:
        return len(self.pairs) * self.per_shape

    def index(self, occupied: int, cherry: int, white: int) -> int:
        """The bit index of the position: ``cherry`` the cherry's site, ``white`` a subset of the others."""
        first = self.first_pair.get(occupied)
        if first is None:
            raise ValueError(f"{occupied:#x} is not a stable shape of {self.n + 1} balls in this table")
        open_sites = uncovered(occupied)
        if not open_sites >> cherry & 1:
            raise ValueError(f"the cherry's site {cherry} is not a ball with nothing on it in {occupied:#x}")
        rest = occupied & ~(1 << cherry)
        if white & ~rest:
            raise ValueError("the mint candies are not on the shape's other sites")
        pattern = pext(white, rest)
        pair = first + (open_sites & ((1 << cherry) - 1)).bit_count()
        return pair * self.per_shape + self.woff[pattern.bit_count()] + colex_rank(pattern)


def uncovered(occupied: int) -> int:
    """The balls of ``occupied`` with nothing resting on them (where a cherry can be).

    >>> bin(uncovered(0b11))
    '0b11'
    """
    holding = 0
    for s in range(len(BELOW)):
        if occupied >> s & 1:
            holding |= BELOW[s]
    return occupied & ~holding


def colour_offsets(n: int, cap: int) -> tuple[dict[int, int], int]:
    """Where each count of whites starts among ``n`` candies with at most ``cap`` of a colour, and the total."""
    woff, total = {}, 0
    for w in range(max(0, n - cap), min(n, cap) + 1):
        woff[w] = total
        total += math.comb(n, w)
    return woff, total


class PoisonedLayout:
    """Levels 0..(sites in the universe - 1) of a poisoned table over ``universe``, at most ``cap`` of a colour.

    >>> layout = PoisonedLayout(SUB_PYRAMID_3, 7)
    >>> level = layout.level(0)  # the cherry alone, on any site of level 0
    >>> len(level.pairs), level.per_shape
    (9, 1)
    """

    def __init__(self, universe: int = ALL_SITES, cap: int = MINT_CAP) -> None:
        self.universe = universe
        self.cap = cap
        self.top = universe.bit_count() - 1
        self._levels: dict[int, PoisonedLevel] = {}
        self._setup = Layout(universe, cap)

    def level(self, n: int) -> PoisonedLevel:
        if n not in self._levels:
            pairs: list[tuple[int, int]] = []
            first: dict[int, int] = {}
            for occupied in stable_shapes(self.universe):
                if occupied.bit_count() != n + 1:
                    continue
                first[occupied] = len(pairs)
                open_sites = uncovered(occupied)
                pairs += [(occupied, s) for s in range(NUM_SITES) if open_sites >> s & 1]
            woff, per_shape = colour_offsets(n, self.cap)
            self._levels[n] = PoisonedLevel(n, self.cap, tuple(pairs), first, woff, per_shape)
        return self._levels[n]

    def setup_level(self, k: int) -> SetupLevel:
        """The set-up positions with ``k`` candies placed (the cherry comes after the last), as mint's."""
        return self._setup.setup_level(k)


class LevelFileError(ValueError):
    """A level file is missing, truncated or does not belong to this layout."""


@dataclass(frozen=True)
class LevelFile:
    """One finished level as the builder wrote it: header fields and the bits."""

    level: int
    shapes: int
    per_shape: int
    config_hash: int
    checksum: int
    wins: int
    #: The seconds the level took, kept in a version 1 header; ``None`` from version 2 (see :func:`build_times`).
    seconds: float | None
    bits: bytes = field(repr=False)

    def won(self, index: int) -> bool:
        return bool(self.bits[index >> 3] >> (index & 7) & 1)


def level_path(directory: Path, n: int, kind: str = EATING) -> Path:
    return directory / f"{kind}-{n:02d}.bin"


def read_level(directory: Path, n: int, kind: str = EATING, *, with_bits: bool = True) -> LevelFile:
    """Read ``level-NN.bin`` (or ``setup-NN.bin``) from ``directory``; :class:`LevelFileError` when unusable.

    Without ``with_bits`` only the header is read (and the file's size checked); ``bits`` is empty.
    """
    path = level_path(directory, n, kind)
    try:
        with path.open("rb") as file:
            head = file.read(HEADER.size)
            size = path.stat().st_size
            data = file.read() if with_bits else b""
    except OSError as error:
        raise LevelFileError(f"{path}: {error.strerror}") from None
    if len(head) < HEADER.size:
        raise LevelFileError(f"{path}: too short for a level header")
    magic, version, level, shapes, per_shape, config_hash, checksum, wins, millis = HEADER.unpack(head)
    if magic != MAGIC[kind] or version not in (LEVEL_FILE_VERSION, TIMED_LEVEL_FILE_VERSION) or level != n:
        raise LevelFileError(f"{path}: not a {kind}-{n} file of version {LEVEL_FILE_VERSION} or 1")
    words = (shapes * per_shape + 63) // 64
    if size - HEADER.size != words * 8:
        raise LevelFileError(f"{path}: {size - HEADER.size} bytes of bits, expected {words * 8}")
    seconds = millis / 1000 if version == TIMED_LEVEL_FILE_VERSION else None
    return LevelFile(level, shapes, per_shape, config_hash, checksum, wins, seconds, data)


def build_times(directory: Path) -> dict[tuple[str, int], float]:
    """The seconds each level of the build in ``directory`` took, by (kind, level), from its
    :data:`TIMES_FILE` (the last line of a level counts: it was written last); empty without one."""
    times: dict[tuple[str, int], float] = {}
    try:
        lines = (directory / TIMES_FILE).read_text().splitlines()
    except OSError:
        return times
    for line in lines:
        fields = line.split()
        try:
            kind, n, seconds = fields
            times[kind, int(n)] = float(seconds)
        except ValueError:
            continue  # a line cut short by an interruption
    return times
