"""``spheria spagyric-solve`` (or ``python -m spheria.games.spagyric.cli``): small Spagyric games solved exactly.

Prints the value of the game for a supply, then how much each named agent (one with a
``policy()``) can be exploited by a best responder. The command line gets it through the kit
(``KIT.commands``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

from spheria.cli import analysis_messages as analysis_say
from spheria.cli import messages as msg
from spheria.cli.common import PROG, CliError, add_color_option
from spheria.cli.terminal import Terminal
from spheria.games.spagyric import cli_messages as say
from spheria.i18n import INTEGER
from spheria.i18n import gettext as _


def add_commands(commands: Any) -> None:
    """The kit's ``commands``: add ``spagyric-solve`` to the command line's sub-commands."""
    parser = commands.add_parser(
        "spagyric-solve",
        help=_(say.HELP_SPAGYRIC_SOLVE),
        description=_(say.HELP_SPAGYRIC_DESCRIPTION),
        epilog=_(analysis_say.HELP_EXAMPLE).format(
            example="spheria spagyric-solve --supply 2 --agent spagyric:iterations=200"
        ),
    )
    _add_arguments(parser)
    add_color_option(parser)
    parser.set_defaults(handler=cmd_spagyric_solve)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--supply", type=INTEGER, default=2, metavar="N", help=_(say.HELP_SUPPLY))
    parser.add_argument("--agent", action="append", default=[], metavar="SPEC", help=_(say.HELP_POLICY_AGENT))
    parser.add_argument("--symmetric", action="store_true", help=_(say.HELP_SYMMETRIC))


#: The largest supply solved exactly (a supply of 3 already takes minutes; the search grows fast).
MOST_SUPPLY = 3


def cmd_spagyric_solve(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.agents.registry import make_agent
    from spheria.games.spagyric.solver import SpagyricSolver, exploitability, initial_position

    if not 1 <= args.supply <= MOST_SUPPLY:
        raise CliError(_(say.SUPPLY_RANGE).format(most=MOST_SUPPLY, supply=args.supply))
    agents = []
    for spec in args.agent:
        try:
            agent = make_agent(spec)
        except ValueError as error:
            raise CliError(_(say.POLICY_AGENT_ERROR).format(spec=spec, error=error)) from None
        ask = getattr(agent, "policy", None)
        if ask is None:
            raise CliError(_(say.POLICY_AGENT_NO_POLICY).format(spec=spec))
        agents.append((spec, ask))
    start = time.perf_counter()
    solver = SpagyricSolver()
    value = solver.value(initial_position(args.supply))
    term.say(
        _(say.SPAGYRIC_VALUE).format(
            supply=args.supply,
            value=value + 0.0,
            reveals=solver.reveals,
            placements=solver.states - solver.reveals,
            mixed=solver.mixed_solves,
            seconds=time.perf_counter() - start,
        )
    )
    decided = sum(1 for v in solver.reveal_values() if v != 0)
    term.say("  " + _(say.SPAGYRIC_DECIDED).format(decided=decided))
    for spec, ask in agents:
        result = exploitability(ask, args.supply, symmetric=args.symmetric, solver=solver)
        term.say(
            _(say.SPAGYRIC_EXPLOITABILITY).format(
                spec=spec,
                first=result.first,
                second=result.second,
                exploitability=result.exploitability,
                decisions=result.decisions,
                seconds=result.seconds,
            )
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m spheria.games.spagyric.cli``: the same as ``spheria spagyric-solve``."""
    parser = argparse.ArgumentParser(
        prog="python -m spheria.games.spagyric.cli", description=_(say.HELP_SPAGYRIC_DESCRIPTION)
    )
    _add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return cmd_spagyric_solve(args, Terminal(color=False))
    except CliError as error:
        print(_(msg.ERROR).format(prog=PROG, message=error), file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
