"""The set-up tables of Special Cake mint and poisoned (mixed lines) as shipped with the package.

Built by ``spheria tablebase`` (:mod:`spheria.games.special_cake.tablebase`), which packs it with
:func:`pack_levels`; read here, below the tablebase, so that :func:`spheria.games.special_cake.solver.solve`
answers set-up positions from it. Also the position numbering both share (:func:`pext`,
:func:`colex_rank`, :func:`stable_shapes`).

A set-up table says, for every set-up position, whether Mint wins with perfect play: mint's
from 0 to 30 candies (the full cake, Mint eating first), poisoned's from 0 to 29 (the last
placement made, the cherry then goes on top and Mint eats first). Each variant has its own
file, ``<variant>-mixed-setup.pack`` (:func:`pack_name`), and the same format. The
shipped file keeps one shape per symmetry orbit (the least mask of its 8 images): a set-up
position is looked up on the image of its shape that is canonical, and the 8 symmetries keep
the value. Each canonical shape holds every colouring of the shape (``ceil(k/2)`` mint among
``k`` candies, ranked as in :mod:`spheria.games.special_cake.tablebase.layout`) as one bit, byte-aligned per
shape. A level whose every position is a Mint win stores no bits. A level's canonical shapes
(32-bit masks) are one lzma stream and its bits are cut into chunks of ``CHUNK_BYTES``, each
its own lzma stream, so a lookup decompresses one chunk (each checked by its CRC); the reader
is pure Python.

File layout (little-endian): ``PACK_HEADER`` (magic, format, levels), then per level a
``LEVEL_ENTRY`` (level, all Mint wins, canonical shapes, bits per shape, chunks, offset,
SHA-256 of the shapes and bits uncompressed), then per level at its offset the lengths of its
streams (``Q`` each: shapes, then the chunks) and the streams.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import lzma
import math
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from spheria.engine.board import ALL_SITES, BELOW, NUM_SITES, SYMMETRIES

MAGIC = b"SPHTBPAK"
PACK_FORMAT = 2
PACK_HEADER = struct.Struct("<8sII")
LEVEL_ENTRY = struct.Struct("<IIIIIQ32s")
#: Uncompressed bytes of bits per compressed chunk.
CHUNK_BYTES = 1 << 18
#: The variants with a shipped set-up table (mixed lines), and the placements each one's set-up has.
SHIPPED_VARIANTS = {"mint": 30, "poisoned": 29}
#: The package that holds the shipped files.
DATA_PACKAGE = "spheria.games.special_cake.solver.data"
LZMA_PRESET = 9
PACK_LINE = "set-up {k:2d}: {count} canonical shapes, {raw:,} bytes, packed {packed:,}"
COMPARE_LINE = "set-up {k:2d}: the shipped table {verdict} with the build"


@functools.cache
def stable_shapes(universe: int) -> tuple[int, ...]:
    """Every stable occupancy mask inside ``universe`` (each ball on four), sorted."""
    shapes: list[int] = []
    sites = [s for s in range(NUM_SITES) if universe >> s & 1]  # supports come before a site

    def grow(i: int, chosen: int) -> None:
        if i == len(sites):
            shapes.append(chosen)
            return
        grow(i + 1, chosen)
        s = sites[i]
        if chosen & BELOW[s] == BELOW[s]:
            grow(i + 1, chosen | 1 << s)

    grow(0, 0)
    return tuple(sorted(shapes))


def pext(value: int, mask: int) -> int:
    """The bits of ``value`` at the set bits of ``mask``, packed low (as the x86 instruction)."""
    out, k = 0, 0
    while mask:
        low = mask & -mask
        if value & low:
            out |= 1 << k
        k += 1
        mask ^= low
    return out


def colex_rank(pattern: int) -> int:
    """The rank of ``pattern`` among the numbers with as many set bits, in numeric order."""
    rank, j = 0, 0
    while pattern:
        low = pattern & -pattern
        rank += math.comb(low.bit_length() - 1, j + 1)
        j += 1
        pattern ^= low
    return rank


class PackError(ValueError):
    """The packed file is missing, damaged or not of this format."""


def image(mask: int, perm: tuple[int, ...]) -> int:
    out = 0
    for site in range(NUM_SITES):
        if mask >> site & 1:
            out |= 1 << perm[site]
    return out


def canonical(occupied: int) -> tuple[int, tuple[int, ...]]:
    """The least image of the shape under the 8 symmetries, and a symmetry that gives it."""
    return min(((image(occupied, perm), perm) for perm in SYMMETRIES), key=lambda pair: pair[0])


def orbit_size(shape: int) -> int:
    """How many distinct shapes the symmetries make of ``shape``."""
    return len({image(shape, perm) for perm in SYMMETRIES})


def colourings(k: int) -> int:
    """Set-up colourings of a shape with ``k`` candies: which ``ceil(k/2)`` of them are mint."""
    return math.comb(k, (k + 1) // 2)


class PackedLevel:
    """One level: its canonical shapes (sorted), its bits decompressed chunk by chunk as asked for."""

    def __init__(self, k: int, shapes: tuple[int, ...], per_shape: int, chunk: Callable[[int], bytes]) -> None:
        self.k = k
        self.shapes = shapes
        self.per_shape = per_shape
        self.block = (per_shape + 7) // 8
        self._chunk = chunk
        self._chunks: dict[int, bytes] = {}

    def _byte(self, offset: int) -> int:
        number = offset // CHUNK_BYTES
        if number not in self._chunks:
            self._chunks[number] = self._chunk(number)
        return self._chunks[number][offset % CHUNK_BYTES]

    def mint_wins(self, shape: int, white: int) -> bool:
        rank = bisect.bisect_left(self.shapes, shape)
        if rank == len(self.shapes) or self.shapes[rank] != shape:
            raise ValueError(f"{shape:#x} is not a canonical shape of set-up level {self.k}")
        index = colex_rank(pext(white, shape))
        return bool(self._byte(rank * self.block + (index >> 3)) >> (index & 7) & 1)

    def bits(self) -> bytes:
        chunks = -(-len(self.shapes) * self.block // CHUNK_BYTES)
        return b"".join(self._chunk(number) for number in range(chunks))

    def wins_per_shape(self) -> Iterator[tuple[int, int]]:
        """Each canonical shape with the number of its colourings Mint wins."""
        block, bits = self.block, self.bits()
        for rank, shape in enumerate(self.shapes):
            yield shape, int.from_bytes(bits[rank * block : (rank + 1) * block], "little").bit_count()


def encode_level(k: int, shapes: list[int], per_shape: int, bits: bytes) -> bytes:
    return struct.pack(f"<{len(shapes)}I", *shapes) + bits


@dataclass(frozen=True)
class LevelEntry:
    k: int
    all_mint: bool
    count: int
    per_shape: int
    chunks: int
    offset: int
    digest: bytes


class PackedSetupTable:
    """The shipped set-up table, read lazily one level at a time.

    >>> table = PackedSetupTable()
    >>> table.mint_wins(0, 0)
    True
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_pack_path("mint")
        self._lock = threading.Lock()
        self._levels: dict[int, PackedLevel] = {}
        try:
            with self.path.open("rb") as file:
                head = file.read(PACK_HEADER.size)
                if len(head) < PACK_HEADER.size:
                    raise PackError(f"{self.path}: too short for a packed table")
                magic, version, levels = PACK_HEADER.unpack(head)
                if magic != MAGIC or version != PACK_FORMAT:
                    raise PackError(f"{self.path}: not a packed set-up table of format {PACK_FORMAT}")
                data = file.read(LEVEL_ENTRY.size * levels)
        except OSError as error:
            raise PackError(f"{self.path}: {error.strerror}") from None
        if len(data) < LEVEL_ENTRY.size * levels:
            raise PackError(f"{self.path}: truncated level index")
        self.entries = [
            LevelEntry(k, bool(flag), count, per_shape, chunks, offset, digest)
            for k, flag, count, per_shape, chunks, offset, digest in LEVEL_ENTRY.iter_unpack(data)
        ]
        self.top = len(self.entries) - 1

    def level(self, k: int) -> PackedLevel:
        """Set-up level ``k``: its shapes read now, its bits chunk by chunk when looked up."""
        with self._lock:
            if k not in self._levels:
                entry = self.entries[k]
                lengths = struct.unpack(f"<{entry.chunks + 1}Q", self._read(entry.offset, 8 * (entry.chunks + 1)))
                starts = [entry.offset + 8 * (entry.chunks + 1)]
                for length in lengths:
                    starts.append(starts[-1] + length)
                shapes = self._decompress(k, starts[0], lengths[0])
                if len(shapes) != 4 * entry.count:
                    raise PackError(f"{self.path}: set-up level {k} has {len(shapes) // 4} shapes, not {entry.count}")

                def chunk(number: int) -> bytes:
                    if not 0 <= number < entry.chunks:
                        raise PackError(f"{self.path}: set-up level {k} has no chunk {number}")
                    return self._decompress(k, starts[number + 1], lengths[number + 1])

                masks = struct.unpack(f"<{entry.count}I", shapes)
                self._levels[k] = PackedLevel(k, masks, entry.per_shape, chunk)
            return self._levels[k]

    def _read(self, offset: int, length: int) -> bytes:
        with self.path.open("rb") as file:
            file.seek(offset)
            data = file.read(length)
        if len(data) != length:
            raise PackError(f"{self.path}: truncated")
        return data

    def _decompress(self, k: int, offset: int, length: int) -> bytes:
        try:
            return lzma.decompress(self._read(offset, length))
        except lzma.LZMAError as error:
            raise PackError(f"{self.path}: set-up level {k} is damaged ({error})") from None

    def mint_wins(self, white: int, black: int) -> bool:
        """Whether Mint wins the set-up position (mint and liquorice masks) with perfect play."""
        occupied = white | black
        k = occupied.bit_count()
        if white & black or occupied & ~ALL_SITES:
            raise ValueError("mint and liquorice candies overlap or lie off the board")
        if (white.bit_count(), black.bit_count()) != ((k + 1) // 2, k // 2):
            raise ValueError(f"a set-up with {k} candies has {(k + 1) // 2} mint and {k // 2} liquorice")
        if any(occupied >> s & 1 and occupied & BELOW[s] != BELOW[s] for s in range(NUM_SITES)):
            raise ValueError("a candy lacks its support")
        if k > self.top:
            raise ValueError(f"this set-up ends at {self.top} candies, not {k}")
        entry = self.entries[k]
        if entry.all_mint:
            return True
        shape, perm = canonical(occupied)
        return self.level(k).mint_wins(shape, image(white, perm))

    def wins_per_level(self) -> list[int]:
        """The number of set-up positions Mint wins at each level, recounted from the bits."""
        counts = []
        for entry in self.entries:
            shapes = [m for m in stable_shapes(ALL_SITES) if m.bit_count() == entry.k]
            if entry.all_mint:
                counts.append(len(shapes) * colourings(entry.k))
                continue
            counts.append(sum(won * orbit_size(shape) for shape, won in self.level(entry.k).wins_per_shape()))
        return counts


def pack_name(variant: str) -> str:
    """The shipped set-up table's file name for ``variant`` (mint, poisoned; mixed lines).

    >>> pack_name("poisoned")
    'poisoned-mixed-setup.pack'
    """
    if variant not in SHIPPED_VARIANTS:
        raise ValueError(f"only {' and '.join(SHIPPED_VARIANTS)} have a shipped set-up table, not {variant!r}")
    return f"{variant}-mixed-setup.pack"


def default_pack_path(variant: str = "mint") -> Path:
    """Where the set-up table of ``variant`` ships, in the package's data."""
    return Path(str(resources.files(DATA_PACKAGE).joinpath(pack_name(variant))))


def default_checksum_path(variant: str = "mint") -> Path:
    """The checksum file beside the shipped set-up table of ``variant``."""
    return default_pack_path(variant).with_suffix(".sha256")


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_checksum(path: Path) -> str:
    return path.read_text().split()[0]


def canonical_block(bits: bytes, rank: int, per_shape: int) -> bytes:
    """The ``per_shape`` bits of shape ``rank`` of a level file, as bytes (low bit first)."""
    start = rank * per_shape
    first, shift = start >> 3, start & 7
    chunk = int.from_bytes(bits[first : (start + per_shape + 7) >> 3], "little") >> shift
    chunk &= (1 << per_shape) - 1
    return chunk.to_bytes((per_shape + 7) // 8, "little")


@dataclass(frozen=True)
class RawLevel:
    """A set-up level ready to pack: its canonical shapes and their bits, uncompressed."""

    k: int
    all_mint: bool
    count: int
    per_shape: int
    raw: bytes

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.raw).digest()


def raw_level(k: int, bits: bytes) -> RawLevel:
    """Set-up level ``k`` from its bits as the builder wrote them (every shape of the level)."""
    shapes = [m for m in stable_shapes(ALL_SITES) if m.bit_count() == k]
    per_shape = colourings(k)
    won = sum(int.from_bytes(bits[i : i + (1 << 20)], "little").bit_count() for i in range(0, len(bits), 1 << 20))
    if won == len(shapes) * per_shape:
        return RawLevel(k, True, 0, per_shape, b"")
    canon = sorted({canonical(m)[0] for m in shapes})
    rank = {m: i for i, m in enumerate(shapes)}
    blocks = b"".join(canonical_block(bits, rank[m], per_shape) for m in canon)
    return RawLevel(k, False, len(canon), per_shape, encode_level(k, canon, per_shape, blocks))


def pack_levels(
    setup_bits: Callable[[int], bytes], top: int, path: Path, say: Callable[[str], None] = lambda line: None
) -> str:
    """Write the packed file from ``setup_bits(k)`` (a set-up level's bits as the builder wrote them).

    Writes the checksum file beside it; returns the file's SHA-256.
    """
    entries, streams = [], []
    offset = PACK_HEADER.size + LEVEL_ENTRY.size * (top + 1)
    for k in range(top + 1):
        level = raw_level(k, setup_bits(k))
        parts = []
        if not level.all_mint:
            bits = level.raw[4 * level.count :]
            pieces = [level.raw[: 4 * level.count]]
            pieces += [bits[i : i + CHUNK_BYTES] for i in range(0, len(bits), CHUNK_BYTES)]
            parts = [lzma.compress(piece, preset=LZMA_PRESET) for piece in pieces]
        chunks = max(len(parts) - 1, 0)
        stream = struct.pack(f"<{len(parts)}Q", *map(len, parts)) + b"".join(parts) if parts else b""
        entries.append(LEVEL_ENTRY.pack(k, level.all_mint, level.count, level.per_shape, chunks, offset, level.digest))
        streams.append(stream)
        offset += len(stream)
        say(PACK_LINE.format(k=k, count=level.count, raw=len(level.raw), packed=len(stream)))
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as file:
        file.write(PACK_HEADER.pack(MAGIC, PACK_FORMAT, top + 1))
        file.write(b"".join(entries))
        for stream in streams:
            file.write(stream)
    tmp.replace(path)
    digest = file_digest(path)
    path.with_suffix(".sha256").write_text(f"{digest}  {path.name}\n")
    return digest


def compare_with_build(
    table: PackedSetupTable, setup_bits: Callable[[int], bytes], say: Callable[[str], None] = lambda line: None
) -> list[int]:
    """The levels where the packed table differs from the build's bits (empty when they agree)."""
    differ = []
    for entry in table.entries:
        level = raw_level(entry.k, setup_bits(entry.k))
        same = (level.all_mint, level.count, level.per_shape) == (entry.all_mint, entry.count, entry.per_shape)
        if not same or level.digest != entry.digest:
            differ.append(entry.k)
        say(COMPARE_LINE.format(k=entry.k, verdict="agrees" if entry.k not in differ else "DIFFERS"))
    return differ


def check_file(pack: Path, checksum: Path) -> bool:
    """Whether the packed file's SHA-256 is the one its checksum file records."""
    return file_digest(pack) == read_checksum(checksum)


_shipped: dict[str, PackedSetupTable] = {}
_shipped_lock = threading.Lock()


def shipped_table(variant: str = "mint") -> PackedSetupTable:
    """The set-up table of ``variant`` packed with spheria, opened on first use (levels load as
    they are asked for). Raises :class:`PackError` if the file's levels are not the variant's set-up."""
    with _shipped_lock:
        if variant not in _shipped:
            table = PackedSetupTable(default_pack_path(variant))
            if table.top != SHIPPED_VARIANTS[variant]:
                raise PackError(
                    f"{table.path}: {table.top + 1} set-up levels, but {variant}'s set-up has "
                    f"{SHIPPED_VARIANTS[variant] + 1} (0 to {SHIPPED_VARIANTS[variant]} candies)"
                )
            _shipped[variant] = table
        return _shipped[variant]
