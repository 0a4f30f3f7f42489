"""``blunder=p`` (spheria.agents.blunder): any agent playing ``random``'s move in a share ``p`` of its turns.

p = 0 is the agent itself, p = 1 plays move for move as ``random`` with the same seed, and in
between the share of replaced moves is p (a binomial check), reproducible by seed.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import spheria
from spheria.agents.alphabeta import AlphaBetaAgent
from spheria.agents.blunder import BlunderAgent
from spheria.agents.registry import agent_names, check_spec, describe_options, make_agent
from spheria.i18n import using
from spheria.kernel.game import SIMULTANEOUS, State


def _random_game(name: str, seed: int, **options: Any) -> list[State[Any]]:
    """Every position of one random game (for Spagyric: both seats move at a reveal)."""
    game = spheria.load_game(name, **options)
    state, rng, states = game.new_initial_state(seed=seed), random.Random(seed), []
    while not state.is_terminal():
        states.append(state.clone())
        player = state.current_player()
        if player == SIMULTANEOUS:
            state.apply_joint([rng.choice(state.legal_moves(p)) for p in range(game.num_players)])
        else:
            state.apply(rng.choice(state.legal_moves()))
    return states


def _seat(state: State[Any]) -> int:
    player = state.current_player()
    return 0 if player == SIMULTANEOUS else player


def test_blunder_zero_is_the_agent_itself() -> None:
    agent = make_agent("alphabeta:depth=2,seed=3,blunder=0")
    assert type(agent) is AlphaBetaAgent and agent.name == "alphabeta:depth=2,seed=3"
    plain = make_agent("alphabeta:depth=2,seed=3")
    for state in _random_game("spline", seed=1)[::4]:
        assert agent.choose(state, _seat(state)) == plain.choose(state, _seat(state))


@pytest.mark.parametrize(
    ("game", "options", "spec"),
    [
        ("spline", {}, "alphabeta:depth=2"),
        ("special-cake", {"variant": "sugar"}, "solver:time=1"),
        ("spinca", {"players": 3}, "mcts:iterations=10"),
        ("spagyric", {"supply": 3}, "spagyric:iterations=10"),  # hidden information: the seat's view only
    ],
)
def test_blunder_one_plays_as_random_with_the_same_seed(game: str, options: dict[str, Any], spec: str) -> None:
    blunderer, plain = make_agent(f"{spec},seed=5,blunder=1"), make_agent("random:seed=5")
    positions = _random_game(game, seed=2, **options)
    assert len(positions) > 5
    for state in positions:
        seat = _seat(state)
        assert str(blunderer.choose(state.view(seat), seat)) == str(plain.choose(state.view(seat), seat))


def test_a_share_in_between_replaces_that_share_of_moves_reproducibly() -> None:
    state = spheria.load_game("spagyric", supply=3).new_initial_state(seed=1)
    view, share, tries = state.view(0), 0.3, 3000
    agent = make_agent(f"fixed:color=w,seed=8,blunder={share}")
    chosen = [str(agent.choose(view, 0)) for _ in range(tries)]
    # a blunder is a uniform colour: not white two times in three
    expected = tries * share * 2 / 3
    spread = math.sqrt(tries * (share * 2 / 3) * (1 - share * 2 / 3))
    assert abs(sum(move != "w" for move in chosen) - expected) < 4 * spread
    again = make_agent(f"fixed:color=w,seed=8,blunder={share}")
    assert [str(again.choose(view, 0)) for _ in range(tries)] == chosen  # the same seed, the same moves
    other = make_agent(f"fixed:color=w,seed=9,blunder={share}")
    assert [str(other.choose(view, 0)) for _ in range(tries)] != chosen


def test_more_blunders_play_fewer_of_the_agents_moves() -> None:
    view = spheria.load_game("spagyric", supply=3).new_initial_state(seed=1).view(1)
    whites = []
    for share in (0.0, 0.25, 0.5, 1.0):
        agent = make_agent(f"fixed:color=w,seed=3,blunder={share}")
        whites.append(sum(str(agent.choose(view, 1)) == "w" for _ in range(600)))
    assert whites[0] == 600 and whites[0] > whites[1] > whites[2] > whites[3] > 0


def test_the_name_is_a_spec_that_makes_the_same_agent_again() -> None:
    agent = make_agent("mcts:iterations=50,seed=2,blunder=0.25")
    assert isinstance(agent, BlunderAgent) and agent.name == "mcts:iterations=50,c=1.4,seed=2,blunder=0.25"
    assert make_agent(agent.name).name == agent.name
    assert make_agent("greedy:blunder=0.5").name == "greedy:blunder=0.5"
    level = make_agent("level:2,blunder=0.1")
    assert level.name == "level:2,blunder=0.1" and make_agent(level.name).name == level.name


def test_a_blunderer_plays_what_its_agent_plays_within_its_time() -> None:
    spline = spheria.load_game("spline")
    with pytest.raises(ValueError, match=r"solver:blunder=0\.2 does not play Spline: it plays Special Cake"):
        check_spec("solver:blunder=0.2", spline)
    agent = check_spec("alphabeta:time=0.3,blunder=0.2", spline)
    assert agent.max_seconds_per_move() == 0.3 and agent.spec_name == "alphabeta"


@pytest.mark.parametrize("value", ["2", "-0.1", "nan", "often", "inf"])
def test_a_bad_share_is_refused_naming_the_option_and_its_range(value: str) -> None:
    with pytest.raises(ValueError, match=f"greedy option blunder must be a number from 0 to 1, not .*{value}"):
        make_agent(f"greedy:blunder={value}")


def test_every_agent_lists_blunder_among_its_options() -> None:
    assert all("blunder" in [row[0] for row in describe_options(name)] for name in agent_names())
    with pytest.raises(ValueError, match=r"options: depth, time, clock, seed, engine, swindle, blunder\)"):
        make_agent("alphabeta:blunders=1")


def test_a_bad_share_is_refused_in_korean_too() -> None:
    with using("ko"), pytest.raises(ValueError, match=r"greedy의 옵션 blunder.*0~1의 숫자여야 합니다"):
        make_agent("greedy:blunder=1.5")
