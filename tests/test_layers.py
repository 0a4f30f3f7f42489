"""Game facts live with the games: no code outside a game's own module decides by its name.

Lookups keyed by name (registries of codecs, knowledge, agents) are fine; comparing a game's
name to pick a behaviour is not — that fact belongs in the game's metadata (``Game.info()``).
The import layers themselves are checked by ``lint-imports`` in scripts/test.
"""

from __future__ import annotations

import re
from pathlib import Path

import spheria
from spheria.kernel.registry import game_names

SOURCE = Path(spheria.__file__).parent
#: Tools built for one game, which check that they were handed that game.
ONE_GAME_TOOLS = {
    "agents/spagyric_agent.py",  # plays Spagyric only (its Plays declaration says so)
}


def name_comparisons(text: str) -> list[str]:
    names = "|".join(re.escape(name) for name in game_names())
    quoted = rf"""["'](?:{names})["']"""
    pattern = re.compile(rf"(?:[=!]==?\s*{quoted})|(?:{quoted}\s*[=!]==?)|(?:\bin\s*[(\[{{]\s*{quoted})")
    return pattern.findall(text)


def test_the_check_finds_a_comparison() -> None:
    assert name_comparisons('if game.name == "spagyric":')
    assert name_comparisons("simultaneous = name === 'spinca'")
    assert name_comparisons('if name in ("spline", "spinca"):')
    assert not name_comparisons('load_game("spline")')


def test_no_module_outside_the_games_compares_a_game_name() -> None:
    offenders = []
    for path in sorted(SOURCE.rglob("*")):
        relative = path.relative_to(SOURCE).as_posix()
        if path.suffix not in (".py", ".js") or relative.startswith("games/") or relative in ONE_GAME_TOOLS:
            continue
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith((">>>", "#", "//")) and name_comparisons(line):
                offenders.append(f"{relative}:{line_number}: {line.strip()}")
    assert offenders == []
