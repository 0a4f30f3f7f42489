"""The registry of games: every package under :mod:`spheria.games` registers its game class.

Generic code finds games here, by name or as a list; it never imports a game's package.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import threading
from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel import messages
from spheria.kernel.game import Game

#: The package whose sub-packages are the built-in games.
GAMES_PACKAGE = "spheria.games"
#: The environment variable naming folders of more game packages (``os.pathsep`` between them).
GAME_PATH = "SPHERIA_GAME_PATH"

_REGISTRY: dict[str, type[Game]] = {}


def register(game_class: type[Game]) -> type[Game]:
    """Class decorator: make a game loadable by its name, listed by :func:`game_classes`.

    Raises ``ValueError`` if the class lacks a fact every game declares, or its name is taken
    by another class.
    """
    for fact in ("name", "title"):
        if not isinstance(getattr(game_class, fact, None), str) or not getattr(game_class, fact):
            raise ValueError(f"{game_class.__name__} must declare its {fact} as a class attribute")
    if not 1 <= game_class.min_players <= game_class.max_players:
        raise ValueError(f"{game_class.name}: seat range {game_class.min_players}..{game_class.max_players} is empty")
    taken = _REGISTRY.get(game_class.name)
    if taken is not None and taken.__qualname__ != game_class.__qualname__:
        raise ValueError(f"game name {game_class.name!r} is taken by {taken.__qualname__}")
    _REGISTRY[game_class.name] = game_class
    return game_class


def default_game_name() -> str:
    """The game Spheria offers first: the featured one (``Game.featured``), else the first by name.

    >>> load_game(default_game_name()).featured
    True
    """
    classes = game_classes()
    return next((cls.name for cls in classes if cls.featured), classes[0].name)


def game_names() -> list[str]:
    """The names of every registered game, sorted."""
    _load_builtin_games()
    return sorted(_REGISTRY)


def game_classes() -> list[type[Game]]:
    """Every registered game class, sorted by name."""
    _load_builtin_games()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def game_class(name: str) -> type[Game]:
    _load_builtin_games()
    try:
        return _REGISTRY[name]
    except KeyError:
        names = ", ".join(sorted(_REGISTRY))
        raise ValueError(_(messages.UNKNOWN_GAME).format(name=name, games=names)) from None


def describe_games() -> list[dict[str, Any]]:
    """:meth:`Game.describe` of every registered game with its default options, sorted by name."""
    return [cls().describe() for cls in game_classes()]


def load_game(name: str, **options: Any) -> Game:
    """The game called ``name`` with ``options``; raises ``ValueError`` for an unknown name or option.

    >>> load_game(default_game_name()).name == default_game_name()
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"a game name is text such as {default_game_name()!r}, not {name!r}")
    return game_class(name)(**options)


def _load_builtin_games() -> None:
    """Import every package of :data:`GAMES_PACKAGE` once: each registers its game.

    A new game is one package there with a ``@register`` class; nothing else lists it. Folders
    named in the environment variable :data:`GAME_PATH` (separated like ``PATH``) hold more game
    packages, found as if they sat beside the built-in ones (and so by every worker process the
    server starts). The packages are found by name, so the kernel never imports a game (the
    layers forbid it).
    """
    global _BUILTINS_LOADED, _LOADING
    if _BUILTINS_LOADED:
        return
    with _LOAD_LOCK:  # another thread asking meanwhile waits for every game, never sees a part of them
        if _BUILTINS_LOADED or _LOADING:
            return  # loaded meanwhile, or a game's package asking while it is imported
        _LOADING = True
        try:
            namespace = importlib.import_module(GAMES_PACKAGE)
            for folder in os.environ.get(GAME_PATH, "").split(os.pathsep):
                if folder and folder not in namespace.__path__:
                    namespace.__path__.append(folder)
            for module in pkgutil.iter_modules(namespace.__path__):
                if module.ispkg and not module.name.startswith("_"):
                    importlib.import_module(f"{GAMES_PACKAGE}.{module.name}")
        finally:
            _LOADING = False
        _BUILTINS_LOADED = True


_BUILTINS_LOADED = False
_LOADING = False
_LOAD_LOCK = threading.RLock()
