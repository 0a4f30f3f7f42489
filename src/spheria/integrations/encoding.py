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

import functools
import itertools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from spheria.engine.board import ADJACENT, COLOR_CHARS, NUM_SITES, SEGMENTS, SITE_NAMES, TOP, Board, iter_sites
from spheria.kernel.game import Game, IllegalMoveError, State

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

    def max_game_length(self, start: State[Any] | None = None) -> int:
        """An upper bound on the number of turns (joint moves count once) of a game from ``start``
        (the first position by default)."""
        raise NotImplementedError

    def actions_of_entry(self, state: State[Any], entry: str) -> list[int]:
        """The action numbers of one record entry played in ``state``: one, or one per seat for a joint move."""
        return [self.action_of(state, state.parse_move(entry))]


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


# -- agent-relative features --------------------------------------------------------------------

#: Blocks with one value per seat: in an agent-relative frame they start at the observer's seat.
SEAT_BLOCKS = frozenset({"to_move", "observer", "to_decide", "placer", "hands"})


def relative_order(game: Game, seat: int) -> list[int]:
    """The colour planes (0 white, 1 black, 2 red) in ``seat``'s frame: its own colour, then
    the colours of the seats after it in turn order, then any other colour. A game whose seats
    have no colour of their own (Special Cake sugar, Spagyric) keeps the absolute order."""
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
        elif name in SEAT_BLOCKS:
            block = block[seat:] + block[:seat]
        indices += block
        offset += size
    return indices


def to_relative(codec: Codec, values: Sequence[float], seat: int) -> list[float]:
    """``values`` (one seat's features) in that seat's frame: board colour planes by
    :func:`relative_order`, every per-seat block rotated to start at ``seat``."""
    return [values[i] for i in relative_permutation(codec, seat)]


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
        from spheria.games.special_cake.rules import CakeMove

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
        """Spheria's notation: the site placed on or eaten, or a line's sites in eating order."""
        if CAKE_PLACE_BASE <= action < CAKE_EAT_BASE:
            return SITE_NAMES[action - CAKE_PLACE_BASE]
        if CAKE_EAT_BASE <= action < CAKE_LINE_BASE:
            return SITE_NAMES[action - CAKE_EAT_BASE]
        if CAKE_LINE_BASE <= action < CAKE_ACTIONS:
            return "+".join(SITE_NAMES[s] for s in CAKE_LINE_ORDERS[action - CAKE_LINE_BASE])
        return f"action {action}"

    def _extra_layout(self) -> Layout:
        return (("phase", (2,)),)

    def _extra_features(self, state: State[Any]) -> list[float]:
        return [1.0, 0.0] if self._placing(state) else [0.0, 1.0]

    def max_game_length(self, start: State[Any] | None = None) -> int:
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
        from spheria.games.spinca.rules import SpincaMove

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

    def max_game_length(self, start: State[Any] | None = None) -> int:
        return SPINCA_SITES  # one placement a turn, 29 placements


# -- Spline ---------------------------------------------------------------------------------


class SplineCodec(_PerfectInformationCodec):
    num_actions = NUM_SITES

    def action_of(self, state: State[Any], move: Any) -> int:
        return int(move.site)

    def decode(self, state: State[Any], action: int) -> Any:
        from spheria.games.spline.rules import MOVES

        if not 0 <= action < NUM_SITES:
            raise IllegalMoveError(f"action {action} is not 0..{NUM_SITES - 1}")
        return MOVES[action]

    def action_text(self, action: int) -> str:
        return SITE_NAMES[action] if 0 <= action < NUM_SITES else f"action {action}"

    def max_game_length(self, start: State[Any] | None = None) -> int:
        return NUM_SITES


# -- Spagyric -------------------------------------------------------------------------------

SPAGYRIC_PLACE_BASE = 3
SPAGYRIC_ACTIONS = SPAGYRIC_PLACE_BASE + NUM_SITES
SPAGYRIC_PHASES = ("reveal", "place", "sudden", "over")
#: One turn in an information-state tensor: its stuns by colour (as fractions of the supply), the
#: deciding reveal (3 x 3 colours: seat 0's * 3 + seat 1's) and the placement (30 sites).
SPAGYRIC_HISTORY_ENTRY = 3 + 9 + NUM_SITES


