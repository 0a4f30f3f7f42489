"""The ``spheria`` command: play in the terminal, replay records, list the games.

Every subcommand works for every game through the game API alone::

    spheria games
    spheria play special-cake --variant mint --players human,random
    spheria replay special-cake-20250131-120000.spheria.json --step

Errors print one line on stderr and give a non-zero exit status; ``main`` returns it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from spheria import __version__
from spheria.agents.base import Agent
from spheria.agents.registry import agent_names, agents_for, check_spec, game_words
from spheria.cli import arena, solve
from spheria.cli.common import HUMAN, PROG, CliError, add_color_option, add_game_options, make_game, split_players
from spheria.cli.terminal import Terminal
from spheria.games.base import (
    SIMULTANEOUS,
    Game,
    IllegalMoveError,
    PlayerView,
    State,
    describe_games,
)
from spheria.match import Turn, apply_turn, choose_moves
from spheria.records.record import Record, RecordError
from spheria.server import command as serve_command


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def make_players(text: str, game: Game) -> tuple[list[str], list[Agent | None]]:
    """The seat specs and agents (``None`` for a human) named by ``--players``."""
    specs = split_players(text)
    names = game.player_names()
    if len(specs) != game.num_players:
        raise CliError(
            f"--players names {len(specs)} seat{'s' if len(specs) != 1 else ''} but {game.title} has "
            f"{game.num_players} ({', '.join(names)}); e.g. --players {','.join([HUMAN, 'random'][: game.num_players])}"
        )
    agents: list[Agent | None] = []
    for seat, spec in enumerate(specs):
        if not spec:
            raise CliError(f"--players: seat {seat + 1} ({names[seat]}) is empty")
        if spec.lower() == HUMAN:
            specs[seat] = HUMAN
            agents.append(None)
            continue
        seat_name = f"--players: seat {seat + 1} ({names[seat]})"
        if spec.partition(":")[0].strip() not in agent_names():
            players = ", ".join([HUMAN, *agents_for(game)])
            raise CliError(
                f"--players: unknown agent {spec!r} in seat {seat + 1} ({names[seat]}); "
                f"players for {game_words(game)}: {players}"
            )
        try:
            agents.append(check_spec(spec, game))
        except ValueError as error:
            raise CliError(f"{seat_name}: {error}") from None
    return specs, agents


def default_record_path(game: Game, directory: Path | None = None) -> Path:
    """``special-cake-YYYYmmdd-HHMMSS.spheria.json`` in ``directory``, never an existing file."""
    folder = directory or Path()
    stem = f"{game.name}-{datetime.now():%Y%m%d-%H%M%S}"
    path = folder / f"{stem}.spheria.json"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}.spheria.json"
        n += 1
    return path


def format_returns(returns: Sequence[float]) -> list[str]:
    return [f"{r:+g}" if r else "0" for r in returns]


# -- play ------------------------------------------------------------------------------------


class UndoRequest(Exception):
    """The person at the terminal typed ``undo``."""


class QuitRequest(Exception):
    """The person at the terminal typed ``quit``."""


class HumanAgent(Agent):
    """A seat played by the person at the terminal; the session draws and prompts."""

    name = HUMAN

    def __init__(self, session: PlaySession, seat: int) -> None:
        self.session = session
        self.seat = seat

    def choose(self, view: PlayerView, player: int) -> Any:
        return self.session.ask_move(player)


class ThinkingAgent(Agent):
    """An agent seat at the terminal: shows "… is thinking" while the agent chooses."""

    def __init__(self, agent: Agent, term: Terminal, label: str) -> None:
        self.agent = agent
        self.name = agent.name
        self.term = term
        self.label = label

    def choose(self, view: PlayerView, player: int) -> Any:
        self.term.transient(f"{self.label} is thinking...")
        try:
            return self.agent.choose(view, player)
        finally:
            self.term.end_transient()


HELP = """\
Commands:
  moves   list the legal moves
  undo    take back the last move (only when every seat is human)
  quit    stop playing (you can save the game first)
  help    this help"""


class PlaySession:
    """One game at the terminal: draws, prompts the humans, lets the agents move, saves the record."""

    def __init__(
        self,
        term: Terminal,
        state: State[Any],
        specs: list[str],
        agents: list[Agent | None],
        save_path: Path | None = None,
        save: bool = True,
    ) -> None:
        self.term = term
        self.state = state
        self.game = state.game
        self.specs = specs
        self.humans = [seat for seat, agent in enumerate(agents) if agent is None]
        self.save_path = save_path
        self.save_enabled = save
        self.names = self.game.player_names()
        self.seats: list[Agent] = [
            HumanAgent(self, seat) if agent is None else ThinkingAgent(agent, term, self.label(seat))
            for seat, agent in enumerate(agents)
        ]
        self._humans_chosen = 0  # humans who have chosen at the current simultaneous node
        self._typed: dict[int, str] = {}  # what each human typed for the turn being played

    # -- labels --------------------------------------------------------------------------

    def label(self, seat: int) -> str:
        if seat in self.humans:
            return f"{self.names[seat]} (you)" if len(self.humans) == 1 else self.names[seat]
        return f"{self.names[seat]} ({self.specs[seat]})"

    def title(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.game.options.items() if v is not None)
        seed = "" if self.state.seed is None else f", seed {self.state.seed}"
        return f"{self.game.title}" + (f" ({options})" if options else "") + seed

    # -- the game loop -------------------------------------------------------------------

    def run(self) -> int:
        term = self.term
        term.say(term.bold(self.title()))
        term.say(" vs ".join(self.label(seat) for seat in range(self.game.num_players)))
        if self.humans:
            term.say(term.dim("Type a move, or help, moves, undo, quit."))
        if not self.humans:
            self.draw(None)
        while not self.state.is_terminal():
            self._humans_chosen = 0
            self._typed.clear()
            try:
                player, moves = choose_moves(self.state, self.seats)
            except UndoRequest:
                self.undo()
                continue
            except (QuitRequest, KeyboardInterrupt) as stop:
                if isinstance(stop, KeyboardInterrupt):
                    term.say()
                return self.quit()
            except EOFError:
                term.say()
                term.say("End of input: game abandoned, not saved.")
                return 0
            try:
                turn = apply_turn(self.state, player, moves, self.seats)
            except IllegalMoveError as error:  # humans' moves are checked as typed: an agent erred
                raise CliError(str(error)) from None
            self.announce(turn)
            if not self.humans and not self.state.is_terminal():
                self.draw(None)
        return self.finish()

    def draw(self, seat: int | None) -> None:
        """The position as ``seat`` may see it (``None``: a spectator)."""
        term = self.term
        term.say()
        term.say(term.board(str(self.state)))
        for line in self.state.status_lines(seat):
            term.say(line)

    def announce(self, turn: Turn) -> None:
        term = self.term
        if turn.simultaneous:
            chosen = ", ".join(f"{self.label(p)} {m}" for p, m in enumerate(turn.moves))
            term.say(f"Move {turn.number}, revealed: {chosen}  ->  {term.bold(turn.entry)}")
        else:
            typed = self._typed.get(turn.player, "")
            same = ""
            if typed and "".join(typed.split()).lower() != turn.entry.lower():
                same = term.dim(f"  (same as {typed})")  # the game writes an equivalent move its own way
            term.say(f"Move {turn.number}: {self.label(turn.player)} plays {term.bold(turn.entry)}{same}")

    def ask_move(self, seat: int) -> Any:
        """Prompt the human in ``seat`` until a legal move; raises Undo/QuitRequest or EOFError."""
        term, state = self.term, self.state
        simultaneous = state.current_player() == SIMULTANEOUS
        other_humans = [h for h in self.humans if h != seat]
        if simultaneous and other_humans:
            if self._humans_chosen:  # the screen was cleared when the last one chose
                term.ask(f"{self.names[seat]}, your turn to choose in secret: press Enter when ready. ")
            else:
                others = ", ".join(self.names[h] for h in other_humans)
                term.say(f"{self.names[seat]} chooses in secret ({others}: look away).")
        self.draw(seat)
        prompt = f"{self.names[seat]}> "
        term.say(term.dim(f"Enter {state.move_hint(seat)}."))
        mistakes = 0
        while True:
            text = term.ask(prompt).strip()
            if not text:
                continue
            command = text.lower()
            if command in ("help", "?"):
                term.say(HELP)
                term.say(f"A move here: {state.move_hint(seat)}.")
            elif command == "moves":
                self.list_moves(seat)
            elif command == "undo":
                if len(self.humans) < self.game.num_players:
                    agents = ", ".join(self.label(p) for p in range(self.game.num_players) if p not in self.humans)
                    term.error(f"undo is only for games between humans; you are playing {agents}.")
                elif not state.history:
                    term.error("There is no move to take back yet.")
                else:
                    raise UndoRequest
            elif command in ("quit", "exit"):
                raise QuitRequest
            else:
                try:
                    move = state.parse_move(text, seat)
                except ValueError as error:
                    mistakes += 1
                    message = str(error)
                    term.error(message if message.endswith(".") else message + ".")
                    if mistakes == 2:
                        term.say(term.dim("Type 'moves' to list the legal moves, 'help' for the commands."))
                    continue
                self._typed[seat] = text
                if simultaneous and other_humans:
                    self._humans_chosen += 1
                    if self._humans_chosen < len(self.humans):
                        term.clear()
                        term.say(f"{self.names[seat]} has chosen.")
                return move

    def list_moves(self, seat: int) -> None:
        moves = [str(m) for m in self.state.legal_moves(seat)]
        text = f"{len(moves)} legal move{'s' if len(moves) != 1 else ''}: " + ", ".join(moves)
        # Break only after a comma, so a move written with a space (a Spinca turn) stays whole.
        lines, line = [], ""
        for part in text.split(", "):
            piece = part if not line else ", " + part
            if line and len(line) + len(piece) > 100:
                lines.append(line + ",")
                line = "  " + part
            else:
                line += piece
        lines.append(line)
        self.term.say("\n".join(lines))

    def undo(self) -> None:
        entry = self.state.history_notation()[-1]
        number = len(self.state.history)
        self.state.undo()
        self.term.say(f"Took back move {number} ({entry}).")

    def quit(self) -> int:
        term = self.term
        if self.state.history and self.save_enabled:
            path = self.save_path or default_record_path(self.game)
            try:
                answer = term.ask(f"Save the unfinished game to {path}? [y/N] ")
            except EOFError:
                answer = ""
                term.say()
            if answer.strip().lower() in ("y", "yes"):
                self.save(path)
        term.say("Goodbye.")
        return 0

    def finish(self) -> int:
        term, state = self.term, self.state
        self.draw(None)
        returns = state.returns()
        scores = ", ".join(f"{self.label(p)} {r}" for p, r in enumerate(format_returns(returns)))
        term.say(f"Game over after {len(state.history)} moves. Result: {scores}")
        if len(self.humans) == 1:
            you = returns[self.humans[0]]
            if you > max(r for p, r in enumerate(returns) if p != self.humans[0]):
                term.good("You win!")
            elif you < max(returns):
                term.say("You lose.")
            else:
                term.say("A draw.")
        if self.save_enabled:
            self.save(self.save_path or default_record_path(self.game))
        return 0

    def save(self, path: Path) -> None:
        Record.from_state(self.state, self.specs).save(path)
        self.term.say(f"Saved the record to {path}")
        self.term.say(self.term.dim(f"Replay it with: spheria replay {path}"))


def cmd_play(args: argparse.Namespace, term: Terminal) -> int:
    game = make_game(args.game, args.variant, args.option or [], len(split_players(args.players)))
    specs, agents = make_players(args.players, game)
    save_path: Path | None = None
    if args.save is not None:
        save_path = Path(args.save)
        if not save_path.parent.is_dir():
            raise CliError(f"--save: folder {str(save_path.parent)!r} does not exist")
        if save_path.is_dir():
            raise CliError(f"--save: {str(save_path)!r} is a folder; name a file")
    try:
        state = game.new_initial_state(args.seed)
    except ValueError as error:
        raise CliError(f"--seed: {error}") from None
    return PlaySession(term, state, specs, agents, save_path, save=not args.no_save).run()


# -- replay ----------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace, term: Terminal) -> int:
    path = args.file
    try:
        record = Record.load(path)
        state = record.initial_state()
    except RecordError as error:
        raise CliError(f"{path}: {error}") from None
    game = state.game
    names = game.player_names()
    labels = [f"{names[p]} ({spec})" for p, spec in enumerate(record.players)]
    options = ", ".join(f"{k}={v}" for k, v in game.options.items() if v is not None)
    term.say(term.bold(f"{game.title}" + (f" ({options})" if options else "")))
    seed = "" if record.seed is None else f", seed {record.seed}"
    term.say(f"{' vs '.join(labels)}; {len(record.moves)} moves, played {record.created}{seed}")
    term.say()
    term.say("Start")
    term.say(term.board(str(state)))
    for line in state.status_lines(None):
        term.say(line)
    try:
        for step in record.steps(state):
            if args.step and not _wait(term):
                return 0
            term.say()
            who = "together" if step.player == SIMULTANEOUS else labels[step.player]
            term.say(f"Move {step.number}: {who} {term.bold(step.entry)}")
            term.say(term.board(str(step.state)))
            for line in step.state.status_lines(None):
                term.say(line)
    except RecordError as error:
        raise CliError(f"{path}: {error}") from None
    if record.result is None:
        term.say(f"The game was not finished ({len(record.moves)} moves).")
    else:
        scores = ", ".join(f"{labels[p]} {r}" for p, r in enumerate(format_returns(record.result)))
        term.say(f"Result: {scores}")
    return 0


def _wait(term: Terminal) -> bool:
    """Wait for Enter; False when the user stops (q, or end of input)."""
    try:
        answer = term.ask(term.dim("[Enter: next move, q: stop] "))
    except EOFError:
        term.say()
        return False
    return answer.strip().lower() not in ("q", "quit")


# -- games -----------------------------------------------------------------------------------


def _option_value(value: Any) -> str:
    """An option value as typed on the command line: ``true``/``false`` for flags."""
    return value if isinstance(value, str) else json.dumps(value)


def describe_option(option: Mapping[str, Any]) -> str:
    """``name=values; default D`` for ``--option``, from an option's JSON description."""
    if option["choices"]:
        values = "|".join(_option_value(choice) for choice in option["choices"])
    elif option["type"] == "bool":
        values = "true|false"
    elif option["type"] in ("int", "float"):
        low, high = option["minimum"], option["maximum"]
        values = "N" if option["type"] == "int" else "X"
        if low is not None and high is not None:
            values += f" ({_option_value(low)} to {_option_value(high)})"
        elif low is not None:
            values += f" (at least {_option_value(low)})"
        elif high is not None:
            values += f" (at most {_option_value(high)})"
    else:
        values = "TEXT"
    default = "" if option["default"] is None else f"; default {_option_value(option['default'])}"
    return f"{option['name']}={values}{default}"


