"""``spheria analyse``: any game's position or recorded game, by :mod:`spheria.analysis`.

Its live progress line (:class:`ProgressLine`) and its table of a position's moves
(:func:`show_position`) serve the games' own commands too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from spheria.cli import analysis_messages as say
from spheria.cli import messages as msg
from spheria.cli.common import PROG, CliError, add_color_option, add_game_options, make_game, printable
from spheria.cli.terminal import Terminal
from spheria.i18n import INTEGER, SECONDS
from spheria.i18n import gettext as _
from spheria.i18n.width import pad
from spheria.kernel.game import State
from spheria.kernel.record import Record, RecordError
from spheria.kernel.registry import default_game_name, load_game

if TYPE_CHECKING:
    from spheria.analysis import Analysis, MoveAnalysis, Progress


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

    def show(self, text: str) -> None:
        """Redraw the line as ``prefix`` and ``text``, unless off a terminal or drawn too recently."""
        now = time.monotonic()
        if not self.active or now - self._last < self.interval:
            return
        self._last = now
        self.stream.write("\r\x1b[K" + self.prefix + text)
        self.stream.flush()
        self._shown = True

    def analysis_update(self, progress: Progress) -> None:
        """The line for :func:`spheria.analysis.analyse`'s reports."""
        count = progress.positions if progress.iterations is None else progress.iterations
        self.show(_(say.PROGRESS).format(method=progress.method, count=count or 0, seconds=progress.seconds))

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


def _example() -> str:
    """``spheria analyse`` of the featured game's first position, as the help shows it."""
    game = load_game(default_game_name())
    return f"spheria analyse --game {game.name} --position '{game.new_initial_state(seed=1).to_spn()}' --json"


def add_parser(commands: Any) -> None:
    """Add ``spheria analyse`` (and its spelling ``analyze``) to the command line's sub-commands."""
    analyse = commands.add_parser(
        "analyse",
        aliases=["analyze"],
        help=_(say.HELP_ANALYSE),
        description=_(say.HELP_ANALYSE_DESCRIPTION),
        epilog=_(say.HELP_EXAMPLE).format(example=_example()),
    )
    analyse.add_argument("file", metavar="RECORD", nargs="?", help=_(say.HELP_RECORD))
    analyse.add_argument("--game", metavar="GAME", help=_(say.HELP_POSITION_GAME))
    add_game_options(analyse)
    analyse.add_argument("--position", metavar="SPN", help=_(say.HELP_POSITION))
    analyse.add_argument("--seat", metavar="N", type=INTEGER, help=_(say.HELP_SEAT))
    analyse.add_argument(
        "--time",
        "--time-limit",
        dest="time",
        metavar="S",
        type=SECONDS,
        help=_(say.HELP_TIME),
    )
    analyse.add_argument("--iterations", metavar="N", type=INTEGER, help=_(say.HELP_ITERATIONS))
    analyse.add_argument("--seed", metavar="N", type=INTEGER, default=0, help=_(say.HELP_SEED))
    analyse.add_argument("--json", action="store_true", help=_(say.HELP_JSON_ANALYSIS))
    add_color_option(analyse)
    analyse.set_defaults(handler=cmd_analyse)


def _say_error(text: str) -> int:
    """A bad argument: one line on stderr, exit status 2 (as argparse does), nothing on stdout."""
    print(_(msg.ERROR).format(prog=PROG, message=printable(text)), file=sys.stderr)
    return 2


def cmd_analyse(args: argparse.Namespace, term: Terminal) -> int:
    if args.time is not None and not 0 < args.time < float("inf"):
        return _say_error(_(say.TIME_ERROR).format(time=args.time))
    if args.iterations is not None and args.iterations < 1:
        return _say_error(_(say.ITERATIONS_ERROR).format(iterations=args.iterations))
    if args.file is not None and args.position is not None:
        return _say_error(_(say.BOTH_INPUTS))
    if args.position is not None:
        return _analyse_position(args, term)
    if args.file is None:
        return _say_error(_(say.NEED_GAME) if args.game is not None else _(say.NEED_INPUT))
    return _analyse_record(args, term)


