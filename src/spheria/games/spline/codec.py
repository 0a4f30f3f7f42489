"""Spline's action numbers and observation features (see :mod:`spheria.kernel.codec`).

30 actions: the site. The features are the board, the seat to move and the observing seat.

>>> import spheria
>>> from spheria.kernel.codec import codec_for
>>> codec = codec_for(spheria.load_game("spline"))
>>> state = codec.game.new_initial_state()
>>> codec.legal_actions(state, 0)[:3], codec.action_text(5)
([0, 1, 2], '0b2')
"""

from __future__ import annotations

from typing import Any

from spheria.engine.board import NUM_SITES, SITE_NAMES
from spheria.games.spline.rules import MOVES
from spheria.kernel.codec import PerfectInformationCodec
from spheria.kernel.game import IllegalMoveError, State


class SplineCodec(PerfectInformationCodec):
    num_actions = NUM_SITES

    def action_of(self, state: State[Any], move: Any) -> int:
        return int(move.site)

    def decode(self, state: State[Any], action: int) -> Any:
        if not 0 <= action < NUM_SITES:
            raise IllegalMoveError(f"action {action} is not 0..{NUM_SITES - 1}")
        return MOVES[action]

    def action_text(self, action: int) -> str:
        return SITE_NAMES[action] if 0 <= action < NUM_SITES else f"action {action}"

    def max_game_length(self, start: State[Any] | None = None) -> int:
        return NUM_SITES


__all__ = ["SplineCodec"]
