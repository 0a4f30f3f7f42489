"""Read a built eating table and check it against the search solver.

:class:`EatingTable` answers the value of an eating position from the level files of a build
(pure Python); :func:`check_levels` draws random positions of each level (a uniformly random
shape, then a uniformly random colouring of it) and compares the table with
:func:`spheria.games.special_cake.solver.position_value`, or with :func:`step_value`: the value one move deep,
read from the table's level below through the Python engine's move generator — a check of
each level's recursion, independent of the compiled builder, that stays cheap where the search
solver takes seconds a position (25 candies and more).
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from spheria.engine.board import BELOW, NUM_SITES
from spheria.games.special_cake.tablebase.build import TableSpec
from spheria.games.special_cake.tablebase.layout import (
    EATING,
    SETUP,
    Layout,
    LevelFile,
    LevelFileError,
    PoisonedLayout,
    config_hash,
    read_level,
)


class TableFiles:
    """The level files of one build, read lazily from ``directory``, numbered by ``layout``."""

    def __init__(self, directory: Path, spec: TableSpec, layout: Layout | PoisonedLayout) -> None:
        self.directory = directory
        self.spec = spec
        self.layout = layout
        self._hash = config_hash(spec.tables_text())
        self._files: dict[tuple[str, int], LevelFile] = {}

    def has_level(self, n: int, kind: str = EATING) -> bool:
        """Whether the level's file is there, of this build (its header and size are checked)."""
        try:
            self.header(n, kind)
        except LevelFileError:
            return False
        return True

    def header(self, n: int, kind: str = EATING) -> LevelFile:
        """The level's header fields (``bits`` empty unless the level was read whole)."""
        if (kind, n) in self._files:
            return self._files[kind, n]
        return self._checked(read_level(self.directory, n, kind, with_bits=False), n, kind)

    def level_file(self, n: int, kind: str = EATING) -> LevelFile:
        if (kind, n) not in self._files:
            self._files[kind, n] = self._checked(read_level(self.directory, n, kind), n, kind)
        return self._files[kind, n]

    def _checked(self, level_file: LevelFile, n: int, kind: str) -> LevelFile:
        level = self.layout.level(n) if kind == EATING else self.layout.setup_level(n)
        if level_file.config_hash != self._hash:
            raise LevelFileError(f"{kind} {n} in {self.directory} was built from other tables or another builder")
        if (level_file.shapes, level_file.per_shape) != (level.blocks, level.per_shape):
            raise LevelFileError(f"{kind} {n} in {self.directory} does not match the layout")
        return level_file

    def mint_wins_setup(self, white: int, black: int) -> bool:
        """Whether Mint wins the set-up position (mint and liquorice masks) with perfect play."""
        occupied = white | black
        k = occupied.bit_count()
        if occupied & ~self.spec.universe or white & black or k > self.layout.top:
            raise ValueError("the position is outside this table")
        if (white.bit_count(), black.bit_count()) != ((k + 1) // 2, k // 2):
            raise ValueError(f"a set-up with {k} candies has {(k + 1) // 2} mint and {k // 2} liquorice")
        return self.level_file(k, SETUP).won(self.layout.setup_level(k).index(occupied, white))


class EatingTable(TableFiles):
    """The levels of one mint build, read lazily from ``directory``."""

    layout: Layout

    def __init__(self, directory: Path, spec: TableSpec) -> None:
        if spec.cherry:
            raise ValueError(f"{spec.name} is a poisoned table")
        super().__init__(directory, spec, Layout(spec.universe, spec.cap))

    def wins(self, white: int, black: int) -> bool:
        """Whether the player to move wins the eating position (white and black masks)."""
        occupied = white | black
        n = occupied.bit_count()
        if occupied & ~self.spec.universe or white & black:
            raise ValueError("the position is outside this table")
        if max(white.bit_count(), black.bit_count()) > self.spec.cap:
            raise ValueError(f"more than {self.spec.cap} candies of one colour")
        return self.level_file(n).won(self.layout.level(n).index(occupied, white))

    def sample(self, n: int, per_level: int, rng: random.Random) -> list[tuple[int, int]]:
        """The positions :func:`check_levels` checks in level ``n``: all of them when there are no
        more than ``per_level``, else ``per_level`` random ones drawn from ``rng``."""
        level = self.layout.level(n)
        if level.positions <= per_level:
            return list(_every_position(level.shapes, self.spec.cap))
        return [random_colouring(rng.choice(level.shapes), self.spec.cap, rng) for _ in range(per_level)]


class PoisonedEatingTable(TableFiles):
    """The levels of one poisoned build (``spec.variant == "poisoned"``), read lazily from ``directory``."""

    layout: PoisonedLayout

    def __init__(self, directory: Path, spec: TableSpec) -> None:
        if not spec.cherry:
            raise ValueError(f"{spec.name} is not a poisoned table")
        super().__init__(directory, spec, PoisonedLayout(spec.universe, spec.cap))

    def wins(self, white: int, black: int, red: int) -> bool:
        """Whether the player to move wins the poisoned eating position (white, black, cherry masks)."""
        occupied = white | black | red
        if occupied & ~self.spec.universe or white & black or (white | black) & red or red.bit_count() != 1:
            raise ValueError("the position is outside this table")
        if max(white.bit_count(), black.bit_count()) > self.spec.cap:
            raise ValueError(f"more than {self.spec.cap} candies of one colour")
        n = occupied.bit_count() - 1
        return self.level_file(n).won(self.layout.level(n).index(occupied, red.bit_length() - 1, white))

    def positions(self, n: int) -> Iterator[tuple[int, int, int]]:
        """Every position of level ``n`` as (white, black, red) masks, in index order."""
        level = self.layout.level(n)
        for occupied, cherry in level.pairs:
            rest = occupied & ~(1 << cherry)
            colourings = _colourings_of(rest, self.spec.cap)
            for white, black in sorted(colourings, key=lambda c: level.index(occupied, cherry, c[0])):
                yield white, black, 1 << cherry

    def random_position(self, n: int, rng: random.Random) -> tuple[int, int, int]:
        """A uniformly random position of level ``n``: a random (shape, cherry) pair, then a random colouring."""
        occupied, cherry = rng.choice(self.layout.level(n).pairs)
        white, black = random_colouring(occupied & ~(1 << cherry), self.spec.cap, rng)
        return white, black, 1 << cherry

    def sample(self, n: int, per_level: int, rng: random.Random) -> list[tuple[int, int, int]]:
        """The positions :func:`check_levels` checks in level ``n``: all of them when there are no
        more than ``per_level``, else ``per_level`` drawn by :meth:`random_position`."""
        if self.layout.level(n).positions <= per_level:
            return list(self.positions(n))
        return [self.random_position(n, rng) for _ in range(per_level)]


def _colourings_of(occupied: int, cap: int) -> Iterator[tuple[int, int]]:
    sites = [s for s in range(NUM_SITES) if occupied >> s & 1]
    for bits in range(1 << len(sites)):
        white = sum(1 << s for i, s in enumerate(sites) if bits >> i & 1)
        if white.bit_count() <= cap and len(sites) - white.bit_count() <= cap:
            yield white, occupied & ~white


def poisoned_solver_value(line_rule: str) -> Value:
    """The search solver's value of a poisoned eating position, as ``value(white, black, red)``
    (picklable, so that a process pool can compute it)."""
    return functools.partial(poisoned_search_value, line_rule)


def poisoned_search_value(line_rule: str, white: int, black: int, red: int) -> int:
    """The search solver's value of a poisoned eating position: +1 when the player to move wins."""
    from spheria.games.special_cake.solver import position_value

    return position_value((white, black, red), "poisoned", line_rule)


def random_colouring(occupied: int, cap: int, rng: random.Random) -> tuple[int, int]:
    """A uniformly random (white, black) colouring of ``occupied`` with at most ``cap`` of each."""
    sites = [s for s in range(NUM_SITES) if occupied >> s & 1]
    n = len(sites)
    counts = [w for w in range(n + 1) if w <= cap and n - w <= cap]
    w = rng.choices(counts, weights=[math.comb(n, k) for k in counts])[0]
    white = sum(1 << s for s in rng.sample(sites, w))
    return white, occupied & ~white


#: A position as its masks: (white, black) in mint, (white, black, cherry) in poisoned.
Position = tuple[int, ...]
#: A position's value for the player to move (+1 won, -1 lost), called with the position's masks.
Value = Callable[..., int]
Job = tuple[Value, Position]
Evaluator = Callable[[Callable[[Job], int], list[Job]], Iterable[int]]


@dataclass(frozen=True)
class LevelCheck:
    """The outcome of checking one level: positions compared, won among them, disagreements
    (positions, as their masks)."""

    level: int
    checked: int
    won: int
    mismatches: list[Position]


#: The masks of a journal entry's position, in the order of a :data:`Position`.
POSITION_KEYS = ("white", "black", "cherry")


class Journal:
    """The positions a verify run has checked, one JSON line each, so that a run of hours can be
    stopped (or killed) and resumed: the first line is the run's header (what was asked, the
    seed among it), every other line one position's outcome, appended and flushed as it comes.
    The positions themselves are drawn again from the seed on a rerun, so the header fixes the
    draw; resuming with another header is refused, since the positions drawn would differ."""

    def __init__(self, path: Path, header: dict[str, object]) -> None:
        self.path = path
        self.outcomes: dict[tuple[int, int], tuple[bool, bool]] = {}
        if path.exists() and path.stat().st_size:
            lines = path.read_text().splitlines()
            if json.loads(lines[0]) != header:
                raise ValueError(f"{path} is the journal of another run ({lines[0]}); name a new file")
            for line in lines[1:]:
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by an interruption: that position is checked again
                self.outcomes[entry["level"], entry["index"]] = (entry["expected"], entry["got"])
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(header) + "\n")

    def __contains__(self, key: tuple[int, int]) -> bool:
        return key in self.outcomes

    def record(self, level: int, index: int, position: Position, expected: bool, got: bool) -> None:
        self.outcomes[level, index] = (expected, got)
        entry: dict[str, object] = {"level": level, "index": index}
        entry.update(zip(POSITION_KEYS, position, strict=False))
        entry.update(expected=expected, got=got)
        with self.path.open("a") as out:
            out.write(json.dumps(entry) + "\n")


