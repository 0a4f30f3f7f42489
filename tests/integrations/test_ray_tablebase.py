"""The Special Cake tablebase built on Ray: a level's chunks as tasks of a local Ray with two
workers give the local build's files, and a chunk whose worker is killed is computed again."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import ray

from spheria.cli.main import main
from spheria.games.special_cake.tablebase.build import (
    TableSpec,
    build_distributed,
    build_in_chunks,
    chunk_task,
    compile_builder,
    run_builder,
)
from spheria.games.special_cake.tablebase.layout import EATING, SETUP, SUB_PYRAMID_3, level_path
from spheria.integrations.ray_tasks import ray_tasks

SUB = TableSpec(universe=SUB_PYRAMID_3, cap=7, variant="poisoned")
TOP = SUB_PYRAMID_3.bit_count() - 1


@pytest.fixture(scope="module")
def local_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The local build of the corner's poisoned table, and the compiled builder."""
    cache = tmp_path_factory.mktemp("local")
    program = compile_builder(cache)
    return run_builder(SUB, cache, output=lambda line: None, program=program), program


def _same_files(directory: Path, reference: Path) -> None:
    for kind in (EATING, SETUP):  # byte for byte, headers included
        for n in range(TOP + 1):
            assert level_path(directory, n, kind).read_bytes() == level_path(reference, n, kind).read_bytes(), (kind, n)
    assert not [p for p in directory.iterdir() if ".chunk-" in p.name]


def test_a_ray_build_with_two_workers_gives_the_local_files(local_build: tuple[Path, Path], tmp_path: Path) -> None:
    reference, program = local_build
    assert not ray.is_initialized()
    lines: list[str] = []
    directory = build_distributed(SUB, tmp_path, "ray", chunks=3, workers=2, output=lines.append, program=program)
    assert not ray.is_initialized()  # it started its own Ray and stopped it
    assert sum("chunk 1 of 3  done" in line for line in lines) == TOP  # every level but 0 in chunks
    assert "setup: from the empty table Mint wins" in lines
    _same_files(directory, reference)


def _dies_once(marker: str, spec: TableSpec, cache: str, level: int, chunk: int, chunks: int) -> list[str]:
    """chunk_task, except that the worker running chunk 1 of level 5 is killed the first time."""
    flag = Path(marker)
    if (level, chunk) == (5, 1) and not flag.exists():
        flag.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return chunk_task(spec, cache, level, chunk, chunks)


def test_a_killed_workers_chunk_is_computed_again(local_build: tuple[Path, Path], tmp_path: Path) -> None:
    reference, program = local_build
    # the workers cannot import the tests: the function goes by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # type: ignore[no-untyped-call]
    marker = tmp_path / "killed"
    cache = tmp_path / "cache"
    with ray_tasks(workers=2) as run:

        def run_chunks(level: int, count: int, todo: list[int]) -> None:
            calls: list[tuple[Any, ...]] = [(str(marker), SUB, str(cache), level, c, count) for c in todo]
            run(_dies_once, calls)

        directory = build_in_chunks(SUB, cache, run_chunks, chunks=2, output=lambda line: None, program=program)
    assert marker.exists()  # the worker was killed, and Ray ran its chunk again
    _same_files(directory, reference)


def test_cli_refuses_an_address_without_ray(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tablebase", "build", "--variant", "poisoned", "--address", "x:1", "--cache", str(tmp_path)]
    assert main(args) == 1
    assert "--address is for --backend ray" in capsys.readouterr().err


def test_cli_builds_on_ray(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = ["--variant", "poisoned", "--cache", str(tmp_path)]
    assert (
        main(["tablebase", "build", "--backend", "ray", "--workers", "2", "--chunks", "2", "--upto", "6", *cache]) == 0
    )
    out = capsys.readouterr().out
    assert "level  6  chunk 1 of 2  done" in out and "level  6  merged  2 chunks  3155040 won" in out
    assert "level 1 of 6 finished: " in out and "about 0 s left" in out.split("level 6 of 6 finished: ")[1]
    local = tmp_path / "local"
    assert main(["tablebase", "build", "--upto", "6", "--variant", "poisoned", "--cache", str(local)]) == 0
    for n in range(7):
        assert (
            level_path(tmp_path / "poisoned-mixed", n).read_bytes()
            == level_path(local / "poisoned-mixed", n).read_bytes()
        )
