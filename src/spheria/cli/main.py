"""The ``spheria`` command: play in the terminal, replay records, list the games.

Every subcommand works for every game through the game API alone::

    spheria games
    spheria play GAME --players human,random
    spheria replay GAME-20250131-120000.spheria.json --step

Errors print one line on stderr and give a non-zero exit status; ``main`` returns it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from spheria import __version__
from spheria.agents.levels import level_spec, level_words, levels_for
from spheria.agents.registry import agent_names, agents_for, check_spec, is_agent_name
from spheria.cli import agents_worker, analyse, arena, puzzles
from spheria.cli import messages as msg
from spheria.cli.clocks import ClockedSeat, OutOfTime, SessionClock
from spheria.cli.common import (
    HUMAN,
    PROG,
    CliError,
    add_color_option,
    add_game_options,
    make_game,
    printable,
    split_players,
)
from spheria.cli.terminal import Terminal
from spheria.help import howto_blocks, render_block
from spheria.i18n import INTEGER, LANGUAGES, argparse_speaking, current_language, language_from_env, ngettext, using
from spheria.i18n import gettext as _
from spheria.i18n.width import fill, wrap
from spheria.kernel.agent import Agent
from spheria.kernel.clock import ClockError, TimeControl, describe_left, time_loss
from spheria.kernel.game import SIMULTANEOUS, TERMINAL, Game, MoveError, PlayerView, State
from spheria.kernel.record import Record, RecordError, ReplayStep
from spheria.kernel.registry import default_game_name, describe_games, game_classes, load_game
from spheria.match import Turn, apply_turn, choose_moves
from spheria.server import command as serve_command
from spheria.server import dbcommand


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help, with its own words ("usage:") in the chosen language."""

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _(msg.USAGE) if prefix is None else prefix)

    def _split_lines(self, text: str, width: int) -> list[str]:
        """Wrap by terminal columns (a Hangul character takes two)."""
        return super()._split_lines(text, width) if text.isascii() else wrap(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.isascii():
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap(" ".join(text.split()), width - len(indent)))


#: The most characters of a usage error (argparse's own echo of a refused value included).
MOST_ECHOED = 300


class _Parser(argparse.ArgumentParser):
    """An argument parser whose headings, ``-h`` help and errors are in the chosen language."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = _(msg.POSITIONALS)
        self._optionals.title = _(msg.OPTIONALS)
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=_(msg.HELP_HELP))

    def error(self, message: str) -> NoReturn:
        if len(message) > MOST_ECHOED:  # argparse quotes a refused value whole: a line, not a flood
            message = message[: MOST_ECHOED - 1] + "…"
        self.exit(2, _(msg.USAGE_ERROR).format(prog=self.prog, message=message) + "\n")


def make_players(text: str | None, game: Game) -> tuple[list[str], list[Agent | None]]:
    """The seat specs and agents (``None`` for a human) named by ``--players``.

    Without ``--players`` the first seat is the person at the terminal and every other seat
    the random agent; every seat a person in a game no agent plays (``Game.why_no_agents``).
    """
    seats = game.num_players
    default = [HUMAN] + [HUMAN if game.why_no_agents is not None else "random"] * (seats - 1)
    specs = default if text is None else split_players(text)
    names = [_(name) for name in game.player_names()]
    if len(specs) != seats:
        raise CliError(
            _(msg.PLAYERS_COUNT).format(
                given=_seats(len(specs)),
                game=_(game.title),
                seats=seats,
                names=", ".join(names),
                example=",".join(default),
            )
        )
    agents: list[Agent | None] = []
    for seat, spec in enumerate(specs):
        if not spec:
            raise CliError(_(msg.PLAYERS_EMPTY_SEAT).format(seat=seat + 1, name=names[seat]))
        if spec.lower() == HUMAN:
            specs[seat] = HUMAN
            agents.append(None)
            continue
        if not is_agent_name(spec.split(":", 1)[0].strip().lower()):
            raise CliError(
                _(msg.PLAYERS_UNKNOWN).format(
                    seat=seat + 1, name=names[seat], spec=repr(spec), human=HUMAN, agents=", ".join(agents_for(game))
                )
            )
        try:
            agents.append(check_spec(spec, game))
        except ValueError as error:
            raise CliError(_(msg.PLAYERS_BAD_AGENT).format(seat=seat + 1, name=names[seat], error=error)) from None
    return specs, agents


def _seats(count: int) -> str:
    return ngettext(msg.SEATS, count).format(n=count)


def default_record_path(game: Game, directory: Path | None = None) -> Path:
    """``<game>-YYYYmmdd-HHMMSS.spheria.json`` in ``directory``, never an existing file."""
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

#: Exit statuses of ``spheria play``: finished (also by a resignation), abandoned (quit, end of
#: input, an agent failing), interrupted (Ctrl-C).
EXIT_FINISHED = 0
EXIT_ABANDONED = 1
EXIT_INTERRUPTED = 130


class UndoRequest(Exception):
    """The person at the terminal typed ``undo`` in a game between people: the last move goes."""


class TakebackRequest(Exception):
    """The person in seat ``seat`` asked for a takeback against agents: ``count`` moves go, their
    own last move and the agents' replies since."""

    def __init__(self, seat: int, count: int) -> None:
        super().__init__(seat, count)
        self.seat = seat
        self.count = count


