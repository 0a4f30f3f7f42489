"""The ``spheria`` command, driven through ``main(argv)`` with scripted input."""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import spheria
from spheria.agents import registry
from spheria.agents.levels import level_spec, level_words, levels_for
from spheria.agents.random_agent import RandomAgent
from spheria.cli.common import printable, split_players
from spheria.cli.main import build_parser, main
from spheria.cli.terminal import BALL_STYLES, Terminal, wants_color
from spheria.kernel import registry as base
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView
from spheria.kernel.record import Record
from tests.conftest import SecretNumbers

Run = tuple[int, str, str]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """``run(argv, typed)``: the exit status, stdout and stderr of ``spheria argv``."""

    def runner(argv: list[str], typed: list[str] | str | Keyboard = "") -> Run:
        if isinstance(typed, Keyboard):
            monkeypatch.setattr(sys, "stdin", typed)
        else:
            text = typed if isinstance(typed, str) else "".join(line + "\n" for line in typed)
            monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return runner


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # default record files land in the test's own folder
    monkeypatch.delenv("NO_COLOR", raising=False)


def first_moves(state: spheria.State[Any], agent: Agent | None = None, seat: int = 1) -> list[str]:
    """Play the first legal move for the human seats (``agent`` plays ``seat``) to the end.

    Returns what the humans type, in order; ``state`` ends finished.
    """
    typed = []
    while not state.is_terminal():
        if agent is not None and state.current_player() == seat:
            state.apply(agent.choose(state, seat))
        else:
            move = state.legal_moves()[0]
            typed.append(str(move))
            state.apply(move)
    return typed


def mint() -> spheria.State[Any]:
    return spheria.load_game("special-cake", variant="mint").new_initial_state()


# -- information ------------------------------------------------------------------------------


def test_version(run: Any) -> None:
    assert run(["--version"]) == (0, f"spheria {spheria.__version__}\n", "")


def test_no_command_shows_help(run: Any) -> None:
    code, out, _ = run([])
    assert code == 0
    assert "play" in out and "replay" in out and "games" in out


def test_games_lists_every_game_with_its_options(run: Any) -> None:
    code, out, err = run(["games"])
    assert (code, err) == (0, "")
    for name in spheria.game_names():
        assert re.search(rf"^{re.escape(name)}  ", out, re.MULTILINE)
    assert "Special Cake, 2 players (Mint, Liquorice)" in out
    assert "--option variant=mint|sugar|poisoned; default mint" in out
    assert "--option line_rule=mixed|any|same\n" in out
    assert "colours a line may hold" in out
    assert f"a level (level:1 ... level:5, above) or an agent: {', '.join(registry.agent_names())} (" in out


def test_the_commands_take_a_games_options_through_option_alone(run: Any) -> None:
    """Generic commands name no game's option as a flag of their own: one way, ``--option K=V``."""
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    # every game's option names, but the seat count: --players names who sits in each seat, in any game
    names = {option["name"].replace("_", "-") for game in spheria.describe_games() for option in game["options"]}
    assert {"variant", "line-rule", "supply"} <= names
    for command in ("play", "arena", "analyse"):
        flags = {flag.lstrip("-") for action in commands[command]._actions for flag in action.option_strings}
        assert "option" in flags and flags & (names - {"players"}) == set(), command
    assert run(["play", "special-cake", "--variant", "sugar"])[0] == 2  # no such flag: argparse's usage error


def test_games_shows_each_games_levels_and_an_example_against_one(run: Any) -> None:
    code, out, _ = run(["games"])
    assert code == 0
    blocks = {block.split("  ", 1)[0]: " ".join(block.split()) for block in out.split("\n\n")}
    for name in spheria.game_names():
        game = spheria.load_game(name)
        if game.why_no_agents is not None:  # people only: no levels, the reason, an example of people
            assert f"people only: {' '.join(game.why_no_agents.split())}" in blocks[name]
            assert "levels" not in blocks[name]
            assert f"--players {','.join(['human'] * game.num_players)}" in blocks[name]
            continue
        shown = [f"{level_spec(e.level)} {level_words(e.level)} ({e.seconds:g} s)" for e in levels_for(game)]
        assert ", ".join(shown) in blocks[name]
        assert "--players human,level:3" in blocks[name]
    assert "level:5 strongest (5 s)" in blocks["special-cake"]  # the solver's cap, not Spline's 1 s


# -- play: a whole game -----------------------------------------------------------------------


