"""Spheria: the games of the Shibumi system — rules engine, opponents, records and play.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_moves())
(0, 16)
"""

from spheria.engine.board import Board, BoardView
from spheria.kernel.game import (
    SIMULTANEOUS,
    TERMINAL,
    Game,
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    Seat,
    State,
)
from spheria.kernel.options import Option
from spheria.kernel.registry import describe_games, game_classes, game_names, load_game, register

__version__ = "0.1.0"

__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Board",
    "BoardView",
    "Game",
    "GameInfo",
    "IllegalMoveError",
    "InvalidMoveError",
    "MoveError",
    "Option",
    "Seat",
    "State",
    "describe_games",
    "game_classes",
    "game_names",
    "load_game",
    "register",
]
