"""Spinca's action numbers and observation features (see :mod:`spheria.kernel.codec`).

3973 actions: ``relocation * 29 + placement``. ``relocation`` is 0 for none, else ``1 +`` the
index into :data:`SPINCA_RELOCATIONS` (the 136 ``(from, to)`` pairs of neighbouring temple
sites on one level); ``placement`` is the site ``0..28``. The features are the board, the
locked sites, the seat to move and the observing seat.

>>> import spheria
>>> from spheria.kernel.codec import codec_for
>>> codec = codec_for(spheria.load_game("spinca"))
>>> codec.num_actions, codec.action_text(28), codec.action_text(29 + 5)
(3973, '2b2', '0a1-0b1 0b2')
"""

from __future__ import annotations

from typing import Any

from spheria.engine.board import ADJACENT, NUM_SITES, SITE_NAMES, TOP, iter_sites
from spheria.games.spinca.rules import SpincaMove
from spheria.kernel.codec import Layout, PerfectInformationCodec
from spheria.kernel.game import IllegalMoveError, State

SPINCA_SITES = TOP  # placements and relocations use the 29 temple sites 0..28
#: Every relocation ``(from, to)``: neighbouring temple sites of one level, by source then target.
SPINCA_RELOCATIONS: tuple[tuple[int, int], ...] = tuple(
    (source, target) for source in range(SPINCA_SITES) for target in iter_sites(ADJACENT[source]) if target < TOP
)
_SPINCA_RELOCATION_INDEX = {pair: i + 1 for i, pair in enumerate(SPINCA_RELOCATIONS)}
SPINCA_ACTIONS = (len(SPINCA_RELOCATIONS) + 1) * SPINCA_SITES


class SpincaCodec(PerfectInformationCodec):
    num_actions = SPINCA_ACTIONS

    def action_of(self, state: State[Any], move: Any) -> int:
        relocation = 0 if move.source is None else _SPINCA_RELOCATION_INDEX[(move.source, move.target)]
        return relocation * SPINCA_SITES + int(move.place)

    def decode(self, state: State[Any], action: int) -> Any:
        if not 0 <= action < SPINCA_ACTIONS:
            raise IllegalMoveError(f"action {action} is not 0..{SPINCA_ACTIONS - 1}")
        relocation, place = divmod(action, SPINCA_SITES)
        if relocation == 0:
            return SpincaMove(place)
        source, target = SPINCA_RELOCATIONS[relocation - 1]
        return SpincaMove(place, source, target)

    def action_text(self, action: int) -> str:
        if not 0 <= action < SPINCA_ACTIONS:
            return f"action {action}"
        relocation, place = divmod(action, SPINCA_SITES)
        if relocation == 0:
            return SITE_NAMES[place]
        source, target = SPINCA_RELOCATIONS[relocation - 1]
        return f"{SITE_NAMES[source]}-{SITE_NAMES[target]} {SITE_NAMES[place]}"

    def _extra_layout(self) -> Layout:
        return (("locked", (NUM_SITES,)),)

    def _extra_features(self, state: State[Any]) -> list[float]:
        locked: int = state.locked  # type: ignore[attr-defined]
        return [float(locked >> site & 1) for site in range(NUM_SITES)]

    def max_game_length(self, start: State[Any] | None = None) -> int:
        return SPINCA_SITES  # one placement a turn, 29 placements


__all__ = ["SPINCA_ACTIONS", "SPINCA_RELOCATIONS", "SPINCA_SITES", "SpincaCodec"]