def test_two_humans_play_to_the_end_then_the_record_replays(run: Any, tmp_path: Path) -> None:
    expected = mint()
    moves = first_moves(expected)
    typed = [
        "",  # nothing: asked again
        "help",
        "undo",  # nothing to take back yet
        "moves",
        "garbage",
        "1a1",  # not on four candies
        moves[0],
        "0a1",  # taken
        moves[1],
        "undo",
        "undo",
        moves[0],
        moves[1],
        *moves[2:],
    ]
    save = tmp_path / "game.spheria.json"
    code, out, err = run(
        ["play", "special-cake", "--option", "variant=mint", "--players", "human,human", "--save", str(save)], typed
    )
    assert (code, err) == (0, "")

    assert "Special Cake (variant=mint, line_rule=mixed)\nMint vs Liquorice\n" in out
    assert "Commands:\n  moves       list the legal moves" in out
    assert "There is no move to take back yet." in out
    assert "16 legal moves: 0a1, 0b1, 0c1, 0d1, 0a2" in out
    assert "'garbage' is not a site name" in out
    assert "1a1 cannot take a candy now (taken, or not on four candies)." in out
    assert "Type 'moves' to list the legal moves" in out  # after the second mistake in a row
    assert f"{moves[0]} cannot take a candy now" in out
    took_back = out.index(f"Took back move 2 ({moves[1]}).")
    assert out.index(f"Took back move 1 ({moves[0]}).", took_back) > took_back
    assert "Set-up: Mint places a mint (w) candy." in out
    assert out.count(f"Move 1: Mint plays {moves[0]}") == 2  # played, taken back, played again
    assert f"Move {len(moves)}: " in out
    winner = expected.game.player_names()[expected.winners()[0]]
    assert f"{winner} wins." in out
    assert f"Game over after {len(moves)} moves." in out
    assert f"Saved the record to {save}" in out

    record = Record.load(save)
    assert record.moves == expected.history_notation()
    assert record.players == ["human", "human"]
    assert record.result == expected.returns()

    code, out, err = run(["replay", str(save)])
    assert (code, err) == (0, "")
    assert "Special Cake (variant=mint, line_rule=mixed)" in out
    assert f"Move 1: Mint (human) {moves[0]}\n" in out
    assert f"Move 2: Liquorice (human) {moves[1]}\n" in out
    assert out.count("Set-up: Mint places a mint (w) candy.") == 15  # the status of each position
    assert f"Move {len(moves)}: " in out
    assert f"{winner} wins." in out
    assert "Result: Mint (human) " in out


def test_a_human_plays_an_agent_whose_moves_are_shown(run: Any) -> None:
    expected = mint()
    moves = first_moves(expected, RandomAgent(seed=3))
    code, out, err = run(["play", "special-cake", "--players", "human,random:seed=3"], moves)
    assert (code, err) == (0, "")
    assert "Mint (you) vs Liquorice (random:seed=3)" in out
    assert "thinking" not in out  # not a terminal: no transient lines
    entries = expected.history_notation()
    assert f"Move 2: Liquorice (random:seed=3) plays {entries[1]}\n" in out
    assert f"Move 1: Mint (you) plays {entries[0]}\n" in out
    assert ("You win!" if expected.winners() == [0] else "You lose.") in out

    saved = list(Path().glob("special-cake-*.spheria.json"))
    assert len(saved) == 1
    assert re.fullmatch(r"special-cake-\d{8}-\d{6}\.spheria\.json", saved[0].name)
    record = Record.load(saved[0])
    assert record.moves == entries and record.players == ["human", "random:seed=3"]
    assert record.replay().returns() == expected.returns()


@pytest.mark.parametrize("variant", ["sugar", "poisoned"])
def test_agents_alone_play_a_whole_game(run: Any, variant: str) -> None:
    code, out, err = run(
        [
            "play",
            "special-cake",
            "--option",
            f"variant={variant}",
            "--players",
            "random:seed=1,random:seed=2",
            "--seed",
            "7",
        ]
    )
    assert (code, err) == (0, "")
    state = spheria.load_game("special-cake", variant=variant).new_initial_state(seed=7)
    spheria_moves = []
    agents = [RandomAgent(seed=1), RandomAgent(seed=2)]
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(agents[seat].choose(state, seat))
        spheria_moves.append(state.history_notation()[-1])
    assert f"Move {len(spheria_moves)}: " in out
    assert out.count("level 0") == len(spheria_moves) + 1  # the start, then each position; the end once
    (saved,) = Path().glob("*.spheria.json")
    record = Record.load(saved)
    assert record.moves == spheria_moves and record.seed == 7


def test_the_seat_count_of_a_game_comes_from_players(run: Any) -> None:
    code, out, err = run(["play", "spinca", "--players", "random:seed=1,random:seed=2,random:seed=3", "--no-save"])
    assert (code, err) == (0, "")
    assert "Red (random:seed=3)" in out  # a third seat exists only with players=3
    code, _, err = run(["play", "spinca", "--option", "players=2", "--players", "random,random,random"])
    assert code == 1 and "3 seats" in err  # an explicit option wins over the count


def test_no_save_writes_nothing(run: Any) -> None:
    code, _, _ = run(["play", "special-cake", "--players", "random,random", "--no-save"])
    assert code == 0
    assert list(Path().iterdir()) == []


# -- play: leaving early ----------------------------------------------------------------------


def test_quit_offers_to_save_the_unfinished_game(run: Any, tmp_path: Path) -> None:
    save = tmp_path / "unfinished.spheria.json"
    code, out, err = run(
        ["play", "special-cake", "--players", "human,human", "--save", str(save)], ["0a1", "quit", "y"]
    )
    assert (code, err) == (1, "")  # abandoned: not a finished game
    assert f"Save the unfinished game to {save}? [y/N]" in out
    record = Record.load(save)
    assert record.moves == ["0a1"] and record.result is None
    assert record.replay().current_player() == 1


@pytest.mark.parametrize("answer", [["n"], []])
def test_quit_without_saving(run: Any, answer: list[str]) -> None:
    code, out, err = run(["play", "special-cake", "--players", "human,human"], ["0a1", "quit", *answer])
    assert (code, err) == (1, "")
    assert "Goodbye." in out
    assert list(Path().iterdir()) == []


