"""Probe a built mint eating table: the exact value of an eating position, one bit read from disk.

``spheria tablebase build`` (docs/tablebase.md) writes every eating position of Special Cake
mint (mixed lines) as one bit, "the player to move wins", in level files under
``~/.cache/spheria/tablebase/mint-mixed/`` (or ``$SPHERIA_TABLEBASE/mint-mixed/``). The solver
agent asks this probe first: a lookup reads one byte of a level file (``os.pread``), so a mint
game's eating is exact and instant instead of a search of seconds that a loaded machine can push
past its cap.

The numbering is the table's (:mod:`spheria.games.special_cake.tablebase.layout`, whose level files this reads;
the agents layer may not import the tablebase, so the few header constants are restated here
and a test holds them equal): a level ``n`` holds the stable shapes with ``n`` candies sorted
by mask, each shape every colouring with at most ``cap`` of each colour, and a position's bit
is ``shape_rank * per_shape + woff[w] + colex_rank(pext(white, occupied))``.

A level whose file is missing, of another format, or of another size than the layout asks is
not used: :meth:`EatingTableProbe.wins` answers ``None`` and the agent searches as before;
:func:`missing_table_note` then says so, with the command that builds the table, the disk it
takes and the time it took here (:data:`BUILD_COST`).

A poisoned table (``cherry=True``, ``poisoned-mixed/``) is read the same way: its level ``n``
holds the positions with ``n`` candies besides the cherry, numbered by (shape, cherry site)
pairs, the cherry always on a ball with nothing on it (docs/tablebase.md, *Poisoned*).
"""

from __future__ import annotations

import math
import os
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

from spheria.engine.board import ALL_SITES, BELOW, NUM_SITES
from spheria.games.special_cake import messages as M
from spheria.games.special_cake.solver.setup_table import colex_rank, pext, stable_shapes
from spheria.i18n import gettext as _

#: A level file's header (as ``tablebase.layout.HEADER``): magic, file version, level, shapes, per shape, ...
HEADER = struct.Struct("<8sIIQQQQQQ")
LEVEL_MAGIC = b"SPHTBLVL"
#: The level file versions read (as ``tablebase.layout``'s): 2, and 1 (which also kept the level's time).
LEVEL_FILE_VERSIONS = (2, 1)
#: Candies of each colour on a full mint cake: no eating position has more.
MINT_CAP = 15
#: What building each variant's eating table (mixed lines) takes, as measured here
#: (docs/tablebase.md): its disk, and the minutes of wall time it took on this machine's two
#: cores (mint 4 on an idle machine; poisoned 1,178 s at nice 19 beside other work).
BUILD_COST = {"mint": ("1.5 GiB", 4), "poisoned": ("4.5 GiB", 20)}
#: Eating positions with fewer candies than this (the cherry not counted) are searched in a tenth
#: of a second or less here (docs/tablebase.md, *Verification so far*): no table is needed for them.
QUICK_SEARCH_BELOW = 20
#: The environment variable that moves every build (as ``spheria.games.special_cake.tablebase.build.CACHE_VARIABLE``).
CACHE_VARIABLE = "SPHERIA_TABLEBASE"


def default_directory(variant: str = "mint") -> Path:
    """Where ``spheria tablebase build`` puts the table of ``variant`` (mint, poisoned) with mixed lines."""
    root = os.environ.get(CACHE_VARIABLE)
    return (Path(root) if root else Path.home() / ".cache" / "spheria" / "tablebase") / f"{variant}-mixed"


def _uncovered(occupied: int) -> int:
    """The balls of ``occupied`` with nothing on them (as ``tablebase.layout.uncovered``)."""
    holding = 0
    for s in range(NUM_SITES):
        if occupied >> s & 1:
            holding |= BELOW[s]
    return occupied & ~holding


@dataclass(frozen=True)
class _Level:
    rank: dict[int, int]
    woff: dict[int, int]
    per_shape: int
    fd: int


