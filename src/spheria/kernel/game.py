"""The game API shared by every Spheria game, in the spirit of OpenSpiel's Python games.

A :class:`Game` holds the rules and options and makes :class:`State` objects; a state is
one position with its history. Every game offers the same calls, so agents, records, the
command line and the integrations never need to know which game they drive::

    >>> import spheria
    >>> game = spheria.load_game(spheria.default_game_name())
    >>> state = game.new_initial_state(seed=7)
    >>> state.current_player()
    0
    >>> move = state.legal_moves()[0]
    >>> state.parse_move(str(move)) == move
    True
"""

from __future__ import annotations

import functools
import importlib
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Protocol, TypedDict, TypeVar

from spheria.engine.board import NUM_SITES, SITE_NAMES
from spheria.i18n import gettext as _
from spheria.kernel import messages
from spheria.kernel.kit import EMPTY_KIT, GameKit
from spheria.kernel.options import Option

#: ``current_player()`` of a finished game.
TERMINAL = -4
#: ``current_player()`` of a node where all players choose at once (a secret reveal, say).
SIMULTANEOUS = -2


class MoveError(ValueError):
    """A move refused: either :class:`InvalidMoveError` (not a move of the game at all) or
    :class:`IllegalMoveError` (a move, but not one allowed here). Catch this for both; the
    state is unchanged after either."""


class IllegalMoveError(MoveError):
    """A move of the game that is not legal in the position it was offered to (a taken site,
    the wrong seat's turn, a finished game, no move to take back)."""


class InvalidMoveError(MoveError):
    """Move text (or a move object) that is not written as a move of the game: bad syntax,
    an unknown site, a site named twice, a seat that does not exist."""


def move_text(text: object) -> str:
    """``text`` if it is a string; else :class:`InvalidMoveError` (moves are parsed from text)."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move is written as text such as 0a1, not {text!r}")
    return text


def checked_site(site: object) -> int:
    """``site`` if it is a site number of the pyramid (0..29); else :class:`InvalidMoveError`."""
    if isinstance(site, bool) or not isinstance(site, int) or not 0 <= site < NUM_SITES:
        raise InvalidMoveError(f"site {site!r} is not 0..{NUM_SITES - 1}: not a site of the pyramid")
    return site


#: How a client builds a move by clicks (see :meth:`State.picking_mode`).
PICK_PREFIX = "prefix"  # the tokens of one listed move, in order
PICK_SET = "set"  # the sites of one listed move in any order (the server checks the order)
PICK_RELOCATE = "relocate"  # an optional relocation (source, target), then a placement site

#: Ball colours as one-character codes in descriptions: white, black, red.
SEAT_COLOR_CODES = ("w", "b", "r")


@dataclass(frozen=True)
class Seat:
    """One seat of a game with its options fixed.

    ``color`` is the code of the balls the seat plays (``"w"``, ``"b"``, ``"r"``), or ``None``
    when the seat has no colour of its own; ``side`` is the scored side the seat plays for (its
    team, in a game of teams; else the seat itself).
    """

    name: str
    color: str | None
    side: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "color": self.color, "side": self.side}


@dataclass(frozen=True)
class GameInfo:
    """Every fact about a game with its options fixed, in one place (see :meth:`Game.info`).

    Integrations, the server's catalogue, ``spheria games`` and the lobby derive what they
    show from this; :meth:`to_json` is its JSON form.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    num_players: int
    seats: tuple[Seat, ...]
    sides: tuple[str, ...]
    simultaneous: bool
    perfect_information: bool
    chance: bool
    zero_sum: bool
    picking_modes: tuple[str, ...]
    options: tuple[Option, ...]
    values: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "num_players": self.num_players,
            "seats": [seat.to_json() for seat in self.seats],
            "sides": list(self.sides),
            "simultaneous": self.simultaneous,
            "perfect_information": self.perfect_information,
            "chance": self.chance,
            "zero_sum": self.zero_sum,
            "picking_modes": list(self.picking_modes),
            "options": [spec.describe(self.values.get(spec.name)) for spec in self.options],
        }


#: The kit of each game class, once loaded.
_KITS: dict[type[Game], GameKit] = {}


