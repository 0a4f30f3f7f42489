"""The registry of games: every thread that asks sees every game, even while they are first loaded."""

from __future__ import annotations

import importlib
import threading
import time
from types import ModuleType, SimpleNamespace

import pytest

from spheria.kernel import registry


def test_games_asked_from_two_threads_while_they_load_are_all_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's first requests can ask for the games at once from several threads: a thread
    that asks while another is still importing the game packages waits for all of them (it once
    saw the two or three imported so far, and refused 'spline' as no game)."""
    every = registry.game_names()
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)

    def slow_import(name: str) -> ModuleType:
        module = importlib.import_module(name)
        if name.count(".") == 2:  # a game's package: it registers its game, slowly
            time.sleep(0.05)
            for exported in getattr(module, "__all__", ()):
                registry.register(getattr(module, exported))
        return module

    monkeypatch.setattr(registry, "importlib", SimpleNamespace(import_module=slow_import))
    seen: list[list[str]] = []
    threads = [threading.Thread(target=lambda: seen.append(registry.game_names())) for _ in range(3)]
    for thread in threads:
        thread.start()
        time.sleep(0.01)
    for thread in threads:
        thread.join(30)
    assert seen == [every] * 3
