"""``spheria arena``: many games between agents, with a progress bar, a table and ratings."""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from spheria.arena import ArenaReport, Backend, GameResult, backend_names, get_backend, run_arena
from spheria.cli import messages as msg
from spheria.cli.common import CliError, add_color_option, add_game_options, make_game, split_players
from spheria.cli.terminal import Terminal
from spheria.i18n import INTEGER
from spheria.i18n import gettext as _
from spheria.kernel.registry import default_game_name


def add_parser(commands: Any) -> None:
    arena = commands.add_parser(
        "arena",
        help=_(msg.HELP_ARENA),
        description=_(msg.HELP_ARENA_DESCRIPTION),
        epilog=_(msg.HELP_ARENA_EXAMPLE).format(
            example=f"spheria arena {default_game_name()} --agents mcts:iterations=200,random --games 100"
        ),
    )
    arena.add_argument("game", metavar="GAME", help=_(msg.HELP_GAME).format(example=default_game_name()))
    add_game_options(arena)
    arena.add_argument("--agents", metavar="A,B", required=True, help=_(msg.HELP_AGENTS))
    arena.add_argument("--games", metavar="N", type=INTEGER, default=100, help=_(msg.HELP_GAME_COUNT))
    arena.add_argument("--workers", metavar="K", type=INTEGER, default=1, help=_(msg.HELP_WORKERS))
    arena.add_argument("--seed", metavar="S", type=INTEGER, default=0, help=_(msg.HELP_ARENA_SEED))
    arena.add_argument("--json", action="store_true", help=_(msg.HELP_ARENA_JSON))
    arena.add_argument("--records", metavar="DIR", help=_(msg.HELP_RECORDS))
    arena.add_argument(
        "--backend",
        choices=backend_names(),
        default="local",
        help=_(msg.HELP_BACKEND),
    )
    arena.add_argument(
        "--address",
        metavar="ADDR",
        help=_(msg.HELP_ADDRESS),
    )
    add_color_option(arena)
    arena.set_defaults(handler=cmd_arena)


def cmd_arena(args: argparse.Namespace, term: Terminal) -> int:
    if args.games < 1:
        raise CliError(_(msg.GAMES_AT_LEAST))
    if args.workers < 1:
        raise CliError(_(msg.WORKERS_AT_LEAST))
    agents = split_players(args.agents)
    game = make_game(args.game, args.option or [])
    if "players" in game.options and not any(p.startswith("players=") for p in args.option or []):
        game = make_game(args.game, args.option or [], min(len(agents), 4))
    backend: str | Backend = args.backend
    if args.address is not None:
        if args.backend != "ray":
            raise CliError(_(msg.ADDRESS_NEEDS_RAY))
        try:
            ray_backend: Callable[..., Iterator[GameResult]] = get_backend("ray")
            backend = functools.partial(ray_backend, address=args.address)
        except ValueError as error:
            raise CliError(str(error)) from None
    progress = _Progress(args.games) if sys.stderr.isatty() else None
    try:
        report = run_arena(
            game.name,
            dict(game.options),
            agents,
            args.games,
            seed=args.seed,
            workers=args.workers,
            records_dir=Path(args.records) if args.records else None,
            backend=backend,
            on_result=progress.update if progress else None,
        )
    except ValueError as error:
        raise CliError(str(error)) from None
    if progress:
        progress.finish()
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        term.say(f"{_(game.title)} {_options_text(game.options)}: {', '.join(agents)}")
        term.say(report.table())
    return 130 if report.interrupted else 0


def _options_text(options: Mapping[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in options.items()) + ")" if options else ""


class _Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.start = time.monotonic()

    def update(self, report: ArenaReport, result: GameResult) -> None:
        done = len(report.results)
        filled = int(30 * done / self.total)
        rate = done / max(time.monotonic() - self.start, 1e-9)
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] "
            + _(msg.ARENA_PROGRESS).format(done=done, total=self.total, rate=rate)
        )
        sys.stderr.flush()

    def finish(self) -> None:
        sys.stderr.write("\n")
