"""The shipped starter set: one gzip-compressed JSON-lines file per game in ``spheria.puzzles.data``
(``<game>.jsonl.gz``), written by ``spheria puzzles build`` (:func:`write_puzzles`)."""

from __future__ import annotations

import functools
import gzip
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from spheria.i18n import gettext as _
from spheria.kernel.registry import load_game
from spheria.puzzles import messages as M
from spheria.puzzles.puzzle import Puzzle, PuzzleError

DATA_PACKAGE = "spheria.puzzles.data"


def data_path(name: str) -> Path:
    """Where the shipped puzzles of the game ``name`` are (written by ``spheria puzzles build``)."""
    return Path(str(resources.files(DATA_PACKAGE))) / f"{name}.jsonl.gz"


def read_puzzles(path: Path) -> list[Puzzle]:
    """The puzzles of a gzip-compressed JSON-lines file; :class:`PuzzleError` names a bad line."""
    puzzles = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                puzzles.append(Puzzle.loads(line))
            except PuzzleError as error:
                raise PuzzleError(_(M.BAD_LINE).format(path=path.name, line=number, error=error)) from None
    return puzzles


def write_puzzles(path: Path, puzzles: Iterable[Puzzle]) -> None:
    """Write ``puzzles`` as gzip-compressed JSON lines (no time stamp: the same puzzles, the same bytes)."""
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as packed:
        for puzzle in puzzles:
            packed.write((puzzle.dumps() + "\n").encode())


@functools.cache
def shipped_puzzles(name: str) -> tuple[Puzzle, ...]:
    """The shipped puzzles of the game ``name``; ``ValueError`` if none are shipped."""
    path = data_path(name)
    if not path.is_file():
        game = load_game(name)
        raise ValueError(_(M.NONE_SHIPPED).format(game=_(game.title), name=name))
    return tuple(read_puzzles(path))