#: The most balls a pyramid holds with no same-colour group of three or more (see
#: :mod:`spheria.games.spagyric.rules`): the placement after that many always ends the game.
SPAGYRIC_MAX_QUIET_BALLS = 27
#: Above this supply the exact bound below is too slow to compute, and the simple one is used.
SPAGYRIC_EXACT_BOUND_SUPPLY = 10

Hands = tuple[int, int, int]


def spagyric_max_length(supply: int, hands: tuple[Hands, Hands] | None = None, placed: int = 0) -> int:
    """The most record entries (reveals and placements) a Spagyric game can still have.

    ``hands`` are both seats' balls by colour at the start of a turn (each ``supply`` of every
    colour by default) and ``placed`` the balls already on the pyramid. A turn is some stuns,
    one reveal of two different colours and a placement; each takes one ball from each seat
    for good (stunned balls come back), and the game is over by the placement that brings the
    pyramid past :data:`SPAGYRIC_MAX_QUIET_BALLS`, or by a draw when the hands run out (all
    stuns). The stuns of a turn are at most the same-colour pairs left beside the decisive
    pair, so the bound follows both hands through every turn (exact over the hands; the board
    only caps the number of turns). Supplies above :data:`SPAGYRIC_EXACT_BOUND_SUPPLY` use the
    simple bound: a seat holding ``h`` balls makes at most ``h - 1`` stuns in a turn.
    """
    start = hands or ((supply,) * 3, (supply,) * 3)
    turns_left = max(SPAGYRIC_MAX_QUIET_BALLS + 1 - placed, 0)
    if supply > SPAGYRIC_EXACT_BOUND_SUPPLY:
        balls = sum(start[0])
        return sum(balls - turn + 1 for turn in range(min(balls, turns_left)))
    return _most_entries(_canonical_hands(start[0], start[1]), turns_left)


def _canonical_hands(first: Hands, second: Hands) -> tuple[Hands, Hands]:
    """The same hands up to colour renaming and seat swapping (the bound cannot tell them apart)."""
    forms = []
    for order in itertools.permutations(range(3)):
        a = (first[order[0]], first[order[1]], first[order[2]])
        b = (second[order[0]], second[order[1]], second[order[2]])
        forms += [(a, b), (b, a)]
    return min(forms)


@functools.lru_cache(maxsize=1 << 16)
def _most_entries(hands: tuple[Hands, Hands], turns_left: int) -> int:
    first, second = hands
    best = sum(first) if first == second else 0  # stun every pair, then a draw
    if turns_left == 0:
        return best
    for x in range(3):
        for y in range(3):
            if x == y or not first[x] or not second[y]:
                continue
            a = tuple(n - (c == x) for c, n in enumerate(first))
            b = tuple(n - (c == y) for c, n in enumerate(second))
            stuns = sum(min(a[c], b[c]) for c in range(3))
            after = _most_entries(_canonical_hands(a, b), turns_left - 1)  # type: ignore[arg-type]
            best = max(best, stuns + 2 + after)
    return best