def _evaluate(job: Job) -> int:
    value, position = job
    return value(*position)


def check_levels(
    table: EatingTable | PoisonedEatingTable,
    levels: Iterable[int],
    per_level: int,
    rng: random.Random,
    value: Value,
    *,
    journal: Journal | None = None,
    evaluate_all: Evaluator = map,
) -> list[LevelCheck]:
    """Compare the table with ``value(*position)`` (+1 / -1) on random positions of each level
    (``table.sample``: a level with fewer positions than ``per_level`` is checked whole).

    With a ``journal`` the positions it holds are not checked again and each new outcome is
    written to it as it comes; ``evaluate_all`` maps the values (e.g. a process pool's
    ``imap``, whose order it must keep).
    """
    results = []
    for n in levels:
        positions: list[Position] = list(table.sample(n, per_level, rng))
        todo = [i for i in range(len(positions)) if journal is None or (n, i) not in journal]
        outcomes: dict[int, tuple[bool, bool]] = {}
        if journal is not None:
            outcomes = {i: journal.outcomes[n, i] for i in range(len(positions)) if (n, i) in journal}
        jobs = [(value, positions[i]) for i in todo]
        for i, result in zip(todo, evaluate_all(_evaluate, jobs), strict=True):
            expected, got = result > 0, table.wins(*positions[i])
            outcomes[i] = (expected, got)
            if journal is not None:
                journal.record(n, i, positions[i], expected, got)
        won = sum(got for _, got in outcomes.values())
        mismatches = [positions[i] for i in sorted(outcomes) if outcomes[i][0] != outcomes[i][1]]
        results.append(LevelCheck(n, len(positions), won, mismatches))
    return results