class QuitRequest(Exception):
    """The person at the terminal typed ``quit``."""


class ResignRequest(Exception):
    """The person in seat ``seat`` typed ``resign`` and confirmed it."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


class HumanAgent(Agent):
    """A seat played by the person at the terminal; the session draws and prompts."""

    name = HUMAN

    def __init__(self, session: PlaySession, seat: int) -> None:
        self.session = session
        self.seat = seat

    def choose(self, view: PlayerView, player: int) -> Any:
        return self.session.ask_move(player)


class AgentFailure(Exception):
    """An agent seat raised while choosing: the game cannot go on, but it is kept."""

    def __init__(self, seat: int, error: Exception) -> None:
        super().__init__(seat, error)
        self.seat = seat
        self.error = error


class ThinkingAgent(Agent):
    """An agent seat at the terminal: shows "… is thinking" while the agent chooses."""

    def __init__(self, agent: Agent, term: Terminal, label: str, seat: int) -> None:
        self.agent = agent
        self.name = agent.name
        self.term = term
        self.label = label
        self.seat = seat

    def choose(self, view: PlayerView, player: int) -> Any:
        self.term.transient(_(msg.THINKING).format(label=self.label))
        try:
            return self.agent.choose(view, player)
        except (KeyboardInterrupt, EOFError):
            raise
        except Exception as error:  # an agent's bug or misfit must not lose the game
            raise AgentFailure(self.seat, error) from error
        finally:
            self.term.end_transient()


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
        resumed_from: Path | None = None,
        takebacks: list[int] | None = None,
        hints: list[int] | None = None,
        clock: SessionClock | None = None,
    ) -> None:
        self.term = term
        self.state = state
        self.game = state.game
        self.specs = specs
        self.humans = [seat for seat, agent in enumerate(agents) if agent is None]
        self.save_path = save_path
        self.save_enabled = save
        self.resumed_from = resumed_from
        self.names = [_(name) for name in self.game.player_names()]
        self.seats: list[Agent] = [
            HumanAgent(self, seat) if agent is None else ThinkingAgent(agent, term, self.label(seat), seat)
            for seat, agent in enumerate(agents)
        ]
        #: The clocks of a timed game (None: untimed): every seat is on the clock.
        self.clock = clock
        if clock is not None:
            self.seats = [ClockedSeat(clock, seat, self.seats[seat], agents[seat]) for seat in range(len(agents))]
        self._humans_chosen = 0  # humans who have chosen at the current simultaneous node
        self._typed: dict[int, str] = {}  # what each human typed for the turn being played
        #: Takebacks each seat asked for against agents, counting on from a resumed record's (the
        #: record keeps them); None: a game without both people and agents, which has none.
        self.takebacks: list[int] | None = None if takebacks is None else list(takebacks)
        if self.takebacks is None and self.humans and len(self.humans) < self.game.num_players:
            self.takebacks = [0] * self.game.num_players
        #: Hints a resumed record counts (the server gives hints; the terminal keeps their count).
        self.hints = hints

    # -- labels --------------------------------------------------------------------------

    def label(self, seat: int) -> str:
        if seat in self.humans:
            return _(msg.YOU).format(name=self.names[seat]) if len(self.humans) == 1 else self.names[seat]
        return _(msg.AGENT_LABEL).format(name=self.names[seat], spec=printable(self.specs[seat]))

    def title(self) -> str:
        options = ", ".join(f"{k}={printable(v)}" for k, v in self.game.options.items() if v is not None)
        title = (
            _(msg.TITLE_OPTIONS).format(title=_(self.game.title), options=options) if options else _(self.game.title)
        )
        return title if self.state.seed is None else _(msg.TITLE_SEED).format(title=title, seed=self.state.seed)

    # -- the game loop -------------------------------------------------------------------

    def run(self) -> int:
        term = self.term
        term.say(term.bold(self.title()))
        term.say(_(msg.VERSUS).join(self.label(seat) for seat in range(self.game.num_players)))
        if self.resumed_from is not None:
            term.say(_(msg.RESUMED).format(path=printable(self.resumed_from), moves=len(self.state.history)))
        if self.humans:
            term.say(term.dim(_(msg.WELCOME)))
            term.say(term.dim(_(msg.NEW_HERE).format(game=_(self.game.title))))
        if not self.humans:
            self.draw(None)
        while not self.state.is_terminal():
            self._humans_chosen = 0
            self._typed.clear()
            if self.clock is not None:
                self.clock.start(self.state)
            try:
                player, moves = choose_moves(self.state, self.seats)
            except UndoRequest:
                self.undo()
                continue
            except TakebackRequest as takeback:
                self.take_back(takeback)
                continue
            except ResignRequest as resign:
                return self.finish(resigned=resign.seat)
            except OutOfTime as out:
                return self.finish(lost_on_time=out.seat)
            except QuitRequest:
                return self.quit(EXIT_ABANDONED)
            except EOFError:  # Ctrl-D: like quit
                term.say()
                return self.quit(EXIT_ABANDONED)
            except KeyboardInterrupt:
                term.say()
                return self.quit(EXIT_INTERRUPTED)
            except AgentFailure as failure:
                return self.agent_failed(failure)
            try:
                turn = apply_turn(self.state, player, moves, self.seats)
            except MoveError as error:  # humans' moves are checked as typed: an agent erred
                return self.agent_failed(AgentFailure(player, error))
            if self.clock is not None:
                self.clock.played()
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
        if self.clock is not None:
            term.say(self.clock.line(self.names))

    def announce(self, turn: Turn) -> None:
        term = self.term
        entry = term.bold(printable(turn.entry))
        if turn.simultaneous:
            choices = ", ".join(
                _(msg.REVEAL_CHOICE).format(label=self.label(p), move=printable(m)) for p, m in enumerate(turn.moves)
            )
            term.say(_(msg.REVEALED).format(number=turn.number, choices=choices, entry=entry))
            next_seat = self.state.current_player()
            if next_seat not in (SIMULTANEOUS, TERMINAL, *self.humans):  # a human's prompt shows it anyway
                term.say(self.state.status_lines(None)[0])  # what the reveal decided, e.g. who places
            return
        typed = self._typed.get(turn.player, "")
        same = ""
        if typed and _squeeze(typed) != _squeeze(turn.entry):  # the game wrote an equivalent move its own way
            same = term.dim(_(msg.SAME_AS).format(typed=printable(typed)))
        term.say(_(msg.PLAYED).format(number=turn.number, label=self.label(turn.player), entry=entry) + same)

    def ask_move(self, seat: int) -> Any:
        """Prompt the human in ``seat`` until a legal move; raises Undo/Takeback/Quit/ResignRequest or EOFError."""
        term, state = self.term, self.state
        simultaneous = state.current_player() == SIMULTANEOUS
        other_humans = [h for h in self.humans if h != seat]
        if simultaneous and other_humans:
            if self._humans_chosen:  # the screen was cleared when the last one chose
                term.ask(_(msg.YOUR_SECRET_TURN).format(name=self.names[seat]))
            else:
                others = ", ".join(self.names[h] for h in other_humans)
                term.say(_(msg.CHOOSE_IN_SECRET).format(name=self.names[seat], others=others))
        self.draw(seat)
        prompt = _(msg.PROMPT).format(name=self.names[seat])
        term.say(term.dim(_(msg.ENTER_MOVE).format(hint=state.move_hint(seat))))
        mistakes = 0
        while True:
            text = term.ask(prompt).strip()
            if not text:
                continue
            command = " ".join(text.lower().split())
            if command in ("help", "?"):
                term.say(_(msg.HELP).format(game=_(self.game.title)))
                term.say(_(msg.MOVE_HERE).format(hint=state.move_hint(seat)))
            elif command in ("help rules", "rules"):
                self.show_rules()
                self.draw(seat)  # the rules scrolled the position away
                term.say(term.dim(_(msg.ENTER_MOVE).format(hint=state.move_hint(seat))))
            elif command == "moves":
                self.list_moves(seat)
            elif command in ("undo", "takeback"):
                if len(self.humans) < self.game.num_players:
                    count, refusal = self.takeback_length(seat)
                    if refusal is not None:
                        term.error(refusal)
                    else:
                        raise TakebackRequest(seat, count)
                elif not state.history:
                    term.error(_(msg.UNDO_NOTHING))
                else:
                    raise UndoRequest
            elif command == "resign":
                if self.confirm(_(msg.RESIGN_CONFIRM).format(name=self.names[seat])):
                    raise ResignRequest(seat)
            elif command in ("quit", "exit"):
                raise QuitRequest
            else:
                try:
                    move = state.parse_move(text, seat)
                except ValueError as error:
                    mistakes += 1
                    message = printable(error)
                    term.error(message if message.endswith(".") else message + ".")
                    if mistakes == 2:
                        term.say(term.dim(_(msg.AFTER_MISTAKES)))
                    continue
                self._typed[seat] = text
                if simultaneous and other_humans:
                    self._humans_chosen += 1
                    if self._humans_chosen < len(self.humans):
                        term.clear()
                        term.say(_(msg.HAS_CHOSEN).format(name=self.names[seat]))
                return move

    def show_rules(self) -> None:
        """``help rules``: how to play this game, its pictures coloured like the board."""
        term = self.term
        previous = ""
        for block in howto_blocks(self.game.name, current_language()):
            if previous != "heading" and not block.kind == previous == "item":  # a list stays together
                term.say()
            previous = block.kind
            if block.kind == "heading":
                term.say(term.bold(block.text))
            elif block.kind == "position":
                term.say(term.board(block.text))
            else:
                term.say(render_block(block, width=78))

    def list_moves(self, seat: int) -> None:
        moves = [printable(m) for m in self.state.legal_moves(seat)]
        text = ngettext(msg.LEGAL_MOVES, len(moves)).format(n=len(moves), moves=", ".join(moves))
        # Break only after a comma, so a move written with a space (a relocation, then a place) stays whole.
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
        if self.clock is not None:
            self.clock.take_back(1)
        self.term.say(_(msg.TOOK_BACK).format(number=number, entry=printable(entry)))

    def takeback_length(self, seat: int) -> tuple[int, str | None]:
        """How many moves a takeback by ``seat`` against agents takes back — back to ``seat``'s
        last turn: its own move and every agent's reply since — or why it may not (the text to show).

        A takeback never undoes a joint move of secret choices (a reveal): the person has seen
        what the agents chose in secret, and would choose again knowing it. Nor does it undo
        another person's move.
        """
        if self.state.is_terminal():
            return 0, _(msg.TAKEBACK_OVER)
        probe = self.state.clone()
        count = 0
        while probe.history:
            probe.undo()
            count += 1
            mover = probe.current_player()
            if mover == SIMULTANEOUS:
                agents = ", ".join(self.label(p) for p in range(self.game.num_players) if p not in self.humans)
                return 0, _(msg.TAKEBACK_SECRET).format(number=len(probe.history) + 1, agents=agents)
            if mover == seat:
                return count, None
            if mover in self.humans:
                return 0, _(msg.TAKEBACK_OTHER_PERSON).format(name=self.names[mover])
        return 0, _(msg.TAKEBACK_NOTHING)

    def take_back(self, takeback: TakebackRequest) -> None:
        """Take back ``takeback.count`` moves (checked by :meth:`takeback_length`) and count it."""
        entries = self.state.history_notation()[-takeback.count :]
        for _move in range(takeback.count):
            self.state.undo()
        if self.clock is not None:
            self.clock.take_back(takeback.count)
        if self.takebacks is not None:
            self.takebacks[takeback.seat] += 1
        self.term.say(
            ngettext(msg.TOOK_BACK_MOVES, takeback.count).format(
                n=takeback.count,
                number=len(self.state.history) + 1,
                entries=", ".join(printable(entry) for entry in entries),
            )
        )

    def confirm(self, question: str) -> bool:
        """A yes/no question; no at the end of input."""
        try:
            answer = self.term.ask(question)
        except EOFError:
            self.term.say()
            return False
        return answer.strip().lower() in ("y", "yes")

    def quit(self, status: int) -> int:
        """Stop before the end, offering to save the game so it can be resumed; returns ``status``."""
        term = self.term
        if self.state.history and self.save_enabled:
            path = self.save_path or default_record_path(self.game)
            if self.confirm(_(msg.SAVE_UNFINISHED).format(path=printable(path))):
                self.save(path)
        term.say(_(msg.ABANDONED))
        term.say(_(msg.GOODBYE))
        return status

    def agent_failed(self, failure: AgentFailure) -> NoReturn:
        """An agent broke down: keep the game so far (it can be resumed with other players), then fail."""
        error = failure.error
        detail = str(error) if isinstance(error, ValueError) else f"{type(error).__name__}: {error}"
        if self.state.history and self.save_enabled:
            self.save(self.save_path or default_record_path(self.game), resumable=True)
        if failure.seat < 0:  # a joint move: the error names the seats
            raise CliError(_(msg.AN_AGENT_FAILED).format(error=detail))
        raise CliError(_(msg.AGENT_FAILED).format(label=self.label(failure.seat), error=detail))

    def finish(self, resigned: int | None = None, lost_on_time: int | None = None) -> int:
        term, state = self.term, self.state
        self.draw(None)
        if lost_on_time is not None:
            returns = time_loss(state, lost_on_time)
            winners = [self.names[seat] for seat, r in enumerate(returns) if r > 0]
            if self.game.num_players == 2:
                term.say(_(msg.LOST_ON_TIME_TO).format(name=self.names[lost_on_time], winner=winners[0]))
            else:
                term.say(_(msg.LOST_ON_TIME).format(name=self.names[lost_on_time]))
            if len(self.humans) == 1 and returns[self.humans[0]] > 0:
                term.good(_(msg.YOU_WIN))
            elif len(self.humans) == 1:
                term.say(_(msg.YOU_LOSE))
        elif resigned is not None:
            if self.game.num_players == 2:
                term.say(_(msg.RESIGNED_TO).format(name=self.names[resigned], winner=self.names[1 - resigned]))
            else:
                term.say(_(msg.RESIGNED).format(name=self.names[resigned]))
            if len(self.humans) == 1 and resigned == self.humans[0]:
                term.say(_(msg.YOU_LOSE))
        else:
            returns = state.returns()
            scores = ", ".join(
                _(msg.SCORE).format(label=self.label(p), score=r) for p, r in enumerate(format_returns(returns))
            )
            term.say(_(msg.GAME_OVER).format(moves=len(state.history), scores=scores))
            if len(self.humans) == 1:
                you = returns[self.humans[0]]
                if you > max(r for p, r in enumerate(returns) if p != self.humans[0]):
                    term.good(_(msg.YOU_WIN))
                elif you < max(returns):
                    term.say(_(msg.YOU_LOSE))
                else:
                    term.say(_(msg.DRAW))
        if self.save_enabled:
            self.save(self.save_path or default_record_path(self.game), resigned=resigned, lost_on_time=lost_on_time)
        return EXIT_FINISHED

    def save(
        self, path: Path, resigned: int | None = None, resumable: bool = False, lost_on_time: int | None = None
    ) -> None:
        record = Record.from_state(
            self.state,
            self.specs,
            resigned=resigned,
            hints=self.hints,
            takebacks=self.takebacks,
            clock=self.clock.control if self.clock is not None else None,
            clocks=self.clock.kept if self.clock is not None else None,
            lost_on_time=lost_on_time,
        )
        record.save(path)
        shown = printable(path)
        if resumable:
            self.term.say(_(msg.AGENT_FAILED_SAVED).format(path=shown))
        else:
            self.term.say(_(msg.SAVED).format(path=shown))
        if resumable or (not self.state.is_terminal() and resigned is None and lost_on_time is None):
            self.term.say(self.term.dim(_(msg.RESUME_HINT).format(path=shown)))
        else:
            self.term.say(self.term.dim(_(msg.REPLAY_HINT).format(path=shown)))


def _squeeze(move_text: str) -> str:
    """A move's text without spaces or case, to tell a differently written move from the same text."""
    return "".join(move_text.split()).lower()


