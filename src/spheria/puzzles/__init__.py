"""Puzzles: positions from played games with exactly one winning move, proved by each game's oracle.

A game offers puzzles through its kit (``GameKit.puzzles``, a :class:`PuzzleMaker`); this package
makes them (:func:`generate`), checks them (:func:`verify`), ships a starter set per game
(:func:`shipped_puzzles`) and plays a wrong move out with the oracle (:func:`refutation`).
See docs/puzzles.md.
"""

from __future__ import annotations

from spheria.puzzles.maker import PuzzleMaker, maker_for, puzzle_games
from spheria.puzzles.making import (
    check_answer,
    examine,
    from_record,
    generate,
    hint_moves,
    puzzle_state,
    refutation,
    solution_line,
    verify,
    verify_all,
)
from spheria.puzzles.puzzle import Puzzle, PuzzleError
from spheria.puzzles.shipped import data_path, read_puzzles, shipped_puzzles, write_puzzles

__all__ = [
    "Puzzle",
    "PuzzleError",
    "PuzzleMaker",
    "check_answer",
    "data_path",
    "examine",
    "from_record",
    "generate",
    "hint_moves",
    "maker_for",
    "puzzle_games",
    "puzzle_state",
    "read_puzzles",
    "refutation",
    "shipped_puzzles",
    "solution_line",
    "verify",
    "verify_all",
    "write_puzzles",
]
