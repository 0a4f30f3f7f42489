"""Spinca: its rules, and everything else that is about it."""

from spheria.games.spinca.rules import Spinca

__all__ = ["Spinca"]
