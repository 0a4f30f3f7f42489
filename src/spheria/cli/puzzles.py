"""``spheria puzzles build`` (make a game's puzzle file) and ``spheria puzzle`` (solve one in the terminal).

::

    spheria puzzles build --game GAME --count 1000 --seed 1
    spheria puzzle --game GAME --json
    spheria puzzle --game GAME
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from spheria.cli import puzzle_messages as say
from spheria.cli.common import CliError, add_color_option, printable
from spheria.cli.terminal import Terminal
from spheria.i18n import INTEGER
from spheria.i18n import gettext as _
from spheria.kernel.game import MoveError, State
from spheria.kernel.record import Record, RecordError
from spheria.puzzles import (
    Puzzle,
    PuzzleMaker,
    check_answer,
    data_path,
    generate,
    hint_moves,
    maker_for,
    puzzle_games,
    puzzle_state,
    refutation,
    shipped_puzzles,
    write_puzzles,
)
from spheria.puzzles.making import Progress


def add_parsers(commands: Any) -> None:
    """Add ``puzzles`` (with ``build``) and ``puzzle`` to the command line's subcommands."""
    games = puzzle_games()
    game_help = _(say.HELP_PUZZLE_GAME).format(games=", ".join(games))
    puzzles = commands.add_parser("puzzles", help=_(say.HELP_PUZZLES), description=_(say.HELP_PUZZLES_DESCRIPTION))
    actions = puzzles.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = actions.add_parser("build", help=_(say.HELP_BUILD), description=_(say.HELP_PUZZLES_DESCRIPTION))
    build.add_argument("--game", choices=games, required=True, help=game_help)
    build.add_argument("--count", metavar="N", type=INTEGER, default=1000, help=_(say.HELP_COUNT))
    build.add_argument("--seed", metavar="S", type=INTEGER, default=1, help=_(say.HELP_BUILD_SEED))
    build.add_argument("--records", metavar="FILE", nargs="+", default=[], help=_(say.HELP_RECORDS))
    build.add_argument("--output", metavar="FILE", help=_(say.HELP_OUTPUT))
    build.set_defaults(handler=cmd_build, no_color=False)

    puzzle = commands.add_parser("puzzle", help=_(say.HELP_PUZZLE), description=_(say.HELP_PUZZLE_DESCRIPTION))
    puzzle.add_argument("--game", choices=games, required=True, help=game_help)
    puzzle.add_argument("--json", action="store_true", help=_(say.HELP_PUZZLE_JSON))
    puzzle.add_argument("--seed", metavar="N", type=INTEGER, help=_(say.HELP_PUZZLE_SEED))
    add_color_option(puzzle)
    puzzle.set_defaults(handler=cmd_puzzle)


def cmd_build(args: argparse.Namespace, term: Terminal) -> int:
    if args.count < 1:
        raise CliError(_(say.BAD_COUNT).format(count=args.count))
    path = Path(args.output) if args.output else data_path(args.game)
    start = time.perf_counter()

    def report(progress: Progress) -> None:
        term.transient(
            _(say.BUILD_PROGRESS).format(
                games=progress.games,
                positions=progress.positions,
                puzzles=progress.puzzles,
                count=args.count,
                seconds=progress.seconds,
            )
        )

    records = [(Path(name).name, _record(name, args.game)) for name in args.records]
    puzzles = generate(args.game, args.count, args.seed, progress=report, records=records)
    term.end_transient()
    write_puzzles(path, puzzles)
    seconds = time.perf_counter() - start
    term.say(_(say.BUILD_DONE).format(count=len(puzzles), game=args.game, path=printable(path), seconds=seconds))
    return 0


def _record(name: str, game: str) -> Record:
    """The record in the file ``name``, a game of ``game`` that replays; :class:`CliError` if not."""
    try:
        record = Record.load(name)
        if record.game != game:
            raise CliError(_(say.RECORD_OTHER_GAME).format(path=printable(name), game=record.game, wanted=game))
        record.replay()
    except RecordError as error:
        raise CliError(_(say.RECORD_BAD).format(path=printable(name), error=error)) from None
    return record


def pick(game: str, seed: int | None) -> Puzzle:
    """A shipped puzzle of ``game``: the one ``seed`` picks, or any."""
    try:
        puzzles = shipped_puzzles(game)
    except ValueError as error:
        raise CliError(str(error)) from None
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    return puzzles[rng.randrange(len(puzzles))]


