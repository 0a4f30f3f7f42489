"""Analysis jobs in worker processes of their own, with live progress.

The analysis board's engine (:func:`spheria.analysis.analyse`, :func:`analyse_game`) runs in
``workers`` processes started for it alone: never in the agents' pool, never on the event loop.
Each worker holds one end of a pipe; the event loop reads the other end with ``add_reader``, so
progress frames arrive without a thread per job. A worker runs one job at a time and reports at
most every :data:`PROGRESS_EVERY` seconds; between reports it looks for a ``cancel`` message and
stops. A job past its deadline (its time cap plus ``grace``) gets its worker killed and replaced.

Jobs are plain data (:class:`PositionJob`, :class:`GameJob`): the worker rebuilds the position
from the game's name, options, start (SPN), seed and moves with
:func:`spheria.kernel.record.replay`, exactly as the server checked them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.connection import Connection
from typing import Any

#: Seconds between two progress reports of one job.
PROGRESS_EVERY = 0.25
#: How much lower the workers' priority is than the server's: below the agents' workers
#: (``Limits.agent_niceness``, 10), so that players' agents come first and the board waits.
WORKER_NICENESS = 15


@dataclass(frozen=True)
class PositionJob:
    """Analyse the position ``moves`` after ``spn`` (``None``: the game's start) for ``seat``."""

    game: str
    options: dict[str, Any]
    spn: str | None
    moves: tuple[str, ...]
    seat: int | None
    time: float


@dataclass(frozen=True)
class GameJob:
    """Analyse every move of a finished game, ``time`` a position: the game's first position
    (``start`` when it was set up from one, else the game's own start with ``seed``), then ``moves``."""

    game: str
    options: dict[str, Any]
    start: str | None
    seed: int | None
    moves: tuple[str, ...]
    time: float


Job = PositionJob | GameJob


class Cancelled(Exception):
    """The server asked the worker to drop its job."""


class JobFailed(Exception):
    """A job ended without an answer: ``code`` (``timeout``, ``worker_died``, ``failed``) and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# -- the worker process ------------------------------------------------------------------------


class Throttle:
    """Lets a report through at most every :data:`PROGRESS_EVERY` seconds (the first one at once)."""

    def __init__(self) -> None:
        self.last = -PROGRESS_EVERY

    def due(self, force: bool = False) -> bool:
        now = time.monotonic()
        if force or now - self.last >= PROGRESS_EVERY:
            self.last = now
            return True
        return False


class _Reporter:
    """The progress callback of one job: throttled reports, and the cancel check."""

    def __init__(self, conn: Connection, job_id: int) -> None:
        self.conn = conn
        self.job_id = job_id
        self.throttle = Throttle()

    def check(self) -> None:
        while self.conn.poll():
            message = self.conn.recv()
            if message == ("cancel", self.job_id):
                raise Cancelled

    def send(self, data: dict[str, Any], force: bool = False) -> None:
        self.check()
        if self.throttle.due(force):
            self.conn.send((self.job_id, "progress", data))

    def search(self, report: Any) -> None:
        """:func:`spheria.analysis.analyse`'s ``progress``: positions or iterations, and the answer so far."""
        data: dict[str, Any] = {
            "method": report.method,
            "seconds": round(report.seconds, 3),
            "positions": report.positions,
            "iterations": report.iterations,
        }
        if report.partial is not None:
            data["partial"] = report.partial.to_json()
        # An exact partial answer is news (a verdict with its winning move, a move proved): never
        # held back by the throttle. An estimate's next one follows a quarter second later.
        self.send(data, force=report.partial is not None and report.partial.exact)


def run_position(job: PositionJob, reporter: _Reporter) -> dict[str, Any]:
    from spheria.analysis import analyse
    from spheria.kernel.record import replay

    state = replay(job.game, job.options, job.spn, None, job.moves)
    result = analyse(state, time=job.time, progress=reporter.search, seat=job.seat)
    data: dict[str, Any] = result.to_json()
    return data


def run_game(job: GameJob, reporter: _Reporter) -> dict[str, Any]:
    from spheria.analysis import analyse_game
    from spheria.kernel.record import replay_steps, set_up

    state = set_up(job.game, job.options, job.start, job.seed)
    states = [state.clone()] + [step.state.clone() for step in replay_steps(state, job.moves)]

    def step(number: int, total: int) -> None:
        reporter.send({"number": number, "total": total}, force=True)

    report = analyse_game(states, time=job.time, progress=step, search_progress=lambda _: reporter.check())
    return game_summary(report.to_json(statistics=False))


def game_summary(report: dict[str, Any]) -> dict[str, Any]:
    """What the page needs of a game's analysis: each move without the full analysis before it."""
    moves = [{k: v for k, v in move.items() if k != "before"} for move in report["moves"]]
    return {**report, "moves": moves}


def _worker(conn: Connection, niceness: int) -> None:
    """A worker's loop: one job at a time, answered as ``(id, "done" | "error" | "cancelled", data)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(niceness)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if not (isinstance(message, tuple) and len(message) == 2 and isinstance(message[1], PositionJob | GameJob)):
            continue  # a late cancel for a job already answered
        job_id, job = message
        reporter = _Reporter(conn, job_id)
        try:
            result = run_position(job, reporter) if isinstance(job, PositionJob) else run_game(job, reporter)
            conn.send((job_id, "done", result))
        except Cancelled:
            conn.send((job_id, "cancelled", None))
        except Exception as error:  # the answer names it; the worker lives on
            conn.send((job_id, "error", str(error) or type(error).__name__))


# -- the pool (event loop side) ----------------------------------------------------------------


@dataclass
class _Task:
    id: int
    job: Job
    on_progress: Callable[[dict[str, Any]], object]
    future: asyncio.Future[dict[str, Any]]
    deadline: float
    owner: str = ""  # who asked (an address): the queue serves owners in turn


@dataclass
class _Worker:
    process: Any
    conn: Connection
    task: _Task | None = None
    timer: asyncio.TimerHandle | None = None
    started: float = field(default_factory=time.monotonic)


class AnalysisPool:
    """``size`` worker processes (started when first needed) running analysis jobs in order.

    :meth:`run` waits for a job's answer; :meth:`cancel` drops a waiting job or asks a running
    one to stop. ``grace``: seconds past a job's time cap before its worker is killed.
    """

    def __init__(self, size: int, grace: float = 10.0, niceness: int = WORKER_NICENESS) -> None:
        self.size = max(1, size)
        self.grace = grace
        self.niceness = niceness
        self.workers: list[_Worker] = []
        self.waiting: deque[_Task] = deque()
        self.killed = 0
        self._ids = itertools.count(1)
        self._turns = itertools.count()
        self._served: dict[str, int] = {}  # owner: the turn it was last served
        self._context = get_context("spawn")

    @property
    def busy(self) -> int:
        """Jobs running or waiting."""
        return len(self.waiting) + sum(1 for w in self.workers if w.task is not None)

    async def run(
        self, job: Job, on_progress: Callable[[dict[str, Any]], object], budget: float, owner: str = ""
    ) -> dict[str, Any]:
        """The job's answer; raises :class:`JobFailed` or ``asyncio.CancelledError`` (cancelled).

        Waiting jobs are served fairly: a freed worker takes the oldest job of the owner with
        the fewest jobs running, so one owner's queue never holds back another's."""
        loop = asyncio.get_running_loop()
        task = _Task(next(self._ids), job, on_progress, loop.create_future(), budget + self.grace, owner)
        # The answer of a job given up (its asker cancelled or gone) is read here, never left unread.
        task.future.add_done_callback(lambda done: done.cancelled() or done.exception())
        self.waiting.append(task)
        self._dispatch()
        try:
            return await asyncio.shield(task.future)
        except asyncio.CancelledError:
            self.cancel(task.future)
            raise

    def warm(self) -> None:
        """Start a worker now if none runs (a page that opens the socket will soon ask)."""
        if not self.workers:
            self._spawn()

    def cancel(self, future: asyncio.Future[dict[str, Any]]) -> None:
        for task in list(self.waiting):
            if task.future is future:
                self.waiting.remove(task)
                task.future.cancel()
                return
        for worker in self.workers:
            if worker.task is not None and worker.task.future is future:
                with contextlib.suppress(OSError):
                    worker.conn.send(("cancel", worker.task.id))
                return

    @property
    def owner_cap(self) -> int:
        """The most jobs one owner runs at once: all but one worker, so that a worker is always
        left for whoever asks next (a single worker serves everyone in turn)."""
        return max(1, self.size - 1)

    def _dispatch(self) -> None:
        while self.waiting:
            worker = next((w for w in self.workers if w.task is None), None)
            if worker is None and len(self.workers) >= self.size:
                return
            task = self._next_fair()
            if task is None:  # every waiting owner already runs its share
                return
            if worker is None:
                worker = self._spawn()
            if task.future.done():
                continue
            try:
                worker.conn.send((task.id, task.job))
            except OSError:
                self._replace(worker, JobFailed("worker_died", "the analysis worker stopped"))
                self.waiting.appendleft(task)
                continue
            worker.task = task
            worker.timer = asyncio.get_running_loop().call_later(task.deadline, self._overrun, worker)

    def _next_fair(self) -> _Task | None:
        """Take the oldest waiting job of the owner with the fewest jobs running now, and of those
        the owner served longest ago (never first): owners take turns, whoever queued more.
        ``None`` when every waiting job's owner already runs :attr:`owner_cap` jobs."""
        running: dict[str, int] = {}
        for worker in self.workers:
            if worker.task is not None:
                running[worker.task.owner] = running.get(worker.task.owner, 0) + 1
        allowed = [t for t in self.waiting if running.get(t.owner, 0) < self.owner_cap]
        if not allowed:
            return None
        task = min(allowed, key=lambda t: (running.get(t.owner, 0), self._served.get(t.owner, -1)))
        self.waiting.remove(task)  # min keeps the oldest of equals
        self._served[task.owner] = next(self._turns)
        if len(self._served) > 10_000:
            self._served.clear()
        return task

    def _spawn(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_worker, args=(theirs, self.niceness), daemon=True, name="spheria-analysis"
        )
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        asyncio.get_running_loop().add_reader(ours.fileno(), self._readable, worker)
        self.workers.append(worker)
        return worker

    def _readable(self, worker: _Worker) -> None:
        try:
            while worker.conn.poll():
                job_id, kind, data = worker.conn.recv()
                task = worker.task
                if task is None or task.id != job_id:
                    continue  # the answer of a job that was given up
                if kind == "progress":
                    task.on_progress(data)
                    continue
                self._finish(worker)
                if task.future.done():
                    continue
                if kind == "done":
                    task.future.set_result(data)
                elif kind == "cancelled":
                    task.future.cancel()
                else:
                    task.future.set_exception(JobFailed("failed", str(data)))
        except (EOFError, OSError):
            self._replace(worker, JobFailed("worker_died", "the analysis worker stopped"))
        self._dispatch()

    def _finish(self, worker: _Worker) -> None:
        if worker.timer is not None:
            worker.timer.cancel()
        worker.timer = None
        worker.task = None

    def _overrun(self, worker: _Worker) -> None:
        task = worker.task
        seconds = task.deadline if task is not None else 0.0
        self.killed += 1
        self._replace(worker, JobFailed("timeout", f"the analysis did not end within {seconds:g} s"))
        self._dispatch()

    def _replace(self, worker: _Worker, error: JobFailed) -> None:
        """Kill ``worker`` (failing its job with ``error``); a new one starts when needed."""
        task = worker.task
        self._finish(worker)
        self._stop(worker)
        if worker in self.workers:
            self.workers.remove(worker)
        if task is not None and not task.future.done():
            task.future.set_exception(error)

    def _stop(self, worker: _Worker) -> None:
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(worker.conn.fileno())
        with contextlib.suppress(OSError, ValueError, AttributeError):
            worker.process.kill()
        with contextlib.suppress(OSError):
            worker.conn.close()
        with contextlib.suppress(Exception):
            worker.process.join(timeout=1)

    def shutdown(self) -> None:
        for task in self.waiting:
            task.future.cancel()
        self.waiting.clear()
        for worker in list(self.workers):
            self._replace(worker, JobFailed("shutdown", "the server is stopping"))
