"""Pile: a throwaway sixth game, a package like every game's, that the tests drop into
:mod:`spheria.games` to show that a new game is one package and nothing else (docs/architecture.md,
"Adding a game"). Each turn takes one or two stones from a pile; whoever takes the last one wins.
"""

from .rules import Pile

__all__ = ["Pile"]
