"""``spheria serve``: the server's command-line options, shared by the ``spheria`` command and
``python -m spheria.server``. Importing this module does not import the server's dependencies."""

from __future__ import annotations

import argparse
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--db", default="spheria.sqlite3", metavar="PATH", help="SQLite file that keeps the games (default %(default)s)"
    )
    parser.add_argument(
        "--agent-pool", choices=("process", "thread"), default="process", help="where agents think (default process)"
    )
    parser.add_argument("--agent-workers", type=int, default=None, help="agent pool size (default: cores, at least 2)")
    parser.add_argument(
        "--agent-delay", type=float, default=0.3, help="least seconds an agent takes per move, so people can follow"
    )
    parser.add_argument(
        "--frame-rate", type=float, default=50.0, help="frames per second a connection may send (0: no limit)"
    )


def add_parser(commands: Any) -> None:
    """Add ``serve`` to the ``spheria`` command's subcommands."""
    serve = commands.add_parser(
        "serve",
        help="play in the browser: a multiplayer server with agent seats",
        description="Serve the games to browsers: a lobby, invite links, agent seats; games kept in SQLite.",
        epilog="example: spheria serve --port 8000, then open http://127.0.0.1:8000/",
    )
    add_arguments(serve)
    serve.set_defaults(handler=lambda args, term: run(args), no_color=False)


def run(args: argparse.Namespace) -> int:
    from spheria.server import serve

    serve(
        args.host,
        args.port,
        args.db,
        agent_pool=args.agent_pool,
        agent_workers=args.agent_workers,
        agent_delay=args.agent_delay,
        frame_rate=args.frame_rate,
    )
    return 0
