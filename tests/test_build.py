"""The optional C extensions' build (setup.py) and the benchmarks' account of what ran.

A failed build warns, naming each extension it could not compile and what runs without it; the
build here really fails (the compiler is a path that does not exist), so no install is needed.
``python -m benchmarks`` names Special Cake's move generator and solver, compiled or pure Python.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

import benchmarks.__main__ as benchmarks_main
from benchmarks import games as game_benchmarks
from spheria.games.special_cake import rules as cake_rules
from spheria.games.special_cake import solver as cake_solver

ROOT = Path(__file__).resolve().parent.parent


def load_setup() -> ModuleType:
    """setup.py as a module: its build command and warning, without running ``setup()``."""
    spec = importlib.util.spec_from_file_location("spheria_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_warning_names_each_extension_not_built_and_what_is_lost() -> None:
    setup = load_setup()
    moves_only = setup.build_warning([(setup.MOVES, "cc: not found")])
    assert (
        "spheria.games.special_cake._cakemoves (the compiled move generator) was not built: cc: not found" in moves_only
    )
    assert "pure-Python generator" in moves_only and "python -m benchmarks" in moves_only
    assert "_cakesolver" not in moves_only and "pure-Python search" not in moves_only
    solver_only = setup.build_warning([(setup.SOLVER, "link error")])
    assert (
        "spheria.games.special_cake.solver._cakesolver (the compiled solver) was not built: link error" in solver_only
    )
    assert "pure-Python search" in solver_only and "_cakemoves" not in solver_only


def test_a_build_without_a_compiler_goes_on_and_names_both_extensions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup = load_setup()
    monkeypatch.chdir(ROOT)  # the extensions' sources are named from the checkout's root
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.setenv("LDSHARED", str(tmp_path / "no-such-cc") + " -shared")
    distribution = importlib.import_module("setuptools.dist").Distribution(  # (setuptools ships no types)
        {"ext_modules": setup.EXTENSIONS, "cmdclass": {"build_ext": setup.OptionalBuildExt}}
    )
    command = distribution.get_command_obj("build_ext")
    command.build_lib, command.build_temp = str(tmp_path / "lib"), str(tmp_path / "temp")
    command.ensure_finalized()
    command.run()  # no exception: the install would go on
    err = capsys.readouterr().err
    assert {name for name, _ in command.failures} == {setup.SOLVER, setup.MOVES} and not command.built
    assert f"{setup.SOLVER} (the compiled solver) was not built" in err
    assert f"{setup.MOVES} (the compiled move generator) was not built" in err
    assert "no-such-cc" in err  # the compiler's own error, for each
    assert not list((tmp_path / "lib").rglob("*.so"))


def test_the_benchmarks_name_the_move_generator_and_the_solver_that_ran(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    compiled = cake_rules.COMPILED_MOVES
    expected = game_benchmarks.COMPILED_MOVE_GENERATOR if compiled else game_benchmarks.PURE_PYTHON
    assert game_benchmarks.special_cake_move_generator() == expected
    solver = game_benchmarks.COMPILED_SOLVER if cake_solver.backend() == "compiled" else game_benchmarks.PURE_PYTHON
    assert game_benchmarks.special_cake_solver() == solver
    row = game_benchmarks.bare_loop_ratio(0.05)
    assert row["move_generator"] == expected
    assert row["ratio"] == round(row["spline_positions_per_s"] / row["special_cake_mint_positions_per_s"], 2)
    assert game_benchmarks.random_games("special-cake", 0.05, variant="mint")["move_generator"] == expected

    # The whole table, run as ``python -m benchmarks``, names both at its head (every row very short).
    monkeypatch.setattr(benchmarks_main, "solver_sugar_cake", lambda: {"name": "solver sugar cakes"})
    monkeypatch.setattr(benchmarks_main, "solver_small_positions", lambda: {"name": "solver small positions"})
    assert benchmarks_main.main(["--seconds", "0.02"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["special_cake_move_generator"] == expected
    assert table["special_cake_solver"] == solver
    assert any(r["name"].startswith("bare loop") and r["move_generator"] == expected for r in table["results"])


def test_the_benchmarks_say_pure_python_where_the_generator_was_not_built(tmp_path: Path) -> None:
    """In a process where ``_cakemoves`` cannot be imported, the rules fall back and the report says so."""
    import subprocess

    script = (
        "import sys; sys.modules['spheria.games.special_cake._cakemoves'] = None\n"
        "from benchmarks.games import bare_loop_ratio\n"
        "import json; print(json.dumps(bare_loop_ratio(0.05)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["move_generator"] == "pure Python"
