"""``python -m spheria.server [--host 127.0.0.1] [--port 8000] [--db PATH]``."""

from __future__ import annotations

import argparse

from spheria.server import serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spheria serve", description="Play Spheria's games in the browser.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    run(args)
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``spheria serve`` (shared with the command line's subcommand)."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--db", default="spheria.sqlite3", help="SQLite file that keeps the games")
    parser.add_argument(
        "--agent-pool", choices=("process", "thread"), default="process", help="where agents think (default process)"
    )
    parser.add_argument("--agent-workers", type=int, default=None, help="agent pool size (default: cores, at least 2)")
    parser.add_argument(
        "--agent-delay", type=float, default=0.3, help="least seconds an agent takes per move, so people can follow"
    )


def run(args: argparse.Namespace) -> None:
    serve(
        args.host,
        args.port,
        args.db,
        agent_pool=args.agent_pool,
        agent_workers=args.agent_workers,
        agent_delay=args.agent_delay,
    )


if __name__ == "__main__":
    raise SystemExit(main())
