"""Compile and run the table builder (``tbbuild.c``) with the engine's board tables.

The builder is a separate C program compiled on first use with the system C compiler into the
cache directory (so installing the package needs no compiler), keyed by a hash of its source,
of the header of eating steps it shares with the extensions (``games/special_cake/cake_steps.h``) and of
the flags. The board tables (what rests on what, the rising drop chains, the 150 lines, the
symmetries) are written from :mod:`spheria.engine.board` into a text file the program reads, so
its moves are the engine's. Each finished level is a file ``level-NN.bin`` in the build's
directory; a run resumes from the levels it finds.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from spheria.engine.board import ABOVE, ALL_SITES, NUM_SITES, SEGMENTS, SYMMETRIES, drop_chain
from spheria.games.special_cake.tablebase.layout import FORMAT_VERSION, MINT_CAP

#: The environment variable that moves every build (the tests point it at an empty directory).
CACHE_VARIABLE = "SPHERIA_TABLEBASE"
#: Where builds are kept unless ``--cache`` says otherwise.
DEFAULT_CACHE = Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "spheria" / "tablebase")

RULE_CODES = {"mixed": 0, "same": 1}
#: The variants with an eating table: mint, and poisoned (every position also has the cherry).
VARIANTS = ("mint", "poisoned")

_FLAG_SETS: tuple[tuple[str, ...], ...] = (
    ("-O3", "-march=native", "-fopenmp"),
    ("-O3", "-fopenmp"),
    ("-O3",),  # no OpenMP: one thread
)


class BuildError(RuntimeError):
    """The builder could not be compiled or failed."""


@dataclass(frozen=True)
class TableSpec:
    """What a build covers: the sites it may use, the most candies of one colour, the line rule, the variant."""

    universe: int = ALL_SITES
    cap: int = MINT_CAP
    line_rule: str = "mixed"
    variant: str = "mint"

    @property
    def name(self) -> str:
        if self.universe == ALL_SITES and self.cap == MINT_CAP:
            return f"{self.variant}-{self.line_rule}"
        return f"{self.variant}-{self.line_rule}-u{self.universe:08x}-c{self.cap}"

    @property
    def cherry(self) -> bool:
        """Whether every position also has the cherry (poisoned)."""
        return self.variant == "poisoned"

    def symmetries(self) -> list[tuple[int, ...]]:
        """The pyramid's symmetries that map the universe onto itself (the identity first)."""
        keep = []
        for perm in SYMMETRIES:
            image = sum(1 << perm[s] for s in range(NUM_SITES) if self.universe >> s & 1)
            if image == self.universe:
                keep.append(perm)
        return keep

    def tables_text(self) -> str:
        """The board tables for the builder, one record a line."""
        if self.line_rule not in RULE_CODES:
            raise ValueError(f"unknown line rule {self.line_rule!r} (mixed, same)")
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r} (mint, poisoned)")
        lines = [
            f"format {FORMAT_VERSION}",
            f"universe {self.universe}",
            f"cap {self.cap}",
            f"rule {RULE_CODES[self.line_rule]}",
        ]
        if self.cherry:  # absent from mint's tables, whose hash (and so its finished levels) stays
            lines.append("cherry 1")
        lines += [f"above {s} {ABOVE[s]}" for s in range(NUM_SITES)]
        for s in range(NUM_SITES):
            for t in range(NUM_SITES):
                if ABOVE[s] >> t & 1:
                    # every site full but the other sites resting on s: the chain runs to the edge
                    chain = drop_chain(ALL_SITES & ~(ABOVE[s] & ~(1 << t)), s)
                    lines.append("chain " + " ".join(map(str, chain)))
        for segment in SEGMENTS:
            if all(self.universe >> s & 1 for s in segment):
                lines.append("segment " + " ".join(map(str, segment)))
        lines += ["symmetry " + " ".join(map(str, perm)) for perm in self.symmetries()]
        return "\n".join(lines) + "\n"


#: The header of Special Cake's eating steps that ``tbbuild.c`` includes, from :mod:`spheria.games.special_cake`.
STEPS_HEADER = "cake_steps.h"


def _source() -> bytes:
    return resources.files("spheria.games.special_cake.tablebase").joinpath("tbbuild.c").read_bytes()


def _steps_header() -> bytes:
    return resources.files("spheria.games.special_cake").joinpath(STEPS_HEADER).read_bytes()


