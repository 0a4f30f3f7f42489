"""Fixed action numbers and observation features for every Spheria game.

The OpenSpiel and PettingZoo adapters both speak in whole-number actions and flat feature
vectors; this module defines them once, in plain Python (no third-party import), so the two
adapters agree and a policy trained through one can be used through the other.

Actions
-------
Each game has a fixed table of action numbers, the same in every position. A position's
legal actions are the numbers of its legal moves (``state.legal_moves(player)``, where each
distinct outcome is listed once), in ascending order.

* **Special Cake** — 792 actions. ``0..29``: place a candy on site ``a`` (set-up phase);
  ``30..59``: eat the single candy on site ``a - 30``; ``60..791``: eat a line in one order,
  an index into :data:`CAKE_LINE_ORDERS` (every ordering of every one of the 150 nameable
  lines of ``board.SEGMENTS``: 96 of 2 sites, 42 of 3, 12 of 4). Of the orders that leave the
  same position only the one Spheria lists is legal.
* **Spinca** — 3973 actions: ``relocation * 29 + placement``. ``relocation`` is 0 for none,
  else ``1 +`` the index into :data:`SPINCA_RELOCATIONS` (the 136 ``(from, to)`` pairs of
  neighbouring temple sites on one level); ``placement`` is the site ``0..28``.
* **Spline** — 30 actions: the site.
* **Spagyric** — 33 actions: ``0, 1, 2`` choose white, black or red at a reveal;
  ``3 + site`` places the won ball on ``site``.

Features
--------
Every game's observation starts with the board, 4 planes of 30 sites (empty, white, black,
red; plane ``p`` of site ``s`` at ``p * 30 + s``), followed by named blocks listed in
:attr:`Codec.layout`. All values are in ``[0, 1]``. Spagyric's are built from
``observation(player)`` alone, so they hold nothing that player may not see.

>>> import spheria
>>> codec = codec_for(spheria.load_game("spline"))
>>> state = codec.game.new_initial_state()
>>> codec.legal_actions(state, 0)[:3], codec.action_text(5)
([0, 1, 2], '0b2')
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from spheria.engine.board import ADJACENT, COLOR_CHARS, NUM_SITES, SEGMENTS, SITE_NAMES, TOP, Board, iter_sites
from spheria.games.base import Game, IllegalMoveError, State

#: The board block: planes empty, white, black, red, each over the 30 sites.
BOARD_PLANES = 4
BOARD_SHAPE = (BOARD_PLANES, NUM_SITES)

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


def _seat_to_move(state: State[Any]) -> int | None:
    player = state.current_player()
    return player if player >= 0 else None


class Codec(ABC):
    """How one game's moves become action numbers and its positions become features."""

    #: The number of distinct actions (the size of an action mask).
    num_actions: int

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

    # -- observations -----------------------------------------------------------------------

    @property
    @abstractmethod
    def layout(self) -> Layout:
        """The feature blocks in order, as ``(name, shape)``; the board block comes first."""

    @property
    def feature_size(self) -> int:
        return layout_size(self.layout)

    @abstractmethod
    def features(self, state: State[Any], player: int) -> list[float]:
        """What ``player`` observes now, as :attr:`feature_size` values in ``[0, 1]``."""

    def observation_text(self, state: State[Any], player: int) -> str:
        """What ``player`` observes now, as text: the position's SPN (perfect information)."""
        return state.to_spn()

    def max_game_length(self) -> int:
        """An upper bound on the number of turns (joint moves count once) of a game."""
        raise NotImplementedError


class _PerfectInformationCodec(Codec):
    """Board, per-game blocks, then the seat to move and the observing seat."""

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
            *one_hot(_seat_to_move(state), seats),
            *one_hot(player, seats),
        ]


# -- Special Cake ---------------------------------------------------------------------------

CAKE_PLACE_BASE = 0
CAKE_EAT_BASE = NUM_SITES
CAKE_LINE_BASE = 2 * NUM_SITES
#: Every order of eating every nameable line: action ``CAKE_LINE_BASE + i`` eats ``CAKE_LINE_ORDERS[i]``.
CAKE_LINE_ORDERS: tuple[tuple[int, ...], ...] = tuple(
    order for segment in SEGMENTS for order in itertools.permutations(segment)
)
_CAKE_LINE_INDEX: dict[tuple[int, ...], int] = {order: i for i, order in enumerate(CAKE_LINE_ORDERS)}
assert len(_CAKE_LINE_INDEX) == len(CAKE_LINE_ORDERS), "two lines share an eating order"
CAKE_ACTIONS = CAKE_LINE_BASE + len(CAKE_LINE_ORDERS)


