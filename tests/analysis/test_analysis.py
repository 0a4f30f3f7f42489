"""``spheria.analysis``: exact answers where a solver reaches, seeded estimates elsewhere, hidden
information kept hidden, JSON in Spheria's notation."""

from __future__ import annotations

import doctest
import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

import spheria
from spheria import analysis
from spheria.agents.random_agent import RandomAgent
from spheria.analysis import ESTIMATE, EXACT, OVER, Analysis, Progress, analyse, analyse_game
from spheria.analysis.budget import Budget
from spheria.games.spagyric.agent import held
from spheria.games.spagyric.analysis import SPAGYRIC_HELD
from spheria.games.spagyric.rules import REVEAL, SpagyricState
from spheria.games.spagyric.solver import SpagyricSolver, position_of
from spheria.games.special_cake.rules import EAT, CakeState
from spheria.games.special_cake.solver import solve
from spheria.kernel.game import SIMULTANEOUS, State
from spheria.kernel.kit import Analyser, GameKit
from spheria.kernel.record import Record
from spheria.match import play
from tests.conftest import SecretNumbers

# Special Cake, mint, eating: three candies in a row on level 0 (w b w on 0a1 0b1 0c1):
#
#   1 w b w .
#     a b c d
#
# Eating one leaves two (whoever faces two must leave one: a loss for the eater of one); eating
# a pair leaves one, which the opponent must eat (the last candy loses): a win; eating all
# three eats the last candy: a loss. So exactly the two pairs win.
ROW = "wbw............./........./..../. 1 eat"
# Two candies that do not touch (0a1 and 0d4): either single leaves one to the opponent: won.
APART = "b..............w/........./..../. 2 eat"
# One candy: the mover eats the last one: lost, one move.
LAST = "b.............../........./..../. 2 eat"
# Spline: White has 0a1 0b1 0c1; 0d1 makes the row of four and wins at once.
#
#   2 b b b .
#   1 w w w .
#     a b c d
SPLINE_WIN_IN_ONE = "www.bbb........./........./..../. 1"
#: Spinca (not solved: the estimate answers), White's last placement: only relocating 2b1 to 2a1
#: and placing on 2b1 wins; placing on 2a1 or relocating 2b2 loses.
SPINCA_WIN_IN_ONE = "wwwbbwbwwbwbbwbw/wwbbbbwwb/.bbw/. 1 2a2"

JSON_KEYS = {
    "game",
    "options",
    "position",
    "seat",
    "phase",
    "method",
    "status",
    "verdict",
    "value",
    "win_rate",
    "values",
    "best_moves",
    "principal_variation",
    "moves",
    "iterations",
    "note",
    "positions",
    "seconds",
    "error",
}
MOVE_KEYS = {"move", "value", "win_rate", "visits", "probability", "error"}


def mint() -> spheria.Game:
    return spheria.load_game("special-cake", variant="mint")


def cake(spn: str, variant: str = "mint") -> CakeState:
    state = spheria.load_game("special-cake", variant=variant).state_from_spn(spn)
    assert isinstance(state, CakeState)
    return state


def child_values(state: CakeState) -> dict[str, float]:
    """Each move's value for the mover, from the solver's verdict on the position it leaves."""
    return {state.notation(m): -float(solve(state.child(m)).value) for m in state.legal_moves()}  # type: ignore[arg-type]


# -- Special Cake, eating: exact ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("spn", "verdict", "winning"),
    [(ROW, 1, {"0a1+0b1", "0b1+0c1"}), (APART, 1, {"0a1", "0d4"}), (LAST, -1, set())],
)
def test_eating_positions_whose_answer_is_known(spn: str, verdict: int, winning: set[str]) -> None:
    state = cake(spn)
    result = analyse(state)
    assert (result.status, result.method, result.verdict, result.seat) == (EXACT, "solver", verdict, state.player)
    assert {m.move for m in result.moves} == {state.notation(m) for m in state.legal_moves()}
    assert {m.move for m in result.moves if m.value == 1.0} == winning
    assert result.values == [float(verdict), -float(verdict)] if state.player == 0 else [-float(verdict), verdict]


