"""A timed game shrinks an agent's budget: ``Agent.limit_time`` reaches every search, through wrappers."""

from __future__ import annotations

import time

import pytest

import spheria
from spheria.agents.registry import make_agent


@pytest.mark.parametrize(
    ("spec", "own"),
    [
        ("mcts:time=2", 2.0),
        ("mcts:iterations=100000", 600.0),
        ("alphabeta:time=3", 3.0),
        ("alphabeta:time=3,blunder=0.5", 3.0),
        ("spagyric:time=2", 2.0),
        ("solver:time=5", 5.0),
        ("planner:time=3", 600.0),  # its eating agent (the solver) may take the caller's max_time
    ],
)
def test_a_limit_shrinks_the_budget_and_lifting_it_restores_it(spec: str, own: float) -> None:
    agent = make_agent(spec)
    assert agent.max_seconds_per_move() == own
    agent.limit_time(0.25)
    assert agent.max_seconds_per_move() == 0.25
    agent.limit_time(10_000)  # a limit above the agent's own budget changes nothing
    assert agent.max_seconds_per_move() == own
    agent.limit_time(None)
    assert agent.max_seconds_per_move() == own


def test_a_level_passes_the_limit_to_the_agent_it_resolves_to() -> None:
    level = make_agent("level:5")
    level.limit_time(0.05)  # before it met its game
    spline = spheria.load_game("spline")
    assert level.fits(spline)
    assert level.max_seconds_per_move() == 0.05
    level.limit_time(None)
    assert level.max_seconds_per_move() == 1.0


def test_a_limited_search_answers_within_the_limit() -> None:
    agent = make_agent("mcts:time=30")
    agent.limit_time(0.05)
    state = spheria.load_game("spline").new_initial_state()
    start = time.perf_counter()
    move = agent.choose(state, 0)
    assert time.perf_counter() - start < 5  # far below its own 30 s (the limit is 0.05 s)
    assert move in state.legal_moves()