def cmd_play(args: argparse.Namespace, term: Terminal) -> int:
    save_path = _save_path(args.save)
    if args.resume is not None:
        return _resume(args, term, save_path)
    if args.game is None:
        raise CliError(_(msg.NO_GAME))
    seats = None if args.players is None else len(split_players(args.players))
    game = make_game(args.game, args.option or [], seats)
    specs, agents = make_players(args.players, game)
    control = _time_control(args.clock)
    try:
        state = game.new_initial_state(args.seed)
    except ValueError as error:
        raise CliError(_(msg.BAD_SEED).format(error=error)) from None
    clock = SessionClock(control, game.num_players) if control.timed else None
    return PlaySession(term, state, specs, agents, save_path, save=not args.no_save, clock=clock).run()


def _time_control(text: str | None) -> TimeControl:
    """``--clock``'s time control (untimed without it); :class:`CliError` naming the problem."""
    try:
        return TimeControl() if text is None else TimeControl.parse(text)
    except ClockError as error:
        raise CliError(_(msg.BAD_CLOCK).format(error=error)) from None


def _save_path(save: str | None) -> Path | None:
    if save is None:
        return None
    path = Path(save)
    if not path.parent.is_dir():
        raise CliError(_(msg.SAVE_NO_FOLDER).format(folder=repr(str(path.parent))))
    if path.is_dir():
        raise CliError(_(msg.SAVE_IS_FOLDER).format(path=repr(str(path))))
    return path


