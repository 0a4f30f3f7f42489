"""Spinca: build a 29-marble temple, moving one free marble before each placement.

Seats and colours (option ``players``, default 2):

* ``players=2`` — White (seat 0) and Black (seat 1), placing 15 and 14 marbles.
* ``players=3`` — White, Black and Red, placing 10, 10 and 9 marbles.
* ``players=4`` — two teams that share a colour, seated White-A, Black-A, White-B, Black-B
  (turns go in that order). The 29 placements fall 8/7/7/7 on the seats, so the white team
  places 15 and the black team 14, as in the two-player game.

The temple is the pyramid without its top: the 29 sites of levels 0–2. The top site ``3a1``
is never used, neither for a placement nor as a relocation target. A turn is:

1. *Optionally*, relocate one *free* marble of any colour to an empty site of the same level
   that is next to it (orthogonally or diagonally) and can hold a ball. A marble is free
   when it is not locked, not pinned (holding up two or more marbles), and leaving its site
   would not make a locked marble tumble. A marble that held up one marble lets it (and the
   chain above it) tumble down into the vacated site.
2. Place one marble of one's own colour on any site of the temple that can hold a ball,
   judged on the board as the relocation left it (the site just vacated included).

Every marble that was relocated, tumbled (at its new site) or placed during a turn is locked
for the next player's turn only. The game ends after the 29th placement.

Scoring: each of the four outer faces (9 sites each: row 0, last row, col 0 or last col of
levels 0–2; the 12 corner sites lie on two faces) gives each side the size of its smallest
group on that face, where two marbles of the face are connected when they touch; 0 where
the side has no marble on the face. A side's score is the sum over the faces. The *inner
pyramid* is the 5 sites on no face (``0b2 0c2 0b3 0c3 1b2``). Winner with 2 sides (2 players
or 2 teams): highest sum, then most inner marbles, else a draw. With 3 players: highest sum;
two tied for the highest sum → the third player wins; three tied → most inner marbles; two
tied for the most inner marbles → the third player wins; all three tied again → a draw.
With 5 inner sites the inner counts cannot tie between two colours, nor three ways, so the
draws are never reached from a complete temple; they exist for completeness.

Decisions where the rules are silent:

* The target of a relocation is judged on the board after the marble has left its source.
  This never changes the answer: the target lies on the source's level and rests on the
  level below, which the tumble chain (the source and sites above it) never touches, and the
  only site a relocation empties is the top of the chain, which is never on the source's
  level. A relocation therefore never makes its own target unsupported or occupied.
* The placement may use a site the relocation just opened: the vacated site, the top of a
  tumble chain, or a platform completed by the moved marble.
* Two turns that leave the same board and the same locks are one move (for example moving
  one's own marble to ``x`` and placing on ``y`` against moving it to ``y`` and placing on
  ``x``): :meth:`SpincaState.legal_moves` lists each such outcome once, and every spelling of
  it is accepted as input.

Position notation (SPN) is ``<board> <player to move 1..N> <locked sites or ->``, e.g.
``w.b............./........./..../. 3 0a1,0c1`` with three players: Red to move after Black
moved the white marble to ``0a1`` and placed on ``0c1``. The player field is the seat that
moves (on a finished temple, the seat that would be next); since each turn places one
marble it must agree with the number of marbles on the board, and the colour counts must
follow the turn order. The locks must sit on marbles, be at most four (one moved, two
tumbled, one placed) and include a marble of the colour that played last. A move is written as the
placement site (``1b2``), or as a relocation ``from-to`` then the placement site
(``0a1-0b2 1b2``).

>>> import spheria
>>> state = spheria.load_game("spinca").state_from_spn("w.......b......./........./..../. 1 0a3")
>>> state.parse_move("0a1-0b2 0a1")
SpincaMove(place=0, source=0, target=5)
>>> state.apply(state.parse_move("0a1-0b2 0a1"))
>>> state.to_spn()
'w....w..b......./........./..../. 2 0a1,0b2'
>>> state.parse_move("0a1-0a2 0d4")
Traceback (most recent call last):
...
spheria.kernel.game.IllegalMoveError: 0a1 is locked: it moved or was placed on the last turn
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from spheria.engine.board import (
    ABOVE,
    ADJACENT,
    ALL_SITES,
    BB_SITES,
    BELOW,
    LEVEL_SIZES,
    SITE_COORDS,
    SITE_LEVEL,
    SITE_NAMES,
    TOP,
    TOUCHING,
    Board,
    BoardView,
    drop_chain,
    groups,
    iter_sites,
    parse_site,
    shift_down,
)
from spheria.games.spinca import messages as M
from spheria.i18n import N_, ngettext
from spheria.i18n import gettext as _
from spheria.i18n.width import pad
from spheria.kernel import messages as K
from spheria.kernel.game import (
    A_BALL_SITE,
    PICK_RELOCATE,
    SEAT_COLOR_CODES,
    TERMINAL,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    PerfectObservation,
    ResultReason,
    State,
    checked_site,
    move_text,
)
from spheria.kernel.options import Option
from spheria.kernel.registry import register

#: Marbles placed in a whole game: every site but the top.
PLACEMENTS = 29
#: The 29 sites of the temple (levels 0–2).
TEMPLE = ALL_SITES & ~BB_SITES[TOP]

SEAT_NAMES: dict[int, tuple[str, ...]] = {
    2: ("White", "Black"),
    3: ("White", "Black", "Red"),
    4: ("White-A", "Black-A", "White-B", "Black-B"),
}
#: The colour each seat places; with 4 seats a team shares a colour.
SEAT_COLORS: dict[int, tuple[int, ...]] = {2: (0, 1), 3: (0, 1, 2), 4: (0, 1, 0, 1)}
#: The sides that are scored: one colour each (a team in the 4-seat game).
SIDE_NAMES: dict[int, tuple[str, ...]] = {
    2: ("White", "Black"),
    3: ("White", "Black", "Red"),
    4: ("White team", "Black team"),
}

FACE_NAMES = ("south", "east", "north", "west")


def _on_face(site: int, face: int) -> bool:
    level, row, col = SITE_COORDS[site]
    last = LEVEL_SIZES[level] - 1
    return (row == 0, col == last, row == last, col == 0)[face]


#: The nine sites of each face, in ``FACE_NAMES`` order: south is rank 1 of every level,
#: east the last file, north the last rank, west file a.
FACES: tuple[int, ...] = tuple(sum(BB_SITES[s] for s in iter_sites(TEMPLE) if _on_face(s, face)) for face in range(4))
#: ``FACE_TOUCHING[f][s]``: the sites of face ``f`` that touch ``s``.
FACE_TOUCHING: tuple[tuple[int, ...], ...] = tuple(
    tuple(TOUCHING[s] & FACES[face] for s in range(len(TOUCHING))) for face in range(4)
)
#: The inner pyramid: the 5 temple sites on no face.
INNER = TEMPLE & ~(FACES[0] | FACES[1] | FACES[2] | FACES[3])


Masks = tuple[int, int, int]


def seat_quotas(players: int) -> tuple[int, ...]:
    """Marbles each seat places in a whole game.

    >>> seat_quotas(2), seat_quotas(3), seat_quotas(4)
    ((15, 14), (10, 10, 9), (8, 7, 7, 7))
    """
    return tuple((PLACEMENTS - seat + players - 1) // players for seat in range(players))


def expected_counts(players: int, placed: int) -> Masks:
    """The white, black and red marbles on the board after ``placed`` turns."""
    counts = [0, 0, 0]
    for seat, color in enumerate(SEAT_COLORS[players]):
        counts[color] += max(0, (placed - seat + players - 1) // players)
    return (counts[0], counts[1], counts[2])


def temple_placeable(occupied: int) -> int:
    """The temple sites that can take a marble now (never the top).

    Bit-parallel: a 2x2 block of a level is full where the level's mask ANDed with its shifts
    by one file, one rank and both is set; those block bits are then packed into the next
    level's site numbering.

    >>> from spheria.engine.board import placeable
    >>> full_level0 = (1 << 16) - 1
    >>> temple_placeable(full_level0) == placeable(full_level0)
    True
    """
    o0 = occupied & 0xFFFF
    f0 = o0 & o0 >> 1 & o0 >> 4 & o0 >> 5 & 0x777  # level-0 blocks at rows 0-2, cols 0-2
    o1 = occupied >> 16 & 0x1FF
    f1 = o1 & o1 >> 1 & o1 >> 3 & o1 >> 4 & 0x1B  # level-1 blocks at rows 0-1, cols 0-1
    up = (f0 & 0x7 | f0 >> 1 & 0x38 | f0 >> 2 & 0x1C0) << 16 | (f1 & 0x3 | f1 >> 1 & 0xC) << 25
    return (~occupied & 0xFFFF) | (up & ~occupied)


def face_groups(mask: int, face: int) -> list[int]:
    """The connected groups of ``mask`` on one face, touching only through that face's sites."""
    return groups(mask & FACES[face], FACE_TOUCHING[face])


