"""Spline: its rules, and everything else that is about it."""

from spheria.games.spline.rules import Spline

__all__ = ["Spline"]