def _resume(args: argparse.Namespace, term: Terminal, save_path: Path | None) -> int:
    """``spheria play --resume FILE``: replay the record, then play on; saves back to FILE by default."""
    path = Path(args.resume)
    if args.game is not None:
        raise CliError(_(msg.RESUME_WITH_GAME).format(game=args.game))
    fixed = [
        flag
        for flag, value in (
            ("--option", args.option),
            ("--seed", args.seed),
            ("--clock", args.clock),
        )
        if value
    ]
    if fixed:
        raise CliError(_(msg.RESUME_WITH_OPTIONS).format(flags=", ".join(fixed)))
    try:
        record = Record.load(path)
        state = record.replay()
    except RecordError as error:
        raise CliError(f"{path}: {error}") from None
    shown = printable(path)
    if record.resigned is not None:
        name = _(state.game.player_names()[record.resigned])
        raise CliError(_(msg.RESUME_RESIGNED).format(path=shown, name=name))
    if record.lost_on_time is not None:
        name = _(state.game.player_names()[record.lost_on_time])
        raise CliError(_(msg.RESUME_LOST_ON_TIME).format(path=shown, name=name))
    if state.is_terminal():
        raise CliError(_(msg.RESUME_FINISHED).format(path=shown))
    players = args.players if args.players is not None else ",".join(record.players)
    specs, agents = make_players(players, state.game)
    session = PlaySession(
        term,
        state,
        specs,
        agents,
        save_path or path,
        save=not args.no_save,
        resumed_from=path,
        takebacks=record.takebacks,
        hints=record.hints,
        clock=SessionClock(record.clock, state.game.num_players, record.clocks or ()) if record.clock.timed else None,
    )
    return session.run()