@dataclass(frozen=True)
class SpincaScore:
    """One side's score: per face the sizes of its groups there and the smallest of them.

    ``faces`` follows ``FACE_NAMES`` (south, east, north, west); ``total`` is their sum and
    ``inner`` the side's marbles in the inner pyramid (the tie-break).
    """

    color: int
    faces: tuple[int, int, int, int]
    groups: tuple[tuple[int, ...], ...]
    inner: int

    @property
    def total(self) -> int:
        return sum(self.faces)

    def __str__(self) -> str:
        faces = "  ".join(f"{name[0].upper()} {n}" for name, n in zip(FACE_NAMES, self.faces, strict=True))
        return f"{faces}  = {self.total}  (inner {self.inner})"


def score_color(mask: int, color: int = 0) -> SpincaScore:
    """Score the marbles of one side (``mask``) on the temple.

    >>> score_color(0b11).faces  # 0a1 and 0b1: one group of 2 on the south face, 1 on the west
    (2, 0, 0, 1)
    """
    sizes = tuple(tuple(sorted(g.bit_count() for g in face_groups(mask, face))) for face in range(4))
    smallest = (
        sizes[0][0] if sizes[0] else 0,
        sizes[1][0] if sizes[1] else 0,
        sizes[2][0] if sizes[2] else 0,
        sizes[3][0] if sizes[3] else 0,
    )
    return SpincaScore(color, smallest, sizes, (mask & INNER).bit_count())