def random_eating_positions(count: int, candies: int, variant: str) -> Iterator[CakeState]:
    rng = random.Random(7)
    for seed in range(count):
        state = spheria.load_game("special-cake", variant=variant).new_initial_state(seed=seed)
        assert isinstance(state, CakeState)
        while not state.is_terminal() and (state.phase != EAT or bin(sum(state.masks())).count("1") > candies):
            state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            yield state


@pytest.mark.parametrize("variant", ["sugar", "poisoned"])
def test_every_move_value_agrees_with_solving_the_position_it_leaves(variant: str) -> None:
    checked = 0
    for state in random_eating_positions(6, 9, variant):
        result = analyse(state, time=None)
        assert {m.move: m.value for m in result.moves} == child_values(state)
        assert result.verdict == max(int(m.value or 0) for m in result.moves)
        checked += 1
    assert checked >= 3


def test_eating_analyses_are_cached_per_position(monkeypatch: pytest.MonkeyPatch) -> None:
    analysis.clear_cache()
    state = cake(ROW)
    first = analyse(state)

    def no_solver(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the solver ran again")

    monkeypatch.setattr("spheria.games.special_cake.solver.solve", no_solver)
    again = analyse(cake(ROW))
    assert again.to_json(statistics=False) == first.to_json(statistics=False)
    with pytest.raises(AssertionError):
        analyse(cake(APART))  # another position is solved afresh


def test_the_solver_reports_progress() -> None:
    analysis.clear_cache()
    reports: list[Progress] = []
    analyse(cake(ROW), progress=reports.append)
    assert reports and all(r.method == "solver" and r.positions is not None for r in reports)


def test_a_finished_game_is_over() -> None:
    state = cake(LAST)
    state.apply(state.legal_moves()[0])
    result = analyse(state)
    assert (result.status, result.values, result.moves) == (OVER, state.returns(), [])


# -- Special Cake, set-up -----------------------------------------------------------------------


def first_eater_wins(state: CakeState) -> int:
    """+1 if Mint (the first eater) wins with perfect play, by the engine's moves and the solver."""
    if state.phase == EAT:
        return solve(state).value
    values = [first_eater_wins(state.child(m)) for m in state.legal_moves()]  # type: ignore[arg-type]
    return max(values) if state.player == 0 else min(values)


def set_up_with(left: int, seed: int) -> CakeState:
    """A poisoned set-up (same lines) with ``left`` placements to go, reached by random placements
    (a set-up with mixed lines is answered from the shipped table instead of searched)."""
    rng = random.Random(seed)
    state = spheria.load_game("special-cake", variant="poisoned", line_rule="same").new_initial_state(seed=seed)
    assert isinstance(state, CakeState)
    while state.game.placements - bin(state.masks()[0] | state.masks()[1]).count("1") > left:
        state.apply(rng.choice(state.legal_moves()))
    return state


def fake_cake_value(masks: tuple[int, int, int], *args: Any, **kwargs: Any) -> int:
    """A stand-in for the solver's verdict on a complete cake: any fixed function of the cake."""
    return 1 if hash(masks) % 3 else -1


@pytest.mark.parametrize("seed", [3, 4])
def test_the_last_placements_are_a_minimax_over_every_finish(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # The set-up search with a stand-in for the (slow) full-cake solve, checked against a
    # minimax over the engine's own moves: its placements, its finished cakes.
    monkeypatch.setattr("spheria.games.special_cake.solver.position_value", fake_cake_value)
    state = set_up_with(3, seed)

    def first_eater_wins(state: CakeState) -> int:
        if state.phase == EAT:
            return fake_cake_value(state.masks())
        values = [first_eater_wins(state.child(m)) for m in state.legal_moves()]  # type: ignore[arg-type]
        return max(values) if state.player == 0 else min(values)

    result = analyse(state, time=None)
    assert (result.status, result.method) == (EXACT, "planner")
    sign = 1 if state.player == 0 else -1
    expected = {state.notation(m): float(sign * first_eater_wins(state.child(m))) for m in state.legal_moves()}  # type: ignore[arg-type]
    assert {m.move: m.value for m in result.moves} == expected
    assert result.verdict == max(expected.values())
    assert set(result.best_moves) == {move for move, value in expected.items() if value == result.verdict}


def test_a_set_up_search_that_runs_out_of_time_gives_way_to_an_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    def out_of_time(*args: Any, **kwargs: Any) -> int:
        raise TimeoutError

    monkeypatch.setattr("spheria.games.special_cake.solver.position_value", out_of_time)
    result = analyse(set_up_with(2, 3), time=60, iterations=30, seed=1)
    assert (result.status, result.method, result.iterations) == (ESTIMATE, "mcts", 30)


@pytest.mark.compiled_speed
def test_the_last_placement_is_solved_exactly() -> None:
    state = set_up_with(1, 41)  # a last cake the search proves quickly (seed 3's took five times as long)
    result = analyse(state, time=None)
    assert (result.status, result.method) == (EXACT, "planner")
    sign = 1 if state.player == 0 else -1
    # The verdict alone (the search stops at a winning move): every winning move would be
    # a search several times longer, for a value the test does not read.
    expected = {
        state.notation(m): float(sign * solve(state.child(m), stop_at_first=True).value)  # type: ignore[arg-type]
        for m in state.legal_moves()
    }
    assert {m.move: m.value for m in result.moves} == expected


def test_an_early_set_up_is_an_estimate() -> None:
    state = spheria.load_game("special-cake", variant="poisoned", line_rule="same").new_initial_state(seed=1)
    result = analyse(state, time=120, iterations=40, seed=2)
    assert (result.status, result.method, result.iterations, result.verdict) == (ESTIMATE, "mcts", 40, None)
    assert sum(m.visits or 0 for m in result.moves) == 40


def _full_mint_cakes(seed: int) -> Iterator[CakeState]:
    """Full mint cakes from random set-ups."""
    game = spheria.load_game("special-cake", variant="mint")
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        assert isinstance(state, CakeState)
        while state.phase != EAT:
            state.apply(rng.choice(state.legal_moves()))
        yield state


def _table_says_lost(cake: CakeState) -> bool:
    from spheria.games.special_cake.solver.setup_table import shipped_table

    white, black, _ = cake.masks()
    return not shipped_table().mint_wins(white, black)


def test_a_lost_full_mint_cake_is_answered_from_the_table_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    lost = next(cake for cake in _full_mint_cakes(5) if _table_says_lost(cake))

    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the search solver was asked")

    monkeypatch.setattr("spheria.games.special_cake.solver.solve", no_search)
    analysis.clear_cache()
    result = analyse(lost, time=60, progress=lambda report: None)
    assert (result.status, result.method, result.verdict, result.best_moves) == (EXACT, "solver", -1, [])
    assert {m.value for m in result.moves} == {-1.0} and len(result.moves) == len(lost.legal_moves())


@pytest.mark.compiled_speed
def test_the_tables_verdict_on_full_mint_cakes_is_the_search_solvers() -> None:
    # Random cakes, from seeds whose first won and first lost cake the search proves in fewer
    # positions than most (0.6 and 1.8 million: a full cake's search takes seconds).
    won = next(cake for cake in _full_mint_cakes(23) if not _table_says_lost(cake))
    lost = next(cake for cake in _full_mint_cakes(39) if _table_says_lost(cake))
    for cake in (won, lost):
        analysis.clear_cache()
        reports: list[Progress] = []
        result = analyse(cake, time=0.2, progress=reports.append)  # the verdict is there before any search
        partials = [r.partial for r in reports if r.partial is not None]
        first = partials[0] if partials else result  # a lost cake is answered whole at once
        assert first.verdict == result.verdict == solve(cake, stop_at_first=True).value


# -- Spline and Spinca: MCTS --------------------------------------------------------------------


def test_a_spinca_win_in_one_has_the_top_win_rate() -> None:
    state = spheria.load_game("spinca").state_from_spn(SPINCA_WIN_IN_ONE)
    win = "2b1-2a1 2b1"
    winning = state.child(state.parse_move(win))
    assert winning.is_terminal() and winning.returns()[0] == 1  # the position is what the comment says
    reports: list[Progress] = []
    result = analyse(state, time=60, iterations=600, seed=1, progress=reports.append)
    assert (result.status, result.method, result.iterations) == (ESTIMATE, "mcts", 600)
    top = max(result.moves, key=lambda m: m.win_rate or 0.0)
    assert top.move == win and top.win_rate == 1.0
    assert result.best_moves == [win] and result.principal_variation[0] == win
    assert [r.iterations for r in reports] == [250, 500, 600]
    assert reports[-1].partial is not None and reports[-1].partial.to_json(statistics=False) == result.to_json(
        statistics=False
    )


def test_an_analysis_names_the_phase_the_state_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    """The phase is the state's ``phase_name()`` (the kernel's API, which the server's frames send), not
    an attribute a game happens to have: a game that names its phases only through it is worded too."""
    placing = spheria.load_game("special-cake").new_initial_state(seed=3)
    assert analyse(placing, time=60, iterations=20, seed=1).phase == placing.phase_name() == "place"
    state = spheria.load_game("spline").state_from_spn(SPLINE_WIN_IN_ONE)
    assert analyse(state, time=60, iterations=20, seed=1).phase is None  # a game without phases
    monkeypatch.setattr(type(state), "phase_name", lambda self: "race")
    assert not hasattr(state, "phase")
    assert analyse(state, time=60, iterations=20, seed=1).to_json(statistics=False)["phase"] == "race"


def test_the_same_seed_and_iterations_give_the_same_answer() -> None:
    state = spheria.load_game("spline").state_from_spn(SPLINE_WIN_IN_ONE)
    first = analyse(state, time=60, iterations=300, seed=4)
    assert analyse(state, time=60, iterations=300, seed=4).to_json(statistics=False) == first.to_json(statistics=False)


def test_spinca_lists_every_move_with_its_visits() -> None:
    state = spheria.load_game("spinca").new_initial_state(seed=1)
    rng = random.Random(1)
    for _ in range(6):
        state.apply(rng.choice(state.legal_moves()))
    result = analyse(state, time=60, iterations=200, seed=1)
    assert sorted(m.move for m in result.moves) == sorted(state.notation(m) for m in state.legal_moves())
    assert sum(m.visits or 0 for m in result.moves) == 200
    assert result.values is not None and len(result.values) == state.game.num_players
    visits = [m.visits or 0 for m in result.moves]
    assert visits == sorted(visits, reverse=True)


# -- Spagyric: one seat's view -------------------------------------------------------------------


def random_spagyric(seed: int, supply: int) -> Iterator[SpagyricState]:
    rng = random.Random(seed)
    state = spheria.load_game("spagyric", supply=supply).new_initial_state(seed=seed)
    assert isinstance(state, SpagyricState)
    while not state.is_terminal():
        yield state
        if state.current_player() == SIMULTANEOUS:
            state.apply_joint([rng.choice(state.legal_moves(p)) for p in (0, 1)])
        else:
            state.apply(rng.choice(state.legal_moves()))


def bag_twin(state: SpagyricState) -> SpagyricState | None:
    """The position with one ball of each colour moved from one seat's bag to the other's:
    the same for both seats' views, different in what the rules hide."""
    fields = state.to_spn().split()
    bags = [[int(n) for n in fields[6].split(",")], [int(n) for n in fields[7].split(",")]]
    for gainer in (0, 1):
        moved = [[n + (1 if seat == gainer else -1) for n in bags[seat]] for seat in (0, 1)]
        if min(moved[0] + moved[1]) < 0:
            continue
        try:
            twin = state.game.state_from_spn(" ".join([*fields[:6], *(",".join(map(str, b)) for b in moved)]))
        except ValueError:
            continue
        assert isinstance(twin, SpagyricState)
        return twin
    return None


def reveals(supply: int, exact: bool) -> Iterator[SpagyricState]:
    """Reveals of random games: those the exact solver reaches (``exact``) or those it does not."""
    for seed in range(300):
        for state in random_spagyric(seed, supply):
            if state.phase == REVEAL and (held(position_of(state)) <= SPAGYRIC_HELD) == exact:
                yield state.clone()


def twins(supply: int, exact: bool, wanted: int) -> list[tuple[SpagyricState, SpagyricState]]:
    found = []
    for state in reveals(supply, exact):
        twin = bag_twin(state)
        if twin is not None:
            found.append((state, twin))
        if len(found) == wanted:
            return found
    raise AssertionError("no twins found")


@pytest.mark.parametrize(("supply", "status"), [(2, EXACT), (3, EXACT), (8, ESTIMATE)])
def test_spagyric_twins_differing_in_hidden_data_get_byte_identical_analyses(supply: int, status: str) -> None:
    for state, twin in twins(supply, status == EXACT, 3):
        assert state.to_spn() != twin.to_spn()
        for seat in (0, 1):
            one = analyse(state, seat=seat, time=60, iterations=200, seed=5)
            other = analyse(twin, seat=seat, time=60, iterations=200, seed=5)
            assert one.status == status
            assert json.dumps(one.to_json(statistics=False)) == json.dumps(other.to_json(statistics=False))
            by_view = analyse(state.view(seat), time=60, iterations=200, seed=5)
            assert json.dumps(by_view.to_json(statistics=False)) == json.dumps(one.to_json(statistics=False))


@pytest.mark.parametrize("supply", [1, 2])
def test_spagyric_exact_values_are_the_solvers(supply: int) -> None:
    solver = SpagyricSolver()
    for state in itertools.islice(reveals(supply, exact=True), 4):
        solution = solver.solve_reveal(position_of(state))
        for seat in (0, 1):
            result = analyse(state, seat=seat)
            sign = 1.0 if seat == 0 else -1.0
            assert result.value == pytest.approx(sign * solution.value)
            assert sum(m.probability or 0.0 for m in result.moves) == pytest.approx(1.0)
            for move in result.moves:  # a colour played with weight is worth the game's value
                if (move.probability or 0.0) > 1e-9:
                    assert move.value == pytest.approx(result.value)
                else:
                    assert (move.value or 0.0) <= (result.value or 0.0) + 1e-9


def test_a_live_spagyric_game_needs_a_seat() -> None:
    state = spheria.load_game("spagyric", supply=1).new_initial_state(seed=1)
    with pytest.raises(ValueError, match="seat"):
        analyse(state)
    with pytest.raises(ValueError, match="seats 0 to 1"):
        analyse(state, seat=2)


def test_the_seat_that_does_not_place_is_analysed_too_on_the_estimate_path() -> None:
    """At a placement of a default game (past the exact solver's reach) the seat that does not
    place has no move to weigh: it gets an estimate with no moves, as the exact path gives it a
    value with none, never a refusal."""
    state = spheria.load_game("spagyric").new_initial_state(seed=1)
    state.apply_joint([state.parse_move("w", 0), state.parse_move("b", 1)])  # white beats black: seat 0 places
    assert state.current_player() == 0 and not state.legal_moves(1)
    idle = analyse(state, seat=1, iterations=20, seed=1)
    assert (idle.status, idle.method, idle.moves, idle.best_moves) == ("estimate", "spagyric-agent", [], [])
    placer = analyse(state, seat=0, iterations=20, seed=1)
    assert placer.moves and {m.move for m in placer.moves} <= {str(m) for m in state.legal_moves(0)}


# -- JSON and notation ---------------------------------------------------------------------------


def positions_of_every_game() -> list[tuple[spheria.State[Any], int | None]]:
    spagyric = spheria.load_game("spagyric", supply=1).new_initial_state(seed=2)
    spinca = spheria.load_game("spinca").new_initial_state(seed=2)
    return [
        (cake(ROW), None),
        (mint().new_initial_state(seed=2), None),
        (spheria.load_game("spline").state_from_spn(SPLINE_WIN_IN_ONE), None),
        (spinca, None),
        (spagyric, 0),
        (spagyric, 1),
    ]


@pytest.mark.parametrize("index", range(6))
def test_json_lists_every_legal_move_in_notation_that_parses_back(index: int) -> None:
    state, seat = positions_of_every_game()[index]
    result = analyse(state, seat=seat, time=60, iterations=100, seed=1)
    data = json.loads(json.dumps(result.to_json()))
    assert set(data) == JSON_KEYS and all(set(m) == MOVE_KEYS for m in data["moves"])
    legal = state.legal_moves(seat) if seat is not None else state.legal_moves()
    listed = [state.parse_move(m["move"], seat) for m in data["moves"]]
    assert sorted(map(str, listed)) == sorted(map(str, legal))
    for line in (data["best_moves"], data["principal_variation"][:1]):
        assert all(state.parse_move(text, seat) in legal for text in line)
    assert data["game"] == state.game.name and data["seat"] == (state.current_player() if seat is None else seat)


def test_a_hidden_information_game_without_its_own_analysis_is_refused_until_it_is_over() -> None:
    # Spagyric is analysed from a view; any other hidden-information game would hand MCTS the
    # referee's state, so it is refused while it is live.
    state = SecretNumbers().new_initial_state(seed=3)
    with pytest.raises(ValueError, match="hides information"):
        analyse(state)
    play(state, [RandomAgent(seed=1), RandomAgent(seed=2)])
    assert analyse(state).status == OVER


class OracleNumbers(SecretNumbers):
    """Secret Numbers whose kit offers an analysis of its own: it answers a seat's view, and
    leaves a state with every secret in it to the generic estimate (which refuses it)."""

    name = "test-oracle-numbers"
    asked: ClassVar[list[tuple[Any, Budget]]] = []

    @classmethod
    def kit(cls) -> GameKit:
        return GameKit(analyse=Analyser(cls.oracle, {"oracle": "the oracle"}))

    @classmethod
    def oracle(cls, target: Any, budget: Budget) -> Analysis | None:
        cls.asked.append((target, budget))
        if isinstance(target, State):
            return None
        seat = target.observation(0)["player"]
        return Analysis(cls.name, {}, "", seat, None, "oracle", EXACT, value=0.5)


def test_a_games_own_analysis_is_asked_first_and_sees_only_the_seats_view() -> None:
    state = OracleNumbers().new_initial_state(seed=3)
    with pytest.raises(ValueError, match="seat"):
        analyse(state)
    result = analyse(state, seat=1, time=7, iterations=9, seed=4)
    assert (result.method, result.status, result.seat, result.value) == ("oracle", EXACT, 1, 0.5)
    view, budget = OracleNumbers.asked[-1]
    assert not isinstance(view, State) and view.observation(1)["card"] == state.cards[1]
    assert (budget.time, budget.iterations, budget.seed) == (7.0, 9, 4)
    with pytest.raises(ValueError, match="hides information"):  # the full state: no estimate
        analyse_game([state])
    assert isinstance(OracleNumbers.asked[-1][0], State)


def test_bad_arguments_are_refused() -> None:
    state = cake(ROW)
    for time in (0, -1, float("inf"), True, "1"):
        with pytest.raises(ValueError, match="time"):
            analyse(state, time=time)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="iterations"):
        analyse(state, iterations=0)
    with pytest.raises(ValueError, match="game state"):
        analyse("w.b 1 eat")  # type: ignore[arg-type]


# -- a whole game ----------------------------------------------------------------------------------


def test_a_sugar_game_marks_exactly_the_moves_that_threw_a_win_away() -> None:
    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=5)
    play(state, [RandomAgent(seed=1), RandomAgent(seed=2)])
    result = analyse_game(Record.from_state(state, ["random", "random"]), time=None)
    replay = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=5)
    assert len(result.moves) == len(state.history) and len(result.evaluation) == len(state.history) + 1
    expected = []
    for number, move in enumerate(state.history, 1):
        assert isinstance(replay, CakeState)
        before = solve(replay).value
        replay.apply(move)
        after = solve(replay).value if not replay.is_terminal() else -1
        if before > 0 and after > 0:  # the opponent now to move wins: the mover threw it away
            expected.append(number)
    assert result.threw_away_win == expected
    row = result.moves[0]
    assert row.before.exact and row.move == state.notation(state.history[0])


