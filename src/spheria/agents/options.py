"""Checks for agent options given in spec strings, with errors that name the option."""

from __future__ import annotations

from typing import Any


def check_seed(agent: str, seed: object) -> int | None:
    """``seed`` if it is a whole number or ``None``; otherwise ``ValueError`` naming it."""
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool)):
        return seed
    raise ValueError(f"{agent} option seed must be a whole number, not {seed!r}")


def check_positive(agent: str, name: str, value: object, kind: type[int] | type[float]) -> Any:
    """``value`` as ``kind`` if it is a number above 0; otherwise ``ValueError`` naming it.

    >>> check_positive("mcts", "time", 2, float)
    2.0
    >>> check_positive("mcts", "iterations", "lots", int)
    Traceback (most recent call last):
    ...
    ValueError: mcts option iterations must be a whole number, not 'lots'
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and not isinstance(value, int)):
        what = "a whole number" if kind is int else "a number"
        raise ValueError(f"{agent} option {name} must be {what}, not {value!r}")
    if value <= 0:
        raise ValueError(f"{agent} option {name} must be more than 0, not {value!r}")
    return kind(value)


def check_flag(agent: str, name: str, value: object) -> bool:
    """``value`` as a yes/no: 1, 0, true, false, yes, no, on, off."""
    if isinstance(value, bool | int) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "yes", "on"):
        return True
    if text in ("false", "no", "off"):
        return False
    raise ValueError(f"{agent} option {name} must be 1 or 0, not {value!r}")
