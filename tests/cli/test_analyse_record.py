"""``spheria analyse RECORD`` words each move as the position after it (issue 36, item 4): exact
verdicts in the present, estimates as estimates, a mistake claimed only from exact values or from
a drop beyond the estimates' error."""

from __future__ import annotations

import io
import json
import math
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.analysis import Analysis, MoveAnalysis, MoveValue
from spheria.cli.analyse import claimed_mistake
from spheria.cli.main import main
from spheria.kernel.record import Record

ROW = re.compile(r"^ *(\d+)\. (\S+) +(.*)$")


@pytest.fixture
def analyse(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """``analyse(path, *flags)``: the rows the text shows (number: note), the whole text, and the JSON."""

    def runner(path: Path, *flags: str) -> tuple[dict[int, str], str, dict[str, Any]]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        assert main(["analyse", str(path), *flags]) == 0
        text = capsys.readouterr().out
        assert main(["analyse", str(path), *flags, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        rows = {int(m.group(1)): m.group(3) for m in map(ROW.match, text.splitlines()) if m}
        assert len(rows) == len(data["moves"])
        return rows, text, data

    return runner


def cake(variant: str) -> spheria.State[Any]:
    return spheria.load_game("special-cake", variant=variant).new_initial_state()


def played(state: spheria.State[Any], count: int, seed: int = 0) -> spheria.State[Any]:
    """``state`` after ``count`` moves of a random agent seeded ``seed``."""
    agent = RandomAgent(seed=seed)
    for _ in range(count):
        state.apply(agent.choose(state, state.current_player()))
    return state


def test_set_up_moves_of_mint_read_as_the_verdict_after_the_move(analyse: Any, tmp_path: Path) -> None:
    state = played(cake("mint"), 6)
    path = Record.from_state(state, ["human", "random"]).save(tmp_path / "mint.spheria.json")
    rows, text, data = analyse(path)
    assert "had won" not in text and "had lost" not in text
    names = ["Mint", "Liquorice"]
    for move in data["moves"]:
        seat = move["seat"]
        was, now = move["values_before"][seat], move["values_after"][seat]
        assert abs(was) == abs(now) == 1  # the set-up is solved: exact verdicts
        if now == was:
            expected = f"{names[seat]} still {'wins' if now > 0 else 'loses'} with perfect play"
        else:
            expected = (
                f"{names[seat]} now loses with perfect play: a win thrown away"
                f" (winning instead: {move['best_moves'][0]})"
            )
        assert rows[move["number"]] == expected
    assert data["moves"][0]["values_before"] == [1.0, -1.0]  # Mint wins from the empty table


def test_an_eating_game_claims_a_thrown_win_exactly_where_the_values_prove_it(analyse: Any, tmp_path: Path) -> None:
    state = played(cake("mint"), 34, seed=5)  # the set-up, then a few bites
    assert state.to_spn().endswith(" eat")  # the eating phase
    start = state.game.state_from_spn(state.to_spn())
    for _ in range(6):
        if start.is_terminal():
            break
        start.apply(RandomAgent(seed=len(start.history)).choose(start, start.current_player()))
    path = Record.from_state(start, ["random", "random"]).save(tmp_path / "eat.spheria.json")
    rows, _, data = analyse(path)
    thrown = [move for move in data["moves"] if move["threw_away_win"]]
    assert thrown  # this game has mistakes to claim
    for move in data["moves"]:
        claimed = "a win thrown away" in rows[move["number"]]
        assert claimed == move["threw_away_win"], (move["number"], rows[move["number"]])
        if claimed:
            assert rows[move["number"]].endswith(f"(winning instead: {move['best_moves'][0]})")
        else:
            assert " still " in rows[move["number"]]


SIGMAS = 2.0  # a fall counts beyond twice the standard error of the difference


def _claim(move: dict[str, Any]) -> tuple[str, str | None]:
    """The estimate's wording and the mistake note a row gets, computed from the JSON's raw values:
    the position's value and the played move's, both from the one search before the move, each
    with its standard error; a better move claimed only when the fall exceeds twice the standard
    error of the difference and a best move beats the played one by as much."""
    before = move["before"]
    values = {m["move"]: m for m in before["moves"]}
    played = values[move["move"]]
    start, end = (before["value"] + 1) / 2, (played["value"] + 1) / 2
    margin = SIGMAS * math.hypot(before["error"], played["error"]) / 2
    better = [
        notation
        for notation in before["best_moves"]
        if notation != move["move"]
        and values[notation]["value"] - played["value"]
        > SIGMAS * math.hypot(values[notation]["error"], played["error"])
    ]
    claim = None
    if start - end > margin and better:
        claim = (
            f"; the estimate preferred {better[0]} ({start:.0%} against {end:.0%}, beyond its error of ±{margin:.0%})"
        )
    return f"{start:.0%} -> {end:.0%}", claim


def test_estimates_are_worded_as_estimates_and_a_mistake_is_claimed_only_beyond_their_error(
    analyse: Any, tmp_path: Path
) -> None:
    same_lines = spheria.load_game("special-cake", variant="poisoned", line_rule="same")  # mixed: exact, the table's
    state = played(same_lines.new_initial_state(), 8, seed=0)
    path = Record.from_state(state, ["random", "random"]).save(tmp_path / "poisoned.spheria.json")
    rows, text, data = analyse(path, "--iterations", "300", "--seed", "0")
    names = ["Mint", "Liquorice"]
    claimed: list[int] = []
    unclaimed: list[int] = []
    for move in data["moves"]:
        seat = move["seat"]
        rates, claim = _claim(move)
        estimate = f"{names[seat]}'s estimated win rate {rates}"
        assert rows[move["number"]] == estimate + (claim or "")
        (claimed if claim else unclaimed).append(move["number"])
        if move["drop"] >= 0.1:  # what the old wording called "a large drop", whatever the error
            assert claim or "drop" not in rows[move["number"]]
    assert claimed and unclaimed  # this game has both: the test tells them apart
    assert f"Moves an estimate shows as mistakes, beyond its error: {', '.join(map(str, claimed))}." in text
    assert "Largest drops" not in text


def _analysis(status: str, moves: list[MoveValue], best: list[str], value: float | None = None) -> Analysis:
    analysis = Analysis("spline", {}, "-", 0, None, "method", status, value=value, values=None)
    return replace(analysis, moves=moves, best_moves=best)


def _row(before: Analysis, move: str, seat: int | None = 0) -> MoveAnalysis:
    return MoveAnalysis(1, seat, move, before, before)


def test_an_estimated_mistake_needs_a_fall_and_a_gap_beyond_the_moves_errors() -> None:
    moves = [
        MoveValue("a", 0.2, 400, error=0.05),
        MoveValue("b", -0.2, 100, error=0.1),
        MoveValue("c", 0.0, 4, error=0.5),
    ]
    estimate = replace(_analysis("estimate", moves, ["a"], 0.2), seat=0, error=0.05, values=[0.2, -0.2])
    assert claimed_mistake(_row(estimate, "b")) == "a"  # 0.4 apart, beyond 2 * hypot(0.05, 0.1)
    assert claimed_mistake(_row(estimate, "c")) is None  # ±0.5: more than the 0.2 gap
    assert claimed_mistake(_row(estimate, "a")) is None  # the best move itself
    assert claimed_mistake(_row(estimate, "b", seat=None)) is None  # a joint move: no one seat's choice
    assert claimed_mistake(_row(_analysis("exact", moves, ["a"], 1.0), "b")) is None  # exact: its own wording
    strategy = _analysis("estimate", [MoveValue("a", probability=0.9), MoveValue("b", probability=0.1)], ["a"])
    assert claimed_mistake(_row(strategy, "b")) is None  # no values, no visits: no claim


def test_a_spagyric_record_says_its_estimates_have_no_win_rate(analyse: Any, tmp_path: Path) -> None:
    state = spheria.load_game("spagyric").new_initial_state()
    state.apply_notation("r:w")  # the first player wins the reveal...
    state.apply_notation("0a1")  # ...and places
    path = Record.from_state(state, ["random", "random"]).save(tmp_path / "spagyric.spheria.json")
    rows, _, data = analyse(path, "--time", "0.2")
    assert [m["before"]["status"] for m in data["moves"]] == ["estimate", "estimate"]
    no_value = "(an estimate of the best moves only, without a win rate: nothing to compare)"
    assert rows == {1: no_value, 2: no_value}
