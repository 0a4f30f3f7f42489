"""The analysis board's jobs over Redis streams: web processes queue them, ``spheria agents`` workers run them.

With ``create_app(redis=URL)`` a web process starts no analysis processes: its
:class:`RedisAnalysisQueue` has the face of :class:`~spheria.server.analysis_pool.AnalysisPool` that
:class:`~spheria.server.analysis.AnalysisService` uses (``run(job, on_progress, budget, owner)``,
``busy``, ``warm()``, ``shutdown()``), and :class:`AnalysisWorker` (run by ``spheria agents --redis
URL`` beside its agent worker) runs the jobs in a local :class:`AnalysisPool` of its own, which keeps
serving the owners (the askers' addresses, hashed) in turn.

**The wire** follows :mod:`spheria.server.agent_queue`'s. A job is one entry of the stream
:data:`STREAM`, read through the consumer group :data:`GROUP`, with the fields ``id`` (32 hex digits
the web process drew), ``job`` (a :class:`PositionJob` or :class:`GameJob` as JSON, never a pickle),
``deadline`` (Unix time: the budget plus the grace, waiting in the queue included) and ``owner`` (a
hash of the asker's address, for the worker's fairness). The worker answers on the list
``spheria:analysis:reply:<id>``: ``{"started": true}`` when it starts the job, ``{"progress": {...}}``
while the engine works, then one ``{"result": {...}}`` or ``{"error": {"code", "message"}}``.

**Cancelling.** A web process that gives a job up (the board's socket closed, the page asked for
another, or its deadline passed) pushes onto the list ``spheria:analysis:cancel:<id>``: a worker
that has not started the job drops it, and the worker that runs it, which waits on that list while
the job runs, stops its engine (the local pool's cancel, checked between two progress reports) and
takes its next job at once.

**Deadlines and dead workers.** A worker drops a job past its deadline without starting it and kills
its engine at the deadline (the answer is then the ``timeout`` failure, as with a local pool). A job
whose worker was killed is taken over by another worker after :data:`~spheria.server.agent_queue.CLAIM_IDLE`
seconds if its deadline has not passed. The web process waits until the deadline and
:data:`ANSWER_MARGIN` more (for the worker's own ``timeout`` answer): then it fails the job with
``worker_died`` if a worker had started it, else with ``timeout`` (no worker took it).

**Faults.** With Redis down a job fails at once with the code ``queue_down``. Every key is made from
these constants and server-made ids: a game's name, a move or an address only travels inside JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import re
import time
import uuid
from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any

from spheria.i18n import gettext as _
from spheria.server import queue_messages as M
from spheria.server.agent_queue import (
    CLAIM_IDLE,
    ERROR_MOST,
    REPLY_TTL,
    STREAM_MOST,
    WAIT_STEP,
    StreamWorker,
    _redis_errors,
)
from spheria.server.analysis_pool import AnalysisPool, GameJob, Job, JobFailed, PositionJob

if TYPE_CHECKING:
    from collections.abc import Callable

    from redis.asyncio import Redis

log = logging.getLogger("spheria.analysis")

#: The stream of analysis jobs, and its consumer group (every worker reads through it).
STREAM = "spheria:analysis:jobs"
GROUP = "spheria-analysis"
#: The reply list of a job, and its cancel list: these, then the job's id.
REPLY_PREFIX = "spheria:analysis:reply:"
CANCEL_PREFIX = "spheria:analysis:cancel:"
#: Seconds the web process waits past a job's deadline for the worker's own answer (its ``timeout``).
ANSWER_MARGIN = 2.0
#: How many steps below the agents' processes a worker's analysis processes run (players' agents first).
BELOW_AGENTS = 5

_JOB_ID = re.compile(r"[0-9a-f]{32}")
_KINDS: dict[str, type[PositionJob] | type[GameJob]] = {"position": PositionJob, "game": GameJob}
_CHECKS: dict[str, tuple[type, ...]] = {
    "game": (str,),
    "options": (dict,),
    "spn": (str, type(None)),
    "start": (str, type(None)),
    "seed": (int, type(None)),
    "moves": (list,),
    "seat": (int, type(None)),
    "time": (int, float),
}


def reply_key(job_id: str) -> str:
    """The reply list of the job ``job_id`` (32 hex digits, drawn by the server; anything else is refused)."""
    return REPLY_PREFIX + _checked(job_id)


def cancel_key(job_id: str) -> str:
    """The cancel list of the job ``job_id`` (as :func:`reply_key`)."""
    return CANCEL_PREFIX + _checked(job_id)


def _checked(job_id: str) -> str:
    if not _JOB_ID.fullmatch(job_id):
        raise ValueError(f"not a job id: {job_id[:40]!r}")
    return job_id


def owner_tag(owner: str) -> str:
    """What travels of an asker's address: a hash, equal for equal addresses (the worker's fairness)."""
    return hashlib.sha256(owner.encode()).hexdigest()[:16]


def encode_job(job: Job) -> str:
    """The job as JSON, with its kind (:func:`decode_job` reads it back)."""
    kind = "position" if isinstance(job, PositionJob) else "game"
    return json.dumps({"kind": kind, **asdict(job)}, separators=(",", ":"), allow_nan=False)


def decode_job(text: str) -> Job:
    """The job of :func:`encode_job`'s JSON; ``ValueError`` naming what is wrong."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("an analysis job must be a JSON object")
    kind = data.pop("kind", None)
    if kind not in _KINDS:
        raise ValueError("an analysis job's kind must be 'position' or 'game'")
    made = _KINDS[kind]
    names = {field.name for field in fields(made)}
    if set(data) != names:
        raise ValueError(f"an analysis job of kind {kind!r} needs exactly the fields " + ", ".join(sorted(names)))
    for name in names:
        if not isinstance(data[name], _CHECKS[name]) or isinstance(data[name], bool):
            raise ValueError(f"an analysis job's {name} is of the wrong type")
    if not all(isinstance(move, str) for move in data["moves"]):
        raise ValueError("an analysis job's moves must be text")
    if not 0 < data["time"] < math.inf:
        raise ValueError("an analysis job's time must be a positive number of seconds")
    return made(**{**data, "moves": tuple(data["moves"])})


