"""``spheria agents --redis URL``: an agent worker for servers started with ``--redis``
(:class:`spheria.server.agent_queue.AgentWorker`), and beside it the analysis board's
(:class:`spheria.server.analysis_queue.AnalysisWorker`) unless ``--no-analysis``. Importing this
module does not import Redis."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from typing import Any

from spheria.cli.common import CliError
from spheria.cli.terminal import Terminal
from spheria.i18n import INTEGER
from spheria.i18n import gettext as _
from spheria.server import queue_messages as msg
from spheria.server.limits import Limits
from spheria.server.redis_client import is_redis_url


def add_parser(commands: Any) -> None:
    """Add ``agents`` to the ``spheria`` command's subcommands."""
    agents = commands.add_parser(
        "agents",
        help=_(msg.HELP_AGENTS_COMMAND),
        description=_(msg.HELP_AGENTS_DESCRIPTION),
        epilog=_(msg.HELP_AGENTS_EXAMPLE).format(example="spheria agents --redis redis://127.0.0.1:6379/0 --workers 4"),
    )
    agents.add_argument("--redis", metavar="URL", required=True, help=_(msg.HELP_REDIS_WORKER))
    agents.add_argument("--workers", metavar="N", type=INTEGER, default=2, help=_(msg.HELP_WORKERS))
    niceness = Limits.agent_niceness
    agents.add_argument("--niceness", metavar="K", type=INTEGER, default=niceness, help=_(msg.HELP_NICENESS))
    agents.add_argument("--analysis", action=argparse.BooleanOptionalAction, default=True, help=_(msg.HELP_ANALYSIS))
    agents.set_defaults(handler=cmd_agents, no_color=False)


def cmd_agents(args: argparse.Namespace, term: Terminal) -> int:
    if args.workers < 1:
        raise CliError(_(msg.BAD_WORKERS).format(workers=args.workers))
    if not is_redis_url(args.redis):
        raise CliError(_(msg.BAD_REDIS_URL).format(url=str(args.redis)[:100]))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(serve(args.redis, args.workers, min(19, max(0, args.niceness)), analysis=args.analysis))
    return 0


async def serve(url: str, workers: int, niceness: int, analysis: bool = True) -> None:
    """Run an :class:`~spheria.server.agent_queue.AgentWorker` and, with ``analysis``, an
    :class:`~spheria.server.analysis_queue.AnalysisWorker` of as many processes, until SIGTERM or SIGINT
    (each then finishes the jobs it runs)."""
    from spheria.server.agent_queue import AgentWorker, StreamWorker
    from spheria.server.analysis_queue import AnalysisWorker

    served: list[StreamWorker] = [AgentWorker(url, workers, niceness)]
    if analysis:
        served.append(AnalysisWorker(url, workers, niceness))

    def stop() -> None:
        for worker in served:
            worker.stop()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop)
    await asyncio.gather(*(worker.serve() for worker in served))
