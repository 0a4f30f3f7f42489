"""`spheria play` points people at the levels (docs/agents.md, Levels): in its help and when a player is unknown."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from spheria.agents.registry import check_spec
from spheria.cli.common import HUMAN
from spheria.cli.main import main
from spheria.kernel.options import options_from_pairs
from spheria.kernel.registry import load_game


def test_play_help_names_the_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "a level (level:1 beginner ... level:5 strongest)" in help_text


def test_an_unknown_player_is_answered_with_the_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "spline", "--players", "human,deep-blue"]) == 1
    assert "or a level: level:1 (beginner) to level:5 (strongest)" in capsys.readouterr().err


def _readme_play_commands() -> list[list[str]]:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    lines = [line.split("#", 1)[0].split() for line in readme.splitlines()]
    return [words[2:] for words in lines if words[:2] == ["spheria", "play"]]


def test_the_readmes_play_commands_name_players_their_games_accept() -> None:
    commands = _readme_play_commands()
    assert any("level:" in " ".join(words) for words in commands)  # a stranger meets the levels first
    for words in commands:
        parser = argparse.ArgumentParser()
        parser.add_argument("game")
        parser.add_argument("--option", action="append", default=[])
        parser.add_argument("--players")
        args = parser.parse_args(words)
        players = args.players.split(",")
        options: dict[str, object] = dict(options_from_pairs(args.option))
        if args.game == "spinca":
            options["players"] = len(players)  # spheria play seats as many as --players names
        game = load_game(args.game, **options)
        assert len(players) == game.num_players, words
        for spec in players[1:]:
            if spec != HUMAN:  # a people-only game seats only people
                assert str(check_spec(spec, game)) == spec, words  # raises for a spec the game refuses