class SpagyricCodec(Codec):
    """Spagyric's actions, and features built from ``observation(player)`` (or the spectator's view)."""

    num_actions = SPAGYRIC_ACTIONS

    def action_of(self, state: State[Any], move: Any) -> int:
        from spheria.games.spagyric.rules import Choice, Place

        if isinstance(move, Choice):
            return int(move.color)
        if isinstance(move, Place):
            return SPAGYRIC_PLACE_BASE + int(move.site)
        raise IllegalMoveError(f"{move!r} is one seat's choice or a placement, not a joint reveal")

    def decode(self, state: State[Any], action: int) -> Any:
        from spheria.games.spagyric.rules import Choice, Place

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

    def max_game_length(self, start: State[Any] | None = None) -> int:
        """The most reveals and placements from ``start`` (the first position by default)."""
        supply = int(self.game.options["supply"])
        if start is None:
            return spagyric_max_length(supply)
        hands, placed, placing = self._start_facts(start)
        return placing + spagyric_max_length(supply, hands, placed)

    def actions_of_entry(self, state: State[Any], entry: str) -> list[int]:
        if ":" in entry:
            return [COLOR_CHARS.index(color) for color in entry.split(":")]
        return [SPAGYRIC_PLACE_BASE + SITE_NAMES.index(entry)]

    def history_rows(self, start: State[Any] | None = None) -> int:
        """The most turns from ``start``: one row each in the information-state tensor."""
        if start is None:
            return min(3 * int(self.game.options["supply"]), SPAGYRIC_MAX_QUIET_BALLS + 1) + 1
        hands, placed, placing = self._start_facts(start)
        return min(sum(hands[0]), SPAGYRIC_MAX_QUIET_BALLS + 1 - placed) + placing + 1

    @staticmethod
    def _start_facts(start: State[Any]) -> tuple[tuple[Hands, Hands], int, int]:
        """Both hands with the stunned balls back, the balls placed, and 1 if a placement is due."""
        state: Any = start
        stunned = state.stunned if state.phase != "sudden" else [0, 0, 0]
        hands = tuple(
            (state.supply[p][0] + stunned[0], state.supply[p][1] + stunned[1], state.supply[p][2] + stunned[2])
            for p in (0, 1)
        )
        return (hands[0], hands[1]), state.board.count(), int(state.phase == "place")

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

    def history_layout(self, rows: int) -> Layout:
        """The extra block of the information-state features: ``rows`` turns (see :meth:`history_rows`)."""
        return (("history", (rows, SPAGYRIC_HISTORY_ENTRY)),)

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

    def history_features(self, history: Sequence[str], rows: int) -> list[float]:
        """The history block from the record entries (``w:w``, ``w:b``, ``0a1``): row ``t`` is
        turn ``t``: its stuns counted by colour (fractions of the supply; their order within
        the turn is in the information-state string, not here), its deciding reveal one-hot
        over seat 0's colour * 3 + seat 1's, and its placement one-hot over the 30 sites."""
        per_color = float(self.game.options["supply"])
        values = [0.0] * (rows * SPAGYRIC_HISTORY_ENTRY)
        turn = 0
        for entry in history:
            if turn >= rows:
                raise ValueError(f"a history of more than {rows} turns: the bound is wrong")
            base = turn * SPAGYRIC_HISTORY_ENTRY
            if ":" in entry:
                first, second = (COLOR_CHARS.index(c) for c in entry.split(":"))
                if first == second:
                    values[base + first] += 1.0 / per_color
                else:
                    values[base + 3 + first * 3 + second] = 1.0
            else:
                values[base + 12 + SITE_NAMES.index(entry)] = 1.0
                turn += 1
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


# -- any other game: its own list of move notations ----------------------------------------------


class NotationCodec(Codec):
    """The codec of a game without a table here, from the game's own list of every move it can
    ever write, ``game.action_texts()`` (its options fixed): action ``i`` is the move written
    ``action_texts()[i]``. Its features are the seat to move and the observing seat; a game
    may bound its length with ``game.max_game_length()``."""

    #: The length bound of a game that gives none.
    DEFAULT_MAX_LENGTH = 1000

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.texts: list[str] = [str(text) for text in game.action_texts()]  # type: ignore[attr-defined]
        self.index = {text: i for i, text in enumerate(self.texts)}
        if len(self.index) != len(self.texts):
            raise ValueError(f"{game.name}: action_texts() names a move twice")
        self.num_actions = len(self.texts)

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
        return [*one_hot(_seat_to_move(state), seats), *one_hot(player, seats)]

    def max_game_length(self, start: State[Any] | None = None) -> int:
        bound = getattr(self.game, "max_game_length", None)
        return int(bound()) if callable(bound) else self.DEFAULT_MAX_LENGTH


_CODECS: dict[str, type[Codec]] = {
    "special-cake": SpecialCakeCodec,
    "spinca": SpincaCodec,
    "spline": SplineCodec,
    "spagyric": SpagyricCodec,
}


def codec_for(game: Game) -> Codec:
    """The codec of ``game`` (a loaded Spheria game): its own table, or a :class:`NotationCodec`."""
    codec = _CODECS.get(game.name)
    if codec is not None:
        return codec(game)
    if callable(getattr(game, "action_texts", None)):
        return NotationCodec(game)
    raise ValueError(
        f"no action encoding for {game.name!r}: give the game an action_texts() listing every move's "
        f"notation (games with their own tables: {', '.join(sorted(_CODECS))})"
    )
