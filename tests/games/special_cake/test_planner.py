"""The set-up planner: legal set-up moves, the eating phase handed on, seeds, and hand-worked finishes.

The finishes below come from a mint cake that random set-up play built and the solver found
lost for the first eater (``benchmarks/label_cakes.py``, seed 17)::

    level 0  wwwwwwwbbbwbbbwb   level 1  wwbbwwbbb   level 2  b w / w b   top  b

With the top and three of the level-2 candies taken away, Mint (13 + 2 to place) and
Liquorice (13 + 2, the last being the top) finish the cake. Three finishes exist, one for each
level-2 site Liquorice ends up with; the solver values them (the test checks it):

* ``POSITION_A`` keeps ``2a1`` (black): Liquorice on ``2b2`` gives back the lost cake; on
  ``2b1`` or ``2a2`` the first eater wins. So Mint must place on ``2b2`` itself — the only
  move after which Liquorice cannot force a lost cake — and Liquorice, once Mint has placed
  elsewhere, must take ``2b2``.
* ``POSITION_B`` keeps ``2b2`` (black): Liquorice on ``2a1`` or ``2b1`` gives a lost cake, on
  ``2a2`` a won one. Mint cannot stop a lost cake, so the planner falls back on the expected
  score against a random Liquorice: placing on ``2a1`` or ``2b1`` leaves Liquorice one lost
  finish in two, placing on ``2a2`` leaves two lost finishes out of two. Mint avoids ``2a2``.
"""

from __future__ import annotations

import random
import time

import pytest

import spheria
from spheria.agents.registry import make_agent
from spheria.engine.board import parse_site
from spheria.games.special_cake.planner import PlannerAgent, complete_cakes, placed, set_up_children
from spheria.games.special_cake.rules import PLACE, CakeMove, CakeState
from spheria.games.special_cake.solver import position_value
from spheria.games.special_cake.solver_agent import SolverAgent

MINT_GAME = spheria.load_game("special-cake", variant="mint")
POISONED_GAME = spheria.load_game("special-cake", variant="poisoned")

POSITION_A = "wwwwwwwbbbwbbbwb/wwbbwwbbb/b.../. 1 place"
POSITION_B = "wwwwwwwbbbwbbbwb/wwbbwwbbb/...b/. 1 place"
LOST_CAKE = "wwwwwwwbbbwbbbwb/wwbbwwbbb/bwwb/b 1 eat"

#: Enough time for every finish below to be solved: the choice must never depend on the clock.
PLENTY = 600.0


def cake_state(spn: str) -> CakeState:
    state = MINT_GAME.state_from_spn(spn)
    assert isinstance(state, CakeState)
    return state


def finish_values(spn: str) -> dict[str, int]:
    """For each level-2 site Liquorice may end up with, the solved value of the finished cake."""
    state = cake_state(spn)
    white, black, _ = state.masks()
    empty = [s for s in ("2a1", "2b1", "2a2", "2b2") if not state.board.occupied >> parse_site(s) & 1]
    values = {}
    for liquorice in empty:
        cake_white = white | sum(1 << parse_site(s) for s in empty if s != liquorice)
        cake_black = black | 1 << parse_site(liquorice) | 1 << parse_site("3a1")
        values[liquorice] = position_value((cake_white, cake_black, 0), "mint", "mixed")
    return values


def play_random_set_up(state: CakeState, placements: int, seed: int) -> None:
    rng = make_agent(f"random:seed={seed}")
    for _ in range(placements):
        state.apply(rng.choose(state, state.current_player()))


# -- the hand-worked finishes --------------------------------------------------------------


@pytest.mark.compiled_speed  # full mint cakes: millions of positions
def test_the_finishes_are_what_the_docstring_says() -> None:
    assert finish_values(POSITION_A) == {"2b1": 1, "2a2": 1, "2b2": -1}
    assert finish_values(POSITION_B) == {"2a1": -1, "2b1": -1, "2a2": 1}
    assert position_value(cake_state(LOST_CAKE).masks(), "mint", "mixed") == -1
    # Three finishes each: the exact search sees exactly these cakes.
    state = cake_state(POSITION_A)
    assert len(complete_cakes(state.masks(), 0, 30, "mint")) == 3


@pytest.mark.compiled_speed  # full mint cakes: millions of positions
def test_mint_blocks_the_only_site_that_loses() -> None:
    state = cake_state(POSITION_A)
    agent = PlannerAgent(seed=1, time=PLENTY)
    assert str(agent.choose(state, 0)) == "2b2"
    assert agent.last_report["method"] == "exact"
    assert agent.last_report["unsolved"] == 0
    assert agent.last_report["guaranteed"] == 1.0  # every finish after 2b2 is a won cake