class SpecialCakeCodec(_PerfectInformationCodec):
    num_actions = CAKE_ACTIONS

    def _placing(self, state: State[Any]) -> bool:
        return str(state.phase) == "place"  # type: ignore[attr-defined]

    def action_of(self, state: State[Any], move: Any) -> int:
        sites: tuple[int, ...] = move.sites
        if len(sites) == 1:
            return (CAKE_PLACE_BASE if self._placing(state) else CAKE_EAT_BASE) + sites[0]
        return CAKE_LINE_BASE + _CAKE_LINE_INDEX[sites]

    def decode(self, state: State[Any], action: int) -> Any:
        from spheria.games.special_cake import CakeMove

        placing = self._placing(state)
        if CAKE_PLACE_BASE <= action < CAKE_EAT_BASE:
            if not placing:
                raise IllegalMoveError(f"{self.action_text(action)}: candies are eaten now, not placed")
            return CakeMove((action - CAKE_PLACE_BASE,))
        if placing:
            raise IllegalMoveError(f"{self.action_text(action)}: the cake is still being built")
        if CAKE_EAT_BASE <= action < CAKE_LINE_BASE:
            return CakeMove((action - CAKE_EAT_BASE,))
        if CAKE_LINE_BASE <= action < CAKE_ACTIONS:
            return CakeMove(CAKE_LINE_ORDERS[action - CAKE_LINE_BASE])
        raise IllegalMoveError(f"action {action} is not 0..{CAKE_ACTIONS - 1}")

    def action_text(self, action: int) -> str:
        if CAKE_PLACE_BASE <= action < CAKE_EAT_BASE:
            return f"place {SITE_NAMES[action - CAKE_PLACE_BASE]}"
        if CAKE_EAT_BASE <= action < CAKE_LINE_BASE:
            return f"eat {SITE_NAMES[action - CAKE_EAT_BASE]}"
        if CAKE_LINE_BASE <= action < CAKE_ACTIONS:
            return "eat " + "+".join(SITE_NAMES[s] for s in CAKE_LINE_ORDERS[action - CAKE_LINE_BASE])
        return f"action {action}"

    def _extra_layout(self) -> Layout:
        return (("phase", (2,)),)

    def _extra_features(self, state: State[Any]) -> list[float]:
        return [1.0, 0.0] if self._placing(state) else [0.0, 1.0]

    def max_game_length(self) -> int:
        placements = {"mint": 30, "poisoned": 29, "sugar": 0}[str(self.game.options["variant"])]
        return placements + NUM_SITES  # at most one eat per candy


# -- Spinca ---------------------------------------------------------------------------------

SPINCA_SITES = TOP  # placements and relocations use the 29 temple sites 0..28
#: Every relocation ``(from, to)``: neighbouring temple sites of one level, by source then target.
SPINCA_RELOCATIONS: tuple[tuple[int, int], ...] = tuple(
    (source, target) for source in range(SPINCA_SITES) for target in iter_sites(ADJACENT[source]) if target < TOP
)
_SPINCA_RELOCATION_INDEX = {pair: i + 1 for i, pair in enumerate(SPINCA_RELOCATIONS)}
SPINCA_ACTIONS = (len(SPINCA_RELOCATIONS) + 1) * SPINCA_SITES


class SpincaCodec(_PerfectInformationCodec):
    num_actions = SPINCA_ACTIONS

    def action_of(self, state: State[Any], move: Any) -> int:
        relocation = 0 if move.source is None else _SPINCA_RELOCATION_INDEX[(move.source, move.target)]
        return relocation * SPINCA_SITES + int(move.place)

    def decode(self, state: State[Any], action: int) -> Any:
        from spheria.games.spinca import SpincaMove

        if not 0 <= action < SPINCA_ACTIONS:
            raise IllegalMoveError(f"action {action} is not 0..{SPINCA_ACTIONS - 1}")
        relocation, place = divmod(action, SPINCA_SITES)
        if relocation == 0:
            return SpincaMove(place)
        source, target = SPINCA_RELOCATIONS[relocation - 1]
        return SpincaMove(place, source, target)

    def action_text(self, action: int) -> str:
        if not 0 <= action < SPINCA_ACTIONS:
            return f"action {action}"
        relocation, place = divmod(action, SPINCA_SITES)
        if relocation == 0:
            return SITE_NAMES[place]
        source, target = SPINCA_RELOCATIONS[relocation - 1]
        return f"{SITE_NAMES[source]}-{SITE_NAMES[target]} {SITE_NAMES[place]}"

    def _extra_layout(self) -> Layout:
        return (("locked", (NUM_SITES,)),)

    def _extra_features(self, state: State[Any]) -> list[float]:
        locked: int = state.locked  # type: ignore[attr-defined]
        return [float(locked >> site & 1) for site in range(NUM_SITES)]

    def max_game_length(self) -> int:
        return SPINCA_SITES  # one placement a turn, 29 placements


