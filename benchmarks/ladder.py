"""The level ladder of one game: a round robin of ``random`` and ``level:1`` … ``level:5``.

``python -m benchmarks.ladder spline --games 20`` plays, for every group of agents that fills
the game's seats (every pair in a two-seat game), ``--games`` games with the arena's seat
rotation (:func:`spheria.arena.seating`), and prints Bradley–Terry ratings on the Elo scale
with ``random`` fixed at 0, each with a 95 % interval and its distance above the agent before it
(with that distance's own interval), beside each level's agent, its score and the time it took
per move (mean and longest). Options: ``--option K=V`` for the game (repeatable), ``--seed``
(games are reproducible up to time budgets), ``--workers`` (processes), ``--max-time S`` (caps
every level's thinking time: a tiny run for a test), ``--json``, ``--pairs`` (each pair's score
against each other, beside the ratings).

The ratings: Bradley–Terry strengths fitted by maximum likelihood (minorisation–maximisation)
on every pair of seats in every game (a win, a loss, or a draw counted as half of each; two
seats ranked alike in a game that was not drawn, the losers of a three-seat game or partners,
are left out), with one virtual draw per agent against ``random`` so an unbeaten agent stays
finite;
the intervals come from the observed information (the fit's Hessian) with ``random`` fixed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.journal import Journal
from benchmarks.results import LadderGame, LadderResult, play_one
from spheria.agents.levels import LEVEL_NUMBERS, LEVEL_SPEC, level_spec, level_words, levels_for
from spheria.agents.options import CLOCK
from spheria.agents.registry import describe_options, make_agent, parse_spec
from spheria.arena import derive_seed, seating
from spheria.cli.common import make_game
from spheria.kernel.registry import load_game

ANCHOR = "random"
#: Elo points per natural-log unit of Bradley–Terry strength.
ELO = 400 / math.log(10)


@dataclass
class Rating:
    rating: float
    low: float
    high: float


@dataclass
class Ladder:
    game: str
    options: dict[str, Any]
    agents: list[str]
    results: list[LadderResult] = field(default_factory=list)
    #: The spec each agent played (a level's agent when its games were played); empty: today's.
    plays: list[str] = field(default_factory=list)

    def outcomes(self) -> list[tuple[str, str, float]]:
        """Every pair of seats that the game parted: (a, b, 1 if a beat b, 0 if b beat a, ½ a draw).

        Two seats with equal returns are a draw only in a drawn game (every seat's return
        equal). Where another seat did better or worse they are the two losers of a three-seat
        game, or partners of a team: the rules rank them alike whatever they played, so the pair
        says nothing of their strengths and is left out (counted as a draw, such pairs pulled
        every three-seat rating toward ``random``). An agent that holds both seats of a team
        meets each opponent once a game.
        """
        pairs = []
        for result in self.results:
            drawn = len(set(result.returns)) == 1
            sides = dict(zip(result.seats, result.returns, strict=True))  # a team of one agent: one pair
            for (a, ra), (b, rb) in itertools.combinations(sides.items(), 2):
                if ra != rb or drawn:
                    pairs.append((a, b, 1.0 if ra > rb else 0.0 if ra < rb else 0.5))
        return pairs

    def ratings(self) -> dict[str, Rating]:
        return rate(self.agents, self.outcomes())

    def times(self, agent: str, cpu: bool = False) -> list[float]:
        """Every move's seconds for ``agent``: wall clock, or with ``cpu`` its process's CPU time."""
        return [t for r in self.results for seat, t in _seat_times(r, cpu) if r.seats[seat] == agent]

    def score(self, agent: str) -> tuple[float, int]:
        """Points per pairing (½ a draw) and the number of pairings the agent was in."""
        scores = [s if a == agent else 1 - s for a, b, s in self.outcomes() if agent in (a, b)]
        return (sum(scores) / len(scores) if scores else 0.0), len(scores)

    def head_to_head(self) -> dict[tuple[str, str], tuple[float, int]]:
        """Each ordered pair ``(a, b)`` that met: ``a``'s points per pairing against ``b`` (½ a draw), and how many.

        The ratings assume one strength per agent; this shows where the pairs disagree with it
        (an agent weakened by random moves can lose more to ``random`` than its rating says).
        """
        points: dict[tuple[str, str], list[float]] = {}
        for a, b, s in self.outcomes():
            points.setdefault((a, b), []).append(s)
            points.setdefault((b, a), []).append(1 - s)
        return {pair: (sum(got) / len(got), len(got)) for pair, got in points.items()}

    def pairs_table(self) -> str:
        """:meth:`head_to_head` as a grid: the row agent's score against the column agent."""
        scores = self.head_to_head()
        cells = {pair: f"{score:.3f} ({n})" for pair, (score, n) in scores.items()}
        first = max(len("row / column"), *(len(agent) for agent in self.agents))
        width = max(*(len(agent) for agent in self.agents), *(len(cell) for cell in cells.values()))
        lines = [f"{'row / column':{first}} " + " ".join(f"{b:>{width}}" for b in self.agents)]
        for a in self.agents:
            row = (cells.get((a, b), "-") for b in self.agents)
            lines.append(f"{a:{first}} " + " ".join(f"{cell:>{width}}" for cell in row))
        return "\n".join(lines)

    def gaps(self) -> dict[str, Rating]:
        """Each agent's distance above the agent before it (the level below), with its 95 % interval."""
        return dict(zip(self.agents[1:], gaps(self.agents, self.outcomes()), strict=True))

    def rows(self) -> list[dict[str, Any]]:
        ratings, below = self.ratings(), self.gaps()
        game = load_game(self.game, **self.options)
        plays = self.plays or [_resolved(agent, game) for agent in self.agents]
        rows = []
        for agent, played in zip(self.agents, plays, strict=True):
            times, cpu = self.times(agent), self.times(agent, cpu=True)
            score, pairings = self.score(agent)
            rows.append(
                {
                    "agent": agent,
                    "words": _words(agent),
                    "plays": played,
                    "pairings": pairings,
                    "score": round(score, 3),
                    "rating": round(ratings[agent].rating),
                    "rating_95": [round(ratings[agent].low), round(ratings[agent].high)],
                    "gap": round(below[agent].rating) if agent in below else None,
                    "gap_95": [round(below[agent].low), round(below[agent].high)] if agent in below else None,
                    "mean_s": round(sum(times) / len(times), 3) if times else 0.0,
                    "max_s": round(max(times), 3) if times else 0.0,
                    "cpu_mean_s": round(sum(cpu) / len(cpu), 3) if cpu else 0.0,
                    "cpu_max_s": round(max(cpu), 3) if cpu else 0.0,
                }
            )
        return rows

    def table(self) -> str:
        rows = self.rows()
        agent = max(len("agent"), *(len(row["agent"]) for row in rows))
        plays = max(len("plays"), *(len(row["plays"]) for row in rows))
        lines = [
            f"{'agent':{agent}} {'level':9} {'plays':{plays}} {'pairs':>5} {'score':>5} {'Elo':>6} {'95% interval':>14}"
            f" {'above prev (95%)':>18} {'s/move':>6} {'max s':>6} {'cpu s':>6} {'max':>6}"
        ]
        for row in rows:
            low, high = row["rating_95"]
            gap = "" if row["gap"] is None else f"{row['gap']} ({row['gap_95'][0]}..{row['gap_95'][1]})"
            lines.append(
                f"{row['agent']:{agent}} {row['words']:9} {row['plays']:{plays}} {row['pairings']:5d}"
                f" {row['score']:5.3f} {row['rating']:6d} {f'{low}..{high}':>14} {gap:>18} {row['mean_s']:6.3f}"
                f" {row['max_s']:6.2f} {row['cpu_mean_s']:6.3f} {row['cpu_max_s']:6.2f}"
            )
        return "\n".join(lines)

    def markdown(self) -> str:
        """The rows as the Markdown table docs/agents.md shows (CPU seconds a move, wall time's longest)."""
        lines = [
            "| level | words | agent | CPU s/move (mean, max) | wall max | games | score | Elo | 95 % interval"
            " | above the row before (95 %) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for row in self.rows():
            low, high = row["rating_95"]
            gap = "" if row["gap"] is None else f"{row['gap']} ({row['gap_95'][0]} to {row['gap_95'][1]})"
            lines.append(
                f"| `{row['agent']}` | {row['words']} | `{row['plays']}`"
                f" | {row['cpu_mean_s']:.3f}, {row['cpu_max_s']:.2f} | {row['max_s']:.2f} | {row['pairings']}"
                f" | {row['score']:.3f} | {row['rating']} | {low} to {high} | {gap} |"
            )
        return "\n".join(lines)


def _seat_times(result: LadderResult, cpu: bool = False) -> Iterator[tuple[int, float]]:
    for seat, times in enumerate(result.cpu_seconds if cpu else result.seconds):
        for t in times:
            yield seat, t


def _level(agent: str) -> int | None:
    """The level a ladder agent is (``level:3`` is 3), ``None`` for another spec."""
    name, params = parse_spec(agent)
    return int(params["level"]) if name == LEVEL_SPEC else None


def _words(agent: str) -> str:
    level = _level(agent)
    return "" if level is None else level_words(level)


def _resolved(agent: str, game: Any) -> str:
    level = _level(agent)
    return agent if level is None else levels_for(game)[level - 1].spec


def clocked(spec: str, clock: str) -> str:
    """``spec`` with ``clock=`` added when its agent takes a clock and the spec does not name one.

    >>> clocked("level:3", "cpu"), clocked("alphabeta:time=0.5,blunder=0.1", "cpu"), clocked("greedy", "cpu")
    ('level:3,clock=cpu', 'alphabeta:time=0.5,blunder=0.1,clock=cpu', 'greedy')
    """
    name, params = parse_spec(spec)
    takes = name == LEVEL_SPEC or CLOCK.name in {option for option, _, _ in describe_options(name)}
    if clock == CLOCK.default or not takes or CLOCK.name in params:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}{CLOCK.name}={clock}"