def decide(totals: Sequence[int], inner: Sequence[int]) -> tuple[list[int], str]:
    """The winning sides (empty for a draw) and the code of the rule that decided (``M.SPINCA_RULE``),
    from face sums and inner counts.

    >>> decide([12, 11], [2, 3])
    ([0], 'face_sum')
    >>> decide([7, 7, 5], [1, 1, 3])
    ([2], 'third_on_faces')
    """
    sides = range(len(totals))
    best = max(totals)
    leaders = [s for s in sides if totals[s] == best]
    if len(leaders) == 1:
        return leaders, "face_sum"
    if len(totals) == 3 and len(leaders) == 2:
        return [s for s in sides if s not in leaders], "third_on_faces"
    most = max(inner[s] for s in leaders)
    inner_leaders = [s for s in leaders if inner[s] == most]
    if len(inner_leaders) == 1:
        if len(leaders) == 3:
            return inner_leaders, "inner_of_three"
        return inner_leaders, "inner"
    if len(totals) == 3 and len(inner_leaders) == 2:
        third = [s for s in sides if s not in inner_leaders]
        return third, "third_on_inner"
    return [], "tie"


#: Per face, the smallest group size of each of its 512 sub-masks, filled in as met.
_SMALLEST: tuple[dict[int, int], ...] = tuple({0: 0} for _ in FACES)


def face_sum(mask: int) -> int:
    """A side's face sum (``score_color(mask).total``) without listing its groups.

    >>> face_sum(0b11)  # 0a1 and 0b1: 2 on the south face, 1 on the west
    3
    """
    total = 0
    for face, smallest in enumerate(_SMALLEST):
        part = mask & FACES[face]
        size = smallest.get(part)
        if size is None:
            size = smallest[part] = min(g.bit_count() for g in face_groups(part, face))
        total += size
    return total


def temple_returns(masks: Masks, players: int) -> list[float]:
    """Each seat's reward on a complete temple: +1 for the winning side's seats, -1 for the
    others, 0 for everyone on a draw.

    >>> temple_returns((0, 0, 0), 3)  # nobody scores anything: a three-way tie throughout
    [0.0, 0.0, 0.0]
    """
    sides = range(len(SIDE_NAMES[players]))
    winners, _ = decide([face_sum(masks[c]) for c in sides], [(masks[c] & INNER).bit_count() for c in sides])
    if not winners:
        return [0.0] * players
    return [1.0 if SEAT_COLORS[players][seat] in winners else -1.0 for seat in range(players)]


