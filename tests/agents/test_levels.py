"""Levels ``level:1`` … ``level:5``: every game has them, each resolves to its table's agent for
the game it meets, plays legal moves, and a level out of range is refused with a clear message.

Budgets are tiny: every level is made with ``max_time=0.05``, which shrinks its time budget
(the solver's, the planner's, alphabeta's and the searches') to that.
"""

from __future__ import annotations

import io
import itertools
import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import spheria
from benchmarks.ladder import Ladder, clocked, gaps, ladder_agents, rate, run_ladder, schedule
from benchmarks.ladder import main as ladder_main
from benchmarks.results import LadderResult
from spheria.agents.levels import (
    LEVEL_NUMBERS,
    all_ladders,
    level_catalog,
    level_key,
    level_words,
    levels_for,
)
from spheria.agents.registry import LevelAgent, check_spec, make_agent, parse_spec
from spheria.arena import run_arena
from spheria.cli.main import main
from spheria.games.spline import levels as spline_levels
from spheria.kernel.game import SIMULTANEOUS, State

#: Every game's ladders, by key.
LEVELS = all_ladders()

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned"}),
    ("spline", {}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spagyric", {"supply": 3}),
]
IDS = [f"{n}-{o}" for n, o in GAMES]
TINY = 0.05


def test_the_table_has_five_levels_for_every_game_and_nothing_else() -> None:
    keys = {level_key(spheria.load_game(name, **options)) for name, options in GAMES}
    assert keys == set(LEVELS)
    for levels in LEVELS.values():
        assert [entry.level for entry in levels] == list(LEVEL_NUMBERS)
        assert all(entry.seconds > 0 for entry in levels)
    words = [level_words(n) for n in LEVEL_NUMBERS]
    assert len(set(words)) == 5 and words[-1] == "strongest"


@pytest.mark.parametrize(("name", "options"), GAMES, ids=IDS)
def test_each_level_names_an_agent_that_fits_its_game(name: str, options: dict[str, Any]) -> None:
    game = spheria.load_game(name, **options)
    for entry in levels_for(game):
        concrete = check_spec(entry.spec, game)  # the table's spec is valid and fits
        level = check_spec(f"level:{entry.level}", game)
        assert isinstance(level, LevelAgent) and level.name == f"level:{entry.level}"
        assert level.resolved_spec == concrete.name  # the level is exactly the table's agent
        assert level.describe() == f"level:{entry.level} ({concrete.name})"
        assert level.max_seconds_per_move() == concrete.max_seconds_per_move()


def test_the_catalog_offers_each_games_levels_as_specs_and_words() -> None:
    catalog = level_catalog()
    mint = spheria.load_game("special-cake", variant="mint")
    rows = catalog[level_key(mint)]
    assert [row["spec"] for row in rows] == [f"level:{n}" for n in LEVEL_NUMBERS]
    assert [row["words"] for row in rows] == [level_words(n) for n in LEVEL_NUMBERS]
    assert rows[4]["agent"] == levels_for(mint)[4].spec and rows[4]["seconds"] == 5.0
    assert set(catalog) == set(LEVELS)


def test_the_strongest_level_is_the_strongest_agent_for_each_game() -> None:
    top = {key: levels[-1].spec for key, levels in LEVELS.items()}
    assert top["special-cake/mint"].startswith("solver:setup=table")  # perfect play from the set-up table
    assert top["special-cake/poisoned"].startswith("solver:setup=table")  # poisoned's set-up table too
    assert top["special-cake/sugar"].startswith("solver")
    assert top["spagyric"].startswith("spagyric")
    assert all(top[f"spinca/{n}"].startswith("mcts") for n in (2, 3, 4))
    assert top["spline"] == "alphabeta:time=1,engine=game"  # Spline's own search: deeper in the same time