def play_clocked(
    game: str, options: dict[str, Any], job: LadderGame, max_time: float | None, clock: str
) -> LadderResult:
    """:func:`play_one` with every agent that takes a clock on ``clock``; the result names the specs as given."""
    played = play_one(game, options, LadderGame(tuple(clocked(s, clock) for s in job.seats), job.seed), max_time)
    played.seats = job.seats
    return played


def rate(names: Sequence[str], outcomes: Sequence[tuple[str, str, float]], anchor: str = ANCHOR) -> dict[str, Rating]:
    """Bradley–Terry ratings on the Elo scale, ``anchor`` at 0, with 95 % intervals.

    >>> r = rate(["random", "x"], [("x", "random", 1.0)] * 9 + [("x", "random", 0.0)])
    >>> r["random"].rating, round(r["x"].rating), r["x"].low < r["x"].rating < r["x"].high
    (0.0, 321, True)
    """
    elo, covariance = _fit(names, outcomes, anchor)
    return {name: _interval(elo[i], covariance[i][i]) for i, name in enumerate(names)}


def gaps(names: Sequence[str], outcomes: Sequence[tuple[str, str, float]], anchor: str = ANCHOR) -> list[Rating]:
    """Each agent's distance in Elo above the one before it in ``names``, with its 95 % interval.

    A rating's interval also holds the anchor's uncertainty, which every rating shares: where
    the anchor rarely scores, neighbours can be surely apart while their intervals overlap.

    >>> outcomes = [("a", "random", 1.0)] * 3 + [("b", "a", 1.0)] * 8 + [("b", "a", 0.0)] * 2
    >>> [round(gap.rating) for gap in gaps(["random", "a", "b"], outcomes)]
    [211, 199]
    """
    elo, cov = _fit(names, outcomes, anchor)
    return [
        _interval(elo[i] - elo[i - 1], cov[i][i] + cov[i - 1][i - 1] - 2 * cov[i][i - 1]) for i in range(1, len(names))
    ]