def test_end_of_input_is_quit_with_its_save_prompt(run: Any) -> None:
    code, out, err = run(["play", "special-cake"], ["0a1", "0b"])  # then Ctrl-D at the prompt
    assert (code, err) == (1, "")
    assert "'0b' is not a site name" in out
    assert "Save the unfinished game to special-cake-" in out  # the same question as quit
    assert out.endswith("The game is left unfinished.\nGoodbye.\n")
    assert list(Path().iterdir()) == []  # the question met the end of input too: no


def test_ctrl_d_then_yes_saves_and_resume_plays_on(run: Any, tmp_path: Path) -> None:
    save = tmp_path / "later.spheria.json"
    keys: list[str | None] = ["0a1", "0b1", EOF, "y"]  # a terminal's Ctrl-D ends one read; the next prompt reads on
    code, out, err = run(["play", "special-cake", "--players", "human,human", "--save", str(save)], Keyboard(keys))
    assert (code, err) == (1, "")
    assert f"Saved the record to {save}\nContinue it with: spheria play --resume {save}\n" in out
    record = Record.load(save)
    assert record.moves == ["0a1", "0b1"] and record.result is None and record.players == ["human", "human"]

    expected = record.replay()
    rest = first_moves(expected)
    code, out, err = run(["play", "--resume", str(save)], rest)
    assert (code, err) == (0, "")
    assert f"Resumed from {save} after 2 moves." in out
    assert "Move 3: Mint plays " in out and "Move 1:" not in out
    finished = Record.load(save)  # saved back to the same file, now finished
    assert finished.moves == expected.history_notation() and finished.result == expected.returns()

    code, _, err = run(["play", "--resume", str(save)])
    assert code == 1 and "the game is already over; replay it with: spheria replay" in err


# -- play: a simultaneous game ----------------------------------------------------------------


@pytest.fixture
def secret_game(monkeypatch: pytest.MonkeyPatch) -> SecretNumbers:
    monkeypatch.setitem(base._REGISTRY, SecretNumbers.name, SecretNumbers)
    return SecretNumbers()


def test_two_humans_choose_in_secret_then_see_the_reveal(run: Any, secret_game: SecretNumbers) -> None:
    state = secret_game.new_initial_state(seed=3)
    north_card, south_card = state.cards
    assert north_card != south_card
    typed = ["2", "", "4", "3", "next", "1", "", "1", "double"]
    code, out, err = run(
        ["play", SecretNumbers.name, "--players", "human,human", "--seed", "3", "--save", "r.json"], typed
    )
    assert (code, err) == (0, "")

    north_turn, _, rest = out.partition("screen cleared")
    assert "North chooses in secret (South: look away)." in north_turn
    assert f"Your secret card: {north_card}" in north_turn
    assert f"Your secret card: {south_card}" not in north_turn
    assert "North has chosen." in rest.split("\n", 2)[1]
    south_turn, _, after = rest.partition("Move 1")
    assert "South, your turn to choose in secret: press Enter when ready." in south_turn
    assert f"Your secret card: {south_card}" in south_turn
    assert f"Your secret card: {north_card}" not in south_turn
    assert "'4' is not legal here (legal: 1, 2, 3)." in south_turn
    assert after.startswith(", revealed: North 2, South 3  ->  2/3\n")
    assert "Move 3, revealed: North 1, South 1  ->  1/1\n" in out
    record = Record.load("r.json")
    assert record.players == ["human", "human"]
    assert record.moves == ["2/3", "next", "1/1", "double"]


def test_undo_in_a_secret_round_takes_back_the_last_move(run: Any, secret_game: SecretNumbers) -> None:
    typed = ["2", "", "3", "next", "1", "", "undo", "double", "3", "", "3", "next"]
    code, out, err = run(["play", SecretNumbers.name, "--players", "human,human", "--save", "r.json"], typed)
    assert (code, err) == (0, "")
    assert "Took back move 2 (next)." in out
    assert Record.load("r.json").moves == ["2/3", "double", "3/3", "next"]


def test_a_human_and_an_agent_choose_at_once(run: Any, secret_game: SecretNumbers) -> None:
    code, out, err = run(["play", SecretNumbers.name, "--players", "human,random:seed=1"], ["1", "next", "3", "next"])
    assert (code, err) == (0, "")
    assert "screen cleared" not in out and "look away" not in out  # nobody else at the terminal
    assert re.search(r"Move 1, revealed: North \(you\) 1, South \(random:seed=1\) [123]  ->  1/[123]\n", out)
    (saved,) = Path().glob(f"{SecretNumbers.name}-*.spheria.json")
    assert Record.load(saved).replay().is_terminal()


# -- replay -----------------------------------------------------------------------------------


@pytest.fixture
def saved_game(tmp_path: Path) -> Path:
    state = mint()
    first_moves(state)
    return Record.from_state(state, ["human", "random"]).save(tmp_path / "saved.spheria.json")


def test_replay_step_waits_for_enter_and_stops_on_q(run: Any, saved_game: Path) -> None:
    code, out, err = run(["replay", str(saved_game), "--step"], ["", "", "q"])
    assert (code, err) == (0, "")
    assert out.count("[Enter: next move, b: previous move, q: stop]") == 3
    assert "Move 2: Liquorice (random)" in out and "Move 3:" not in out


def test_replay_step_stops_at_end_of_input(run: Any, saved_game: Path) -> None:
    code, out, err = run(["replay", str(saved_game), "--step"], [""])
    assert (code, err) == (0, "")
    assert "Move 1:" in out and "Move 2:" not in out