# -- replay ----------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace, term: Terminal) -> int:
    path = args.file
    try:
        record = Record.load(path)
        state = record.initial_state()
    except RecordError as error:
        raise CliError(f"{path}: {error}") from None
    game = state.game
    names = [_(name) for name in game.player_names()]
    labels = [_(msg.AGENT_LABEL).format(name=names[p], spec=printable(spec)) for p, spec in enumerate(record.players)]
    options = ", ".join(f"{k}={printable(v)}" for k, v in game.options.items() if v is not None)
    term.say(term.bold(_(msg.TITLE_OPTIONS).format(title=_(game.title), options=options) if options else _(game.title)))
    seed = "" if record.seed is None else _(msg.REPLAY_SEED).format(seed=record.seed)
    summary = _(msg.REPLAY_SUMMARY).format(
        players=_(msg.VERSUS).join(labels), moves=len(record.moves), created=printable(record.created), seed=seed
    )
    term.say(summary)
    if record.clock.timed:
        term.say(_(msg.REPLAY_CLOCK).format(control=record.clock))
    try:
        if args.step:
            return _step_through(term, record, state, labels)
        _show_position(term, _(msg.REPLAY_START), state)
        for step in record.steps(state):
            _show_position(term, _step_heading(term, step, labels, record), step.state)
    except RecordError as error:
        raise CliError(f"{path}: {error}") from None
    _show_ending(term, record, labels)
    return 0


