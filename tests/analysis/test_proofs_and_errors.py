"""Issue 36, items 3 and 4: a proved win comes with its winning move, the other moves follow as
they are proved; and a game's review claims a mistake only from exact values or from a fall
larger than the estimates' own error."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

import spheria
from spheria import analysis
from spheria.analysis import ESTIMATE, EXACT, Analysis, MoveAnalysis, MoveValue, Progress, analyse, analyse_game
from spheria.analysis.record import GameAnalysis
from spheria.games.special_cake.rules import EAT, CakeMove, CakeState
from spheria.games.special_cake.solver import solve

# w b w on 0a1 0b1 0c1 (mint): exactly the two pairs win (see test_analysis.py).
ROW = "wbw............./........./..../. 1 eat"


class _Stop(Exception):
    """Raised from a progress callback to end an analysis once what the test needs was reported."""


def _wins(state: CakeState, notation: str) -> bool:
    """Whether the move written ``notation`` wins for the player to move: the exact solver
    proves the position it leaves lost for the opponent (or it ends the game in the mover's favour)."""
    child = state.child(state.parse_move(notation))
    assert isinstance(child, CakeState)
    if child.is_terminal():
        return child.returns()[state.player] > 0
    return solve(child).value < 0


def _full_mint_cakes(seed: int) -> Iterator[CakeState]:
    game = spheria.load_game("special-cake", variant="mint")
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        assert isinstance(state, CakeState)
        while state.phase != EAT:
            state.apply(rng.choice(state.legal_moves()))
        yield state


def _eating_positions(variant: str, candies: int, count: int, seed: int) -> Iterator[CakeState]:
    """Random eating positions of ``variant`` with at most ``candies`` candies left."""
    rng = random.Random(seed)
    game = spheria.load_game("special-cake", variant=variant)
    for number in range(count):
        state = game.new_initial_state(seed=seed + number)
        assert isinstance(state, CakeState)
        while not state.is_terminal() and (state.phase != EAT or sum(m.bit_count() for m in state.masks()) > candies):
            state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            yield state


# -- item 3: the proof of a win is a winning move ------------------------------------------------


def test_the_solver_hands_over_each_move_as_it_is_proved() -> None:
    state = spheria.load_game("special-cake", variant="mint").state_from_spn(ROW)
    assert isinstance(state, CakeState)
    proved: list[tuple[str, int]] = []
    result = solve(state, proved=lambda move, value: proved.append((state.notation(move), value)))
    assert dict(proved) == {
        "0a1": -1,
        "0b1": -1,
        "0c1": -1,
        "0a1+0b1": 1,
        "0b1+0c1": 1,
        "0a1+0b1+0c1": -1,
    }
    assert len(proved) == len(state.legal_moves()) and result.value == 1
    first: list[tuple[CakeMove, int]] = []
    solve(state, stop_at_first=True, proved=lambda move, value: first.append((move, value)))
    assert first[-1][1] == 1 and [v for _, v in first[:-1]] == [-1] * (len(first) - 1)  # stops at the proof


@pytest.mark.parametrize(("variant", "seed"), [("mint", 3), ("sugar", 5), ("poisoned", 8)])
def test_the_verdict_comes_with_a_winning_move_and_the_other_moves_follow(variant: str, seed: int) -> None:
    won = 0
    streamed = False
    for state in _eating_positions(variant, 13, 8, seed):
        analysis.clear_cache()
        reports: list[Progress] = []
        result = analyse(state, time=None, progress=reports.append)
        partials = [r.partial for r in reports if r.partial is not None]
        truth = {state.notation(m): 1.0 if _wins(state, state.notation(m)) else -1.0 for m in state.legal_moves()}
        assert {m.move: m.value for m in result.moves} == truth
        if result.verdict != 1:
            assert not partials  # a lost position is known only once every move is proved
            continue
        won += 1
        assert partials, "a won position reports its verdict before the other moves are proved"
        for partial in partials:
            assert (partial.status, partial.verdict) == (EXACT, 1)
            assert partial.best_moves and all(truth[move] == 1.0 for move in partial.best_moves)
            assert all(m.value is None or m.value == truth[m.move] for m in partial.moves)
        counts = [sum(m.value is not None for m in p.moves) for p in partials]
        assert counts == sorted(counts)
        streamed = streamed or len(set(counts)) > 1
    assert won >= 2 and streamed


@pytest.mark.compiled_speed
def test_a_won_full_mint_cake_is_answered_with_a_winning_move() -> None:
    # The first won cake of seed 23 is proved in about 0.6 million positions.
    cake = next(c for c in _full_mint_cakes(23) if _table_mint_wins(c))
    analysis.clear_cache()
    first: list[Analysis] = []

    def stop_at_the_verdict(report: Progress) -> None:
        if report.partial is not None and report.partial.verdict is not None:
            first.append(report.partial)
            raise _Stop

    with pytest.raises(_Stop):
        analyse(cake, time=120, progress=stop_at_the_verdict)
    verdict = first[0]
    assert (verdict.status, verdict.verdict) == (EXACT, 1)
    assert verdict.best_moves, "the verdict came without a winning move"
    assert all(_wins(cake, move) for move in verdict.best_moves)
    assert all(verdict.move(move).value == 1.0 for move in verdict.best_moves)


def _table_mint_wins(cake: CakeState) -> bool:
    from spheria.games.special_cake.solver.setup_table import shipped_table

    white, black, _ = cake.masks()
    return shipped_table().mint_wins(white, black)


def test_a_search_cut_short_keeps_what_it_proved() -> None:
    state = next(_eating_positions("mint", 13, 1, 3))
    analysis.clear_cache()
    whole = analyse(state, time=None)
    winners = set(whole.best_moves)
    analysis.clear_cache()
    seen: list[Analysis] = []

    def cut_after_the_first_win(report: Progress) -> None:
        if report.partial is not None:
            seen.append(report.partial)
            raise TimeoutError  # as the solver does when the time runs out

    result = analyse(state, time=None, progress=cut_after_the_first_win)
    if whole.verdict == 1:
        assert (result.status, result.verdict) == (EXACT, 1)
        assert result.best_moves and set(result.best_moves) <= winners
        assert any(m.value is None for m in result.moves)  # not every move was proved
    else:
        assert not seen


# -- item 4: estimates are not mistakes ----------------------------------------------------------


def _estimate(moves: list[MoveValue], seat: int) -> Analysis:
    """A hand-made MCTS answer for ``seat``: worth what its most visited move is worth."""
    top = max(moves, key=lambda m: m.visits or 0)
    assert top.value is not None
    values = [top.value, -top.value] if seat == 0 else [-top.value, top.value]
    return Analysis(
        "special-cake",
        {"variant": "poisoned"},
        "?",
        seat,
        "place",
        "mcts",
        ESTIMATE,
        value=top.value,
        values=values,
        moves=moves,
        best_moves=[top.move],
        iterations=sum(m.visits or 0 for m in moves),
        error=top.error,
    )


def _move(notation: str, value: float, visits: int) -> MoveValue:
    return MoveValue(notation, value, visits, error=analysis.result.standard_error(value, visits))


def _review(played: MoveValue) -> GameAnalysis:
    """Mint played ``played`` where the search before it preferred 0a3 (50 %, 1,000 visits); the
    search of the position after it gave the opponent 78 % (Mint 22 %)."""
    before = _estimate([_move("0a3", 0.0, 1000), played], 0)
    after = _estimate([_move("1b2", 0.56, 400), _move("1a1", 0.4, 100)], 1)
    row = MoveAnalysis(1, 0, played.move, before, after)
    return GameAnalysis("special-cake", {"variant": "poisoned"}, [row], [0.0, -0.56])


def test_the_review_rates_a_move_as_the_engine_panel_does() -> None:
    # The issue's game: the panel rated 0c3 and 0a3 alike (50 %), yet the review said "the win
    # rate fell by 28 points. Winning instead: 0a3", from the separate search after the move.
    review = _review(_move("0c3", -0.02, 750))
    row = review.moves[0]
    assert row.win_rates == pytest.approx((0.5, 0.49)) and row.drop == pytest.approx(0.01)
    assert review.largest_drops == [] and review.drops_within_error == [] and row.better_moves == []


def test_a_fall_within_the_estimates_error_is_not_claimed_as_a_mistake() -> None:
    review = _review(_move("0c3", -0.56, 4))  # four visits: an error of about ±46 points
    row = review.moves[0]
    assert row.drop == pytest.approx(0.28)
    assert row.drop_margin is not None and row.drop_margin > 0.28
    assert not row.clear_drop and row.better_moves == []
    assert review.largest_drops == [] and review.drops_within_error == [1]
    data = review.to_json()
    assert data["largest_drops"] == [] and data["drops_within_error"] == [1]
    assert data["moves"][0]["better_moves"] == [] and data["moves"][0]["clear_drop"] is False
    assert data["moves"][0]["win_rates"] == [0.5, 0.22]


def test_a_fall_beyond_the_error_is_claimed_with_the_better_move() -> None:
    review = _review(_move("0c3", -0.56, 600))
    row = review.moves[0]
    assert row.drop == pytest.approx(0.28)
    assert row.drop_margin is not None and row.drop_margin < 0.1
    assert review.largest_drops == [1] and review.drops_within_error == []
    assert row.better_moves == ["0a3"]


def test_the_played_move_unsearched_is_measured_by_the_position_after_it() -> None:
    before = _estimate([_move("0a3", 0.0, 1000), MoveValue("0c3", None, 0)], 0)
    after = _estimate([_move("1b2", 0.56, 400)], 1)
    row = MoveAnalysis(1, 0, "0c3", before, after)
    assert row.win_rates == pytest.approx((0.5, 0.22)) and row.clear_drop and row.better_moves == []


def _margin(row: MoveAnalysis) -> float:
    """2 standard errors of the fall, from the visits of the moves it is measured by (each result
    from -1 to +1 varies by at most 1 - m², m its mean): computed here independently."""

    def error(entry: MoveValue) -> float:
        assert entry.value is not None and entry.visits
        return math.sqrt((1 - entry.value**2) / entry.visits)

    top = max(row.before.moves, key=lambda m: m.visits or 0)
    played = row.before.move(row.move)
    assert played.visits, "every move of these positions is searched"
    return 2 * math.hypot(error(top), error(played)) / 2


def test_a_reviewed_game_claims_no_fall_within_the_estimates_error() -> None:
    # A random poisoned set-up (same lines: mixed ones are exact from the shipped table), up to
    # the last placements (where the planner's exact search starts).
    state = spheria.load_game("special-cake", variant="poisoned", line_rule="same").new_initial_state(seed=4)
    assert isinstance(state, CakeState)
    rng = random.Random(1)
    states = [state.clone()]
    while state.game.placements - sum(m.bit_count() for m in state.masks()) > 8:
        state.apply(rng.choice(state.legal_moves()))
        states.append(state.clone())
    review = analyse_game(states, time=60, iterations=200, seed=1)
    estimated = [m for m in review.moves if not m.exact and m.drop is not None]
    assert estimated
    for row in review.moves:
        if row.number in review.largest_drops:
            assert row.drop is not None and row.drop > _margin(row)
        if row.better_moves and not row.threw_away_win:
            played = row.before.move(row.move)
            for notation in row.better_moves:
                best = row.before.move(notation)
                assert best.value is not None and played.value is not None and best.error and played.error
                assert best.value - played.value > 2 * math.hypot(best.error, played.error)
    big = [m.number for m in estimated if (m.drop or 0.0) >= 0.1]
    assert big and set(review.largest_drops) | set(review.drops_within_error) <= set(big)
    assert review.drops_within_error, "with 200 playouts a position, some falls are within the error"