def compile_builder(cache: Path, compiler: str | None = None) -> Path:
    """The compiled builder in ``cache/bin``, compiling it first if needed."""
    source, header = _source(), _steps_header()
    cc = compiler or os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise BuildError("no C compiler found (set CC)")
    bin_dir = cache / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    errors = []
    for flags in _FLAG_SETS:
        what = repr((cc, flags, platform.machine(), platform.node())).encode()
        key = hashlib.sha256(b"\0".join((source, header, what))).hexdigest()[:16]
        program = bin_dir / f"tbbuild-{key}"
        if program.exists():
            return program
        src = bin_dir / f"tbbuild-{key}.c"
        src.write_bytes(source)
        include = bin_dir / f"tbbuild-{key}-include"  # the header, as this key saw it
        include.mkdir(exist_ok=True)
        (include / STEPS_HEADER).write_bytes(header)
        tmp = program.with_suffix(f".tmp{os.getpid()}")
        command = [cc, *flags, "-I", str(include), "-o", str(tmp), str(src)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode == 0:
            tmp.replace(program)
            return program
        errors.append(f"{cc} {' '.join(flags)}: {result.stderr.strip()[:500]}")
    raise BuildError("the builder does not compile:\n" + "\n".join(errors))


def build_dir(cache: Path, spec: TableSpec) -> Path:
    return cache / spec.name


def run_builder(
    spec: TableSpec,
    cache: Path = DEFAULT_CACHE,
    *,
    threads: int = 2,
    upto: int | None = None,
    symmetry: bool = True,
    chunks: int = 1,
    output: Callable[[str], None] | None = None,
    extra: Sequence[str] = (),
    program: Path | None = None,
) -> Path:
    """Build (or resume) the eating table of ``spec`` in ``cache``; returns the level directory.

    With ``chunks`` > 1 each level is computed in that many chunks, each saved as it finishes
    (a resumed build keeps them), then merged. Every line the builder prints goes to ``output``
    (stdout by default). ``program`` is the compiled builder to run (by default the one in
    ``cache``, compiled if missing).
    """
    options = ["--chunks", str(chunks), *extra]
    if upto is not None:
        options += ["--upto", str(upto)]
    if not symmetry:
        options.append("--no-symmetry")
    return _run(spec, cache, threads, options, output, program)


def run_chunk(
    spec: TableSpec,
    cache: Path,
    level: int,
    chunk: int,
    chunks: int,
    *,
    threads: int = 2,
    output: Callable[[str], None] | None = None,
    program: Path | None = None,
) -> Path:
    """Compute chunk ``chunk`` of ``chunks`` of one level alone, from the finished levels below
    it (what a worker of a distributed build does); nothing when its file is there already."""
    options = ["--chunks", str(chunks), "--level", str(level), "--chunk", str(chunk)]
    return _run(spec, cache, threads, options, output, program)


def merge_level(
    spec: TableSpec,
    cache: Path,
    level: int,
    chunks: int,
    *,
    output: Callable[[str], None] | None = None,
    program: Path | None = None,
) -> Path:
    """Assemble a level from its ``chunks`` chunk files (then removed) into its level file."""
    return _run(spec, cache, 1, ["--chunks", str(chunks), "--level", str(level), "--merge"], output, program)


def _run(
    spec: TableSpec,
    cache: Path,
    threads: int,
    options: Sequence[str],
    output: Callable[[str], None] | None,
    program: Path | None,
) -> Path:
    program = program or compile_builder(cache)
    directory = build_dir(cache, spec)
    directory.mkdir(parents=True, exist_ok=True)
    tables = directory / "tables.txt"
    text = spec.tables_text()
    if not tables.exists() or tables.read_text() != text:
        tables.write_text(text)
    command = [str(program), str(tables), str(directory), "--threads", str(threads), *options]
    write = output or (lambda line: print(line, flush=True))
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            write(line.rstrip("\n"))
        code = process.wait()
    if code != 0:
        raise BuildError(f"the builder stopped with status {code}")
    return directory


def count_reachable(
    spec: TableSpec,
    cache: Path,
    *,
    threads: int = 2,
    output: Callable[[str], None] | None = None,
    program: Path | None = None,
) -> Path:
    """Count, from the finished build of ``spec``, the set-up positions that an alternating order
    of placements (Mint first) reaches, level by level, and the full cakes among them that Mint
    wins (the builder's ``reachable`` lines, to ``output``)."""
    return _run(spec, cache, threads, ["--reachable"], output, program)


def finished_levels(spec: TableSpec, cache: Path) -> list[int]:
    """The eating levels of ``spec`` whose files in ``cache`` are of this build (headers checked, not the bits)."""
    from spheria.games.special_cake.tablebase.layout import LevelFileError, config_hash, read_level

    directory, expected = build_dir(cache, spec), config_hash(spec.tables_text())
    done = []
    for n in range(spec.universe.bit_count() - spec.cherry + 1):
        try:
            if read_level(directory, n, with_bits=False).config_hash == expected:
                done.append(n)
        except LevelFileError:
            pass
    return done


@dataclass(frozen=True)
class LevelProgress:
    """A chunked build's report after each level it merged: the level, the last level to build,
    the seconds since the build began, and an estimate of the seconds left (the levels still to
    compute, at this run's rate per position so far)."""

    level: int
    last: int
    elapsed: float
    remaining: float


def level_positions(spec: TableSpec) -> list[int]:
    """The positions of each eating level of ``spec``: the measure of a level's work."""
    from spheria.games.special_cake.tablebase.layout import Layout, PoisonedLayout

    layout = PoisonedLayout(spec.universe, spec.cap) if spec.cherry else Layout(spec.universe, spec.cap)
    return [layout.level(n).positions for n in range(spec.universe.bit_count() - spec.cherry + 1)]


#: Computes the given chunks of one level (``level``, ``chunks`` in all, ``todo`` the chunk
#: numbers), anywhere that sees ``cache``: what a distributed build backend provides.
ChunkRunner = Callable[[int, int, list[int]], None]


def build_in_chunks(
    spec: TableSpec,
    cache: Path,
    run_chunks: ChunkRunner,
    *,
    chunks: int,
    threads: int = 2,
    upto: int | None = None,
    output: Callable[[str], None] | None = None,
    program: Path | None = None,
    progress: Callable[[LevelProgress], None] | None = None,
) -> Path:
    """Build (or resume) the table of ``spec`` level by level, each level's ``chunks`` chunks
    computed by ``run_chunks`` (e.g. as tasks on a cluster), then merged here; level 0 and the
    set-up table (once every level is there) are computed here. ``upto``: the last level to
    build. The files are those of :func:`run_builder`. ``progress`` hears after each level
    merged how far the build is and how long it should still take."""
    program = program or compile_builder(cache)
    write = output or (lambda line: print(line, flush=True))
    top = spec.universe.bit_count() - spec.cherry
    last = top if upto is None else min(upto, top)
    done = set(finished_levels(spec, cache))
    start = time.monotonic()
    if 0 not in done:
        run_builder(spec, cache, threads=threads, upto=0, output=write, program=program)
    work = level_positions(spec)
    todo = [n for n in range(1, last + 1) if n not in done]
    computed = 0
    for n in todo:
        run_chunks(n, chunks, list(range(chunks)))
        merge_level(spec, cache, n, chunks, output=write, program=program)
        computed += work[n]
        if progress is not None:
            elapsed = time.monotonic() - start
            left = sum(work[m] for m in todo if m > n)
            progress(LevelProgress(n, last, elapsed, elapsed * left / computed))
    return run_builder(spec, cache, threads=threads, upto=last, output=write, program=program)  # the set-up


def chunk_task(spec: TableSpec, cache: str, level: int, chunk: int, chunks: int) -> list[str]:
    """One chunk computed where a distributed build runs this (one thread); the builder's lines."""
    lines: list[str] = []
    run_chunk(spec, Path(cache), level, chunk, chunks, threads=1, output=lines.append)
    return lines


#: Where distributed builds run their chunks: a backend name, and the module (an extra) and its
#: context manager ``(workers, address) -> run(function, calls)`` that runs functions as tasks.
TASK_BACKENDS: dict[str, tuple[str, str]] = {"ray": ("spheria.integrations.ray_tasks", "ray_tasks")}


def build_distributed(
    spec: TableSpec,
    cache: Path,
    backend: str,
    *,
    chunks: int,
    workers: int = 2,
    address: str | None = None,
    threads: int = 2,
    upto: int | None = None,
    output: Callable[[str], None] | None = None,
    program: Path | None = None,
    progress: Callable[[LevelProgress], None] | None = None,
) -> Path:
    """Build (or resume) the table of ``spec`` with each level's chunks as tasks of ``backend``
    (``ray``: joining the cluster at ``address``, or a local Ray with ``workers`` CPUs); the
    chunk files are written in ``cache``, which every node must see at the same path.

    Raises ``ImportError`` when the backend's extra is not installed, ``ValueError`` for an
    unknown backend, :class:`BuildError` when a chunk or a merge fails.
    """
    if backend not in TASK_BACKENDS:
        raise ValueError(f"unknown build backend {backend!r} ({', '.join(sorted(TASK_BACKENDS))})")
    module, name = TASK_BACKENDS[backend]
    tasks = getattr(importlib.import_module(module), name)
    write = output or (lambda line: print(line, flush=True))
    program = program or compile_builder(cache)
    with tasks(workers, address) as run:

        def run_chunks(level: int, count: int, todo: list[int]) -> None:
            for lines in run(chunk_task, [(spec, str(cache), level, chunk, count) for chunk in todo]):
                for line in lines:
                    write(line)

        return build_in_chunks(
            spec,
            cache,
            run_chunks,
            chunks=chunks,
            threads=threads,
            upto=upto,
            output=write,
            program=program,
            progress=progress,
        )


if __name__ == "__main__":  # pragma: no cover - a quick manual entry point
    run_builder(TableSpec(), upto=int(sys.argv[1]) if len(sys.argv) > 1 else None)
