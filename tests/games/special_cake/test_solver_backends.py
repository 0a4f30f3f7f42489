"""The solver's two backends: the pure-Python search gives the compiled search's answers.

Both searches are the same algorithm, so on a table that never fills they agree not only on
values but on the children, the canonical codes and the number of positions expanded. Also:
the backend is chosen by ``SPHERIA_SOLVER``, loaded only when a solve asks for it, and both
report progress.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import SolveProgress, _pysolver, backend, solve
from tests.games.special_cake.test_solver import VARIANT_RULES, cake, playout_positions

TWO_APART = "w.b............./........./..../. 1 eat"
VARIANT_CODES = {"mint": 0, "sugar": 1, "poisoned": 2}
RULE_CODES = {"mixed": 0, "any": 1, "same": 2}


def compiled_search() -> Any:
    """The compiled ``Search`` class; these cross-checks need the extension built."""
    module = pytest.importorskip(
        "spheria.games.special_cake.solver._cakesolver", reason="the compiled solver is not built here"
    )
    backend()  # hands the board tables to the extension
    return module.Search


def random_positions(variant: str, line_rule: str, most: int, count: int) -> list[CakeState]:
    """Positions of random playouts from random cakes, with at most ``most`` candies."""
    found: list[CakeState] = []
    for seed in range(1, 200):
        found += [s for s in playout_positions(variant, line_rule, seed) if s.board.count() <= most][:4:2]
        if len(found) >= count:
            return found[:count]
    return found


@pytest.mark.parametrize(("variant", "line_rule"), VARIANT_RULES)
def test_both_backends_agree_on_random_positions(variant: str, line_rule: str) -> None:
    compiled_class = compiled_search()
    codes = (VARIANT_CODES[variant], RULE_CODES[line_rule])
    compiled, pure = compiled_class(*codes), _pysolver.Search(*codes)
    values = set()
    for state in random_positions(variant, line_rule, most=13, count=10):
        masks = state.masks()
        if state.is_terminal():
            continue
        assert set(pure.children(*masks)) == set(compiled.children(*masks)), state.to_spn()
        assert pure.canonical(*masks) == compiled.canonical(*masks)
        for position in [masks, *compiled.children(*masks)]:
            if sum(position) and position[0] | position[1] | position[2] != position[2]:  # not over
                value = compiled.value(*position)
                assert pure.value(*position) == value, (state.to_spn(), position)
                values.add(value)
    # the same search: the same positions expanded (but for the rare entry the compiled table
    # evicts from a full bucket of four, and proves again)
    assert compiled.positions > 0 and abs(pure.positions - compiled.positions) <= compiled.positions // 100
    assert values == {1, -1}


def test_the_pure_backend_moves_match_the_compiled_ones_on_full_cakes() -> None:
    compiled_class = compiled_search()
    for variant, line_rule in VARIANT_RULES:
        codes = (VARIANT_CODES[variant], RULE_CODES[line_rule])
        compiled, pure = compiled_class(*codes), _pysolver.Search(*codes)
        for seed in (1, 2):
            masks = cake(variant, line_rule, seed).masks()
            assert set(pure.children(*masks)) == set(compiled.children(*masks))
            assert pure.canonical(*masks) == compiled.canonical(*masks)


def test_the_pure_backend_refuses_what_the_compiled_one_refuses() -> None:
    search = _pysolver.Search(0, 0)
    with pytest.raises(ValueError, match="floats"):
        search.value(1 << 16, 0, 0)
    with pytest.raises(ValueError, match="two colours"):
        search.value(1, 1, 0)
    with pytest.raises(ValueError, match=r"0\.\.29"):
        search.children(1 << 30, 0, 0)
    with pytest.raises(ValueError, match="variant"):
        _pysolver.Search(3, 0)


def test_a_small_pure_table_empties_and_keeps_the_values(monkeypatch: pytest.MonkeyPatch) -> None:
    positions = [s.masks() for s in random_positions("mint", "mixed", most=13, count=4)]
    big = _pysolver.Search(0, 0)
    values = [big.value(*masks) for masks in positions]
    monkeypatch.setattr(_pysolver, "MAX_TABLE_BITS", 8)
    small = _pysolver.Search(0, 0)
    assert small.table_capacity == 256
    assert [small.value(*masks) for masks in positions] == values
    assert small.table_entries <= 256 and small.positions > big.positions  # forgotten, proved again


# -- choosing and loading the backend -------------------------------------------------------------


def run_python(code: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "SPHERIA_SOLVER"} | env
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_environment_variable_picks_the_backend() -> None:
    assert (
        run_python("import spheria.games.special_cake.solver as s; print(s.backend())", SPHERIA_SOLVER="python")
        == "python"
    )
    solved = "import spheria.games.special_cake.solver as s; "
    solved += "r = s.solve_spn('mint', 'wbw............./........./..../. 1 eat'); "
    solved += "print(s.backend(), r.value, [str(m) for m in r.best_moves])"
    assert run_python(solved, SPHERIA_SOLVER="python") == "python 1 ['0a1+0b1', '0b1+0c1']"
    environ = {k: v for k, v in os.environ.items() if k != "SPHERIA_SOLVER"} | {"SPHERIA_SOLVER": "fast"}
    done = subprocess.run([sys.executable, "-c", solved], capture_output=True, text=True, env=environ, timeout=120)
    assert done.returncode != 0 and "SPHERIA_SOLVER must be auto, compiled or python, not 'fast'" in done.stderr


def test_the_compiled_backend_is_the_default_when_built() -> None:
    compiled_search()
    assert run_python("import spheria.games.special_cake.solver as s; print(s.backend())") == "compiled"
    assert (
        run_python("import spheria.games.special_cake.solver as s; print(s.backend())", SPHERIA_SOLVER="compiled")
        == "compiled"
    )


def test_importing_agents_and_the_solver_loads_no_backend_and_no_scipy() -> None:
    code = (
        "import sys, spheria.games.special_cake.solver, spheria.agents.registry, spheria.cli.main\n"
        "from spheria.agents.registry import make_agent\n"
        "for name in ('solver', 'planner', 'spagyric'):\n"
        "    make_agent(name)\n"
        "print(sorted(m for m in sys.modules if 'solver._' in m or m.split('.')[0] == 'scipy'))"
    )
    assert run_python(code) == "[]"


def test_the_spagyric_agent_plays_without_scipy() -> None:
    code = (
        "import sys\n"
        "sys.modules['scipy'] = None  # any import of scipy now fails\n"
        "import spheria\n"
        "from spheria.agents.registry import make_agent\n"
        "from spheria.match import play\n"
        "state = spheria.load_game('spagyric', supply=2).new_initial_state()\n"
        "play(state, [make_agent('spagyric:iterations=30,seed=1'), make_agent('random:seed=2')])\n"
        "print(state.is_terminal())"
    )
    assert run_python(code) == "True"


# -- progress --------------------------------------------------------------------------------


@pytest.mark.parametrize("forced", ["python", "compiled"])
def test_progress_reports_the_move_searched_and_a_growing_count(forced: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if forced == "compiled":
        compiled_search()
    monkeypatch.setattr("spheria.games.special_cake.solver._backend", None)
    monkeypatch.setattr("spheria.games.special_cake.solver._current", None)
    monkeypatch.setenv("SPHERIA_SOLVER", forced)
    state = next(s for s in playout_positions("mint", "mixed", 2) if s.board.count() <= 16)
    seen: list[SolveProgress] = []
    result = solve(state, progress=seen.append)
    assert backend() == forced
    legal = {str(m) for m in state.legal_moves()}
    assert seen and {str(p.move) for p in seen} <= legal
    assert [p.positions for p in seen] == sorted(p.positions for p in seen)
    assert all(0 <= p.index < p.moves == len(legal) for p in seen)
    assert seen[-1].positions <= result.positions


@pytest.mark.parametrize("forced", ["python", "compiled"])
def test_an_exception_from_the_progress_callback_stops_a_long_search(forced: str) -> None:
    search_class = compiled_search() if forced == "compiled" else _pysolver.Search
    search = search_class(0, 0)
    masks = cake("mint", "mixed", 3).masks()  # millions of positions

    class Stop(Exception):
        pass

    counts: list[int] = []

    def stop(positions: int) -> None:
        counts.append(positions)
        raise Stop

    with pytest.raises(Stop):
        search.value(*masks, progress=stop)
    assert counts == [search.positions]
    # the search is usable again afterwards
    small = random_positions("mint", "mixed", most=10, count=1)[0].masks()
    assert search.value(*small) in (1, -1)


def test_without_the_extension_auto_falls_back_and_compiled_refuses() -> None:
    hide = "import sys; sys.modules['spheria.games.special_cake.solver._cakesolver'] = None  # as if never built\n"
    solved = (
        hide
        + "import spheria.games.special_cake.solver as s; print(s.backend(), s.solve_spn('mint', '"
        + TWO_APART
        + "').value)"
    )
    assert run_python(solved) == "python 1"
    environ = {k: v for k, v in os.environ.items() if k != "SPHERIA_SOLVER"} | {"SPHERIA_SOLVER": "compiled"}
    done = subprocess.run([sys.executable, "-c", solved], capture_output=True, text=True, env=environ, timeout=120)
    assert done.returncode != 0 and "the compiled solver was not built" in done.stderr