def _load_kit(module: str) -> GameKit:
    """``KIT`` of the ``kit`` module beside ``module``; the empty kit where there is none."""
    package = module.rpartition(".")[0]
    if not package:
        return EMPTY_KIT
    try:
        found = importlib.import_module(f"{package}.kit")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.kit":
            raise  # the kit is there but imports something missing: say so
        return EMPTY_KIT
    kit = getattr(found, "KIT", EMPTY_KIT)
    if not isinstance(kit, GameKit):
        raise TypeError(f"{package}.kit.KIT must be a GameKit, not {kit!r}")
    return kit


#: A field of :attr:`Game.board_fields` whose value is ``-`` or the site of one ball of the board.
A_BALL_SITE = "<a ball's site>"


class Game(ABC):
    """The rules of one game with its options fixed.

    A game module declares its facts as class attributes (``name``, ``title``, the seat
    range, ``simultaneous``, ``perfect_information``, ``option_specs``, ``picking_modes``)
    and the ones that depend on options as methods (``num_players``, ``player_names``,
    ``seat_colors``, ``seat_sides``, ``side_names``, ``chance``, ``zero_sum``);
    :meth:`info` gathers them all.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    option_specs: ClassVar[tuple[Option, ...]] = ()
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    #: Whether some nodes have every seat choose at once (``SIMULTANEOUS``).
    simultaneous: ClassVar[bool] = False
    #: Whether every seat sees the whole state (else ``observation`` hides something).
    perfect_information: ClassVar[bool] = True
    #: Every picking mode a state of this game may report (:meth:`State.picking_mode`).
    picking_modes: ClassVar[tuple[str, ...]] = (PICK_PREFIX,)
    #: Whether Spheria offers this game first (the pages' default game, the examples of the help).
    featured: ClassVar[bool] = False
    #: Why no agent plays this game (an ``N_``-marked sentence: a game whose rules set the players
    #: no goal, say); ``None``: agents may play it. Every agent's fit check then refuses it, saying this.
    why_no_agents: ClassVar[str | None] = None
    #: The values each SPN field after the board may take when a board is read as one of this
    #: game's positions (:meth:`read_board`); a field of :data:`A_BALL_SITE` is ``-`` or the site
    #: of one ball of the board. Empty: this game reads no board of its own accord.
    board_fields: ClassVar[tuple[tuple[str, ...], ...]] = ()
    #: Whether this game's boards are set up freely (no rule but the set's physics), so that the
    #: pages offer to open its positions as those of the games that read them (:meth:`read_board`).
    free_board: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        specs = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            known = ", ".join(specs) or _(messages.OPTION_NONE)
            named = ", ".join(map(repr, unknown))
            raise ValueError(_(messages.OPTION_UNKNOWN).format(game=self.name, option=named, options=known))
        self._options: dict[str, Any] = {
            name: spec.parse(options[name]) if name in options and options[name] is not None else spec.default
            for name, spec in specs.items()
        }
        self._resolve_options()

    def _resolve_options(self) -> None:  # noqa: B027  (optional hook)
        """Fill option defaults that depend on other options (in ``self._options``), and check
        combinations. The only place after ``__init__``'s parsing that writes an option."""

    @property
    def options(self) -> Mapping[str, Any]:
        """The option values, fixed when the game was loaded: a read-only view (assigning to it
        raises ``TypeError``). Other options make another game: ``load_game(name, **options)``.

        >>> import spheria
        >>> game = spheria.load_game(spheria.default_game_name())
        >>> game.options["seats"] = 4
        Traceback (most recent call last):
        ...
        TypeError: 'mappingproxy' object does not support item assignment
        """
        return MappingProxyType(self._options)

    @property
    def num_players(self) -> int:
        """The number of seats with these options (``min_players`` unless a game overrides it)."""
        return self.min_players

    @abstractmethod
    def player_names(self) -> list[str]:
        """Display names of the seats, in seat order."""

    def seat_colors(self) -> list[str | None]:
        """Each seat's ball colour code (``"w"``, ``"b"``, ``"r"``), or ``None`` where a seat has
        none of its own. Default: seat ``i`` plays colour ``i``."""
        return [SEAT_COLOR_CODES[seat] for seat in range(self.num_players)]

    def seat_sides(self) -> list[int]:
        """The scored side of each seat (teams share one); default: each seat is its own side."""
        return list(range(self.num_players))

    def side_names(self) -> list[str]:
        """The names of the scored sides, in side order; default: the seat names."""
        return self.player_names()

    @property
    def chance(self) -> bool:
        """Whether the rules leave something to chance with these options (``seed`` fixes it)."""
        return False

    @property
    def zero_sum(self) -> bool:
        """Whether the returns of every finished game add up to 0 with these options."""
        return True

    def info(self) -> GameInfo:
        """Every fact about this game with its options, in one :class:`GameInfo`."""
        colors, sides = self.seat_colors(), self.seat_sides()
        return GameInfo(
            name=self.name,
            title=self.title,
            min_players=self.min_players,
            max_players=self.max_players,
            num_players=self.num_players,
            seats=tuple(Seat(name, colors[seat], sides[seat]) for seat, name in enumerate(self.player_names())),
            sides=tuple(self.side_names()),
            simultaneous=self.simultaneous,
            perfect_information=self.perfect_information,
            chance=self.chance,
            zero_sum=self.zero_sum,
            picking_modes=self.picking_modes,
            options=self.option_specs,
            values=dict(self.options),
        )

    @classmethod
    def kit(cls) -> GameKit:
        """What this game offers beyond its rules (:class:`~spheria.kernel.kit.GameKit`).

        A game's package declares it as ``KIT`` in its ``kit`` module, beside the module of the
        game class (``spheria.games.<game>.kit``). It is loaded on first use, so the rules load
        without the game's agents, solvers and commands, and the rules never import it. A game
        whose package has no ``kit`` module offers nothing (:data:`~spheria.kernel.kit.EMPTY_KIT`).
        """
        kit = _KITS.get(cls)
        if kit is None:
            kit = _KITS[cls] = _load_kit(cls.__module__)
        return kit

    def describe(self) -> dict[str, Any]:
        """:meth:`info` as JSON-ready data."""
        return self.info().to_json()

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State[Any]:
        """A new game; ``seed`` fixes anything the rules leave to chance."""

    @abstractmethod
    def state_from_spn(self, text: str) -> State[Any]:
        """A state from position notation; raises ``ValueError`` naming the problem."""

    def read_board(self, board: str) -> State[Any] | None:
        """The first position of this game (in the order of :attr:`board_fields`) with ``board``
        (SPN's board field) that its rules accept, or ``None``: whether a board set up freely is
        one of this game's positions, asked of the game's own SPN reading."""
        if not self.board_fields:
            return None
        try:
            balls = [SITE_NAMES[s] for s, char in enumerate(board.replace("/", "")) if char != "."]
        except IndexError:
            return None
        choices = [("-", *balls) if field == (A_BALL_SITE,) else field for field in self.board_fields]
        for fields in itertools.product(*choices):
            try:
                return self.state_from_spn(" ".join((board, *fields)))
            except ValueError:
                continue
        return None

    def spn_fields(self, text: object) -> list[str]:
        """The blank-separated fields of position notation; ``TypeError`` if ``text`` is not a string."""
        if not isinstance(text, str):
            raise TypeError(f"{self.title} position notation is text, not {text!r}")
        return text.split()

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"load_game({self.name!r}{', ' if opts else ''}{opts})"


