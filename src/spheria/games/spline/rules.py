"""Spline (Néstor Romeral Andrés): the first to fill a line spanning one level with their colour wins.

White (seat 0) and Black (seat 1) take turns, White first, each placing one ball of their own
colour on any site that can hold a ball (an empty level-0 site, or a site resting on four
balls). Whoever completes a straight line of their own colour spanning a level wins at once:
a row, column or diagonal of 4 on level 0, of 3 on level 1, or of 2 on level 2. Only the
mover's colour is checked: a ball never completes a line for the opponent.

If the pyramid filled with no line the game would be a draw, but that cannot happen: on the
2×2 level 2 every pair of sites is a row, a column or a diagonal, so at the latest the third
ball placed on level 2 makes a line (two of three balls share a colour). So the top site
``3a1`` is never played, no game reaches a full pyramid, and every game has a winner.

Moves are sites, written ``0a1`` (level, file, rank). Position notation is
``<board> <player to move: 1|2>``; the board uses ``w`` and ``b`` only.

>>> import spheria
>>> state = spheria.load_game("spline").new_initial_state()
>>> for text in ("0a1", "0a2", "0b1", "0b2", "0c1", "0c2"):
...     state.apply(state.parse_move(text))
>>> state.apply(state.parse_move("0d1"))
>>> state.returns(), state.to_spn()
([1.0, -1.0], 'wwwwbbb........./........./..../. 2')
"""

from __future__ import annotations

from dataclasses import dataclass

from spheria.engine.board import (
    ABOVE,
    BB_SITES,
    BELOW,
    NUM_SITES,
    SITE_LEVEL,
    SITE_NAMES,
    SPAN_LINES,
    Board,
    BoardView,
    iter_sites,
    parse_site,
    placeable,
)
from spheria.games.spline import messages as M
from spheria.i18n import N_, ngettext
from spheria.i18n import gettext as _
from spheria.kernel import messages as K
from spheria.kernel.game import (
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
from spheria.kernel.registry import register

WHITE_SEAT, BLACK_SEAT = 0, 1
COLOR_WORDS = (N_("White"), N_("Black"))


@dataclass(frozen=True, slots=True)
class SplineMove:
    """A ball placed on ``site``.

    >>> SplineMove.parse("1b2")
    SplineMove(site=20)
    >>> str(SplineMove(20))
    '1b2'
    """

    site: int

    def __post_init__(self) -> None:
        checked_site(self.site)

    def __str__(self) -> str:
        return SITE_NAMES[self.site]

    @classmethod
    def parse(cls, text: str) -> SplineMove:
        """The move onto the site named ``text``; :class:`InvalidMoveError` if it names none."""
        try:
            return MOVES[parse_site(move_text(text))]
        except InvalidMoveError:
            raise
        except ValueError as error:
            raise InvalidMoveError(str(error)) from None


#: One immutable move per site, shared by every state.
MOVES: tuple[SplineMove, ...] = tuple(SplineMove(s) for s in range(NUM_SITES))

#: The winning lines as masks, and for each site the masks of the lines through it.
LINE_MASKS: tuple[int, ...] = tuple(sum(1 << s for s in line) for line in SPAN_LINES)
LINES_AT: tuple[tuple[int, ...], ...] = tuple(tuple(m for m in LINE_MASKS if m >> s & 1) for s in range(NUM_SITES))
#: For each site, the (site bit, support mask) of every site resting on it: what a ball there may unlock.
_UNLOCK: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((1 << t, BELOW[t]) for t in iter_sites(ABOVE[s])) for s in range(NUM_SITES)
)

# Legal move lists straight from the placeable mask, ten sites at a time: no per-site loop.
_CHUNK = 10


def _chunk_table(first: int) -> tuple[tuple[SplineMove, ...], ...]:
    sites = [s for s in range(first, first + _CHUNK) if s < NUM_SITES]
    return tuple(tuple(MOVES[s] for s in sites if m >> (s - first) & 1) for m in range(1 << len(sites)))


_MOVES_0 = _chunk_table(0)
_MOVES_1 = _chunk_table(_CHUNK)
_MOVES_2 = _chunk_table(2 * _CHUNK)


def moves_of(mask: int) -> list[SplineMove]:
    """The moves onto the sites of ``mask``, lowest site first."""
    return [*_MOVES_0[mask & 1023], *_MOVES_1[mask >> 10 & 1023], *_MOVES_2[mask >> 20]]


def lines_of(mask: int) -> list[int]:
    """The winning-line masks fully inside ``mask`` (one colour's balls)."""
    return [line for line in LINE_MASKS if mask & line == line]