def test_a_corrupted_record_is_rejected_with_the_move_number(run: Any, saved_game: Path) -> None:
    data = json.loads(saved_game.read_text())
    data["moves"][6] = data["moves"][2]  # a candy on a taken site
    saved_game.write_text(json.dumps(data))
    code, out, err = run(["replay", str(saved_game)])
    assert code == 1
    entry = data["moves"][2]
    problem = f"{entry} cannot take a candy now (taken, or not on four candies)"
    assert err == f"spheria: error: {saved_game}: move 7 ({entry!r}): {problem}\n"
    assert "Move 6:" in out and "Move 7:" not in out  # shown up to the bad move


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
        ('{"format": "spheria-record", "version": 9}', "record version 9 is not supported"),
        ('{"format": "spheria-record", "version": 1, "game": "special-cake"}', "record has no 'options'"),
    ],
)
def test_a_malformed_record_is_one_line_of_error(run: Any, tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "bad.spheria.json"
    path.write_text(content)
    code, out, err = run(["replay", str(path)])
    assert (code, out) == (1, "")
    assert err.startswith(f"spheria: error: {path}: {problem}") and err.count("\n") == 1


def test_a_missing_record_file(run: Any) -> None:
    code, _, err = run(["replay", "nowhere.spheria.json"])
    assert (code, err) == (1, "spheria: error: nowhere.spheria.json: No such file or directory\n")


# -- bad command lines: one line, non-zero ------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["play", "chess"], 1, "unknown game 'chess' (games: "),
        (
            ["play", "special-cake", "--option", "variant=vanilla"],
            1,
            "option 'variant' must be one of mint, sugar, poisoned",
        ),
        (["play", "special-cake", "--option", "line_rule=diagonal"], 1, "option 'line_rule' must be one of mixed"),
        (["play", "special-cake", "--option", "speed=3"], 1, "special-cake has no option 'speed'"),
        (["play", "special-cake", "--option", "fast"], 1, "--option: option 'fast' must be written name=value"),
        (
            ["play", "special-cake", "--option", "variant=mint", "--option", "variant=sugar"],
            1,
            "--option variant is given twice (mint, then sugar): give it once",
        ),
        (["play", "special-cake", "--players", "human"], 1, "--players names 1 seat but Special Cake has 2"),
        (
            ["play", "special-cake", "--players", "human,deep-blue"],
            1,
            "--players: seat 2 (Liquorice): 'deep-blue' is not a player; write human or an agent: alphabeta,",
        ),
        (["play", "special-cake", "--players", "human,"], 1, "--players: seat 2 (Liquorice) is empty"),
        (["play", "special-cake", "--save", "no/such/folder/g.json"], 1, "--save: folder 'no/such/folder' does not"),
        (["play"], 1, "spheria: error: name a game to play (see 'spheria games'), or --resume FILE"),
        (["play", "special-cake", "--seed", "x"], 2, "argument --seed: invalid int value: 'x'"),
        (["play", "special-cake", "--save", "a", "--no-save"], 2, "not allowed with argument --save"),
        (["dance"], 2, "spheria: error: argument COMMAND: invalid choice: 'dance'"),
    ],
)
def test_bad_command_lines(run: Any, argv: list[str], status: int, message: str) -> None:
    code, out, err = run(argv)
    assert code == status
    assert out == ""
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_option_names_with_dashes_and_game_names_in_any_case(run: Any) -> None:
    code, out, _ = run(
        ["play", "Special_Cake", "--option", "line-rule=same", "--players", "random,random", "--no-save"]
    )
    assert code == 0
    assert "Special Cake (variant=mint, line_rule=same)" in out