def _step_heading(term: Terminal, step: ReplayStep, labels: list[str], record: Record) -> str:
    entry = term.bold(printable(step.entry))
    if step.player == SIMULTANEOUS:
        heading = _(msg.REPLAY_REVEAL).format(number=step.number, entry=entry)
    else:
        heading = _(msg.REPLAY_MOVE).format(number=step.number, label=labels[step.player], entry=entry)
    if record.clocks is None:
        return heading
    names = [_(name) for name in step.state.game.player_names()]
    clocks = "; ".join(
        _(msg.MOVE_CLOCK).format(
            name=names[clock.seat], used=f"{clock.used / 1000:.1f}", left=describe_left(clock.left)
        )
        for clock in record.clocks[step.number - 1]
    )
    return f"{heading} {term.dim(f'({clocks})')}"


def _show_position(term: Terminal, heading: str, state: State[Any]) -> None:
    term.say()
    term.say(heading)
    term.say(term.board(str(state)))
    for line in state.status_lines(None):
        term.say(line)


def _show_ending(term: Terminal, record: Record, labels: list[str]) -> None:
    if record.lost_on_time is not None:
        term.say(_(msg.REPLAY_LOST_ON_TIME).format(label=labels[record.lost_on_time], moves=len(record.moves)))
    elif record.resigned is not None:
        term.say(_(msg.REPLAY_RESIGNED).format(label=labels[record.resigned], moves=len(record.moves)))
    elif record.result is None:
        term.say(_(msg.REPLAY_UNFINISHED).format(moves=len(record.moves)))
    else:
        scores = ", ".join(
            _(msg.SCORE).format(label=labels[p], score=r) for p, r in enumerate(format_returns(record.result))
        )
        term.say(_(msg.REPLAY_RESULT).format(scores=scores))


