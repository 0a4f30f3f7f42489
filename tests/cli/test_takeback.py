"""``spheria play``: a takeback against agents (issue 36, item 8), driven through ``main(argv)``."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.cli.main import main
from spheria.kernel.record import Record, RecordError

Run = tuple[int, str, str]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """``run(argv, typed)``: the exit status, stdout and stderr of ``spheria argv`` fed ``typed`` lines."""

    def runner(argv: list[str], typed: list[str]) -> Run:
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in typed)))
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return runner


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)


def mint() -> spheria.State[Any]:
    return spheria.load_game("special-cake", variant="mint").new_initial_state()


def drawn_after(out: str, marker: str) -> str:
    """The board drawn right after the line holding ``marker`` (the session draws a blank line, then it)."""
    rest = out[out.index(marker) :].split("\n", 1)[1]
    assert rest.startswith("\n"), rest[:80]
    return rest[1:]


def test_a_takeback_against_an_agent_undoes_your_move_and_its_reply_and_the_record_counts_it(run: Any) -> None:
    # The agent the command line seats, played alongside: its first reply is taken back, so the
    # game goes on with its second choice.
    agent = RandomAgent(seed=3)
    expected = mint()
    first = expected.legal_moves()[0]
    expected.apply(first)
    reply = expected.notation(agent.choose(expected, 1))
    expected.undo()
    typed = ["takeback", str(first), "takeback"]
    while not expected.is_terminal():
        if expected.current_player() == 1:
            expected.apply(agent.choose(expected, 1))
        else:
            move = expected.legal_moves()[-1]
            typed.append(str(move))
            expected.apply(move)
    code, out, err = run(["play", "special-cake", "--players", "human,random:seed=3", "--save", "g.json"], typed)
    assert (code, err) == (0, "")

    assert "Mint> There is nothing to take back: you have not moved yet." in out
    assert f"Move 2: Liquorice (random:seed=3) plays {reply}\n" in out
    took_back = f"Took back 2 moves ({first}, {reply}): your move 1 again."
    assert out.count(took_back) == 1
    empty = str(mint())
    assert drawn_after(out, "New to Special Cake?").startswith(empty + "\n")  # before the first move
    assert drawn_after(out, took_back).startswith(empty + "\n")  # the same board after the takeback
    assert "Commands:" not in out

    record = Record.load("g.json")
    assert record.takebacks == [1, 0]
    assert record.moves == expected.history_notation()
    assert record.replay().returns() == expected.returns()
    assert '"takebacks": [1, 0]' in Path("g.json").read_text(encoding="utf-8")


def test_the_help_lists_the_takeback(run: Any) -> None:
    code, out, _ = run(["play", "special-cake", "--players", "human,random", "--no-save"], ["help", "quit"])
    assert code == 1
    assert "undo        take back a move (also: takeback); against agents, your last move" in out
    assert "and their replies since, counted in the record" in out


def test_the_count_carries_on_when_an_unfinished_game_is_resumed(run: Any) -> None:
    state = mint()
    first, second = (str(m) for m in state.legal_moves()[:2])
    argv = ["play", "special-cake", "--players", "human,random:seed=1", "--save", "g.json"]
    code, out, _ = run(argv, [first, "undo", second, "quit", "y"])
    assert code == 1 and "Took back 2 moves" in out
    record = Record.load("g.json")
    assert record.takebacks == [1, 0] and record.moves[0] == second and len(record.moves) == 2

    resumed = record.replay()
    third = str(resumed.legal_moves()[0])
    code, out, _ = run(["play", "--resume", "g.json"], [third, "undo", "quit", "y"])
    assert code == 1 and "Took back 2 moves" in out and "your move 3 again" in out
    again = Record.load("g.json")
    assert again.takebacks == [2, 0] and again.moves == record.moves
    assert again.replay().to_spn() == resumed.to_spn()

    code, _, _ = run(["play", "--resume", "g.json", "--players", "human,human"], ["quit", "y"])
    assert code == 1 and Record.load("g.json").takebacks == [2, 0]  # people alone keep the count they found


def test_a_game_between_people_writes_no_takeback_count(run: Any) -> None:
    state = mint()
    moves = [str(m) for m in state.legal_moves()[:2]]
    argv = ["play", "special-cake", "--players", "human,human", "--save", "g.json"]
    code, out, _ = run(argv, [*moves, "undo", "quit", "y"])
    assert code == 1 and "Took back move 2" in out
    assert Record.load("g.json").takebacks is None
    assert "takebacks" not in Path("g.json").read_text(encoding="utf-8")


def test_a_takeback_never_undoes_a_secret_reveal_but_may_undo_a_placement_after_it(run: Any) -> None:
    game = spheria.load_game("spagyric")
    state = game.new_initial_state()
    theirs = str(RandomAgent(seed=1).choose(state.view(1), 1))  # what the seated agent reveals first
    mine = {"w": "r", "b": "w", "r": "b"}[theirs]  # the colour that beats it: this seat places
    typed = [mine, "undo", "0a1", "takeback", "0b1", "quit", "y"]
    code, out, err = run(["play", "spagyric", "--players", "human,random:seed=1", "--save", "g.json"], typed)
    assert (code, err) == (1, "")
    refusal = (
        "No takeback here: it would undo move 1, a reveal of choices made in secret. You have seen what"
        " Player 2 (random:seed=1) chose, and would choose again knowing it; only moves since the last reveal"
        " can be taken back."
    )
    assert refusal in out
    assert "Took back 1 move (0a1): your move 2 again." in out
    record = Record.load("g.json")
    assert record.moves == [f"{mine}:{theirs}", "0b1"]
    assert record.takebacks == [1, 0]
    # After the takeback the player sees what they saw before placing, and nothing of the agent's supply.
    placing = drawn_after(out, "Took back 1 move")
    assert "places the" in placing.split("Player 1>")[0]
    assert "Player 2 holds 23 balls." in placing and "Player 2's supply" not in placing


def test_a_takeback_never_undoes_another_persons_move(run: Any) -> None:
    state = spheria.load_game("spinca", players=3).new_initial_state()
    first = str(state.legal_moves()[0])
    state.apply(state.legal_moves()[0])
    second = str(state.legal_moves()[0])
    argv = ["play", "spinca", "--players", "human,human,random:seed=2", "--no-save"]
    code, out, _ = run(argv, ["undo", first, "undo", second, "undo", "quit"])
    assert code == 1
    assert out.count("There is nothing to take back: you have not moved yet.") == 1  # the first seat, at once
    names = state.game.player_names()
    for person in names[:2]:  # the second seat's takeback would undo the first's move, and then the other way
        refusal = f"No takeback here: {person} has moved since your last move; a takeback undoes only agents' moves."
        assert out.count(refusal) == 1
    assert "Took back" not in out


def test_a_record_with_a_bad_takeback_count_is_refused_by_name() -> None:
    state = mint()
    data = Record.from_state(state, ["human", "random"], takebacks=[0, 0]).to_json()
    assert data["takebacks"] == [0, 0]
    for bad in ([1], [-1, 0], [True, 0], "2"):
        with pytest.raises(RecordError, match="'takebacks' must be the number of takebacks each of the 2 seats"):
            Record.from_json({**data, "takebacks": bad})
    del data["takebacks"]
    assert Record.from_json(data).takebacks is None  # an older record reads as before


def test_a_resumed_record_keeps_its_hint_count(run: Any) -> None:
    state = mint()
    state.apply(state.legal_moves()[0])
    Record.from_state(state, ["human", "random:seed=1"], hints=[3, 0]).save("g.json")
    second = str(state.legal_moves()[0])
    code, _, _ = run(["play", "--resume", "g.json"], [second, "quit", "y"])
    assert code == 1
    again = Record.load("g.json")
    assert again.hints == [3, 0] and len(again.moves) >= 2
