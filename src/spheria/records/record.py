"""Game records: a finished (or unfinished) game as versioned JSON that replays exactly.

A record names the game and its options, the seed, the starting position (SPN), the players
and the moves as record entries (``state.history_notation()``). Replaying rebuilds the game
from those and plays every entry, so a record that loads is a record that is legal. A game
started from a position set up by hand (``from_position``) is rebuilt from ``start`` through
``state_from_spn``, which checks it. The format is described in ``docs/records.md``.

>>> import spheria
>>> state = spheria.load_game("special-cake", variant="mint").new_initial_state()
>>> state.apply(state.parse_move("0a1"))
>>> record = Record.from_state(state, ["human", "random"])
>>> record.moves
['0a1']
>>> Record.loads(record.dumps()).replay().to_spn() == state.to_spn()
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel.game import Game, State
from spheria.kernel.registry import load_game
from spheria.records import messages as M

FORMAT = "spheria-record"
VERSION = 1

#: The fields every version-1 record holds; readers ignore any others.
FIELDS = ("format", "version", "game", "options", "seed", "start", "players", "moves", "result", "created")

#: Fields added within version 1, optional when reading: a record without them reads as before.
OPTIONAL_FIELDS = ("resigned", "from_position", "hints")


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names the problem.

    ``move_number`` is the 1-based number of the offending move when the fault is a move.
    """

    def __init__(self, message: str, move_number: int | None = None) -> None:
        super().__init__(message)
        self.move_number = move_number


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


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