def test_a_failing_agent_is_one_line_not_a_traceback(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(Agent):
        def choose(self, view: PlayerView, player: int) -> Any:
            raise RuntimeError("out of ideas")

    class Cheat(Agent):
        name = "cheat"

        def choose(self, view: PlayerView, player: int) -> Any:
            return "3a1"

    monkeypatch.setitem(registry._AGENTS, "broken", Broken)
    monkeypatch.setitem(registry._AGENTS, "cheat", Cheat)
    code, _, err = run(["play", "special-cake", "--players", "broken,random", "--no-save"])
    assert code == 1
    assert err == "spheria: error: Mint (broken) failed: RuntimeError: out of ideas\n"
    code, _, err = run(["play", "special-cake", "--players", "cheat,random", "--no-save"])
    assert code == 1
    assert err.startswith("spheria: error: Mint (cheat) failed: illegal move: seat 0 (cheat) chose 3a1")
    assert err.count("\n") == 1


def test_a_failing_agent_keeps_the_game_for_resume(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(Agent):
        def choose(self, view: PlayerView, player: int) -> Any:
            raise RuntimeError("out of ideas")

    monkeypatch.setitem(registry._AGENTS, "broken", Broken)
    code, out, err = run(["play", "special-cake", "--players", "human,broken", "--save", "g.json"], ["0a1"])
    assert code == 1 and "Liquorice (broken) failed: RuntimeError: out of ideas" in err
    assert "The game so far is saved to g.json.\nContinue it with: spheria play --resume g.json\n" in out
    assert Record.load("g.json").moves == ["0a1"]
    code, out, _ = run(["play", "--resume", "g.json", "--players", "human,random:seed=1", "--no-save"], ["quit"])
    assert code == 1 and "Mint (you) vs Liquorice (random:seed=1)" in out


def test_split_players_keeps_agent_options_together() -> None:
    assert split_players("human,random") == ["human", "random"]
    assert split_players("mcts:time=1,c=1.4,human") == ["mcts:time=1,c=1.4", "human"]
    assert split_players("random:seed=2, random:seed=3") == ["random:seed=2", "random:seed=3"]


# -- colour -----------------------------------------------------------------------------------


class Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color() -> None:
    assert wants_color(Screen(), environ={"TERM": "xterm"})
    assert not wants_color(io.StringIO(), environ={"TERM": "xterm"})
    assert not wants_color(Screen(), environ={"TERM": "xterm", "NO_COLOR": "1"})
    assert not wants_color(Screen(), environ={"TERM": "dumb"})
    assert not wants_color(Screen(), disabled=True, environ={})


def test_the_board_colours_balls_but_not_labels() -> None:
    board = Terminal(color=True).board(str(spheria.Board.from_spn("wbr............./........./..../.")))
    lines = board.splitlines()
    assert lines[0] == "  level 0       level 1     level 2   level 3"
    assert lines[-1] == "  a b c d       a b c       a b       a"  # file b is a label, not a ball
    assert f"{BALL_STYLES['w']}w\x1b[0m {BALL_STYLES['b']}b\x1b[0m {BALL_STYLES['r']}r\x1b[0m" in lines[4]
    assert re.sub(r"\x1b\[[0-9;]*m", "", board) == str(spheria.Board.from_spn("wbr............./........./..../."))


@pytest.mark.parametrize(
    ("flags", "env", "coloured"),
    [([], {}, True), (["--no-color"], {}, False), ([], {"NO_COLOR": "1"}, False)],
)
def test_play_colours_a_terminal_unless_asked_not_to(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], env: dict[str, str], coloured: bool
) -> None:
    screen = Screen()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setenv("TERM", "xterm")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["play", "special-cake", "--players", "random:seed=1,random:seed=2", "--no-save", *flags]) == 0
    out = screen.getvalue()
    assert (f"{BALL_STYLES['w']}w\x1b[0m" in out) is coloured
    assert bool(re.search(r"\x1b\[[0-9;]*m", out)) is coloured
    # On a terminal a "thinking" line shows while each agent chooses, then is wiped.
    moves = len(re.findall(r"Move \d+: ", out))
    thinking = out.count("Mint (random:seed=1) is thinking...") + out.count("Liquorice (random:seed=2) is thinking...")
    assert thinking == moves > 30
    assert "is thinking...\x1b[0m\r\x1b[K" in out if coloured else "is thinking...\r\x1b[K" in out


def test_a_move_typed_another_way_is_shown_as_recorded(run: Any) -> None:
    state = mint()
    typed = [str(state.legal_moves()[0])]
    state.apply(state.legal_moves()[0])
    while len(state.history) < 30:  # the set-up, then Mint's first eat from the full cake
        typed.append(str(state.legal_moves()[0]))
        state.apply(state.legal_moves()[0])
    texts = [str(m) for m in state.legal_moves()]
    reversed_lines = ["+".join(reversed(t.split("+"))) for t in texts if "+" in t]
    other = next(t for t in reversed_lines if t not in texts and _legal(state, t))
    entry = str(state.parse_move(other))
    state.apply(state.parse_move(other))
    rest = first_moves(state)
    code, out, _ = run(["play", "special-cake", "--players", "human,human", "--no-save"], [*typed, other, *rest])
    assert code == 0
    assert f"Move 31: Mint plays {entry}  (you typed {other}: the same result)\n" in out


def _legal(state: spheria.State[Any], text: str) -> bool:
    try:
        state.parse_move(text)
    except ValueError:
        return False
    return True


EOF = "\x04"


class Keyboard:
    """Typed lines, where ``None`` stands for Ctrl-C and ``EOF`` for Ctrl-D (which ends one read)."""

    def __init__(self, lines: list[str | None]) -> None:
        self.lines = lines

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        if line is None:
            raise KeyboardInterrupt
        return "" if line == EOF else line + "\n"