def _line_names(line: int) -> str:
    return " ".join(SITE_NAMES[s] for s in iter_sites(line))


@register
class Spline(Game):
    name = "spline"
    title = N_("Spline")
    board_fields = (("1", "2"),)

    def player_names(self) -> list[str]:
        return list(COLOR_WORDS)

    def new_initial_state(self, seed: int | None = None) -> SplineState:
        return SplineState(self, 0, 0, WHITE_SEAT, seed)

    def state_from_spn(self, text: str) -> SplineState:
        """A state from ``<board> <player 1|2>``; raises ``ValueError`` naming what is impossible.

        A position with a line is accepted only as the end of a game: the line's owner placed
        the last ball, that ball lies on all of their lines, and nothing rests on it.
        """
        fields = self.spn_fields(text)
        if len(fields) != 2:
            raise ValueError(_(M.SPLINE_SPN_FIELDS).format(n=len(fields)))
        board = Board.from_spn(fields[0])
        white, black, red = board.masks
        if red:
            raise ValueError(_(M.SPLINE_NO_RED).format(sites=_line_names(red)))
        if fields[1] not in ("1", "2"):
            raise ValueError(_(K.SPN_PLAYER).format(text=repr(fields[1])))
        player = int(fields[1]) - 1
        nw, nb = white.bit_count(), black.bit_count()
        if nw - nb not in (0, 1):
            raise ValueError(_(M.SPLINE_COUNTS).format(white=nw, black=nb))
        if nw - nb != player:
            raise ValueError(
                _(M.SPLINE_WRONG_MOVER).format(
                    white=nw, black=nb, color=_(COLOR_WORDS[nw - nb]), given=_(COLOR_WORDS[player])
                )
            )
        state = SplineState(self, white, black, player, None)
        white_lines, black_lines = lines_of(white), lines_of(black)
        if white_lines and black_lines:
            raise ValueError(
                _(M.SPLINE_BOTH_LINES).format(
                    white_line=_line_names(white_lines[0]), black_line=_line_names(black_lines[0])
                )
            )
        if white_lines or black_lines:
            winner = WHITE_SEAT if white_lines else BLACK_SEAT
            lines = white_lines or black_lines
            if winner != 1 - player:
                raise ValueError(
                    _(M.SPLINE_LINE_NOT_LAST).format(color=_(COLOR_WORDS[winner]), line=_line_names(lines[0]))
                )
            occupied = white | black
            common = ~0
            for line in lines:
                common &= line
            last = [s for s in iter_sites(common) if not ABOVE[s] & occupied]
            if not last:
                names = _(K.LIST_SEPARATOR).join(_line_names(line) for line in lines)
                raise ValueError(_(M.SPLINE_LINES_NOT_LAST).format(color=_(COLOR_WORDS[winner]), lines=names))
            state._winner = winner
            state._placeable = 0
        return state


class SplineObservation(PerfectObservation):
    """A Spline observation: everything, and the winning seat (``None`` before the end)."""

    winner: int | None