def _interval(elo: float, variance: float) -> Rating:
    half = 1.96 * math.sqrt(max(variance, 0.0))
    return Rating(elo, elo - half, elo + half)


def _fit(
    names: Sequence[str], outcomes: Sequence[tuple[str, str, float]], anchor: str
) -> tuple[list[float], list[list[float]]]:
    """The ratings (Elo, ``anchor`` at 0) and their covariance (Elo², the anchor's row and column 0)."""
    index = {name: i for i, name in enumerate(names)}
    virtual = [(name, anchor, 0.5) for name in names if name != anchor]  # one draw each against the anchor
    wins = [0.0] * len(names)
    counts: dict[tuple[int, int], float] = {}
    for a, b, score in [*outcomes, *virtual]:
        i, j = index[a], index[b]
        wins[i] += score
        wins[j] += 1 - score
        key = (min(i, j), max(i, j))
        counts[key] = counts.get(key, 0.0) + 1
    strength = [1.0] * len(names)
    for _ in range(500):
        new = []
        for i in range(len(names)):
            total = sum(n / (strength[a] + strength[b]) for (a, b), n in counts.items() if i in (a, b))
            new.append(max(wins[i], 1e-9) / total)
        base = new[index[anchor]]
        strength = [s / base for s in new]
    theta = [math.log(s) for s in strength]
    info = _information(theta, counts)
    free = [i for i in range(len(names)) if i != index[anchor]]
    inverse = _inverse([[info[i][j] for j in free] for i in free])
    covariance = [[0.0] * len(names) for _ in names]
    for k, i in enumerate(free):
        for m, j in enumerate(free):
            covariance[i][j] = ELO * ELO * inverse[k][m]
    return [ELO * t for t in theta], covariance


