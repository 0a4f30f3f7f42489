"""Special Cake: its rules, and everything else that is about it."""

from spheria.games.special_cake.rules import SpecialCake

__all__ = ["SpecialCake"]
