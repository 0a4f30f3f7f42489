"""Levels: ``level:1`` (the weakest) to ``level:5`` (the strongest Spheria has), for every game that has them.

A level is a spec that stands for a concrete agent chosen per game in the game's own ladders: its
kit's ``levels`` (:class:`spheria.kernel.kit.Levels`, declared in the game package's ``levels.py``),
one ladder per game or per value of an option (a rule set, a seat count).
People meet the levels as words (:func:`level_words`: beginner, easy, medium, hard, strongest — in
:mod:`spheria.agents.messages`); the ladder says which agent each level is and the longest it
thinks about a move. ``level:N`` itself is :class:`spheria.agents.registry.LevelAgent`.

Every ladder is chosen by measurement with benchmarks/ladder.py (docs/agents.md, Levels): its top
is the strongest agent Spheria has for the game, and the levels below it are that agent (or a
cheaper one of its kind) playing a random move in a share of its turns (``blunder``, see
:mod:`spheria.agents.blunder`), the shares picked from screening round robins so that the levels
spread evenly in Elo between random and the top. Each game's ladder module says what it measured.

>>> import spheria
>>> [entry.level for entry in levels_for(spheria.load_game(spheria.default_game_name()))]
[1, 2, 3, 4, 5]
"""

from __future__ import annotations

from typing import Any

from spheria.agents.messages import message
from spheria.kernel.game import Game
from spheria.kernel.kit import LevelEntry
from spheria.kernel.messages import shown
from spheria.kernel.registry import game_classes

#: The levels, weakest first.
LEVEL_NUMBERS = (1, 2, 3, 4, 5)
#: The name of a level's spec (``level:3``).
LEVEL_SPEC = "level"


def ladder(*rungs: tuple[str, float]) -> tuple[LevelEntry, ...]:
    """Levels 1 to 5 from five ``(spec, seconds)`` pairs, weakest first (a game's ``levels.py``)."""
    return tuple(LevelEntry(level, spec, seconds) for level, (spec, seconds) in zip(LEVEL_NUMBERS, rungs, strict=True))


def level_words(level: int) -> str:
    """The word people see for ``level`` (``easy``); from the messages, for translation."""
    return message(f"level_{level}")


def level_key(game: Game) -> str:
    """The ladder's key of ``game`` with its options, as its kit names it (``<game>/<value>``, say).

    ``ValueError`` for a game without levels.
    """
    levels = game.kit().levels
    if levels is None:
        raise ValueError(message("level_game", game=shown(game.name)))
    return levels.key(game)


def levels_for(game: Game) -> tuple[LevelEntry, ...]:
    """Levels 1-5 of ``game`` (for a lobby or a help text); ``ValueError`` for a game without levels."""
    levels = game.kit().levels
    key = level_key(game)
    assert levels is not None  # level_key refused a game without
    table = levels.tables.get(key)
    if table is None:
        raise ValueError(message("level_game", game=shown(key)))
    return table


def all_ladders() -> dict[str, tuple[LevelEntry, ...]]:
    """Every registered game's ladders, by key (see :func:`level_key`)."""
    ladders: dict[str, tuple[LevelEntry, ...]] = {}
    for game_class in game_classes():
        levels = game_class.kit().levels
        if levels is not None:
            ladders.update(levels.tables)
    return ladders


def level_catalog() -> dict[str, list[dict[str, Any]]]:
    """Every ladder as JSON-ready data for a lobby, keyed by :func:`level_key`.

    Each level: ``{"spec": "level:3", "level": 3, "words": "medium", "agent": "mcts:time=0.1",
    "seconds": 0.1}``. A lobby offers the specs, shows the words, and may show the rest as details.
    """
    return {
        key: [
            {
                "spec": level_spec(e.level),
                "level": e.level,
                "words": level_words(e.level),
                "agent": e.spec,
                "seconds": e.seconds,
            }
            for e in levels
        ]
        for key, levels in all_ladders().items()
    }


def level_spec(level: Any) -> str:
    """``level:3``: the spec that names a level (``ValueError`` unless it is 1 to 5)."""
    return f"{LEVEL_SPEC}:{check_level(level)}"


def check_level(level: Any) -> int:
    """``level`` as a whole number from 1 to 5; ``ValueError`` naming the levels there are."""
    text = str(level).strip()
    if isinstance(level, bool) or not text.isdigit() or int(text) not in LEVEL_NUMBERS:
        raise ValueError(message("level_range", low=LEVEL_NUMBERS[0], high=LEVEL_NUMBERS[-1], value=shown(level)))
    return int(text)
