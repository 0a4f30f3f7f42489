"""What a game offers to make puzzles: its *puzzle maker*, found through its kit (``GameKit.puzzles``).

The generic code of :mod:`spheria.puzzles` never names a game: it plays games with the agents
the maker names, asks the maker's oracle (an exact solver or prover) for the winning moves of
each position, and keeps the positions with exactly one. Everything that is about one game — the
oracle, which moves a player would consider, the themes a position shows — is the maker's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from spheria.i18n import gettext as _
from spheria.kernel.game import Game, State
from spheria.kernel.registry import game_classes, load_game
from spheria.puzzles import messages as M


class PuzzleMaker(Protocol):
    """A game's puzzle maker (the factory ``GameKit.puzzles`` returns a new one, with its own oracle).

    * ``options``: the game's options its puzzles are made with (as ``load_game`` takes them);
    * ``players``: agent specs whose games the generator mines, each seat drawing one (seeded);
    * ``theme_names``: each theme's name to its words for people (``N_``-marked);
    * ``wanted(state)``: whether a position reached in play may become a puzzle (its phase, its size);
    * ``budget``: the most positions its oracle may search for one position while puzzles are made
      (a count, not a time, so that the same seed makes the same puzzles on any machine);
    * ``winning_moves(state, budget)``: every move of the player to move that keeps a win, one
      per resulting position, proved by the oracle (``[]`` in a lost position), or ``None`` when the
      oracle cannot decide within ``budget`` positions searched (``None``: no limit);
    * ``plausible(state)``: the moves a player would consider (not one that loses at once);
    * ``themes(state, move)``: the names of the themes the winning ``move`` shows in ``state``.
    """

    @property
    def options(self) -> Mapping[str, Any]: ...

    @property
    def players(self) -> Sequence[str]: ...

    @property
    def theme_names(self) -> Mapping[str, str]: ...

    @property
    def budget(self) -> int: ...

    def wanted(self, state: State[Any]) -> bool: ...

    def winning_moves(self, state: State[Any], budget: int | None) -> list[Any] | None: ...

    def plausible(self, state: State[Any]) -> list[Any]: ...

    def themes(self, state: State[Any], move: Any) -> tuple[str, ...]: ...


def puzzle_games() -> list[str]:
    """The names of the games whose kit offers a puzzle maker."""
    return [cls.name for cls in game_classes() if cls.kit().puzzles is not None]


def maker_for(game: Game | str) -> PuzzleMaker:
    """A new puzzle maker of ``game`` (a loaded game or a name); ``ValueError`` if it has none."""
    if isinstance(game, str):
        game = load_game(game)
    factory = type(game).kit().puzzles
    if factory is None:
        raise ValueError(_(M.NO_PUZZLES).format(game=_(game.title)))
    maker: PuzzleMaker = factory()
    return maker


def game_of(maker: PuzzleMaker, name: str) -> Game:
    """The game ``name`` with the options its puzzles are made with."""
    return load_game(name, **maker.options)