@pytest.mark.compiled_speed  # full mint cakes: millions of positions
@pytest.mark.parametrize("mint_site", ["2b1", "2a2"])
def test_liquorice_takes_the_site_that_loses(mint_site: str) -> None:
    state = cake_state(POSITION_A)
    state.apply(state.parse_move(mint_site))
    agent = PlannerAgent(seed=1, time=PLENTY)
    move = agent.choose(state, 1)
    assert str(move) == "2b2"
    assert agent.last_report["guaranteed"] == 1.0
    # ... and the cake that follows is the lost one, whatever Mint does next.
    state.apply(move)
    while state.phase == "place":
        state.apply(state.legal_moves()[0])
    assert position_value(state.masks(), "mint", "mixed") == -1


@pytest.mark.compiled_speed  # full mint cakes: millions of positions
def test_mint_avoids_the_site_that_leaves_only_lost_finishes() -> None:
    state = cake_state(POSITION_B)
    for seed in range(4):
        agent = PlannerAgent(seed=seed, time=PLENTY)
        move = agent.choose(state, 0)
        assert str(move) in ("2a1", "2b1")
        assert agent.last_report["guaranteed"] == 0.0  # no move forces a won cake here
        assert agent.last_report["expected"] == 0.5  # one lost finish in two for a random Liquorice


def test_liquorice_wants_the_lost_cake_mint_the_won_one() -> None:
    assert PlannerAgent.wanted(-1, 1) and PlannerAgent.wanted(1, 0)
    assert not PlannerAgent.wanted(1, 1) and not PlannerAgent.wanted(-1, 0)


# -- legal moves, delegation, seeds, options -----------------------------------------------


@pytest.mark.parametrize("game", [MINT_GAME, POISONED_GAME], ids=["mint", "poisoned"])
def test_plays_legal_set_up_moves_to_the_end(game: spheria.Game) -> None:
    # A short budget and a small exact window: the finishes may go unsolved (they then count
    # with the base rate), but every move must still be legal, and the set-up must end.
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    planner = PlannerAgent(seed=3, time=0.05, exact=3)
    opponent = make_agent("random:seed=3")
    for seat in (0, 1):
        state = game.new_initial_state()
        assert isinstance(state, CakeState)
        while state.phase == "place":
            mover = state.current_player()
            move = (planner if mover == seat else opponent).choose(state, mover)
            assert move in state.legal_moves()
            state.apply(move)
        assert state.board.count() == 30


def test_the_exact_search_only_near_the_end() -> None:
    state = MINT_GAME.new_initial_state()
    assert isinstance(state, CakeState)
    agent = PlannerAgent(seed=1, time=0.01)
    agent.choose(state, 0)
    assert agent.last_report == {"method": "random"}
    play_random_set_up(state, 29, seed=4)  # only the top is left: forced
    assert state.legal_moves() == [CakeMove((parse_site("3a1"),))]
    assert agent.choose(state, 1) == state.legal_moves()[0]
    assert agent.last_report == {"method": "forced"}


@pytest.mark.compiled_speed  # full mint cakes: millions of positions
def test_same_seed_same_moves() -> None:
    for game in (MINT_GAME, POISONED_GAME):
        state = game.new_initial_state()
        assert isinstance(state, CakeState)
        play_random_set_up(state, 6, seed=2)
        first, second = PlannerAgent(seed=7, time=0.01), PlannerAgent(seed=7, time=0.01)
        for _ in range(6):
            mover = state.current_player()
            move = first.choose(state, mover)
            assert second.choose(state, mover) == move
            state.apply(move)
    state = cake_state(POSITION_B)
    choices = {str(PlannerAgent(seed=5, time=PLENTY).choose(state, 0)) for _ in range(3)}
    assert len(choices) == 1


def test_the_eating_phase_is_handed_to_the_eat_agent() -> None:
    # Three candies in a row, w b w: the two mixed pairs are the winning moves (docs/solver.md).
    state = cake_state("wbw............./........./..../. 1 eat")
    assert str(PlannerAgent(seed=1).choose(state, 0)) in ("0a1+0b1", "0b1+0c1")
    move = PlannerAgent(seed=1, eat="random").choose(state, 0)
    assert move in state.legal_moves()


