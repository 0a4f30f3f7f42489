"""``spheria solve --verbose``, the live progress line of ``solve`` and ``analyse``, ``spagyric-solve``."""

from __future__ import annotations

import io
import json

import pytest

from spheria.cli.analyse import ProgressLine
from spheria.cli.main import main
from spheria.games.special_cake.cli import solve_update
from spheria.games.special_cake.cli_messages import BACKEND as BACKEND_TEXT
from spheria.games.special_cake.rules import CakeMove
from spheria.games.special_cake.solver import SolveProgress, backend

ROW = "wbw............./........./..../. 1 eat"


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_verbose_and_json_name_the_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", ROW, "--verbose"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(BACKEND_TEXT.split(":")[0] + f": {backend()} (")
    assert main(["solve", ROW, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["backend"] == backend()


def test_piped_solve_prints_no_progress(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat", "--option", "variant=sugar"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "\r" not in captured.out


def test_the_progress_line_redraws_one_line_and_clears_it() -> None:
    stream = FakeTerminal()
    line = ProgressLine(stream, interval=0.0)
    line.prefix = "record move 3/9: "
    solve_update(line, SolveProgress(123456, 2.5, CakeMove((0, 1)), 1, 7))
    solve_update(line, SolveProgress(234567, 3.5, CakeMove((2,)), 2, 7))
    line.clear()
    text = stream.getvalue()
    assert text.count("\r\x1b[K") == 3 and "\n" not in text
    assert "record move 3/9: 123,456 positions searched, 2.5 s; analysing 0a1+0b1 (2/7)" in text
    assert "234,567 positions searched, 3.5 s; analysing 0c1 (3/7)" in text
    assert text.endswith("\r\x1b[K")


def test_the_progress_line_is_silent_off_a_terminal_and_between_redraws() -> None:
    piped = io.StringIO()
    line = ProgressLine(piped, interval=0.0)
    solve_update(line, SolveProgress(1, 0.1, CakeMove((0,)), 0, 1))
    line.clear()
    assert piped.getvalue() == ""
    stream = FakeTerminal()
    slow = ProgressLine(stream, interval=3600.0)
    solve_update(slow, SolveProgress(1, 0.1, CakeMove((0,)), 0, 1))
    solve_update(slow, SolveProgress(2, 0.2, CakeMove((0,)), 0, 1))  # too soon: not drawn
    assert stream.getvalue().count("positions searched") == 1


def test_solve_draws_progress_on_a_tty(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stream = FakeTerminal()
    monkeypatch.setattr("sys.stderr", stream)
    assert main(["solve", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat", "--option", "variant=sugar"]) == 0
    assert "positions searched" in stream.getvalue() and stream.getvalue().endswith("\r\x1b[K")
    assert "Winning moves" in capsys.readouterr().out


def test_spagyric_solve_prints_the_value_and_refuses_bad_agents(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spagyric-solve", "--supply", "1", "--agent", "fixed:color=w"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("supply=1: value +0.000000 for Player 1")
    assert "fixed:color=w: secures" in out
    assert main(["spagyric-solve", "--supply", "1", "--agent", "greedy"]) == 1
    assert "has no policy()" in capsys.readouterr().err
    assert main(["spagyric-solve", "--supply", "0"]) == 1
