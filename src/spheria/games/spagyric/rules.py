"""Spagyric (White-Black-Red): secret reveals decide who places; make a group of exactly four.

Two players each hold a hidden supply of white, black and red balls (option ``supply``,
8 of each by default). White beats black, black beats red, red beats white.

A turn is a run of *reveals*: both players choose a ball from their supply in secret and
show them together (a ``SIMULTANEOUS`` node: ``state.legal_moves(seat)`` gives one seat's
choosable colours, ``state.apply_joint([choice0, choice1])`` resolves it).

* Same colour: both balls are *stunned* (set aside) and the turn goes on with a new reveal.
* Different colours: the weaker ball goes into its owner's part of the bag of defeat and
  leaves the game; the owner of the stronger ball places it on any site that can hold a ball
  (``current_player()`` is that seat). The placement ends the turn: the stunned balls go back
  to their owners' supplies.

After a placement, the touching same-colour group holding the new ball decides: exactly 4
balls and the placer wins; exactly 3, or 5 or more, and the placer loses. When a reveal is
due and a player has no ball to choose (their supply is empty, stunned balls not counting),
the game is a draw; after a stun the stunned balls then stay aside. Both players always hold
the same number of balls (each reveal takes one ball from each), so both run out together.
After a placement the checks run in this order: the group, a full pyramid, empty supplies.

Sudden death: if a placement fills the pyramid without a result, each player gets a fresh
white, black and red ball; reveals as above, the stronger ball wins the game, equal colours
are stunned, and when all three colours are stunned the sudden death starts again. Under the
touching rule no full pyramid is free of groups of three or more (at most 27 balls can stand
without one), so the 30th ball always decides the game first and sudden death is never
reached in play; it is implemented as the rules state it, and tested on positions built
directly.

Option ``memory`` (default ``True``, for people): observations list no earlier reveals.
``False`` (for programs, which remember everything anyway): observations carry the history.

Hidden information: ``observation(player)`` shows the pyramid, the player's own supply by
colour, the opponent's number of balls, the stunned balls, whose decision is pending, the
ball being placed and, with ``memory=False``, the history; ``view(player)`` is a
:class:`SpagyricView` built from that alone. Never a choice in progress (the state never holds
half a reveal), a bag, or the opponent's supply by colour — though a player can count the
latter from the pyramid and their own supply, since every ball in play beat one ball of the
colour it beats. What no counting shows is which player lost which balls.

Moves: a seat's choice is a :class:`Choice` written ``w``, ``b`` or ``r``; a resolved reveal
is a :class:`Reveal` written with Player 1's (seat 0's) colour first, ``w:b`` (``w:w`` is a
stun); a placement is a :class:`Place` written as its site, ``0a1``. Records hold reveals and
placements; ``apply_notation`` replays either kind.

SPN has eight fields: the board, then ``phase seat supply1 supply2 stunned bag1 bag2``:

* ``phase``: ``reveal``, ``place``, ``sudden`` or ``over``;
* ``seat``: ``-`` at a reveal; at a placement the placer and the ball's colour (``1w``);
  at the end the winner (``1``/``2``) or ``-`` for a draw;
* ``supply1``, ``supply2``: each player's balls in hand as ``white,black,red`` counts;
* ``stunned``: the stunned pairs as ``white,black,red`` counts (each stun sets aside one ball
  of that colour from each player); in sudden death the colours stunned so far (0 or 1 each);
* ``bag1``, ``bag2``: each player's balls in the bag of defeat as ``white,black,red``.

>>> import spheria
>>> state = spheria.load_game("spagyric").new_initial_state()
>>> state.current_player() == spheria.SIMULTANEOUS
True
>>> state.apply_joint([Choice.parse("r"), Choice.parse("w")])  # red beats white
>>> state.current_player(), state.placing
(0, 2)
>>> state.apply(state.parse_move("0b2"))
>>> state.to_spn()
'.....r........../........./..../. reveal - 8,8,7 7,8,8 0,0,0 0,0,0 1,0,0'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, NotRequired

from spheria.engine.board import (
    ABOVE,
    ALL_SITES,
    BB_SITES,
    BLACK,
    COLOR_CHARS,
    COLORS,
    RED,
    SITE_NAMES,
    WHITE,
    BaseBoard,
    Board,
    BoardView,
    group_of,
    groups,
    iter_sites,
    parse_site,
    placeable,
)
from spheria.games.spagyric import messages as M
from spheria.i18n import N_, ngettext
from spheria.i18n import gettext as _
from spheria.kernel import messages as K
from spheria.kernel.game import (
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Observation,
    ResultReason,
    Revealed,
    State,
    checked_site,
    move_text,
)
from spheria.kernel.options import Option
from spheria.kernel.registry import register

REVEAL, PLACE, SUDDEN, OVER = "reveal", "place", "sudden", "over"
PHASES = (REVEAL, PLACE, SUDDEN, OVER)

#: ``BEATS[c]``: the colour that ``c`` beats (white beats black, black beats red, red beats white).
BEATS: tuple[int, int, int] = (BLACK, RED, WHITE)
#: ``BEATEN_BY[c]``: the colour that beats ``c``.
BEATEN_BY: tuple[int, int, int] = (RED, WHITE, BLACK)

#: A placement that makes a group of exactly this many balls wins; 3, or 5 or more, loses.
WINNING_SIZE = 4

_COLOR_WORDS = {"w": WHITE, "white": WHITE, "b": BLACK, "black": BLACK, "r": RED, "red": RED}

Counts = list[int]


def stronger(first: int, second: int) -> int | None:
    """Which of two revealed colours wins: 0 (the first), 1 (the second) or ``None`` (same).

    >>> stronger(WHITE, BLACK), stronger(WHITE, RED), stronger(RED, RED)
    (0, 1, None)
    """
    if first == second:
        return None
    return 0 if BEATS[first] == second else 1


def parse_color(text: str) -> int:
    """A colour written ``w``/``b``/``r`` or ``white``/``black``/``red``; raises :class:`InvalidMoveError`."""
    color = _COLOR_WORDS.get(move_text(text).strip().lower())
    if color is None:
        raise InvalidMoveError(_(M.SPAGYRIC_NOT_A_COLOR).format(text=repr(text.strip())))
    return color


@dataclass(frozen=True, slots=True)
class Choice:
    """One seat's secret choice at a reveal.

    >>> Choice.parse("Red"), str(Choice(WHITE))
    (Choice(color=2), 'w')
    """

    color: int

    def __str__(self) -> str:
        return COLOR_CHARS[self.color]

    @classmethod
    def parse(cls, text: str) -> Choice:
        return cls(parse_color(text))


@dataclass(frozen=True, slots=True)
class Reveal:
    """Both choices of a reveal, Player 1's first; the record entry of a reveal.

    >>> Reveal.parse("w:b")
    Reveal(first=0, second=1)
    >>> str(Reveal(RED, RED))
    'r:r'
    """

    first: int
    second: int

    @property
    def colors(self) -> tuple[int, int]:
        return (self.first, self.second)

    def __str__(self) -> str:
        return f"{COLOR_CHARS[self.first]}:{COLOR_CHARS[self.second]}"

    @classmethod
    def parse(cls, text: str) -> Reveal:
        parts = move_text(text).strip().split(":")
        if len(parts) != 2:
            raise InvalidMoveError(_(M.SPAGYRIC_NOT_A_REVEAL).format(text=repr(text.strip())))
        return cls(parse_color(parts[0]), parse_color(parts[1]))


@dataclass(frozen=True, slots=True)
class Place:
    """The winner of a reveal puts the winning ball on ``site``.

    >>> str(Place.parse("1b2"))
    '1b2'
    """

    site: int

    def __str__(self) -> str:
        return SITE_NAMES[self.site]

    @classmethod
    def parse(cls, text: str) -> Place:
        try:
            return cls(parse_site(move_text(text)))
        except InvalidMoveError:
            raise
        except ValueError as error:
            raise InvalidMoveError(str(error)) from None


SpagyricMove = Choice | Reveal | Place


class SpagyricSharedObservation(Observation):
    """What a seat and a spectator both see in Spagyric (see :meth:`SpagyricState.public_observation`)."""

    supply_per_color: int
    memory: bool
    phase: str
    to_decide: list[int]
    placer: int | None
    placing: str | None
    stunned: dict[str, int]
    returns: list[float]
    history: NotRequired[list[str]]


class SpagyricPublicObservation(SpagyricSharedObservation):
    """A spectator's view: each seat's number of balls in hand, never their colours."""

    supplies: list[int]


class SpagyricObservation(SpagyricSharedObservation):
    """One seat's view: its own supply by colour, the opponent's count, its legal moves as text."""

    supply: dict[str, int]
    opponent_supply: int
    legal_moves: list[str]


class _Snapshot(NamedTuple):
    masks: tuple[int, int, int]
    supply: tuple[tuple[int, ...], ...]
    stunned: tuple[int, ...]
    bag: tuple[tuple[int, ...], ...]
    phase: str
    placer: int | None
    placing: int | None
    winner: int | None


def _counts_text(counts: Counts) -> str:
    return ",".join(str(n) for n in counts)


def _counts_words(counts: Counts) -> str:
    return _(K.LIST_SEPARATOR).join(_(K.COUNT_OF_COLOR).format(n=n, color=_(K.COLOR[c])) for c, n in enumerate(counts))


def _counts_dict(counts: Counts) -> dict[str, int]:
    return {COLOR_CHARS[c]: counts[c] for c in COLORS}


def deciding_groups(board: BaseBoard) -> list[tuple[int, int]]:
    """Every same-colour touching group of 3 or more balls, as ``(colour, mask)``.

    A position in play has none: the placement that made one ended the game.
    """
    found = []
    for color in COLORS:
        for group in groups(board.masks[color]):
            if group.bit_count() >= 3:
                found.append((color, group))
    return found


@register
class Spagyric(Game):
    name = "spagyric"
    title = N_("Spagyric")
    simultaneous = True
    perfect_information = False
    option_specs = (
        Option(
            "supply",
            8,
            N_("balls of each colour in each player's supply"),
            kind=int,
            minimum=1,
            maximum=99,
            label=M.OPTION_SUPPLY,
        ),
        Option(
            "memory",
            True,
            N_("true (for people): observations list no earlier reveals; false (for programs): they list them all"),
            kind=bool,
            label=M.OPTION_MEMORY,
        ),
    )

    @property
    def supply(self) -> int:
        return int(self._options["supply"])

    @property
    def memory(self) -> bool:
        return bool(self._options["memory"])

    def player_names(self) -> list[str]:
        return [N_("Player 1"), N_("Player 2")]

    def seat_colors(self) -> list[str | None]:
        """Both players hold balls of every colour."""
        return [None, None]

    def new_initial_state(self, seed: int | None = None) -> SpagyricState:
        s = self.supply
        return SpagyricState(self, Board(), supply=[[s, s, s], [s, s, s]], seed=seed)

    # -- position notation -----------------------------------------------------------

    def state_from_spn(self, text: str) -> SpagyricState:
        """A state from SPN (see the module docstring); raises ``ValueError`` naming the problem."""
        fields = self.spn_fields(text)
        if len(fields) != 8:
            raise ValueError(_(M.SPAGYRIC_SPN_FIELDS).format(n=len(fields)))
        board = Board.from_spn(fields[0])
        phase = fields[1]
        if phase not in PHASES:
            raise ValueError(_(M.SPAGYRIC_SPN_PHASE).format(phases=", ".join(PHASES), text=repr(phase)))
        placer, placing, winner = self._parse_seat(phase, fields[2])
        names = [_(name) for name in self.player_names()]
        supply = [
            self._parse_counts(fields[3], _(M.SPAGYRIC_SPN_SUPPLY).format(name=names[0])),
            self._parse_counts(fields[4], _(M.SPAGYRIC_SPN_SUPPLY).format(name=names[1])),
        ]
        stunned = self._parse_counts(fields[5], _(M.SPAGYRIC_SPN_STUNNED))
        bag = [
            self._parse_counts(fields[6], _(M.SPAGYRIC_SPN_BAG).format(name=names[0])),
            self._parse_counts(fields[7], _(M.SPAGYRIC_SPN_BAG).format(name=names[1])),
        ]
        state = SpagyricState(
            self, board, supply, stunned, bag, phase=phase, placer=placer, placing=placing, winner=winner
        )
        state.check_position()
        return state

    @staticmethod
    def _parse_seat(phase: str, text: str) -> tuple[int | None, int | None, int | None]:
        """``(placer, placing colour, winner)`` from the seat field."""
        if phase in (REVEAL, SUDDEN):
            if text != "-":
                raise ValueError(_(M.SPAGYRIC_SPN_NO_SEAT).format(phase=phase, text=repr(text)))
            return None, None, None
        if phase == PLACE:
            if len(text) != 2 or text[0] not in "12" or text[1] not in COLOR_CHARS:
                raise ValueError(_(M.SPAGYRIC_SPN_PLACER).format(text=repr(text)))
            return int(text[0]) - 1, COLOR_CHARS.index(text[1]), None
        if text not in ("1", "2", "-"):
            raise ValueError(_(M.SPAGYRIC_SPN_WINNER).format(text=repr(text)))
        return None, None, None if text == "-" else int(text) - 1

    def _parse_counts(self, text: str, what: str) -> Counts:
        parts = text.split(",")
        if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ValueError(_(M.SPAGYRIC_SPN_COUNTS).format(what=what, text=repr(text)))
        counts = [int(p) for p in parts]
        for color, n in enumerate(counts):
            if n > self.supply:
                raise ValueError(
                    _(M.SPAGYRIC_SPN_COUNT_ABOVE).format(what=what, n=n, color=_(K.COLOR[color]), supply=self.supply)
                )
        return counts


class SpagyricView:
    """What one seat may decide from, built from ``observation(player)`` alone.

    The view copies the observation through JSON, keeps no reference to the state, and
    answers only for its own seat, so an agent handed it cannot peek at hidden data.
    """

    __slots__ = ("_observation", "player")

    def __init__(self, observation: Mapping[str, Any]) -> None:
        self._observation: dict[str, Any] = json.loads(json.dumps(observation))
        self.player: int = int(self._observation["player"])

    def current_player(self) -> int:
        return int(self._observation["current_player"])

    def legal_moves(self, player: int | None = None) -> list[SpagyricMove]:
        """This seat's choosable colours at a reveal, or the legal sites at its placement."""
        if player is None:
            player = self.player
        if player != self.player:
            raise ValueError(f"this view is seat {self.player}'s; it cannot show seat {player}'s moves")
        parse = Place.parse if self._observation["phase"] == PLACE else Choice.parse
        return [parse(text) for text in self._observation["legal_moves"]]

    def observation(self, player: int) -> dict[str, Any]:
        if player != self.player:
            raise ValueError(f"this view is seat {self.player}'s; it cannot show seat {player}'s observation")
        result: dict[str, Any] = json.loads(json.dumps(self._observation))
        return result

    @property
    def board(self) -> BoardView:
        """The balls on the pyramid, read-only, as every game state gives them."""
        return Board.from_spn(self._observation["board"]).view()

    def __str__(self) -> str:
        return self.board.diagram()