M = TypeVar("M")


class Observation(TypedDict):
    """The fields every game's observation holds (each game's own type adds to them).

    ``board`` is the board part of SPN (``w``/``b``/``r``/``.`` by site, levels split by ``/``)
    in every game; ``player`` is the seat the observation is for, ``None`` for a spectator.
    """

    game: str
    board: str
    current_player: int
    player: int | None


class PerfectObservation(Observation):
    """A perfect-information game's observation: everything, with the whole SPN and history."""

    spn: str
    history: list[str]


class HiddenPublicObservation(Observation):
    """The default spectator's view of a hidden-information game: only what is public by construction."""

    history: list[str]


@dataclass(frozen=True)
class Revealed:
    """What a reveal just showed: each seat's ball (``"w"``, ``"b"``, ``"r"``, seat order) and
    the seat that won it (``None`` when nobody did). Public once resolved."""

    colors: tuple[str, ...]
    winner: int | None

    @property
    def stunned(self) -> bool:
        """Every seat showed the same colour: the balls are stunned and nobody won."""
        return len(set(self.colors)) == 1


@dataclass(frozen=True)
class ResultReason:
    """Why a finished game ended as it did: a ``code`` the game names (``"last_candy"``,
    ``"group"``) and its ``params``, JSON-ready (seats by number, colours by code, sizes), which
    every interface words in its own language. ``to_json`` gives ``{"code": ..., **params}``."""

    code: str
    params: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, **self.params}


