"""The game API shared by every Spheria game, in the spirit of OpenSpiel's Python games.

A :class:`Game` holds the rules and options and makes :class:`State` objects; a state is
one position with its history. Every game offers the same calls, so agents, records, the
command line and the integrations never need to know which game they drive::

    >>> import spheria
    >>> game = spheria.load_game("special-cake", variant="sugar")
    >>> state = game.new_initial_state(seed=7)
    >>> state.current_player()
    0
    >>> move = state.legal_moves()[0]
    >>> state.parse_move(str(move)) == move
    True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

#: ``current_player()`` of a finished game.
TERMINAL = -4
#: ``current_player()`` of a node where all players choose at once (Spagyric's reveals).
SIMULTANEOUS = -2


class IllegalMoveError(ValueError):
    """A move that is malformed, or not legal in the position it was offered to."""


@dataclass(frozen=True)
class Option:
    """One game option: its name, allowed values, default and a line of help."""

    name: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    kind: type = str
    minimum: int | None = None

    def parse(self, value: Any) -> Any:
        """Convert a value (possibly a string from a command line or URL) and check it."""
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"option {self.name!r} takes true or false, not {value!r}")
        if self.kind is int:
            if isinstance(value, bool):
                raise ValueError(f"option {self.name!r} takes a whole number, not {value!r}")
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"option {self.name!r} takes a whole number, not {value!r}") from None
            if self.minimum is not None and number < self.minimum:
                raise ValueError(f"option {self.name!r} must be at least {self.minimum}, not {number}")
            if self.choices and str(number) not in self.choices:
                raise ValueError(f"option {self.name!r} must be one of {', '.join(self.choices)}; got {value!r}")
            return number
        text = str(value).strip().lower()
        if self.choices and text not in self.choices:
            raise ValueError(f"option {self.name!r} must be one of {', '.join(self.choices)}; got {value!r}")
        return text


class Game(ABC):
    """The rules of one game with its options fixed."""

    name: ClassVar[str]
    title: ClassVar[str]
    option_specs: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, **options: Any) -> None:
        specs = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise ValueError(f"{self.name} has no option {', '.join(map(repr, unknown))} (options: {known})")
        self.options: dict[str, Any] = {
            name: spec.parse(options[name]) if name in options and options[name] is not None else spec.default
            for name, spec in specs.items()
        }
        self._resolve_options()

    def _resolve_options(self) -> None:  # noqa: B027  (optional hook)
        """Fill option defaults that depend on other options, and check combinations."""

    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @abstractmethod
    def player_names(self) -> list[str]:
        """Display names of the seats, in seat order."""

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State[Any]:
        """A new game; ``seed`` fixes anything the rules leave to chance."""

    @abstractmethod
    def state_from_spn(self, text: str) -> State[Any]:
        """A state from position notation; raises ``ValueError`` naming the problem."""

    @property
    def perfect_information(self) -> bool:
        return True

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"load_game({self.name!r}{', ' if opts else ''}{opts})"


M = TypeVar("M")


class PlayerView(Protocol):
    """The calls an agent may make on what it is shown."""

    def current_player(self) -> int: ...

    def legal_moves(self, player: int | None = None) -> list[Any]: ...

    def observation(self, player: int) -> dict[str, Any]: ...


class State(ABC, Generic[M]):
    """One position of a game, with the moves that led to it."""

    game: Game
    seed: int | None
    history: list[M]

    @abstractmethod
    def current_player(self) -> int:
        """The seat to move (0-based), ``SIMULTANEOUS`` or ``TERMINAL``."""

    @abstractmethod
    def legal_moves(self, player: int | None = None) -> list[M]:
        """The legal moves, each distinct outcome once; empty when the game is over."""

    @abstractmethod
    def apply(self, move: M) -> None:
        """Play a move in place; raises :class:`IllegalMoveError` and changes nothing if illegal."""

    @abstractmethod
    def undo(self) -> M:
        """Take back the last move and return it."""

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

        Raises :class:`IllegalMoveError` naming the problem; the state is left unchanged.
        """

    def apply_joint(self, moves: Sequence[M]) -> None:
        """Resolve a ``SIMULTANEOUS`` node with one move per seat, in seat order."""
        raise IllegalMoveError(f"{self.game.name} has no simultaneous moves")

    def view(self, player: int) -> PlayerView:
        """What an agent in seat ``player`` may decide from. Perfect information: the state itself.

        Games with hidden information return an object built from ``observation(player)``
        alone, so an agent handed it cannot peek.
        """
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

    def move_hint(self, player: int | None = None) -> str:
        """How to write a move here, for interfaces that ask a person for one."""
        moves = self.legal_moves(player)
        return "a move such as " + (str(moves[0]) if moves else "-")

    # -- records: every state can be replayed from text entries ---------------------------

    def notation(self, move: M) -> str:
        """The record entry of ``move`` (its notation)."""
        return str(move)

    def apply_notation(self, text: str) -> None:
        """Play one record entry; raises :class:`IllegalMoveError` if it is not legal here."""
        self.apply(self.parse_move(text))

    def history_notation(self) -> list[str]:
        return [str(m) for m in self.history]

    def observation(self, player: int) -> dict[str, Any]:
        """What ``player`` may see, as JSON-ready data. Perfect-information games show all."""
        return {
            "game": self.game.name,
            "spn": self.to_spn(),
            "current_player": self.current_player(),
            "history": self.history_notation(),
            "player": player,
        }

    def public_observation(self) -> dict[str, Any]:
        """What a spectator may see: nothing private to any seat.

        Perfect information: everything. Otherwise only what is public by construction — the
        board (SPN's first field), whose turn it is and the moves played — unless the game
        overrides this with a richer public view.
        """
        if self.game.perfect_information:
            view = self.observation(0)
            view["player"] = None
            return view
        return {
            "game": self.game.name,
            "board": self.to_spn().split()[0],
            "current_player": self.current_player(),
            "history": self.history_notation(),
            "player": None,
        }


_REGISTRY: dict[str, type[Game]] = {}


def register(game_class: type[Game]) -> type[Game]:
    """Class decorator: make a game loadable by its name."""
    _REGISTRY[game_class.name] = game_class
    return game_class


def game_names() -> list[str]:
    _load_builtin_games()
    return sorted(_REGISTRY)


def game_class(name: str) -> type[Game]:
    _load_builtin_games()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (games: {', '.join(sorted(_REGISTRY))})") from None


def load_game(name: str, **options: Any) -> Game:
    """The game called ``name`` with ``options``; raises ``ValueError`` for an unknown name or option.

    >>> load_game("special-cake", variant="poisoned").options["line_rule"]
    'mixed'
    """
    return game_class(name)(**options)


def _load_builtin_games() -> None:
    # Imported here, not at the top: each game module imports this one and registers itself.
    from spheria.games import (
        spagyric,  # noqa: F401
        special_cake,  # noqa: F401
        spinca,  # noqa: F401
        spline,  # noqa: F401
    )


def options_from_pairs(pairs: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """Turn ``["variant=mint", "line_rule=any"]`` into a dict; raises ``ValueError`` on a bad pair."""
    if isinstance(pairs, Mapping):
        return dict(pairs)
    result = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"option {pair!r} must be written name=value")
        result[key.strip().replace("-", "_")] = value.strip()
    return result
