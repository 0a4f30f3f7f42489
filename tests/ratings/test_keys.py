"""The key of a rating (spheria.ratings.keys): one per game and the options that make it, asked of the game."""

from __future__ import annotations

import itertools

import pytest

from spheria.kernel.registry import game_classes, load_game
from spheria.ratings.keys import rating_key
from tests.conftest import EVERY_GAME


def test_variants_of_a_cake_are_rated_apart() -> None:
    assert rating_key(load_game("special-cake", variant="mint")) != rating_key(
        load_game("special-cake", variant="poisoned")
    )


def test_three_and_four_seat_temples_are_rated_apart() -> None:
    assert rating_key(load_game("spinca", players=3)) != rating_key(load_game("spinca", players=4))


def test_every_game_of_the_test_list_has_a_key_of_its_own() -> None:
    """EVERY_GAME lists each game with options that make a different game of it (tests/conftest.py)."""
    keys = [rating_key(load_game(name, **options)) for name, options in EVERY_GAME]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize(
    ("name", "first", "second"),
    [
        # an option left out is the option at the default the game resolves for it
        ("special-cake", {"variant": "sugar"}, {"variant": "sugar", "line_rule": "any"}),
        ("special-cake", {}, {"variant": "mint", "line_rule": "mixed"}),
        ("spagyric", {}, {"supply": 8, "memory": True}),
        # text from a URL or a command line and the value it stands for
        ("spinca", {"players": "3"}, {"players": 3}),
        ("spagyric", {"memory": "yes"}, {"memory": True}),
        ("special-cake", {"variant": " Poisoned "}, {"variant": "poisoned"}),
    ],
)
def test_options_that_leave_the_game_the_same_leave_the_key(
    name: str, first: dict[str, object], second: dict[str, object]
) -> None:
    assert rating_key(load_game(name, **first)) == rating_key(load_game(name, **second))


@pytest.mark.parametrize(
    ("name", "first", "second"),
    [
        ("special-cake", {"variant": "mint"}, {"variant": "mint", "line_rule": "same"}),
        ("spagyric", {}, {"supply": 3}),
        ("spagyric", {}, {"memory": False}),  # a view listing every reveal is another game for a person
        ("spinca", {}, {"players": 3}),
    ],
)
def test_options_that_change_the_game_change_the_key(
    name: str, first: dict[str, object], second: dict[str, object]
) -> None:
    assert rating_key(load_game(name, **first)) != rating_key(load_game(name, **second))


def test_keys_name_the_game_and_no_two_games_share_one() -> None:
    defaults = {cls.name: rating_key(cls()) for cls in game_classes()}
    for name, key in defaults.items():
        assert key == name or key.startswith(f"{name}/")
    for (_, one), (_, other) in itertools.combinations(defaults.items(), 2):
        assert one != other
    assert rating_key(load_game("spinca", players=4)) == "spinca/players=4"
