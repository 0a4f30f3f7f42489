"""Agent jobs over Redis streams: web processes queue them, ``spheria agents`` workers run them.

With ``create_app(redis=URL)`` (``spheria serve --redis URL``) a web process has no agent pool:
its :class:`RedisAgentQueue` has the face of :class:`~spheria.server.agents.AgentPool`
(``run(job, budget, on_progress)``, ``shutdown()``), so game sessions and hints use it unchanged,
and any number of :class:`AgentWorker` (``spheria agents --redis URL``, on any machine) run the jobs.

**The wire.** A job is one entry of the stream :data:`STREAM`, read through the consumer group
:data:`GROUP`, with the fields ``id`` (32 hex digits the web process drew), ``job`` (the
:class:`~spheria.server.agents.AgentJob` as JSON: never a pickle, since nothing that comes over the
network is unpickled), ``deadline`` (Unix time: the budget plus the grace) and ``progress``
(``1``: the asker shows the search's progress; else none is sent, as in a game with hidden
information). The worker answers on the list ``spheria:agents:reply:<id>``: JSON frames
``{"progress": {...}}`` while the agent thinks, then one ``{"move": text}`` or ``{"error": text}``.
The web process pops them until its deadline (then :class:`~spheria.server.agents.AgentTimeout`,
and the session falls back to a random legal move as with a local pool), takes the first answer
only and deletes the list.
Every key is made from these constants and server-made ids, never from client text: a game id,
an agent spec or a name travels only inside the JSON.

**Deadlines and dead workers.** A worker drops a job whose deadline has passed without starting it,
and stops its agent at the deadline. While a job runs its worker claims it again every
:data:`HEARTBEAT` seconds; a job whose worker died (``kill -9``) stays pending without such claims,
and after :data:`CLAIM_IDLE` seconds another worker takes it over (``XAUTOCLAIM``) if its deadline
has not passed, else drops it. An answer, its acknowledgement and the entry's deletion are one
transaction, so a job is answered at most once by a worker that finished it.

**Faults.** With Redis down, :meth:`RedisAgentQueue.run` raises at once (no retries), so the
session's fallback move is played and a fault noted, as for an agent that failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any, TypeVar

from spheria.i18n import gettext as _
from spheria.server import queue_messages as M
from spheria.server import redis_client
from spheria.server.agents import AgentJob, AgentPool, AgentProcessPool, AgentTimeout, ProgressSink

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("spheria.agents")

#: The stream of agent jobs, and its consumer group (every worker reads through it).
STREAM = "spheria:agents:jobs"
GROUP = "spheria-agents"
#: The reply list of a job: this, then the job's id.
REPLY_PREFIX = "spheria:agents:reply:"
#: Seconds a reply list lives after its last frame (a late answer to a job given up cleans itself up).
REPLY_TTL = 60
#: Entries the stream keeps at most (answered ones are deleted; this bounds a queue no worker reads).
STREAM_MOST = 10_000
#: Seconds a job may stay claimed by a worker that no longer claims it again before another takes it.
CLAIM_IDLE = 3.0
#: Seconds between a worker's claims of the jobs it runs (well below :data:`CLAIM_IDLE`).
HEARTBEAT = 0.5
#: Seconds one wait on Redis lasts at most (a reply, a read of the stream): stopping is never slower.
WAIT_STEP = 1.0
#: Seconds an answer from Redis may take on an open connection (above :data:`WAIT_STEP`).
READ_TIMEOUT = 10.0
#: The characters of a worker's error that reach the server's log.
ERROR_MOST = 300

#: A decoded stream entry: (job id, job, deadline, what else the kind of job carries).
E = TypeVar("E", bound=tuple[Any, ...])

_JOB_ID = re.compile(r"[0-9a-f]{32}")
_JOB_FIELDS = {field.name: field for field in fields(AgentJob)}


class AgentFailed(Exception):
    """A worker ran the job and its agent failed (the worker's error, shortened)."""


#: Connections a process's client keeps at most: each agent job waiting for its answer holds one.
CONNECTIONS = 256


def connect(url: str) -> Redis:
    """The agent queue's client for ``url`` (text answers; :mod:`spheria.server.redis_client`)."""
    return redis_client.connect(url, connections=CONNECTIONS, read_timeout=READ_TIMEOUT, decode=True)


def reply_key(job_id: str) -> str:
    """The reply list of the job ``job_id`` (32 hex digits, drawn by the server; anything else is refused)."""
    if not _JOB_ID.fullmatch(job_id):
        raise ValueError(f"not a job id: {job_id[:40]!r}")
    return REPLY_PREFIX + job_id


def encode_job(job: AgentJob) -> str:
    """The job as JSON (:func:`decode_job` reads it back)."""
    return json.dumps(asdict(job), separators=(",", ":"), allow_nan=False)


def decode_job(text: str) -> AgentJob:
    """The :class:`AgentJob` of :func:`encode_job`'s JSON; ``ValueError`` naming what is wrong."""
    data = json.loads(text)
    if not isinstance(data, dict) or set(data) != set(_JOB_FIELDS):
        raise ValueError("an agent job needs exactly the fields " + ", ".join(sorted(_JOB_FIELDS)))
    checks: dict[str, tuple[type, ...]] = {
        "game_id": (str,),
        "name": (str,),
        "options": (dict,),
        "seed": (int, type(None)),
        "entries": (list,),
        "seat": (int,),
        "spec": (str,),
        "max_time": (int, float, type(None)),
        "start": (str, type(None)),
        "time_limit": (int, float, type(None)),
    }
    for name, kinds in checks.items():
        if not isinstance(data[name], kinds) or isinstance(data[name], bool):
            raise ValueError(f"an agent job's {name} is of the wrong type")
    if not all(isinstance(entry, str) for entry in data["entries"]):
        raise ValueError("an agent job's entries must be text")
    return AgentJob(**{**data, "entries": tuple(data["entries"])})


def decode_entry(entry: dict[str, str] | None) -> tuple[str, AgentJob, float, bool]:
    """``(job id, job, deadline, progress wanted)`` of a stream entry; ``ValueError`` (or
    ``KeyError``) if garbled."""
    if not entry:
        raise ValueError("an empty stream entry")
    job_id = entry["id"]
    reply_key(job_id)  # refuses an id the server did not make
    deadline = float(entry["deadline"])
    if not math.isfinite(deadline):
        raise ValueError("a job's deadline must be a time")
    return job_id, decode_job(entry["job"]), deadline, entry.get("progress") == "1"


class RedisAgentQueue:
    """Agent jobs run by workers elsewhere (:class:`AgentWorker`): the face of :class:`AgentPool`."""

    def __init__(self, redis: Redis, grace: float = 5.0) -> None:
        """``redis``: the process's client (:func:`connect`), shared with its presence, which closes it."""
        self.redis = redis
        self.grace = grace

    async def run(self, job: AgentJob, budget: float, on_progress: ProgressSink | None = None) -> str:
        """The move a worker chose, or :class:`AgentTimeout` after ``budget`` + grace seconds (waiting
        in the queue counts); ``on_progress`` is given the worker's progress reports until then.
        :class:`AgentFailed` if the agent failed; Redis's own error at once if it cannot be reached."""
        seconds = budget + self.grace
        loop = asyncio.get_running_loop()
        ends = loop.time() + seconds
        job_id = uuid.uuid4().hex
        reply = reply_key(job_id)
        entry = {"id": job_id, "job": encode_job(job), "deadline": repr(time.time() + seconds)}
        entry["progress"] = "1" if on_progress is not None else "0"  # none of a hidden game's search
        try:
            await self.redis.xadd(STREAM, entry, maxlen=STREAM_MOST, approximate=True)  # type: ignore[arg-type]
            while True:
                left = ends - loop.time()
                if left <= 0:
                    raise AgentTimeout(f"no move within {seconds:g} s")
                popped = await self.redis.blpop([reply], timeout=max(0.01, min(left, WAIT_STEP)))
                if popped is None:
                    continue
                frame = json.loads(popped[1])
                if "progress" in frame:
                    if on_progress is not None and isinstance(frame["progress"], dict):
                        _pass_on(on_progress, frame["progress"])
                    continue
                if "move" in frame:
                    return str(frame["move"])
                raise AgentFailed(str(frame.get("error", ""))[:ERROR_MOST])
        finally:
            with contextlib.suppress(Exception):  # Redis is down: the list expires by itself
                await self.redis.delete(reply)

    def shutdown(self) -> None:
        """Nothing runs here (the client is closed by its owner)."""


def _pass_on(sink: ProgressSink, data: dict[str, Any]) -> None:
    try:
        sink(data)
    except Exception:
        log.warning("an agent progress report could not be passed on", exc_info=True)


class StreamWorker:
    """A worker of one job stream (:attr:`stream`, read through :attr:`group`): it reads at most as
    many jobs as it has free processes, takes over jobs of dead workers first, answers each job on
    its reply list, and on :meth:`stop` (SIGTERM) reads no more and finishes the jobs it runs (each
    ends by its deadline). A subclass runs a job (:meth:`_run`) and closes its pool (:meth:`_close`)."""

    stream = STREAM
    group = GROUP
    #: The log lines of its start and its stop.
    started_message = M.WORKER_STARTED
    stopped_message = M.WORKER_STOPPED

    def __init__(self, url: str, workers: int = 1, *, claim_idle: float = CLAIM_IDLE) -> None:
        self.redis = connect(url)
        self.workers = max(1, workers)
        self.claim_idle = claim_idle
        self.consumer = f"{socket.gethostname()}:{os.getpid()}"
        #: The jobs running now, by stream entry id.
        self.running: dict[str, asyncio.Task[None]] = {}
        self.stopping = asyncio.Event()
        self._reports: set[asyncio.Task[Any]] = set()
        self.answered = 0

    async def _admit(
        self, entry_id: str, entry: dict[str, str] | None, decode: Callable[[Any], E]
    ) -> tuple[E, float] | None:
        """The entry ``decode`` d (its deadline third) and the seconds left before that deadline; None
        when it is garbled or late: then it is acknowledged and dropped, answered by nobody."""
        try:
            decoded = decode(entry)
        except (ValueError, KeyError, TypeError) as error:
            log.warning(_(M.WORKER_GARBLED).format(entry=entry_id, error=str(error)[:ERROR_MOST]))
            await self._finish(entry_id, None, None)
            return None
        left = float(decoded[2]) - time.time()
        if left <= 0:
            log.info(_(M.WORKER_LATE).format(entry=entry_id, seconds=f"{-left:.1f}"))
            await self._finish(entry_id, None, None)
            return None
        return decoded, left

    def stop(self) -> None:
        """Read no more jobs; :meth:`serve` returns once the running ones are answered."""
        if not self.stopping.is_set():
            log.info(_(M.WORKER_STOPPING).format(n=len(self.running)))
        self.stopping.set()

    async def serve(self) -> None:
        """Run jobs until :meth:`stop`; a Redis outage is logged once and waited out."""
        log.info(_(self.started_message).format(consumer=self.consumer, workers=self.workers))
        heartbeat = asyncio.create_task(self._heartbeat())
        down = False
        grouped = False
        try:
            while not self.stopping.is_set():
                try:
                    if not grouped:  # at the start, and after an outage (a Redis restarted empty has none)
                        await self._ensure_group()
                        grouped = True
                    await self._take_jobs()
                    if down:
                        log.info(_(M.WORKER_REDIS_BACK))
                        down = False
                except (ConnectionError, OSError, _redis_errors()) as error:
                    grouped = False
                    if not down:
                        log.warning(_(M.WORKER_REDIS_DOWN).format(error=str(error)[:ERROR_MOST]))
                        down = True
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), WAIT_STEP)
            if self.running:
                await asyncio.wait(list(self.running.values()))
        finally:
            heartbeat.cancel()
            self._close()
            with contextlib.suppress(Exception):
                await self.redis.aclose()
        log.info(_(self.stopped_message).format(n=self.answered))

    def _close(self) -> None:
        """Stop this worker's processes."""
        raise NotImplementedError

    async def _ensure_group(self) -> None:
        from redis.exceptions import ResponseError

        try:
            await self.redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def _take_jobs(self) -> None:
        """Start what there is room for: jobs of dead workers first, then new ones (waiting a moment)."""
        free = self.workers - len(self.running)
        if free <= 0:
            await asyncio.wait([*self.running.values()], timeout=WAIT_STEP, return_when=asyncio.FIRST_COMPLETED)
            return
        claimed: list[Any] = await self.redis.xautoclaim(
            self.stream, self.group, self.consumer, min_idle_time=int(self.claim_idle * 1000), count=free
        )
        entries = list(claimed[1])
        for entry_id, _fields in entries:
            log.info(_(M.WORKER_TOOK_OVER).format(entry=entry_id))
        if not entries:
            read: Any = await self.redis.xreadgroup(
                self.group, self.consumer, {self.stream: ">"}, count=free, block=int(WAIT_STEP * 1000)
            )
            entries = [entry for _stream, stream_entries in read or [] for entry in stream_entries]
        for entry_id, entry in entries:
            if self.stopping.is_set():
                return  # not started: another worker takes it over once it is idle long enough
            self._start(str(entry_id), entry)

    def _start(self, entry_id: str, entry: dict[str, str] | None) -> None:
        task = asyncio.create_task(self._run(entry_id, entry))
        self.running[entry_id] = task
        task.add_done_callback(lambda _task: self.running.pop(entry_id, None))

    async def _run(self, entry_id: str, entry: dict[str, str] | None) -> None:
        """Run the job of one stream entry and :meth:`_finish` it."""
        raise NotImplementedError

    async def _finish(self, entry_id: str, reply: str | None, frame: dict[str, Any] | None) -> None:
        """Answer (if there is an answer), acknowledge and delete the entry: one transaction. With
        Redis gone the job stays pending, to be taken over by a worker or dropped at its deadline."""
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                if reply is not None and frame is not None:
                    pipe.rpush(reply, json.dumps(frame))
                    pipe.expire(reply, REPLY_TTL)
                pipe.xack(self.stream, self.group, entry_id)
                pipe.xdel(self.stream, entry_id)
                await pipe.execute()
        except (ConnectionError, OSError, _redis_errors()) as error:
            log.warning(_(M.WORKER_REDIS_DOWN).format(error=str(error)[:ERROR_MOST]))
            return
        if reply is not None and frame is not None:
            self.answered += 1

    def _report(self, reply: str, data: dict[str, Any]) -> None:
        async def send() -> None:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.rpush(reply, json.dumps({"progress": data}))
                pipe.expire(reply, REPLY_TTL)
                await pipe.execute()

        task = asyncio.get_running_loop().create_task(send())
        self._reports.add(task)
        task.add_done_callback(self._reported)

    def _reported(self, task: asyncio.Task[Any]) -> None:
        self._reports.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("a progress report was lost: %s", task.exception())

    async def _heartbeat(self) -> None:
        """Claim the running jobs again and again, so no other worker takes them over."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            ids: list[Any] = list(self.running)
            if ids:
                with contextlib.suppress(Exception):
                    await self.redis.xclaim(self.stream, self.group, self.consumer, 0, ids, justid=True)


class AgentWorker(StreamWorker):
    """``spheria agents``: runs queued agent jobs in a local :class:`AgentPool` of ``workers`` processes."""

    def __init__(self, url: str, workers: int = 1, niceness: int = 0, *, claim_idle: float = CLAIM_IDLE) -> None:
        super().__init__(url, workers, claim_idle=claim_idle)
        self.pool = AgentPool(lambda: AgentProcessPool(self.workers, niceness), self.workers, grace=0.0)

    def _close(self) -> None:
        self.pool.shutdown()

    async def _run(self, entry_id: str, entry: dict[str, str] | None) -> None:
        admitted = await self._admit(entry_id, entry, decode_entry)
        if admitted is None:
            return
        (job_id, job, _deadline, progress), left = admitted
        reply = reply_key(job_id)
        log.info(_(M.WORKER_JOB).format(entry=entry_id, game=job.name, seat=job.seat, seconds=f"{left:.1f}"))
        started = time.monotonic()
        frame: dict[str, Any] | None
        try:
            sink = (lambda data: self._report(reply, data)) if progress else None
            frame = {"move": await self.pool.run(job, left, sink)}
            log.info(_(M.WORKER_ANSWERED).format(entry=entry_id, seconds=f"{time.monotonic() - started:.2f}"))
        except AgentTimeout:
            frame = None  # the server stopped waiting at the same deadline
            log.info(_(M.WORKER_TIMED_OUT).format(entry=entry_id))
        except Exception as error:  # the agent failed: the server falls back and notes it
            frame = {"error": f"{type(error).__name__}: {error}"[:ERROR_MOST]}
            log.warning(_(M.WORKER_FAILED).format(entry=entry_id, error=frame["error"]))
        await self._finish(entry_id, reply, frame)


def _redis_errors() -> type[Exception]:
    from redis.exceptions import RedisError

    return RedisError
