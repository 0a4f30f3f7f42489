"""Spagyric: its rules, and everything else that is about it."""

from spheria.games.spagyric.rules import Spagyric

__all__ = ["Spagyric"]
