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

**Progress.** A job run with ``on_progress`` has its agent :meth:`~spheria.kernel.agent.Agent.watch`
ed: the positions it searched so far reach ``on_progress({"positions": n, "seconds": s})`` at most
every :data:`~spheria.server.analysis_pool.PROGRESS_EVERY` seconds, as the analysis board's jobs do.
From the workers of :func:`make_executor`'s process pool (:class:`AgentProcessPool`) they come down
one pipe of the pool's own (:class:`ProgressPipe`) that the event loop reads with ``add_reader``;
from a thread pool's workers they are handed to the loop directly. Reports of a job that ended
(answered, timed out, cancelled) are dropped; a pool rebuilt or shut down closes its pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any, Protocol

from spheria.agents.registry import make_agent
from spheria.kernel.game import State
from spheria.kernel.record import replay, replay_steps
from spheria.server.analysis_pool import Throttle

log = logging.getLogger("spheria.server")

#: Where a job's progress goes: ``{"positions": n, "seconds": s}`` (see the module's docstring).
ProgressSink = Callable[[dict[str, Any]], object]
#: Seconds a worker waits for the progress pipe before it drops a report (a search never stalls on it).
PIPE_WAIT = 0.5


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
    #: The most the agent may think on a timed game's clock, in seconds (``Agent.limit_time``).
    time_limit: float | None = None


_CACHE_SIZE = 64
_cache: OrderedDict[str, tuple[State[Any], list[str]]] = OrderedDict()
_cache_lock = threading.Lock()


def _state_for(job: AgentJob) -> State[Any]:
    """The job's position: the state this worker kept for the game and seat with the new entries
    played on, or the game replayed from its start (:func:`~spheria.kernel.record.replay`)."""
    key = f"{job.game_id}:{job.seat}"
    with _cache_lock:
        cached = _cache.pop(key, None)
    if cached is not None:
        state, seen = cached
        if list(job.entries[: len(seen)]) == seen:
            for _step in replay_steps(state, job.entries[len(seen) :], len(seen) + 1):
                pass
            return state
    return replay(job.name, job.options, job.start, job.seed, job.entries)


class _PositionsReport:
    """An agent's ``watch`` callback: the positions searched, throttled, to a job's sink."""

    def __init__(self, sink: ProgressSink) -> None:
        self.sink = sink
        self.throttle = Throttle()
        self.started = time.monotonic()

    def __call__(self, positions: int) -> None:
        if self.throttle.due():
            self.sink({"positions": int(positions), "seconds": round(time.monotonic() - self.started, 3)})


def choose_move(job: AgentJob, progress: ProgressSink | None = None) -> str:
    """The agent's move for ``job.seat``, as text that ``state.parse_move(text, seat)`` reads;
    the positions it searches go to ``progress`` while it thinks."""
    state = _state_for(job)
    agent = make_agent(job.spec, max_time=job.max_time)
    agent.limit_time(job.time_limit)
    if progress is not None:
        agent.watch(_PositionsReport(progress))
    move = agent.choose(state.view(job.seat), job.seat)
    text = str(move)
    with _cache_lock:
        _cache[f"{job.game_id}:{job.seat}"] = (state, list(job.entries))
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return text


def lower_priority(niceness: int) -> None:
    """Run this (worker) process ``niceness`` steps below normal CPU priority, as far as allowed."""
    with contextlib.suppress(OSError, AttributeError):  # not allowed, or not on this system
        os.nice(niceness)


class ProgressPipe:
    """One pipe from every worker of an :class:`AgentProcessPool` to the event loop: ``(id, data)`` frames.

    Workers write under a shared lock. A frame is a few dozen bytes, far below the pipe's atomic
    write size, so a worker killed mid-search never leaves half a frame behind."""

    def __init__(self, context: BaseContext) -> None:
        self.reader, self.writer = context.Pipe(duplex=False)
        self.lock = context.Lock()

    def close(self) -> None:
        for end in (self.reader, self.writer):
            with contextlib.suppress(OSError):
                end.close()


#: In a worker process: the pool's progress pipe (writer end) and its lock, set when the worker starts.
_worker_pipe: tuple[Connection, Any] | None = None


#: Seconds between a pool worker's looks at whether the process that started it is still there.
PARENT_CHECK = 1.0


