"""``spheria puzzles build`` and ``spheria puzzle`` (JSON, and solving one at the terminal), in English and Korean."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from spheria.cli.main import main
from spheria.cli.puzzles import pick
from spheria.kernel.record import Record
from spheria.puzzles import Puzzle, puzzle_state, read_puzzles, verify

Run = tuple[int, str, str]
#: ``run(argv, typed)``: the exit status, stdout and stderr of ``spheria argv`` with ``typed`` as its input.
Runner = Callable[..., Run]
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Runner:
    def runner(argv: list[str], typed: Sequence[str] = ()) -> Run:
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in typed)))
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return runner


def a_long_puzzle(game: str) -> tuple[int, Puzzle]:
    """The first seed picking a puzzle of ``game`` whose solution has the defence in it."""
    for seed in range(200):
        puzzle = pick(game, seed)
        if len(puzzle.solution) >= 3:
            return seed, puzzle
    raise AssertionError("no puzzle with a defence")


@pytest.mark.parametrize("game", ["special-cake", "spline"])
def test_json_prints_one_puzzle(run: Runner, game: str) -> None:
    code, out, err = run(["puzzle", "--game", game, "--json", "--seed", "5"])
    assert code == 0 and err == ""
    shown = json.loads(out)
    assert list(shown) == ["game", "options", "spn", "solution"]
    assert shown["game"] == game and isinstance(shown["solution"], list)
    puzzle = pick(game, 5)
    assert shown == {key: value for key, value in puzzle.to_json().items() if key in shown}
    puzzle_state(puzzle)  # a position of the game
    assert run(["--lang", "ko", "puzzle", "--game", game, "--json", "--seed", "5"])[1] == out


@pytest.mark.parametrize("game", ["special-cake", "spline"])
def test_solving_it_move_by_move(run: Runner, game: str) -> None:
    seed, puzzle = a_long_puzzle(game)
    answers = list(puzzle.solution[::2])
    code, out, _ = run(["puzzle", "--game", game, "--seed", str(seed), "--no-color"], answers)
    assert code == 0
    assert out.count("is the only winning move") == len(answers)
    assert f"defends: {puzzle.solution[1]}" in out
    assert "Solved!" in out


def test_a_wrong_try_is_refuted_and_the_solution_shown(run: Runner) -> None:
    seed, puzzle = a_long_puzzle("special-cake")
    state = puzzle_state(puzzle)
    right = state.child(state.parse_move(puzzle.solution[0])).to_spn()
    wrong = next(m for m in state.legal_moves() if state.child(m).to_spn() != right)
    code, out, _ = run(["puzzle", "--game", "special-cake", "--seed", str(seed), "--no-color"], [str(wrong)])
    assert code == 1
    assert f"{wrong} does not win." in out
    assert f"The oracle plays it out: {wrong}" in out
    steps = out.split("The solution, step by step:")[1]
    for number, move in enumerate(puzzle.solution, 1):
        assert f"{number}. " in steps and move in steps


def test_hint_moves_and_a_bad_move(run: Runner) -> None:
    seed, puzzle = a_long_puzzle("spline")
    code, out, _ = run(["puzzle", "--game", "spline", "--seed", str(seed), "--no-color"], ["hint", "moves", "9z9"])
    assert code == 1  # the input ended: the solution is shown
    hint = re.search(r"Hint: the winning move is one of (.*)\.", out)
    assert hint is not None and puzzle.solution[0] in hint.group(1).split(", ")
    assert "Themes: " in out and "Legal moves: " in out
    assert "9z9" in out  # named, and asked again
    assert f"The solution was {', '.join(puzzle.solution)}." in out


def test_in_korean(run: Runner) -> None:
    seed, _ = a_long_puzzle("spline")
    code, out, _ = run(["--lang", "ko", "puzzle", "--game", "spline", "--seed", str(seed), "--no-color"], ["hint"])
    assert code == 1
    for line in out.splitlines():
        if re.search(r"[a-z]{4,}", line) and not re.search(r"\d[a-d]\d", line):
            assert HANGUL.search(line), line


def test_build_writes_puzzles_that_verify(run: Runner, tmp_path: Path) -> None:
    path = tmp_path / "few.jsonl.gz"
    code, out, err = run(["puzzles", "build", "--game", "spline", "--count", "3", "--seed", "4", "--output", str(path)])
    assert code == 0, err
    assert re.match(r"Wrote 3 puzzles of spline to .*few.jsonl.gz in \d+ s.", out.strip().splitlines()[-1])
    puzzles = read_puzzles(path)
    assert len(puzzles) == 3
    for puzzle in puzzles:
        verify(puzzle)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["puzzles", "build", "--game", "spline", "--count", "0"], "--count must be 1 or more, not 0"),
        (["puzzle", "--game", "spinca"], "invalid choice: 'spinca'"),
        (["puzzle"], "--game"),
    ],
)
def test_bad_input(run: Runner, argv: list[str], words: str) -> None:
    code, _, err = run(argv)
    assert code != 0 and words in err


@pytest.mark.parametrize("argv", [["puzzle", "--help"], ["puzzles", "build", "--help"]])
def test_help_in_korean(run: Runner, argv: list[str]) -> None:
    code, out, _ = run(["--lang", "ko", *argv])
    assert code == 0
    assert "퍼즐" in out
    assert not re.search(r"\b(the|a|of|to|and)\b", out)  # no English sentence left


def test_build_takes_puzzles_from_records_first(run: Runner, tmp_path: Path) -> None:
    state = puzzle_state(pick("spline", 1))
    while not state.is_terminal():
        state.apply(state.legal_moves()[-1])
    record = Record.from_state(state, ["human", "random"]).save(tmp_path / "game.spheria.json")
    path = tmp_path / "out.jsonl.gz"
    argv = ["puzzles", "build", "--game", "spline", "--count", "1", "--records", str(record), "--output", str(path)]
    code, _, err = run(argv)
    assert code == 0, err
    (puzzle,) = read_puzzles(path)
    assert puzzle.spn == pick("spline", 1).spn and puzzle.source.startswith("game.spheria.json: human vs random")
    code, _, err = run(["puzzles", "build", "--game", "special-cake", "--count", "1", "--records", str(record)])
    assert code == 1 and "game.spheria.json is a record of spline, not of special-cake" in err
