"""``spheria solve`` and ``spheria analyse``: the exact solver on a position or a whole game."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from spheria.cli import spagyric
from spheria.cli.common import CliError, add_color_option, add_game_options, make_game, printable
from spheria.cli.terminal import Terminal
from spheria.games.special_cake import EAT, CakeState
from spheria.records.record import Record, RecordError
from spheria.solver import SolveProgress

# What the progress line and --verbose say (one place, for translation).
PROGRESS_TEXT = "{positions:,} positions searched, {seconds:.1f} s; analysing {move} ({index}/{moves})"
ANALYSE_PROGRESS_TEXT = "record move {number}/{total}: "
BACKEND_TEXT = "solver backend: {backend} ({about})"
BACKEND_ABOUT = {
    "compiled": "the compiled C search",
    "python": "the pure-Python search, much slower; a C compiler at install builds the fast one",
}


class ProgressLine:
    """A live one-line report of a solve on a terminal (stderr), redrawn at most ten times a second.

    Writes nothing when the stream is not a terminal, so piped output stays clean.
    """

    def __init__(self, stream: TextIO | None = None, interval: float = 0.1) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.active = _isatty(self.stream)
        self.interval = interval
        self.prefix = ""
        self._last = -interval
        self._shown = False

    def update(self, progress: SolveProgress) -> None:
        now = time.monotonic()
        if not self.active or now - self._last < self.interval:
            return
        self._last = now
        text = PROGRESS_TEXT.format(
            positions=progress.positions,
            seconds=progress.seconds,
            move=progress.move,
            index=progress.index + 1,
            moves=progress.moves,
        )
        self.stream.write("\r\x1b[K" + self.prefix + text)
        self.stream.flush()
        self._shown = True

    def clear(self) -> None:
        """Erase the line (before the results are printed)."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


def add_parsers(commands: Any) -> None:
    solve = commands.add_parser(
        "solve",
        help="solve a Special Cake eating position exactly",
        description="Solve a Special Cake position in the eating phase: who wins with perfect play, and how.",
        epilog='example: spheria solve "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat" --variant mint',
    )
    solve.add_argument("spn", metavar="SPN", help="the position, e.g. 'w.b............./........./..../. 1 eat'")
    add_game_options(solve)
    solve.add_argument("--time-limit", metavar="S", type=float, help="give up after S seconds")
    solve.add_argument("--first", action="store_true", help="stop at the first winning move (faster)")
    solve.add_argument("--json", action="store_true", help="print the result as JSON")
    solve.add_argument("--verbose", action="store_true", help="also say which solver backend runs")
    add_color_option(solve)
    solve.set_defaults(handler=cmd_solve)

    analyse = commands.add_parser(
        "analyse",
        aliases=["analyze"],
        help="find where a Special Cake game was won and lost",
        description="For each eating position of a recorded Special Cake game: the solver's verdict, "
        "and the moves that threw a win away.",
    )
    analyse.add_argument("file", metavar="RECORD", help="a .spheria.json record of a Special Cake game")
    analyse.add_argument("--time-limit", metavar="S", type=float, help="give up on a position after S seconds")
    analyse.add_argument("--json", action="store_true", help="print the analysis as JSON")
    add_color_option(analyse)
    analyse.set_defaults(handler=cmd_analyse)

    spagyric.add_parser(commands)


def _verdict(value: int) -> str:
    return "won" if value > 0 else "lost"


def cmd_solve(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.solver import backend, solve

    game = make_game("special-cake", args.variant, args.option or [])
    try:
        state = game.state_from_spn(args.spn)
    except ValueError as error:
        raise CliError(f"SPN: {error}") from None
    if not isinstance(state, CakeState):
        raise CliError("the solver solves Special Cake positions")
    line = ProgressLine()
    try:
        result = solve(state, time_limit=args.time_limit, stop_at_first=args.first, progress=line.update)
    except TimeoutError:
        raise CliError(f"no result within {args.time_limit} s") from None
    except ValueError as error:
        raise CliError(str(error)) from None
    finally:
        line.clear()
    mover = game.player_names()[state.player]
    moves = [str(m) for m in result.best_moves]
    if args.json:
        data = {
            "spn": state.to_spn(),
            "options": game.options,
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
        term.say(term.dim(BACKEND_TEXT.format(backend=backend(), about=BACKEND_ABOUT[backend()])))
    term.say(str(state))
    if state.is_terminal():
        term.say(f"The game is over: {state.status_lines()[0]}")
        return 0
    term.say(f"{mover} to eat: {_verdict(result.value)} with perfect play.")
    label = "Winning moves" if result.value > 0 else "Every move loses"
    if result.value > 0 and args.first:
        label = "A winning move"
    term.say(f"{label} ({len(moves)}): {' '.join(moves)}")
    term.say(term.dim(f"{result.positions} positions searched in {result.seconds:.3f} s"))
    return 0


def _judge(
    solve: Any, number: int, entry: str, before: CakeState, after: Any, limit: float | None, line: ProgressLine
) -> dict[str, Any]:
    """The solver's verdict on the position before a move, and whether the move threw a win away."""
    row: dict[str, Any] = {"move": number, "player": before.player + 1, "played": entry}
    try:
        result = solve(before, time_limit=limit, stop_at_first=True, progress=line.update)
        child = solve(after, time_limit=limit, progress=line.update)
    except TimeoutError:
        return {**row, "verdict": None, "threw_away_win": False, "a_winning_move": None}
    return {
        **row,
        "verdict": _verdict(result.value),
        "threw_away_win": result.value > 0 and child.value > 0,
        "a_winning_move": str(result.best_moves[0]) if result.value > 0 else None,
    }


def cmd_analyse(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.solver import solve

    line = ProgressLine()
    try:
        record = Record.load(Path(args.file))
        if record.game != "special-cake":
            raise CliError(f"the solver analyses Special Cake games; this record is {record.game}")
        state = record.initial_state()
        rows: list[dict[str, Any]] = []
        for number, entry in enumerate(record.moves, 1):
            before = state.clone()
            try:
                state.apply_notation(entry)
            except ValueError as error:
                raise RecordError(f"move {number} ({entry!r}): {error}", number) from None
            if isinstance(before, CakeState) and before.phase == EAT:
                line.prefix = ANALYSE_PROGRESS_TEXT.format(number=number, total=len(record.moves))
                rows.append(_judge(solve, number, entry, before, state, args.time_limit, line))
    except RecordError as error:
        raise CliError(f"{args.file}: {error}") from None
    finally:
        line.clear()
    if args.json:
        print(json.dumps({"record": args.file, "positions": rows}, indent=2))
        return 0
    names = record.load_game().player_names()
    for row in rows:
        if row["verdict"] is None:
            term.say(f"{row['move']:4d}. {printable(row['played']):<22} (no verdict within the time limit)")
            continue
        who = names[row["player"] - 1]
        note = f"{who} had {row['verdict']}"
        if row["threw_away_win"]:
            note += f"; threw the win away (winning was {row['a_winning_move']})"
        term.say(f"{row['move']:4d}. {printable(row['played']):<22} {note}")
    mistakes = sum(1 for row in rows if row.get("threw_away_win"))
    term.say(f"{len(rows)} eating moves analysed; {mistakes} threw a win away.")
    return 0
