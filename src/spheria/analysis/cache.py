"""The analyses' caches, forgotten together: a game's own analysis that keeps answers or tables
across calls registers how to forget them (:func:`on_clear`); :func:`clear_cache` forgets all."""

from __future__ import annotations

from collections.abc import Callable

_forgetters: list[Callable[[], None]] = []


def on_clear(forget: Callable[[], None]) -> Callable[[], None]:
    """Have :func:`clear_cache` call ``forget``; returns it (usable as a decorator)."""
    if forget not in _forgetters:
        _forgetters.append(forget)
    return forget


def clear_cache() -> None:
    """Forget every cached analysis and every solver table an analysis keeps."""
    for forget in _forgetters:
        forget()
