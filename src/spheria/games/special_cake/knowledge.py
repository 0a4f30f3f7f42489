"""What the generic searches know of Special Cake: an evaluation by parity, a win test, a key.

The kit states them as :data:`KNOWLEDGE` (:class:`spheria.kernel.kit.Knowledge`).

>>> import spheria
>>> state = spheria.load_game("special-cake", variant="poisoned").new_initial_state()
>>> cake_evaluate(state, 0), cake_can_win_now(state)
(0.0, False)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from spheria.games.special_cake.rules import EAT, POISONED, CakeState, eating_outcomes
from spheria.kernel.game import State
from spheria.kernel.kit import Knowledge


def cake_evaluate(state: State[Any], seat: int) -> float:
    """Parity of the candies left, trusted more as the cake shrinks.

    If every turn ate one candy, the player to move with ``n`` candies left would eat the last
    one exactly when ``n`` is odd: bad in mint and sugar (eating the last candy loses), good in
    poisoned (there ``n`` counts the candies other than the cherry, and eating the last of
    them wins). Lines break the parity, so the signal is weak on a big cake. 0 while building.
    """
    assert isinstance(state, CakeState)
    if state.phase != EAT or state.is_terminal():
        return 0.0
    white, black, red = state.masks()
    poisoned = state.game.variant == POISONED
    n = (white | black).bit_count() if poisoned else (white | black | red).bit_count()
    good_for_mover = (n % 2 == 1) if poisoned else (n % 2 == 0)
    value = 0.5 * 6.0 / (6.0 + n)
    if not good_for_mover:
        value = -value
    return value if seat == state.player else -value


def cake_can_win_now(state: State[Any]) -> bool:
    """Only a poisoned cake can be won by one move: eat every candy but the cherry at once.

    In mint and sugar the move that ends the game eats the last candy, and loses.
    """
    assert isinstance(state, CakeState)
    if state.game.variant != POISONED or state.phase != EAT or state.is_terminal():
        return False
    outcomes = eating_outcomes(state.masks(), state.game.variant, state.game.line_rule)
    return any(not (white | black) for white, black, _ in outcomes)


def cake_key(state: State[Any]) -> Hashable:
    assert isinstance(state, CakeState)
    white, black, red = state.masks()
    return (white, black, red, state.player, state.phase)


#: What Special Cake tells the generic searches.
KNOWLEDGE = Knowledge(evaluate=cake_evaluate, key=cake_key, can_win_now=cake_can_win_now)