def _every_position(shapes: Iterable[int], cap: int) -> Iterable[tuple[int, int]]:
    for occupied in shapes:
        sites = [s for s in range(NUM_SITES) if occupied >> s & 1]
        for bits in range(1 << len(sites)):
            white = sum(1 << s for i, s in enumerate(sites) if bits >> i & 1)
            black = occupied & ~white
            if white.bit_count() <= cap and black.bit_count() <= cap:
                yield white, black


def solver_value(line_rule: str) -> Value:
    """The search solver's value of a mint eating position, as ``value(white, black)`` (a
    picklable function, so that a process pool can compute it)."""
    return functools.partial(_search_value, line_rule)


def _search_value(line_rule: str, white: int, black: int) -> int:
    from spheria.games.special_cake.solver import position_value

    return position_value((white, black, 0), "mint", line_rule)


def step_value(table: EatingTable) -> Callable[[int, int], int]:
    """The value of a mint eating position one move deep: +1 when some eating move (found by
    :func:`spheria.games.special_cake.eating_outcomes`) leaves a position the table says the
    opponent loses. It reads only the level below, so a level that agrees on every position is
    computed right from the levels below it."""
    from spheria.games.special_cake.rules import MINT, eating_outcomes

    line_rule = table.spec.line_rule

    def value(white: int, black: int) -> int:
        if not white | black:
            return 1  # the opponent ate the last candy
        children = eating_outcomes((white, black, 0), MINT, line_rule)
        return 1 if any(not table.wins(w, b) for w, b, _ in children) else -1

    return value


