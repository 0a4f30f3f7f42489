"""One puzzle as a value, and its JSON form (one object per line in a puzzle file).

>>> puzzle = Puzzle("some-game", {"size": 3}, "x.o 1", ("b2",), ("quiet",), 2, "seed 7, ply 3")
>>> Puzzle.from_json(puzzle.to_json()) == puzzle
True
>>> Puzzle.from_json({"game": "some-game"})
Traceback (most recent call last):
...
spheria.puzzles.puzzle.PuzzleError: a puzzle needs the field options
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spheria.i18n import gettext as _
from spheria.puzzles import messages as M

#: The fields of a puzzle's JSON form, in the order it is written.
FIELDS = ("game", "options", "spn", "solution", "themes", "difficulty", "source")
#: The longest a text shown from a bad puzzle file may be.
MOST_SHOWN = 80


class PuzzleError(ValueError):
    """A puzzle that is not good: bad JSON, a missing or wrong field, an illegal or wrong solution."""


@dataclass(frozen=True)
class Puzzle:
    """A position with exactly one winning move, and the line that follows it.

    ``game`` and ``options`` name the game (as :func:`spheria.kernel.registry.load_game` takes
    them), ``spn`` the position in its notation, ``solution`` the moves as record entries: the
    only winning move, then the defence and the only winning answer, and so on while the answer
    stays the only one (docs/puzzles.md). ``themes`` name what the position shows (the game's
    puzzle maker's words), ``difficulty`` counts the plausible moves that lose, ``source`` says
    which played game the position comes from.
    """

    game: str
    options: Mapping[str, Any]
    spn: str
    solution: tuple[str, ...]
    themes: tuple[str, ...] = ()
    difficulty: int = 0
    source: str = ""
    options_key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", dict(self.options))
        object.__setattr__(self, "solution", tuple(self.solution))
        object.__setattr__(self, "themes", tuple(self.themes))
        object.__setattr__(self, "options_key", json.dumps(self.options, sort_keys=True))

    @property
    def id(self) -> str:
        """A short name that is the same for the same game, options and position."""
        text = f"{self.game} {self.options_key} {self.spn}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": dict(self.options),
            "spn": self.spn,
            "solution": list(self.solution),
            "themes": list(self.themes),
            "difficulty": self.difficulty,
            "source": self.source,
        }

    def dumps(self) -> str:
        """The JSON form on one line (a line of a puzzle file)."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> Puzzle:
        """A puzzle from its JSON text; :class:`PuzzleError` names what is wrong."""
        try:
            data = json.loads(text)
        except ValueError:
            raise PuzzleError(_(M.NOT_JSON).format(text=_shown(text))) from None
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: object) -> Puzzle:
        """A puzzle from its JSON form, every field checked; :class:`PuzzleError` names the first wrong one."""
        if not isinstance(data, dict):
            raise PuzzleError(_(M.NOT_AN_OBJECT).format(kind=type(data).__name__))
        unknown = sorted(str(key) for key in data if key not in FIELDS)
        if unknown:
            raise PuzzleError(_(M.UNKNOWN_FIELDS).format(fields=", ".join(_shown(key) for key in unknown)))
        for name in FIELDS:
            if name not in data:
                raise PuzzleError(_(M.MISSING_FIELD).format(field=name))
        _check(data, "game", isinstance(data["game"], str) and data["game"])
        _check(
            data, "options", isinstance(data["options"], dict) and all(isinstance(key, str) for key in data["options"])
        )
        _check(data, "spn", isinstance(data["spn"], str) and data["spn"])
        _check(data, "solution", _strings(data["solution"]) and data["solution"])
        _check(data, "themes", _strings(data["themes"]))
        difficulty = data["difficulty"]
        _check(data, "difficulty", isinstance(difficulty, int) and not isinstance(difficulty, bool) and difficulty >= 0)
        _check(data, "source", isinstance(data["source"], str))
        return cls(
            data["game"],
            data["options"],
            data["spn"],
            tuple(data["solution"]),
            tuple(data["themes"]),
            difficulty,
            data["source"],
        )


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item for item in value)


def _check(data: Mapping[str, Any], name: str, good: object) -> None:
    if not good:
        expected = _(M.EXPECTED[name])
        raise PuzzleError(_(M.BAD_FIELD).format(field=name, expected=expected, value=_shown(data[name])))


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= MOST_SHOWN else text[: MOST_SHOWN - 1] + "…"
