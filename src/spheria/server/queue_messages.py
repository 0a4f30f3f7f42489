"""Every sentence of ``spheria agents`` (its help and its log) and of the shared presence's log,
in one table for translation.

Each entry is a ``str.format`` template (or an argparse help with ``%(default)s``); the names in
braces are filled in by the code.
"""

from __future__ import annotations

from spheria.i18n import N_

HELP_AGENTS_COMMAND = N_("run agent jobs for servers started with --redis")
HELP_AGENTS_DESCRIPTION = N_(
    "Run an agent worker: it takes the agents' moves and hints, and the analysis board's jobs, that"
    " 'spheria serve --redis URL' queues in Redis, thinks in its own processes and sends the answers back."
    " Run one or more on any machine"
    " that reaches the Redis server; SIGTERM stops it after the jobs it runs."
)
HELP_AGENTS_EXAMPLE = N_("Example: {example}")
HELP_REDIS_WORKER = N_("the Redis server the web processes queue agent jobs in (redis://host:port/db)")
HELP_WORKERS = N_("agent processes, jobs run at once (default %(default)s)")
HELP_NICENESS = N_("agent processes' lower CPU priority, 0-19 (default %(default)s)")
BAD_WORKERS = N_("--workers must be 1 or more, not {workers}")
BAD_REDIS_URL = N_("--redis must be a redis:// or rediss:// URL, not {url}")
WORKER_STARTED = N_("agent worker {consumer} started with {workers} processes")
WORKER_STOPPING = N_("stopping: finishing the {n} jobs running, taking no more")
WORKER_STOPPED = N_("agent worker stopped after {n} answers")
WORKER_REDIS_DOWN = N_("Redis cannot be reached ({error}); trying again every second")
WORKER_REDIS_BACK = N_("Redis can be reached again")
WORKER_TOOK_OVER = N_("job {entry}: taken over from a worker that stopped answering")
WORKER_GARBLED = N_("job {entry} dropped: it cannot be read ({error})")
WORKER_LATE = N_("job {entry} dropped: its deadline passed {seconds} s ago")
WORKER_JOB = N_("job {entry}: {game}, seat {seat}, {seconds} s left")
WORKER_ANSWERED = N_("job {entry} answered in {seconds} s")
WORKER_TIMED_OUT = N_("job {entry}: no move by its deadline")
WORKER_FAILED = N_("job {entry}: the agent failed: {error}")
PRESENCE_REDIS_DOWN = N_("presence: Redis cannot be reached ({error}); showing this process's people only")
PRESENCE_REDIS_BACK = N_("presence: Redis can be reached again")
# The analysis board's jobs over Redis (spheria.server.analysis_queue): the worker's log, the board's failures.
HELP_ANALYSIS = N_("also run the analysis board's jobs, in as many processes of their own (default: yes)")
ANALYSIS_WORKER_STARTED = N_("analysis worker {consumer} started with {workers} processes")
ANALYSIS_WORKER_STOPPED = N_("analysis worker stopped after {n} answers")
ANALYSIS_JOB = N_("analysis job {entry}: {game}, {seconds} s left")
ANALYSIS_ANSWERED = N_("analysis job {entry} answered in {seconds} s")
ANALYSIS_CANCELLED = N_("analysis job {entry}: cancelled by the board")
ANALYSIS_DROPPED = N_("analysis job {entry} dropped: the board had given it up")
ANALYSIS_FAILED = N_("analysis job {entry} failed: {error}")
ANALYSIS_NO_WORKER = N_("no analysis worker answered within {seconds} s")
ANALYSIS_WORKER_GONE = N_("the analysis worker stopped before it answered")
ANALYSIS_QUEUE_DOWN = N_("the analysis workers cannot be reached now; try again later")
