"""The guided Spinca playout, the match tool (benchmarks/match.py) and the Spline peer's seat (benchmarks/peer.py).

The peer (``shibumi`` + ``zero-play`` from PyPI) is not a dependency of Spheria; its tests run
where a benchmark environment installed it and are skipped elsewhere.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.match import Match, jobs, run_match, wilson
from benchmarks.results import LadderResult
from spheria.engine.board import BB_SITES, TOUCHING, parse_site
from spheria.games.spinca.knowledge import GUIDED_SHARE, ON_FACE, spinca_random_fill, touching_sites
from spheria.games.spinca.rules import PLACEMENTS, SEAT_COLORS, temple_placeable
from spheria.games.spline.rules import SplineState
from spheria.games.spline.search import SplineSearch
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView


def _script(*values: float) -> object:
    """A ``rand`` that returns ``values`` in turn, then 0."""
    feed = itertools.chain(values, itertools.repeat(0.0))
    return lambda: next(feed)


def test_a_guided_placement_joins_its_own_colour_on_a_face() -> None:
    white = BB_SITES[parse_site("0b2")]  # an inner site: white has no marble on a face yet
    black = BB_SITES[parse_site("0a1")]
    masks = (white, black, 0)
    last = PLACEMENTS - 1  # one turn left: White's (turn 28 of 2 players)
    assert SEAT_COLORS[2][last % 2] == 0
    free = temple_placeable(white | black)
    # no relocation (0.99 >= the relocation share), guided (0.0 < GUIDED_SHARE), lowest candidate (0.0)
    guided = spinca_random_fill(masks, last, 2, _script(0.99, 0.0), guided=True)  # type: ignore[arg-type]
    placed = guided[0] & ~white
    assert placed and placed & free & touching_sites(white) & ON_FACE
    assert placed == (free & touching_sites(white) & ON_FACE) & -(free & touching_sites(white) & ON_FACE)
    plain = spinca_random_fill(masks, last, 2, _script(0.99, 0.0))  # type: ignore[arg-type]
    assert plain[0] & ~white == free & -free  # unguided: the lowest free site, 0a2 next to nobody in particular
    not_guided = spinca_random_fill(masks, last, 2, _script(0.99, GUIDED_SHARE), guided=True)  # type: ignore[arg-type]
    assert not_guided == plain  # the share of random placements stays random


def testtouching_sites_is_the_union_of_each_marbles_neighbours() -> None:
    a, b = parse_site("0a1"), parse_site("1b2")
    assert touching_sites(BB_SITES[a] | BB_SITES[b]) == TOUCHING[a] | TOUCHING[b]
    assert touching_sites(0) == 0


def test_the_challenger_plays_each_side_in_turn_and_a_team_with_both_its_seats() -> None:
    assert [side for side, _ in jobs("a", "b", [0, 1, 2], 6, seed=1)] == [0, 1, 2, 0, 1, 2]
    four = jobs("a", "b", [0, 1, 0, 1], 4, seed=1)
    assert [job.seats for _, job in four] == [("a", "b", "a", "b"), ("b", "a", "b", "a")] * 2
    assert len({job.seed for _, job in four}) == 4


def test_the_score_counts_pairings_with_the_other_sides() -> None:
    match = Match("new", "old", 3)
    times = ([0.1], [0.2], [0.3])
    assert match.add(LadderResult(("new", "old", "old"), (1.0, -1.0, -1.0), times), 0, [0, 1, 2]) == 1
    assert match.add(LadderResult(("old", "new", "old"), (1.0, -1.0, -1.0), times), 1, [0, 1, 2]) == 0.25
    assert match.score == pytest.approx(0.625)
    assert match.times["new"] == [0.1, 0.2] and match.times["old"] == [0.2, 0.3, 0.1, 0.3]
    team = Match("new", "old", 4)
    sides = [0, 1, 0, 1]
    assert team.add(LadderResult(("old", "new", "old", "new"), (-1.0, 1.0, -1.0, 1.0), ([], [], [], [])), 1, sides) == 1
    assert team.scores == [1.0] and team.by_seat == {1: [1.0]}  # the team's two seats are one side
    low, high = team.interval()
    assert 0 < low < high == pytest.approx(1.0)


def test_wilson_intervals_narrow_with_games_and_hold_the_score() -> None:
    low, high = wilson(150, 200)
    assert low < 0.75 < high and high - low < 0.13
    wide_low, wide_high = wilson(15, 20)
    assert wide_high - wide_low > (high - low) * 2.5
    assert wilson(0, 10)[0] == pytest.approx(0.0, abs=1e-12) and wilson(10, 10)[1] == pytest.approx(1.0)


def test_a_tiny_match_finishes_every_game() -> None:
    match = run_match("spline", {}, "greedy", "random", games=4, seed=2, workers=1)
    assert len(match.scores) == 4 and set(match.by_seat) == {0, 1}
    assert all(score in (0.0, 1.0) for score in match.scores)
    assert "greedy against random: 4 games" in match.summary()


def test_a_match_with_a_journal_resumes_and_refuses_another_run(tmp_path: Path) -> None:
    journal = tmp_path / "bench" / "match.jsonl"
    first = run_match("spline", {}, "greedy", "random", games=2, seed=4, workers=1, journal=journal)
    assert len(journal.read_text().splitlines()) == 3  # the header and two games
    with journal.open("a") as out:
        out.write('{"i": 3, "seats": ["gre')  # a game cut off by a killed run is played again
    longer = run_match("spline", {}, "greedy", "random", games=4, seed=4, workers=1, journal=journal)
    assert longer.scores[:2] == first.scores and len(longer.scores) == 4
    indices = [json.loads(line)["i"] for line in journal.read_text().splitlines()[1:] if line.endswith("}")]
    assert sorted(indices) == [0, 1, 2, 3]  # the first two were not played again
    assert {a: len(t) for a, t in longer.cpu_times.items()} == {a: len(t) for a, t in longer.times.items()}
    with pytest.raises(ValueError, match="belongs to another run"):
        run_match("spline", {}, "greedy", "random", games=2, seed=5, workers=1, journal=journal)


class _ProvenLate(Agent):
    """Random moves until ``balls`` balls are on the board, then a proven winning move where there is one."""

    name = "proven-late"

    def __init__(self, seed: int, balls: int) -> None:
        self.rng, self.balls = random.Random(seed), balls

    def choose(self, view: PlayerView, player: int) -> Any:
        assert isinstance(view, SplineState)
        if len(view.history) >= self.balls and (move := SplineSearch().winning_move(view)) is not None:
            return move
        return self.rng.choice(view.legal_moves())


def test_black_errors_are_counted_only_where_black_threw_a_proven_win_away(capsys: pytest.CaptureFixture[str]) -> None:
    # Black from 7 balls on: perfect, it never throws its win away; random, it does.
    from benchmarks.peer import peer_errors

    perfect = peer_errors("random:seed=1", 4, black=lambda seed: _ProvenLate(seed, 7), from_balls=7)
    assert perfect and all(errors == 0 for _, errors in perfect.values())
    careless = peer_errors("random:seed=2", 6, seed=1, black=lambda seed: _ProvenLate(seed, 99), from_balls=7)
    assert sum(errors for _, errors in careless.values()) > 0
    assert all(0 <= errors <= decisions and balls % 2 == 1 for balls, (decisions, errors) in careless.items())
    assert "Black's errors at" in capsys.readouterr().out


def test_the_swindle_ceiling_finds_no_mistake_in_a_perfect_black_and_some_in_a_careless_one() -> None:
    from benchmarks.peer import swindle_ceiling

    late = range(9, 14)
    perfect = swindle_ceiling("random:seed=1", 3, runs=2, plies=late, black=lambda seed: _ProvenLate(seed, 7))
    assert perfect and all(row["best_share"] == row["played_share"] == 0.0 for row in perfect)
    careless = swindle_ceiling("random:seed=2", 3, runs=4, seed=2, plies=late, black=lambda seed: _ProvenLate(seed, 99))
    assert any(row["best_share"] > 0 for row in careless)
    assert all(0 <= row["played_share"] <= row["best_share"] <= 1 and row["ply"] in late for row in careless)