def test_ctrl_c_in_a_game_offers_to_save(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", Keyboard(["0a1", None, "yes"]))
    assert main(["play", "special-cake", "--players", "human,human", "--save", "g.json"]) == 130
    out, err = capsys.readouterr()
    assert "Save the unfinished game to g.json? [y/N]" in out and err == ""
    assert Record.load("g.json").moves == ["0a1"]

    monkeypatch.setattr(sys, "stdin", Keyboard(["0a1", None, None]))
    assert main(["play", "special-cake", "--players", "human,human", "--save", "h.json"]) == 130
    assert capsys.readouterr().err == "spheria: interrupted\n"
    assert not Path("h.json").exists()


def test_moves_with_spaces_stay_whole_in_the_listing(run: Any) -> None:
    typed = ["0a1", "moves", "quit", "n"]  # after two marbles, a turn may move one: "0a1-0b1 0c1"
    code, out, _ = run(["play", "spinca", "--players", "human,random:seed=1"], typed)
    assert code == 1
    listing = out[out.index("legal moves: ") + len("legal moves: ") :]
    lines = listing[: listing.index("White>")].strip().splitlines()
    assert len(lines) > 1 and all(line.endswith(",") for line in lines[:-1])  # breaks only after commas
    moves = " ".join(line.strip() for line in lines).split(", ")
    assert any("-" in move for move in moves)
    assert all(re.fullmatch(r"(\d[a-d]\d-\d[a-d]\d )?\d[a-d]\d", move) for move in moves)


# -- play: resign, help rules, the seat count in messages ---------------------------------------


def test_resign_ends_the_game_and_the_record_says_who(run: Any, tmp_path: Path) -> None:
    save = tmp_path / "resigned.spheria.json"
    typed = ["0a1", "resign", "n", "0b1", "resign", "yes"]
    code, out, err = run(["play", "special-cake", "--players", "human,human", "--save", str(save)], typed)
    assert (code, err) == (0, "")  # a resigned game is a finished game
    assert out.count("Liquorice, resign and lose this game? [y/N]") == 1  # "n": play goes on
    assert out.count("Mint, resign and lose this game? [y/N]") == 1
    assert "Move 2: Liquorice plays 0b1" in out and "Move 3:" not in out
    assert "Mint resigns: Liquorice wins.\n" in out and "Liquorice resigns" not in out
    record = Record.load(save)
    assert record.moves == ["0a1", "0b1"] and record.resigned == 0 and record.result is None

    code, out, err = run(["replay", str(save)])
    assert (code, err) == (0, "")
    assert out.endswith("Mint (human) resigned after 2 moves.\n")
    code, _, err = run(["play", "--resume", str(save)])
    assert code == 1 and "the game is over: Mint resigned" in err


def test_resign_against_an_agent_says_you_lose(run: Any) -> None:
    code, out, _ = run(["play", "spline", "--no-save"], ["0a1", "resign", "y"])
    assert code == 0
    assert out.endswith("White resigns: Black wins.\nYou lose.\n")
    code, out, _ = run(["play", "spinca", "--option", "players=3", "--no-save"], ["0a1", "resign", "y"])
    assert code == 0 and out.endswith("White resigns.\nYou lose.\n")


def test_help_rules_shows_how_to_play_with_pictures(run: Any) -> None:
    code, out, _ = run(["play", "special-cake", "--no-save"], ["help", "help rules", "quit"])
    assert code == 1
    assert "help rules  how to play Special Cake, with pictures" in out
    assert "resign      give up: the game ends and you lose" in out
    assert "New to Special Cake? Type 'help rules' to learn it." in out
    assert "A drop chain: eating 0a1 here" in out
    assert "        |  1a1+1c1+1b1\n        v\n" in out
    code, out, _ = run(["play", "spagyric", "--no-save"], ["help rules", "quit"])
    assert "stunned" in out and "w    :    b" in out


def test_a_game_with_three_seats_gets_three_seats_by_default(run: Any) -> None:
    code, out, _ = run(["play", "spinca", "--option", "players=3", "--no-save"], ["quit"])
    assert code == 1
    assert "White (you) vs Black (random) vs Red (random)" in out
    code, _, err = run(["play", "spinca", "--option", "players=3", "--players", "human,random"])
    assert code == 1
    assert "--players names 2 seats but Spinca has 3 (White, Black, Red); e.g. --players human,random,random" in err


def test_a_relocation_typed_as_recorded_has_no_same_as(run: Any) -> None:
    typed = ["0a1", "0d4", "0a1-0b1 0c1", "0a1-0a2 0b2", "quit"]
    code, out, _ = run(["play", "spinca", "--players", "human,human", "--no-save"], typed)
    assert code == 1
    assert "Move 3: White plays 0a1-0b1 0c1\n" in out and "you typed" not in out
    assert "Move 4: Black plays" not in out  # 0a1 was just placed by White: locked for Black
    code, out, _ = run(["play", "spinca", "--players", "human,human", "--no-save"], ["0a1", "0d4", "0a1-0a2 0b1"])
    assert "Move 3: White plays 0a1-0b1 0a2  (you typed 0a1-0a2 0b1: the same result)\n" in out


def test_a_reveal_says_what_it_decided(run: Any) -> None:
    code, out, _ = run(["play", "spagyric", "--players", "human,fixed:color=w", "--no-save"], ["r", "quit"])
    assert code == 1
    assert "Move 1, revealed: Player 1 (you) r, Player 2 (fixed:color=w) w  ->  r:w\n" in out
    assert out.count("Player 1 won the reveal (red beats white) and places the red ball.\n") == 1  # at the prompt
    code, out, _ = run(["play", "spagyric", "--players", "fixed:color=b,human", "--no-save"], ["r", "quit"])
    assert "->  b:r\nPlayer 1 won the reveal (black beats red) and places the black ball.\nMove 2: " in out
    assert out.count("won the reveal") == 1  # said once; Player 2's prompt for the next reveal follows


def test_replay_words_a_reveal(run: Any, tmp_path: Path) -> None:
    state = spheria.load_game("spagyric").new_initial_state()
    state.apply_notation("w:b")
    state.apply_notation("0a1")
    path = Record.from_state(state, ["human", "random"]).save(tmp_path / "s.spheria.json")
    code, out, _ = run(["replay", str(path)])
    assert code == 0
    assert "Move 1, revealed together: w:b\n" in out and "together w:b" not in out.replace("together: w:b", "")
    assert "Move 2: Player 1 (human) 0a1\n" in out


# -- outside text is never printed raw ----------------------------------------------------------

HOSTILE = [
    "\x1b]0;pwned\x07",  # OSC: retitle the window, ended by BEL
    "\x1b[2J\x1b[H",  # CSI: clear the screen, home the cursor
    "\x1bc",  # ESC c: reset the terminal
    "\r",  # overwrite the line
    "\x9b31m",  # C1 CSI
    "\u202e",  # right-to-left override
]
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def hostile_record(tmp_path: Path, **changes: Any) -> Path:
    state = mint()
    for _ in range(4):
        state.apply(state.legal_moves()[0])
    data = Record.from_state(state, ["human", "random"]).to_json()
    data.update(changes)
    path = tmp_path / "hostile.spheria.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("bad", HOSTILE)
def test_replay_escapes_control_characters_from_a_record(run: Any, tmp_path: Path, bad: str) -> None:
    fields = {
        "players": [f"human{bad}", f"random:seed=1{bad}"],
        "created": f"2025-01-31T12:00:00Z{bad}",
    }
    path = hostile_record(tmp_path, **fields)
    moves = Record.load(path).moves
    moves[1] = bad + moves[1]  # the game's parser skips white space such as \r: the move is legal
    data = json.loads(path.read_text())
    data["moves"] = moves if bad.isspace() else data["moves"]
    path.write_text(json.dumps(data))
    code, out, err = run(["replay", str(path)])
    assert code == 0 and err == ""
    assert not CONTROL.search(out)
    assert repr(bad)[1:-1] in out  # shown, as an escape


@pytest.mark.parametrize("bad", HOSTILE)
def test_errors_quoting_a_record_or_a_spec_are_escaped(run: Any, tmp_path: Path, bad: str) -> None:
    path = hostile_record(tmp_path, options={"variant": f"mint{bad}"})
    code, out, err = run(["replay", str(path)])
    assert not CONTROL.search(out + err)
    if not bad.isspace():  # the game reads "mint\r" as "mint"
        assert code == 1 and out == "" and err.count("\n") == 1

    code, out, err = run(["play", "special-cake", "--players", f"human,random:seed={bad}"])
    assert code == 1 and not CONTROL.search(out + err)

    path = hostile_record(tmp_path, players=["human", f"random:seed=1{bad}"])
    code, out, err = run(["play", "--resume", str(path)], ["quit"])
    assert code == 1 and not CONTROL.search(out + err)


def test_analyse_escapes_a_record_entry(run: Any, tmp_path: Path) -> None:
    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=5)
    while len(state.history) < 27:
        state.apply(state.legal_moves()[0])
    data = Record.from_state(state, ["random", "random"]).to_json()
    data["moves"][0] = "\r" + data["moves"][0]
    path = tmp_path / "a.spheria.json"
    path.write_text(json.dumps(data))
    code, out, err = run(["analyse", str(path)])
    assert code == 0 and not CONTROL.search(out + err)
    assert f"   1. {state.history[0]} " in out  # the move in Spheria's notation, not the entry's raw text