def _exit_with_parent(parent: int) -> None:
    """End this worker once its parent is gone (killed with ``-9``, it could not stop its pool)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(1)


def start_worker(niceness: int, writer: Connection | None = None, lock: Any = None, parent: int | None = None) -> None:
    """A process worker's start: lower its priority, keep the pool's progress pipe, and end with
    the process ``parent`` that started it (no orphan keeps a search going)."""
    global _worker_pipe
    lower_priority(niceness)
    if parent is not None:
        threading.Thread(target=_exit_with_parent, args=(parent,), name="spheria-parent", daemon=True).start()
    if writer is not None:
        _worker_pipe = (writer, lock)


@dataclass(frozen=True)
class PipeProgress:
    """A job's progress sink in a worker process (sent to it with the job): down the pool's pipe."""

    job_id: int

    def __call__(self, data: dict[str, Any]) -> None:
        if _worker_pipe is None:
            return
        writer, lock = _worker_pipe
        if not lock.acquire(timeout=PIPE_WAIT):
            return
        try:
            writer.send((self.job_id, data))
        except OSError:  # the server closed the pipe (the pool was replaced): the job's answer is dropped too
            pass
        finally:
            lock.release()


class AgentProcessPool(ProcessPoolExecutor):
    """The agents' process pool: spawned workers ``niceness`` steps below the server's priority,
    each holding the writer end of the pool's :class:`ProgressPipe`."""

    def __init__(self, workers: int, niceness: int = 0) -> None:
        spawn = get_context("spawn")
        self.progress = ProgressPipe(spawn)
        initargs = (niceness, self.progress.writer, self.progress.lock, os.getpid())
        super().__init__(max_workers=workers, mp_context=spawn, initializer=start_worker, initargs=initargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        self.progress.close()


def make_executor(kind: str = "process", workers: int | None = None, niceness: int = 0) -> Executor:
    """A pool for agent moves: ``process`` (default: true parallelism, isolated) or ``thread``.

    Process workers run ``niceness`` steps below normal priority, so agents thinking never take the
    CPU from the server's event loop (which answers every player)."""
    if kind == "thread":
        return ThreadPoolExecutor(max_workers=workers or 8, thread_name_prefix="spheria-agent")
    if kind != "process":
        raise ValueError(f"agent pool must be 'process' or 'thread', not {kind!r}")
    return AgentProcessPool(workers or max(2, os.cpu_count() or 2), niceness)


class AgentTimeout(Exception):
    """An agent job ran past its deadline; its worker was killed."""


def agent_budget(spec: str, max_time: float) -> float:
    """The seconds an agent spec may think per move (its own budget, at most ``max_time``)."""
    try:
        return min(make_agent(spec, max_time=max_time).max_seconds_per_move(), max_time)
    except ValueError:
        return max_time


class AgentRunner(Protocol):
    """What runs agent jobs for the server: :class:`AgentPool` here, or
    :class:`~spheria.server.agent_queue.RedisAgentQueue` for workers elsewhere."""

    async def run(self, job: AgentJob, budget: float, on_progress: ProgressSink | None = None) -> str:
        """The agent's move, or :class:`AgentTimeout` past ``budget`` plus the runner's grace."""
        ...

    def shutdown(self) -> None: ...


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
        #: The progress callback of each job running with one, by the id its reports carry.
        self.listeners: dict[int, ProgressSink] = {}
        self._ids = itertools.count(1)
        self._listening: tuple[asyncio.AbstractEventLoop, ProgressPipe] | None = None

    def rebuild(self, generation: int) -> None:
        """Replace the pool of ``generation`` (once, however many jobs saw it break)."""
        if generation != self.generation:
            return
        old = self.executor
        self.executor = self._start()
        self.generation += 1
        self.rebuilds += 1
        self._stop_listening()
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

    async def run(self, job: AgentJob, budget: float, on_progress: ProgressSink | None = None) -> str:
        """The agent's move, or :class:`AgentTimeout` after ``budget`` + grace seconds of thinking;
        ``on_progress`` is given the agent's progress reports until then (see the module's docstring).

        A job whose pool broke under it (another job's worker was killed) is run once more."""
        job_id = next(self._ids)
        if on_progress is not None:
            self.listeners[job_id] = on_progress
        try:
            return await self._run(job, budget, job_id if on_progress is not None else None)
        finally:
            self.listeners.pop(job_id, None)

    async def _run(self, job: AgentJob, budget: float, job_id: int | None) -> str:
        async with self._thinking:
            for attempt in (1, 2):
                await self._ready()
                generation = self.generation
                try:
                    future = self.executor.submit(choose_move, job, self._sink(job_id))
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

    def _sink(self, job_id: int | None) -> ProgressSink | None:
        """Where the worker running job ``job_id`` sends its reports (``None``: nowhere)."""
        if job_id is None:
            return None
        executor = self.executor
        if isinstance(executor, AgentProcessPool):
            self._listen(executor.progress)
            return PipeProgress(job_id)
        if isinstance(executor, ThreadPoolExecutor):
            loop = asyncio.get_running_loop()

            def send(data: dict[str, Any]) -> None:
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    loop.call_soon_threadsafe(self._deliver, job_id, data)

            return send
        return None  # a pool of another make: its workers have no way back

    def _deliver(self, job_id: int, data: dict[str, Any]) -> None:
        listener = self.listeners.get(job_id)
        if listener is None:
            return  # the job has ended: a late report
        try:
            listener(data)
        except Exception:
            log.warning("an agent progress report could not be passed on", exc_info=True)

    def _listen(self, pipe: ProgressPipe) -> None:
        if self._listening is not None and self._listening[1] is pipe:
            return
        self._stop_listening()
        loop = asyncio.get_running_loop()
        loop.add_reader(pipe.reader.fileno(), self._read, pipe)
        self._listening = (loop, pipe)

    def _stop_listening(self) -> None:
        if self._listening is not None:
            loop, pipe = self._listening
            self._listening = None
            with contextlib.suppress(Exception):  # the loop or the pipe is closed already
                loop.remove_reader(pipe.reader.fileno())

    def _read(self, pipe: ProgressPipe) -> None:
        try:
            while pipe.reader.poll():
                job_id, data = pipe.reader.recv()
                self._deliver(job_id, data)
        except (EOFError, OSError, ValueError, TypeError, pickle.UnpicklingError):  # closed or garbled: no more reports
            self._stop_listening()

    def shutdown(self) -> None:
        self._stop_listening()
        _kill_workers(self.executor)