# -- Spline ---------------------------------------------------------------------------------


class SplineCodec(_PerfectInformationCodec):
    num_actions = NUM_SITES

    def action_of(self, state: State[Any], move: Any) -> int:
        return int(move.site)

    def decode(self, state: State[Any], action: int) -> Any:
        from spheria.games.spline import MOVES

        if not 0 <= action < NUM_SITES:
            raise IllegalMoveError(f"action {action} is not 0..{NUM_SITES - 1}")
        return MOVES[action]

    def action_text(self, action: int) -> str:
        return SITE_NAMES[action] if 0 <= action < NUM_SITES else f"action {action}"

    def max_game_length(self) -> int:
        return NUM_SITES


# -- Spagyric -------------------------------------------------------------------------------

SPAGYRIC_PLACE_BASE = 3
SPAGYRIC_ACTIONS = SPAGYRIC_PLACE_BASE + NUM_SITES
SPAGYRIC_PHASES = ("reveal", "place", "sudden", "over")
#: One history entry in an information-state tensor: a reveal (3 x 3 colours) or a placement (30 sites).
SPAGYRIC_HISTORY_ENTRY = 9 + NUM_SITES


def spagyric_max_length(supply: int) -> int:
    """An upper bound on a Spagyric game's turns (a reveal or a placement each).

    Each turn takes one ball from each player for good (stunned balls come back), so a player
    holding ``h`` balls at a turn's start reveals at most ``h`` times in it, then places once;
    there are at most ``min(3 * supply, 30)`` turns. (Sudden death needs a full pyramid, which
    the group rule never lets play reach.)
    """
    balls = 3 * supply
    return sum(balls - turn + 1 for turn in range(min(balls, NUM_SITES)))