@given(st.text())
def test_printable_leaves_no_control_character_and_keeps_the_rest(text: str) -> None:
    shown = printable(text)
    assert not CONTROL.search(shown) and "\n" not in shown and "\t" not in shown
    bidi = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    if not any(unicodedata.category(c) == "Cc" or c in bidi for c in text):
        assert shown == text


def test_an_illegal_secret_choice_of_an_agent_is_reported(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    class Liar(Agent):
        name = "liar"

        def choose(self, view: PlayerView, player: int) -> Any:
            return "x"

    monkeypatch.setitem(registry._AGENTS, "liar", Liar)
    code, _, err = run(["play", "spagyric", "--players", "random:seed=1,liar", "--no-save"])
    assert code == 1 and err.startswith("spheria: error: an agent failed: illegal move: ") and "(liar) chose x" in err


# -- spheria analyse --position, spheria solve --all -----------------------------------------------

# (game, options, SPN or None for the start, --seat, the analysis' status)
ANALYSE_POSITIONS: list[tuple[str, dict[str, str], str | None, int | None, str]] = [
    ("special-cake", {"variant": "mint"}, "wbw............./........./..../. 1 eat", None, "exact"),
    ("special-cake", {"variant": "mint"}, "w.............../........./..../. 2 place", None, "exact"),  # set-up table
    ("special-cake", {"variant": "poisoned"}, "w.............../........./..../. 2 place", None, "exact"),
    (
        "special-cake",
        {"variant": "poisoned", "line_rule": "same"},
        "w.............../........./..../. 2 place",
        None,
        "estimate",
    ),
    ("spline", {}, "www.bbb........./........./..../. 1", None, "exact"),  # the prover
    ("spinca", {}, "wwwbbwbwwbwbbwbw/wwbbbbwwb/.bbw/. 1 2a2", None, "estimate"),
    ("spinca", {"players": "3"}, None, None, "estimate"),
    ("spagyric", {"supply": "1"}, None, 2, "exact"),
]


@pytest.mark.parametrize(("game", "options", "spn", "seat", "status"), ANALYSE_POSITIONS)
def test_analyse_position_json_lists_every_legal_move(
    run: Any, game: str, options: dict[str, str], spn: str | None, seat: int | None, status: str
) -> None:
    loaded = spheria.load_game(game, **options)
    state = loaded.state_from_spn(spn) if spn else loaded.new_initial_state(seed=1)
    flags = [word for key, value in options.items() for word in ("--option", f"{key}={value}")]
    argv = ["analyse", "--game", game, *flags, "--position", state.to_spn(), "--iterations", "40", "--json"]
    argv += ["--time", "60"] + ([] if seat is None else ["--seat", str(seat)])
    code, out, err = run(argv)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["game"], data["status"]) == (game, status)
    player = None if seat is None else seat - 1
    legal = state.legal_moves(player) if player is not None else state.legal_moves()
    listed = [state.parse_move(row["move"], player) for row in data["moves"]]
    assert sorted(map(str, listed)) == sorted(map(str, legal))
    assert all(row["value"] is not None or row["probability"] is not None for row in data["moves"])


