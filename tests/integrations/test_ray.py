"""The arena on Ray: the same seeds give the same games as local processes, on a Ray the arena
starts itself and on a running cluster joined with ``--address``; the core never imports Ray."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from spheria.arena import ArenaReport, backend_names, get_backend, local_backend, run_arena
from spheria.cli.main import main

AGENTS = ["random", "greedy"]


def outcomes(report: ArenaReport) -> list[tuple[Any, ...]]:
    """Each game's number, seating, returns, length and record (less the time it was written)."""
    rows = []
    for result in report.results:
        record = dict(result.record or {})
        record.pop("created", None)
        rows.append((result.index, result.seats, result.returns, result.moves, record))
    return rows


def test_a_local_ray_with_two_cpus_plays_the_same_games_as_local_processes(tmp_path: Path) -> None:
    assert not ray.is_initialized()
    on_ray = run_arena("spline", {}, AGENTS, games=6, seed=13, workers=2, backend="ray", records_dir=tmp_path / "ray")
    # The backend started its own Ray (2 CPUs, as --workers 2 asks) and stopped it afterwards.
    assert not ray.is_initialized()
    local = run_arena("spline", {}, AGENTS, games=6, seed=13, workers=2, records_dir=tmp_path / "local")
    assert len(on_ray.results) == 6 and not on_ray.interrupted
    assert outcomes(on_ray) == outcomes(local)
    assert on_ray.to_json() == local.to_json()
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == sorted(
        p.name for p in (tmp_path / "local").iterdir()
    )
    # Another seed gives other games (move counts differ across six random-vs-greedy games).
    other = run_arena("spline", {}, AGENTS, games=6, seed=14, workers=1)
    assert [r.moves for r in other.results] != [r.moves for r in local.results]


def test_a_ray_arena_names_an_agent_whose_budget_is_time() -> None:
    report = run_arena("spline", {}, ["mcts:time=0.01", "random"], games=2, seed=1, backend="ray")
    assert len(report.results) == 2
    assert report.time_budgets == {"mcts:time=0.01": 0.01} and report.to_json()["reproducible"] is False
    assert "mcts:time=0.01 (time=0.01 s) has a time budget" in report.table()


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ray binds to the machine's network address so other nodes can reach it; these tests'
    # clusters live on this machine alone, so keep every Ray process on loopback.
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


@pytest.fixture
def ray_cluster() -> Iterator[str]:
    """A Ray cluster with 2 CPUs, started by another process; yields its address."""
    script = (
        "import sys, ray; ray.init(num_cpus=2, include_dashboard=False); "
        "print(ray.get_runtime_context().gcs_address, flush=True); sys.stdin.read(); ray.shutdown()"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        address = process.stdout.readline().strip()
        assert address, "the Ray head did not start"
        yield address
    finally:
        assert process.stdin is not None
        process.stdin.close()  # the head shuts Ray down when its input ends
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_spheria_arena_joins_a_ray_cluster_by_address(
    ray_cluster: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command = [
        "arena",
        "special-cake",
        "--option",
        "variant=sugar",
        "--agents",
        "random,greedy",
        "--games",
        "4",
        "--seed",
        "8",
    ]
    # A cluster that ray.init() started checks a token: a client says so with RAY_AUTH_MODE (the
    # token itself is the one Ray saved for this user).
    environment = dict(os.environ, RAY_AUTH_MODE="token")
    joined = subprocess.run(
        [sys.executable, "-m", "spheria.cli.main", *command, "--json", "--backend", "ray", "--address", ray_cluster],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
    assert joined.returncode == 0, joined.stderr
    assert "Connected to Ray cluster" in joined.stderr
    assert main([*command, "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert json.loads(joined.stdout) == local
    assert local["games"] == 4 and sum(row["wins"] for row in local["agents"].values()) == 4


def test_the_backend_choice_and_its_errors() -> None:
    assert backend_names() == ["local", "ray"]
    assert get_backend("local") is local_backend
    assert get_backend("ray").__module__ == "spheria.integrations.ray_backend"
    with pytest.raises(ValueError, match=r"unknown backend 'dask' \(backends: local, ray\)"):
        get_backend("dask")
    with pytest.raises(ValueError, match="unknown backend"):
        run_arena("spline", {}, AGENTS, games=1, backend="dask")


def test_address_goes_with_the_ray_backend_only(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "spline", "--agents", "random,greedy", "--games", "1", "--address", "127.0.0.1:6379"])
    assert code == 1
    assert "--address names a Ray cluster: use it with --backend ray" in capsys.readouterr().err


def test_the_core_imports_none_of_the_extras() -> None:
    """Every module outside spheria.integrations, and the arena command's parser, load without
    Ray, OpenSpiel, PettingZoo, Gymnasium or NumPy."""
    script = """
import importlib, pkgutil, sys
import spheria
from spheria.cli.main import main
for module in pkgutil.walk_packages(spheria.__path__, "spheria."):
    if not module.name.startswith("spheria.integrations"):
        importlib.import_module(module.name)
try:
    main(["arena", "--help"])
except SystemExit:
    pass
extras = ("ray", "pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy")
print(sorted(name for name in sys.modules if name.split(".")[0] in extras))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert "--backend {local,ray}" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"
