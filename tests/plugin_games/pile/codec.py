"""Pile's actions for OpenSpiel and PettingZoo: action ``i`` takes ``i + 1`` stones."""

from __future__ import annotations

from collections.abc import Sequence

from spheria.kernel.codec import NotationCodec

from .rules import MOVES


class PileCodec(NotationCodec):
    def action_texts(self) -> Sequence[str]:
        return [str(take) for take in MOVES]

    def max_game_length(self, start: object = None) -> int:
        return int(self.game.options["stones"])
