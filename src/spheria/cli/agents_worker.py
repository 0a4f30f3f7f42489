"""``spheria agents --redis URL``: an agent worker for servers started with ``--redis``
(:class:`spheria.server.agent_queue.AgentWorker`). Importing this module does not import Redis."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from spheria.cli.common import CliError
from spheria.cli.terminal import Terminal
from spheria.i18n import INTEGER
from spheria.i18n import gettext as _
from spheria.server import queue_messages as msg
from spheria.server.limits import Limits


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
    if not str(args.redis).startswith(("redis://", "rediss://")):
        raise CliError(_(msg.BAD_REDIS_URL).format(url=str(args.redis)[:100]))
    from spheria.server.agent_queue import run_worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    run_worker(args.redis, args.workers, min(19, max(0, args.niceness)), analysis=args.analysis)
    return 0