def _step_through(term: Terminal, record: Record, state: State[Any], labels: list[str]) -> int:
    """``replay --step``: Enter shows the next move, ``b`` the position before (redrawn), ``q``
    stops; after the last move, the ending, and ``b`` still goes back. Each position is kept as
    it is first reached, so going back and forth replays nothing twice."""
    steps = record.steps(state)
    positions = [(_(msg.REPLAY_START), state.clone())]  # every position reached: its heading and state
    at = 0
    ended = False
    _show_position(term, *positions[at])
    while True:
        last = at == len(record.moves)
        if last and not ended:
            next(steps, None)  # past the last move: the record's result is checked
            _show_ending(term, record, labels)
            ended = True
        try:
            answer = term.ask(term.dim(_(msg.REPLAY_END_WAIT if last else msg.REPLAY_WAIT))).strip().lower()
        except EOFError:
            term.say()
            return 0
        if answer in ("q", "quit") or (last and answer != "b"):
            return 0
        if answer == "b":
            if at == 0:
                term.error(_(msg.REPLAY_AT_START))
                continue
            at -= 1
        else:
            at += 1
            if at == len(positions):
                step = next(steps)
                positions.append((_step_heading(term, step, labels, record), step.state.clone()))
        _show_position(term, *positions[at])


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
            values += _(msg.OPTION_RANGE).format(low=_option_value(low), high=_option_value(high))
        elif low is not None:
            values += _(msg.OPTION_AT_LEAST).format(low=_option_value(low))
        elif high is not None:
            values += _(msg.OPTION_AT_MOST).format(high=_option_value(high))
    else:
        values = "TEXT"
    default = "" if option["default"] is None else _(msg.OPTION_DEFAULT).format(value=_option_value(option["default"]))
    return f"{option['name']}={values}{default}"


def describe_game(game: Mapping[str, Any]) -> str:
    """One line about a game from its JSON description (:meth:`Game.describe`)."""
    low, high = game["min_players"], game["max_players"]
    seats = ", ".join(_(seat["name"]) for seat in game["seats"])
    if low == high:
        players = ngettext(msg.GAME_PLAYERS, low).format(n=low, seats=seats)
    else:
        players = _(msg.GAME_PLAYER_RANGE).format(low=low, high=high, default=game["num_players"], seats=seats)
    turns = _(msg.SIMULTANEOUS if game["simultaneous"] else msg.SEQUENTIAL)
    information = _(msg.PERFECT_INFORMATION if game["perfect_information"] else msg.HIDDEN_INFORMATION)
    return _(msg.GAME_LINE).format(title=_(game["title"]), players=players, turns=turns, information=information)


def cmd_games(args: argparse.Namespace, term: Terminal) -> int:
    for game in describe_games():
        name = game["name"]
        term.say(f"{term.bold(name)}  {describe_game(game)}")
        for option in game["options"]:
            term.say(f"    --option {describe_option(option)}")
            term.say("        " + fill(_(option["help"]), width=88, subsequent_indent="        "))
        example = f"spheria play {name}"
        loaded = load_game(name)
        levels = describe_levels(loaded)
        if levels is not None:
            term.say("    " + fill(levels, width=88, subsequent_indent="        "))
        if loaded.why_no_agents is not None:
            why = _(msg.GAMES_NO_AGENTS).format(why=_(loaded.why_no_agents))
            term.say("    " + fill(why, width=88, subsequent_indent="        "))
        opponent = HUMAN if loaded.why_no_agents is not None else "random" if levels is None else level_spec(3)
        players = ",".join([HUMAN, *[opponent] * (game["num_players"] - 1)])
        term.say("    " + _(msg.GAMES_EXAMPLE).format(example=f"{example} --players {players}"))
        term.say()
    term.say(_(msg.GAMES_PLAYERS).format(human=HUMAN, agents=", ".join(agent_names())))
    return 0


