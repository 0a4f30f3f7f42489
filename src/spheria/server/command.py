"""``spheria serve``: the server's command-line options, shared by the ``spheria`` command and
``python -m spheria.server``. Importing this module does not import the server's dependencies."""

from __future__ import annotations

import argparse
from typing import Any

from spheria.i18n import FLOAT, INTEGER, N_
from spheria.i18n import gettext as _

#: The help of every option (the text people read; translated when the parser is built). A default
#: is written once: a limit's in :class:`~spheria.server.limits.Limits`, any other's in
#: :func:`add_arguments`, and shown by argparse as ``%(default)s``.
HELP: dict[str, str] = {
    "--host": N_("address to listen on (default %(default)s)"),
    "--port": N_("port (default %(default)s)"),
    "--db": N_("where the games are kept: a SQLite file or a postgresql:// URL (default %(default)s)"),
    "--agent-pool": N_("where agents think (default %(default)s)"),
    "--redis": N_(
        "Redis server (redis://host:port/db) joining several server processes into one service: games,"
        " the lobby and presence are shared through it and agent jobs queued in it, so this process runs no"
        " agents and 'spheria agents --redis URL' must run somewhere"
    ),
    "--agent-workers": N_("agent pool size (default: cores, at least 2)"),
    "--agent-delay": N_("least seconds an agent takes per move, so people can follow (default %(default)s)"),
    "--frame-rate": N_("frames per second a connection may send (default %(default)s; 0: no limit)"),
    "--frame-refusals": N_(
        "frames refused for the rate within 10 s before a socket is closed (default %(default)s; 0: never)"
    ),
    "--agent-max-time": N_("most seconds an agent may think per move (default %(default)s)"),
    "--agent-grace": N_("seconds past its budget before an agent is stopped (default %(default)s)"),
    "--agent-niceness": N_("agent processes' lower CPU priority, 0-19 (default %(default)s)"),
    "--agent-thinking": N_("agents thinking at once (default: pool size)"),
    "--client-queue": N_("frames a slow client may lag (default %(default)s)"),
    "--spectators-per-game": N_("spectators per game (default %(default)s)"),
    "--spectator-rate": N_("frames a second to all spectators together (default %(default)s; 0: no limit)"),
    "--connections-per-address": N_("websockets per client address (default %(default)s)"),
    "--create-per-minute": N_("games one address may create a minute (default %(default)s)"),
    "--create-burst": N_("new games per address in a burst (default %(default)s)"),
    "--idle-game-hours": N_("abort games idle this long (default %(default)s; 0: never)"),
    "--max-connections": N_("open connections at most (default %(default)s)"),
    "--header-timeout": N_("seconds to send request headers (default %(default)s)"),
    "--http-per-address": N_("requests still sending their headers, per address (default %(default)s)"),
    "--login-per-account": N_("failed log-ins per account in the login window (default %(default)s)"),
    "--login-per-address": N_("log-in attempts per address in the login window (default %(default)s)"),
    "--signup-per-address": N_("new guests and accounts per address in the login window (default %(default)s)"),
    "--player-search-per-minute": N_("player searches by name prefix per address a minute (default %(default)s)"),
    "--login-window-minutes": N_("the login window, in minutes (default %(default)s)"),
    "--challenges-per-address": N_("challenges one address may post in the challenge window (default %(default)s)"),
    "--challenges-per-player": N_("challenges one player may post in the challenge window (default %(default)s)"),
    "--challenge-window-minutes": N_("the challenge window, in minutes (default %(default)s)"),
    "--challenges-open-per-player": N_("open challenges one player may have at once (default %(default)s)"),
    "--challenge-grace": N_("seconds a poster who left the lobby has to come back (default %(default)s)"),
    "--challenge-ttl-minutes": N_("minutes an open challenge lasts (default %(default)s; 0: no limit)"),
    "--chat-rate": N_("chat messages a second one connection may send (default %(default)s)"),
    "--chat-burst": N_("chat messages one connection may send at once (default %(default)s)"),
    "--chat-per-minute": N_("chat messages one player may send a minute (default %(default)s)"),
    "--chat-flood-refusals": N_("chat refusals in a row before the socket is closed (default %(default)s)"),
    "--chat-reports-per-hour": N_("chat messages one player may report an hour (default %(default)s)"),
    "--public-url": N_("the URL people open, e.g. https://spheria.example.org"),
    "--allowed-host": N_("another host name to serve (repeatable)"),
    "--certfile": N_("TLS certificate (PEM); serve https with --keyfile"),
    "--keyfile": N_("TLS private key (PEM)"),
}
GROUP_LIMITS = N_("limits (see docs/server.md, 'Running in public')")
GROUP_PUBLIC = N_("running in public")
SERVE = N_("play in the browser: a multiplayer server with agent seats")
SERVE_DESCRIPTION = N_(
    "Serve the games to browsers: a lobby, invite links, agent seats; games kept in SQLite, or in PostgreSQL"
    " for several processes joined by Redis (docs/deploy.md)."
)
SERVE_EXAMPLE = N_("example: spheria serve --port 8000, then open http://127.0.0.1:8000/")
#: The longest ``--agent-max-time`` (an hour).
MOST_AGENT_TIME = 3600.0
#: ``spheria serve``'s refusals of an option's value.
AGENT_MAX_TIME_RANGE = N_("spheria serve: --agent-max-time must be above 0 and at most {most} seconds")
PUBLIC_URL_FORM = N_("spheria serve: --public-url must look like https://host[:port]")
TLS_PAIR = N_("spheria serve: give both --certfile and --keyfile for TLS")
DB_UNREACHABLE = N_("spheria serve: cannot open the database {db}: {reason}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from spheria.server.limits import Limits

    def option(group: Any, name: str, **how: Any) -> None:
        group.add_argument(name, help=_(HELP[name]), **how)

    option(parser, "--host", default="127.0.0.1")
    option(parser, "--port", type=INTEGER, default=8000)
    option(parser, "--db", default="spheria.sqlite3", metavar="PATH|URL")
    option(parser, "--agent-pool", choices=("process", "thread"), default="process")
    option(parser, "--redis", default=None, metavar="URL")
    option(parser, "--agent-workers", type=INTEGER, default=None)
    option(parser, "--agent-delay", type=FLOAT, default=0.3)
    option(parser, "--frame-rate", type=FLOAT, default=Limits.frame_rate)
    limits = parser.add_argument_group(_(GROUP_LIMITS))
    option(limits, "--frame-refusals", type=INTEGER, default=Limits.frame_refusals)
    option(limits, "--agent-max-time", type=FLOAT, default=Limits.agent_max_time)
    option(limits, "--agent-grace", type=FLOAT, default=Limits.agent_grace)
    option(limits, "--agent-niceness", type=INTEGER, default=Limits.agent_niceness)
    option(limits, "--agent-thinking", type=INTEGER, default=Limits.agent_thinking)
    option(limits, "--client-queue", type=INTEGER, default=Limits.client_queue)
    option(limits, "--spectators-per-game", type=INTEGER, default=Limits.spectators_per_game)
    option(limits, "--spectator-rate", type=FLOAT, default=Limits.spectator_rate)
    option(limits, "--connections-per-address", type=INTEGER, default=Limits.connections_per_address)
    option(limits, "--create-per-minute", type=FLOAT, default=Limits.create_per_minute)
    option(limits, "--create-burst", type=INTEGER, default=Limits.create_burst)
    option(limits, "--idle-game-hours", type=FLOAT, default=Limits.idle_game_seconds / 3600)
    option(limits, "--max-connections", type=INTEGER, default=4096)
    option(limits, "--header-timeout", type=FLOAT, default=10.0)
    option(limits, "--http-per-address", type=INTEGER, default=64)
    option(limits, "--login-per-account", type=INTEGER, default=Limits.login_per_account)
    option(limits, "--login-per-address", type=INTEGER, default=Limits.login_per_address)
    option(limits, "--signup-per-address", type=INTEGER, default=Limits.signup_per_address)
    option(limits, "--player-search-per-minute", type=INTEGER, default=Limits.player_search_per_minute)
    option(limits, "--login-window-minutes", type=FLOAT, default=Limits.login_window_seconds / 60)
    option(limits, "--challenges-per-address", type=INTEGER, default=Limits.challenges_per_address)
    option(limits, "--challenges-per-player", type=INTEGER, default=Limits.challenges_per_player)
    option(limits, "--challenge-window-minutes", type=FLOAT, default=Limits.challenge_window_seconds / 60)
    option(limits, "--challenges-open-per-player", type=INTEGER, default=Limits.challenges_open_per_player)
    option(limits, "--challenge-grace", type=FLOAT, default=Limits.challenge_grace_seconds)
    option(limits, "--challenge-ttl-minutes", type=FLOAT, default=Limits.challenge_ttl_seconds / 60)
    option(limits, "--chat-rate", type=FLOAT, default=Limits.chat_rate)
    option(limits, "--chat-burst", type=INTEGER, default=Limits.chat_burst)
    option(limits, "--chat-per-minute", type=INTEGER, default=Limits.chat_per_minute)
    option(limits, "--chat-flood-refusals", type=INTEGER, default=Limits.chat_flood_refusals)
    option(limits, "--chat-reports-per-hour", type=INTEGER, default=Limits.chat_reports_per_hour)
    public = parser.add_argument_group(_(GROUP_PUBLIC))
    option(public, "--public-url", default=None)
    option(public, "--allowed-host", action="append", default=[], metavar="HOST")
    option(public, "--certfile", default=None)
    option(public, "--keyfile", default=None)


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

    if not 0 < args.agent_max_time <= MOST_AGENT_TIME:
        raise SystemExit(_(AGENT_MAX_TIME_RANGE).format(most=f"{MOST_AGENT_TIME:g}"))
    hosts = list(LOOPBACK_HOSTS) + [host_name(h) for h in args.allowed_host]
    origins: list[str] = []
    if args.public_url:
        origin = origin_of(args.public_url)
        if not origin.startswith(("http://", "https://")) or origin.endswith("://"):
            raise SystemExit(_(PUBLIC_URL_FORM))
        origins.append(origin)
        hosts.append(host_name(origin.split("://", 1)[1]))
    return Limits(
        agent_max_time=args.agent_max_time,
        agent_grace=max(0.0, args.agent_grace),
        agent_thinking=max(0, args.agent_thinking),
        agent_niceness=min(19, max(0, args.agent_niceness)),
        frame_rate=args.frame_rate,
        frame_refusals=max(0, args.frame_refusals),
        client_queue=max(8, args.client_queue),
        spectators_per_game=max(0, args.spectators_per_game),
        spectator_rate=max(0.0, args.spectator_rate),
        connections_per_address=max(1, args.connections_per_address),
        create_per_minute=max(0.0, args.create_per_minute),
        create_burst=max(1, args.create_burst),
        idle_game_seconds=max(0.0, args.idle_game_hours * 3600),
        allowed_hosts=tuple(dict.fromkeys(hosts)),
        allowed_origins=tuple(origins),
        login_per_account=max(1, args.login_per_account),
        login_per_address=max(1, args.login_per_address),
        signup_per_address=max(1, args.signup_per_address),
        player_search_per_minute=max(1, args.player_search_per_minute),
        login_window_seconds=max(1.0, args.login_window_minutes * 60),
        secure_cookies=any(origin.startswith("https://") for origin in origins),
        challenges_per_address=max(1, args.challenges_per_address),
        challenges_per_player=max(1, args.challenges_per_player),
        challenge_window_seconds=max(1.0, args.challenge_window_minutes * 60),
        challenges_open_per_player=max(1, args.challenges_open_per_player),
        challenge_grace_seconds=max(0.0, args.challenge_grace),
        challenge_ttl_seconds=max(0.0, args.challenge_ttl_minutes * 60),
        chat_rate=max(0.01, args.chat_rate),
        chat_burst=max(1, args.chat_burst),
        chat_per_minute=max(1, args.chat_per_minute),
        chat_flood_refusals=max(1, args.chat_flood_refusals),
        chat_reports_per_hour=max(1, args.chat_reports_per_hour),
    )


def run(args: argparse.Namespace) -> int:
    from spheria.server import serve
    from spheria.server.database import engine_errors
    from spheria.server.queue_messages import BAD_REDIS_URL
    from spheria.server.redis_client import is_redis_url
    from spheria.server.storage import shown_target

    if bool(args.certfile) != bool(args.keyfile):
        raise SystemExit(_(TLS_PAIR))
    if args.redis is not None and not is_redis_url(args.redis):
        raise SystemExit("spheria serve: " + _(BAD_REDIS_URL).format(url=str(args.redis)[:100]))
    try:
        serve(
            args.host,
            args.port,
            args.db,
            agent_pool=args.agent_pool,
            agent_workers=args.agent_workers,
            agent_delay=args.agent_delay,
            redis=args.redis,
            limits=limits_of(args),
            max_connections=args.max_connections,
            header_timeout=args.header_timeout,
            http_per_address=max(1, args.http_per_address),
            certfile=args.certfile,
            keyfile=args.keyfile,
        )
    except engine_errors() as error:  # a database it cannot reach or open: said, not a traceback
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SystemExit(_(DB_UNREACHABLE).format(db=shown_target(args.db), reason=first[:300])) from None
    return 0
