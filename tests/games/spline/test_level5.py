"""Spline's level 5 never throws away a won position (issue 42, item 4).

Random positions of every ball count (seeded, reached by random play) that the prover says the
player to move wins; level 5's move must keep the win: after it, the prover says the opponent
to move loses (or the move ended the game with a line). The prover is exact (Spline has no
draws), so each verdict is a proof, not an estimate.
"""

from __future__ import annotations

import random

import pytest

import spheria
from spheria.agents.registry import make_agent
from spheria.games.spline.levels import LEVELS
from spheria.games.spline.rules import SplineMove, SplineState
from spheria.games.spline.search import SplineSearch

GAME = spheria.load_game("spline")
LEVEL_5 = LEVELS.tables["spline"][4].spec
#: One prover for the whole file: its table of proved positions stays true between positions.
PROVER = SplineSearch()
#: Every ball count at which random play reaches a position the mover wins: 1 (Black's first
#: ball) to 27. Not 2 or 4 (White to move: the prover found White lost in each of 500 random
#: positions of each), nor 28 (500 random games never reached it without a line, or White lost).
BALL_COUNTS = [balls for balls in range(1, 28) if balls not in (2, 4)]


def won_position(balls: int, seed: int) -> SplineState:
    """A position with ``balls`` balls, reached by random play from ``seed``, that the prover says
    the player to move wins (random play is repeated until one is found)."""
    rng = random.Random(seed)
    for _ in range(500):
        state = GAME.new_initial_state()
        while len(state.history) < balls and not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        assert isinstance(state, SplineState)
        if len(state.history) == balls and not state.is_terminal() and PROVER.winning_move(state) is not None:
            return state
    raise AssertionError(f"no won position with {balls} balls from seed {seed}")


def keeps_the_win(state: SplineState, move: SplineMove) -> bool:
    """Whether ``move`` leaves the opponent lost: a line at once, or a position the prover says it loses."""
    after = state.child(move)
    if after.is_terminal():
        return after.returns()[state.current_player()] == 1
    assert isinstance(after, SplineState)
    return PROVER.winning_move(after) is None


def test_the_prover_tells_a_winning_move_from_a_losing_one() -> None:
    """The judge itself: in White's win in one, 0d1 keeps the win and 0d2 throws it away."""
    state = GAME.state_from_spn("www.bbb........./........./..../. 1")
    assert isinstance(state, SplineState)
    assert keeps_the_win(state, state.parse_move("0d1"))
    assert not keeps_the_win(state, state.parse_move("0d2"))


@pytest.mark.parametrize("balls", BALL_COUNTS)
def test_level_5_keeps_every_won_position(balls: int) -> None:
    for seed in (balls, 100 + balls):
        state = won_position(balls, seed)
        move = make_agent(LEVEL_5).choose(state, state.current_player())
        assert keeps_the_win(state, move), f"level 5 played {state.notation(move)} in {state.to_spn()}, lost"
