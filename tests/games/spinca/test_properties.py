"""Property tests for Spinca: random games, a plain reference move generator, undo/child/SPN.

The reference generator below re-derives every turn from the rules with nothing but
``Board`` objects and site coordinates: it lifts the marble, lets the marble that rested on
the hole fall in (and so on up), and tries every same-level neighbour and every placement.
The engine's :func:`legal_outcomes` must list exactly the same outcomes, each once.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spheria.engine.board import BELOW, SITE_COORDS, TOP, BaseBoard, Board, placeable, unstable_sites
from spheria.games.spinca.knowledge import spinca_random_fill
from spheria.games.spinca.rules import (
    PLACEMENTS,
    TEMPLE,
    Spinca,
    SpincaState,
    expected_counts,
    face_sum,
    score_color,
    seat_quotas,
    temple_placeable,
)

Outcome = tuple[str, frozenset[int]]


def lift(board: BaseBoard, site: int) -> tuple[Board, list[int], list[int]]:
    """Take the marble off ``site``; each marble resting on the hole falls into it, up the pyramid.

    Returns the new board, the sites the fallen marbles came from and the sites they reached.
    """
    after = board.copy()
    color = after.color_at(site)
    assert color is not None
    after.masks[color] &= ~(1 << site)
    hole = site
    came_from: list[int] = []
    went_to: list[int] = []
    while True:
        resting = [t for t in range(TOP + 1) if after.color_at(t) is not None and BELOW[t] >> hole & 1]
        if not resting:
            return after, came_from, went_to
        assert len(resting) == 1, "only an unpinned marble may be lifted"
        above = resting[0]
        fallen = after.color_at(above)
        assert fallen is not None
        after.masks[fallen] &= ~(1 << above)
        after.masks[fallen] |= 1 << hole
        came_from.append(above)
        went_to.append(hole)
        hole = above


def reference_outcomes(state: SpincaState) -> set[Outcome]:
    board = state.board
    color = state.color_to_move()
    locked = {s for s in range(TOP + 1) if state.locked >> s & 1}
    temple = range(TOP)  # every site but the top

    def placements(b: BaseBoard) -> list[int]:
        return [p for p in temple if b.can_hold(p)]

    outcomes: set[Outcome] = set()
    for p in placements(board):
        after = board.copy()
        after.place(p, color)
        outcomes.add((after.spn(), frozenset({p})))
    for source in temple:
        mover = board.color_at(source)
        if mover is None or source in locked:
            continue
        level, row, col = SITE_COORDS[source]
        held = [t for t in temple if board.color_at(t) is not None and BELOW[t] >> source & 1]
        if len(held) >= 2:
            continue  # pinned
        lifted, came_from, went_to = lift(board, source)
        if any(s in locked for s in came_from):
            continue  # would make a locked marble tumble
        for target in temple:
            t_level, t_row, t_col = SITE_COORDS[target]
            if t_level != level or max(abs(t_row - row), abs(t_col - col)) != 1:
                continue
            if not lifted.can_hold(target):
                continue
            moved = lifted.copy()
            moved.place(target, mover)
            for p in placements(moved):
                after = moved.copy()
                after.place(p, color)
                outcomes.add((after.spn(), frozenset({target, p, *went_to})))
    return outcomes


def engine_outcomes(state: SpincaState) -> list[Outcome]:
    result = []
    for move in state.legal_moves():
        child = state.child(move)
        assert isinstance(child, SpincaState)
        result.append((child.board.spn(), frozenset(s for s in range(TOP + 1) if child.locked >> s & 1)))
    return result


def random_state(players: int, seed: int, plies: int) -> SpincaState:
    rng = random.Random(seed)
    state = Spinca(players=players).new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_moves()))
    return state


@settings(max_examples=100, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_games_end_after_29_placements_on_a_stable_temple(players: int, seed: int) -> None:
    rng = random.Random(seed)
    game = Spinca(players=players)
    state = game.new_initial_state()
    placed_by = [0] * players
    turns = 0
    while not state.is_terminal():
        seat = state.current_player()
        assert seat == turns % players
        state.apply(rng.choice(state.legal_moves()))
        placed_by[seat] += 1
        turns += 1
        occupied = state.board.occupied
        assert occupied.bit_count() == turns
        assert unstable_sites(occupied) == 0
        assert not occupied >> TOP & 1
    assert turns == PLACEMENTS
    assert tuple(placed_by) == seat_quotas(players)
    assert state.legal_moves() == []
    returns = state.returns()
    if players == 3:
        assert sorted(returns) == [-1.0, -1.0, 1.0]  # a complete temple never ends in a 3-way draw
    else:
        assert sorted(returns) == [-1.0] * (players // 2) + [1.0] * (players // 2)
        assert all(returns[seat] == returns[seat % 2] for seat in range(players))  # team mates share
    # Each face's number is the smallest of that face's group sizes (0 without a group).
    for score in state.scores():
        assert score.faces == tuple(min(sizes, default=0) for sizes in score.groups)
        assert sum(sum(sizes) for sizes in score.groups) <= 24


@settings(max_examples=80, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, PLACEMENTS - 1),
)
def test_legal_moves_match_the_reference_each_outcome_once(players: int, seed: int, plies: int) -> None:
    state = random_state(players, seed, plies)
    occupied = state.board.occupied
    assert temple_placeable(occupied) == placeable(occupied) & ~(1 << TOP)
    engine = engine_outcomes(state)
    assert len(engine) == len(set(engine)), "an outcome is listed twice"
    assert set(engine) == reference_outcomes(state)


@settings(max_examples=60, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_undo_child_clone_spn_and_notation_agree_with_apply(players: int, seed: int) -> None:
    rng = random.Random(seed)
    game = Spinca(players=players)
    state = game.new_initial_state()
    spns = [state.to_spn()]
    while not state.is_terminal():
        moves = state.legal_moves()
        move = rng.choice(moves)
        assert state.parse_move(str(move)) == move
        child = state.child(move)
        twin = state.clone()
        before = state.to_spn()
        state.apply(move)
        assert twin.to_spn() == before  # a clone is independent
        assert child.to_spn() == state.to_spn()
        restored = game.state_from_spn(state.to_spn())
        assert restored.to_spn() == state.to_spn()
        if rng.random() < 0.2:
            assert restored.legal_moves() == state.legal_moves()
        spns.append(state.to_spn())
    for spn in reversed(spns[:-1]):
        state.undo()
        assert state.to_spn() == spn
    assert state.history == ()


@settings(max_examples=300, deadline=None)
@given(mask=st.integers(0, TEMPLE))
def test_the_fast_face_sum_is_the_score_total(mask: int) -> None:
    mask &= TEMPLE
    assert face_sum(mask) == score_color(mask).total


@settings(max_examples=60, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, PLACEMENTS))
@pytest.mark.parametrize("guided", [False, True])
def test_the_playout_fill_completes_the_temple_by_the_turn_order(
    players: int, seed: int, plies: int, guided: bool
) -> None:
    state = random_state(players, seed, plies)
    before = state.masks()
    filled = spinca_random_fill(before, state.placed, players, random.Random(seed).random, guided=guided)
    occupied = filled[0] | filled[1] | filled[2]
    assert occupied == TEMPLE and unstable_sites(occupied) == 0
    relocated = sum((before[c] & ~filled[c]).bit_count() for c in range(3))
    assert relocated <= PLACEMENTS - state.placed  # at most one marble moved a turn
    assert tuple(m.bit_count() for m in filled) == expected_counts(players, PLACEMENTS)
    assert not filled[0] & filled[1] and not filled[0] & filled[2] and not filled[1] & filled[2]


@settings(max_examples=60, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_returns_follow_the_decided_winners(players: int, seed: int) -> None:
    state = random_state(players, seed, PLACEMENTS)
    winners, _ = state.result()
    expected = [1.0 if state.game.seat_color(seat) in winners else -1.0 for seat in range(players)]
    assert state.returns() == (expected if winners else [0.0] * players)