def decode_entry(entry: dict[str, str] | None) -> tuple[str, Job, float, str]:
    """``(job id, job, deadline, owner)`` of a stream entry; ``ValueError`` (or ``KeyError``) if garbled."""
    if not entry:
        raise ValueError("an empty stream entry")
    job_id = _checked(entry["id"])  # refuses an id the server did not make
    deadline = float(entry["deadline"])
    if not math.isfinite(deadline):
        raise ValueError("a job's deadline must be a time")
    return job_id, decode_job(entry["job"]), deadline, str(entry.get("owner", ""))[:64]


class RedisAnalysisQueue:
    """Analysis jobs run by workers elsewhere (:class:`AnalysisWorker`): the face of ``AnalysisPool``."""

    def __init__(self, redis: Redis, grace: float = 10.0, margin: float = ANSWER_MARGIN) -> None:
        """``redis``: the process's client (:func:`spheria.server.agent_queue.connect`), closed by its owner;
        ``grace``: seconds past a job's budget before its worker stops it."""
        self.redis = redis
        self.grace = grace
        self.margin = margin
        self.asked = 0

    @property
    def busy(self) -> int:
        """This process's jobs waiting in the queue or running on a worker."""
        return self.asked

    def warm(self) -> None:
        """Nothing starts here: the workers' processes are theirs."""

    def shutdown(self) -> None:
        """Nothing runs here (each job still asked gives itself up as its socket closes)."""

    async def run(
        self, job: Job, on_progress: Callable[[dict[str, Any]], object], budget: float, owner: str = ""
    ) -> dict[str, Any]:
        """The job's answer from a worker; :class:`JobFailed` (``timeout``, ``worker_died``, ``failed``,
        ``queue_down``) or ``asyncio.CancelledError`` (the job is given up: its worker stops it)."""
        seconds = budget + self.grace
        loop = asyncio.get_running_loop()
        ends = loop.time() + seconds + self.margin
        job_id = uuid.uuid4().hex
        reply, cancel = reply_key(job_id), cancel_key(job_id)
        entry = {"id": job_id, "job": encode_job(job), "deadline": repr(time.time() + seconds)}
        entry["owner"] = owner_tag(owner)
        self.asked += 1
        answered = started = False
        try:
            try:
                await self.redis.xadd(STREAM, entry, maxlen=STREAM_MOST, approximate=True)  # type: ignore[arg-type]
                while True:
                    left = ends - loop.time()
                    if left <= 0:
                        if started:
                            raise JobFailed("worker_died", _(M.ANALYSIS_WORKER_GONE))
                        raise JobFailed("timeout", _(M.ANALYSIS_NO_WORKER).format(seconds=f"{seconds:g}"))
                    popped = await self.redis.blpop([reply], timeout=max(0.01, min(left, WAIT_STEP)))
                    if popped is None:
                        continue
                    frame = json.loads(popped[1])
                    if not isinstance(frame, dict):
                        continue
                    if "started" in frame:
                        started = True
                    elif "progress" in frame:
                        if isinstance(frame["progress"], dict):
                            _pass_on(on_progress, frame["progress"])
                    else:
                        answered = True
                        return _answer(frame)
            except (ConnectionError, OSError, _redis_errors()) as error:
                log.warning(_(M.WORKER_REDIS_DOWN).format(error=str(error)[:ERROR_MOST]))
                raise JobFailed("queue_down", _(M.ANALYSIS_QUEUE_DOWN)) from None
        finally:
            self.asked -= 1
            with contextlib.suppress(Exception):  # Redis is down: the lists expire by themselves
                async with self.redis.pipeline(transaction=True) as pipe:
                    if not answered:  # given up: a worker that has it (or takes it over) stops
                        pipe.rpush(cancel, "1")
                        pipe.expire(cancel, math.ceil(seconds) + REPLY_TTL)
                    pipe.delete(reply)
                    await pipe.execute()


