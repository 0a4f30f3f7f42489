"""The exact solver of Special Cake's eating phase, checked against the Python rules engine."""

from __future__ import annotations

import random
from functools import cache

import pytest

import spheria
from spheria.engine.board import ALL_SITES, LEVEL_SIZES, NUM_SITES, SEGMENTS, SITE_COORDS, TOP, parse_site
from spheria.games.special_cake.rules import CakeMove, CakeState, Masks, eating_outcomes
from spheria.games.special_cake.solver import (
    SYMMETRIES,
    compiled_outcomes,
    position_value,
    solve,
    solve_spn,
    transform,
)

VARIANT_RULES = [
    ("mint", "mixed"),
    ("mint", "any"),
    ("mint", "same"),
    ("poisoned", "mixed"),
    ("poisoned", "any"),
    ("poisoned", "same"),
    ("sugar", "any"),
    ("sugar", "mixed"),
    ("sugar", "same"),
]


def cake(variant: str, line_rule: str, seed: int) -> CakeState:
    """A full cake: random set-up play in mint and poisoned, the seeded random cake in sugar."""
    game = spheria.load_game("special-cake", variant=variant, line_rule=line_rule)
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, CakeState)
    rng = random.Random(seed)
    while state.phase != "eat":
        state.apply(rng.choice(state.legal_moves()))
    return state


def playout_positions(variant: str, line_rule: str, seed: int, stop_at: int = 0) -> list[CakeState]:
    """Every position of a random eating playout from a random cake, down to ``stop_at`` candies."""
    state = cake(variant, line_rule, seed)
    rng = random.Random(seed * 7919 + 1)
    seen = [state.clone()]
    while not state.is_terminal() and state.board.count() > stop_at:
        state.apply(rng.choice(state.legal_moves()))
        seen.append(state.clone())
    return seen


def reference_value(masks: Masks, variant: str, line_rule: str) -> int:
    """A plain memoised negamax over the Python engine: +1 if the player to move wins."""

    @cache
    def value(position: Masks) -> int:
        occupied = position[0] | position[1] | position[2]
        if variant == "poisoned":
            if occupied == position[2]:
                return -1  # the cherry alone: the player to move must eat it
        elif occupied == 0:
            return 1  # the opponent ate the last candy
        return 1 if any(value(child) < 0 for child in eating_outcomes(position, variant, line_rule)) else -1

    return value(masks)


def small_positions(variant: str, line_rule: str, count: int, most: int) -> list[Masks]:
    """Positions with at most ``most`` candies reached by random playouts from random cakes."""
    found: list[Masks] = []
    seed = 0
    while len(found) < count:
        seed += 1
        for state in playout_positions(variant, line_rule, seed):
            if state.board.count() <= most and not state.is_terminal():
                found.append(state.masks())
                break
    return found


# -- (1) the compiled move generation and values agree with the Python engine ------------------


@pytest.mark.parametrize(("variant", "line_rule"), VARIANT_RULES)
def test_compiled_moves_match_the_engine_along_playouts(variant: str, line_rule: str) -> None:
    positions = 0
    for seed in range(1, 5):
        for state in playout_positions(variant, line_rule, seed):
            if state.is_terminal():
                continue
            masks = state.masks()
            assert compiled_outcomes(masks, variant, line_rule) == set(eating_outcomes(masks, variant, line_rule))
            positions += 1
    assert positions > 20


@pytest.mark.parametrize(("variant", "line_rule"), VARIANT_RULES)
def test_values_match_a_plain_negamax_on_small_positions(variant: str, line_rule: str) -> None:
    wins = losses = 0
    for masks in small_positions(variant, line_rule, count=25, most=10):
        expected = reference_value(masks, variant, line_rule)
        assert position_value(masks, variant, line_rule) == expected, masks
        wins += expected > 0
        losses += expected < 0
    assert wins and losses  # both outcomes were exercised


@pytest.mark.compiled_speed  # the plain reference negamax dominates, on either backend
def test_values_match_a_plain_negamax_on_twelve_candies() -> None:
    for variant, line_rule in (("mint", "mixed"), ("poisoned", "mixed"), ("sugar", "any")):
        for masks in small_positions(variant, line_rule, count=6, most=12):
            assert position_value(masks, variant, line_rule) == reference_value(masks, variant, line_rule), masks


def test_a_tiny_table_forces_replacement_and_changes_no_value() -> None:
    positions = small_positions("mint", "mixed", count=4, most=16)
    values = [position_value(masks, "mint", "mixed") for masks in positions]
    assert [position_value(masks, "mint", "mixed", table_bits=12) for masks in positions] == values