def _information(theta: list[float], counts: dict[tuple[int, int], float]) -> list[list[float]]:
    """The Fisher information of the log-strengths (the virtual draws included)."""
    size = len(theta)
    info = [[0.0] * size for _ in range(size)]
    for (a, b), n in counts.items():
        p = 1 / (1 + math.exp(theta[b] - theta[a]))
        w = n * p * (1 - p)
        info[a][a] += w
        info[b][b] += w
        info[a][b] -= w
        info[b][a] -= w
    return info


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inverse of a small positive-definite matrix."""
    size = len(matrix)
    rows = [row[:] + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col][col]
        rows[col] = [v / head for v in rows[col]]
        for r in range(size):
            if r != col:
                factor = rows[r][col]
                rows[r] = [v - factor * w for v, w in zip(rows[r], rows[col], strict=True)]
    return [row[size:] for row in rows]


# -- playing -----------------------------------------------------------------------------------


def ladder_agents() -> list[str]:
    return [ANCHOR, *(level_spec(n) for n in LEVEL_NUMBERS)]


#: A journal keys game ``i`` of group ``g`` as ``g * GROUP_STRIDE + i``, the same whatever ``games`` is,
#: so a run given more games per group later resumes from the same journal and adds the rest.
GROUP_STRIDE = 1_000_000


def journal_keys(agents: Sequence[str], sides: Sequence[int], games: int) -> list[int]:
    """The journal key of every game of :func:`schedule`, in its order."""
    groups = len(list(itertools.combinations(agents, len(set(sides)))))
    return [g * GROUP_STRIDE + i for g in range(groups) for i in range(games)]


def schedule(agents: Sequence[str], sides: Sequence[int], games: int, seed: int) -> list[LadderGame]:
    """``games`` games for every group of agents, one a side, sides rotated within each group.

    ``sides`` is each seat's side: an agent holds every seat of its side (both seats of a team).

    >>> [game.seats for game in schedule(["a", "b", "c"], [0, 1, 0, 1], 2, seed=1)][:3]
    [('a', 'b', 'a', 'b'), ('b', 'a', 'b', 'a'), ('a', 'c', 'a', 'c')]
    """
    count = len(set(sides))
    return [
        LadderGame(tuple(lineup[side] for side in sides), derive_seed(seed, g, i))
        for g, group in enumerate(itertools.combinations(agents, count))
        for i in range(games)
        for lineup in [seating(group, count, i)]
    ]


def run_ladder(
    game: str,
    options: dict[str, Any],
    games: int,
    seed: int = 0,
    workers: int = 1,
    max_time: float | None = None,
    agents: Sequence[str] | None = None,
    progress: bool = False,
    journal: Path | str | None = None,
    clock: str = "cpu",
    play: bool = True,
    mixed_teams: bool = False,
) -> Ladder:
    """The round robin of ``agents`` (default: random and the five levels) in ``game``.

    The games are played in rounds, game ``i`` of every group before game ``i + 1`` of any, so a
    run cut short has as many games of every pair. With ``journal`` (a path), finished games are
    kept there and a later call with the same arguments plays only the games still missing (with
    a larger ``games``, the games added).
    ``clock`` is what the agents that take a ``clock`` option count their time by
    (:func:`clocked`): ``cpu``, the default, keeps a ladder fair while other work loads the
    machine; ``wall`` plays them as the lobby does. ``play=False`` only reads the journal (a
    report of a run still going on, or cut short). In a game of teams one agent holds both seats
    of its team; ``mixed_teams`` seats a group of one agent a seat instead (teams of two levels).
    """
    loaded = load_game(game, **options)
    names = list(agents or ladder_agents())
    for spec in names:  # a misfit or a bad spec fails here, before any game
        if not make_agent(spec, max_time=max_time).fits(loaded):
            raise ValueError(f"{spec} does not play {loaded.title}")
    ladder = Ladder(game, dict(loaded.options), names)
    sides = list(range(loaded.num_players)) if mixed_teams else loaded.seat_sides()
    jobs = schedule(names, sides, games, seed)
    plays = [_resolved(name, loaded) for name in names]  # a changed level table starts a new run
    header: dict[str, Any] = {
        "run": "ladder",
        "game": game,
        "options": ladder.options,
        "agents": names,
        "plays": plays,
        "seed": seed,
        "max_time": max_time,
        "clock": clock,
    }
    if len(set(sides)) < len(sides):
        header["teams"] = "one agent a side"  # the first four-seat ladder mixed them and has no key
    if journal is not None and not play:  # a report reads the level table the games were played with
        header["plays"] = plays = recorded_plays(journal, header)
    ladder.plays = plays
    kept = Journal(journal, header) if journal is not None else None
    keys = journal_keys(names, sides, games)
    found = kept.done if kept else {}
    done = {index: found[key] for index, key in enumerate(keys) if key in found}  # by schedule index
    for result in done.values():
        _add(ladder, result, len(jobs), progress)
    if not play:
        return ladder
    rounds = sorted(range(len(jobs)), key=lambda index: (keys[index] % GROUP_STRIDE, keys[index]))
    for index, result in play_jobs(game, ladder.options, jobs, max_time, workers, skip=done, clock=clock, order=rounds):
        if kept:
            kept.record(keys[index], result)
        _add(ladder, result, len(jobs), progress)
    return ladder


def recorded_plays(journal: Path | str, header: dict[str, Any]) -> list[str]:
    """The specs a journal of this run recorded, if it differs from ``header`` in nothing else."""
    found = Journal.recorded_header(journal)
    if found is not None and {**found, "plays": header["plays"]} == json.loads(json.dumps(header)):
        return list(found["plays"])
    return list(header["plays"])


def play_jobs(
    game: str,
    options: dict[str, Any],
    jobs: Sequence[LadderGame],
    max_time: float | None,
    workers: int,
    skip: Iterable[int] = (),
    clock: str = "cpu",
    order: Sequence[int] | None = None,
) -> Iterable[tuple[int, LadderResult]]:
    """Play every job whose index is not in ``skip``, yielding (index, result) in ``order`` (default:
    the schedule's)."""
    skipped = set(skip)
    todo = [i for i in (range(len(jobs)) if order is None else order) if i not in skipped]
    if workers <= 1:
        for i in todo:
            yield i, play_clocked(game, options, jobs[i], max_time, clock)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [(i, pool.submit(play_clocked, game, options, jobs[i], max_time, clock)) for i in todo]
        for i, future in futures:
            yield i, future.result()


def _add(ladder: Ladder, result: LadderResult, total: int, progress: bool) -> None:
    ladder.results.append(result)
    if progress:
        print(f"{len(ladder.results)}/{total} {' '.join(result.seats)} {list(result.returns)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ladder", description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--option", action="append", metavar="K=V", help="a game option (repeatable)")
    parser.add_argument("--games", type=int, default=20, help="games per group of agents (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-time", type=float, default=None, help="cap on every agent's seconds per move")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--progress", action="store_true", help="one line per finished game on stderr")
    parser.add_argument("--journal", type=Path, help="keep finished games in this file and resume from it")
    parser.add_argument(
        "--cpu-clock",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="agents that take clock= count their time in CPU seconds (default; --no-cpu-clock: wall seconds)",
    )
    parser.add_argument(
        "--agents", nargs="+", metavar="SPEC", help="rate these specs instead of random and the levels (screening)"
    )
    parser.add_argument("--report", action="store_true", help="print what --journal holds; play nothing")
    parser.add_argument("--markdown", action="store_true", help="print the rows as a Markdown table")
    parser.add_argument("--pairs", action="store_true", help="also print each pair's score against each other")
    parser.add_argument(
        "--mixed-teams", action="store_true", help="one agent a seat in a game of teams (default: one a team)"
    )
    args = parser.parse_args(argv)
    if args.report and args.journal is None:
        parser.error("--report reads a --journal")
    game = make_game(args.game, args.option or [])
    ladder = run_ladder(
        game.name,
        dict(game.options),
        args.games,
        args.seed,
        args.workers,
        args.max_time,
        agents=args.agents,
        progress=args.progress,
        journal=args.journal,
        clock="cpu" if args.cpu_clock else "wall",
        play=not args.report,
        mixed_teams=args.mixed_teams,
    )
    if args.json:
        summary = {"game": game.name, "options": ladder.options, "games_per_group": args.games, "rows": ladder.rows()}
        print(json.dumps(summary, indent=1))
    else:
        print(f"{game.title} {ladder.options}: {len(ladder.results)} games, {args.games} per group")
        print(ladder.markdown() if args.markdown else ladder.table())
        if args.pairs:
            print()
            print(ladder.pairs_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