def test_a_spinca_game_has_an_evaluation_series_and_its_largest_drops() -> None:
    state = spheria.load_game("spinca").state_from_spn(SPINCA_WIN_IN_ONE)
    state.apply(state.parse_move("2a1"))  # White misses the win, and the game ends lost
    result = analyse_game(state, time=60, iterations=400, seed=3)
    assert [m.move for m in result.moves] == ["2a1"]
    assert len(result.evaluation) == 2 and all(v is not None for v in result.evaluation)
    assert result.moves[0].drop is not None and result.moves[0].drop > 0.2  # a certain win let go
    assert 1 in result.largest_drops
    data = json.loads(json.dumps(result.to_json(statistics=False)))
    assert set(data) == {
        "game",
        "options",
        "moves",
        "threw_away_win",
        "largest_drops",
        "drops_within_error",
        "evaluation",
    }


def test_a_finished_spagyric_game_is_analysed_from_the_full_record() -> None:
    states = [s.clone() for s in random_spagyric(4, 1)]
    last = states[-1].clone()
    move = last.legal_moves()[0]
    last.apply(move)
    states.append(last)
    result = analyse_game(states)
    assert len(result.moves) == len(states) - 1
    reveals = [m for m in result.moves if m.seat is None]
    assert reveals and all(m.before.status == EXACT for m in result.moves)
    assert result.evaluation[-1] == last.returns()[0]