def test_refuses_what_it_cannot_plan() -> None:
    sugar = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=1)
    with pytest.raises(ValueError, match="mint and poisoned"):
        PlannerAgent().choose(sugar, 0)
    spline = spheria.load_game("spline").new_initial_state()
    with pytest.raises(ValueError, match="mint and poisoned"):
        PlannerAgent().choose(spline, 0)
    with pytest.raises(ValueError, match="seat 1 is not to move"):
        PlannerAgent().choose(MINT_GAME.new_initial_state(), 1)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("planner:time=0", "planner option time must be a number of seconds from 0.01 to 600, not 0"),
        ("planner:exact=0", "planner option exact must be a whole number from 1 to 12, not 0"),
        ("planner:solves=1000000", "planner option solves must be a whole number from 1 to 100000"),
        ("planner:eat=planner", "planner option eat must be one of"),
        ("planner:seed=x", "planner option seed must be a whole number"),
    ],
)
def test_bad_options_are_refused(spec: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        make_agent(spec)


@pytest.mark.compiled_speed  # full mint cakes: millions of positions
def test_registry_and_solver_agent_use_it() -> None:
    agent = make_agent("planner:seed=2,time=1.5,exact=5")
    assert isinstance(agent, PlannerAgent)
    assert agent.name == "planner:seed=2,time=1.5,exact=5"
    solver = SolverAgent(seed=2, setup="planner")
    assert solver.name == "solver:seed=2,setup=planner"
    assert isinstance(solver.setup, PlannerAgent)
    # The solver agent hands the set-up to the planner, which takes the only safe site.
    assert str(solver.choose(cake_state(POSITION_A), 0)) in ("2b2", "2b1", "2a2")
    assert make_agent("solver:setup=planner").name == "solver:setup=planner"


def test_set_up_children_place_the_movers_colour() -> None:
    state = cake_state(POSITION_A)
    children = list(set_up_children(state.masks(), 0))
    assert len(children) == len(state.legal_moves()) == 3
    for child in children:
        assert child[1] == state.masks()[1] and (child[0] ^ state.masks()[0]).bit_count() == 1


# -- early=sampled: solved random finishes guide the placements before the exact search -----


@pytest.mark.compiled_speed  # one of its finishes takes minutes on the pure-Python solver
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_early_placements_follow_the_solved_finishes(seed: int) -> None:
    # exact=1 leaves POSITION_A's four placements to the sampled phase. After 2b2 every finish is a
    # won cake (Mint wants it); after 2b1 or 2a2 one Liquorice reply in two gives the lost cake.
    agent = PlannerAgent(seed=seed, time=PLENTY, exact=1, solves=30, early="sampled")
    assert str(agent.choose(cake_state(POSITION_A), 0)) == "2b2"
    report = agent.last_report
    assert report["method"] == "sampled" and report["finishes"] == 30
    assert report["wanted"] < 30  # the finishes below 2b1 and 2a2 were not all wanted
    assert set(agent.solved.values()) == {1, -1}


def test_sampled_placements_without_budget_still_place_legally() -> None:
    state = POISONED_GAME.new_initial_state()
    agent = PlannerAgent(seed=1, time=0.01, early="sampled")
    assert agent.choose(state, 0) in state.legal_moves()
    assert agent.last_report["method"] == "sampled"


def test_a_solve_over_its_cap_with_a_planner_set_up_eats_without_solving_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Poisoned's level 5 (``solver:setup=planner,time=5``): when the first eating solve runs over
    its cap the planner takes the move, and must eat at once, not solve the cake a second time
    (which made a 5 s move take up to 5 s plus the caller's ``max_time``)."""
    import spheria.games.special_cake.solver

    solves: list[float | None] = []

    def over_its_cap(state: CakeState, time_limit: float | None = None, **_: object) -> None:
        solves.append(time_limit)
        raise TimeoutError

    monkeypatch.setattr(spheria.games.special_cake.solver, "solve", over_its_cap)
    rng = random.Random(5)
    state = POISONED_GAME.new_initial_state()
    assert isinstance(state, CakeState)
    while state.phase == PLACE:
        state.apply(rng.choice(state.legal_moves()))
    agent = make_agent("solver:setup=planner,time=5,seed=1")
    assert isinstance(agent, SolverAgent)
    assert agent.choose(state, state.current_player()) in state.legal_moves()
    assert solves == [5.0] and agent.fallbacks == 1
    assert agent.max_seconds_per_move() == 5.0  # the budget the server gives it is what it takes


def test_cpu_clock_reaches_the_planner_through_the_solver_agent() -> None:
    assert PlannerAgent(clock="cpu").clock is time.thread_time
    assert PlannerAgent().clock is time.perf_counter
    solver = make_agent("solver:setup=guided,clock=cpu,seed=4")
    assert isinstance(solver, SolverAgent)
    assert solver.setup.name == "planner:seed=4,eat=greedy,early=sampled,clock=cpu"
    assert SolverAgent(setup="greedy", clock="cpu").setup.name == "greedy"  # greedy keeps no time


@pytest.mark.compiled_speed
@pytest.mark.parametrize("spec", ["planner:time=0.5,seed=1", "solver:setup=planner,time=0.5,seed=1"])
def test_a_watched_planner_reports_the_positions_its_solves_searched(spec: str) -> None:
    """While the planner builds a cake its solves' positions reach ``watch``'s callback as one running
    count for the move (the server's progress line in a set-up), through the solver agent too."""
    from spheria.games.special_cake.solver import clear_tables

    game = spheria.load_game("special-cake", variant="mint")
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    rng = random.Random(4)
    while placed(state.masks()) < state.game.placements - 12:  # the move before the exact search: one warm-up solve
        state.apply(rng.choice(state.legal_moves()))
    clear_tables()
    reports: list[int] = []
    agent = make_agent(spec)
    agent.watch(reports.append)
    assert agent.choose(state, state.current_player()) in state.legal_moves()
    assert reports and reports == sorted(reports) and reports[-1] > 0