def _bits(sites: Sequence[int]) -> int:
    mask = 0
    for s in sites:
        mask |= 1 << s
    return mask


@dataclass(frozen=True, slots=True)
class SpincaMove:
    """A turn: the placement site, after an optional relocation ``source`` → ``target``.

    >>> str(SpincaMove.parse("0a1-0b2 1b2"))
    '0a1-0b2 1b2'
    >>> SpincaMove.parse("1b2")
    SpincaMove(place=20, source=None, target=None)
    """

    place: int
    source: int | None = None
    target: int | None = None

    def __str__(self) -> str:
        if self.source is None or self.target is None:
            return SITE_NAMES[self.place]
        return f"{SITE_NAMES[self.source]}-{SITE_NAMES[self.target]} {SITE_NAMES[self.place]}"

    @classmethod
    def parse(cls, text: str) -> SpincaMove:
        """Read ``1b2`` or ``0a1-0b2 1b2`` (a comma may stand for the space); checks only the form.

        Raises :class:`InvalidMoveError` naming the first thing not written as a Spinca turn.
        """
        parts = move_text(text).replace(",", " ").replace(";", " ").split()
        example = _(M.SPINCA_EXAMPLE)
        if not parts:
            raise InvalidMoveError(_(M.SPINCA_EMPTY_MOVE).format(example=example))
        if len(parts) > 2:
            written = repr(text.strip())
            raise InvalidMoveError(
                ngettext(M.SPINCA_PARTS, len(parts)).format(text=written, n=len(parts), example=example)
            )
        try:
            sites = [[parse_site(name) for name in part.split("-")] for part in parts]
        except ValueError as error:
            raise InvalidMoveError(str(error)) from None
        if any(len(part) > 2 for part in sites):
            raise InvalidMoveError(_(M.SPINCA_MOVES_TWICE).format(text=repr(text.strip())))
        if len(parts) == 1 and len(sites[0]) == 2:
            raise InvalidMoveError(_(M.SPINCA_NO_PLACEMENT).format(text=parts[0]))
        if len(parts) == 2 and len(sites[0]) == 1:
            raise InvalidMoveError(_(M.SPINCA_NOT_RELOCATION).format(text=repr(parts[0])))
        if len(sites[-1]) != 1:
            raise InvalidMoveError(_(M.SPINCA_NOT_PLACEMENT).format(text=repr(parts[-1])))
        if len(parts) == 1:
            return cls(sites[0][0])
        return cls(sites[1][0], sites[0][0], sites[0][1])

    def check(self) -> None:
        """Raise :class:`InvalidMoveError` unless every site is a site number (or both relocation ends are ``None``)."""
        checked_site(self.place)
        if self.source is not None or self.target is not None:
            if self.source is None or self.target is None:
                raise InvalidMoveError("a relocation needs both a source and a target")
            checked_site(self.source)
            checked_site(self.target)


def _relocation_moves() -> dict[int, tuple[SpincaMove, ...]]:
    """Every relocation ``source*32 + target`` with each placement after it, built once."""
    table = {}
    for source in iter_sites(TEMPLE):
        for target in iter_sites(ADJACENT[source] & TEMPLE):
            table[source << 5 | target] = tuple(SpincaMove(p, source, target) for p in range(TOP))
    return table


_PLACEMENT_MOVES = tuple(SpincaMove(p) for p in range(TOP))
_RELOCATION_MOVES = _relocation_moves()


def _key(masks: Sequence[int], locks: int) -> int:
    """One integer for a board and its locks: what makes two turns the same move."""
    return masks[0] | masks[1] << 30 | masks[2] << 60 | locks << 90


