"""One benchmark game: who sits where, what each seat scored, and what each move cost.

The ladder (:mod:`benchmarks.ladder`) and the match (:mod:`benchmarks.match`) both play
:class:`LadderGame` jobs with :func:`play_one`, in worker processes, and keep the
:class:`LadderResult` (in a :mod:`benchmarks.journal` when asked to). Each move is timed twice:
wall-clock seconds, and the CPU seconds of the process that played it, which a loaded machine
does not inflate (every agent here thinks in one thread).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from spheria.agents.registry import make_agent
from spheria.arena import derive_seed, seeded
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView
from spheria.kernel.registry import load_game
from spheria.match import play


@dataclass(frozen=True)
class LadderGame:
    """One game of a run: the agents in seat order and the game's seed."""

    seats: tuple[str, ...]
    seed: int


@dataclass
class LadderResult:
    seats: tuple[str, ...]
    returns: tuple[float, ...]
    seconds: tuple[list[float], ...]  # the wall-clock time of each move, per seat
    cpu_seconds: tuple[list[float], ...] = field(default=())  # the CPU time of each move, per seat


class TimedAgent(Agent):
    """An agent whose every move is timed, by the wall clock and by the process's CPU time."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds: list[float] = []
        self.cpu_seconds: list[float] = []

    def fits(self, game: Any) -> bool:
        return self.agent.fits(game)

    def choose(self, view: PlayerView, player: int) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        move = self.agent.choose(view, player)
        # to the microsecond: finer digits are noise, and the journals are kept in the repository
        self.seconds.append(round(time.perf_counter() - start, 6))
        self.cpu_seconds.append(round(time.process_time() - cpu, 6))
        return move


def play_one(game_name: str, options: dict[str, Any], job: LadderGame, max_time: float | None) -> LadderResult:
    """Play ``job`` to the end; each seat's agent gets its own seed derived from the game's."""
    game = load_game(game_name, **options)
    state = game.new_initial_state(seed=job.seed)
    agents = [
        TimedAgent(make_agent(seeded(spec, derive_seed(job.seed, seat)), max_time=max_time))
        for seat, spec in enumerate(job.seats)
    ]
    returns = play(state, list(agents))
    return LadderResult(
        job.seats, tuple(returns), tuple(a.seconds for a in agents), tuple(a.cpu_seconds for a in agents)
    )
