"""A match: a new agent against the current best at equal time per move, seats rotated, Wilson interval.

``python -m benchmarks.match spline alphabeta:time=0.5 peer:iterations=600 --games 200 --peer``
plays ``--games`` games; in game ``i`` the first agent (the challenger) plays side
``i mod sides`` (every seat of it: both seats of a team in four-seat Spinca) and every other
seat holds the second agent (a fresh copy each, own seed), so in three-seat Spinca it meets two
copies of the field. Each finished game prints one line (the running score, so a run cut short
still counts); the end prints the challenger's score — a win 1, a loss 0, a draw ½, and with
three sides the mean over its pairings with the other two — with its Wilson 95 % interval, its
score per side, and both agents' seconds a move.
``--peer`` registers the Spline peer (:mod:`benchmarks.peer`) first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.journal import Journal
from benchmarks.ladder import play_jobs
from benchmarks.results import LadderGame, LadderResult
from spheria.arena import derive_seed
from spheria.cli.common import make_game


@dataclass
class Match:
    """The challenger's score in each game, by the seat it sat in, and every move's seconds by agent."""

    challenger: str
    field_agent: str
    seats: int
    scores: list[float] = field(default_factory=list)
    by_seat: dict[int, list[float]] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu_times: dict[str, list[float]] = field(default_factory=dict)

    def add(self, result: LadderResult, side: int, sides: Sequence[int]) -> float:
        """Count one game in which the challenger played ``side`` (``sides``: each seat's); return its score."""
        mine = result.returns[sides.index(side)]
        others = [result.returns[sides.index(other)] for other in sorted(set(sides)) if other != side]
        score = sum(1.0 if mine > v else 0.0 if mine < v else 0.5 for v in others) / len(others)
        self.scores.append(score)
        self.by_seat.setdefault(side, []).append(score)
        for s, seconds in enumerate(result.seconds):
            self.times.setdefault(self.challenger if sides[s] == side else self.field_agent, []).extend(seconds)
        for s, seconds in enumerate(result.cpu_seconds):
            self.cpu_times.setdefault(self.challenger if sides[s] == side else self.field_agent, []).extend(seconds)
        return score

    @property
    def score(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    def interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval of the score (a pairing score counts as a fractional win)."""
        return wilson(sum(self.scores), len(self.scores))

    def summary(self) -> str:
        low, high = self.interval()
        seats = ", ".join(f"side {s}: {sum(v) / len(v):.3f} of {len(v)}" for s, v in sorted(self.by_seat.items()))
        lines = [
            f"{self.challenger} against {self.field_agent}: {len(self.scores)} games, score {self.score:.3f}"
            f" (95 % {low:.3f} to {high:.3f}); by side: {seats}"
        ]
        for agent, times in self.times.items():
            if times:
                lines.append(f"  {agent}: {sum(times) / len(times):.3f} s a move on average, longest {max(times):.2f}")
            if cpu := self.cpu_times.get(agent):
                lines.append(f"  {agent}: {sum(cpu) / len(cpu):.3f} CPU s a move on average, longest {max(cpu):.2f}")
        return "\n".join(lines)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``wins`` out of ``games``.

    >>> [round(x, 3) for x in wilson(9, 10)]
    [0.596, 0.982]
    """
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * ((p * (1 - p) + z * z / (4 * games)) / games) ** 0.5
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def jobs(
    challenger: str, field_agent: str, sides: Sequence[int], games: int, seed: int
) -> list[tuple[int, LadderGame]]:
    """Game ``i``: the challenger in every seat of side ``i mod sides``, the field's copies in the others.

    >>> [(side, job.seats) for side, job in jobs("a", "b", [0, 1, 0, 1], 2, seed=1)]
    [(0, ('a', 'b', 'a', 'b')), (1, ('b', 'a', 'b', 'a'))]
    """
    count = len(set(sides))
    out = []
    for i in range(games):
        side = i % count
        lineup = tuple(challenger if seat_side == side else field_agent for seat_side in sides)
        out.append((side, LadderGame(lineup, derive_seed(seed, i))))
    return out


def run_match(
    game_name: str,
    options: dict[str, Any],
    challenger: str,
    field_agent: str,
    games: int,
    seed: int,
    workers: int,
    journal: Path | str | None = None,
) -> Match:
    """Play the match; with ``journal``, keep each finished game there and play only the missing ones."""
    game = make_game(game_name, [f"{k}={v}" for k, v in options.items()])
    match = Match(challenger, field_agent, game.num_players)
    sides = game.seat_sides()
    schedule = jobs(challenger, field_agent, sides, games, seed)
    header = {
        "run": "match",
        "game": game.name,
        "options": dict(game.options),
        "challenger": challenger,
        "field": field_agent,
        "seed": seed,
    }
    kept = Journal(journal, header) if journal is not None else None
    done = {i: result for i, result in (kept.done if kept else {}).items() if i < games}
    for index, result in sorted(done.items()):
        match.add(result, schedule[index][0], sides)
    todo = [job for _, job in schedule]
    for index, result in play_jobs(game.name, dict(game.options), todo, None, workers, skip=done):
        if kept:
            kept.record(index, result)
        side = schedule[index][0]
        score = match.add(result, side, sides)
        low, high = match.interval()
        print(
            f"{len(match.scores)}/{games} side {side} score {score:.2f}"
            f" running {match.score:.3f} ({low:.3f}-{high:.3f})",
            flush=True,
        )
    return match


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.match", description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("challenger")
    parser.add_argument("field", help="the agent in every other seat")
    parser.add_argument("--option", action="append", default=[], metavar="K=V", help="a game option (repeatable)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--peer", action="store_true", help="register the Spline peer (benchmarks.peer) first")
    parser.add_argument("--journal", type=Path, help="keep finished games in this file and resume from it")
    args = parser.parse_args(argv)
    if args.peer:
        from benchmarks.peer import install

        install()
    options = dict(pair.split("=", 1) for pair in args.option)
    match = run_match(
        args.game, options, args.challenger, args.field, args.games, args.seed, args.workers, args.journal
    )
    print(match.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