# -- (2) endgames worked out by hand -----------------------------------------------------------


def moves(result_moves: list[CakeMove]) -> set[str]:
    return {str(m) for m in result_moves}


def test_one_candy_left_loses() -> None:
    # The mover must eat the last candy; then the opponent faces an empty cake and has won.
    result = solve_spn("mint", "w.............../........./..../. 1 eat")
    assert result.value == -1
    assert moves(result.best_moves) == {"0a1"}  # lost: every legal move is listed


def test_two_separate_candies_win() -> None:
    # 0a1 and 0c1 do not touch, so no line: the mover eats one, the opponent must eat the last.
    result = solve_spn("mint", "w.b............./........./..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1", "0c1"}


def test_two_touching_candies_win_by_a_single_not_by_the_line() -> None:
    # Eating the line 0a1+0b1 empties the cake and hands the win to the opponent; a single wins.
    result = solve_spn("mint", "wb............../........./..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1", "0b1"}


def test_three_in_a_row_win_only_by_a_two_candy_line() -> None:
    # w b w on 0a1 0b1 0c1, lines mixed. One candy left loses for the mover; two left win.
    # Singles leave two candies (a win for the opponent); the whole line leaves none (the
    # opponent has won); the two-candy lines 0a1+0b1 and 0b1+0c1 leave one: those win.
    result = solve_spn("mint", "wbw............./........./..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1+0b1", "0b1+0c1"}


def test_same_colour_lines_are_not_mixed_lines() -> None:
    # w w w with lines mixed: no line at all. Each single leaves two candies: a win for the
    # opponent, so the mover loses. With any colours allowed, 0a1+0b1 leaves one candy and wins.
    assert solve_spn("mint", "www............./........./..../. 1 eat").value == -1
    game = spheria.load_game("special-cake", variant="mint", line_rule="any")
    result = solve_spn(game, "www............./........./..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1+0b1", "0b1+0c1"}


def test_a_line_with_a_drop_is_the_only_win() -> None:
    # White on 0a1 0b1 0a2 0b2, black on 1a1 above them; lines mixed, so every line holds 1a1:
    # the four rising pairs 0x+1a1. Eating 1a1 alone leaves four whites: the opponent eats one
    # and we face three whites with no mixed line, so we would lose. Eating a white alone drops
    # the black into its site; the opponent then eats that black and again we face three whites.
    # A pair 0x+1a1 (in either order: 1a1 first, or 0x first and then the black that dropped
    # into 0x) leaves three whites to the opponent: only singles, each leaving two: we win.
    result = solve_spn("mint", "ww..ww........../b......../..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1+1a1", "0b1+1a1", "0a2+1a1", "0b2+1a1"}
    # the order in which a line is eaten does not make another move
    state = spheria.load_game("special-cake").state_from_spn("ww..ww........../b......../..../. 1 eat")
    assert state.parse_move("1a1+0b2") == CakeMove((parse_site("0b2"), parse_site("1a1")))


def test_poisoned_cherry_and_one_candy() -> None:
    # The mover eats the white; the opponent must then eat the cherry and loses.
    result = solve_spn("poisoned", "wr............../........./..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1"}


def test_poisoned_only_the_line_wins() -> None:
    # White 0a1, black 0b1, cherry 0c1. A single leaves one candy and the cherry: the opponent
    # eats it and we must eat the cherry. The line 0a1+0b1 leaves the cherry to the opponent.
    # 0b1+0c1 is no line: the cherry is never part of one.
    result = solve_spn("poisoned", "wbr............./........./..../. 1 eat")
    assert result.value == 1
    assert moves(result.best_moves) == {"0a1+0b1"}


def test_poisoned_cherry_alone_is_lost_and_over() -> None:
    result = solve_spn("poisoned", "r.............../........./..../. 2 eat")
    assert result.value == -1
    assert result.best_moves == []
    assert solve_spn("mint", "................/........./..../. 2 eat").value == 1


# -- (3) best moves are exactly the moves whose child is lost for the opponent ------------------


@pytest.mark.compiled_speed  # every child of 16-candy positions solved afresh: minutes in pure Python
@pytest.mark.parametrize(("variant", "line_rule"), [("mint", "mixed"), ("poisoned", "mixed"), ("sugar", "same")])
def test_best_moves_are_the_moves_to_lost_children(variant: str, line_rule: str) -> None:
    checked_wins = 0
    for seed in range(1, 9):
        states = playout_positions(variant, line_rule, seed, stop_at=14)
        state = next(s for s in states if s.board.count() <= 16)
        result = solve(state)
        child_values = {}
        for move in state.legal_moves():
            child = state.child(move)
            assert isinstance(child, CakeState)
            child_values[move] = solve(child).value
        winning = [m for m in state.legal_moves() if child_values[m] < 0]
        assert result.value == (1 if winning else -1)
        assert result.best_moves == (winning if winning else state.legal_moves())
        checked_wins += bool(winning)
    assert checked_wins >= 2