class SpagyricState(State[SpagyricMove]):
    """The referee's full Spagyric position: board, supplies, stunned balls, bags, phase.

    The constructor takes the fields as they are and checks nothing; positions from SPN are
    checked by :meth:`check_position`.
    """

    def __init__(
        self,
        game: Spagyric,
        board: Board,
        supply: list[Counts],
        stunned: Counts | None = None,
        bag: list[Counts] | None = None,
        *,
        phase: str = REVEAL,
        placer: int | None = None,
        placing: int | None = None,
        winner: int | None = None,
        seed: int | None = None,
    ) -> None:
        self.game: Spagyric = game
        self._board = board
        self.supply: list[Counts] = [list(supply[0]), list(supply[1])]
        self.stunned: Counts = list(stunned) if stunned is not None else [0, 0, 0]
        self.bag: list[Counts] = [list(bag[0]), list(bag[1])] if bag is not None else [[0, 0, 0], [0, 0, 0]]
        self.phase = phase
        self.placer = placer
        self.placing = placing
        self.winner = winner
        self.seed = seed
        self._history: list[SpagyricMove] = []
        self._undo: list[_Snapshot] = []

    # -- queries -----------------------------------------------------------------------

    @property
    def board(self) -> BoardView:
        """The balls as a read-only snapshot (the state's own board changes only by moves)."""
        return self._board.view()

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        if self.phase == PLACE:
            assert self.placer is not None
            return self.placer
        return SIMULTANEOUS

    def returns(self) -> list[float]:
        if self.phase != OVER or self.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else -1.0 for p in range(2)]

    def hand(self, player: int) -> Counts:
        """The balls ``player`` may choose from now, by colour (stunned balls excluded).

        In sudden death: the fresh white, black and red, less the colours stunned so far.
        """
        self._check_seat(player)
        if self.phase == SUDDEN:
            return [1 - n for n in self.stunned]
        return list(self.supply[player])

    def choosable(self, player: int) -> list[int]:
        """The colours ``player`` may choose at a reveal (none outside a reveal)."""
        if self.phase not in (REVEAL, SUDDEN):
            return []
        return [c for c, n in enumerate(self.hand(player)) if n > 0]

    def legal_moves(self, player: int | None = None) -> list[SpagyricMove]:
        """At a reveal: seat ``player``'s :class:`Choice` list, or every joint :class:`Reveal` if
        ``player`` is ``None``. At a placement: the placer's :class:`Place` list. Else empty."""
        if player is not None:
            self._check_seat(player)
        if self.phase in (REVEAL, SUDDEN):
            if player is not None:
                return [Choice(c) for c in self.choosable(player)]
            return [Reveal(a, b) for a in self.choosable(0) for b in self.choosable(1)]
        if self.phase == PLACE and player in (None, self.placer):
            return [Place(s) for s in iter_sites(placeable(self._board.occupied))]
        return []

    def _check_seat(self, player: int) -> None:
        self.check_seat(player)

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: SpagyricMove) -> None:
        """Play a :class:`Reveal` (both seats' choices) or a :class:`Place`.

        A lone :class:`Choice` is refused: the state never holds one seat's half of a reveal.
        """
        if isinstance(move, Reveal):
            self._check_reveal(move)
            self._push(move)
            self._reveal(move)
        elif isinstance(move, Place):
            self._check_place(move)
            self._push(move)
            self._place(move.site)
        elif isinstance(move, Choice):
            raise IllegalMoveError("a reveal needs both players' choices: use apply_joint([choice1, choice2])")
        else:
            raise InvalidMoveError(f"{move!r} is not a Spagyric move")

    def apply_joint(self, moves: Sequence[SpagyricMove]) -> None:
        """Resolve a reveal with one :class:`Choice` per seat, in seat order."""
        choices = list(moves) if isinstance(moves, Sequence) else []
        if len(choices) != 2 or not isinstance(choices[0], Choice) or not isinstance(choices[1], Choice):
            raise InvalidMoveError("a reveal takes exactly two choices, one per seat, such as [Choice(0), Choice(1)]")
        self.apply(Reveal(choices[0].color, choices[1].color))

    def _check_reveal(self, move: Reveal) -> None:
        names = self.game.player_names()
        if self.phase == OVER:
            raise IllegalMoveError(_(K.GAME_OVER))
        if self.phase == PLACE:
            assert self.placer is not None and self.placing is not None
            placing = _(K.COLOR[self.placing])
            raise IllegalMoveError(_(M.SPAGYRIC_PLACE_FIRST).format(name=_(names[self.placer]), color=placing))
        for seat, color in enumerate(move.colors):
            if isinstance(color, bool) or not isinstance(color, int) or color not in COLORS:
                raise InvalidMoveError(f"{color!r} is not a colour number 0..2 (white, black, red)")
            if color not in self.choosable(seat):
                reason = self._unchoosable(seat, color)
                raise IllegalMoveError(_(M.SPAGYRIC_SEAT_HAS).format(name=_(names[seat]), reason=reason))

    def _unchoosable(self, player: int, color: int) -> str:
        """Why ``player`` cannot choose ``color``: a phrase to follow "has" or "have"."""
        name = _(K.COLOR[color])
        if self.phase == SUDDEN:
            return _(M.SPAGYRIC_STUNNED_SUDDEN_REASON).format(color=name)
        if self.stunned[color]:
            return _(M.SPAGYRIC_NONE_TO_CHOOSE).format(color=name)
        return _(M.SPAGYRIC_NONE_LEFT).format(color=name)

    def _check_place(self, move: Place) -> None:
        if self.phase != PLACE:
            raise IllegalMoveError(_(K.GAME_OVER if self.phase == OVER else M.SPAGYRIC_CHOOSE_FIRST))
        checked_site(move.site)
        if not placeable(self._board.occupied) >> move.site & 1:
            raise IllegalMoveError(_(M.SPAGYRIC_CANNOT_TAKE).format(site=move))

    def _push(self, move: SpagyricMove) -> None:
        self._undo.append(
            _Snapshot(
                self._board.key(),
                (tuple(self.supply[0]), tuple(self.supply[1])),
                tuple(self.stunned),
                (tuple(self.bag[0]), tuple(self.bag[1])),
                self.phase,
                self.placer,
                self.placing,
                self.winner,
            )
        )
        self._history.append(move)

    def _reveal(self, move: Reveal) -> None:
        first, second = move.colors
        winner = stronger(first, second)
        if self.phase == SUDDEN:
            if winner is None:
                self.stunned[first] = 1
                if all(self.stunned):
                    self.stunned = [0, 0, 0]  # all three stunned: the sudden death starts again
            else:
                self.stunned = [0, 0, 0]
                self.phase, self.winner = OVER, winner
            return
        if winner is None:
            self.supply[0][first] -= 1
            self.supply[1][second] -= 1
            self.stunned[first] += 1
            if not any(self.supply[0]) or not any(self.supply[1]):
                self.phase = OVER  # a player has nothing to choose: draw
            return
        loser = 1 - winner
        won, lost = move.colors[winner], move.colors[loser]
        self.supply[winner][won] -= 1
        self.supply[loser][lost] -= 1
        self.bag[loser][lost] += 1
        self.phase, self.placer, self.placing = PLACE, winner, won

    def _place(self, site: int) -> None:
        placer, color = self.placer, self.placing
        assert placer is not None and color is not None
        self._board.place(site, color)
        size = group_of(self._board.masks[color], site).bit_count()
        for seat in (0, 1):  # the turn ends: stunned balls go back to their owners
            for c in COLORS:
                self.supply[seat][c] += self.stunned[c]
        self.stunned = [0, 0, 0]
        self.placer = self.placing = None
        if size == WINNING_SIZE:
            self.phase, self.winner = OVER, placer
        elif size >= 3:
            self.phase, self.winner = OVER, 1 - placer
        elif self._board.occupied == ALL_SITES:
            self.phase = SUDDEN
        elif not any(self.supply[0]) or not any(self.supply[1]):
            self.phase = OVER
        else:
            self.phase = REVEAL

    def undo(self) -> SpagyricMove:
        snap = self._undo.pop()
        self._board.masks[:] = snap.masks
        self.supply = [list(snap.supply[0]), list(snap.supply[1])]
        self.stunned = list(snap.stunned)
        self.bag = [list(snap.bag[0]), list(snap.bag[1])]
        self.phase, self.placer, self.placing, self.winner = snap.phase, snap.placer, snap.placing, snap.winner
        return self._history.pop()

    def parse_move(self, text: str, player: int | None = None) -> SpagyricMove:
        """The legal move written as ``text``.

        At a reveal: with ``player`` given, that seat's colour (``w``, ``b``, ``r``); without,
        both colours as ``w:b`` (Player 1's first). At a placement: a site such as ``0a1``.
        """
        move_text(text)
        if player is not None:
            self._check_seat(player)
        names = [_(name) for name in self.game.player_names()]
        if self.phase == OVER:
            raise IllegalMoveError(_(K.GAME_OVER))
        if self.phase == PLACE:
            assert self.placer is not None
            if player is not None and player != self.placer:
                raise IllegalMoveError(_(M.SPAGYRIC_WAIT).format(name=names[self.placer]))
            if ":" in text or text.strip().lower() in _COLOR_WORDS:
                assert self.placing is not None
                color = _(K.COLOR[self.placing])
                raise IllegalMoveError(_(M.SPAGYRIC_PLACE_FIRST_SITE).format(name=names[self.placer], color=color))
            place = Place.parse(text)
            self._check_place(place)
            return place
        if player is None:
            if ":" not in text:
                raise IllegalMoveError(_(M.SPAGYRIC_BOTH_COLOURS))
            reveal = Reveal.parse(text)
            self._check_reveal(reveal)
            return reveal
        if ":" in text:
            raise IllegalMoveError(_(M.SPAGYRIC_OWN_COLOUR))
        choice = Choice.parse(text)
        if choice.color not in self.choosable(player):
            raise IllegalMoveError(_(M.SPAGYRIC_YOU_HAVE).format(reason=self._unchoosable(player, choice.color)))
        return choice

    def clone(self) -> SpagyricState:
        state = SpagyricState(
            self.game,
            self._board.copy(),
            self.supply,
            self.stunned,
            self.bag,
            phase=self.phase,
            placer=self.placer,
            placing=self.placing,
            winner=self.winner,
            seed=self.seed,
        )
        state._history = list(self._history)
        state._undo = list(self._undo)
        return state

    # -- hidden information ----------------------------------------------------------------

    def placing_color(self, player: int) -> str | None:
        """Only the winner of a reveal places: the ball that won it."""
        self._check_seat(player)
        if self.phase != PLACE or self.placer != player or self.placing is None:
            return None
        return COLOR_CHARS[self.placing]

    def phase_name(self) -> str:
        return self.phase

    def last_reveal(self) -> Revealed | None:
        """The reveal just resolved: both balls, and the seat whose ball beat the other's."""
        last = self.history[-1] if self.history else None
        if not isinstance(last, Reveal):
            return None
        return Revealed(tuple(COLOR_CHARS[c] for c in last.colors), stronger(*last.colors))

    def result_mask(self) -> int:
        return self.deciding_group()

    def to_decide(self) -> list[int]:
        """The seats whose decision is pending: both at a reveal, the placer at a placement."""
        if self.phase in (REVEAL, SUDDEN):
            return [0, 1]
        if self.phase == PLACE:
            assert self.placer is not None
            return [self.placer]
        return []

    def public_observation(self) -> SpagyricPublicObservation:
        """What anyone may see, spectators included, as JSON-ready data.

        Keys: ``game``, ``player`` (``None``), ``supply_per_color``, ``memory``, ``board``
        (board SPN), ``phase``, ``current_player``, ``to_decide`` (seats whose decision is
        pending), ``placer`` and ``placing`` (the revealed ball to be placed, or ``None``),
        ``stunned`` (stunned pairs by colour: both players saw them revealed), ``supplies``
        (each seat's number of balls in hand), ``returns``; and ``history`` (every reveal and
        placement so far) only when option ``memory`` is false.
        """
        view: SpagyricPublicObservation = {
            **self._shared_observation(None),
            "supplies": [sum(self.hand(0)), sum(self.hand(1))],
        }
        return view

    def _shared_observation(self, player: int | None) -> SpagyricSharedObservation:
        view: SpagyricSharedObservation = {
            "game": self.game.name,
            "player": player,
            "supply_per_color": self.game.supply,
            "memory": self.game.memory,
            "board": self._board.spn(),
            "phase": self.phase,
            "current_player": self.current_player(),
            "to_decide": self.to_decide(),
            "placer": self.placer,
            "placing": None if self.placing is None else COLOR_CHARS[self.placing],
            "stunned": _counts_dict(self.stunned),
            "returns": self.returns(),
        }
        if not self.game.memory:
            view["history"] = self.history_notation()
        return view

    def observation(self, player: int) -> SpagyricObservation:
        """What ``player`` may see, as JSON-ready data: :meth:`public_observation` with
        ``player`` set, plus ``supply`` (this player's own balls in hand by colour),
        ``opponent_supply`` (the opponent's number of balls in hand) and ``legal_moves``
        (this player's, as text). Never a choice in progress, a bag, or the opponent's
        supply by colour.
        """
        self._check_seat(player)
        view: SpagyricObservation = {
            **self._shared_observation(player),
            "supply": _counts_dict(self.hand(player)),
            "opponent_supply": sum(self.hand(1 - player)),
            "legal_moves": [str(m) for m in self.legal_moves(player)],
        }
        return view

    def view(self, player: int) -> SpagyricView:
        """An agent's view: built from ``observation(player)`` only."""
        return SpagyricView(self.observation(player))

    # -- text --------------------------------------------------------------------------

    def to_spn(self) -> str:
        if self.phase == PLACE:
            assert self.placer is not None and self.placing is not None
            seat = f"{self.placer + 1}{COLOR_CHARS[self.placing]}"
        elif self.phase == OVER and self.winner is not None:
            seat = str(self.winner + 1)
        else:
            seat = "-"
        return " ".join(
            [
                self._board.spn(),
                self.phase,
                seat,
                _counts_text(self.supply[0]),
                _counts_text(self.supply[1]),
                _counts_text(self.stunned),
                _counts_text(self.bag[0]),
                _counts_text(self.bag[1]),
            ]
        )

    def __str__(self) -> str:
        return self._board.diagram()

    def status_lines(self, player: int | None = None) -> list[str]:
        """The phase, stunned balls, supplies and result, showing only what ``player`` may know."""
        if player is not None:
            self._check_seat(player)
        names = [_(name) for name in self.game.player_names()]
        lines = []
        if self.phase == OVER:
            lines.append(self._result_line())
        elif self.phase == REVEAL:
            lines.append(_(M.SPAGYRIC_REVEAL))
        elif self.phase == SUDDEN:
            lines.append(_(M.SPAGYRIC_SUDDEN))
        else:
            assert self.placer is not None and self.placing is not None
            color, beaten = _(K.COLOR[self.placing]), _(K.COLOR[BEATS[self.placing]])
            lines.append(_(M.SPAGYRIC_WON_REVEAL).format(name=names[self.placer], color=color, beaten=beaten))
        if any(self.stunned):
            counts = [(c, n) for c, n in enumerate(self.stunned) if n]
            stunned = _(K.LIST_SEPARATOR).join(_(K.COUNT_OF_COLOR).format(n=n, color=_(K.COLOR[c])) for c, n in counts)
            until = M.SPAGYRIC_STUNNED_SUDDEN if self.phase == SUDDEN else M.SPAGYRIC_STUNNED_TURN
            lines.append(_(until).format(stunned=stunned))
        if player is not None:
            lines.append(_(M.SPAGYRIC_YOUR_SUPPLY).format(counts=_counts_words(self.hand(player))))
            held = sum(self.hand(1 - player))
            lines.append(ngettext(M.SPAGYRIC_HOLDS, held).format(name=names[1 - player], n=held))
        else:
            first, second = sum(self.hand(0)), sum(self.hand(1))
            lines.append(_(M.SPAGYRIC_BOTH_HOLD).format(first=names[0], n=first, second=names[1], m=second))
        lines.append(_(M.SPAGYRIC_ON_PYRAMID).format(n=self._board.count()))
        if not self.game.memory:
            reveals = [str(m) for m in self._history if isinstance(m, Reveal)]
            if reveals:
                lines.append(_(M.SPAGYRIC_REVEALS_SO_FAR).format(reveals=" ".join(reveals)))
        return lines

    def deciding_group(self) -> int:
        """The mask of the group that ended the game (0 before the end, or when a reveal did)."""
        if self.phase != OVER or self.winner is None:
            return 0
        deciding = deciding_groups(self.board)
        if not deciding or (self._history and isinstance(self._history[-1], Reveal)):
            return 0
        return deciding[0][1]

    def result_reason(self) -> ResultReason | None:
        """``no_ball`` (a draw: a player has no ball left to choose), ``sudden_death`` (``seat`` won
        the sudden death's reveal) or ``group`` (``seat`` made a group of ``size``
        ``color`` balls: four wins, any other size loses)."""
        if self.phase != OVER:
            return None
        if self.winner is None:
            return ResultReason("no_ball", {})
        deciding = deciding_groups(self._board)
        last = self._history[-1] if self._history else None
        if isinstance(last, Reveal) or not deciding:  # only a sudden-death reveal wins outright
            return ResultReason("sudden_death", {"seat": self.winner})
        color, group = deciding[0]
        size = group.bit_count()
        maker = self.winner if size == WINNING_SIZE else 1 - self.winner
        return ResultReason("group", {"seat": maker, "color": COLOR_CHARS[color], "size": size})

    def _result_line(self) -> str:
        reason = self.result_reason()
        assert reason is not None and self.phase == OVER
        names = [_(name) for name in self.game.player_names()]
        params = reason.params
        if reason.code == "no_ball":
            return _(M.SPAGYRIC_DRAW)
        assert self.winner is not None
        if reason.code == "sudden_death":
            return _(M.SPAGYRIC_SUDDEN_WIN).format(name=names[self.winner])
        color = _(K.COLOR[COLOR_CHARS.index(params["color"])])
        return _(M.SPAGYRIC_GROUP_WIN).format(
            name=names[self.winner], maker=names[params["seat"]], size=params["size"], color=color
        )

    def move_hint(self, player: int | None = None) -> str:
        if player is not None:
            self._check_seat(player)
        names = [_(name) for name in self.game.player_names()]
        if self.phase == OVER:
            return _(K.GAME_OVER)
        if self.phase == PLACE:
            assert self.placer is not None
            if player is not None and player != self.placer:
                return _(M.SPAGYRIC_IS_PLACING).format(name=names[self.placer])
            return _(M.SPAGYRIC_HINT_PLACE)
        if player is None:
            return _(M.SPAGYRIC_HINT_BOTH)
        choice = _(M.SPAGYRIC_COLOR_CHOICE)
        colors = ", ".join(choice.format(char=COLOR_CHARS[c], color=_(K.COLOR[c])) for c in self.choosable(player))
        return _(M.SPAGYRIC_HINT_COLOR).format(colors=colors)

    # -- checking a position -------------------------------------------------------------

    def won(self, player: int, color: int) -> int:
        """How many of ``player``'s ``color`` balls won a reveal (on the pyramid or about to be
        placed): each beat one ball of the opponent's into the bag."""
        return self.bag[1 - player][BEATS[color]]

    def check_position(self) -> None:
        """Raise ``ValueError`` naming the first reason this position cannot arise in play."""
        names = [_(name) for name in self.game.player_names()]
        s = self.game.supply
        full = self._board.occupied == ALL_SITES
        if self.phase == SUDDEN:
            if any(n > 1 for n in self.stunned) or all(self.stunned):
                raise ValueError(_(M.SPAGYRIC_SPN_SUDDEN_STUNS))
            accounted_stunned = [0, 0, 0]  # the sudden-death balls are not part of the supplies
        else:
            accounted_stunned = self.stunned
        for p in (0, 1):
            for c in COLORS:
                total = self.supply[p][c] + accounted_stunned[c] + self.bag[p][c] + self.won(p, c)
                if total != s:
                    raise ValueError(
                        _(M.SPAGYRIC_SPN_TOTAL).format(
                            name=names[p],
                            color=_(K.COLOR[c]),
                            total=total,
                            supply=s,
                            in_supply=self.supply[p][c],
                            stunned=accounted_stunned[c],
                            in_bag=self.bag[p][c],
                            won=self.won(p, c),
                            beaten=_(K.COLOR[BEATS[c]]),
                            other=names[1 - p],
                        )
                    )
        for c in COLORS:
            in_play = self._board.count(c) + (1 if self.phase == PLACE and self.placing == c else 0)
            beaten = self.bag[0][BEATS[c]] + self.bag[1][BEATS[c]]
            if in_play != beaten:
                raise ValueError(
                    _(M.SPAGYRIC_SPN_IN_PLAY).format(
                        n=in_play, color=_(K.COLOR[c]), beaten_n=beaten, beaten=_(K.COLOR[BEATS[c]])
                    )
                )
        if self.phase == PLACE:
            assert self.placer is not None and self.placing is not None
            if self.won(self.placer, self.placing) < 1:
                raise ValueError(
                    _(M.SPAGYRIC_SPN_CANNOT_PLACE).format(
                        name=names[self.placer],
                        color=_(K.COLOR[self.placing]),
                        other=names[1 - self.placer],
                        beaten=_(K.COLOR[BEATS[self.placing]]),
                    )
                )
        deciding = deciding_groups(self._board)
        if self.phase != OVER:
            if deciding:
                color, group = deciding[0]
                raise ValueError(
                    _(M.SPAGYRIC_SPN_GROUP_ON).format(n=group.bit_count(), color=_(K.COLOR[color]), sites=_sites(group))
                )
            if self.phase == SUDDEN and not full:
                raise ValueError(_(M.SPAGYRIC_SPN_SUDDEN_NOT_FULL))
            if self.phase != SUDDEN and full:
                raise ValueError(_(M.SPAGYRIC_SPN_FULL))
            if self.phase == REVEAL and (not any(self.supply[0]) or not any(self.supply[1])):
                raise ValueError(_(M.SPAGYRIC_SPN_NO_CHOICE))
            return
        if self.winner is None:
            if deciding:
                raise ValueError(_(M.SPAGYRIC_SPN_DRAW_GROUP))
            if full:
                raise ValueError(_(M.SPAGYRIC_SPN_DRAW_FULL))
            if any(self.supply[0]) and any(self.supply[1]):
                raise ValueError(_(M.SPAGYRIC_SPN_DRAW_BALLS))
            return
        if any(self.stunned):
            raise ValueError(_(M.SPAGYRIC_SPN_WON_STUNNED))
        if not deciding:
            if not full:
                raise ValueError(_(M.SPAGYRIC_SPN_NO_WIN).format(name=names[self.winner]))
            return  # won the sudden death
        if len(deciding) > 1:
            raise ValueError(_(M.SPAGYRIC_SPN_TWO_GROUPS))
        self._check_last_placement(*deciding[0])

    def _check_last_placement(self, color: int, group: int) -> None:
        """The one deciding group must come from a last placement by the right player."""
        assert self.winner is not None
        names = [_(name) for name in self.game.player_names()]
        size = group.bit_count()
        maker = self.winner if size == WINNING_SIZE else 1 - self.winner
        occupied = self._board.occupied
        if self.won(maker, color) < 1:
            raise ValueError(_(M.SPAGYRIC_SPN_MAKER).format(n=size, color=_(K.COLOR[color]), name=names[maker]))
        for site in iter_sites(group):
            if ABOVE[site] & occupied:
                continue  # a ball rests on it, so it was not placed last
            rest = group & ~BB_SITES[site]
            if all(g.bit_count() <= 2 for g in groups(rest)):
                return
        raise ValueError(_(M.SPAGYRIC_SPN_NO_LAST).format(n=size, color=_(K.COLOR[color]), sites=_sites(group)))


def _sites(mask: int) -> str:
    return " ".join(SITE_NAMES[s] for s in iter_sites(mask))