def test_analyse_position_shows_the_table_and_the_best_move(run: Any) -> None:
    # Spinca, White's last placement: only relocating 2b1 to 2a1 and placing on 2b1 wins
    argv = ["analyse", "--game", "spinca", "--position", "wwwbbwbwwbwbbwbw/wwbbbbwwb/.bbw/. 1 2a2"]
    code, out, err = run([*argv, "--iterations", "300", "--time", "60", "--seed", "1", "--no-color"])
    assert code == 0 and err == ""
    assert "estimate (MCTS)" in out and "Best: 2b1-2a1 2b1" in out and "300 iterations" in out
    assert out.splitlines()[-1].endswith(" s")


def test_analyse_answers_a_spline_position_exactly_from_the_prover(run: Any) -> None:
    argv = ["analyse", "--game", "spline", "--position", "www.bbb........./........./..../. 1"]
    code, out, err = run([*argv, "--time", "60", "--no-color"])
    assert code == 0 and err == ""
    assert "exact (the prover's proof to the end)" in out and "Best: 0d1" in out and "estimate" not in out
    code, out, err = run([*argv, "--time", "60", "--json"])
    data = json.loads(out)
    assert (data["status"], data["method"], data["verdict"], data["best_moves"]) == ("exact", "prover", 1, ["0d1"])
    assert {row["move"]: row["value"] for row in data["moves"] if row["value"] == 1} == {"0d1": 1}
    assert all(row["value"] in (1, -1) for row in data["moves"])


def test_solve_all_lists_the_value_of_every_move(run: Any) -> None:
    code, out, err = run(["solve", "wbw............./........./..../. 1 eat", "--all", "--json"])
    assert code == 0
    values = {row["move"]: row["value"] for row in json.loads(out)["moves"]}
    assert values == {"0a1": -1, "0b1": -1, "0c1": -1, "0a1+0b1": 1, "0b1+0c1": 1, "0a1+0b1+0c1": -1}
    code, out, err = run(["solve", "wbw............./........./..../. 1 eat", "--all", "--no-color"])
    assert (code, err) == (0, "") and "Mint to move: wins with perfect play" in out
    assert "exact (the eating-phase solver)" in out  # the words the game's analysis gives its method
    assert re.search(r"^0a1\+0b1\s+\+1\.00\s+100%$", out, re.MULTILINE)


def test_analyse_names_a_games_own_method_in_the_language_asked(run: Any) -> None:
    argv = ["analyse", "--game", "spagyric", "--option", "supply=1", "--seat", "2", "--no-color", "--position"]
    start = spheria.load_game("spagyric", supply=1).new_initial_state(seed=1).to_spn()
    code, out, err = run([*argv, start])
    assert (code, err) == (0, "") and "exact (the Spagyric solver)" in out
    code, out, err = run(["--lang", "ko", *argv, start])
    assert (code, err) == (0, "") and "정확(스파기릭 솔버)" in out


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--game", "chess", "--position", "x"], "unknown game 'chess'"),
        (["--game", "spline", "--position", "www 1 2 3"], "--position: "),
        (["--game", "spline", "--option", "size=9", "--position", "................/........./..../. 1"], "size"),
        (["--game", "special-cake", "--option", "variant=toffee", "--position", "x"], "toffee"),
        (["--position", "................/........./..../. 1"], "--position needs --game"),
        ([], "give a RECORD, or --game GAME --position SPN"),
        (["r.json", "--game", "spline", "--position", "x"], "not both"),
        (
            [
                "--game",
                "spagyric",
                "--position",
                "................/........./..../. reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0",
            ],
            "seat",
        ),
        (["--game", "spline", "--seat", "3", "--position", "................/........./..../. 1"], "--seat"),
        (["--game", "spline", "--time", "0", "--position", "................/........./..../. 1"], "--time"),
        (["--game", "spline", "--iterations", "0", "--position", "................/........./..../. 1"], "--iter"),
        (["game.spheria.json", "--time", "-1"], "--time"),
    ],
)
def test_analyse_refuses_bad_input_with_status_2(run: Any, argv: list[str], problem: str) -> None:
    code, out, err = run(["analyse", *argv])
    assert (code, out) == (2, "")
    # A value argparse's own type refuses (seconds) is worded by argparse, with the command's name.
    assert problem in err and err.count("\n") == 1 and err.startswith(("spheria: error: ", "spheria analyse: error: "))


def test_analyse_a_spagyric_record_from_the_full_record(run: Any, tmp_path: Path) -> None:
    from spheria.agents.random_agent import RandomAgent
    from spheria.match import play

    state = spheria.load_game("spagyric", supply=1).new_initial_state(seed=3)
    play(state, [RandomAgent(seed=1), RandomAgent(seed=2)])
    path = Record.from_state(state, ["random", "random"]).save(tmp_path / "spagyric.spheria.json")
    code, out, err = run(["analyse", str(path), "--json"])
    assert (code, err) == (0, "")
    rows = json.loads(out)["moves"]
    assert [row["move"] for row in rows] == state.history_notation()
    assert {row["status"] for row in rows} == {"exact"}
    assert all((row["seat"] is None) == (":" in row["move"]) for row in rows)  # a reveal is both seats' move
    code, out, err = run(["analyse", str(path), "--no-color"])
    assert code == 0 and "Player 1's exact value" in out