@dataclass
class Record:
    """One game, as stored on disk. Build one with :meth:`from_state` or :meth:`load`."""

    game: str
    options: dict[str, Any]
    seed: int | None
    start: str
    players: list[str]
    moves: list[str]
    result: list[float] | None = None
    created: str = field(default_factory=_now)
    resigned: int | None = None
    #: Whether the game started from ``start`` set up by hand rather than from the game's own start.
    from_position: bool = False
    #: Hints each seat was given (one count per seat) in a game played with hints; None: no hints.
    hints: list[int] | None = None

    @property
    def finished(self) -> bool:
        """Whether the game ended, by the rules (``result``) or by a resignation."""
        return self.result is not None or self.resigned is not None

    # -- building ------------------------------------------------------------------------

    @classmethod
    def from_state(
        cls,
        state: State[Any],
        players: Sequence[str],
        created: str | None = None,
        resigned: int | None = None,
        hints: Sequence[int] | None = None,
    ) -> Record:
        """The record of the game that led to ``state``; ``players`` are agent specs or ``"human"``.

        ``resigned`` is the seat that gave up in ``state`` (an unfinished position), if one did;
        ``hints`` the number of hints each seat was given, in a game played with hints.
        The record says ``from_position`` when the game's start is not the game's own start with
        the state's seed (a position built with ``state_from_spn``).
        """
        if len(players) != state.game.num_players:
            raise RecordError(f"{state.game.name} has {state.game.num_players} seats; got {len(players)} players")
        if resigned is not None and (state.is_terminal() or not 0 <= resigned < state.game.num_players):
            raise RecordError(f"seat {resigned} cannot resign here: {_resign_problem(state, resigned)}")
        start = start_position(state).to_spn()
        return cls(
            game=state.game.name,
            options=dict(state.game.options),
            seed=state.seed,
            start=start,
            from_position=start != state.game.new_initial_state(state.seed).to_spn(),
            players=[str(p) for p in players],
            moves=list(state.history_notation()),
            result=[float(r) for r in state.returns()] if state.is_terminal() else None,
            created=created or _now(),
            resigned=resigned,
            hints=None if hints is None else _checked_hints(list(hints), state.game.num_players),
        )

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "start": self.start,
            "players": list(self.players),
            "moves": list(self.moves),
            "result": None if self.result is None else list(self.result),
            "created": self.created,
            "resigned": self.resigned,
            "from_position": self.from_position,
            **({} if self.hints is None else {"hints": list(self.hints)}),
        }

    def dumps(self) -> str:
        """The record as JSON text: one field a line, so records read and diff well."""
        fields = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in self.to_json().items()]
        return "{\n" + ",\n".join(fields) + "\n}\n"

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """Check the structure of decoded JSON and build a record; raises :class:`RecordError`.

        This checks fields and types only; :meth:`replay` checks that the game is legal.
        """
        if not isinstance(data, dict):
            raise RecordError(_(M.NOT_AN_OBJECT).format(kind=type(data).__name__))
        if data.get("format") != FORMAT:
            found = data.get("format")
            raise RecordError(_(M.NOT_A_RECORD).format(format=repr(FORMAT), found=repr(found)))
        version = data.get("version")
        if version != VERSION or isinstance(version, bool):
            raise RecordError(_(M.UNSUPPORTED_VERSION).format(version=repr(version), supported=VERSION))
        missing = [name for name in FIELDS if name not in data]
        if missing:
            raise RecordError(_(M.MISSING_FIELDS).format(fields=", ".join(map(repr, missing))))
        game = data["game"]
        if not isinstance(game, str) or not game:
            raise RecordError(f"'game' must be a game name, not {game!r}")
        options = data["options"]
        if not isinstance(options, dict):
            raise RecordError(f"'options' must be an object of option values, not {options!r}")
        seed = data["seed"]
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RecordError(f"'seed' must be a whole number or null, not {seed!r}")
        start = data["start"]
        if not isinstance(start, str):
            raise RecordError(f"'start' must be a position in SPN, not {start!r}")
        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
            raise RecordError(f"'players' must be a list of agent specs or 'human', not {players!r}")
        moves = data["moves"]
        if not isinstance(moves, list):
            raise RecordError(f"'moves' must be a list of move entries, not {moves!r}")
        for number, entry in enumerate(moves, 1):
            if not isinstance(entry, str):
                raise RecordError(f"move {number}: an entry is text, not {entry!r}", number)
        result = data["result"]
        if result is not None and not (
            isinstance(result, list)
            and all(isinstance(r, int | float) and not isinstance(r, bool) and math.isfinite(r) for r in result)
        ):
            raise RecordError(f"'result' must be a list of numbers (one per seat) or null, not {result!r}")
        created = data["created"]
        if not isinstance(created, str):
            raise RecordError(f"'created' must be a timestamp such as '2025-01-31T12:00:00Z', not {created!r}")
        resigned = data.get("resigned")
        if resigned is not None and (not isinstance(resigned, int) or isinstance(resigned, bool) or resigned < 0):
            raise RecordError(f"'resigned' must be the seat (0-based) that resigned, or null, not {resigned!r}")
        if resigned is not None and result is not None:
            raise RecordError("a resigned game has no 'result' (null): the rules did not finish it")
        from_position = data.get("from_position", False)
        if not isinstance(from_position, bool):
            raise RecordError(f"'from_position' must be true or false, not {from_position!r}")
        hints = data.get("hints")
        if hints is not None:
            hints = _checked_hints(hints, len(players))
        return cls(
            game=game,
            options=dict(options),
            seed=seed,
            start=start,
            players=list(players),
            moves=list(moves),
            result=None if result is None else [float(r) for r in result],
            created=created,
            resigned=resigned,
            from_position=from_position,
            hints=hints,
        )

    @classmethod
    def loads(cls, text: str) -> Record:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(_(M.NOT_JSON).format(error=error.msg, line=error.lineno, column=error.colno)) from None
        return cls.from_json(data)

    def save(self, path: str | Path) -> Path:
        """Write the record as JSON; returns the path written."""
        target = Path(path)
        target.write_text(self.dumps(), encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record; raises :class:`RecordError` for a malformed file, ``OSError`` if unreadable."""
        try:
            text = Path(path).read_text(encoding="utf-8")
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
        """The starting position, rebuilt from the game, options and seed and checked against ``start``
        (or, for a game ``from_position``, read from ``start`` by the game's rules)."""
        game = self.load_game()
        if len(self.players) != game.num_players:
            raise RecordError(_(M.SEAT_COUNT).format(game=game.name, seats=game.num_players, players=len(self.players)))
        if self.resigned is not None and self.resigned >= game.num_players:
            raise RecordError(
                f"'resigned' is seat {self.resigned} but {game.name} has seats 0 to {game.num_players - 1}"
            )
        if self.from_position:
            return self._set_up_state(game)
        try:
            state = game.new_initial_state(self.seed)
        except ValueError as error:
            raise RecordError(f"cannot start {game.name} with seed {self.seed!r}: {error}") from None
        if state.to_spn() != self.start:
            raise RecordError(
                f"'start' is {self.start!r} but {game.name} with these options and seed {self.seed!r} "
                f"starts at {state.to_spn()!r}"
            )
        return state

    def _set_up_state(self, game: Game) -> State[Any]:
        """The position ``start`` names, checked by the game's rules and written in its own notation."""
        try:
            state = game.state_from_spn(self.start)
        except ValueError as error:
            raise RecordError(f"'start' {self.start!r} is not a position of {game.name}: {error}") from None
        if state.to_spn() != self.start:
            raise RecordError(f"'start' is {self.start!r} but {game.name} writes that position {state.to_spn()!r}")
        return state

    def steps(self, state: State[Any] | None = None) -> Iterator[ReplayStep]:
        """Replay move by move, yielding after each; after the last, the result is checked.

        ``state`` is where to start: :meth:`initial_state` (built here when omitted); it is
        played in place, so every step holds that one state object. Raises
        :class:`RecordError` naming the move number and the problem at the first bad entry.
        """
        return self._steps(self.initial_state() if state is None else state)

    def _steps(self, state: State[Any]) -> Iterator[ReplayStep]:
        for number, entry in enumerate(self.moves, 1):
            player = state.current_player()
            try:
                state.apply_notation(entry)
            except ValueError as error:
                raise RecordError(_(M.MOVE).format(number=number, entry=repr(entry), error=error), number) from None
            yield ReplayStep(number, entry, player, state)
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
        if state.is_terminal():
            returns = [float(r) for r in state.returns()]
            if self.result is None:
                raise RecordError(f"'result' is null but the game is over after {moves} moves with result {returns}")
            if self.result != returns:
                raise RecordError(f"'result' is {self.result} but the moves give {returns}")
        elif self.result is not None:
            raise RecordError(f"'result' is {self.result} but the game is not over after {moves} moves")


def _checked_hints(hints: Any, seats: int) -> list[int]:
    """``hints`` if it is one whole number ≥ 0 per seat; raises :class:`RecordError`."""
    if not (
        isinstance(hints, list)
        and len(hints) == seats
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in hints)
    ):
        raise RecordError(f"'hints' must be the number of hints each of the {seats} seats was given, not {hints!r}")
    return list(hints)


def _resign_problem(state: State[Any], seat: int) -> str:
    if state.is_terminal():
        return "the game is over"
    return f"{state.game.name} has seats 0 to {state.game.num_players - 1}"