def test_positions_that_do_not_follow_each_other_are_refused() -> None:
    state = spheria.load_game("spline").state_from_spn(SPLINE_WIN_IN_ONE)
    with pytest.raises(ValueError, match="position 2"):
        analyse_game([state, state.clone()])
    with pytest.raises(ValueError, match="record"):
        analyse_game(42)  # type: ignore[arg-type]


def test_analysis_is_a_frozen_value() -> None:
    result = analyse(cake(ROW))
    assert isinstance(result, Analysis)
    assert result.move("0a1+0b1").value == 1.0
    with pytest.raises(KeyError):
        result.move("0d4")


def test_the_examples_in_docs_analysis_md_run() -> None:
    path = Path(__file__).resolve().parents[2] / "docs" / "analysis.md"
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0


def test_a_mint_set_up_is_analysed_exactly_from_the_shipped_table() -> None:
    from spheria.analysis import analyse

    state = spheria.load_game("special-cake", variant="mint").new_initial_state()
    report = analyse(state, time=5).to_json(statistics=False)
    assert report["status"] == "exact" and report["verdict"] == 1  # Mint wins from the empty table
    assert len(report["best_moves"]) == 16  # with every first placement (docs/solver.md)
    assert {move["value"] for move in report["moves"]} == {1.0}