class SplineState(State[SplineMove]):
    """A Spline position: the two colour masks and the player to move.

    The state keeps ``_placeable``, the mask of legal sites (0 once the game is over), and an
    undo stack of the previous masks, so a move costs a few integer operations.
    """

    def __init__(self, game: Spline, white: int, black: int, player: int, seed: int | None) -> None:
        self.game: Spline = game
        self.seed = seed
        self.player = player
        self._masks = [white, black]
        self._occupied = white | black
        self._placeable = placeable(self._occupied)
        self._winner = -1
        self._history: list[SplineMove] = []
        self._undo: list[int] = []

    # -- queries -----------------------------------------------------------------------

    def current_player(self) -> int:
        return self.player if self._placeable else TERMINAL

    def is_terminal(self) -> bool:
        return not self._placeable

    def returns(self) -> list[float]:
        if self._winner < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if self._winner == WHITE_SEAT else [-1.0, 1.0]

    def legal_moves(self, player: int | None = None) -> list[SplineMove]:
        mask = self._placeable
        if player is not None and self.check_seat(player) != self.player:
            return []
        return [*_MOVES_0[mask & 1023], *_MOVES_1[mask >> 10 & 1023], *_MOVES_2[mask >> 20]]

    def masks(self) -> tuple[int, int]:
        """The white and black masks."""
        return self._masks[0], self._masks[1]

    def placeable_mask(self) -> int:
        """The mask of the sites the player to move may fill (0 when the game is over)."""
        return self._placeable

    def key(self) -> int:
        """A cheap hashable key of the position (the player to move follows from the counts)."""
        return self._masks[0] | self._masks[1] << NUM_SITES

    @property
    def winner(self) -> int | None:
        return None if self._winner < 0 else self._winner

    @property
    def board(self) -> BoardView:
        """The balls as a read-only snapshot (the state's own masks change only by moves)."""
        return BoardView(self._masks[0], self._masks[1])

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: SplineMove) -> None:
        if type(move) is not SplineMove:
            raise self._illegal(move)
        site = move.site
        bit = BB_SITES[site]
        free = self._placeable
        if not free & bit:
            raise self._illegal(move)
        player = self.player
        mine = self._masks[player] | bit
        self._masks[player] = mine
        occupied = self._occupied | bit
        self._occupied = occupied
        self._undo.append(free)
        self._history.append(move)
        self.player = 1 - player
        for line in LINES_AT[site]:
            if mine & line == line:
                self._winner = player
                self._placeable = 0
                return
        free ^= bit
        for above, below in _UNLOCK[site]:
            if occupied & below == below:
                free |= above
        self._placeable = free

    def undo(self) -> SplineMove:
        move = self._history.pop()
        bit = BB_SITES[move.site]
        player = 1 - self.player
        self.player = player
        self._masks[player] ^= bit
        self._occupied ^= bit
        self._placeable = self._undo.pop()
        self._winner = -1
        return move

    def _illegal(self, move: object) -> MoveError:
        if not isinstance(move, SplineMove):
            return InvalidMoveError(f"{move!r} is not a Spline move")
        if not self._placeable:
            return IllegalMoveError(_(K.GAME_OVER))
        site = move.site
        name = SITE_NAMES[site]
        if self._occupied >> site & 1:
            return IllegalMoveError(_(M.SPLINE_TAKEN).format(site=name))
        missing = BELOW[site] & ~self._occupied
        text = ngettext(M.SPLINE_NOT_ON_FOUR, missing.bit_count())
        return IllegalMoveError(text.format(site=name, empty=_line_names(missing)))

    def parse_move(self, text: str, player: int | None = None) -> SplineMove:
        move = SplineMove.parse(text)
        if player is not None and self.check_seat(player) != self.player and self._placeable:
            raise IllegalMoveError(
                _(M.SPLINE_TURN).format(color=_(COLOR_WORDS[self.player]), other=_(COLOR_WORDS[player]))
            )
        if not self._placeable & BB_SITES[move.site]:
            raise self._illegal(move)
        return move

    def clone(self) -> SplineState:
        state = SplineState.__new__(SplineState)
        state.game = self.game
        state.seed = self.seed
        state.player = self.player
        state._masks = self._masks[:]
        state._occupied = self._occupied
        state._placeable = self._placeable
        state._winner = self._winner
        state._history = self._history[:]
        state._undo = self._undo[:]
        return state

    # -- text --------------------------------------------------------------------------

    def to_spn(self) -> str:
        return f"{self.board.spn()} {self.player + 1}"

    def __str__(self) -> str:
        return self.board.diagram()

    def winning_line(self) -> int:
        """The mask of the winner's line (0 if nobody has won)."""
        if self._winner < 0:
            return 0
        lines = lines_of(self._masks[self._winner])
        return lines[0] if lines else 0

    def result_mask(self) -> int:
        return self.winning_line()

    def result_reason(self) -> ResultReason | None:
        """``line`` (``seat`` filled a line spanning ``level``) or ``full`` (a draw: the pyramid is full)."""
        if self._winner >= 0:
            line = self.winning_line()
            return ResultReason("line", {"seat": self._winner, "level": SITE_LEVEL[(line & -line).bit_length() - 1]})
        return ResultReason("full", {}) if not self._placeable else None

    def status_lines(self, player: int | None = None) -> list[str]:
        if player is not None:
            self.check_seat(player)
        white, black = self._masks
        counts = _(M.SPLINE_PLACED).format(white=white.bit_count(), black=black.bit_count())
        reason = self.result_reason()
        if reason is not None and reason.code == "line":
            color = _(COLOR_WORDS[reason.params["seat"]])
            line = _line_names(self.winning_line())
            return [_(M.SPLINE_WINS).format(color=color, line=line, level=reason.params["level"]), counts]
        if reason is not None:
            return [_(M.SPLINE_DRAW), counts]
        return [_(M.SPLINE_TO_PLACE).format(color=_(COLOR_WORDS[self.player])), counts]

    def move_hint(self, player: int | None = None) -> str:
        if player is not None:
            self.check_seat(player)
        return _(M.SPLINE_HINT)

    def observation(self, player: int) -> SplineObservation:
        self.check_seat(player)
        view: SplineObservation = {**self._perfect_observation(player), "winner": self.winner}
        return view
