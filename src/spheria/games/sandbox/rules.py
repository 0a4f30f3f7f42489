"""The Shibumi sandbox: a free board with the set's physics and no other rule (docs/rules.md, Sandbox).

One to four seats share the balls in the box (16 white, 16 black and 16 red unless the options say
otherwise). The seat to act places a ball of any colour left in the box on any site that can hold
one, removes a ball that is not pinned (the ball it held drops, by the engine's drop rule), or moves
a ball (remove and place as one action), as many times as it likes, then ends its turn. ``back``
takes back its last action of the turn. A seat may offer a result (a win for a seat, or a draw):
each other seat in turn accepts or declines; when all accept, the game ends with that result.

A turn of several actions is a run of moves by one seat: ``current_player()`` stays that seat until
``end``, so records, replay and every interface play it as any other game.

>>> import spheria
>>> state = spheria.load_game("sandbox").new_initial_state()
>>> for text in ("w 0a1", "b 0b1", "end"):
...     state.apply(state.parse_move(text))
>>> state.current_player(), state.to_spn()
(1, 'wb............../........./..../. 2')
>>> sorted(state.last_turn_marks().to_json()["placed"])
['0a1', '0b1']
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from spheria.engine.board import (
    ABOVE,
    BELOW,
    COLOR_CHARS,
    NUM_SITES,
    SITE_NAMES,
    Board,
    BoardView,
    can_hold,
    is_pinned,
    iter_sites,
    parse_site,
    placeable,
)
from spheria.games.sandbox import messages as M
from spheria.i18n import gettext as _
from spheria.i18n import ngettext
from spheria.kernel import messages as K
from spheria.kernel.game import (
    PICK_PREFIX,
    SEAT_COLOR_CODES,
    TERMINAL,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    PerfectObservation,
    ResultReason,
    State,
    checked_site,
    move_text,
)
from spheria.kernel.options import Option
from spheria.kernel.registry import register

PLACE, REMOVE, MOVE, BACK, END, OFFER, ACCEPT, DECLINE = (
    "place",
    "remove",
    "move",
    "back",
    "end",
    "offer",
    "accept",
    "decline",
)
#: The actions that change the board (``back`` takes them back, one by one).
BOARD_ACTIONS = (PLACE, REMOVE, MOVE)
#: The actions written as one word.
WORDS = (BACK, END, ACCEPT, DECLINE)
REMOVE_WORD = "x"
DRAW_WORD = "draw"

#: The marks of a turn on a drawn board: a placed, moved or dropped ball, an emptied site.
PLACED_MARK, MOVED_MARK, DROPPED_MARK, REMOVED_MARK = "+", ">", "v", "x"


@dataclass(frozen=True, slots=True)
class SandboxMove:
    """One sandbox action; ``str`` writes it as its record entry and :meth:`parse` reads it back.

    ``site`` is the site placed on or emptied (a move's source), ``target`` a move's target,
    ``color`` the colour placed (0 white, 1 black, 2 red) and ``winner`` the seat an offer names
    (``None``: a draw).

    >>> [str(SandboxMove.parse(t)) for t in ("W 0a1", "x 1b2", "0a1-0b2", "offer 2", "offer draw", "end")]
    ['w 0a1', 'x 1b2', '0a1-0b2', 'offer 2', 'offer draw', 'end']
    """

    action: str
    site: int | None = None
    target: int | None = None
    color: int | None = None
    winner: int | None = None

    def __post_init__(self) -> None:
        if self.action not in (*BOARD_ACTIONS, *WORDS, OFFER):
            raise InvalidMoveError(f"{self.action!r} is not a sandbox action")
        wants_site = self.action in BOARD_ACTIONS
        if wants_site:
            checked_site(self.site)
        elif self.site is not None:
            raise InvalidMoveError(f"a sandbox {self.action} names no site, not {self.site!r}")
        if self.action == MOVE:
            checked_site(self.target)
        elif self.target is not None:
            raise InvalidMoveError(f"a sandbox {self.action} names no target site, not {self.target!r}")
        if self.action == PLACE:
            if isinstance(self.color, bool) or self.color not in (0, 1, 2):
                raise InvalidMoveError(f"a sandbox place needs a colour 0..2, not {self.color!r}")
        elif self.color is not None:
            raise InvalidMoveError(f"a sandbox {self.action} names no colour, not {self.color!r}")
        if self.winner is not None and (
            self.action != OFFER or isinstance(self.winner, bool) or not isinstance(self.winner, int) or self.winner < 0
        ):
            raise InvalidMoveError(f"a sandbox {self.action} cannot name seat {self.winner!r}")

    def __str__(self) -> str:
        if self.action == PLACE:
            return f"{COLOR_CHARS[self.color or 0]} {SITE_NAMES[self.site or 0]}"
        if self.action == REMOVE:
            return f"{REMOVE_WORD} {SITE_NAMES[self.site or 0]}"
        if self.action == MOVE:
            return f"{SITE_NAMES[self.site or 0]}-{SITE_NAMES[self.target or 0]}"
        if self.action == OFFER:
            return f"{OFFER} {DRAW_WORD if self.winner is None else self.winner + 1}"
        return self.action

    @classmethod
    def parse(cls, text: str) -> SandboxMove:
        """The action written as ``text``; :class:`InvalidMoveError` naming the problem if it is none."""
        tokens = move_text(text).lower().split()
        if len(tokens) == 1 and tokens[0] in WORDS:
            return cls(tokens[0])
        if len(tokens) == 1 and "-" in tokens[0]:
            source, _dash, target = tokens[0].partition("-")
            return cls(MOVE, site=_site(source), target=_site(target))
        if len(tokens) == 2 and tokens[0] == OFFER:
            if tokens[1] == DRAW_WORD:
                return cls(OFFER)
            if not tokens[1].isdigit() or int(tokens[1]) < 1:
                raise InvalidMoveError(_(M.NOT_AN_OFFER).format(text=tokens[1]))
            return cls(OFFER, winner=int(tokens[1]) - 1)
        if len(tokens) == 2 and tokens[0] == REMOVE_WORD:
            return cls(REMOVE, site=_site(tokens[1]))
        if len(tokens) == 2 and len(tokens[0]) == 1 and tokens[0].isalpha():
            color = COLOR_CHARS.find(tokens[0])
            if color < 0:
                raise InvalidMoveError(_(M.NOT_A_COLOR).format(text=repr(tokens[0])))
            return cls(PLACE, site=_site(tokens[1]), color=color)
        raise InvalidMoveError(_(M.NOT_AN_ACTION).format(text=repr(text.strip())))


def _site(text: str) -> int:
    try:
        return parse_site(text)
    except ValueError as error:
        raise InvalidMoveError(str(error)) from None


def _names(mask: int) -> str:
    return " ".join(SITE_NAMES[s] for s in iter_sites(mask))


@dataclass(frozen=True)
class TurnMarks:
    """What one turn changed, as masks of sites: balls placed, moved and dropped (where they are
    now) and sites ``removed`` (a ball was on them when the turn began, and none is now). A ball
    placed and then dropped or moved in the same turn stays marked placed; a ball moved and then
    dropped stays marked moved."""

    seat: int
    placed: int
    moved: int
    dropped: int
    removed: int

    def diagram_marks(self) -> dict[int, str]:
        """The marks as :meth:`spheria.engine.board.BaseBoard.diagram` draws them beside each site."""
        marks: dict[int, str] = {}
        for mask, mark in (
            (self.placed, PLACED_MARK),
            (self.moved, MOVED_MARK),
            (self.dropped, DROPPED_MARK),
            (self.removed, REMOVED_MARK),
        ):
            marks.update(dict.fromkeys(iter_sites(mask), mark))
        return marks

    def to_json(self) -> dict[str, Any]:
        def names(mask: int) -> list[str]:
            return [SITE_NAMES[s] for s in iter_sites(mask)]

        return {
            "seat": self.seat,
            "placed": names(self.placed),
            "moved": names(self.moved),
            "dropped": names(self.dropped),
            "removed": names(self.removed),
        }

    def __bool__(self) -> bool:
        return bool(self.placed | self.moved | self.dropped | self.removed)


@dataclass(frozen=True)
class Offer:
    """A result offered by ``seat``: a win for ``winner`` (``None``: a draw), accepted so far by
    ``accepted`` of the other seats (they answer in seat order after ``seat``)."""

    seat: int
    winner: int | None
    accepted: int = 0


@register
class Sandbox(Game):
    name = "sandbox"
    title = M.SANDBOX_TITLE
    min_players = 1
    max_players = 4
    picking_modes = (PICK_PREFIX,)
    why_no_agents = M.NO_AGENTS
    free_board = True
    option_specs = (
        Option("players", 2, M.OPTION_PLAYERS, kind=int, minimum=1, maximum=4, label=M.LABEL_PLAYERS),
        Option("white", 16, M.OPTION_WHITE, kind=int, minimum=0, maximum=NUM_SITES, label=M.LABEL_WHITE),
        Option("black", 16, M.OPTION_BLACK, kind=int, minimum=0, maximum=NUM_SITES, label=M.LABEL_BLACK),
        Option("red", 16, M.OPTION_RED, kind=int, minimum=0, maximum=NUM_SITES, label=M.LABEL_RED),
        Option("own_colors", False, M.OPTION_OWN_COLORS, kind=bool, label=M.LABEL_OWN_COLORS),
    )

    def _resolve_options(self) -> None:
        if self._options["own_colors"] and self._options["players"] > len(COLOR_CHARS):
            raise ValueError(_(M.OWN_COLORS_SEATS).format(n=self._options["players"]))

    @property
    def num_players(self) -> int:
        return int(self._options["players"])

    @property
    def own_colors(self) -> bool:
        return bool(self._options["own_colors"])

    def box(self) -> tuple[int, int, int]:
        """The balls of each colour in the box (white, black, red)."""
        return (int(self._options["white"]), int(self._options["black"]), int(self._options["red"]))

    def player_names(self) -> list[str]:
        names = M.COLOR_SEAT_NAMES if self.own_colors else M.SEAT_NAMES
        return list(names[: self.num_players])

    def seat_colors(self) -> list[str | None]:
        if self.own_colors:
            return list(SEAT_COLOR_CODES[: self.num_players])
        return [None] * self.num_players

    @property
    def zero_sum(self) -> bool:
        """A win is +1 for the winner and -1 for every other seat: zero-sum with two seats only."""
        return self.num_players == 2

    def new_initial_state(self, seed: int | None = None) -> SandboxState:
        return SandboxState(self, Board(), 0, seed)

    def state_from_spn(self, text: str) -> SandboxState:
        """A state from ``<board> <seat to act 1..n>``: the start of that seat's turn."""
        fields = self.spn_fields(text)
        count = self.num_players
        if len(fields) != 2:
            raise ValueError(_(M.SPN_FIELDS).format(count=count, n=len(fields)))
        board = Board.from_spn(fields[0])
        for color, most in enumerate(self.box()):
            n = board.count(color)
            if n > most:
                raise ValueError(_(M.SPN_TOO_MANY).format(n=n, color=_(K.COLOR[color]), most=most))
        if not fields[1].isdigit() or not 1 <= int(fields[1]) <= count:
            raise ValueError(_(M.SPN_SEAT).format(count=count, text=repr(fields[1])))
        return SandboxState(self, board, int(fields[1]) - 1, None)


class SandboxObservation(PerfectObservation):
    """A sandbox observation: everything, with the balls left in the box (by colour code), the
    offer waiting for answers, the marks of the last ended turn and of the turn in progress."""

    box: dict[str, int]
    offer: dict[str, int | None] | None
    last_turn: dict[str, Any] | None
    this_turn: dict[str, Any]


#: Everything that changes during a game, to put back on ``undo``.
_Snapshot = tuple[
    int,
    tuple[int, int, int],
    tuple[tuple[tuple[int, int, int], tuple[tuple[int, str], ...]], ...],
    tuple[tuple[int, str], ...],
    int,
    "TurnMarks | None",
    "Offer | None",
    "tuple[bool, int | None]",
]


class SandboxState(State[SandboxMove]):
    """A sandbox position: the balls, the seat to act, and what its turn has done so far.

    The turn keeps, for each action, the board and marks before it (``back`` restores them); the
    marks follow each ball as it moves or drops. ``undo`` (the kernel's take-back) restores a
    snapshot of everything taken before each move.
    """

    def __init__(self, game: Sandbox, board: Board, player: int, seed: int | None) -> None:
        self.game: Sandbox = game
        self.seed = seed
        self.player = player
        self._board = board
        self._history: list[SandboxMove] = []
        #: The board and marks before each board action of the turn in progress.
        self._turn: list[tuple[tuple[int, int, int], dict[int, str]]] = []
        #: The marks of the turn in progress: site of a ball -> its mark (placed, moved, dropped).
        self._marks: dict[int, str] = {}
        self._turn_start = board.occupied
        self._last: TurnMarks | None = None
        self._offer: Offer | None = None
        self._ended = False
        self._winner: int | None = None
        self._snapshots: list[_Snapshot] = []

    # -- queries -----------------------------------------------------------------------

    def current_player(self) -> int:
        if self._ended:
            return TERMINAL
        offer = self._offer
        if offer is not None:
            return (offer.seat + 1 + offer.accepted) % self.game.num_players
        return self.player

    def is_terminal(self) -> bool:
        return self._ended

    def returns(self) -> list[float]:
        count = self.game.num_players
        if not self._ended or self._winner is None:
            return [0.0] * count
        return [1.0 if seat == self._winner else -1.0 for seat in range(count)]

    @property
    def board(self) -> BoardView:
        return self._board.view()

    @property
    def offer(self) -> Offer | None:
        """The result offered and waiting for answers, if any."""
        return self._offer

    def box(self) -> tuple[int, int, int]:
        """The balls of each colour still in the box (not on the board)."""
        white, black, red = self.game.box()
        board = self._board
        return (white - board.count(0), black - board.count(1), red - board.count(2))

    def turn_actions(self) -> int:
        """How many board actions the turn in progress holds (what ``back`` can take back)."""
        return len(self._turn)

    def this_turn_marks(self) -> TurnMarks:
        """What the turn in progress has changed so far."""
        by_mark = {mark: 0 for mark in (PLACED_MARK, MOVED_MARK, DROPPED_MARK)}
        for site, mark in self._marks.items():
            by_mark[mark] |= 1 << site
        return TurnMarks(
            self.player,
            by_mark[PLACED_MARK],
            by_mark[MOVED_MARK],
            by_mark[DROPPED_MARK],
            self._turn_start & ~self._board.occupied,
        )

    def last_turn_marks(self) -> TurnMarks | None:
        """What the last ended turn changed (for the next player to see); ``None`` before one ended."""
        return self._last

    def shown_marks(self) -> TurnMarks | None:
        """The marks a board shows now: the turn in progress once it changed something, else the last turn's."""
        current = self.this_turn_marks()
        return current if current else self._last

    def legal_moves(self, player: int | None = None) -> list[SandboxMove]:
        if self._ended or (player is not None and self.check_seat(player) != self.current_player()):
            return []
        if self._offer is not None:
            return [SandboxMove(ACCEPT), SandboxMove(DECLINE)]
        board, seat = self._board, self.player
        occupied = board.occupied
        moves: list[SandboxMove] = []
        left = self.box()
        for color in range(len(COLOR_CHARS)):
            if left[color] and self._may_handle(seat, color):
                moves.extend(SandboxMove(PLACE, site=s, color=color) for s in iter_sites(placeable(occupied)))
        movable = [s for s in iter_sites(occupied) if not is_pinned(occupied, s)]
        moves.extend(SandboxMove(REMOVE, site=s) for s in movable)
        for source in movable:
            if not self._may_handle(seat, board.color_at(source)):
                continue
            after = board.copy()
            after.remove(source)
            targets = placeable(after.occupied) & ~(1 << source)
            moves.extend(SandboxMove(MOVE, site=source, target=t) for t in iter_sites(targets))
        if self._turn:
            moves.append(SandboxMove(BACK))
        moves.append(SandboxMove(OFFER))
        moves.extend(SandboxMove(OFFER, winner=w) for w in range(self.game.num_players))
        moves.append(SandboxMove(END))
        return moves

    def _may_handle(self, seat: int, color: int | None) -> bool:
        """Whether ``seat`` may place or move a ball of ``color`` (any, unless seats own colours)."""
        return not self.game.own_colors or color == seat

    # -- refusals ------------------------------------------------------------------------

    def _seat_name(self, seat: int) -> str:
        return _(self.game.player_names()[seat])

    def _result_words(self, winner: int | None) -> str:
        return _(M.RESULT_DRAW) if winner is None else _(M.RESULT_WIN).format(name=self._seat_name(winner))

    def _refusal(self, move: object) -> MoveError | None:
        """Why ``move`` cannot be played now, or ``None`` if it can."""
        if not isinstance(move, SandboxMove):
            return InvalidMoveError(f"{move!r} is not a sandbox move")
        if move.action == OFFER and move.winner is not None and move.winner >= self.game.num_players:
            return InvalidMoveError(_(M.NOT_A_SEAT).format(text=move.winner + 1, count=self.game.num_players))
        if self._ended:
            return IllegalMoveError(_(K.GAME_OVER))
        offer = self._offer
        if move.action in (ACCEPT, DECLINE):
            if offer is None:
                return IllegalMoveError(_(M.NO_OFFER).format(answer=move.action))
            return None
        if offer is not None:
            return IllegalMoveError(
                _(M.OFFER_WAITING).format(
                    name=self._seat_name(offer.seat),
                    result=self._result_words(offer.winner),
                    answerer=self._seat_name(self.current_player()),
                )
            )
        if move.action == BACK and not self._turn:
            return IllegalMoveError(_(M.NOTHING_TO_TAKE_BACK))
        if move.action in BOARD_ACTIONS:
            return self._board_refusal(move)
        return None

    def _board_refusal(self, move: SandboxMove) -> MoveError | None:
        board, seat = self._board, self.player
        site = move.site if move.site is not None else 0
        name = SITE_NAMES[site]
        if move.action == PLACE:
            color = move.color if move.color is not None else 0
            if not self._may_handle(seat, color):
                return self._not_own(color)
            if not self.box()[color]:
                return IllegalMoveError(_(M.NONE_LEFT).format(color=_(K.COLOR[color]), n=self.game.box()[color]))
            return self._hold_refusal(board.occupied, site)
        color_there = board.color_at(site)
        if color_there is None:
            return IllegalMoveError(_(M.NO_BALL).format(site=name))
        if board.is_pinned(site):
            return IllegalMoveError(_(M.PINNED).format(site=name, above=_names(ABOVE[site] & board.occupied)))
        if move.action == REMOVE:
            return None
        if not self._may_handle(seat, color_there):
            return self._not_own(color_there)
        target = move.target if move.target is not None else 0
        if target == site:
            return IllegalMoveError(_(M.SAME_SITE).format(site=name))
        after = board.copy()
        after.remove(site)
        reason = self._hold_refusal(after.occupied, target)
        if reason is None:
            return None
        return IllegalMoveError(_(M.ONCE_LEFT).format(source=name, reason=reason))

    def _not_own(self, color: int) -> IllegalMoveError:
        seat = self.player
        return IllegalMoveError(
            _(M.NOT_OWN_COLOR).format(name=self._seat_name(seat), own=_(K.COLOR[seat]), color=_(K.COLOR[color]))
        )

    @staticmethod
    def _hold_refusal(occupied: int, site: int) -> IllegalMoveError | None:
        if can_hold(occupied, site):
            return None
        name = SITE_NAMES[site]
        if occupied >> site & 1:
            return IllegalMoveError(_(M.TAKEN).format(site=name))
        missing = BELOW[site] & ~occupied
        return IllegalMoveError(ngettext(M.UNSUPPORTED, missing.bit_count()).format(site=name, empty=_names(missing)))

    def _turn_refusal(self, player: int) -> IllegalMoveError | None:
        to_act = self.current_player()
        if self._ended or player == to_act:
            return None
        offer = self._offer
        if offer is not None:
            return IllegalMoveError(
                _(M.ANSWER_TURN).format(
                    answerer=self._seat_name(to_act), name=self._seat_name(offer.seat), other=self._seat_name(player)
                )
            )
        return IllegalMoveError(_(M.TURN).format(name=self._seat_name(to_act), other=self._seat_name(player)))

    def parse_move(self, text: str, player: int | None = None) -> SandboxMove:
        move = SandboxMove.parse(text)
        if player is not None:
            refused = self._turn_refusal(self.check_seat(player))
            if refused is not None:
                raise refused
        refusal = self._refusal(move)
        if refusal is not None:
            raise refusal
        return move

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: SandboxMove) -> None:
        refusal = self._refusal(move)
        if refusal is not None:
            raise refusal
        self._snapshots.append(self._snapshot())
        self._history.append(move)
        action = move.action
        if action in BOARD_ACTIONS:
            self._turn.append((self._board.key(), dict(self._marks)))
            self._act(move)
        elif action == BACK:
            masks, marks = self._turn.pop()
            self._board = Board(*masks)
            self._marks = marks
        elif action == END:
            self._last = self.this_turn_marks()
            self.player = (self.player + 1) % self.game.num_players
            self._turn = []
            self._marks = {}
            self._turn_start = self._board.occupied
        elif action == OFFER:
            self._offer = Offer(self.player, move.winner)
            self._settle_offer()
        elif action == ACCEPT:
            offer = self._offer
            assert offer is not None  # checked by _refusal
            self._offer = Offer(offer.seat, offer.winner, offer.accepted + 1)
            self._settle_offer()
        else:  # DECLINE: the offering seat goes on with its turn
            self._offer = None

    def _settle_offer(self) -> None:
        offer = self._offer
        if offer is not None and offer.accepted == self.game.num_players - 1:
            self._ended, self._winner, self._offer = True, offer.winner, None

    def _act(self, move: SandboxMove) -> None:
        """Place, remove or move, carrying each ball's mark with it (checked legal)."""
        board, marks = self._board, self._marks
        site = move.site if move.site is not None else 0
        if move.action == PLACE:
            board.place(site, move.color if move.color is not None else 0)
            marks[site] = PLACED_MARK
            return
        color = board.color_at(site)
        mark = marks.pop(site, None)
        chain = board.remove(site)
        for lower, upper in itertools.pairwise(chain):  # the ball on upper dropped to lower
            dropped = marks.pop(upper, DROPPED_MARK)
            marks[lower] = dropped
        if move.action == MOVE:
            target = move.target if move.target is not None else 0
            board.place(target, color if color is not None else 0)
            marks[target] = PLACED_MARK if mark == PLACED_MARK else MOVED_MARK

    def _snapshot(self) -> _Snapshot:
        return (
            self.player,
            self._board.key(),
            tuple((masks, tuple(marks.items())) for masks, marks in self._turn),
            tuple(self._marks.items()),
            self._turn_start,
            self._last,
            self._offer,
            (self._ended, self._winner),
        )

    def undo(self) -> SandboxMove:
        player, masks, turn, marks, start, last, offer, (ended, winner) = self._snapshots.pop()
        self.player = player
        self._board = Board(*masks)
        self._turn = [(board, dict(saved)) for board, saved in turn]
        self._marks = dict(marks)
        self._turn_start = start
        self._last = last
        self._offer = offer
        self._ended, self._winner = ended, winner
        return self._history.pop()

    def clone(self) -> SandboxState:
        state = SandboxState(self.game, self._board.copy(), self.player, self.seed)
        state._history = self._history[:]
        state._turn = [(masks, dict(marks)) for masks, marks in self._turn]
        state._marks = dict(self._marks)
        state._turn_start = self._turn_start
        state._last = self._last
        state._offer = self._offer
        state._ended, state._winner = self._ended, self._winner
        state._snapshots = self._snapshots[:]
        return state

    # -- text --------------------------------------------------------------------------

    def to_spn(self) -> str:
        return f"{self._board.spn()} {self.player + 1}"

    def __str__(self) -> str:
        """The board, each site marked as :meth:`shown_marks` says."""
        marks = self.shown_marks()
        return self._board.diagram(marks.diagram_marks() if marks else None)

    def result_reason(self) -> ResultReason | None:
        """Every seat accepted the result offered: ``agreed_win`` (``seat`` the winner) or ``agreed_draw``."""
        if not self._ended:
            return None
        if self._winner is None:
            return ResultReason("agreed_draw", {})
        return ResultReason("agreed_win", {"seat": self._winner})

    def status_lines(self, player: int | None = None) -> list[str]:
        if player is not None:
            self.check_seat(player)
        left = self.box()
        counts = _(K.COUNTS).format(white=left[0], black=left[1], red=left[2])
        in_box = _(M.IN_HAND).format(counts=counts)
        if self._ended:
            if self._winner is None:
                return [_(M.AGREED_DRAW), in_box]
            return [_(M.AGREED_WIN).format(name=self._seat_name(self._winner)), in_box]
        offer = self._offer
        if offer is not None:
            first = _(M.OFFERED).format(
                name=self._seat_name(offer.seat),
                result=self._result_words(offer.winner),
                answerer=self._seat_name(self.current_player()),
            )
        else:
            first = ngettext(M.TO_ACT, len(self._turn)).format(name=self._seat_name(self.player), n=len(self._turn))
        lines = [first, in_box]
        if self.this_turn_marks():
            lines.append(_(M.MARKS_THIS_TURN))
        elif self._last:
            lines.append(_(M.MARKS_LAST_TURN).format(name=self._seat_name(self._last.seat)))
        return lines

    def move_hint(self, player: int | None = None) -> str:
        if player is not None:
            self.check_seat(player)
        offer = self._offer
        if offer is not None:
            return _(M.HINT_ANSWER).format(name=self._seat_name(offer.seat), result=self._result_words(offer.winner))
        return _(M.HINT)

    def observation(self, player: int) -> SandboxObservation:
        self.check_seat(player)
        left = self.box()
        offer = self._offer
        view: SandboxObservation = {
            **self._perfect_observation(player),
            "box": {code: left[color] for color, code in enumerate(SEAT_COLOR_CODES)},
            "offer": None if offer is None else {"seat": offer.seat, "winner": offer.winner},
            "last_turn": None if self._last is None else self._last.to_json(),
            "this_turn": self.this_turn_marks().to_json(),
        }
        return view
