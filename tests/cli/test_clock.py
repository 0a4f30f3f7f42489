"""``spheria play --clock``: timed games at the terminal, driven by a fake clock (nothing sleeps).

The fake clock moves only when the test says: each typed line carries the milliseconds the person
thought before typing it, and a test agent moves the clock by the time it "thinks".
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

import spheria
from spheria.agents import registry
from spheria.cli import clocks as cli_clocks
from spheria.cli.main import main
from spheria.kernel.agent import Agent
from spheria.kernel.clock import SeatClock, TimeControl
from spheria.kernel.game import PlayerView
from spheria.kernel.record import Record

Run = tuple[int, str, str]


class FakeClock:
    """Milliseconds that pass only when :meth:`advance` says."""

    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


class TimedInput:
    """Typed lines, each read after the person thought its milliseconds on the fake clock."""

    def __init__(self, clock: FakeClock, lines: list[tuple[int, str]]) -> None:
        self.clock = clock
        self.lines = list(lines)

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        if not self.lines:
            return ""
        think, line = self.lines.pop(0)
        self.clock.advance(think)
        return line + "\n"


class Thinker(Agent):
    """Plays the first legal move after "thinking" ``think`` ms on the fake clock; remembers its limits."""

    clock: ClassVar[FakeClock]
    think: ClassVar[int] = 0
    limits: ClassVar[list[float | None]] = []

    def __init__(self) -> None:
        self.name = "thinker"

    def choose(self, view: PlayerView, player: int) -> Any:
        Thinker.limits.append(self.time_limit)
        self.clock.advance(self.think)
        return view.legal_moves(player)[0]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(cli_clocks, "monotonic_ms", fake)
    monkeypatch.setitem(registry._AGENTS, "thinker", Thinker)
    monkeypatch.setattr(Thinker, "clock", fake, raising=False)
    monkeypatch.setattr(Thinker, "limits", [])
    monkeypatch.setattr(Thinker, "think", 0)
    return fake


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], clock: FakeClock) -> Any:
    """``run(argv, [(ms thought, typed line), ...])``: the exit status, stdout and stderr."""

    def runner(argv: list[str], typed: list[tuple[int, str]] = ()) -> Run:  # type: ignore[assignment]
        monkeypatch.setattr(sys, "stdin", TimedInput(clock, list(typed)))
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return runner


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def spline_moves(count: int) -> list[str]:
    state = spheria.load_game("spline").new_initial_state()
    moves = []
    for _move in range(count):
        move = state.legal_moves()[0]
        moves.append(str(move))
        state.apply(move)
    return moves


def test_two_people_on_the_clock_and_one_runs_out(run: Any) -> None:
    first, second, third = spline_moves(3)
    typed = [(4_000, first), (59_000, second), (500, "moves"), (300_000, third)]
    code, out, err = run(["play", "spline", "--players", "human,human", "--clock", "1+2", "--save", "g.json"], typed)
    assert (code, err) == (0, "")
    assert "Clock 1+2: ▶ White 1:00 · Black 1:00" in out  # the status line at White's first prompt
    assert "Clock 1+2: White 0:58 · ▶ Black 1:00" in out  # White used 4 s and got its 2 s increment
    assert "Clock 1+2: ▶ White 0:58 · Black 0:03.0" in out  # Black used 59 s of its 60
    assert "Clock 1+2: White 0:00.0 · Black 0:03.0" in out  # White thought 300.5 s: out of time
    assert "White ran out of time: Black wins." in out
    record = Record.load("g.json")
    assert record.clock == TimeControl.parse("1+2")
    assert record.clocks == [[SeatClock(0, 4_000, 58_000)], [SeatClock(1, 59_000, 3_000)]]
    assert record.lost_on_time == 0 and record.result is None and record.moves == [first, second]

    code, out, err = run(["replay", "g.json"])
    assert (code, err) == (0, "")
    assert "Time control: 1+2" in out
    assert f"Move 1: White (human) {first} (White used 4.0 s, 0:58 left)" in out
    assert f"Move 2: Black (human) {second} (Black used 59.0 s, 0:03.0 left)" in out
    assert "White (human) lost on time after 2 moves." in out

    code, out, err = run(["play", "--resume", "g.json"])
    assert code == 1
    assert "g.json: the game is over: White ran out of time; replay it with: spheria replay g.json" in err


def test_undo_takes_the_clocks_back_and_a_resumed_game_keeps_them_to_the_millisecond(run: Any) -> None:
    first, second, third = spline_moves(3)
    typed = [(1_234, first), (5_678, second), (100, "undo"), (9_000, second), (10, "quit"), (0, "y")]
    code, out, err = run(["play", "spline", "--players", "human,human", "--clock", "5+3", "--save", "g.json"], typed)
    assert (code, err) == (1, "")
    # White's undo took back Black's move: Black's 5.678 s went with it (and White's 100 ms before the
    # undo with the position); Black's clock ran again from the undo, 9 s.
    record = Record.load("g.json")
    assert record.clocks == [[SeatClock(0, 1_234, 301_766)], [SeatClock(1, 9_000, 294_000)]]
    typed = [(2_000, third), (10, "quit"), (0, "y")]
    code, out, err = run(["play", "--resume", "g.json"], typed)
    assert "Clock 5+3: ▶ White 5:01 · Black 4:54" in out  # as the record left them
    record = Record.load("g.json")
    assert record.clocks is not None and record.clocks[2] == [SeatClock(0, 2_000, 302_766)]
    code, out, err = run(["play", "--resume", "g.json", "--clock", "1+0"])
    assert code == 1 and "--clock" in err


def test_a_bad_clock_is_refused_naming_the_problem(run: Any) -> None:
    code, _out, err = run(["play", "spline", "--clock", "5+99"])
    assert code == 1
    assert err == "spheria: error: --clock: a real-time game's increment is 0 to 60 seconds, not 99\n"
    code, _out, err = run(["play", "spline", "--clock", "fast"])
    assert code == 1 and "--clock: 'fast' is not a time control" in err


def test_an_agent_thinks_within_the_time_it_has_left_and_loses_when_it_runs_out(run: Any) -> None:
    Thinker.think = 20_000
    first, _reply, third = spline_moves(3)  # the thinker plays the first legal move too
    typed = [(1_000, first), (1_000, third)]
    argv = ["play", "spline", "--players", "human,thinker", "--clock", "30s+0", "--save", "g.json"]
    code, out, err = run(argv, typed)
    assert (code, err) == (0, "")
    assert Thinker.limits == [15.0, 5.0]  # half the time left each move: 30 s, then 10 s
    assert "Black ran out of time: White wins." in out  # it "thought" 20 s with 10 s left
    assert "You win!" in out
    record = Record.load("g.json")
    assert record.lost_on_time == 1
    assert record.clocks == [
        [SeatClock(0, 1_000, 29_000)],
        [SeatClock(1, 20_000, 10_000)],
        [SeatClock(0, 1_000, 28_000)],
    ]


def test_an_untimed_game_has_no_clock_line(run: Any) -> None:
    typed = [(1_000, move) for move in spline_moves(2)] + [(0, "quit"), (0, "n")]
    code, out, _err = run(["play", "spline", "--players", "human,human"], typed)
    assert "Clock" not in out and code == 1
