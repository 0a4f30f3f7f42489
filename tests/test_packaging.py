"""The built artifacts install and play where no C compiler is reachable.

``python -m build`` makes an sdist and a wheel of this checkout. Each is installed into a fresh
venv with the compiler hidden (``CC`` pointing nowhere, and only the venv's own ``bin`` on
``PATH``), and the installed ``spheria`` is run as a new user would: ``--version``, ``games``,
a whole game of every kind with agents in every seat, and ``solve``. The wheel carries the
compiled solver built here; the sdist has to compile it at install, cannot, and must fall back
to the pure-Python search. Dependencies are installed with ``--no-deps`` from pip's cache: the
commands run here never import the server's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import spheria
from spheria.kernel.registry import game_names, load_game

ROOT = Path(__file__).resolve().parent.parent
DEPENDENCIES = ["starlette", "uvicorn", "websockets"]
SMALL_POSITION = "wbw............./........./..../. 1 eat"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel of this checkout."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def no_compiler_env(fresh: Path) -> dict[str, str]:
    """The environment of a machine with no C compiler: nothing on PATH but the venv."""
    environ = {k: v for k, v in os.environ.items() if k not in ("SPHERIA_SOLVER", "PYTHONPATH", "VIRTUAL_ENV")}
    return environ | {"CC": "/nonexistent/cc", "CXX": "/nonexistent/c++", "PATH": str(fresh / "bin")}


def install(artifact: Path, fresh: Path) -> dict[str, str]:
    """A fresh venv with ``artifact`` and the dependencies installed, the compiler hidden."""
    venv.create(fresh, with_pip=False)
    environ = no_compiler_env(fresh)
    command = [sys.executable, "-m", "pip", "--python", str(fresh / "bin" / "python"), "install", "--no-deps", "-q"]
    done = subprocess.run([*command, str(artifact), *DEPENDENCIES], capture_output=True, text=True, env=environ)
    assert done.returncode == 0, done.stderr[-3000:]
    return environ


def run(fresh: Path, environ: dict[str, str], *args: str, status: int = 0) -> str:
    """The output of ``spheria args`` (its errors when it is to end with a non-zero ``status``)."""
    done = subprocess.run(
        [str(fresh / "bin" / "spheria"), *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=fresh,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert done.returncode == status, f"spheria {' '.join(args)}: {done.stderr}"
    return done.stdout if status == 0 else done.stderr


def check_installed(fresh: Path, environ: dict[str, str], backend: str) -> None:
    assert run(fresh, environ, "--version").strip() == f"spheria {spheria.__version__}"
    assert "스페셜 케이크" in run(fresh, environ, "--lang", "ko", "games")  # the Korean catalogue ships as package data
    listed = run(fresh, environ, "games")
    for name in game_names():
        assert name in listed
        agents = ("play", name, "--players", "random:seed=1,random:seed=2", "--no-save")
        why = load_game(name).why_no_agents
        if why is not None:  # a game for people only: the refusal says why
            assert why in run(fresh, environ, *agents, status=1)
            continue
        played = run(fresh, environ, *agents)
        assert "Game over after" in played, played[-500:]
    solved = run(fresh, environ, "solve", "--verbose", SMALL_POSITION, "--option", "variant=mint")
    assert f"solver backend: {backend}" in solved
    assert "Winning moves (2): 0a1+0b1 0b1+0c1" in solved
    # the module is the installed one, not this checkout
    where = subprocess.run(
        [str(fresh / "bin" / "python"), "-c", "import spheria; print(spheria.__file__)"],
        capture_output=True,
        text=True,
        env=environ,
        cwd=fresh,
    ).stdout
    assert where.startswith(str(fresh))


def test_the_wheel_installs_and_plays_without_a_compiler(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("spheria-*.whl")
    environ = install(wheel, tmp_path / "venv")
    check_installed(tmp_path / "venv", environ, "compiled")  # built here, shipped inside the wheel


def test_the_sdist_installs_without_a_compiler_and_solves_in_python(dist: Path, tmp_path: Path) -> None:
    (sdist,) = dist.glob("spheria-*.tar.gz")
    environ = install(sdist, tmp_path / "venv")
    check_installed(tmp_path / "venv", environ, "python")
