"""The puzzle value and its JSON form: a round trip, and a clear error for each kind of bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from spheria.puzzles import Puzzle, PuzzleError, read_puzzles, write_puzzles

GOOD = {
    "game": "special-cake",
    "options": {"variant": "mint", "line_rule": "mixed"},
    "spn": "wb..bw........../w......../..../. 1 eat",
    "solution": ["0a1"],
    "themes": ["drop"],
    "difficulty": 2,
    "source": "hand-worked",
}


def test_json_round_trip() -> None:
    puzzle = Puzzle.from_json(GOOD)
    assert puzzle.to_json() == GOOD
    assert Puzzle.loads(puzzle.dumps()) == puzzle
    assert json.loads(puzzle.dumps()) == GOOD
    assert puzzle.solution == ("0a1",) and puzzle.themes == ("drop",)


def test_id_names_the_position_and_options() -> None:
    puzzle = Puzzle.from_json(GOOD)
    assert len(puzzle.id) == 12
    assert Puzzle.from_json({**GOOD, "difficulty": 5}).id == puzzle.id
    assert Puzzle.from_json({**GOOD, "options": {"variant": "poisoned"}}).id != puzzle.id
    assert Puzzle.from_json({**GOOD, "spn": "wb..bw........../w......../..../. 2 eat"}).id != puzzle.id


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "a puzzle must be a JSON object, not '{not json'"),
        ("[1, 2]", "a puzzle must be a JSON object, not list"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "spn"}), "a puzzle needs the field spn"),
        (json.dumps({**GOOD, "rating": 1500}), "a puzzle has no field 'rating'"),
        (json.dumps({**GOOD, "game": 3}), "a puzzle's game must be a game's name, not 3"),
        (json.dumps({**GOOD, "solution": []}), "a puzzle's solution must be a list of moves, at least one, not []"),
        (json.dumps({**GOOD, "solution": ["0a1", 5]}), "a puzzle's solution must be a list of moves"),
        (json.dumps({**GOOD, "themes": "drop"}), "a puzzle's themes must be a list of theme names, not 'drop'"),
        (json.dumps({**GOOD, "difficulty": -1}), "a puzzle's difficulty must be a count (0 or more), not -1"),
        (json.dumps({**GOOD, "difficulty": True}), "a puzzle's difficulty must be a count (0 or more), not true"),
        (
            json.dumps({**GOOD, "options": {"1": 2, "x": []}, "source": None}),
            "a puzzle's source must be text, not null",
        ),
        (json.dumps({**GOOD, "options": []}), "a puzzle's options must be an object of option values, not []"),
    ],
)
def test_bad_json_is_named(text: str, words: str) -> None:
    with pytest.raises(PuzzleError) as caught:
        Puzzle.loads(text)
    assert words in str(caught.value)


def test_a_long_bad_text_is_cut() -> None:
    with pytest.raises(PuzzleError) as caught:
        Puzzle.loads("x" * 10_000)
    assert len(str(caught.value)) < 200


def test_file_round_trip_and_a_bad_line_named(tmp_path: Path) -> None:
    puzzles = [Puzzle.from_json(GOOD), Puzzle.from_json({**GOOD, "difficulty": 7})]
    path = tmp_path / "p.jsonl.gz"
    write_puzzles(path, puzzles)
    first = path.read_bytes()
    write_puzzles(path, puzzles)
    assert path.read_bytes() == first  # no time stamp: the same puzzles, the same bytes
    assert read_puzzles(path) == puzzles
    with gzip.open(path, "at", encoding="utf-8") as lines:
        lines.write('{"game": "spline"}\n')
    with pytest.raises(PuzzleError, match=r"p.jsonl.gz, line 3: a puzzle needs the field options"):
        read_puzzles(path)