def legal_outcomes(masks: Masks, locked: int, color: int) -> dict[int, SpincaMove]:
    """Every outcome of one turn (see :func:`_key`) mapped to the first move that reaches it.

    Moves are tried placement-only first, then by source, target and placement site.
    """
    w, b, r = masks
    occupied = w | b | r
    found: dict[int, SpincaMove] = {}
    own = 30 * color
    base = w | b << 30 | r << 60
    open0 = temple_placeable(occupied)
    rest = open0
    while rest:
        low = rest & -rest
        rest ^= low
        found[base | low << own | low << 90] = _PLACEMENT_MOVES[low.bit_length() - 1]
    sources = occupied & ~locked
    while sources:
        sbit = sources & -sources
        sources ^= sbit
        s = sbit.bit_length() - 1
        targets = ADJACENT[s] & open0
        if not targets:
            continue
        held = ABOVE[s] & occupied
        if held & (held - 1):
            continue  # pinned
        mover = 0 if w & sbit else 30 if b & sbit else 60
        if held:
            chain = drop_chain(occupied, s)
            if _bits(chain[1:]) & locked:
                continue  # would drop a locked marble
            base1 = shift_down(w, chain) | shift_down(b, chain) << 30 | shift_down(r, chain) << 60
            occupied1 = occupied & ~(1 << chain[-1])
            tumbled = _bits(chain[:-1])
        else:
            base1 = base & ~(sbit | sbit << 30 | sbit << 60)
            occupied1 = occupied & ~sbit
            tumbled = 0
        while targets:
            tbit = targets & -targets
            targets ^= tbit
            t = tbit.bit_length() - 1
            base2 = base1 | tbit << mover | (tumbled | tbit) << 90
            places = temple_placeable(occupied1 | tbit)
            after = _RELOCATION_MOVES[s << 5 | t]
            while places:
                low = places & -places
                places ^= low
                key = base2 | low << own | low << 90
                if key not in found:
                    found[key] = after[low.bit_length() - 1]
    return found


@register
class Spinca(Game):
    name = "spinca"
    title = N_("Spinca")
    board_fields = (("1", "2", "3", "4"), (A_BALL_SITE,))
    min_players = 2
    max_players = 4
    picking_modes = (PICK_RELOCATE,)
    option_specs = (
        Option(
            "players",
            2,
            N_("2 (White, Black), 3 (White, Black, Red) or 4 (teams: White-A, Black-A, White-B, Black-B)"),
            choices=(2, 3, 4),
            kind=int,
            label=M.OPTION_PLAYERS,
        ),
    )

    @property
    def num_players(self) -> int:
        return int(self._options["players"])

    def player_names(self) -> list[str]:
        return list(SEAT_NAMES[self.num_players])

    def seat_color(self, seat: int) -> int:
        return SEAT_COLORS[self.num_players][seat]

    def seat_colors(self) -> list[str | None]:
        return [SEAT_COLOR_CODES[color] for color in SEAT_COLORS[self.num_players]]

    def seat_sides(self) -> list[int]:
        """A seat plays for its colour: the sides are the colours in play (teams with 4 seats)."""
        return list(SEAT_COLORS[self.num_players])

    def side_names(self) -> list[str]:
        """The scored sides, one per colour in play (teams with 4 seats)."""
        return list(SIDE_NAMES[self.num_players])

    @property
    def zero_sum(self) -> bool:
        """With three players one wins (+1) and two lose (-1 each)."""
        return self.num_players != 3

    def new_initial_state(self, seed: int | None = None) -> SpincaState:
        return SpincaState(self, Board(), 0, seed)

    def state_from_spn(self, text: str) -> SpincaState:
        fields = self.spn_fields(text)
        if len(fields) != 3:
            raise ValueError(_(M.SPINCA_SPN_FIELDS).format(n=len(fields)))
        board = Board.from_spn(fields[0])
        if board.occupied >> TOP & 1:
            raise ValueError(_(M.SPINCA_SPN_TOP))
        placed = board.count()
        players = self.num_players
        counts = (board.count(0), board.count(1), board.count(2))
        wanted = expected_counts(players, placed)
        if counts != wanted:
            have = _color_counts(counts, wanted)
            need = _color_counts(wanted, counts) or _(K.NONE)
            raise ValueError(_(M.SPINCA_SPN_COUNTS).format(players=players, placed=placed, need=need, have=have))
        seat = placed % players
        if fields[1] != str(seat + 1):
            name = _(SEAT_NAMES[players][seat])
            raise ValueError(
                _(M.SPINCA_SPN_MOVER).format(placed=placed, seat=seat + 1, name=name, given=repr(fields[1]))
            )
        locked = self._parse_locks(fields[2], board, placed)
        return SpincaState(self, board, locked, None)

    def _parse_locks(self, text: str, board: Board, placed: int) -> int:
        locked = 0
        for name in [] if text == "-" else text.split(","):
            try:
                site = parse_site(name)
            except ValueError as error:
                raise ValueError(_(M.SPINCA_SPN_LOCKS).format(error=error)) from None
            if locked >> site & 1:
                raise ValueError(_(M.SPINCA_SPN_LOCKED_TWICE).format(site=SITE_NAMES[site]))
            if not board.occupied >> site & 1:
                raise ValueError(_(M.SPINCA_SPN_LOCKED_EMPTY).format(site=SITE_NAMES[site]))
            locked |= 1 << site
        if placed == 0:
            return 0  # an empty board has nothing to lock (checked above)
        last_color = self.seat_color((placed - 1) % self.num_players)
        if not locked & board.masks[last_color]:
            raise ValueError(_(M.SPINCA_SPN_LAST_UNLOCKED).format(color=_(K.COLOR[last_color])))
        if locked.bit_count() > 4:
            raise ValueError(_(M.SPINCA_SPN_TOO_MANY_LOCKS))
        return locked