def _positions(game: spheria.Game, seed: int) -> list[State[Any]]:
    """The initial position and one halfway through a random game."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        player = state.current_player()
        if player == SIMULTANEOUS:
            state.apply_joint([rng.choice(state.legal_moves(p)) for p in range(game.num_players)])
        else:
            state.apply(rng.choice(state.legal_moves()))
        states.append(state.clone())
    return [states[0], states[len(states) // 2]]


@pytest.mark.parametrize("level", LEVEL_NUMBERS)
@pytest.mark.parametrize(("name", "options"), GAMES, ids=IDS)
def test_every_level_plays_a_legal_move_at_the_start_and_in_mid_game(
    name: str, options: dict[str, Any], level: int
) -> None:
    game = spheria.load_game(name, **options)
    for state in _positions(game, seed=level):
        agent = check_spec(f"level:{level},seed=7", game, max_time=TINY)
        before = state.to_spn() if hasattr(state, "to_spn") else None
        player = state.current_player()
        seat = 0 if player == SIMULTANEOUS else player
        move = agent.choose(state.view(seat), seat)
        assert str(move) in {str(legal) for legal in state.legal_moves(seat)}
        assert before is None or state.to_spn() == before  # the agent played on copies
        assert isinstance(agent, LevelAgent) and agent.entry == levels_for(game)[level - 1]


def test_a_level_resolves_from_the_view_it_is_shown_without_a_fit_check() -> None:
    state = spheria.load_game("spagyric", supply=3).new_initial_state(seed=1)
    agent = make_agent("level:2,seed=1", max_time=TINY)
    assert isinstance(agent, LevelAgent) and agent.agent is None
    agent.choose(state.view(0), 0)  # a hidden-information view: the game is read from its observation
    fitted = check_spec("level:2,seed=1", spheria.load_game("spagyric", supply=3), max_time=TINY)
    assert isinstance(fitted, LevelAgent) and agent.resolved_spec == fitted.resolved_spec
    assert agent.resolved_spec is not None and agent.resolved_spec.startswith("spagyric:")
    spline = spheria.load_game("spline").new_initial_state()
    agent.choose(spline.view(0), 0)  # the same agent meeting another game resolves again
    assert agent.resolved_spec is not None and agent.resolved_spec.startswith(LEVELS["spline"][1].spec.split(":")[0])


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("level:0", "there are levels 1 to 5 (level:1 ... level:5), not 0"),
        ("level:6", "there are levels 1 to 5 (level:1 ... level:5), not 6"),
        ("level:x", "there are levels 1 to 5 (level:1 ... level:5), not 'x'"),
        ("level:2.5", "there are levels 1 to 5 (level:1 ... level:5), not 2.5"),
        ("level", "there are levels 1 to 5"),
        ("level:3,depth=2", "level has no option 'depth' (options: level, clock, seed, blunder)"),
        ("level:3,clock=sun", "level option clock must be one of wall, cpu, not 'sun'"),
        ("level:3,blunder=1.5", "level option blunder must be a number from 0 to 1, not 1.5"),
        ("level:3,seed=-1", "level option seed must be a whole number from 0"),
    ],
)
def test_a_bad_level_is_refused_naming_the_problem(spec: str, problem: str) -> None:
    with pytest.raises(ValueError) as refused:
        make_agent(spec)
    assert problem in str(refused.value)


def test_a_level_name_is_a_spec_that_makes_the_same_level_again() -> None:
    agent = make_agent("level:4,seed=9")
    assert agent.name == "level:4,seed=9" and make_agent(agent.name).name == agent.name
    assert make_agent("level:level=4").name == "level:4"
    with pytest.raises(ValueError, match="or a level: level:1 to level:5"):
        make_agent("levels")


def test_a_level_on_the_cpu_clock_passes_it_to_an_agent_that_takes_one() -> None:
    level = check_spec("level:4,clock=cpu,seed=2", spheria.load_game("spline"))
    assert isinstance(level, LevelAgent) and level.name == "level:4,clock=cpu,seed=2"
    assert make_agent(level.name).name == level.name
    assert level.resolved_spec == make_agent(f"{LEVELS['spline'][3].spec},clock=cpu").name  # the table's level 4
    assert "clock=cpu" in level.resolved_spec
    greedy = check_spec("level:1,clock=cpu", spheria.load_game("spline"))
    assert isinstance(greedy, LevelAgent) and greedy.resolved_spec == LEVELS["spline"][0].spec  # greedy has no clock
    cake = check_spec("level:5,clock=cpu", spheria.load_game("special-cake", variant="sugar"))
    assert isinstance(cake, LevelAgent) and cake.resolved_spec == f"{LEVELS['special-cake/sugar'][4].spec},clock=cpu"


def test_levels_below_the_top_are_weakened_agents_and_the_top_is_not() -> None:
    for key, levels in LEVELS.items():
        top = parse_spec(levels[-1].spec)[1]
        assert "blunder" not in top, key  # the strongest level is the strongest agent, unweakened
        for low, high in itertools.pairwise(levels):
            (name_low, low_options), (name_high, high_options) = parse_spec(low.spec), parse_spec(high.spec)
            if name_low == name_high and {**low_options, "blunder": 0} == {**high_options, "blunder": 0}:
                assert low_options.get("blunder", 0) > high_options.get("blunder", 0), (key, low.spec, high.spec)
        seconds = [entry.seconds for entry in levels]
        assert max(seconds[:3]) <= 0.2 and seconds[3] <= 0.5, key  # the times the docs state
        assert seconds[4] <= (5.0 if key.startswith("special-cake") else 1.0), key


def test_a_level_time_above_the_callers_cap_shrinks_to_it() -> None:
    game = spheria.load_game("spline")
    capped, uncapped = check_spec("level:5", game, max_time=0.5), check_spec("level:5", game)
    assert isinstance(capped, LevelAgent) and isinstance(uncapped, LevelAgent)
    assert capped.max_seconds_per_move() == 0.5 and capped.resolved_spec == "alphabeta:time=0.5,engine=game"
    assert uncapped.resolved_spec == "alphabeta:time=1,engine=game"


def test_the_arena_plays_levels_with_seeds(tmp_path: Path) -> None:
    report = run_arena("spline", {}, ["level:1", "random"], games=2, seed=3, records_dir=tmp_path)
    assert report.agents["level:1"].games == 2
    records = sorted(p.read_text() for p in tmp_path.iterdir())
    assert len(records) == 2 and all('"level:1,seed=' in text for text in records)


def test_spheria_play_takes_a_level(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("0a1\nquit\n"))
    assert main(["play", "spline", "--players", "human,level:2", "--no-save"]) == 1  # 1: quit before the end
    out, err = capsys.readouterr()
    assert "(level:2)" in out and "--players" not in err
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "spline", "--players", "human,level:9"]) == 1
    assert "there are levels 1 to 5" in capsys.readouterr().err


# -- the ladder's tooling ------------------------------------------------------------------------


def test_the_ladder_is_random_and_the_five_levels() -> None:
    assert ladder_agents() == ["random", "level:1", "level:2", "level:3", "level:4", "level:5"]


def test_the_schedule_rotates_seats_within_every_group() -> None:
    agents = ladder_agents()
    pairs = schedule(agents, [0, 1], games=4, seed=1)
    assert len(pairs) == 15 * 4
    for a, b in itertools.combinations(agents, 2):
        seats = [game.seats for game in pairs if set(game.seats) == {a, b}]
        assert sorted(seats) == sorted([(a, b), (a, b), (b, a), (b, a)])
    assert len({game.seed for game in pairs}) == len(pairs)
    triples = schedule(agents, [0, 1, 2], games=3, seed=1)
    assert len(triples) == 20 * 3
    for group in itertools.combinations(agents, 3):
        firsts = sorted(game.seats[0] for game in triples if set(game.seats) == set(group))
        assert firsts == sorted(group)  # each agent of the group opens once in three games


def test_in_a_game_of_teams_one_agent_holds_both_seats_of_its_team() -> None:
    agents = ladder_agents()
    teams = schedule(agents, [0, 1, 0, 1], games=2, seed=1)
    assert len(teams) == 15 * 2  # every pair of agents, as with two seats
    for a, b in itertools.combinations(agents, 2):
        assert sorted(game.seats for game in teams if set(game.seats) == {a, b}) == sorted([(a, b, a, b), (b, a, b, a)])
    mixed = schedule(agents, [0, 1, 2, 3], games=2, seed=1)
    assert len(mixed) == 15 * 2 and all(len(set(game.seats)) == 4 for game in mixed)  # every group of four


def test_a_team_of_one_agent_meets_the_other_team_once_a_game() -> None:
    won = LadderResult(("strong", "weak", "strong", "weak"), (1.0, -1.0, 1.0, -1.0), ([], [], [], []))
    drawn = LadderResult(("weak", "strong", "weak", "strong"), (0.0, 0.0, 0.0, 0.0), ([], [], [], []))
    ladder = Ladder("spinca", {"players": 4}, ["random", "weak", "strong"], [won, drawn])
    assert ladder.outcomes() == [("strong", "weak", 1.0), ("weak", "strong", 0.5)]
    assert ladder.score("strong") == (0.75, 2)


def test_ratings_anchor_random_at_zero_and_order_by_results() -> None:
    names = ["random", "weak", "strong"]
    outcomes = [("weak", "random", 1.0)] * 6 + [("weak", "random", 0.0)] * 4
    outcomes += [("strong", "random", 1.0)] * 9 + [("strong", "random", 0.0)]
    outcomes += [("strong", "weak", 1.0)] * 8 + [("strong", "weak", 0.0)] * 2
    ratings = rate(names, outcomes)
    assert ratings["random"].rating == 0.0
    assert 0 < ratings["weak"].rating < ratings["strong"].rating
    for rating in ratings.values():
        assert rating.low <= rating.rating <= rating.high
    more = rate(names, outcomes * 4)
    width = ratings["strong"].high - ratings["strong"].low
    assert more["strong"].high - more["strong"].low < width * 0.6  # four times the games: about half as wide
    even = rate(["random", "x"], [("x", "random", 1.0), ("x", "random", 0.0)] * 5)
    assert abs(even["x"].rating) < 1e-6 and even["x"].low < 0 < even["x"].high


def test_a_gap_is_surer_than_the_two_ratings_when_the_anchor_rarely_scores() -> None:
    names = ["random", "weak", "strong"]
    outcomes = [("weak", "random", 1.0)] * 19 + [("weak", "random", 0.0)]
    outcomes += [("strong", "random", 1.0)] * 20
    outcomes += [("strong", "weak", 1.0)] * 30 + [("strong", "weak", 0.0)] * 10
    ratings, (first, second) = rate(names, outcomes), gaps(names, outcomes)
    weak = ratings["weak"]
    assert (first.rating, first.low, first.high) == (weak.rating, weak.low, weak.high)  # above the anchor
    assert abs(second.rating - (ratings["strong"].rating - ratings["weak"].rating)) < 1e-9
    rating_width = ratings["strong"].high - ratings["strong"].low
    assert second.high - second.low < rating_width * 0.7  # the anchor's doubt, shared by both, cancels
    assert second.low > 0  # 30 of 40: surely stronger, though the two ratings' intervals overlap
    assert ratings["strong"].low < ratings["weak"].high


def test_a_tiny_ladder_runs_and_reports_every_agent() -> None:
    ladder = run_ladder("spline", {}, games=2, seed=1, max_time=TINY, agents=["random", "level:1", "level:2"])
    assert len(ladder.results) == 6 and all(len(r.returns) == 2 for r in ladder.results)
    rows = {row["agent"]: row for row in ladder.rows()}
    assert rows["random"]["rating"] == 0 and rows["level:2"]["plays"] == LEVELS["spline"][1].spec
    assert rows["level:1"]["words"] == level_words(1) and rows["level:1"]["pairings"] == 4
    assert all(row["max_s"] >= row["mean_s"] >= 0 for row in rows.values())
    assert all(len(seconds) > 0 for result in ladder.results for seconds in result.seconds)  # each seat's moves timed
    table = ladder.table()
    assert table.count("\n") == 3 and "level:2" in table


def test_the_ladder_plays_on_the_cpu_clock_by_default_and_names_the_specs_as_given(tmp_path: Path) -> None:
    assert clocked("level:3", "cpu") == "level:3,clock=cpu" and clocked("level:3", "wall") == "level:3"
    assert clocked("mcts:time=0.1,blunder=0.2", "cpu") == "mcts:time=0.1,blunder=0.2,clock=cpu"
    assert clocked("greedy", "cpu") == "greedy" and clocked("mcts:clock=wall", "cpu") == "mcts:clock=wall"
    journal = tmp_path / "ladder.jsonl"
    agents = ["random", "alphabeta:depth=1,blunder=0.5"]
    ladder = run_ladder("spline", {}, games=2, seed=1, max_time=TINY, agents=agents, journal=journal)
    assert {result.seats for result in ladder.results} == {tuple(agents), tuple(reversed(agents))}
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["clock"] == "cpu" and header["plays"] == agents
    again = run_ladder("spline", {}, games=2, seed=1, max_time=TINY, agents=agents, journal=journal)
    assert [r.returns for r in again.results] == [r.returns for r in ladder.results]  # resumed, not replayed
    with pytest.raises(ValueError, match="belongs to another run"):
        run_ladder("spline", {}, games=2, seed=1, max_time=TINY, agents=agents, journal=journal, clock="wall")


def test_the_ladder_command_rates_given_specs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["spline", "--games", "1", "--max-time", str(TINY), "--no-cpu-clock", "--agents", "random", "greedy"]
    assert ladder_main(argv) == 0
    out = capsys.readouterr().out
    assert "1 games, 1 per group" in out and "greedy" in out.splitlines()[-1]


def test_a_ladder_given_more_games_resumes_its_journal_and_adds_the_rest(tmp_path: Path) -> None:
    journal, agents = tmp_path / "more.jsonl", ["random", "greedy"]
    first = run_ladder("spline", {}, games=2, seed=4, max_time=TINY, agents=agents, journal=journal)
    more = run_ladder("spline", {}, games=4, seed=4, max_time=TINY, agents=agents, journal=journal)
    assert len(more.results) == 4 and more.results[:2] == first.results  # the first two read back, two played
    assert len(journal.read_text().splitlines()) == 1 + 4


def test_a_ladder_plays_in_rounds_so_a_run_cut_short_has_every_pair() -> None:
    agents = ["random", "greedy", "alphabeta:depth=1"]
    played = [
        result.seats for result in run_ladder("spline", {}, games=2, seed=1, max_time=TINY, agents=agents).results
    ]
    assert [set(seats) for seats in played[:3]] == [set(pair) for pair in itertools.combinations(agents, 2)]
    assert [set(seats) for seats in played[3:]] == [set(pair) for pair in itertools.combinations(agents, 2)]


def test_the_ladder_reports_a_journal_without_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "report.jsonl"
    argv = [
        "spline",
        "--games",
        "2",
        "--max-time",
        str(TINY),
        "--agents",
        "random",
        "greedy",
        "--journal",
        str(journal),
    ]
    assert ladder_main([*argv, "--report"]) == 0  # nothing played yet
    assert "0 games, 2 per group" in capsys.readouterr().out
    assert ladder_main(argv) == 0 and ladder_main([*argv, "--report", "--markdown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "2 games, 2 per group" in out[-5] and out[-1].startswith("| `greedy` |  | `greedy` |")
    assert len(journal.read_text().splitlines()) == 1 + 2  # the report played no more games


def test_a_report_reads_a_journal_played_with_an_earlier_level_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "old-table.jsonl"
    argv = ["spline", "--games", "2", "--max-time", str(TINY), "--agents", "random", "level:1"]
    argv += ["--journal", str(journal)]
    assert ladder_main(argv) == 0
    played = LEVELS["spline"][0].spec
    changed = replace(LEVELS["spline"][0], spec="greedy:blunder=0.1")
    monkeypatch.setitem(spline_levels.TABLES, "spline", (changed, *LEVELS["spline"][1:]))
    capsys.readouterr()
    assert ladder_main([*argv, "--report", "--markdown"]) == 0
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.startswith(f"| `level:1` | beginner | `{played}` |")  # what its games were played with
    with pytest.raises(ValueError, match="belongs to another run"):
        ladder_main([*argv[:2], "3", *argv[3:]])  # more games would mix two tables: refused
    assert len(journal.read_text().splitlines()) == 1 + 2


def test_the_pairs_table_shows_each_pairs_score_where_the_ratings_would_hide_it() -> None:
    # weak beats random 1 of 2 but strong 1 of 2 too; strong beats random 2 of 2
    def game(a: str, b: str, a_won: bool) -> LadderResult:
        return LadderResult((a, b), (1.0, -1.0) if a_won else (-1.0, 1.0), ([], []))

    results = [game("weak", "random", True), game("random", "weak", True), game("strong", "random", True)]
    results += [game("random", "strong", False), game("weak", "strong", True), game("strong", "weak", True)]
    ladder = Ladder("spline", {}, ["random", "weak", "strong"], results)
    scores = ladder.head_to_head()
    assert scores["weak", "random"] == (0.5, 2) and scores["random", "weak"] == (0.5, 2)
    assert scores["strong", "random"] == (1.0, 2) and scores["random", "strong"] == (0.0, 2)
    assert scores["weak", "strong"] == (0.5, 2) and ("weak", "weak") not in scores
    lines = ladder.pairs_table().splitlines()
    assert lines[0].split() == ["row", "/", "column", "random", "weak", "strong"]
    assert lines[3].split() == ["strong", "1.000", "(2)", "0.500", "(2)", "-"]


def test_seats_ranked_alike_part_nobody_unless_the_game_was_drawn() -> None:
    three = LadderResult(("random", "weak", "strong"), (-1.0, -1.0, 1.0), ([], [], []))
    teams = LadderResult(("random", "weak", "strong", "best"), (-1.0, 1.0, -1.0, 1.0), ([], [], [], []))
    drawn = LadderResult(("weak", "strong", "random"), (0.0, 0.0, 0.0), ([], [], []))
    assert Ladder("spinca", {"players": 3}, ["random", "weak", "strong"], [three]).outcomes() == [
        ("random", "strong", 0.0),
        ("weak", "strong", 0.0),
    ]  # the two losers are not a draw
    assert Ladder("spinca", {"players": 4}, ["random", "weak", "strong", "best"], [teams]).outcomes() == [
        ("random", "weak", 0.0),
        ("random", "best", 0.0),
        ("weak", "strong", 1.0),
        ("strong", "best", 0.0),
    ]  # partners (seats 0 and 2, 1 and 3) are left out
    assert Ladder("spinca", {"players": 3}, ["random", "weak", "strong"], [drawn]).outcomes() == [
        ("weak", "strong", 0.5),
        ("weak", "random", 0.5),
        ("strong", "random", 0.5),
    ]


def test_a_four_seat_ladder_seats_each_team_with_one_agent_and_says_so_in_its_journal(tmp_path: Path) -> None:
    journal = tmp_path / "teams.jsonl"
    agents = ["random", "greedy"]
    ladder = run_ladder("spinca", {"players": 4}, games=2, seed=1, max_time=TINY, agents=agents, journal=journal)
    assert [r.seats for r in ladder.results] == [
        ("random", "greedy", "random", "greedy"),
        ("greedy", "random", "greedy", "random"),
    ]
    assert ladder.score("greedy")[1] == 2  # one pairing a game, not one per pair of opposed seats
    assert json.loads(journal.read_text().splitlines()[0])["teams"] == "one agent a side"
    with pytest.raises(ValueError, match="belongs to another run"):
        run_ladder(
            "spinca", {"players": 4}, games=2, seed=1, max_time=TINY, agents=agents, journal=journal, mixed_teams=True
        )