class EatingTableProbe:
    """The eating table of one build in ``directory`` (sites ``universe``, at most ``cap`` of a colour)."""

    def __init__(
        self, directory: Path | None = None, universe: int = ALL_SITES, cap: int = MINT_CAP, cherry: bool = False
    ) -> None:
        self.directory = directory if directory is not None else default_directory("poisoned" if cherry else "mint")
        self.universe = universe
        self.cap = cap
        self.cherry = cherry
        self._levels: dict[int, _Level | None] = {}
        self._lock = threading.Lock()

    def wins(self, white: int, black: int, red: int = 0) -> bool | None:
        """Whether the player to move wins the eating position (``red`` the cherry, poisoned
        only); ``None`` if the table cannot say."""
        occupied = white | black | red
        if white & black or occupied & ~self.universe or max(white.bit_count(), black.bit_count()) > self.cap:
            return None
        if (white | black) & red or red.bit_count() != self.cherry:
            return None
        level = self._level(occupied.bit_count() - self.cherry)
        if level is None:
            return None
        rank = level.rank.get(occupied)
        if rank is None:
            return None  # not a stable shape: no position of the game
        if red:
            open_sites = _uncovered(occupied)
            if not open_sites & red:
                return None  # a ball on the cherry: no position of the game
            rank += (open_sites & (red - 1)).bit_count()
        pattern = pext(white, occupied & ~red)
        index = rank * level.per_shape + level.woff[pattern.bit_count()] + colex_rank(pattern)
        byte = os.pread(level.fd, 1, HEADER.size + (index >> 3))
        return bool(byte and byte[0] >> (index & 7) & 1)

    def available(self) -> bool:
        """Whether the full cake's level is there (the one every game's eating starts from)."""
        return self._level(self.universe.bit_count() - self.cherry) is not None

    def _level(self, n: int) -> _Level | None:
        with self._lock:
            if n not in self._levels:
                self._levels[n] = self._open(n)
            return self._levels[n]

    def _open(self, n: int) -> _Level | None:
        shapes = [m for m in stable_shapes(self.universe) if m.bit_count() == n + self.cherry]
        rank, blocks = {}, 0  # a shape's first block: poisoned has one per uncovered ball
        for m in shapes:
            rank[m] = blocks
            blocks += _uncovered(m).bit_count() if self.cherry else 1
        woff, per_shape = {}, 0
        for w in range(max(0, n - self.cap), min(n, self.cap) + 1):
            woff[w] = per_shape
            per_shape += math.comb(n, w)
        path = self.directory / f"level-{n:02d}.bin"
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        head = os.pread(fd, HEADER.size, 0)
        size = os.fstat(fd).st_size
        fields = HEADER.unpack(head) if len(head) == HEADER.size else None
        words = (blocks * per_shape + 63) // 64
        if (
            fields is None
            or fields[0] != LEVEL_MAGIC
            or fields[1] not in LEVEL_FILE_VERSIONS
            or fields[2:5] != (n, blocks, per_shape)
            or (size != HEADER.size + words * 8)
        ):
            os.close(fd)
            return None
        return _Level(rank, woff, per_shape, fd)

    def close(self) -> None:
        with self._lock:
            for level in self._levels.values():
                if level is not None:
                    os.close(level.fd)
            self._levels.clear()


_SHARED: dict[Path, EatingTableProbe] = {}


def shared_probe(variant: str = "mint") -> EatingTableProbe:
    """One probe per variant's table (mint, poisoned) for the whole process (its open files and
    shape ranks are shared)."""
    directory = default_directory(variant)
    if directory not in _SHARED:
        _SHARED[directory] = EatingTableProbe(directory, cherry=variant == "poisoned")
    return _SHARED[directory]


def table_missing_for(variant: str, line_rule: str, masks: tuple[int, int, int]) -> bool:
    """Whether the eating position ``masks`` is one the variant's eating table would answer at once
    but is not built for: a table exists for these rules, the position is too big for a quick
    search (:data:`QUICK_SEARCH_BELOW`), and the table on this machine does not hold it."""
    if variant not in BUILD_COST or line_rule != "mixed":
        return False
    if (masks[0] | masks[1]).bit_count() < QUICK_SEARCH_BELOW:
        return False
    return shared_probe(variant).wins(*masks) is None


def missing_table_note(variant: str, line_rule: str, masks: tuple[int, int, int], seconds: float | None) -> str | None:
    """The sentence that tells a player the eating position ``masks`` is searched because the
    variant's eating table, which would answer it exactly at once, is not built (the command,
    its disk and time); ``None`` when the table answers it, when no table exists for these
    rules, or when the position is small enough for a quick search (:data:`QUICK_SEARCH_BELOW`).
    ``seconds``: the search's cap a move (``None``: exact, however long it takes)."""
    if not table_missing_for(variant, line_rule, masks):
        return None
    disk, minutes = BUILD_COST[variant]
    how = _(M.CAKE_SEARCHED_EXACT) if seconds is None else _(M.CAKE_SEARCHED_CAPPED).format(seconds=seconds)
    return _(M.CAKE_NO_EATING_TABLE).format(variant=variant, how=how, disk=disk, minutes=minutes)
