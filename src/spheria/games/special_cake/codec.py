"""Special Cake's action numbers and observation features (see :mod:`spheria.kernel.codec`).

792 actions. ``0..29``: place a candy on site ``a`` (set-up phase); ``30..59``: eat the single
candy on site ``a - 30``; ``60..791``: eat a line in one order, an index into
:data:`CAKE_LINE_ORDERS` (every ordering of every one of the 150 nameable lines of
``board.SEGMENTS``: 96 of 2 sites, 42 of 3, 12 of 4). Of the orders that leave the same
position only the one Spheria lists is legal. The features are the board, the phase
(placing, eating), the seat to move and the observing seat.

>>> import spheria
>>> from spheria.kernel.codec import codec_for
>>> codec = codec_for(spheria.load_game("special-cake"))
>>> codec.num_actions, codec.action_text(CAKE_LINE_BASE + CAKE_LINE_ORDERS.index((0, 16)))
(792, '0a1+1a1')
"""

from __future__ import annotations

import itertools
from typing import Any

from spheria.engine.board import NUM_SITES, SEGMENTS, SITE_NAMES
from spheria.games.special_cake.rules import CakeMove
from spheria.kernel.codec import Layout, PerfectInformationCodec
from spheria.kernel.game import IllegalMoveError, State

CAKE_PLACE_BASE = 0
CAKE_EAT_BASE = NUM_SITES
CAKE_LINE_BASE = 2 * NUM_SITES
#: Every order of eating every nameable line: action ``CAKE_LINE_BASE + i`` eats ``CAKE_LINE_ORDERS[i]``.
CAKE_LINE_ORDERS: tuple[tuple[int, ...], ...] = tuple(
    order for segment in SEGMENTS for order in itertools.permutations(segment)
)
_CAKE_LINE_INDEX: dict[tuple[int, ...], int] = {order: i for i, order in enumerate(CAKE_LINE_ORDERS)}
assert len(_CAKE_LINE_INDEX) == len(CAKE_LINE_ORDERS), "two lines share an eating order"
CAKE_ACTIONS = CAKE_LINE_BASE + len(CAKE_LINE_ORDERS)


class SpecialCakeCodec(PerfectInformationCodec):
    num_actions = CAKE_ACTIONS

    def _placing(self, state: State[Any]) -> bool:
        return str(state.phase) == "place"  # type: ignore[attr-defined]

    def action_of(self, state: State[Any], move: Any) -> int:
        sites: tuple[int, ...] = move.sites
        if len(sites) == 1:
            return (CAKE_PLACE_BASE if self._placing(state) else CAKE_EAT_BASE) + sites[0]
        return CAKE_LINE_BASE + _CAKE_LINE_INDEX[sites]

    def decode(self, state: State[Any], action: int) -> Any:
        placing = self._placing(state)
        if CAKE_PLACE_BASE <= action < CAKE_EAT_BASE:
            if not placing:
                raise IllegalMoveError(f"{self.action_text(action)}: candies are eaten now, not placed")
            return CakeMove((action - CAKE_PLACE_BASE,))
        if placing:
            raise IllegalMoveError(f"{self.action_text(action)}: the cake is still being built")
        if CAKE_EAT_BASE <= action < CAKE_LINE_BASE:
            return CakeMove((action - CAKE_EAT_BASE,))
        if CAKE_LINE_BASE <= action < CAKE_ACTIONS:
            return CakeMove(CAKE_LINE_ORDERS[action - CAKE_LINE_BASE])
        raise IllegalMoveError(f"action {action} is not 0..{CAKE_ACTIONS - 1}")

    def action_text(self, action: int) -> str:
        """Spheria's notation: the site placed on or eaten, or a line's sites in eating order."""
        if CAKE_PLACE_BASE <= action < CAKE_EAT_BASE:
            return SITE_NAMES[action - CAKE_PLACE_BASE]
        if CAKE_EAT_BASE <= action < CAKE_LINE_BASE:
            return SITE_NAMES[action - CAKE_EAT_BASE]
        if CAKE_LINE_BASE <= action < CAKE_ACTIONS:
            return "+".join(SITE_NAMES[s] for s in CAKE_LINE_ORDERS[action - CAKE_LINE_BASE])
        return f"action {action}"

    def _extra_layout(self) -> Layout:
        return (("phase", (2,)),)

    def _extra_features(self, state: State[Any]) -> list[float]:
        return [1.0, 0.0] if self._placing(state) else [0.0, 1.0]

    def max_game_length(self, start: State[Any] | None = None) -> int:
        placements = {"mint": 30, "poisoned": 29, "sugar": 0}[str(self.game.options["variant"])]
        return placements + NUM_SITES  # at most one eat per candy


__all__ = ["CAKE_ACTIONS", "CAKE_EAT_BASE", "CAKE_LINE_BASE", "CAKE_LINE_ORDERS", "CAKE_PLACE_BASE", "SpecialCakeCodec"]
