"""``spheria serve``: the server's command-line options, shared by the ``spheria`` command and
``python -m spheria.server``. Importing this module does not import the server's dependencies."""

from __future__ import annotations

import argparse
from typing import Any

from spheria.i18n import N_
from spheria.i18n import gettext as _

#: The help of every option (the text people read; translated when the parser is built).
HELP: dict[str, str] = {
    "--host": N_("address to listen on (default 127.0.0.1)"),
    "--port": N_("port (default 8000)"),
    "--db": N_("SQLite file that keeps the games (default %(default)s)"),
    "--agent-pool": N_("where agents think (default process)"),
    "--agent-workers": N_("agent pool size (default: cores, at least 2)"),
    "--agent-delay": N_("least seconds an agent takes per move, so people can follow"),
    "--frame-rate": N_("frames per second a connection may send (0: no limit)"),
    "--agent-max-time": N_("most seconds an agent may think per move (default 10)"),
    "--agent-grace": N_("seconds past its budget before an agent is stopped (default 5)"),
    "--agent-niceness": N_("agent processes' lower CPU priority, 0-19 (default 10)"),
    "--agent-thinking": N_("agents thinking at once (default: pool size)"),
    "--client-queue": N_("frames a slow client may lag (default 256)"),
    "--spectators-per-game": N_("spectators per game (default 500)"),
    "--spectator-rate": N_("frames a second to all spectators together (default 2000; 0: no limit)"),
    "--connections-per-address": N_("websockets per client address (default 200)"),
    "--create-per-minute": N_("games one address may create a minute (30)"),
    "--create-burst": N_("new games per address in a burst (default 20)"),
    "--idle-game-hours": N_("abort games idle this long (default 168; 0: never)"),
    "--max-connections": N_("open connections at most (default 4096)"),
    "--header-timeout": N_("seconds to send request headers (10)"),
    "--public-url": N_("the URL people open, e.g. https://spheria.example.org"),
    "--allowed-host": N_("another host name to serve (repeatable)"),
    "--certfile": N_("TLS certificate (PEM); serve https with --keyfile"),
    "--keyfile": N_("TLS private key (PEM)"),
}
GROUP_LIMITS = N_("limits (see docs/server.md, 'Running in public')")
GROUP_PUBLIC = N_("running in public")
SERVE = N_("play in the browser: a multiplayer server with agent seats")
SERVE_DESCRIPTION = N_("Serve the games to browsers: a lobby, invite links, agent seats; games kept in SQLite.")
SERVE_EXAMPLE = N_("example: spheria serve --port 8000, then open http://127.0.0.1:8000/")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help=_(HELP["--host"]))
    parser.add_argument("--port", type=int, default=8000, help=_(HELP["--port"]))
    parser.add_argument("--db", default="spheria.sqlite3", metavar="PATH", help=_(HELP["--db"]))
    parser.add_argument("--agent-pool", choices=("process", "thread"), default="process", help=_(HELP["--agent-pool"]))
    parser.add_argument("--agent-workers", type=int, default=None, help=_(HELP["--agent-workers"]))
    parser.add_argument("--agent-delay", type=float, default=0.3, help=_(HELP["--agent-delay"]))
    parser.add_argument("--frame-rate", type=float, default=50.0, help=_(HELP["--frame-rate"]))
    limits = parser.add_argument_group(_(GROUP_LIMITS))
    limits.add_argument("--agent-max-time", type=float, default=10.0, help=_(HELP["--agent-max-time"]))
    limits.add_argument("--agent-grace", type=float, default=5.0, help=_(HELP["--agent-grace"]))
    limits.add_argument("--agent-niceness", type=int, default=10, help=_(HELP["--agent-niceness"]))
    limits.add_argument("--agent-thinking", type=int, default=0, help=_(HELP["--agent-thinking"]))
    limits.add_argument("--client-queue", type=int, default=256, help=_(HELP["--client-queue"]))
    limits.add_argument("--spectators-per-game", type=int, default=500, help=_(HELP["--spectators-per-game"]))
    limits.add_argument(
        "--spectator-rate",
        type=float,
        default=2000.0,
        help=_(HELP["--spectator-rate"]),
    )
    limits.add_argument("--connections-per-address", type=int, default=200, help=_(HELP["--connections-per-address"]))
    limits.add_argument("--create-per-minute", type=float, default=30.0, help=_(HELP["--create-per-minute"]))
    limits.add_argument("--create-burst", type=int, default=20, help=_(HELP["--create-burst"]))
    limits.add_argument(
        "--idle-game-hours",
        type=float,
        default=168.0,
        help=_(HELP["--idle-game-hours"]),
    )
    limits.add_argument("--max-connections", type=int, default=4096, help=_(HELP["--max-connections"]))
    limits.add_argument("--header-timeout", type=float, default=10.0, help=_(HELP["--header-timeout"]))
    public = parser.add_argument_group(_(GROUP_PUBLIC))
    public.add_argument("--public-url", default=None, help=_(HELP["--public-url"]))
    public.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help=_(HELP["--allowed-host"]),
    )
    public.add_argument("--certfile", default=None, help=_(HELP["--certfile"]))
    public.add_argument("--keyfile", default=None, help=_(HELP["--keyfile"]))


def add_parser(commands: Any) -> None:
    """Add ``serve`` to the ``spheria`` command's subcommands."""
    serve = commands.add_parser(
        "serve",
        help=_(SERVE),
        description=_(SERVE_DESCRIPTION),
        epilog=_(SERVE_EXAMPLE),
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
