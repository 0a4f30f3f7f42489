"""Spheria: the games of the Shibumi system — rules engine, opponents, records and play.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_moves())
(0, 16)
"""

from spheria.engine.board import Board
from spheria.games.base import SIMULTANEOUS, TERMINAL, Game, IllegalMoveError, State, game_names, load_game

__version__ = "0.1.0"

__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Board",
    "Game",
    "IllegalMoveError",
    "State",
    "game_names",
    "load_game",
]
