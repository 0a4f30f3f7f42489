"""The eating table on demand: where perfect eating needs a table that is not built, the player is
told once, with the command that builds it, its disk and its time; a chunked build reports each
level with the time so far and an estimate of the time left."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest

import spheria
from spheria.analysis import analyse
from spheria.cli.main import main
from spheria.engine.board import SITE_COORDS
from spheria.games.special_cake import solver as solver_module
from spheria.games.special_cake import solver_agent
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import solve
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.games.special_cake.tablebase.build import (
    LevelProgress,
    TableSpec,
    build_in_chunks,
    compile_builder,
    level_positions,
    run_builder,
    run_chunk,
)
from spheria.games.special_cake.tablebase.layout import SUB_PYRAMID_3, read_level
from spheria.games.special_cake.tablebase.verify import PoisonedEatingTable

# Mint to eat; a mint, a liquorice and the cherry on the bottom level (poisoned): a quick search.
SMALL_POISONED_SPN = "wrb............./........./..../. 1 eat"
SUB = TableSpec(universe=SUB_PYRAMID_3, cap=7, variant="poisoned")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_builder(tmp_path_factory.mktemp("builder"))


def _spn(white: int, black: int, red: int = 0) -> str:
    levels = []
    for level in range(4):
        sites = sorted((row, col, s) for s, (lv, row, col) in enumerate(SITE_COORDS) if lv == level)
        chars = ["w" if white >> s & 1 else "b" if black >> s & 1 else "r" if red >> s & 1 else "." for *_, s in sites]
        levels.append("".join(chars))
    return f"{'/'.join(levels)} 1 eat"


# 21 candies and the cherry (won for Mint, to eat), and 20 mint candies (lost): big enough to need
# the table for an answer at once, small enough for the search to answer in a tenth of a second.
POISONED_SPN = _spn(0x30D54E, 0xC82AB1, 1 << 16)
MINT_SPN = _spn(0x124F86F, 0x10900680)


def _solve(spn: str, variant: str, *extra: str) -> list[str]:
    return ["solve", spn, "--option", f"variant={variant}", *extra]


def test_solve_says_the_eating_is_searched_and_how_to_build_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    assert main(_solve(POISONED_SPN, "poisoned")) == 0
    out, err = capsys.readouterr()
    assert err.count("spheria tablebase build --variant poisoned") == 1
    assert "4.5 GiB of disk" in err and "about 20 minutes" in err and "searched, exactly but slowly" in err
    assert "Mint to eat: won with perfect play." in out  # the search still answers
    assert main(_solve(POISONED_SPN, "poisoned", "--time-limit", "3")) == 0
    assert "searched for at most 3 s, and a search that runs out gives no exact answer" in capsys.readouterr().err
    assert main(_solve(POISONED_SPN, "poisoned", "--json")) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["value"] == 1 and "spheria tablebase build" in err  # the JSON stays JSON
    assert main(_solve(MINT_SPN, "mint")) == 0
    err = capsys.readouterr().err
    assert "spheria tablebase build --variant mint" in err and "1.5 GiB of disk" in err
    # No table exists for these, or a quick search answers: nothing to say.
    assert main(_solve(POISONED_SPN, "poisoned", "--option", "line_rule=same")) == 0
    assert "tablebase" not in capsys.readouterr().err
    assert main(_solve(SMALL_POISONED_SPN, "poisoned")) == 0
    assert "tablebase" not in capsys.readouterr().err
    assert main(["solve", "w.b............./........./..../. 1 place", "--option", "variant=mint"]) == 0
    assert "tablebase build" not in capsys.readouterr().err  # a set-up: the shipped table answers


def test_with_the_table_built_solve_and_the_analysis_look_the_answer_up(
    tmp_path: Path, program: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = spheria.load_game("special-cake", variant="poisoned")
    rng = random.Random(3)
    table_spec = TableSpec(variant="poisoned")
    run_builder(table_spec, tmp_path, upto=5, output=lambda line: None, program=program)
    table = PoisonedEatingTable(tmp_path / table_spec.name, table_spec)
    states = []
    for n in (1, 2, 4, 5):
        for _ in range(6):
            state = game.state_from_spn(_spn(*table.random_position(n, rng)))
            assert isinstance(state, CakeState)
            states.append((state, solve(state)))  # searched: the table is not where the solver looks yet
    assert not any(result.looked_up for _, result in states)
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    monkeypatch.setattr(solver_module, "_search", _no_search)
    for state, searched in states:
        looked_up = solve(state)
        assert looked_up.looked_up and looked_up.value == searched.value
        assert {str(m) for m in looked_up.best_moves} == {str(m) for m in searched.best_moves}
        first = solve(state, stop_at_first=True)
        assert len(first.best_moves) == 1 or first.value < 0
        analysis = analyse(state)
        assert analysis.status == "exact" and analysis.verdict == searched.value
    assert main(_solve(SMALL_POISONED_SPN, "poisoned")) == 0
    out, err = capsys.readouterr()
    assert err == "" and "3 eating positions looked up in the built eating table" in out
    assert "Mint to eat: lost with perfect play." in out


def _no_search(*args: object, **kwargs: object) -> None:
    raise AssertionError("the built table answers: no search")


def test_the_note_is_korean_in_korean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    assert main(["--lang", "ko", *_solve(POISONED_SPN, "poisoned", "--time-limit", "3")]) == 0
    err = capsys.readouterr().err
    assert "spheria tablebase build --variant poisoned" in err and "4.5 GiB" in err
    assert "먹기 테이블" in err and "3초" in err


def test_the_agent_warns_once_that_it_searches_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    monkeypatch.setattr(solver_agent, "_WARNED", set())
    game = spheria.load_game("special-cake", variant="poisoned")
    state = game.state_from_spn(POISONED_SPN)
    assert isinstance(state, CakeState)
    agent = SolverAgent(seed=1, time=5)
    with caplog.at_level(logging.WARNING, logger=solver_agent.__name__):
        agent.choose(state, 0)
        agent.choose(state, 0)
        SolverAgent(seed=2, time=5).choose(state, 0)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert (
        "at most 5 s, and a search that runs out" in warnings[0]
        and "spheria tablebase build --variant poisoned" in warnings[0]
    )
    caplog.clear()
    monkeypatch.setattr(solver_agent, "_WARNED", set())
    with caplog.at_level(logging.WARNING, logger=solver_agent.__name__):
        SolverAgent(seed=1, time=5, tablebase=False).choose(state, 0)  # asked not to use a table
    assert not caplog.records


def test_a_chunked_build_reports_each_level_with_the_time_left(tmp_path: Path, program: Path) -> None:
    reports: list[LevelProgress] = []

    def run_chunks(level: int, count: int, todo: list[int]) -> None:
        for chunk in todo:
            run_chunk(SUB, tmp_path, level, chunk, count, threads=1, output=lambda line: None, program=program)

    directory = build_in_chunks(
        SUB, tmp_path, run_chunks, chunks=2, upto=8, output=lambda line: None, program=program, progress=reports.append
    )
    assert [r.level for r in reports] == list(range(1, 9)) and {r.last for r in reports} == {8}
    assert [r.elapsed for r in reports] == sorted(r.elapsed for r in reports)
    assert reports[-1].remaining == 0 and all(r.remaining >= 0 for r in reports)
    # the estimate is the time so far scaled by the positions left over the positions done
    work = level_positions(SUB)
    first = reports[0]
    assert first.remaining == pytest.approx(first.elapsed * sum(work[2:9]) / work[1])
    assert read_level(directory, 8).level == 8
    # resumed: only the levels left are computed and reported
    (directory / "level-08.bin").unlink()
    reports.clear()
    build_in_chunks(
        SUB, tmp_path, run_chunks, chunks=2, upto=8, output=lambda line: None, program=program, progress=reports.append
    )
    assert [r.level for r in reports] == [8] and reports[0].remaining == 0


# A full poisoned cake from a random set-up: Mint, eating first, wins (the shipped set-up table
# says so at once), but proving each move takes the search minutes without the eating table.
FULL_POISONED_SPN = "bwwwwbbbbbbwbwbw/wwwwbwwwb/bbbw/r 1 eat"
TABLE_MISSING = {"code": "eating_table_missing", "variant": "poisoned", "disk": "4.5 GiB", "minutes": 20}


def test_an_analysis_that_runs_out_for_want_of_the_table_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    game = spheria.load_game("special-cake", variant="poisoned")
    full = analyse(game.state_from_spn(FULL_POISONED_SPN), time=0.3)
    assert full.verdict == 1 and any(m.value is None for m in full.moves)  # moves left unproved
    assert full.note == TABLE_MISSING and full.to_json()["note"] == TABLE_MISSING
    # Proved in time, or a position no table answers better: nothing to say.
    assert analyse(game.state_from_spn(SMALL_POISONED_SPN), time=5).note is None
    assert analyse(game.state_from_spn(POISONED_SPN), time=30).note is None  # searched, but to the end
    same = spheria.load_game("special-cake", variant="poisoned", line_rule="same")
    unproved = analyse(same.state_from_spn(FULL_POISONED_SPN), time=0.3)
    assert any(m.value is None for m in unproved.moves) and unproved.note is None  # no table for `same` lines


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "The eating table of Special Cake poisoned is not built on this machine"),
        ("ko", "스페셜 케이크 poisoned의 먹기 테이블이 만들어져 있지 않아서"),
    ],
)
def test_spheria_analyse_prints_the_note_under_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: str, words: str
) -> None:
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    position = ["--game", "special-cake", "--option", "variant=poisoned", "--position", FULL_POISONED_SPN]
    assert main(["--lang", lang, "analyse", *position, "--time", "0.3"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert words in last and "spheria tablebase build --variant poisoned" in last and "4.5 GiB" in last
    assert main(["analyse", *position, "--time", "0.3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["note"] == TABLE_MISSING
