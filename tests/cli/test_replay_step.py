"""``spheria replay --step`` goes back as well as forward (issue 36, item 8)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.cli.main import main
from spheria.kernel.record import Record

Run = tuple[int, str, str]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    def runner(argv: list[str], typed: list[str]) -> Run:
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in typed)))
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return runner


@pytest.fixture
def game(tmp_path: Path) -> tuple[Path, list[spheria.State[Any]]]:
    """A recorded game of three moves and its four positions."""
    state = spheria.load_game("special-cake", variant="mint").new_initial_state()
    positions = [state.clone()]
    for _ in range(3):
        state.apply(state.legal_moves()[0])
        positions.append(state.clone())
    return Record.from_state(state, ["human", "random"]).save(tmp_path / "r.spheria.json"), positions


def boards(out: str, positions: list[spheria.State[Any]]) -> list[int]:
    """Which position each board drawn in ``out`` shows, in order."""
    drawn = {str(position): index for index, position in enumerate(positions)}
    assert len(drawn) == len(positions)
    found = []  # (where in out, which position)
    for diagram, index in drawn.items():
        at = out.find(diagram + "\n")
        while at >= 0:
            found.append((at, index))
            at = out.find(diagram + "\n", at + 1)
    return [index for _, index in sorted(found)]


def test_step_goes_back_and_redraws_the_position_before(run: Any, game: tuple[Path, list[Any]]) -> None:
    path, positions = game
    code, out, err = run(["replay", str(path), "--step"], ["b", "", "", "b", "b", "", "", "", "b", ""])
    assert (code, err) == (0, "")
    assert "This is the start: there is no previous move." in out
    # start; (b refused) 1, 2; back 1, back 0; 1, 2, 3 (the end); back 2; Enter at a position before the end: 3
    assert boards(out, positions) == [0, 1, 2, 1, 0, 1, 2, 3, 2, 3]
    assert out.count("[Enter: next move, b: previous move, q: stop]") == 9
    assert out.count("[b: previous move, Enter or q: stop]") == 2  # the end, and again after a step back
    assert out.count("The game was not finished (3 moves).") == 1  # the ending, shown once
    assert out.count("\nStart\n") == 2


def test_enter_at_the_end_stops(run: Any, game: tuple[Path, list[Any]]) -> None:
    path, positions = game
    code, out, err = run(["replay", str(path), "--step"], ["", "", "", "", "never read"])
    assert (code, err) == (0, "")
    assert boards(out, positions) == [0, 1, 2, 3]
    assert out.rstrip().endswith("[b: previous move, Enter or q: stop]")


def test_the_help_names_the_keys(run: Any) -> None:
    code, out, _ = run(["replay", "--help"], [])
    assert code == 0
    assert "Enter shows the next move, b goes back to the previous one, q stops" in " ".join(out.split())
