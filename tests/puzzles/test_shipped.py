"""The shipped starter set: at least 1,000 puzzles per game, each re-verified by an oracle of its own.

A sample is verified in the quick loop; every puzzle under the ``slow`` marker (scripts/test runs
it; ``pytest -m "not slow"`` leaves it out).
"""

from __future__ import annotations

import random

import pytest

from spheria.puzzles import data_path, maker_for, puzzle_games, shipped_puzzles, verify, verify_all

#: The puzzles per game the starter set holds at least.
STARTER = 1000
#: The puzzles per game the quick loop re-verifies.
SAMPLE = 12


@pytest.mark.parametrize("game", puzzle_games())
def test_a_starter_set_is_shipped(game: str) -> None:
    assert data_path(game).is_file()
    puzzles = shipped_puzzles(game)
    assert len(puzzles) >= STARTER
    assert len({puzzle.id for puzzle in puzzles}) == len(puzzles)  # no position twice
    assert all(puzzle.game == game and puzzle.difficulty >= 1 and puzzle.themes for puzzle in puzzles)
    themes = {theme for puzzle in puzzles for theme in puzzle.themes}
    assert themes <= set(maker_for(game).theme_names)
    assert len(themes) >= 3  # the set shows several themes, not one kind of puzzle


@pytest.mark.parametrize("game", puzzle_games())
def test_a_sample_verifies(game: str) -> None:
    puzzles = shipped_puzzles(game)
    maker = maker_for(game)  # a new oracle: nothing the builder proved is remembered
    for puzzle in random.Random(42).sample(puzzles, SAMPLE):
        verify(puzzle, maker)


@pytest.mark.slow
@pytest.mark.parametrize("game", puzzle_games())
def test_every_shipped_puzzle_verifies(game: str) -> None:
    verify_all(shipped_puzzles(game))
