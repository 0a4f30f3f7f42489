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
    limits = parser.add_argument_group("limits (see docs/server.md, 'Running in public')")
    limits.add_argument(
        "--agent-max-time", type=float, default=10.0, help="most seconds an agent may think per move (default 10)"
    )
    limits.add_argument(
        "--agent-grace", type=float, default=5.0, help="seconds past its budget before an agent is stopped (default 5)"
    )
    limits.add_argument(
        "--agent-niceness", type=int, default=10, help="agent processes' lower CPU priority, 0-19 (default 10)"
    )
    limits.add_argument("--agent-thinking", type=int, default=0, help="agents thinking at once (default: pool size)")
    limits.add_argument("--client-queue", type=int, default=256, help="frames a slow client may lag (default 256)")
    limits.add_argument("--spectators-per-game", type=int, default=500, help="spectators per game (default 500)")
    limits.add_argument(
        "--spectator-rate",
        type=float,
        default=2000.0,
        help="frames a second to all spectators together (default 2000; 0: no limit)",
    )
    limits.add_argument(
        "--connections-per-address", type=int, default=200, help="websockets per client address (default 200)"
    )
    limits.add_argument(
        "--create-per-minute", type=float, default=30.0, help="games one address may create a minute (30)"
    )
    limits.add_argument("--create-burst", type=int, default=20, help="new games per address in a burst (default 20)")
    limits.add_argument(
        "--idle-game-hours",
        type=float,
        default=168.0,
        help="abort games idle this long (default 168; 0: never)",
    )
    limits.add_argument("--max-connections", type=int, default=4096, help="open connections at most (default 4096)")
    limits.add_argument("--header-timeout", type=float, default=10.0, help="seconds to send request headers (10)")
    public = parser.add_argument_group("running in public")
    public.add_argument("--public-url", default=None, help="the URL people open, e.g. https://spheria.example.org")
    public.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="another host name to serve (repeatable)",
    )
    public.add_argument("--certfile", default=None, help="TLS certificate (PEM); serve https with --keyfile")
    public.add_argument("--keyfile", default=None, help="TLS private key (PEM)")


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


def limits_of(args: argparse.Namespace) -> Any:
    """The :class:`~spheria.server.limits.Limits` the options ask for (refusing values out of range)."""
    from spheria.server.guards import host_name, origin_of
    from spheria.server.limits import LOOPBACK_HOSTS, Limits

    if not 0 < args.agent_max_time <= 3600:
        raise SystemExit("spheria serve: --agent-max-time must be above 0 and at most 3600 seconds")
    hosts = list(LOOPBACK_HOSTS) + [host_name(h) for h in args.allowed_host]
    origins: list[str] = []
    if args.public_url:
        origin = origin_of(args.public_url)
        if not origin.startswith(("http://", "https://")) or origin.endswith("://"):
            raise SystemExit("spheria serve: --public-url must look like https://host[:port]")
        origins.append(origin)
        hosts.append(host_name(origin.split("://", 1)[1]))
    return Limits(
        agent_max_time=args.agent_max_time,
        agent_grace=max(0.0, args.agent_grace),
        agent_thinking=max(0, args.agent_thinking),
        agent_niceness=min(19, max(0, args.agent_niceness)),
        frame_rate=args.frame_rate,
        client_queue=max(8, args.client_queue),
        spectators_per_game=max(0, args.spectators_per_game),
        spectator_rate=max(0.0, args.spectator_rate),
        connections_per_address=max(1, args.connections_per_address),
        create_per_minute=max(0.0, args.create_per_minute),
        create_burst=max(1, args.create_burst),
        idle_game_seconds=max(0.0, args.idle_game_hours * 3600),
        allowed_hosts=tuple(dict.fromkeys(hosts)),
        allowed_origins=tuple(origins),
    )


def run(args: argparse.Namespace) -> int:
    from spheria.server import serve

    if bool(args.certfile) != bool(args.keyfile):
        raise SystemExit("spheria serve: give both --certfile and --keyfile for TLS")
    serve(
        args.host,
        args.port,
        args.db,
        agent_pool=args.agent_pool,
        agent_workers=args.agent_workers,
        agent_delay=args.agent_delay,
        limits=limits_of(args),
        max_connections=args.max_connections,
        header_timeout=args.header_timeout,
        certfile=args.certfile,
        keyfile=args.keyfile,
    )
    return 0
