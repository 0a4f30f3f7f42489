"""Special Cake's own commands (``KIT.commands``): ``spheria solve``, the exact solver on a
position, and ``spheria tablebase`` (:mod:`spheria.games.special_cake.tablebase.cli`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from spheria.cli import analysis_messages as analysis_say
from spheria.cli.analyse import ProgressLine, show_position
from spheria.cli.common import CliError, add_color_option, add_game_options, make_game
from spheria.cli.terminal import Terminal
from spheria.games.special_cake import cli_messages as say
from spheria.games.special_cake.eating_table import missing_table_note
from spheria.games.special_cake.rules import PLACE, CakeState, SpecialCake
from spheria.games.special_cake.tablebase import cli as tablebase
from spheria.i18n import SECONDS
from spheria.i18n import gettext as _

if TYPE_CHECKING:  # the solver loads when a command solves
    from spheria.games.special_cake.solver import SolveProgress


def add_commands(commands: Any) -> None:
    """The kit's ``commands``: add ``solve`` and ``tablebase`` to the command line's sub-commands."""
    add_parser(commands)
    tablebase.add_parser(commands)


def add_parser(commands: Any) -> None:
    solve = commands.add_parser(
        "solve",
        help=_(say.HELP_SOLVE),
        description=_(say.HELP_SOLVE_DESCRIPTION),
        epilog=_(analysis_say.HELP_EXAMPLE).format(
            example='spheria solve "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat" --option variant=mint'
        ),
    )
    solve.add_argument(
        "spn", metavar="SPN", help=_(say.HELP_SPN).format(example="'w.b............./........./..../. 1 eat'")
    )
    add_game_options(solve)
    solve.add_argument("--time-limit", metavar="S", type=SECONDS, help=_(say.HELP_TIME_LIMIT))
    solve.add_argument("--first", action="store_true", help=_(say.HELP_FIRST))
    solve.add_argument("--all", action="store_true", help=_(say.HELP_ALL))
    solve.add_argument("--json", action="store_true", help=_(say.HELP_JSON_RESULT))
    solve.add_argument("--verbose", action="store_true", help=_(say.HELP_VERBOSE))
    add_color_option(solve)
    solve.set_defaults(handler=cmd_solve)


def solve_update(line: ProgressLine, progress: SolveProgress) -> None:
    """Show a solve's report on the progress ``line``."""
    line.show(
        _(say.SOLVE_PROGRESS).format(
            positions=progress.positions,
            seconds=progress.seconds,
            move=progress.move,
            index=progress.index + 1,
            moves=progress.moves,
        )
    )


def cmd_solve(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.games.special_cake.solver import backend, solve

    game = make_game(SpecialCake.name, args.option or [])
    try:
        state = game.state_from_spn(args.spn)
    except ValueError as error:
        raise CliError(_(say.SPN_ERROR).format(error=error)) from None
    if not isinstance(state, CakeState):
        raise CliError(_(say.ONLY_CAKE))
    if state.phase != PLACE and not state.is_terminal():
        note = missing_table_note(state.game.variant, state.game.line_rule, state.masks(), args.time_limit)
        if note is not None:  # on stderr, as the progress: stdout keeps the answer (and --json's JSON)
            print(note, file=sys.stderr)
    if args.all:
        return _solve_all(args, term, state)
    line = ProgressLine()
    try:
        result = solve(
            state,
            time_limit=args.time_limit,
            stop_at_first=args.first,
            progress=lambda progress: solve_update(line, progress),
        )
    except TimeoutError:
        raise CliError(_(say.NO_RESULT).format(time=args.time_limit)) from None
    except ValueError as error:
        raise CliError(str(error)) from None
    finally:
        line.clear()
    mover = _(game.player_names()[state.player])
    moves = [str(m) for m in result.best_moves]
    if args.json:
        data = {
            "spn": state.to_spn(),
            "options": dict(game.options),
            "value": result.value,
            "player_to_move": state.player + 1,
            "best_moves": moves,
            "positions": result.positions,
            "seconds": round(result.seconds, 4),
            "backend": backend(),
        }
        print(json.dumps(data, indent=2))
        return 0
    if args.verbose:
        term.say(term.dim(_(say.BACKEND).format(backend=backend(), about=_(say.BACKEND_ABOUT[backend()]))))
    term.say(str(state))
    if state.is_terminal():
        term.say(_(say.GAME_IS_OVER).format(status=state.status_lines()[0]))
        return 0
    won = result.value > 0
    if state.phase == PLACE:
        verdict = say.SOLVE_WON_PLACE if won else say.SOLVE_LOST_PLACE
    else:
        verdict = say.SOLVE_WON_EAT if won else say.SOLVE_LOST_EAT
    term.say(_(verdict).format(name=mover))
    label = (say.A_WINNING_MOVE if args.first else say.WINNING_MOVES) if won else say.EVERY_MOVE_LOSES
    term.say(_(label).format(n=len(moves), moves=" ".join(moves)))
    looked_up = say.LOOKED_UP if state.phase == PLACE else say.EATING_LOOKED_UP
    searched = looked_up if result.looked_up else say.SEARCHED
    term.say(term.dim(_(searched).format(positions=result.positions, seconds=result.seconds)))
    return 0


def _solve_all(args: argparse.Namespace, term: Terminal, state: CakeState) -> int:
    """``spheria solve --all``: the value of every legal move, by :func:`spheria.analysis.analyse`."""
    from spheria.analysis import UNSOLVED, analyse

    line = ProgressLine()
    try:
        result = analyse(state, time=args.time_limit, progress=line.analysis_update)
    except ValueError as error:
        raise CliError(str(error)) from None
    finally:
        line.clear()
    if result.status == UNSOLVED:
        raise CliError(_(say.NO_RESULT).format(time=args.time_limit))
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    show_position(term, state, result)
    return 0
