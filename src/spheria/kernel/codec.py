"""How a game's moves become fixed action numbers and its positions flat feature vectors.

The OpenSpiel and PettingZoo adapters both speak in whole-number actions and flat feature
vectors; a :class:`Codec` defines them once per game, in plain Python (no third-party import),
so the two adapters agree and a policy trained through one can be used through the other.
A game offers its codec through its kit (``GameKit.codec``, a factory taking the loaded game);
:func:`codec_for` asks for it, and a game whose kit has none has no codec. A game with a few
fixed moves may subclass :class:`NotationCodec`, which numbers the moves of a list.

Actions
-------
Each game has a fixed table of action numbers, the same in every position. A position's legal
actions are the numbers of its legal moves (``state.legal_moves(player)``, where each distinct
outcome is listed once), in ascending order. Each game's codec module describes its table.

Features
--------
A pyramid game's observation starts with the board, 4 planes of 30 sites (empty, white, black,
red; plane ``p`` of site ``s`` at ``p * 30 + s``, see :func:`board_features`), followed by
named blocks listed in :attr:`Codec.layout`. All values are in ``[0, 1]``. A game of hidden
information builds its features from ``observation(player)`` alone, so they hold nothing that
player may not see, and offers the views of :meth:`Codec.view_features` (OpenSpiel's
observations and information states).

>>> layout = (("board", BOARD_SHAPE), ("to_move", (2,)), ("observer", (2,)))
>>> layout_size(layout)
124
>>> one_hot(1, 3), one_hot(None, 2)
([0.0, 1.0, 0.0], [0.0, 0.0])
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from enum import Enum
from typing import Any, ClassVar

from spheria.engine.board import COLOR_CHARS, NUM_SITES, Board, iter_sites
from spheria.kernel.game import Game, IllegalMoveError, State

#: The board block: planes empty, white, black, red, each over the 30 sites.
BOARD_PLANES = 4
BOARD_SHAPE = (BOARD_PLANES, NUM_SITES)

#: Feature blocks in order, as ``(name, shape)``.
Layout = tuple[tuple[str, tuple[int, ...]], ...]


def layout_size(layout: Layout) -> int:
    """The number of values in a layout."""
    total = 0
    for _, shape in layout:
        size = 1
        for n in shape:
            size *= n
        total += size
    return total


def board_features(board: Board) -> list[float]:
    """The board block: ``values[p * 30 + s]`` is 1 when site ``s`` is in plane ``p``."""
    values = [0.0] * (BOARD_PLANES * NUM_SITES)
    white, black, red = board.masks
    occupied = white | black | red
    for site in range(NUM_SITES):
        if not occupied >> site & 1:
            values[site] = 1.0
    for plane, mask in ((1, white), (2, black), (3, red)):
        for site in iter_sites(mask):
            values[plane * NUM_SITES + site] = 1.0
    return values


def one_hot(index: int | None, size: int) -> list[float]:
    """``size`` zeros with a 1 at ``index`` (all zeros for ``None`` or an index out of range)."""
    values = [0.0] * size
    if index is not None and 0 <= index < size:
        values[index] = 1.0
    return values


def seat_to_move(state: State[Any]) -> int | None:
    """The seat to move, or ``None`` at a simultaneous node or the end."""
    player = state.current_player()
    return player if player >= 0 else None


class Private(Enum):
    """Whose private information a view of a game of hidden information holds
    (OpenSpiel's private-information types)."""

    SEAT = "seat"  # the observing seat's own: its ``observation(player)``
    NONE = "none"  # nobody's: the spectator's ``public_observation()``
    ALL = "all"  # every seat's together


class Codec(ABC):
    """How one game's moves become action numbers and its positions become features.

    A game of perfect information needs :meth:`action_of`, :meth:`decode`, :meth:`action_text`,
    :attr:`layout`, :meth:`features` and :meth:`max_game_length`. A game of hidden information
    also offers its views (:meth:`view_layout`, :meth:`view_features`, :meth:`view_text`),
    built from Spheria's views only, and the rows of their history block (:meth:`history_rows`).
    """

    #: The number of distinct actions (the size of an action mask).
    num_actions: int

    #: The blocks with one value per seat: in an agent-relative frame they start at the observer's seat.
    seat_blocks: ClassVar[frozenset[str]] = frozenset({"to_move", "observer"})

    def __init__(self, game: Game) -> None:
        self.game = game

    # -- actions ----------------------------------------------------------------------------

    @abstractmethod
    def action_of(self, state: State[Any], move: Any) -> int:
        """The number of a legal ``move`` of ``state``."""

    @abstractmethod
    def decode(self, state: State[Any], action: int) -> Any:
        """The move numbered ``action`` in ``state``'s phase; raises ``IllegalMoveError`` off the table."""

    @abstractmethod
    def action_text(self, action: int) -> str:
        """A short text for ``action``, the same in every position."""

    def legal_actions(self, state: State[Any], player: int) -> list[int]:
        """The numbers of ``player``'s legal moves, ascending (empty when it is not their turn)."""
        return sorted(self.action_of(state, move) for move in state.legal_moves(player))

    def legal_move(self, state: State[Any], player: int, action: int) -> Any:
        """The legal move of ``player`` numbered ``action``; raises ``IllegalMoveError`` if it is not legal."""
        if not 0 <= action < self.num_actions:
            raise IllegalMoveError(f"action {action} is not 0..{self.num_actions - 1}")
        move = self.decode(state, action)
        if move not in state.legal_moves(player):
            raise IllegalMoveError(f"action {action} ({self.action_text(action)}) is not legal for seat {player} here")
        return move

    def action_mask(self, state: State[Any], player: int) -> list[int]:
        """1 for each legal action of ``player``, 0 elsewhere."""
        mask = [0] * self.num_actions
        for action in self.legal_actions(state, player):
            mask[action] = 1
        return mask

    def actions_of_entry(self, state: State[Any], entry: str) -> list[int]:
        """The action numbers of one record entry played in ``state``: one, or one per seat for a joint move."""
        return [self.action_of(state, state.parse_move(entry))]

    # -- observations -----------------------------------------------------------------------

    @property
    @abstractmethod
    def layout(self) -> Layout:
        """The feature blocks in order, as ``(name, shape)``."""

    @property
    def feature_size(self) -> int:
        return layout_size(self.layout)

    @abstractmethod
    def features(self, state: State[Any], player: int) -> list[float]:
        """What ``player`` observes now, as :attr:`feature_size` values in ``[0, 1]``."""

    def observation_text(self, state: State[Any], player: int) -> str:
        """What ``player`` observes now, as text: the position's SPN (perfect information)."""
        return state.to_spn()

    def max_game_length(self, start: State[Any] | None = None) -> int:
        """An upper bound on the number of turns (joint moves count once) of a game from ``start``
        (the first position by default)."""
        raise NotImplementedError(f"{self.game.name}'s codec gives no bound on the length of a game")

    # -- the views of a game of hidden information --------------------------------------------

    def history_rows(self, start: State[Any] | None = None) -> int:
        """The rows of the history block of an information state from ``start`` (the first
        position by default): one a turn. 0 for a game whose views keep no history block (a
        game of perfect information: its information state is its record)."""
        return 0

    def view_layout(self, private: Private, rows: int) -> Layout:
        """The blocks of :meth:`view_features` (with a history block of ``rows`` turns if ``rows``)."""
        raise NotImplementedError(self._no_views())

    def view_features(self, state: State[Any], player: int, private: Private, rows: int) -> list[float]:
        """What ``player`` sees (``private`` says whose private information is in it), from
        Spheria's views only; with ``rows``, also the public history as ``rows`` turns."""
        raise NotImplementedError(self._no_views())

    def view_text(self, state: State[Any], player: int, private: Private, rows: int) -> str:
        """:meth:`view_features` as one line of text (with the history if ``rows``)."""
        raise NotImplementedError(self._no_views())

    def _no_views(self) -> str:
        return f"{self.game.name}'s codec offers no views of hidden information (observations built from a seat's view)"


class PerfectInformationCodec(Codec):
    """A pyramid game of perfect information: the board, the game's own blocks, then the seat
    to move and the observing seat."""

    def _extra_layout(self) -> Layout:
        return ()

    def _extra_features(self, state: State[Any]) -> list[float]:
        return []

    @property
    def layout(self) -> Layout:
        seats = self.game.num_players
        return (("board", BOARD_SHAPE), *self._extra_layout(), ("to_move", (seats,)), ("observer", (seats,)))

    def features(self, state: State[Any], player: int) -> list[float]:
        seats = self.game.num_players
        board: Board = state.board  # type: ignore[attr-defined]
        return [
            *board_features(board),
            *self._extra_features(state),
            *one_hot(seat_to_move(state), seats),
            *one_hot(player, seats),
        ]


# -- agent-relative features --------------------------------------------------------------------


def relative_order(game: Game, seat: int) -> list[int]:
    """The colour planes (0 white, 1 black, 2 red) in ``seat``'s frame: its own colour, then
    the colours of the seats after it in turn order, then any other colour. A game whose seats
    have no colour of their own keeps the absolute order."""
    colors = [seat_info.color for seat_info in game.info().seats]
    if colors[seat] is None:
        return [0, 1, 2]
    order: list[int] = []
    seats = len(colors)
    for step in range(seats):
        color = colors[(seat + step) % seats]
        if color is not None and COLOR_CHARS.index(color) not in order:
            order.append(COLOR_CHARS.index(color))
    return order + [c for c in range(3) if c not in order]


def relative_permutation(codec: Codec, seat: int) -> list[int]:
    """The indices that put one seat's features in that seat's frame: ``values[i]`` for each
    ``i`` of the result, in order (see :func:`to_relative`)."""
    order = relative_order(codec.game, seat)
    indices: list[int] = []
    offset = 0
    for name, shape in codec.layout:
        size = layout_size(((name, shape),))
        block = list(range(offset, offset + size))
        if name == "board":
            planes = [block[p * NUM_SITES : (p + 1) * NUM_SITES] for p in range(BOARD_PLANES)]
            block = [*planes[0], *(i for color in order for i in planes[1 + color])]
        elif name in codec.seat_blocks:
            block = block[seat:] + block[:seat]
        indices += block
        offset += size
    return indices


def to_relative(codec: Codec, values: Sequence[float], seat: int) -> list[float]:
    """``values`` (one seat's features) in that seat's frame: board colour planes by
    :func:`relative_order`, every per-seat block (:attr:`Codec.seat_blocks`) rotated to start at ``seat``."""
    return [values[i] for i in relative_permutation(codec, seat)]


# -- a codec from a list of every move's notation ---------------------------------------------


class NotationCodec(Codec):
    """A codec for a game whose moves are few and fixed: a subclass lists every move the game can
    ever write (its options fixed) in :meth:`action_texts`, and action ``i`` is the move written
    ``action_texts()[i]``. Its features are the seat to move and the observing seat; a subclass
    may bound the game's length with :meth:`max_game_length`."""

    #: The length bound of a game that gives none.
    DEFAULT_MAX_LENGTH = 1000

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.texts: list[str] = [str(text) for text in self.action_texts()]
        self.index = {text: i for i, text in enumerate(self.texts)}
        if len(self.index) != len(self.texts):
            raise ValueError(f"{game.name}: action_texts() names a move twice")
        self.num_actions = len(self.texts)

    @abstractmethod
    def action_texts(self) -> Sequence[str]:
        """Every move the game (``self.game``) can ever write, each once: action ``i`` is the ``i``-th."""

    def action_of(self, state: State[Any], move: Any) -> int:
        return self.index[str(move)]

    def decode(self, state: State[Any], action: int) -> Any:
        if not 0 <= action < self.num_actions:
            raise IllegalMoveError(f"action {action} is not 0..{self.num_actions - 1}")
        return state.parse_move(self.texts[action])

    def action_text(self, action: int) -> str:
        return self.texts[action] if 0 <= action < self.num_actions else f"action {action}"

    @property
    def layout(self) -> Layout:
        seats = self.game.num_players
        return (("to_move", (seats,)), ("observer", (seats,)))

    def features(self, state: State[Any], player: int) -> list[float]:
        seats = self.game.num_players
        return [*one_hot(seat_to_move(state), seats), *one_hot(player, seats)]

    def max_game_length(self, start: State[Any] | None = None) -> int:
        return self.DEFAULT_MAX_LENGTH


def offers_codec(game: Game | type[Game]) -> bool:
    """Whether ``game`` (a game or its class) numbers its moves: its kit has a codec."""
    return game.kit().codec is not None


def require_codec(game: Game | type[Game]) -> None:
    """Raise ``ValueError`` naming ``game`` (a game or its class) if it offers no codec."""
    if not offers_codec(game):
        raise ValueError(f"{game.name!r} offers no codec: its kit has none, so its moves have no action numbers")


def codec_for(game: Game) -> Codec:
    """The codec of ``game`` (a loaded Spheria game), from its kit; raises ``ValueError`` naming a
    game that offers none."""
    require_codec(game)
    factory = game.kit().codec
    assert factory is not None
    return factory(game)


__all__ = [
    "BOARD_PLANES",
    "BOARD_SHAPE",
    "Codec",
    "Layout",
    "NotationCodec",
    "PerfectInformationCodec",
    "Private",
    "board_features",
    "codec_for",
    "layout_size",
    "offers_codec",
    "one_hot",
    "relative_order",
    "relative_permutation",
    "require_codec",
    "seat_to_move",
    "to_relative",
]