def _analyse_position(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.analysis import analyse

    if args.game is None:
        return _say_error(_(say.NEED_GAME))
    try:
        game = make_game(args.game, args.option or [])
    except CliError as error:
        return _say_error(str(error))
    try:
        state = game.state_from_spn(args.position)
    except ValueError as error:
        return _say_error(_(say.POSITION_ERROR).format(error=error))
    seat = None
    if args.seat is not None:
        if not 1 <= args.seat <= game.num_players:
            return _say_error(_(say.SEAT_ERROR).format(last=game.num_players, seat=args.seat))
        seat = args.seat - 1
    elif not game.perfect_information and not state.is_terminal():
        return _say_error(_(say.SEAT_NEEDED).format(game=game.name, last=game.num_players))
    line = ProgressLine()
    try:
        result = analyse(
            state,
            time=args.time,
            progress=line.analysis_update,
            seat=seat,
            iterations=args.iterations,
            seed=args.seed,
        )
    except ValueError as error:
        return _say_error(_(say.ANALYSIS_ERROR).format(error=error))
    finally:
        line.clear()
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    show_position(term, state, result)
    return 0


def method_words(state: State[Any], method: str) -> str:
    """The words naming an analysis ``method``: the generic ones, or those the game's analysis gives."""
    words = say.METHOD.get(method)
    if words is None:
        own = state.game.kit().analyse
        words = None if own is None else own.methods.get(method)
    return method if words is None else _(words)


def note_words(state: State[Any], note: dict[str, Any]) -> str | None:
    """A ``note`` of the game's analysis (``{"code": ..., **params}``) in its words, ``None`` if it
    has none for the code."""
    own = state.game.kit().analyse
    words = None if own is None else own.notes.get(str(note.get("code")))
    if words is None:
        return None
    return _(words).format(**{key: value for key, value in note.items() if key != "code"})


def _cell(value: float | None, form: str) -> str:
    return "-" if value is None else format(value, form)


def show_position(term: Terminal, state: State[Any], result: Analysis) -> None:
    """The analysis ``result`` of ``state`` for people: the position, the method, the verdict or
    value, a table of the moves, the best ones and what was searched."""
    from spheria.analysis import EXACT, OVER

    names = [_(name) for name in state.game.player_names()]
    term.say(str(state))
    term.say(term.dim(_(say.STATUS[result.status]).format(method=method_words(state, result.method))))
    if result.status == OVER:
        for seat, value in enumerate(result.values or []):
            term.say(_(say.RESULT_LINE).format(name=names[seat], value=value))
        return
    name = names[result.seat] if result.seat is not None else ""
    if result.status == EXACT and result.verdict is not None:
        term.say((_(say.VERDICT_WON) if result.verdict > 0 else _(say.VERDICT_LOST)).format(name=name))
    elif result.value is not None:
        term.say(_(say.VALUE_LINE).format(name=name, value=result.value, rate=result.win_rate))
    columns = ["move", "value", "rate"]
    columns += ["visits"] if any(m.visits is not None for m in result.moves) else []
    columns += ["probability"] if any(m.probability is not None for m in result.moves) else []
    term.say(_columns(columns, {name: _(heading) for name, heading in say.MOVE_COLUMNS.items()}))
    for move in result.moves:
        cells = {
            "move": move.move,
            "value": _cell(move.value, "+.2f"),
            "rate": _cell(move.win_rate, ".0%"),
            "visits": "-" if move.visits is None else str(move.visits),
            "probability": _cell(move.probability, ".3f"),
        }
        term.say(_columns(columns, cells))
    if result.best_moves:
        term.say(_(say.BEST_MOVES).format(moves=" ".join(result.best_moves)))
    if result.principal_variation:
        term.say(_(say.PRINCIPAL_VARIATION).format(moves=" ".join(result.principal_variation)))
    searched = [_(say.SEARCHED_SECONDS).format(seconds=result.seconds)]
    if result.iterations is not None:
        searched.insert(0, _(say.SEARCHED_ITERATIONS).format(count=result.iterations))
    if result.positions is not None:
        searched.insert(0, _(say.SEARCHED_POSITIONS).format(count=result.positions))
    term.say(term.dim(", ".join(searched)))
    note = None if result.note is None else note_words(state, result.note)
    if note is not None:
        term.say(note)


def _columns(columns: list[str], cells: dict[str, str]) -> str:
    return " ".join(pad(cells[name], int(say.COLUMN_FORMAT[name][1:]), say.COLUMN_FORMAT[name][0]) for name in columns)


def _analyse_record(args: argparse.Namespace, term: Terminal) -> int:
    from spheria.analysis import analyse_game

    line = ProgressLine()

    def step(number: int, total: int) -> None:
        line.prefix = _(say.ANALYSE_PROGRESS).format(number=number, total=total)

    try:
        record = Record.load(Path(args.file))
        result = analyse_game(
            record,
            time=args.time,
            progress=step,
            iterations=args.iterations,
            seed=args.seed,
            search_progress=line.analysis_update,
        )
    except (RecordError, ValueError) as error:
        raise CliError(f"{printable(args.file)}: {error}") from None
    finally:
        line.clear()
    if args.json:
        print(json.dumps({"record": args.file, **result.to_json()}, indent=2))
        return 0
    names = [_(name) for name in record.load_game().player_names()]
    for row in result.moves:
        term.say(_(say.RECORD_ROW).format(number=row.number, move=printable(row.move), note=_row_note(row, names)))
    term.say(_(say.RECORD_SUMMARY).format(moves=len(result.moves), threw=len(result.threw_away_win)))
    mistakes = [row.number for row in result.moves if claimed_mistake(row) is not None]
    if mistakes:
        term.say(_(say.ESTIMATED_MISTAKES).format(moves=", ".join(str(n) for n in mistakes)))
    return 0


def claimed_mistake(row: MoveAnalysis) -> str | None:
    """The move an estimate shows to have been clearly better than ``row``'s, if any: the
    analysis's own judgement (:attr:`MoveAnalysis.better_moves`, a fall beyond the estimates'
    error, both values from the one search before the move), as the engine panel shows it."""
    if row.exact or not row.clear_drop or not row.better_moves:
        return None
    return row.better_moves[0]


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def _row_note(row: MoveAnalysis, names: list[str]) -> str:
    """What ``row``'s move left its mover (for a joint reveal, Player 1): the position after it,
    compared with the one before: exact verdicts as such, estimates worded as estimates, and a
    mistake claimed only from exact values or from an estimate beyond its error."""
    from spheria.analysis import ESTIMATE, UNSOLVED

    before, after = row.before, row.after
    if before.values is None or after.values is None:
        estimated = ESTIMATE in (before.status, after.status) and UNSOLVED not in (before.status, after.status)
        return _(say.ROW_NO_VALUE if estimated else say.ROW_UNKNOWN)
    seat = 0 if row.seat is None else row.seat  # a joint reveal: shown for Player 1
    name = names[seat]
    was, now = before.values[seat], after.values[seat]
    if before.verdict is not None and before.exact and after.exact:
        best = before.best_moves[0] if before.best_moves else ""
        if now < was and best:  # a worse verdict than the one before: a mistake, proved
            template = say.ROW_DRAW_LOST if was == 0 else say.ROW_WIN_LOST if now < 0 else say.ROW_WIN_DRAWN
            return _(template).format(name=name, move=printable(best))
        return _(say.ROW_EXACT[_sign(now)][_sign(now) == _sign(was)]).format(name=name)
    if before.exact and after.exact:
        return _(say.ROW_VALUE).format(name=name, before=was, after=now)
    rate_before, rate_after = row.win_rates or ((was + 1) / 2, (now + 1) / 2)
    note = _(say.ROW_ESTIMATE).format(name=name, before=rate_before, after=rate_after)
    better = claimed_mistake(row)
    if better is not None:
        note += _(say.ESTIMATED_MISTAKE).format(
            best=printable(better), best_rate=rate_before, rate=rate_after, error=row.drop_margin
        )
    return note
