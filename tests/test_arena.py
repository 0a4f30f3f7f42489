"""The arena: fair seating, reproducible games, results, ratings, records and interruption."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spheria.arena import (
    AgentRow,
    ArenaReport,
    GameJob,
    GameResult,
    bradley_terry,
    make_jobs,
    run_arena,
    seatings,
)
from spheria.cli.main import main
from spheria.i18n import using
from spheria.kernel.record import Record


def test_a_full_cycle_puts_every_agent_in_every_seat_equally() -> None:
    cycle = seatings(["a", "b", "c"], 3)
    assert len(cycle) == 6
    for seat in range(3):
        assert Counter(order[seat] for order in cycle) == {"a": 2, "b": 2, "c": 2}
    pairs = seatings(["a", "b", "c"], 2)  # three agents in a two-seat game: every pair, both ways
    assert sorted(pairs) == [("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"), ("c", "a"), ("c", "b")]


def seat_counts(game: str, options: dict[str, Any], agents: list[str], games: int) -> Counter[tuple[str, int]]:
    jobs = make_jobs(game, options, agents, games, seed=1)
    return Counter((spec, seat) for job in jobs for seat, spec in enumerate(job.seats))


@pytest.mark.parametrize(
    ("game", "options", "seats"),
    [("spline", {}, 2), ("spinca", {"players": 3}, 3), ("spinca", {"players": 4}, 4)],
)
@pytest.mark.parametrize("extra_agents", [0, 1, 2])
def test_every_agent_sits_in_every_seat_equally_often_after_any_number_of_games(
    game: str, options: dict[str, Any], seats: int, extra_agents: int
) -> None:
    agents = [f"random:seed={i}" for i in range(seats + extra_agents)]
    for games in range(1, 3 * len(agents) + 2):
        counts = seat_counts(game, options, agents, games)
        per_pair = [counts[(spec, seat)] for spec in agents for seat in range(seats)]
        assert max(per_pair) - min(per_pair) <= 1, (games, counts)


def test_four_seats_and_eight_games_seat_everyone_first_twice() -> None:
    agents = ["random:seed=1", "random:seed=2", "random:seed=3", "random:seed=4"]
    counts = seat_counts("spinca", {"players": 4}, agents, 8)
    assert all(counts[(spec, seat)] == 2 for spec in agents for seat in range(4))  # was 6, 2, 0, 0 in seat 0


def test_a_three_seat_arena_reports_fair_seats() -> None:
    agents = ["random:seed=1", "random:seed=2", "greedy:seed=3"]
    report = run_arena("spinca", {"players": 3}, agents, games=4, seed=3)
    by_seat = {spec: [row.games for row in rows] for spec, rows in report.by_seat.items()}
    assert sorted(by_seat) == sorted(agents)
    assert all(sorted(seats) in ([1, 1, 2], [1, 2, 1], [2, 1, 1]) for seats in by_seat.values())
    assert sum(seats[0] for seats in by_seat.values()) == 4


def test_seating_needs_enough_distinct_agents() -> None:
    with pytest.raises(ValueError, match="3 seats but only 2 agents"):
        seatings(["a", "b"], 3)
    with pytest.raises(ValueError, match="each agent once"):
        seatings(["random", "random"], 2)


def test_the_same_seed_gives_the_same_games_in_one_process_or_two() -> None:
    def outcome(workers: int, seed: int) -> list[tuple[tuple[str, ...], tuple[float, ...], int]]:
        report = run_arena("spline", {}, ["random", "greedy"], games=6, seed=seed, workers=workers)
        return [(r.seats, r.returns, r.moves) for r in report.results]

    assert outcome(1, 5) == outcome(2, 5)
    assert outcome(1, 5) != outcome(1, 6)  # the seed matters (move counts differ across 6 random games)


def test_the_report_counts_every_game_for_both_agents_and_seats() -> None:
    report = run_arena("special-cake", {"variant": "sugar"}, ["random", "greedy"], games=8, seed=2)
    assert len(report.results) == 8 and not report.interrupted
    for spec in ("random", "greedy"):
        row = report.agents[spec]
        assert row.games == 8
        assert [seat.games for seat in report.by_seat[spec]] == [4, 4]  # alternating seats
    # Special Cake has no draws: every game is a win for one and a loss for the other.
    assert report.agents["random"].wins == report.agents["greedy"].losses
    data = report.to_json()
    assert data["games"] == 8 and set(data["agents"]) == {"random", "greedy"}


def test_wilson_interval() -> None:
    row = AgentRow(wins=10)
    low, high = row.interval()
    assert high == 1.0 and 0.72 < low < 0.73  # the textbook 95 % Wilson bound for 10/10
    even = AgentRow(wins=50, losses=50)
    low, high = even.interval()
    assert even.score == 0.5 and abs((low + high) / 2 - 0.5) < 1e-9 and 0.40 < low < 0.41


def test_bradley_terry_orders_by_results_and_averages_1500() -> None:
    even = bradley_terry(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)])
    assert even["a"] == pytest.approx(even["b"]) == pytest.approx(1500)
    chain = bradley_terry(["a", "b", "c"], [("a", "b", 1.0)] * 5 + [("b", "c", 1.0)] * 5)
    assert chain["a"] > chain["b"] > chain["c"]
    assert sum(chain.values()) / 3 == pytest.approx(1500)
    draws = bradley_terry(["a", "b"], [("a", "b", 0.5)] * 10)
    assert draws["a"] == pytest.approx(draws["b"])


def test_ratings_come_from_the_games_played() -> None:
    report = ArenaReport("spline", {}, ["x", "y"], 3)
    for i in range(3):
        report.add(
            GameResult(i, ("x", "y") if i % 2 == 0 else ("y", "x"), (1.0, -1.0) if i % 2 == 0 else (-1.0, 1.0), 9)
        )
    ratings = report.ratings()
    assert ratings["x"] > ratings["y"]  # x won all three, from both seats
    assert report.agents["x"].wins == 3 and report.by_seat["x"][1].wins == 1


def test_tied_agents_are_listed_in_the_order_they_were_named_whatever_order_results_arrive() -> None:
    # a beats b, b beats c, c beats a, once each from each seat: all three tie on rating and score.
    wins = [("a", "b"), ("b", "c"), ("c", "a")]
    results = [
        GameResult(index, seats, (1.0, -1.0) if seats == pair else (-1.0, 1.0), 9)
        for index, (pair, seats) in enumerate((pair, seats) for pair in wins for seats in (pair, pair[::-1]))
    ]
    tables, orders = set(), set()
    for arrival in (results, results[::-1], results[2:] + results[:2]):
        report = ArenaReport("spline", {}, ["c", "a", "b"], len(results))
        for result in arrival:
            report.add(result)
        tables.add(report.table())
        orders.add(tuple(report.to_json()["agents"]))
    assert orders == {("c", "a", "b")}  # the order named on the command line
    assert len(tables) == 1


def test_records_of_every_game_replay(tmp_path: Path) -> None:
    report = run_arena("special-cake", {"variant": "mint"}, ["random", "greedy"], games=3, seed=4, records_dir=tmp_path)
    files = sorted(tmp_path.glob("*.spheria.json"))
    assert len(files) == 3
    for path, result in zip(files, report.results, strict=True):
        record = Record.load(path)
        state = record.replay()  # replays through the rules, checking the result
        assert tuple(state.returns()) == result.returns


def test_an_interrupt_keeps_the_finished_games() -> None:
    def stop_after_two(report: ArenaReport, result: GameResult) -> None:
        if len(report.results) == 2:
            raise KeyboardInterrupt

    report = run_arena("spline", {}, ["random", "greedy"], games=10, seed=1, on_result=stop_after_two)
    assert report.interrupted and len(report.results) == 2
    assert sum(row.games for row in report.agents.values()) == 4
    assert "interrupted" in report.table()


def test_the_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["arena", "spinca", "--agents", "random:seed=1,random:seed=2,random:seed=3", "--games", "3", "--json"]
    )
    out = capsys.readouterr().out
    assert status == 0
    data: dict[str, Any] = json.loads(out)
    assert data["options"]["players"] == 3  # three agents make a three-seat Spinca
    assert sum(a["wins"] for a in data["agents"].values()) >= 3  # every game has a winner or is a draw
    assert data["games"] == 3


def test_the_command_rejects_a_bad_agent(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["arena", "spline", "--agents", "random,nobody", "--games", "2"])
    assert status == 1
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def no_games(jobs: list[GameJob], workers: int, keep_records: bool) -> Iterator[GameResult]:
    """A backend that plays nothing: what an arena says before its first game."""
    return iter(())


def test_an_arena_names_every_agent_whose_budget_is_time() -> None:
    # spagyric's time=1 is its default (no budget given); level:5 is spagyric:time=1 underneath.
    agents = ["spagyric", "spagyric:iterations=20", "level:5", "level:3"]
    report = run_arena("spagyric", {}, agents, games=4, backend=no_games)
    assert report.time_budgets == {"spagyric": 1.0, "level:5": 1.0}
    table = report.table()
    budget = "has a time budget: its results depend on the machine and its load"
    assert f"spagyric (time=1 s) {budget}" in table
    assert f"level:5 (time=1 s) {budget}" in table
    assert "give it iterations or a depth for a reproducible arena" in table
    assert table.count("time budget") == 2  # not the iterations, not level 3 (iterations too)
    data = report.to_json()
    assert data["time_budgets"] == {"spagyric": 1.0, "level:5": 1.0} and data["reproducible"] is False
    with using("ko"):
        korean = report.table()
    assert "spagyric(time=1초)는 시간 예산으로 둡니다" in korean and "level:5(time=1초)" in korean


def test_an_arena_of_counted_budgets_says_nothing_of_time() -> None:
    agents = ["mcts:iterations=20", "alphabeta:depth=2", "greedy:blunder=0.2", "random"]
    report = run_arena("spline", {}, agents, games=4, seed=1)
    assert report.time_budgets == {}
    assert "time budget" not in report.table()
    assert report.to_json()["time_budgets"] == {} and report.to_json()["reproducible"] is True


def test_a_time_budget_inside_another_agent_is_found() -> None:
    # the wrapped search of a blunderer; the planner that builds the cake for a solver.
    agents = ["mcts:time=0.05,blunder=0.5", "solver:setup=planner", "solver", "alphabeta"]
    report = run_arena("special-cake", {"variant": "poisoned"}, agents, games=4, backend=no_games)
    assert report.time_budgets == {"mcts:time=0.05,blunder=0.5": 0.05, "solver:setup=planner": 3.0, "alphabeta": 1.0}


def test_the_command_names_a_time_budget_in_its_table_and_its_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "spline", "--agents", "mcts:time=0.01,random", "--games", "1"]
    assert main(argv) == 0
    assert "mcts:time=0.01 (time=0.01 s) has a time budget" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["time_budgets"] == {"mcts:time=0.01": 0.01} and data["reproducible"] is False
    assert main(["--lang", "ko", *argv]) == 0
    assert "mcts:time=0.01(time=0.01초)는 시간 예산으로 둡니다" in capsys.readouterr().out