def _answer(frame: dict[str, Any]) -> dict[str, Any]:
    """The result of a worker's last frame, or its failure as :class:`JobFailed`."""
    result = frame.get("result")
    if isinstance(result, dict):
        return result
    error = frame.get("error")
    if not isinstance(error, dict):
        error = {}
    code = str(error.get("code") or "failed")[:40]
    raise JobFailed(code, str(error.get("message") or code)[:ERROR_MOST])


def _pass_on(sink: Callable[[dict[str, Any]], object], data: dict[str, Any]) -> None:
    try:
        sink(data)
    except Exception:
        log.warning("an analysis progress report could not be passed on", exc_info=True)


class AnalysisWorker(StreamWorker):
    """The analysis board's worker of ``spheria agents``: runs queued analysis jobs in a local
    :class:`~spheria.server.analysis_pool.AnalysisPool` of ``workers`` processes, which serves the
    jobs' owners in turn; its processes run :data:`BELOW_AGENTS` steps below the agents' ``niceness``."""

    stream = STREAM
    group = GROUP
    started_message = M.ANALYSIS_WORKER_STARTED
    stopped_message = M.ANALYSIS_WORKER_STOPPED

    def __init__(self, url: str, workers: int = 1, niceness: int = 0, *, claim_idle: float = CLAIM_IDLE) -> None:
        super().__init__(url, workers, claim_idle=claim_idle)
        self.pool = AnalysisPool(self.workers, grace=0.0, niceness=min(19, max(0, niceness) + BELOW_AGENTS))

    def _close(self) -> None:
        self.pool.shutdown()

    async def _run(self, entry_id: str, entry: dict[str, str] | None) -> None:
        admitted = await self._admit(entry_id, entry, decode_entry)
        if admitted is None:
            return
        (job_id, job, _deadline, owner), left = admitted
        reply, cancel = reply_key(job_id), cancel_key(job_id)
        try:
            given_up = await self.redis.exists(cancel)
            if not given_up:
                await self._send(reply, {"started": True})
        except (ConnectionError, OSError, _redis_errors()) as error:
            log.warning(_(M.WORKER_REDIS_DOWN).format(error=str(error)[:ERROR_MOST]))
            return  # it stays pending: taken over, or dropped at its deadline
        if given_up:
            log.info(_(M.ANALYSIS_DROPPED).format(entry=entry_id))
            await self._finish(entry_id, None, None)
            return
        log.info(_(M.ANALYSIS_JOB).format(entry=entry_id, game=job.game, seconds=f"{left:.1f}"))
        started = time.monotonic()
        reports: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        relay = asyncio.ensure_future(self._relay(reply, reports))
        work = asyncio.ensure_future(
            self.pool.run(job, lambda data: reports.put_nowait({"progress": data}), left, owner)
        )
        watch = asyncio.ensure_future(self._watch(cancel))
        try:
            await asyncio.wait({work, watch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
        if not work.done():  # the board gave it up: the local pool stops the engine
            relay.cancel()
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
            log.info(_(M.ANALYSIS_CANCELLED).format(entry=entry_id))
            await self._finish(entry_id, None, None)
            return
        reports.put_nowait(None)
        await relay  # every progress report is on the list before the answer
        frame: dict[str, Any] | None
        try:
            frame = {"result": work.result()}
            log.info(_(M.ANALYSIS_ANSWERED).format(entry=entry_id, seconds=f"{time.monotonic() - started:.2f}"))
        except asyncio.CancelledError:
            frame = None
        except JobFailed as failure:
            frame = {"error": {"code": failure.code, "message": failure.message[:ERROR_MOST]}}
            log.warning(_(M.ANALYSIS_FAILED).format(entry=entry_id, error=f"{failure.code}: {failure.message}"))
        except Exception as error:
            message = f"{type(error).__name__}: {error}"[:ERROR_MOST]
            frame = {"error": {"code": "failed", "message": message}}
            log.warning(_(M.ANALYSIS_FAILED).format(entry=entry_id, error=message))
        await self._finish(entry_id, reply, frame)

    async def _send(self, reply: str, frame: dict[str, Any]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(reply, json.dumps(frame))
            pipe.expire(reply, REPLY_TTL)
            await pipe.execute()

    async def _relay(self, reply: str, reports: asyncio.Queue[dict[str, Any] | None]) -> None:
        """Push a job's progress reports onto its reply list one after another, in order, until ``None``
        (a report Redis does not take is lost, as a local pool's is when its socket's queue is full)."""
        while (frame := await reports.get()) is not None:
            try:
                await self._send(reply, frame)
            except (ConnectionError, OSError, _redis_errors()) as error:
                log.debug("a progress report was lost: %s", error)

    async def _watch(self, cancel: str) -> None:
        """Return when the job's cancel list gets an entry (a Redis outage is waited out)."""
        while True:
            try:
                if await self.redis.blpop([cancel], timeout=WAIT_STEP) is not None:
                    return
            except (ConnectionError, OSError, _redis_errors()):
                await asyncio.sleep(WAIT_STEP)