class SpagyricCodec(Codec):
    """Spagyric's actions, and features built from ``observation(player)`` (or the spectator's view)."""

    num_actions = SPAGYRIC_ACTIONS

    def action_of(self, state: State[Any], move: Any) -> int:
        from spheria.games.spagyric import Choice, Place

        if isinstance(move, Choice):
            return int(move.color)
        if isinstance(move, Place):
            return SPAGYRIC_PLACE_BASE + int(move.site)
        raise IllegalMoveError(f"{move!r} is one seat's choice or a placement, not a joint reveal")

    def decode(self, state: State[Any], action: int) -> Any:
        from spheria.games.spagyric import Choice, Place

        if 0 <= action < SPAGYRIC_PLACE_BASE:
            return Choice(action)
        if SPAGYRIC_PLACE_BASE <= action < SPAGYRIC_ACTIONS:
            return Place(action - SPAGYRIC_PLACE_BASE)
        raise IllegalMoveError(f"action {action} is not 0..{SPAGYRIC_ACTIONS - 1}")

    def action_text(self, action: int) -> str:
        if 0 <= action < SPAGYRIC_PLACE_BASE:
            return COLOR_CHARS[action]
        if SPAGYRIC_PLACE_BASE <= action < SPAGYRIC_ACTIONS:
            return SITE_NAMES[action - SPAGYRIC_PLACE_BASE]
        return f"action {action}"

    def max_game_length(self) -> int:
        return spagyric_max_length(int(self.game.options["supply"]))

    @property
    def layout(self) -> Layout:
        return (
            ("board", BOARD_SHAPE),
            ("phase", (len(SPAGYRIC_PHASES),)),
            ("to_decide", (2,)),
            ("placer", (2,)),
            ("placing", (3,)),
            ("stunned", (3,)),
            ("supply", (3,)),
            ("hands", (2,)),
            ("observer", (2,)),
        )

    @property
    def history_layout(self) -> Layout:
        """The extra block of the information-state features: one row per history entry."""
        return (("history", (self.max_game_length(), SPAGYRIC_HISTORY_ENTRY)),)

    def features(self, state: State[Any], player: int) -> list[float]:
        return self.features_from_observation(state.observation(player))

    def features_from_observation(self, observation: Mapping[str, Any]) -> list[float]:
        """The features of a seat's ``observation(player)``, or of ``public_observation()``.

        Counts are fractions: the supply per colour and the stunned pairs of ``supply``
        balls, the balls in hand of ``3 * supply``. ``supply`` is the observer's own balls by
        colour (zeros for a spectator); ``hands`` is the balls in hand of seat 0 and seat 1.
        """
        per_color = float(observation["supply_per_color"])
        player = observation["player"]
        if player is None:
            hands = [float(n) for n in observation["supplies"]]
            own = [0.0, 0.0, 0.0]
        else:
            mine = observation["supply"]
            own = [mine[c] / per_color for c in COLOR_CHARS]
            hands = [0.0, 0.0]
            hands[player] = float(sum(mine.values()))
            hands[1 - player] = float(observation["opponent_supply"])
        stunned = observation["stunned"]
        placing = observation["placing"]
        return [
            *board_features(Board.from_spn(observation["board"])),
            *one_hot(SPAGYRIC_PHASES.index(observation["phase"]), len(SPAGYRIC_PHASES)),
            *[1.0 if seat in observation["to_decide"] else 0.0 for seat in (0, 1)],
            *one_hot(observation["placer"], 2),
            *one_hot(None if placing is None else COLOR_CHARS.index(placing), 3),
            *[min(stunned[c] / per_color, 1.0) for c in COLOR_CHARS],
            *own,
            *[n / (3 * per_color) for n in hands],
            *one_hot(player, 2),
        ]

    def history_features(self, history: Sequence[str]) -> list[float]:
        """The history block: row ``i`` one-hot over 9 reveals (seat 0's colour * 3 + seat 1's)
        then 30 sites, from the record entries ``w:b`` and ``0a1``."""
        rows = self.max_game_length()
        values = [0.0] * (rows * SPAGYRIC_HISTORY_ENTRY)
        for i, entry in enumerate(history[:rows]):
            base = i * SPAGYRIC_HISTORY_ENTRY
            if ":" in entry:
                first, second = entry.split(":")
                values[base + COLOR_CHARS.index(first) * 3 + COLOR_CHARS.index(second)] = 1.0
            else:
                values[base + 9 + SITE_NAMES.index(entry)] = 1.0
        return values

    def observation_text(self, state: State[Any], player: int) -> str:
        return self.text_from_observation(state.observation(player))

    @staticmethod
    def text_from_observation(observation: Mapping[str, Any], with_history: bool = False) -> str:
        """One line of what the observation shows (its history too if ``with_history``)."""

        def counts(by_color: dict[str, int]) -> str:
            return ",".join(str(by_color[c]) for c in COLOR_CHARS)

        player = observation["player"]
        placer = observation["placer"]
        parts = [
            observation["board"],
            observation["phase"],
            "deciding " + ("".join(str(seat + 1) for seat in observation["to_decide"]) or "-"),
            "placing " + ("-" if placer is None else f"{placer + 1}{observation['placing']}"),
            "stunned " + counts(observation["stunned"]),
        ]
        if player is None:
            parts.append("spectator; hands " + ",".join(str(n) for n in observation["supplies"]))
        else:
            parts.append(f"seat {player + 1}; supply {counts(observation['supply'])}")
            parts.append(f"opponent holds {observation['opponent_supply']}")
        if with_history:
            parts.append("history " + (" ".join(observation.get("history", [])) or "-"))
        return "; ".join(parts)


_CODECS: dict[str, type[Codec]] = {
    "special-cake": SpecialCakeCodec,
    "spinca": SpincaCodec,
    "spline": SplineCodec,
    "spagyric": SpagyricCodec,
}


def codec_for(game: Game) -> Codec:
    """The codec of ``game`` (a loaded Spheria game)."""
    try:
        return _CODECS[game.name](game)
    except KeyError:
        raise ValueError(f"no action encoding for {game.name!r} (games: {', '.join(sorted(_CODECS))})") from None
