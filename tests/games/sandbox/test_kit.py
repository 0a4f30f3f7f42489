"""What the sandbox offers beyond its rules, and what the generic layers make of it: no agent plays
it (each fit check says why), no codec, its how-to, and a whole game at the terminal."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

import spheria
from spheria.agents.registry import agents_for, check_spec, default_agent
from spheria.analysis import analyse
from spheria.cli.main import main
from spheria.help import howto
from spheria.i18n import using
from spheria.kernel.codec import codec_for
from spheria.server.endpoints import fitting_agents, fitting_levels

WHY = "the sandbox enforces only the physics of the set, so the players agree on the rules and the result"


@pytest.mark.parametrize("spec", ["random", "mcts", "level:3", "greedy:seed=2"])
def test_no_agent_fits_the_sandbox_and_the_refusal_says_why(spec: str) -> None:
    game = spheria.load_game("sandbox", players=3)
    with pytest.raises(ValueError, match=f"does not play Shibumi Sandbox, nor does any agent: {WHY}"):
        check_spec(spec, game)


def test_the_lobby_offers_only_people() -> None:
    game = spheria.load_game("sandbox")
    assert agents_for(game) == [] and fitting_agents(game) == [] and fitting_levels(game) == []
    assert default_agent(spheria.load_game("spline")) == "mcts"  # other games keep theirs


def test_the_integrations_say_the_sandbox_has_no_codec() -> None:
    with pytest.raises(ValueError, match="'sandbox' offers no codec"):
        codec_for(spheria.load_game("sandbox"))


def test_the_how_to_draws_a_drop_with_its_marks() -> None:
    text = howto("sandbox")
    assert "1 rvb . .     1 .x. ." in text and "offer draw" in text


def play_typed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], typed: list[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in typed)))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_whole_sandbox_game_at_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = [
        "help",
        "w 0a1", "b 0b1", "b 0a2", "w 0b2", "r 1a1",  # a little pyramid
        "x 1b1",  # refused: nothing there
        "end",
        "0a1-0d4",  # the red ball drops into 0a1
        "end",
        "offer 2", "accept",
    ]  # fmt: skip
    code, out, err = play_typed(
        monkeypatch, capsys, ["play", "sandbox", "--players", "human,human", "--no-save"], typed
    )
    assert code == 0, err
    assert "w 0a1 (place a white ball on 0a1" in out  # the game's help says its commands
    assert "there is no ball on 1b1." in out
    assert "1 rvb . .     1 .x. ." in out and "4 . . . w>" in out  # the marks Player 2 left for Player 1
    assert "Player 1 offers a win for Player 2; Player 2 accepts or declines." in out
    assert "Agreed result: Player 2 wins." in out and "Game over after 10 moves" in out


def test_without_players_every_seat_is_a_person(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = play_typed(
        monkeypatch,
        capsys,
        ["play", "sandbox", "--option", "players=3", "--no-save"],
        ["offer draw", "accept", "accept"],
    )
    assert code == 0 and "Agreed result: a draw." in out


def test_an_agent_seat_is_refused_before_the_game_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = play_typed(monkeypatch, capsys, ["play", "sandbox", "--players", "human,random", "--no-save"], [])
    assert code == 1 and f"seat 2 (Player 2): random does not play Shibumi Sandbox, nor does any agent: {WHY}" in err


def test_a_sandbox_position_is_not_analysed_and_the_refusal_says_why() -> None:
    state = spheria.load_game("sandbox").state_from_spn("w.............../........./..../. 2")
    with pytest.raises(
        ValueError, match=f"Shibumi Sandbox is not analysed: its estimate is an agent's search, and {WHY}"
    ):
        analyse(state, iterations=10)


def test_a_replay_shows_each_turns_marks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = tmp_path / "sandbox.spheria.json"
    typed = ["w 0a1", "b 0b1", "b 0a2", "w 0b2", "r 1a1", "end", "0a1-0d4", "end", "offer draw", "accept"]
    code, _out, err = play_typed(
        monkeypatch, capsys, ["play", "sandbox", "--players", "human,human", "--save", str(record)], typed
    )
    assert code == 0, err
    code, out, err = play_typed(monkeypatch, capsys, ["replay", str(record)], [])
    assert code == 0, err
    after_move = out.split("Move 7:")[1].split("Move 8:")[0]  # Player 2 moved 0a1 to 0d4: the red ball dropped
    assert "4 . . . w>" in after_move and "1 rvb . .     1 .x. ." in after_move
    assert "Agreed result: a draw." in out


def test_the_sandbox_speaks_korean() -> None:
    state = spheria.load_game("sandbox").new_initial_state()
    for text in ("w 0a1", "end", "offer 1"):
        state.apply(state.parse_move(text))
    with using("ko"):
        assert state.status_lines() == [
            "플레이어 2이(가) 플레이어 1의 승리를 제안합니다. 플레이어 1이(가) 수락하거나 거절합니다.",
            "상자에 남은 공: 흰색 15개, 검은색 16개, 빨간색 16개.",
            "플레이어 1의 지난 차례 표시: + 놓음, > 옮김, v 떨어짐, x 비움.",
        ]
        with pytest.raises(spheria.MoveError, match="다른 동작에 앞서 플레이어 1이\\(가\\) 수락하거나 거절합니다"):
            state.parse_move("x 0a1")