def cmd_puzzle(args: argparse.Namespace, term: Terminal) -> int:
    puzzle = pick(args.game, args.seed)
    if args.json:
        shown = {key: value for key, value in puzzle.to_json().items() if key in ("game", "options", "spn", "solution")}
        term.say(json.dumps(shown, ensure_ascii=False))
        return 0
    return PuzzleSession(term, puzzle).run()


class PuzzleSession:
    """One puzzle at the terminal: one try at each move of the solver, the defence played, a hint."""

    def __init__(self, term: Terminal, puzzle: Puzzle) -> None:
        self.term = term
        self.puzzle = puzzle
        self.state: State[Any] = puzzle_state(puzzle)
        self.maker: PuzzleMaker = maker_for(self.state.game)
        self.names = [_(name) for name in self.state.game.player_names()]
        self.solver = self.state.current_player()

    def run(self) -> int:
        term, puzzle = self.term, self.puzzle
        term.say(
            term.bold(_(say.TITLE).format(id=puzzle.id, game=_(self.state.game.title), difficulty=puzzle.difficulty))
        )
        start = self.state.clone()
        for ply in range(0, len(puzzle.solution), 2):
            self.draw()
            ask = say.FIND if ply == 0 else say.ASK_MORE
            term.say(_(ask).format(player=self.names[self.solver]))
            term.say(term.dim(_(say.COMMANDS)))
            typed = self.ask(ply)
            if typed is None:
                term.say(_(say.QUIT).format(moves=", ".join(puzzle.solution)))
                return 1
            if not check_answer(puzzle, self.state, typed, ply):
                self.wrong(typed, start)
                return 1
            term.good(_(say.RIGHT).format(move=puzzle.solution[ply]))
            self.state.apply_notation(puzzle.solution[ply])
            if ply + 1 < len(puzzle.solution):
                defender = self.state.current_player()
                term.say(_(say.DEFENCE).format(player=self.names[defender], move=puzzle.solution[ply + 1]))
                self.state.apply_notation(puzzle.solution[ply + 1])
        self.draw()
        term.good(_(say.SOLVED))
        return 0

    def draw(self) -> None:
        self.term.say()
        self.term.say(self.term.board(str(self.state)))
        for line in self.state.status_lines(None):
            self.term.say(line)

    def ask(self, ply: int) -> str | None:
        """What the person types at ``ply`` until a legal move (``None``: quit or end of input)."""
        term = self.term
        while True:
            try:
                text = term.ask(_(say.PROMPT)).strip()
            except (EOFError, KeyboardInterrupt):
                term.say()
                return None
            word = text.lower()
            if word in ("q", "quit"):
                return None
            if word == "hint":
                if ply == 0:
                    term.say(_(say.HINT).format(moves=", ".join(hint_moves(self.maker, self.puzzle))))
                names = [_(self.maker.theme_names.get(theme, theme)) for theme in self.puzzle.themes]
                term.say(_(say.THEMES).format(themes="; ".join(names)))
                continue
            if word == "moves":
                moves = ", ".join(self.state.notation(move) for move in self.state.legal_moves())
                term.say(_(say.LEGAL_MOVES).format(moves=moves))
                continue
            if not text:
                continue
            try:
                self.state.parse_move(text)
            except MoveError as error:
                term.error(_(say.NOT_LEGAL).format(error=error))
                continue
            return text

    def wrong(self, typed: str, start: State[Any]) -> None:
        """A wrong move: the oracle plays it out, then the solution is shown step by step."""
        term = self.term
        term.error(_(say.WRONG).format(move=printable(typed)))
        after = self.state.child(self.state.parse_move(typed))
        line = refutation(self.maker, after, self.maker.budget)
        term.say(_(say.REFUTATION).format(moves=", ".join([self.state.notation(self.state.parse_move(typed)), *line])))
        for move in line:
            after.apply_notation(move)
        term.say(term.board(str(after)))
        for status in after.status_lines(None):
            term.say(status)
        term.say()
        term.say(term.bold(_(say.SOLUTION)))
        position = start.clone()
        for number, move in enumerate(self.puzzle.solution, 1):
            player = position.current_player()
            position.apply_notation(move)
            term.say(_(say.STEP).format(number=number, player=self.names[player], move=move))
            term.say(term.board(str(position)))
