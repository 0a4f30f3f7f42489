"""Game records, and the one way to set a game up and replay its entries.

:func:`set_up` makes a game's first position from what any stored game keeps — the game's name,
its options, the position it was set up from (SPN, when it was) and its seed — and
:func:`replay` plays record entries (``state.history_notation()``) on from there. Every layer
that rebuilds a game from its record (files, the server's games and jobs, the integrations'
pickles) goes through these two, so a game set up by hand comes back from its ``start``
everywhere; :func:`replay_steps` is :func:`replay` a move at a time.

A :class:`Record` is one game as a file: the game and its options, the seed, the starting
position (SPN), the players and the moves, as versioned JSON that replays exactly. Replaying
rebuilds the game from those and plays every entry, so a record that loads is a record that is
legal. A game started from a position set up by hand (``from_position``) is rebuilt from
``start`` through ``state_from_spn``, which checks it. The format is described in
``docs/records.md``.

>>> import spheria
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> state.apply(state.legal_moves()[0])
>>> record = Record.from_state(state, ["human", "random"])
>>> record.moves == state.history_notation()
True
>>> Record.loads(record.dumps()).replay().to_spn() == state.to_spn()
True
>>> again = replay(record.game, record.options, start=record.start, seed=record.seed, entries=record.moves)
>>> again.to_spn() == state.to_spn()
True
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel import messages as M
from spheria.kernel.clock import ClockError, SeatClock, TimeControl, running_seats, seat_clocks
from spheria.kernel.game import Game, State
from spheria.kernel.registry import load_game

FORMAT = "spheria-record"
#: The largest record file read (a long game's record is a few kilobytes).
MAX_RECORD_BYTES = 16_000_000
#: The longest player (an agent spec or ``human``) a record may name.
MAX_PLAYER_LENGTH = 200
#: The version written. Version 2 added the time control and each move's clock; version 1 is
#: still read (an untimed game).
VERSION = 2
#: Every version read.
VERSIONS = (1, 2)

#: The fields every record holds; readers ignore any others.
FIELDS = ("format", "version", "game", "options", "seed", "start", "players", "moves", "result", "created")
#: The fields a version-2 record holds besides :data:`FIELDS`.
CLOCK_FIELDS = ("clock", "clocks")

#: Fields added within a version, optional when reading: a record without them reads as before.
OPTIONAL_FIELDS = ("resigned", "from_position", "hints", "takebacks", "lost_on_time")


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names the problem.

    ``move_number`` is the 1-based number of the offending move when the fault is a move.
    """

    def __init__(self, message: str, move_number: int | None = None) -> None:
        super().__init__(message)
        self.move_number = move_number


def timestamp(seconds: float | None = None) -> str:
    """A record's ``created``: the time ``seconds`` (``time.time()``; None: now), ISO 8601 in UTC.

    >>> timestamp(1738324800)
    '2025-01-31T12:00:00Z'
    """
    at = datetime.now(UTC) if seconds is None else datetime.fromtimestamp(seconds, UTC)
    return at.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def start_position(state: State[Any]) -> State[Any]:
    """A copy of ``state`` with every move taken back: the position the game started from."""
    start = state.clone()
    while start.history:
        start.undo()
    return start


@dataclass(frozen=True)
class ReplayStep:
    """One move of a replay: its 1-based number, the seat that made it and the position after it.

    ``player`` is the seat to move before the move, or ``SIMULTANEOUS`` for a joint move.
    """

    number: int
    entry: str
    player: int
    state: State[Any]


