"""The level agents' first ratings (spheria.ratings.levels), from what the ladders measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spheria.agents.levels import LEVEL_NUMBERS, level_spec
from spheria.kernel.registry import game_classes, load_game
from spheria.ratings.glicko2 import NEW
from spheria.ratings.keys import rating_key
from spheria.ratings.levels import LEVEL_DEVIATION, RANDOM_RATING, level_seed, level_seeds, measured_elo

AGENTS_MD = Path(__file__).parents[2] / "docs" / "agents.md"
#: The rows of docs/agents.md's "Where each game stands" and the game each measured.
DOCUMENTED: dict[str, tuple[str, dict[str, Any]]] = {
    "Special Cake sugar": ("special-cake", {"variant": "sugar"}),
    "Special Cake mint": ("special-cake", {"variant": "mint"}),
    "Special Cake poisoned": ("special-cake", {"variant": "poisoned"}),
    "Spline": ("spline", {}),
    "Spinca, 2 seats": ("spinca", {"players": 2}),
    "Spinca, 3 seats": ("spinca", {"players": 3}),
    "Spinca, 4 seats (one level a team)": ("spinca", {"players": 4}),
    "Spagyric": ("spagyric", {}),
}


def documented_elo() -> dict[str, tuple[float, ...]]:
    """The levels' Elo by row of the table of measured ladders in docs/agents.md."""
    lines = AGENTS_MD.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| game | games rated | levels 1 to 5 (Elo) |"))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = tuple(float(value) for value in cells[2].split(","))
    return rows


def test_the_kits_hold_the_ladders_documented() -> None:
    """One truth: what the kits say the ladders measured is docs/agents.md's table, every row."""
    documented = documented_elo()
    assert set(documented) == set(DOCUMENTED)
    for row, (name, options) in DOCUMENTED.items():
        assert measured_elo(load_game(name, **options)) == documented[row], row


@pytest.mark.parametrize(("name", "options"), list(DOCUMENTED.values()))
def test_a_measured_level_starts_where_the_ladder_put_it(name: str, options: dict[str, object]) -> None:
    game = load_game(name, **options)
    elo = measured_elo(game)
    assert elo is not None
    seeds = level_seeds(game)
    assert list(seeds) == [level_spec(level) for level in LEVEL_NUMBERS]
    ratings = [seeds[level_spec(level)].rating for level in LEVEL_NUMBERS]
    assert ratings == [RANDOM_RATING + value for value in elo]
    assert ratings == sorted(ratings) and ratings[0] > RANDOM_RATING
    for level in LEVEL_NUMBERS:
        seed = level_seed(game, level)
        assert (seed.deviation, seed.games, seed.last_played) == (LEVEL_DEVIATION, 0, None)
        assert not seed.provisional


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("special-cake", {"variant": "mint", "line_rule": "same"}),  # the ladder played mixed lines
        ("spagyric", {"supply": 3}),
        ("spagyric", {"memory": False}),
    ],
)
def test_a_level_never_measured_in_a_game_starts_as_a_newcomer(name: str, options: dict[str, object]) -> None:
    game = load_game(name, **options)
    assert measured_elo(game) is None
    assert set(level_seeds(game).values()) == {NEW}
    assert NEW.provisional


def test_every_measurement_names_a_game_of_its_kit() -> None:
    """Each kit's measurements are of distinct games of its own (no two share a rating key)."""
    for cls in game_classes():
        keys = [rating_key(cls(**measured.options)) for measured in cls.kit().measured_levels]
        assert len(keys) == len(set(keys)), cls.name
        for measured in cls.kit().measured_levels:
            assert len(measured.elo) == len(LEVEL_NUMBERS)


def test_a_level_is_1_to_5() -> None:
    with pytest.raises(ValueError, match="level"):
        level_seed(load_game("spline"), 6)