def setup_minimax(
    white: int, black: int, universe: int, leaf: Callable[[int, int], bool], *, placements: int | None = None
) -> bool:
    """Whether Mint wins the set-up position by explicit minimax over the remaining placements.

    The set-up ends after ``placements`` candies (default: every site of the universe; poisoned
    stops one short, the cherry goes on the last site); ``leaf(white, black)`` values the cake
    then (Mint eats first): True when Mint wins.
    """
    occupied = white | black
    if occupied.bit_count() == (universe.bit_count() if placements is None else placements):
        return leaf(white, black)
    mint_places = occupied.bit_count() % 2 == 0
    for site in range(NUM_SITES):
        bit = 1 << site
        if not universe & bit or occupied & bit or occupied & BELOW[site] != BELOW[site]:
            continue
        if mint_places:
            if setup_minimax(white | bit, black, universe, leaf, placements=placements):
                return True
        elif not setup_minimax(white, black | bit, universe, leaf, placements=placements):
            return False
    return not mint_places


def random_setup(table: TableFiles, empty: int, rng: random.Random) -> tuple[int, int]:
    """A set-up position with ``empty`` placements left: a random shape, a random colouring of it."""
    k = table.layout.top - empty
    occupied = rng.choice(table.layout.setup_level(k).shapes)
    sites = [s for s in range(NUM_SITES) if occupied >> s & 1]
    white = sum(1 << s for s in rng.sample(sites, (k + 1) // 2))
    return white, occupied & ~white


def check_setup(
    table: TableFiles, empties: Iterable[int], count: int, rng: random.Random, leaf: Callable[[int, int], bool]
) -> list[LevelCheck]:
    """Compare the set-up table with :func:`setup_minimax` on ``count`` random positions per number of free sites."""
    results = []
    for empty in empties:
        won = 0
        mismatches: list[Position] = []
        for _ in range(count):
            white, black = random_setup(table, empty, rng)
            expected = setup_minimax(white, black, table.spec.universe, leaf, placements=table.layout.top)
            won += expected
            if table.mint_wins_setup(white, black) != expected:
                mismatches.append((white, black))
        results.append(LevelCheck(table.layout.top - empty, count, won, mismatches))
    return results


def solver_leaf(line_rule: str) -> Callable[[int, int], bool]:
    """The search solver's verdict on a full cake: True when Mint, eating first, wins."""
    value = solver_value(line_rule)
    return lambda white, black: value(white, black) > 0


def poisoned_solver_leaf(line_rule: str, universe: int) -> Callable[[int, int], bool]:
    """The search solver's verdict on a set-up finished but for the cherry, which goes on the one
    site left: True when Mint, eating first, wins."""
    return lambda white, black: poisoned_search_value(line_rule, white, black, universe & ~(white | black)) > 0