def set_up(
    game: str | Game, options: Mapping[str, Any] | None = None, start: str | None = None, seed: int | None = None
) -> State[Any]:
    """The first position of a game: ``start`` (SPN) read by the game's rules when the game was
    set up from a position, else the game's own start with ``seed``.

    ``game`` is a name with its ``options``, or a loaded game (then ``options`` stays None).
    Raises :class:`RecordError` (a ``ValueError``) naming the problem: an unknown game or
    option, a seed the game refuses, or a ``start`` that is not one of its positions.
    """
    if isinstance(game, str):
        try:
            loaded = load_game(game, **(options or {}))
        except ValueError as error:
            raise RecordError(str(error)) from None
    elif options is not None:
        raise TypeError("give options with a game's name, not with a loaded game")
    else:
        loaded = game
    if start is not None:
        try:
            return loaded.state_from_spn(start)
        except ValueError as error:
            raise RecordError(f"'start' {_echo(start)} is not a position of {loaded.name}: {error}") from None
    try:
        return loaded.new_initial_state(seed)
    except ValueError as error:
        raise RecordError(f"cannot start {loaded.name} with seed {_echo(seed)}: {error}") from None


def replay_steps(state: State[Any], entries: Iterable[str], first: int = 1) -> Iterator[ReplayStep]:
    """Play ``entries`` on ``state`` in place, yielding after each; ``first`` is the number of the
    first entry (1 from the start). Raises :class:`RecordError` naming the move number, the entry
    and the problem at the first entry that does not apply."""
    for number, entry in enumerate(entries, first):
        player = state.current_player()
        try:
            state.apply_notation(entry)
        except ValueError as error:
            raise RecordError(_(M.RECORD_MOVE).format(number=number, entry=repr(entry), error=error), number) from None
        yield ReplayStep(number, entry, player, state)


def replay(
    game: str | Game,
    options: Mapping[str, Any] | None = None,
    start: str | None = None,
    seed: int | None = None,
    entries: Iterable[str] = (),
) -> State[Any]:
    """The position after ``entries`` from the game's first position (:func:`set_up`'s arguments);
    raises :class:`RecordError` naming the problem (and the entry, for a move)."""
    state = set_up(game, options, start, seed)
    for _step in replay_steps(state, entries):
        pass
    return state


