"""Special Cake's fast move lists: the compiled generator and the cached Python path list exactly
what the reference search (``eating_outcomes``) lists, move for move and in the same order.

The rules themselves are checked against an independent reading in
``test_special_cake_properties.py``; here the two fast paths are held to the reference, on
positions of random games of every variant and line rule.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria.games.special_cake import rules as special_cake
from spheria.games.special_cake.rules import CakeMove, CakeState, Masks, eating_moves, eating_outcomes

RULES = [(v, r) for v in ("mint", "sugar", "poisoned") for r in ("mixed", "any", "same")]


def eating_positions(variant: str, line_rule: str, seed: int) -> list[Masks]:
    """Every eating-phase position of one random game."""
    game = spheria.load_game("special-cake", variant=variant, line_rule=line_rule)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, CakeState)
    positions = []
    while not state.is_terminal():
        if state.phase == "eat":
            positions.append(state.masks())
        state.apply(rng.choice(state.legal_moves()))
    return positions


def reference(masks: Masks, variant: str, line_rule: str) -> list[tuple[CakeMove, Masks]]:
    return [(CakeMove(order), result) for result, order in eating_outcomes(masks, variant, line_rule).items()]


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32 - 1))
def test_the_python_path_lists_the_reference_moves_in_order(rules: tuple[str, str], seed: int) -> None:
    variant, line_rule = rules
    for masks in eating_positions(variant, line_rule, seed):
        fast = special_cake._python_eating_moves(masks, variant == "poisoned", line_rule)
        assert list(fast.items()) == reference(masks, variant, line_rule)


@pytest.mark.skipif(
    not special_cake.COMPILED_MOVES, reason="spheria.games.special_cake._cakemoves was not built (optional)"
)
@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32 - 1))
def test_the_compiled_generator_lists_the_reference_moves_in_order(rules: tuple[str, str], seed: int) -> None:
    variant, line_rule = rules
    for masks in eating_positions(variant, line_rule, seed):
        assert list(eating_moves(masks, variant, line_rule).items()) == reference(masks, variant, line_rule)


def test_eating_under_a_ball_lists_each_outcome_once() -> None:
    #   level 0       level 1
    # 2 b w . .
    # 1 w b . .     1 w . .
    #   a b c d       a b c
    # 1a1 rests on all four; whichever candy is eaten, it drops into the hole. Eating 0b2 or
    # 1a1 itself leaves what eating 0a1 leaves (w b / b w), so only 0a1 is listed for the three.
    state = spheria.load_game("special-cake").state_from_spn("wb..bw........../w......../..../. 2 eat")
    assert isinstance(state, CakeState)
    moves = [str(m) for m in state.legal_moves()]
    assert [m for m in moves if "+" not in m] == ["0a1", "0b1", "0a2"]
    assert state.parse_move("0b2") == state.parse_move("1a1") == state.parse_move("0a1")
    # 0a1 then 0b1 leaves the dropped w on 0a1; 0b1 then 0a1 leaves it on 0b1: two moves.
    assert {"0a1+0b1", "0b1+0a1"} <= set(moves)
    for masks in (state.masks(),):
        assert list(eating_moves(masks, "mint", "mixed").items()) == reference(masks, "mint", "mixed")


def test_invalid_masks_are_refused_by_the_compiled_generator() -> None:
    if not special_cake.COMPILED_MOVES:
        pytest.skip("spheria.games.special_cake._cakemoves was not built (optional)")
    from spheria.games.special_cake import _cakemoves

    with pytest.raises(ValueError, match="disjoint"):
        _cakemoves.eating_moves(1, 1, 0, False, 0)
    with pytest.raises(ValueError, match="rule"):
        _cakemoves.eating_moves(1, 2, 0, False, 7)
