"""`spheria play` points people at the levels (docs/agents.md, Levels): in its help and when a player is unknown."""

from __future__ import annotations

import pytest

from spheria.cli.main import main


def test_play_help_names_the_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "a level (level:1 beginner ... level:5 strongest)" in help_text


def test_an_unknown_player_is_answered_with_the_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "spline", "--players", "human,deep-blue"]) == 1
    assert "or a level: level:1 (beginner) to level:5 (strongest)" in capsys.readouterr().err