@dataclass
class Record:
    """One game: what :func:`replay` rebuilds it from, its players and its outcome. Build one
    with :meth:`from_state` or :meth:`load`; the server keeps one for each of its games."""

    game: str
    options: dict[str, Any]
    seed: int | None
    #: The position (SPN) the game was set up from by hand; None: the game's own start with ``seed``.
    start: str | None
    players: list[str]
    moves: list[str]
    result: list[float] | None = None
    created: str = field(default_factory=timestamp)
    resigned: int | None = None
    #: Hints each seat was given (one count per seat) in a game played with hints; None: no hints.
    hints: list[int] | None = None
    #: Takebacks each seat asked for (one count per seat) in a game of people against agents at
    #: the terminal; None: a game that offered none.
    takebacks: list[int] | None = None
    #: The time control the game was played with (untimed: ``TimeControl()``).
    clock: TimeControl = field(default_factory=TimeControl)
    #: In a timed game, each move's clocks: the seat (or, for a joint move, each choosing seat)
    #: with the milliseconds it used and had left after the move; None in an untimed game.
    clocks: list[list[SeatClock]] | None = None
    #: The seat that ran out of time after the last move, ending the game; None: nobody did.
    lost_on_time: int | None = None

    @property
    def from_position(self) -> bool:
        """Whether the game started from a position set up by hand (``start``)."""
        return self.start is not None

    @property
    def finished(self) -> bool:
        """Whether the game ended, by the rules (``result``), a resignation or a loss on time."""
        return self.result is not None or self.resigned is not None or self.lost_on_time is not None

    # -- building ------------------------------------------------------------------------

    @classmethod
    def from_state(
        cls,
        state: State[Any],
        players: Sequence[str],
        created: str | None = None,
        resigned: int | None = None,
        hints: Sequence[int] | None = None,
        takebacks: Sequence[int] | None = None,
        clock: TimeControl | None = None,
        clocks: Sequence[Sequence[SeatClock]] | None = None,
        lost_on_time: int | None = None,
    ) -> Record:
        """The record of the game that led to ``state``; ``players`` are agent specs or ``"human"``.

        ``resigned`` is the seat that gave up in ``state`` (an unfinished position), if one did;
        ``hints`` the number of hints each seat was given, in a game played with hints;
        ``takebacks`` the number of takebacks each seat asked for, in a game that offered them.
        The record keeps the game's first position as ``start`` when it is not the game's own
        start with the state's seed (a position built with ``state_from_spn``).
        A timed game gives its ``clock``, ``clocks`` (one list of :class:`SeatClock` per move) and,
        when a seat ran out of time after the last move, ``lost_on_time``.
        """
        if len(players) != state.game.num_players:
            raise RecordError(f"{state.game.name} has {state.game.num_players} seats; got {len(players)} players")
        if resigned is not None and (state.is_terminal() or not 0 <= resigned < state.game.num_players):
            raise RecordError(f"seat {resigned} cannot resign here: {_resign_problem(state, resigned)}")
        control = clock or TimeControl()
        kept = None if clocks is None else [list(move) for move in clocks]
        _check_clocks(control, kept, len(state.history), lost_on_time, resigned, state.game.num_players)
        if lost_on_time is not None and state.is_terminal():
            raise RecordError(f"seat {lost_on_time} cannot lose on time here: the game is over")
        start = start_position(state).to_spn()
        own = set_up(state.game, seed=state.seed).to_spn()
        return cls(
            game=state.game.name,
            options=dict(state.game.options),
            seed=state.seed,
            start=None if start == own else start,
            players=[str(p) for p in players],
            moves=list(state.history_notation()),
            result=[float(r) for r in state.returns()] if state.is_terminal() else None,
            created=created or timestamp(),
            resigned=resigned,
            hints=None if hints is None else _checked_hints(list(hints), state.game.num_players),
            takebacks=None if takebacks is None else _checked_takebacks(list(takebacks), state.game.num_players),
            clock=control,
            clocks=kept,
            lost_on_time=lost_on_time,
        )

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The record as the file holds it; a game from its own start is set up to write ``start``."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "start": self.start if self.start is not None else set_up(self.game, self.options, seed=self.seed).to_spn(),
            "players": list(self.players),
            "moves": list(self.moves),
            "result": None if self.result is None else list(self.result),
            "created": self.created,
            "resigned": self.resigned,
            "from_position": self.from_position,
            **({} if self.hints is None else {"hints": list(self.hints)}),
            **({} if self.takebacks is None else {"takebacks": list(self.takebacks)}),
            "clock": self.clock.to_json(),
            "clocks": None if self.clocks is None else [[c.to_json() for c in move] for move in self.clocks],
            "lost_on_time": self.lost_on_time,
        }

    def dumps(self) -> str:
        """The record as JSON text: one field a line, so records read and diff well."""
        fields = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in self.to_json().items()]
        return "{\n" + ",\n".join(fields) + "\n}\n"

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """Check the structure of decoded JSON and build a record; raises :class:`RecordError`.

        This checks fields and types, and that a game said to start from its own start (not
        ``from_position``) starts at ``start``; :meth:`replay` checks that the game is legal.
        """
        if not isinstance(data, dict):
            raise RecordError(_(M.NOT_AN_OBJECT).format(kind=type(data).__name__))
        if data.get("format") != FORMAT:
            found = data.get("format")
            raise RecordError(_(M.NOT_A_RECORD).format(format=repr(FORMAT), found=repr(found)))
        version = data.get("version")
        if version not in VERSIONS or isinstance(version, bool):
            raise RecordError(_(M.UNSUPPORTED_VERSION).format(version=repr(version), newest=VERSION))
        missing = [name for name in FIELDS + (CLOCK_FIELDS if version >= 2 else ()) if name not in data]
        if missing:
            raise RecordError(_(M.MISSING_FIELDS).format(fields=", ".join(map(repr, missing))))
        game = data["game"]
        if not isinstance(game, str) or not game:
            raise RecordError(f"'game' must be a game name, not {_echo(game)}")
        options = data["options"]
        if not isinstance(options, dict):
            raise RecordError(f"'options' must be an object of option values, not {_echo(options)}")
        seed = data["seed"]
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RecordError(f"'seed' must be a whole number or null, not {_echo(seed)}")
        start = data["start"]
        if not isinstance(start, str):
            raise RecordError(f"'start' must be a position in SPN, not {_echo(start)}")
        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
            raise RecordError(f"'players' must be a list of agent specs or 'human', not {_echo(players)}")
        for number, player in enumerate(players, 1):
            if len(player) > MAX_PLAYER_LENGTH:
                raise RecordError(
                    _(M.PLAYER_TOO_LONG).format(number=number, length=len(player), most=MAX_PLAYER_LENGTH)
                )
        moves = data["moves"]
        if not isinstance(moves, list):
            raise RecordError(f"'moves' must be a list of move entries, not {_echo(moves)}")
        for number, entry in enumerate(moves, 1):
            if not isinstance(entry, str):
                raise RecordError(f"move {number}: an entry is text, not {_echo(entry)}", number)
        result = data["result"]
        if result is not None and not (
            isinstance(result, list)
            and all(isinstance(r, int | float) and not isinstance(r, bool) and math.isfinite(r) for r in result)
        ):
            raise RecordError(f"'result' must be a list of numbers (one per seat) or null, not {_echo(result)}")
        created = data["created"]
        if not isinstance(created, str):
            raise RecordError(f"'created' must be a timestamp such as '2025-01-31T12:00:00Z', not {_echo(created)}")
        resigned = data.get("resigned")
        if resigned is not None and (not isinstance(resigned, int) or isinstance(resigned, bool) or resigned < 0):
            raise RecordError(f"'resigned' must be the seat (0-based) that resigned, or null, not {_echo(resigned)}")
        if resigned is not None and result is not None:
            raise RecordError("a resigned game has no 'result' (null): the rules did not finish it")
        from_position = data.get("from_position", False)
        if not isinstance(from_position, bool):
            raise RecordError(f"'from_position' must be true or false, not {_echo(from_position)}")
        hints = data.get("hints")
        if hints is not None:
            hints = _checked_hints(hints, len(players))
        takebacks = data.get("takebacks")
        if takebacks is not None:
            takebacks = _checked_takebacks(takebacks, len(players))
        control, clocks, lost_on_time = TimeControl(), None, None
        if version >= 2:  # a version-1 record is of an untimed game (its readers knew no clocks)
            control, clocks, lost_on_time = _read_clocks(data, len(players), len(moves))
            _check_clocks(control, clocks, len(moves), lost_on_time, resigned, len(players))
            if lost_on_time is not None and result is not None:
                raise RecordError("a game lost on time has no 'result' (null): the rules did not finish it")
        return cls(
            game=game,
            options=dict(options),
            seed=seed,
            start=_start_of(game, options, seed, start, from_position),
            players=list(players),
            moves=list(moves),
            result=None if result is None else [float(r) for r in result],
            created=created,
            resigned=resigned,
            hints=hints,
            takebacks=takebacks,
            clock=control,
            clocks=clocks,
            lost_on_time=lost_on_time,
        )

    @classmethod
    def loads(cls, text: str) -> Record:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(_(M.NOT_JSON).format(error=error.msg, line=error.lineno, column=error.colno)) from None
        except RecursionError:
            raise RecordError(_(M.TOO_DEEP).format(most=sys.getrecursionlimit())) from None
        return cls.from_json(data)

    def save(self, path: str | Path) -> Path:
        """Write the record as JSON; returns the path written."""
        target = Path(path)
        target.write_text(self.dumps(), encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record; raises :class:`RecordError` for a malformed file, ``OSError`` if unreadable."""
        with Path(path).open("rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)  # never more: a device such as /dev/zero never ends
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError(_(M.TOO_LARGE).format(most=MAX_RECORD_BYTES // 1_000_000))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(_(M.NOT_TEXT)) from None
        return cls.loads(text)

    # -- replay ----------------------------------------------------------------------------

    def load_game(self) -> Game:
        """The game the record names, with its options; raises :class:`RecordError`."""
        try:
            return load_game(self.game, **self.options)
        except ValueError as error:
            raise RecordError(str(error)) from None

    def initial_state(self) -> State[Any]:
        """The starting position (:func:`set_up`); a position set up by hand must be one the game
        writes as ``start``, and ``players`` must name one player a seat."""
        game = self.load_game()
        if len(self.players) != game.num_players:
            seats = game.num_players
            raise RecordError(_(M.RECORD_SEAT_COUNT).format(game=game.name, seats=seats, players=len(self.players)))
        if self.resigned is not None and self.resigned >= game.num_players:
            raise RecordError(
                f"'resigned' is seat {self.resigned} but {game.name} has seats 0 to {game.num_players - 1}"
            )
        state = set_up(game, start=self.start, seed=self.seed)
        if self.start is not None and state.to_spn() != self.start:
            raise RecordError(f"'start' is {_echo(self.start)} but {game.name} writes that position {state.to_spn()!r}")
        return state

    def steps(self, state: State[Any] | None = None) -> Iterator[ReplayStep]:
        """Replay move by move (:func:`replay_steps`), yielding after each; after the last, the result is checked.

        ``state`` is where to start: :meth:`initial_state` (built here when omitted); it is
        played in place, so every step holds that one state object. Raises
        :class:`RecordError` naming the move number and the problem at the first bad entry.
        """
        return self._steps(self.initial_state() if state is None else state)

    def _steps(self, state: State[Any]) -> Iterator[ReplayStep]:
        if self.clocks is None:
            yield from replay_steps(state, self.moves)
        else:
            for number, (entry, clocks) in enumerate(zip(self.moves, self.clocks, strict=True), 1):
                running = running_seats(state)
                timed = sorted(clock.seat for clock in clocks)
                if timed != sorted(running):
                    raise RecordError(
                        f"move {number}: 'clocks' time seats {timed} but seats {list(running)} moved", number
                    )
                yield from replay_steps(state, [entry], first=number)
        self._check_result(state)

    def replay(self) -> State[Any]:
        """The final position after every move; raises :class:`RecordError` naming any problem."""
        state = self.initial_state()
        for _step in self._steps(state):
            pass
        return state

    def _check_result(self, state: State[Any]) -> None:
        moves = len(self.moves)
        if self.resigned is not None and state.is_terminal():
            raise RecordError(f"'resigned' is {self.resigned} but the game is already over after {moves} moves")
        if self.lost_on_time is not None and state.is_terminal():
            seat = self.lost_on_time
            raise RecordError(f"'lost_on_time' is {seat} but the game is already over after {moves} moves")
        if self.lost_on_time is not None and self.lost_on_time not in running_seats(state):
            seat = self.lost_on_time
            raise RecordError(f"'lost_on_time' is {seat} but seat {seat}'s clock was not running after {moves} moves")
        if state.is_terminal():
            returns = [float(r) for r in state.returns()]
            if self.result is None:
                raise RecordError(f"'result' is null but the game is over after {moves} moves with result {returns}")
            if self.result != returns:
                raise RecordError(f"'result' is {self.result} but the moves give {returns}")
        elif self.result is not None:
            raise RecordError(f"'result' is {self.result} but the game is not over after {moves} moves")


def _read_clocks(data: dict[str, Any], seats: int, moves: int) -> tuple[TimeControl, list[list[SeatClock]] | None, Any]:
    """A version-2 file's ``clock``, ``clocks`` and ``lost_on_time``, each read; raises :class:`RecordError`."""
    try:
        control = TimeControl.from_json(data["clock"])
    except ClockError as error:
        raise RecordError(f"'clock': {error}") from None
    raw = data["clocks"]
    if raw is not None and not isinstance(raw, list):
        raise RecordError(f"'clocks' must be a list with each move's clocks, or null, not {_echo(raw)}")
    clocks = None
    if raw is not None:
        clocks = []
        for number, move in enumerate(raw, 1):
            try:
                clocks.append(seat_clocks(move, seats))
            except ClockError as error:
                raise RecordError(f"move {number}: 'clocks': {error}", number) from None
    return control, clocks, data.get("lost_on_time")


def _check_clocks(
    control: TimeControl,
    clocks: list[list[SeatClock]] | None,
    moves: int,
    lost_on_time: Any,
    resigned: int | None,
    seats: int,
) -> None:
    """That a timed game has one clock entry a move, each adding up (what a seat had left, less
    what it used, plus the increment), and an untimed game none; raises :class:`RecordError`."""
    if not control.timed:
        if clocks is not None or lost_on_time is not None:
            raise RecordError("an untimed game ('clock' null) has no 'clocks' and nobody loses on time")
        return
    if clocks is None or len(clocks) != moves:
        given = "none" if clocks is None else len(clocks)
        raise RecordError(f"a timed game has one 'clocks' entry a move: {moves} moves, {given} entries")
    if lost_on_time is not None and (
        not isinstance(lost_on_time, int) or isinstance(lost_on_time, bool) or not 0 <= lost_on_time < seats
    ):
        raise RecordError(
            f"'lost_on_time' must be the seat (0 to {seats - 1}) that ran out of time, not {_echo(lost_on_time)}"
        )
    if lost_on_time is not None and resigned is not None:
        raise RecordError("a game ends once: it has 'resigned' or 'lost_on_time', not both")
    left = [control.allowance] * seats
    for number, move in enumerate(clocks, 1):
        for clock in move:
            after = (
                control.allowance
                if control.correspondence
                else left[clock.seat] - clock.used + control.increment * 1000
            )
            if clock.left != after or clock.used >= left[clock.seat]:
                raise RecordError(
                    f"move {number}: seat {clock.seat} had {left[clock.seat]} ms and used {clock.used} ms,"
                    f" so it has {after} ms left, not {clock.left}",
                    number,
                )
            left[clock.seat] = clock.left


def _start_of(game: str, options: dict[str, Any], seed: int | None, start: str, from_position: bool) -> str | None:
    """A file's ``start`` as a :class:`Record` keeps it: the position set up by hand, or None for
    the game's own start — which ``start`` must then be, or a :class:`RecordError` says so (a
    position set up by hand is not passed off as a fresh game)."""
    if from_position:
        return start
    own = set_up(game, options, seed=seed).to_spn()
    if start != own:
        seeded = f"{game} with these options and seed {_echo(seed)}"
        raise RecordError(f"'start' is {_echo(start)} but {seeded} starts at {own!r}")
    return None


def _echo(value: object) -> str:
    """``repr(value)``, cut to 80 characters: an error names what it refuses without echoing a whole file."""
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _checked_hints(hints: Any, seats: int) -> list[int]:
    """``hints`` if it is one whole number ≥ 0 per seat; raises :class:`RecordError`."""
    if not _counts(hints, seats):
        wanted = f"the number of hints each of the {seats} seats was given"
        raise RecordError(f"'hints' must be {wanted}, not {_echo(hints)}")
    return list(hints)


def _checked_takebacks(takebacks: Any, seats: int) -> list[int]:
    """``takebacks`` if it is one whole number ≥ 0 per seat; raises :class:`RecordError`."""
    if not _counts(takebacks, seats):
        wanted = f"the number of takebacks each of the {seats} seats asked for"
        raise RecordError(f"'takebacks' must be {wanted}, not {_echo(takebacks)}")
    return list(takebacks)


def _counts(value: Any, seats: int) -> bool:
    """Whether ``value`` is a list of one whole number ≥ 0 per seat."""
    return (
        isinstance(value, list)
        and len(value) == seats
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value)
    )


def _resign_problem(state: State[Any], seat: int) -> str:
    if state.is_terminal():
        return "the game is over"
    return f"{state.game.name} has seats 0 to {state.game.num_players - 1}"