class PlayerView(Protocol):
    """The calls an agent may make on what it is shown."""

    def current_player(self) -> int: ...

    def legal_moves(self, player: int | None = None) -> list[Any]: ...

    def observation(self, player: int) -> Mapping[str, Any]: ...


#: What ``undo`` on a position without history raises (an :class:`IllegalMoveError`).
NO_MOVE_TO_UNDO = "no move to take back: the game is at its start"


def _refusing_empty_history(undo: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``undo`` that refuses a state with no history with :class:`IllegalMoveError`, not ``IndexError``."""

    @functools.wraps(undo)
    def checked(self: State[Any]) -> Any:
        if not self._history:
            raise IllegalMoveError(NO_MOVE_TO_UNDO)
        return undo(self)

    return checked


class State(ABC, Generic[M]):
    """One position of a game, with the moves that led to it.

    Only :meth:`apply`, :meth:`apply_joint` and :meth:`undo` change a state; every refusal is a
    :class:`MoveError` and leaves the state as it was. The moves played are :attr:`history`, a
    tuple: a game keeps them in its private ``_history`` list, which nothing else touches.
    """

    game: Game
    seed: int | None
    _history: list[M]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "undo" in cls.__dict__:
            cls.undo = _refusing_empty_history(cls.__dict__["undo"])  # type: ignore[method-assign,assignment]

    @property
    def history(self) -> tuple[M, ...]:
        """The moves played from the first position, oldest first.

        A tuple made when asked: playing on (or taking back) does not change one already handed out.
        """
        return tuple(self._history)

    @abstractmethod
    def current_player(self) -> int:
        """The seat to move (0-based), ``SIMULTANEOUS`` or ``TERMINAL``."""

    @abstractmethod
    def legal_moves(self, player: int | None = None) -> list[M]:
        """The legal moves, each distinct outcome once; empty when the game is over."""

    @abstractmethod
    def apply(self, move: M) -> None:
        """Play a move in place; raises :class:`MoveError` naming the problem and changes nothing
        if ``move`` is not a move of the game (:class:`InvalidMoveError`) or not legal here
        (:class:`IllegalMoveError`)."""

    @abstractmethod
    def undo(self) -> M:
        """Take back the last move and return it; :class:`IllegalMoveError` (state unchanged) when
        there is no move to take back. Every game's ``undo`` gets that check from this class."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def returns(self) -> list[float]:
        """+1 for a win, -1 for a loss, 0 for a draw, per seat; all 0 before the end."""

    @abstractmethod
    def clone(self) -> State[M]: ...

    @abstractmethod
    def to_spn(self) -> str: ...

    @abstractmethod
    def parse_move(self, text: str, player: int | None = None) -> M:
        """The legal move written as ``text`` (for seat ``player`` at a simultaneous node).

        Raises :class:`InvalidMoveError` if ``text`` is not written as a move of the game,
        :class:`IllegalMoveError` if that move is not legal here; the state is left unchanged.
        """

    def check_seat(self, player: object) -> int:
        """``player`` if it is a seat of this game; else :class:`InvalidMoveError` naming it."""
        seats = self.game.num_players
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < seats:
            raise InvalidMoveError(f"{self.game.title} has seats 0..{seats - 1}; there is no seat {player!r}")
        return player

    def check_turn(self, player: int | None) -> None:
        """Refuse a move for ``player`` (when given) unless that seat is to move now."""
        if player is None:
            return
        self.check_seat(player)
        if self.is_terminal():
            raise IllegalMoveError("the game is over")
        to_move = self.current_player()
        if to_move >= 0 and player != to_move:
            names = self.game.player_names()
            raise IllegalMoveError(f"it is {names[to_move]}'s turn, not {names[player]}'s")

    def apply_joint(self, moves: Sequence[M]) -> None:
        """Resolve a ``SIMULTANEOUS`` node with one move per seat, in seat order."""
        raise IllegalMoveError(f"{self.game.name} has no simultaneous moves")

    def view(self, player: int) -> PlayerView:
        """What an agent in seat ``player`` may decide from. Perfect information: the state itself.

        Games with hidden information return an object built from ``observation(player)``
        alone, so an agent handed it cannot peek.
        """
        self.check_seat(player)
        return self

    def child(self, move: M) -> State[M]:
        """A new state with ``move`` played; this one is left as it is."""
        state = self.clone()
        state.apply(move)
        return state

    def winners(self) -> list[int]:
        """The seats that won (empty on a draw or before the end)."""
        return [p for p, r in enumerate(self.returns()) if r > 0]

    def status_lines(self, player: int | None = None) -> list[str]:
        """Short lines an interface shows beside the board (phase, scores, supplies).

        Only what seat ``player`` may know; ``None`` means a spectator.
        """
        return []

    def picking_mode(self) -> str:
        """How a client builds a move here by clicks: one of the game's ``picking_modes``
        (``PICK_PREFIX``, ``PICK_SET`` or ``PICK_RELOCATE``)."""
        return self.game.picking_modes[0]

    def placing_color(self, player: int) -> str | None:
        """The colour code of the ball seat ``player`` would place now (``"w"``, ``"b"``,
        ``"r"``), or ``None`` when it places none now. Default: the seat's own colour until
        the game is over."""
        color = self.game.seat_colors()[self.check_seat(player)]
        return None if self.is_terminal() else color

    def phase_name(self) -> str | None:
        """The name of the game's phase now (such as ``"place"``), for an interface to word the
        state of play; ``None`` in a game without phases."""
        return None

    def last_reveal(self) -> Revealed | None:
        """What the move just played revealed of the seats' secret choices, or ``None`` when it
        revealed nothing. Default: no move reveals anything."""
        return None

    def result_mask(self) -> int:
        """The sites a finished game's result points at (a winning line, a deciding group), as
        a mask of sites; ``0`` when it points at none. Default: none."""
        return 0

    def result_reason(self) -> ResultReason | None:
        """Why the finished game ended as it did, as a code with parameters (the terminal and the
        pages word it); ``None`` before the end, or where the game gives no reason. Default: none."""
        return None

    def move_hint(self, player: int | None = None) -> str:
        """How to write a move here, for interfaces that ask a person for one."""
        moves = self.legal_moves(player)
        return "a move such as " + (str(moves[0]) if moves else "-")

    # -- records: every state can be replayed from text entries ---------------------------

    def notation(self, move: M) -> str:
        """The record entry of ``move`` (its notation); :class:`InvalidMoveError` naming ``move``
        when it names no real site, colour or seat (a move object built by hand that no
        position of any game allows)."""
        try:
            return str(move)
        except (LookupError, TypeError):
            raise InvalidMoveError(f"{move!r} is not a move of {self.game.title}: it cannot be written") from None

    def apply_notation(self, text: str) -> None:
        """Play one record entry; raises :class:`MoveError` if it is not a legal move here."""
        self.apply(self.parse_move(text))

    def history_notation(self) -> list[str]:
        """The record entries of the moves played, oldest first."""
        return [str(m) for m in self._history]

    def observation(self, player: int) -> Observation:
        """What ``player`` may see, as JSON-ready data. Perfect-information games show all
        (a :class:`PerfectObservation`); games with hidden information override this."""
        self.check_seat(player)
        return self._perfect_observation(player)

    def _perfect_observation(self, player: int | None) -> PerfectObservation:
        spn = self.to_spn()
        return {
            "game": self.game.name,
            "board": spn.split()[0],
            "spn": spn,
            "current_player": self.current_player(),
            "history": self.history_notation(),
            "player": player,
        }

    def public_observation(self) -> Observation:
        """What a spectator may see: nothing private to any seat.

        Perfect information: everything. Otherwise only what is public by construction — the
        board (SPN's first field), whose turn it is and the moves played — unless the game
        overrides this with a richer public view.
        """
        if self.game.perfect_information:
            view = self.observation(0)
            view["player"] = None
            return view
        public: HiddenPublicObservation = {
            "game": self.game.name,
            "board": self.to_spn().split()[0],
            "current_player": self.current_player(),
            "history": self.history_notation(),
            "player": None,
        }
        return public
