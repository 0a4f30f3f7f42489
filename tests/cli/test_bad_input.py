"""An attacker's (or a slip of the finger's) input to the command line: every bad value is refused
as a usage error naming it, what is read is bounded, what is echoed is short, and nothing ends in
"internal error"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import spheria
from spheria.cli.main import main
from spheria.kernel.record import MAX_PLAYER_LENGTH, Record

CAKE = "wbw............./........./..../. 1 eat"
Run = tuple[int, str, str]
Runner = Callable[[list[str]], Run]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runner:
    """``run(argv)``: the exit status, stdout and stderr of ``spheria argv``, in a folder of its own."""
    monkeypatch.chdir(tmp_path)

    def runner(argv: list[str]) -> Run:
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return runner


@pytest.mark.parametrize("limit", ["nan", "inf", "1e308", "-1", "0"])
@pytest.mark.parametrize("command", [["solve", CAKE], ["analyse", "--game", "special-cake", "--position", CAKE]])
def test_a_time_limit_that_is_no_time_is_a_usage_error(run: Runner, command: list[str], limit: str) -> None:
    code, out, err = run([*command[:1], "--time-limit", limit, *command[1:]])
    assert code == 2 and out == ""
    assert "--time-limit" in err and limit in err and "internal error" not in err


def record_file(tmp_path: Path, **changes: object) -> Path:
    state = spheria.load_game("spline").new_initial_state()
    state.apply(state.legal_moves()[0])
    data = Record.from_state(state, ["human", "random"]).to_json()
    data.update(changes)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["replay", "analyse"])
def test_a_record_with_a_huge_player_name_is_refused_in_a_short_line(run: Runner, tmp_path: Path, command: str) -> None:
    path = record_file(tmp_path, players=["x" * 5_000_000, "random"])
    code, out, err = run([command, str(path)])
    assert code != 0 and len(out) + len(err) < 2_000
    assert f"'players' entry 1 is 5000000 characters long; a player is at most {MAX_PLAYER_LENGTH}" in err


def test_a_huge_start_is_named_not_echoed(run: Runner, tmp_path: Path) -> None:
    path = record_file(tmp_path, start="w" * 100_000, from_position=True)
    code, out, err = run(["replay", str(path)])
    assert code != 0 and "'start'" in err and len(out) + len(err) < 2_000


def test_json_nested_deeper_than_a_record_is_refused_by_name(run: Runner, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for command in ("replay", "analyse"):
        code, _, err = run([command, str(path)])
        assert code != 0 and "nests deeper" in err and "internal error" not in err


def test_an_endless_file_is_read_no_further_than_a_record_can_be(run: Runner) -> None:
    endless = Path("/dev/zero")
    if not endless.exists():
        pytest.skip("no /dev/zero on this system")
    code, _, err = run(["analyse", str(endless)])
    assert code != 0 and "larger than 16 MB" in err


def test_a_seed_past_any_whole_number_python_reads_is_a_usage_error(run: Runner) -> None:
    code, _, err = run(["play", "spline", "--players", "random,random", "--no-save", "--seed", "9" * 5000])
    assert code == 2 and "--seed" in err and "internal error" not in err and len(err) < 400


@pytest.mark.parametrize("supply", ["0", "4", "99"])
def test_spagyric_solve_takes_only_supplies_it_can_solve(run: Runner, supply: str) -> None:
    code, _, err = run(["spagyric-solve", "--supply", supply])
    assert code != 0 and "--supply must be 1 to 3" in err and f"not {supply}" in err