def describe_levels(game: Game) -> str | None:
    """The levels of ``game`` with its options, as one line: each level's spec, words and time a move.

    ``None`` for a game without levels (a game a plugin registers, say).
    """
    try:
        entries = levels_for(game)
    except ValueError:
        return None
    levels = ", ".join(
        _(msg.GAMES_LEVEL).format(
            spec=level_spec(entry.level), words=level_words(entry.level), seconds=f"{entry.seconds:g}"
        )
        for entry in entries
    )
    return _(msg.GAMES_LEVELS).format(levels=levels)


# -- the command -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=_(msg.HELP_PROGRAM))
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}", help=_(msg.HELP_VERSION))
    parser.add_argument("--lang", choices=LANGUAGES, help=_(msg.HELP_LANG))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = commands.add_parser("play", help=_(msg.HELP_PLAY), description=_(msg.HELP_PLAY_DESCRIPTION))
    play.add_argument("game", metavar="GAME", nargs="?", help=_(msg.HELP_GAME).format(example=default_game_name()))
    add_game_options(play)
    play.add_argument("--players", metavar="P1,P2", help=_(msg.HELP_PLAYERS).format(human=HUMAN))
    play.add_argument("--seed", metavar="N", type=INTEGER, help=_(msg.HELP_SEED))
    play.add_argument("--resume", metavar="FILE", help=_(msg.HELP_RESUME))
    play.add_argument("--clock", metavar="CONTROL", help=_(msg.HELP_CLOCK))
    saving = play.add_mutually_exclusive_group()
    saving.add_argument("--save", metavar="FILE", help=_(msg.HELP_SAVE))
    saving.add_argument("--no-save", action="store_true", help=_(msg.HELP_NO_SAVE))
    add_color_option(play)
    play.set_defaults(handler=cmd_play)

    replay = commands.add_parser("replay", help=_(msg.HELP_REPLAY), description=_(msg.HELP_REPLAY_DESCRIPTION))
    replay.add_argument("file", metavar="FILE", help=_(msg.HELP_RECORD_FILE))
    replay.add_argument("--step", action="store_true", help=_(msg.HELP_STEP))
    add_color_option(replay)
    replay.set_defaults(handler=cmd_replay)

    games = commands.add_parser("games", help=_(msg.HELP_GAMES), description=_(msg.HELP_GAMES_DESCRIPTION))
    games.set_defaults(handler=cmd_games, no_color=False)

    arena.add_parser(commands)
    analyse.add_parser(commands)
    puzzles.add_parsers(commands)
    for game_class in game_classes():  # each game's own commands (spheria solve, ...)
        add_commands = game_class.kit().commands
        if add_commands is not None:
            add_commands(commands)
    serve_command.add_parser(commands)
    agents_worker.add_parser(commands)  # the agent workers of servers started with --redis
    dbcommand.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line in the language of ``--lang`` or the environment; returns the exit status."""
    with using(_language_asked(sys.argv[1:] if argv is None else argv)), argparse_speaking():
        return _run(argv)


def _run(argv: list[str] | None) -> int:
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
        words = msg.OS_ERRORS.get(error.errno or 0)
        _fail(f"{where}{_(words) if words else error.strerror or error}")
    except KeyboardInterrupt:
        term.say()
        print(_(msg.INTERRUPTED).format(prog=PROG), file=sys.stderr)
        return 130
    except Exception as error:  # a bug: one line, unless the developer asks for the traceback
        if os.environ.get("SPHERIA_DEBUG"):
            raise
        _fail(_(msg.INTERNAL_ERROR).format(kind=type(error).__name__, error=error))
        return 2
    return 1


def _language_asked(argv: Sequence[str]) -> str:
    """The language of ``--lang`` (read before the parser is built, so its help is translated too),
    else the environment's."""
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[index + 1] if arg == "--lang" and index + 1 < len(argv) else arg.partition("=")[2]
        if (arg == "--lang" or arg.startswith("--lang=")) and value in LANGUAGES:
            return value
    return language_from_env()


def _fail(message: str) -> None:
    print(_(msg.ERROR).format(prog=PROG, message=printable(message)), file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