def describe_game(game: Mapping[str, Any]) -> str:
    """One line about a game from its JSON description (:meth:`Game.describe`)."""
    low, high = game["min_players"], game["max_players"]
    seats = ", ".join(seat["name"] for seat in game["seats"])
    if low == high:
        players = f"{low} players ({seats})"
    else:
        players = f"{low} to {high} players (by default {game['num_players']}: {seats})"
    turns = "simultaneous choices" if game["simultaneous"] else "sequential"
    information = "perfect information" if game["perfect_information"] else "hidden information"
    return f"{game['title']}, {players}; {turns}, {information}"


def cmd_games(args: argparse.Namespace, term: Terminal) -> int:
    for game in describe_games():
        name = game["name"]
        term.say(f"{term.bold(name)}  {describe_game(game)}")
        for option in game["options"]:
            term.say(f"    --option {describe_option(option)}")
            term.say(textwrap.fill(option["help"], width=96, initial_indent="        ", subsequent_indent="        "))
        example = f"spheria play {name}"
        variant = next((o for o in game["options"] if o["name"] == "variant" and o["choices"]), None)
        if variant is not None:
            example += f" --variant {variant['choices'][-1]}"
            term.say(term.dim("    (--variant V is short for --option variant=V)"))
        term.say(f"    e.g. {example} --players {','.join([HUMAN, *['random'] * (game['num_players'] - 1)])}")
        term.say()
    term.say(f"Players for --players: {HUMAN}, {', '.join(agent_names())} (agent options as name:key=value)")
    return 0


