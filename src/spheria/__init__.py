"""Spheria: the games of the Shibumi system — rules engine, opponents, records and play.

>>> import spheria
>>> spheria.game_names() == sorted(spheria.game_names()) and spheria.default_game_name() in spheria.game_names()
True
>>> game = spheria.load_game(spheria.default_game_name())
>>> state = game.new_initial_state(seed=1)
>>> state.current_player(), state.legal_moves() != []
(0, True)
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
from spheria.kernel.registry import default_game_name, describe_games, game_classes, game_names, load_game, register

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
    "default_game_name",
    "describe_games",
    "game_classes",
    "game_names",
    "load_game",
    "register",
]