def _color_counts(counts: tuple[int, int, int], other: tuple[int, int, int]) -> str:
    """``3 white, 2 black`` (each colour that either count has), in the current language."""
    parts = (_(K.COUNT_OF_COLOR).format(n=n, color=_(K.COLOR[c])) for c, n in enumerate(counts) if n or other[c])
    return _(K.LIST_SEPARATOR).join(parts)


class SideScoreView(TypedDict):
    """One side's score in an observation: smallest group per face, their sum, inner marbles."""

    faces: list[int]
    total: int
    inner: int


class SpincaObservation(PerfectObservation):
    """A Spinca observation: everything, the locked sites and each side's score as it stands."""

    locked: list[str]
    scores: list[SideScoreView]


class SpincaState(State[SpincaMove]):
    """A Spinca position: the temple so far and the marbles locked for the player to move."""

    def __init__(self, game: Spinca, board: Board, locked: int, seed: int | None) -> None:
        self.game: Spinca = game
        self._board = board
        self.locked = locked
        self.seed = seed
        self._history: list[SpincaMove] = []
        self._undo: list[tuple[Masks, int]] = []
        self._placed = board.count()
        self._outcomes: dict[int, SpincaMove] | None = None

    # -- queries -----------------------------------------------------------------------

    @property
    def board(self) -> BoardView:
        """The balls as a read-only snapshot (the state's own board changes only by moves)."""
        return self._board.view()

    def masks(self) -> Masks:
        m = self._board.masks
        return (m[0], m[1], m[2])

    @property
    def placed(self) -> int:
        """Marbles on the board: the number of turns played."""
        return self._placed

    def is_terminal(self) -> bool:
        return self._placed >= PLACEMENTS

    def current_player(self) -> int:
        return TERMINAL if self._placed >= PLACEMENTS else self._placed % self.game.num_players

    def seat_to_move(self) -> int:
        """The seat whose turn it is (on a finished temple: the seat that would be next)."""
        return self._placed % self.game.num_players

    def color_to_move(self) -> int:
        return self.game.seat_color(self.seat_to_move())

    def scores(self) -> list[SpincaScore]:
        """Each seat's score as the temple stands now (team mates share theirs)."""
        by_color = [score_color(self._board.masks[c], c) for c in range(3)]
        return [by_color[self.game.seat_color(seat)] for seat in range(self.game.num_players)]

    def side_scores(self) -> list[SpincaScore]:
        """One score per side (colour; team with 4 seats), in side order."""
        sides = len(SIDE_NAMES[self.game.num_players])
        return [score_color(self._board.masks[c], c) for c in range(sides)]

    def result(self) -> tuple[list[int], str]:
        """The winning sides (empty: draw) and the deciding rule; the game must be over."""
        sides = self.side_scores()
        return decide([s.total for s in sides], [s.inner for s in sides])

    def result_reason(self) -> ResultReason | None:
        """The rule that decided (``code``: see :func:`decide`) and the winning ``sides`` (side
        numbers; empty on a draw), with each side's face ``totals`` and ``inner`` counts."""
        if not self.is_terminal():
            return None
        sides, code = self.result()
        scores = self.side_scores()
        totals, inner = [s.total for s in scores], [s.inner for s in scores]
        return ResultReason(code, {"sides": sides, "totals": totals, "inner": inner})

    def result_mask(self) -> int:
        """A game the inner pyramid decided points at the winners' marbles in it; else at none
        (the face sums, in the score table, decided it)."""
        if not self.is_terminal():
            return 0
        sides, code = self.result()
        if code not in ("inner", "inner_of_three"):
            return 0
        return sum(self._board.masks[side] & INNER for side in sides)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.game.num_players
        return temple_returns(self.masks(), self.game.num_players)

    def _legal_outcomes(self) -> dict[int, SpincaMove]:
        if self._outcomes is None:
            if self.is_terminal():
                self._outcomes = {}
            else:
                self._outcomes = legal_outcomes(self.masks(), self.locked, self.color_to_move())
        return self._outcomes

    def legal_moves(self, player: int | None = None) -> list[SpincaMove]:
        if player is not None and self.check_seat(player) != self.current_player():
            return []
        return list(self._legal_outcomes().values())

    def is_free(self, site: int) -> bool:
        """Whether the marble on ``site`` may be relocated this turn (ignoring where to)."""
        checked_site(site)
        try:
            self._check_source(self._board.occupied, site)
        except IllegalMoveError:
            return False
        return True

    # -- playing -----------------------------------------------------------------------

    def _check_source(self, occupied: int, source: int) -> tuple[int, ...]:
        name = SITE_NAMES[source]
        if not occupied >> source & 1:
            raise IllegalMoveError(_(M.SPINCA_NO_MARBLE).format(site=name))
        if self.locked >> source & 1:
            raise IllegalMoveError(_(M.SPINCA_IS_LOCKED).format(site=name))
        if (ABOVE[source] & occupied).bit_count() >= 2:
            raise IllegalMoveError(_(M.SPINCA_PINNED).format(site=name))
        chain = drop_chain(occupied, source)
        for site in chain[1:]:
            if self.locked >> site & 1:
                raise IllegalMoveError(_(M.SPINCA_DROPS_LOCKED).format(site=name, locked=SITE_NAMES[site]))
        return chain

    def _check_target(self, occupied: int, source: int, target: int) -> None:
        name, where = SITE_NAMES[target], SITE_NAMES[source]
        if target == source:
            raise IllegalMoveError(_(M.SPINCA_SAME_SITE).format(source=where, site=name))
        if target == TOP:
            raise IllegalMoveError(_(M.SPINCA_TOP_UNUSED))
        if SITE_LEVEL[target] != SITE_LEVEL[source]:
            raise IllegalMoveError(_(M.SPINCA_OTHER_LEVEL).format(site=name, source=where))
        if not ADJACENT[source] >> target & 1:
            raise IllegalMoveError(_(M.SPINCA_NOT_ADJACENT).format(site=name, source=where))
        self._check_site(occupied, target, "")

    @staticmethod
    def _check_site(occupied: int, site: int, after: str) -> None:
        name = SITE_NAMES[site]
        if site == TOP:
            raise IllegalMoveError(_(M.SPINCA_TOP_PLACE))
        if occupied >> site & 1:
            taken = M.SPINCA_TAKEN_AFTER if after else M.SPINCA_TAKEN
            raise IllegalMoveError(_(taken).format(site=name, relocation=after))
        if occupied & BELOW[site] != BELOW[site]:
            unsupported = M.SPINCA_NOT_ON_FOUR_AFTER if after else M.SPINCA_NOT_ON_FOUR
            raise IllegalMoveError(_(unsupported).format(site=name, relocation=after))

    def _result(self, move: SpincaMove) -> tuple[Masks, int]:
        """The board and locks after ``move``; raises :class:`MoveError` naming the faulty step."""
        if not isinstance(move, SpincaMove):
            raise InvalidMoveError(f"{move!r} is not a Spinca move")
        move.check()
        if self.is_terminal():
            raise IllegalMoveError(_(M.SPINCA_OVER))
        board = self._board.copy()
        locks = 0
        after = ""
        if move.source is not None and move.target is not None:
            occupied = board.occupied
            chain = self._check_source(occupied, move.source)
            self._check_target(occupied, move.source, move.target)
            board.relocate(move.source, move.target)
            locks = _bits(chain[:-1]) | 1 << move.target
            after = f"{SITE_NAMES[move.source]}-{SITE_NAMES[move.target]}"
        self._check_site(board.occupied, move.place, after)
        board.place(move.place, self.color_to_move())
        return (board.masks[0], board.masks[1], board.masks[2]), locks | 1 << move.place

    def apply(self, move: SpincaMove) -> None:
        masks, locks = self._result(move)
        self._undo.append((self.masks(), self.locked))
        self._history.append(move)
        self._board.masks[:] = masks
        self.locked = locks
        self._placed += 1
        self._outcomes = None

    def undo(self) -> SpincaMove:
        masks, self.locked = self._undo.pop()
        self._board.masks[:] = masks
        self._placed -= 1
        self._outcomes = None
        return self._history.pop()

    def parse_move(self, text: str, player: int | None = None) -> SpincaMove:
        """The legal move written as ``text``; a turn with the same outcome as a listed move gives that move."""
        move = SpincaMove.parse(text)
        if player is not None and self.check_seat(player) != self.current_player():
            raise IllegalMoveError(_(M.SPINCA_NOT_TURN).format(name=_(self.game.player_names()[player])))
        masks, locks = self._result(move)
        legal = self._legal_outcomes().get(_key(masks, locks))
        if legal is None:
            raise AssertionError(f"the legal move {move} has no equivalent in legal_moves()")
        return legal

    def clone(self) -> SpincaState:
        state = SpincaState(self.game, self._board.copy(), self.locked, self.seed)
        state._history = list(self._history)
        state._undo = list(self._undo)
        return state

    # -- text --------------------------------------------------------------------------

    def to_spn(self) -> str:
        locks = ",".join(SITE_NAMES[s] for s in iter_sites(self.locked)) or "-"
        return f"{self._board.spn()} {self.seat_to_move() + 1} {locks}"

    def __str__(self) -> str:
        return self._board.diagram(dict.fromkeys(iter_sites(self.locked), "+"))

    def status_lines(self, player: int | None = None) -> list[str]:
        if player is not None:
            self.check_seat(player)
        lines = []
        names = [_(M.SEAT[name]) for name in self.game.player_names()]
        sides = [_(M.SEAT[name]) for name in self.game.side_names()]
        if self.is_terminal():
            winners, code = self.result()
            rule = _(M.SPINCA_RULE[code])
            if winners:
                lines.append(_(M.SPINCA_WINS).format(sides=_(K.AND).join(sides[w] for w in winners), rule=rule))
            else:
                lines.append(_(M.SPINCA_DRAW).format(rule=rule))
        else:
            seat = self.seat_to_move()
            color = _(K.COLOR[self.color_to_move()])
            lines.append(
                _(M.SPINCA_TO_PLAY).format(name=names[seat], color=color, placed=self._placed, total=PLACEMENTS)
            )
            locked = ", ".join(SITE_NAMES[s] for s in iter_sites(self.locked))
            lines.append(_(M.SPINCA_LOCKED).format(sites=locked) if locked else _(M.SPINCA_NOTHING_LOCKED))
        lines.append(_(M.SPINCA_FACES))
        for name, score in zip(sides, self.side_scores(), strict=True):
            south, east, north, west = score.faces
            text = _(M.SPINCA_SCORE).format(
                south=south, east=east, north=north, west=west, total=score.total, inner=score.inner
            )
            lines.append(f"  {pad(name, 10)} {text}")
        return lines

    def move_hint(self, player: int | None = None) -> str:
        if player is not None:
            self.check_seat(player)
        return _(M.SPINCA_HINT)

    def observation(self, player: int) -> SpincaObservation:
        self.check_seat(player)
        view: SpincaObservation = {
            **self._perfect_observation(player),
            "locked": [SITE_NAMES[s] for s in iter_sites(self.locked)],
            "scores": [SideScoreView(faces=list(s.faces), total=s.total, inner=s.inner) for s in self.side_scores()],
        }
        return view


__all__ = [
    "FACES",
    "FACE_NAMES",
    "INNER",
    "PLACEMENTS",
    "TEMPLE",
    "Spinca",
    "SpincaMove",
    "SpincaScore",
    "SpincaState",
    "decide",
    "face_groups",
    "legal_outcomes",
    "score_color",
    "seat_quotas",
]