# -- the command -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Play and replay the games of the Shibumi system.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = commands.add_parser("play", help="play a game in the terminal", description="Play a game in the terminal.")
    play.add_argument("game", metavar="GAME", help="the game, e.g. special-cake (see 'spheria games')")
    add_game_options(play)
    play.add_argument(
        "--players",
        metavar="P1,P2",
        default=f"{HUMAN},random",
        help=f"who plays each seat, in seat order: {HUMAN} or an agent spec (default: {HUMAN},random)",
    )
    play.add_argument("--seed", metavar="N", type=int, help="fix what the rules leave to chance (e.g. a sugar cake)")
    saving = play.add_mutually_exclusive_group()
    saving.add_argument(
        "--save", metavar="FILE", help="where to save the record (default: GAME-DATE-TIME.spheria.json)"
    )
    saving.add_argument("--no-save", action="store_true", help="do not save a record")
    add_color_option(play)
    play.set_defaults(handler=cmd_play)

    replay = commands.add_parser("replay", help="show a recorded game move by move", description="Replay a record.")
    replay.add_argument("file", metavar="FILE", help="a .spheria.json record")
    replay.add_argument("--step", action="store_true", help="wait for Enter before each move")
    add_color_option(replay)
    replay.set_defaults(handler=cmd_replay)

    games = commands.add_parser("games", help="list the games and their options", description="List the games.")
    games.set_defaults(handler=cmd_games, no_color=False)

    arena.add_parser(commands)
    solve.add_parsers(commands)
    serve_command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    if args.command is None:
        parser.print_help()
        return 0
    term = Terminal(color=False if args.no_color else None)
    try:
        status: int = args.handler(args, term)
        return status
    except CliError as error:
        _fail(str(error))
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        _fail(f"{where}{error.strerror or error}")
    except KeyboardInterrupt:
        term.say()
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a bug: one line, unless the developer asks for the traceback
        if os.environ.get("SPHERIA_DEBUG"):
            raise
        _fail(f"internal error: {type(error).__name__}: {error} (set SPHERIA_DEBUG=1 for the traceback)")
        return 2
    return 1


def _fail(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