@pytest.mark.compiled_speed  # 15-candy positions solved twice: minutes in pure Python
def test_stop_at_first_gives_one_of_the_winning_moves() -> None:
    for seed in range(1, 6):
        state = playout_positions("mint", "mixed", seed, stop_at=15)[-1]
        full = solve(state)
        first = solve(state, stop_at_first=True)
        assert first.value == full.value
        if full.value > 0:
            assert len(first.best_moves) == 1 and first.best_moves[0] in full.best_moves
        else:
            assert first.best_moves == full.best_moves == state.legal_moves()


def test_full_sugar_cake_is_solved_with_its_winning_moves() -> None:
    state = cake("sugar", "any", 1)
    result = solve(state)
    assert result.value == 1  # every sugar cake: lines of any colours, so only the shape matters
    assert result.best_moves and set(result.best_moves) <= set(state.legal_moves())
    for move in result.best_moves:
        child = state.child(move)
        assert isinstance(child, CakeState)
        assert position_value(child.masks(), "sugar", "any") == -1
    # measured (docs/solver.md): the winning moves are exactly those that leave the cake without its apex
    outcomes = eating_outcomes(state.masks(), "sugar", "any")
    apex_gone = [CakeMove(order) for child, order in outcomes.items() if sum(child) == ALL_SITES & ~(1 << TOP)]
    assert result.best_moves == apex_gone


# -- (4) symmetric positions have the same value -------------------------------------------------


def test_symmetries_map_the_pyramid_and_its_lines_onto_themselves() -> None:
    segments = {frozenset(seg) for seg in SEGMENTS}
    assert SYMMETRIES[0] == tuple(range(NUM_SITES))
    assert len(set(SYMMETRIES)) == 8
    for perm in SYMMETRIES:
        assert sorted(perm) == list(range(NUM_SITES))
        assert all(SITE_COORDS[perm[s]][0] == SITE_COORDS[s][0] for s in range(NUM_SITES))
        assert {frozenset(perm[s] for s in seg) for seg in segments} == segments
    # a quarter turn of the bottom level: 0a1 (row 0, col 0) goes to row 0, col 3
    assert SITE_COORDS[SYMMETRIES[1][0]] == (0, 0, LEVEL_SIZES[0] - 1)


@pytest.mark.parametrize(("variant", "line_rule"), [("mint", "mixed"), ("poisoned", "mixed"), ("sugar", "same")])
def test_symmetric_positions_have_the_same_value(variant: str, line_rule: str) -> None:
    for masks in small_positions(variant, line_rule, count=6, most=16):
        value = position_value(masks, variant, line_rule)
        outcomes = set(eating_outcomes(masks, variant, line_rule))
        for k in range(8):
            image = transform(masks, k)
            # the rules are symmetric: the moves of the image are the images of the moves
            assert set(eating_outcomes(image, variant, line_rule)) == {transform(o, k) for o in outcomes}
            assert position_value(image, variant, line_rule) == value


def test_swapping_white_and_black_keeps_the_value() -> None:
    for variant in ("mint", "poisoned"):
        for masks in small_positions(variant, "mixed", count=5, most=14):
            swapped = (masks[1], masks[0], masks[2])
            assert position_value(swapped, variant, "mixed") == position_value(masks, variant, "mixed")


# -- the API -------------------------------------------------------------------------------------


def test_solve_refuses_the_set_up_and_other_games() -> None:
    set_up = spheria.load_game("special-cake", variant="poisoned", line_rule="same").new_initial_state()
    assert isinstance(set_up, CakeState)
    with pytest.raises(ValueError, match="set-up is solved only for mint and poisoned with mixed lines"):
        solve(set_up)
    with pytest.raises(ValueError, match="Special Cake"):
        solve(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="floats"):
        position_value((1 << 16, 0, 0), "mint", "mixed")


def test_time_limit_raises_timeout_and_a_later_solve_still_answers() -> None:
    state = cake("mint", "mixed", 3)
    with pytest.raises(TimeoutError):
        solve(state, time_limit=0.01)
    small = playout_positions("mint", "mixed", 3, stop_at=12)[-1]
    assert solve(small).value == reference_value(small.masks(), "mint", "mixed")
