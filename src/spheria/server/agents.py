"""Agent seats, run off the event loop.

An agent's move is computed from a picklable job (the game's name, options, seed and move
entries, the seat and the agent spec) by :func:`choose_move` in a worker process (or thread),
so a slow agent never stalls the server. A worker keeps the states it rebuilt, keyed by game,
and replays only the new entries on the next job. The agent is handed ``state.view(seat)``:
in a game with hidden information it sees only what its seat may see.

:class:`AgentPool` runs the jobs with a hard deadline each (the agent's budget plus a grace):
a job past its deadline is abandoned and the pool's worker processes are killed, and the pool is
rebuilt — as it is after any worker death — so one runaway agent never holds the server. At most
``thinking`` jobs run at once; others wait their turn in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from spheria.agents.registry import make_agent
from spheria.games.base import State, load_game


@dataclass(frozen=True)
class AgentJob:
    game_id: str
    name: str
    options: dict[str, Any]
    seed: int | None
    entries: tuple[str, ...]
    seat: int
    spec: str
    max_time: float | None = None
    #: The position the game started from (SPN), when it was set up rather than the game's own start.
    start: str | None = None


_CACHE_SIZE = 64
_cache: OrderedDict[str, tuple[State[Any], list[str]]] = OrderedDict()
_cache_lock = threading.Lock()


def rebuild(
    name: str,
    options: dict[str, Any],
    seed: int | None,
    entries: tuple[str, ...] | list[str],
    start: str | None = None,
) -> State[Any]:
    """The state reached by replaying ``entries`` from the start of a game (the position ``start``
    in SPN when the game was set up from one)."""
    game = load_game(name, **options)
    state = game.new_initial_state(seed) if start is None else game.state_from_spn(start)
    for entry in entries:
        state.apply_notation(entry)
    return state


def _state_for(job: AgentJob) -> State[Any]:
    key = f"{job.game_id}:{job.seat}"
    with _cache_lock:
        cached = _cache.pop(key, None)
    if cached is not None:
        state, seen = cached
        if list(job.entries[: len(seen)]) == seen:
            for entry in job.entries[len(seen) :]:
                state.apply_notation(entry)
            return state
    return rebuild(job.name, job.options, job.seed, job.entries, job.start)


def choose_move(job: AgentJob) -> str:
    """The agent's move for ``job.seat``, as text that ``state.parse_move(text, seat)`` reads."""
    state = _state_for(job)
    agent = make_agent(job.spec, max_time=job.max_time)
    move = agent.choose(state.view(job.seat), job.seat)
    text = str(move)
    with _cache_lock:
        _cache[f"{job.game_id}:{job.seat}"] = (state, list(job.entries))
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return text


def make_executor(kind: str = "process", workers: int | None = None) -> Executor:
    """A pool for agent moves: ``process`` (default: true parallelism, isolated) or ``thread``."""
    if kind == "thread":
        return ThreadPoolExecutor(max_workers=workers or 8, thread_name_prefix="spheria-agent")
    if kind != "process":
        raise ValueError(f"agent pool must be 'process' or 'thread', not {kind!r}")
    count = workers or max(2, os.cpu_count() or 2)
    return ProcessPoolExecutor(max_workers=count, mp_context=get_context("spawn"))


class AgentTimeout(Exception):
    """An agent job ran past its deadline; its worker was killed."""


def agent_budget(spec: str, max_time: float) -> float:
    """The seconds an agent spec may think per move (its own budget, at most ``max_time``)."""
    try:
        return min(make_agent(spec, max_time=max_time).max_seconds_per_move(), max_time)
    except ValueError:
        return max_time


def _kill_workers(executor: Executor) -> None:
    processes = getattr(executor, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, AttributeError):
            process.kill()
    executor.shutdown(wait=False, cancel_futures=True)


def warm() -> None:
    """A job that does nothing: it makes a process pool start its workers before they are needed."""


class AgentPool:
    """Agent jobs with deadlines on a pool that is rebuilt when a worker dies or runs away."""

    def __init__(self, factory: Callable[[], Executor], thinking: int = 0, grace: float = 5.0) -> None:
        """``thinking``: jobs running at once (0: the pool's number of workers)."""
        self._factory = factory
        self.executor = self._start()
        thinking = thinking or int(getattr(self.executor, "_max_workers", 2))
        self.generation = 0
        self.rebuilds = 0
        self.grace = grace
        self._thinking = asyncio.Semaphore(max(1, thinking))

    def rebuild(self, generation: int) -> None:
        """Replace the pool of ``generation`` (once, however many jobs saw it break)."""
        if generation != self.generation:
            return
        old = self.executor
        self.executor = self._start()
        self.generation += 1
        self.rebuilds += 1
        _kill_workers(old)

    def _start(self) -> Executor:
        executor = self._factory()
        self._warming: list[Future[None]] = []
        if isinstance(executor, ProcessPoolExecutor):  # workers start (and import) now, not during a move
            self._warming = [executor.submit(warm) for _ in range(int(getattr(executor, "_max_workers", 1)))]
        return executor

    async def _ready(self) -> None:
        """Wait (at most a minute) for a new pool's workers to start: a deadline counts thinking only."""
        warming = [asyncio.wrap_future(f) for f in self._warming if not f.done()]
        if warming:
            await asyncio.wait(warming, timeout=60)

    async def run(self, job: AgentJob, budget: float) -> str:
        """The agent's move, or :class:`AgentTimeout` after ``budget`` + grace seconds of thinking.

        A job whose pool broke under it (another job's worker was killed) is run once more."""
        async with self._thinking:
            for attempt in (1, 2):
                await self._ready()
                generation = self.generation
                try:
                    future = self.executor.submit(choose_move, job)
                except (BrokenExecutor, RuntimeError):
                    self.rebuild(generation)
                    continue
                try:
                    return await asyncio.wait_for(asyncio.wrap_future(future), budget + self.grace)
                except TimeoutError:
                    future.cancel()
                    self.rebuild(generation)
                    raise AgentTimeout(f"no move within {budget + self.grace:g} s") from None
                except BrokenExecutor:
                    self.rebuild(generation)
                    if attempt == 2:
                        raise
            raise BrokenExecutor("the agent pool could not be rebuilt")

    def shutdown(self) -> None:
        _kill_workers(self.executor)
