"""Special Cake (Néstor Romeral Andrés): build a cake of candies, then eat it without eating last.

Three variants:

* ``mint`` — Mint (white, seat 0) and Liquorice (black, seat 1) take turns placing 15
  candies each, then eat. Whoever eats the last candy loses.
* ``poisoned`` — as mint, but 15 mint and 14 liquorice are placed, then the cherry (red)
  goes on top. The cherry may be eaten only when it is the last candy; whoever must eat it
  loses, so the game ends as soon as the cherry stands alone.
* ``sugar`` — 30 candies drawn at random from 16 white, 16 black and 16 red build the cake
  at random; play starts with eating. Whoever eats the last candy loses.

A turn in the eating phase eats one unpinned candy or a *line*: two or more touching candies
in a straight row on one of the six touching axes, eaten one by one in an order of the
player's choice. Each single eat must be legal when it happens, balls drop after each eat,
and a line candy that dropped is still part of the move. Option ``line_rule`` says which
colours a line may hold: ``mixed`` (at least two colours), ``any``, or ``same`` (one colour).

Moves are written as the sites of the candies eaten, in order, joined with ``+``; a site
names where the candy stood when the move began. In the set-up phase a move is the site
that receives the candy.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> state = game.state_from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat")
>>> move = state.parse_move("2a1+2b1")
>>> str(move)
'2a1+2b1'
>>> state.apply(move)
>>> state.to_spn()
'wbwbbwbwwbwbbwbw/wbwbwbwbw/b.wb/. 2 eat'
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass, field

from spheria.engine.board import (
    ABOVE,
    ALL_SITES,
    BB_SITES,
    BELOW,
    COLOR_CHARS,
    NUM_SITES,
    RISING_CHAINS,
    SEGMENT_MASKS,
    SEGMENTS,
    SITE_NAMES,
    TOP,
    Board,
    BoardView,
    drop_chain,
    iter_sites,
    parse_site,
    placeable,
    shift_down,
)
from spheria.games.special_cake import messages as M
from spheria.i18n import N_
from spheria.i18n import gettext as _
from spheria.kernel import messages as K
from spheria.kernel.game import (
    PICK_PREFIX,
    PICK_SET,
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

MINT, SUGAR, POISONED = "mint", "sugar", "poisoned"
MIXED, ANY, SAME = "mixed", "any", "same"
PLACE, EAT = "place", "eat"

Masks = tuple[int, int, int]

_SEGMENT_MASK_SET = frozenset(SEGMENT_MASKS)


@dataclass(frozen=True, slots=True)
class CakeMove:
    """Sites in the order they are eaten (or the one site a candy is placed on).

    >>> CakeMove.parse("0a1+1a1")
    CakeMove(sites=(0, 16))
    """

    sites: tuple[int, ...]
    # The hash of ``sites``, worked out once: every legal-move table hashes its moves, and each
    # move is one of a few hundred shared objects (the generated hash rebuilt a tuple each time).
    # (``None`` for a move built with unhashable sites, which hashes as its sites do: a TypeError.)
    _hash: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "_hash", hash(self.sites))
        except TypeError:
            object.__setattr__(self, "_hash", None)

    def __hash__(self) -> int:
        known = self._hash
        return hash(self.sites) if known is None else known

    def __str__(self) -> str:
        text = _MOVE_TEXT.get(self.sites)  # every move is written once per turn in a record
        return "+".join(SITE_NAMES[s] for s in self.sites) if text is None else text

    @classmethod
    def parse(cls, text: str) -> CakeMove:
        """Sites joined by ``+`` (a comma or spaces also separate them); raises
        :class:`InvalidMoveError` if ``text`` is not written so."""
        if not re.sub(r"[\s+,]", "", move_text(text)):
            raise InvalidMoveError(_(M.CAKE_EMPTY_MOVE))
        parts = re.split(r"\s*[+,]\s*|\s+", text.strip())
        if "" in parts:
            raise InvalidMoveError(_(M.CAKE_EMPTY_PLACE).format(text=repr(text.strip())))
        try:
            sites = tuple(parse_site(p) for p in parts)
        except ValueError as error:
            raise InvalidMoveError(str(error)) from None
        if len(set(sites)) != len(sites):
            raise InvalidMoveError(_(M.CAKE_SITE_TWICE).format(text=repr(text.strip())))
        return cls(sites)

    def check(self) -> None:
        """Raise :class:`InvalidMoveError` unless the sites are distinct site numbers, at least one."""
        if not isinstance(self.sites, tuple) or not self.sites:
            raise InvalidMoveError(f"a Special Cake move names its sites as a non-empty tuple, not {self.sites!r}")
        for site in self.sites:
            checked_site(site)
        if len(set(self.sites)) != len(self.sites):
            raise InvalidMoveError(_(M.CAKE_SITE_TWICE).format(text=self))


def _line_colors_ok(masks: Masks, segment_mask: int, line_rule: str, cherry: bool) -> bool:
    w, b, r = masks
    if cherry and r & segment_mask:
        return False
    colors = (w & segment_mask != 0) + (b & segment_mask != 0) + (r & segment_mask != 0)
    if line_rule == MIXED:
        return colors >= 2
    if line_rule == SAME:
        return colors == 1
    return True


def _eat(masks: Masks, occupied: int, site: int) -> tuple[Masks, int, tuple[int, ...]]:
    chain = drop_chain(occupied, site)
    new = (shift_down(masks[0], chain), shift_down(masks[1], chain), shift_down(masks[2], chain))
    return new, occupied & ~BB_SITES[chain[-1]], chain


def _orders(
    masks: Masks,
    occupied: int,
    positions: tuple[int, ...],
    starts: tuple[int, ...],
    order: tuple[int, ...],
    found: dict[Masks, tuple[int, ...]],
) -> None:
    if not positions:
        found.setdefault(masks, order)
        return
    for i, site in enumerate(positions):
        if (ABOVE[site] & occupied).bit_count() >= 2:
            continue  # pinned now; maybe later in another order
        new_masks, new_occupied, chain = _eat(masks, occupied, site)
        rest = []
        for j, other in enumerate(positions):
            if j != i:
                rest.append(chain[chain.index(other) - 1] if other in chain else other)
        _orders(new_masks, new_occupied, tuple(rest), starts[:i] + starts[i + 1 :], (*order, starts[i]), found)


def eating_outcomes(masks: Masks, variant: str, line_rule: str) -> dict[Masks, tuple[int, ...]]:
    """Every position one eating move can reach, mapped to one way (sites in order) to reach it."""
    occupied = masks[0] | masks[1] | masks[2]
    found: dict[Masks, tuple[int, ...]] = {}
    cherry = variant == POISONED
    for site in iter_sites(occupied):
        if (ABOVE[site] & occupied).bit_count() >= 2:
            continue
        if cherry and masks[2] >> site & 1:
            continue  # the cherry is eaten only when it stands alone, and then the game is over
        new_masks, _, _ = _eat(masks, occupied, site)
        found.setdefault(new_masks, (site,))
    for segment, segment_mask in zip(SEGMENTS, SEGMENT_MASKS, strict=True):
        if occupied & segment_mask == segment_mask and _line_colors_ok(masks, segment_mask, line_rule, cherry):
            _orders(masks, occupied, segment, segment, (), found)
    return found


# -- fast move lists ----------------------------------------------------------------------
# Every eating move is one of a fixed set (a single candy, or one order of one nameable line),
# so each is made once here and shared; the compiled generator (spheria.games.special_cake._cakemoves, when
# it was built) returns these very objects, and the Python path below caches each line's orders
# by the candies they can touch.

#: Every eating order: the 30 single candies, then every order of every line of ``SEGMENTS``.
EATING_ORDERS: tuple[tuple[int, ...], ...] = (
    *((site,) for site in range(NUM_SITES)),
    *(order for segment in SEGMENTS for order in itertools.permutations(segment)),
)
_MOVES: dict[tuple[int, ...], CakeMove] = {order: CakeMove(order) for order in EATING_ORDERS}
_MOVE_TEXT: dict[tuple[int, ...], str] = {order: "+".join(SITE_NAMES[s] for s in order) for order in EATING_ORDERS}
_SINGLE_MOVES: tuple[CakeMove, ...] = tuple(_MOVES[(site,)] for site in range(NUM_SITES))

# Set-up moves straight from the placeable mask, ten sites at a time (no per-site loop, no table
# of outcomes to build: a placement's outcome is one bit), and what each placement can unlock.
_CHUNK = 10


def _placement_table(first: int) -> tuple[tuple[CakeMove, ...], ...]:
    sites = [s for s in range(first, first + _CHUNK) if s < NUM_SITES]
    return tuple(tuple(_SINGLE_MOVES[s] for s in sites if m >> (s - first) & 1) for m in range(1 << len(sites)))


_PLACEMENTS_0 = _placement_table(0)
_PLACEMENTS_1 = _placement_table(_CHUNK)
_PLACEMENTS_2 = _placement_table(2 * _CHUNK)
#: For each site, the (site bit, support mask) of every site resting on it: what a candy there may unlock.
_UNLOCK: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((1 << t, BELOW[t]) for t in iter_sites(ABOVE[s])) for s in range(NUM_SITES)
)
_RULE_CODES = {MIXED: 0, ANY: 1, SAME: 2}


def _reach(sites: int) -> int:
    """``sites`` and every site resting on them, up to the top: all that eating them can move."""
    reach = frontier = sites
    while frontier:
        above = 0
        for site in iter_sites(frontier):
            above |= ABOVE[site]
        frontier = above & ~reach
        reach |= frontier
    return reach


_SEGMENT_REACH: tuple[int, ...] = tuple(_reach(mask) for mask in SEGMENT_MASKS)
_SEGMENT_HOLDS: tuple[int, ...] = tuple(
    reach & ~mask for reach, mask in zip(_SEGMENT_REACH, SEGMENT_MASKS, strict=True)
)
#: How each legal order of a line moves the candies, by the occupied sites of its reach: (move,
#: the sites whose candy stays put — outside the reach, or not moved —, (from bit, to bit) of
#: each candy that dropped).
_Geometry = tuple[tuple[CakeMove, int, tuple[tuple[int, int], ...]], ...]
_GEOMETRY_CACHE: dict[tuple[int, int], _Geometry] = {}
_GEOMETRY_CACHE_LIMIT = 1 << 18


def _line_geometry(index: int, occupied: int) -> _Geometry:
    """Every order of eating line ``SEGMENTS[index]`` legal on ``occupied`` (the sites of its
    reach that hold a candy), with where each candy ends up. Only the candies within the line's
    reach can pin or drop, and colours play no part, so this is cached by the occupied sites of
    the reach alone and shared by every colouring; orders that move every candy alike reach the
    same position whatever the colours, so only the first of them is kept (the one listed)."""
    key = (index, occupied)
    cached = _GEOMETRY_CACHE.get(key)
    if cached is None:
        found: list[tuple[CakeMove, int, tuple[tuple[int, int], ...]]] = []
        segment = SEGMENTS[index]
        origins = {site: site for site in iter_sites(occupied)}
        _order_geometry(occupied, segment, segment, (), origins, found)
        first: dict[tuple[int, tuple[tuple[int, int], ...]], CakeMove] = {}
        for move, stay, moved in found:
            first.setdefault((stay, moved), move)
        outside = ~_SEGMENT_REACH[index]
        cached = tuple((move, outside | stay, moved) for (stay, moved), move in first.items())
        if len(_GEOMETRY_CACHE) >= _GEOMETRY_CACHE_LIMIT:
            _GEOMETRY_CACHE.clear()
        _GEOMETRY_CACHE[key] = cached
    return cached


def _order_geometry(
    occupied: int,
    positions: tuple[int, ...],
    starts: tuple[int, ...],
    order: tuple[int, ...],
    origins: dict[int, int],
    found: list[tuple[CakeMove, int, tuple[tuple[int, int], ...]]],
) -> None:
    """As :func:`_orders`, following each candy (``origins``: where each one now stands came from)."""
    if not positions:
        stay = sum(1 << site for site, origin in origins.items() if site == origin)
        moved = tuple((1 << origin, 1 << site) for site, origin in origins.items() if site != origin)
        found.append((_MOVES[order], stay, moved))
        return
    for i, site in enumerate(positions):
        if (ABOVE[site] & occupied).bit_count() >= 2:
            continue  # pinned now; maybe later in another order
        chain = drop_chain(occupied, site)
        after = dict(origins)
        for k in range(1, len(chain)):
            after[chain[k - 1]] = origins[chain[k]]
        del after[chain[-1]]
        rest = tuple(chain[chain.index(p) - 1] if p in chain else p for j, p in enumerate(positions) if j != i)
        _order_geometry(
            occupied & ~(1 << chain[-1]), rest, starts[:i] + starts[i + 1 :], (*order, starts[i]), after, found
        )


#: For a candy on ``site`` holding up the one on ``t``: ``_DROPS[site * NUM_SITES + t]`` lists
#: (from bit, to bit) of each candy that may drop when it is eaten, up the diagonal through ``t``,
#: in order (the drops stop at the first empty site).
_DROPS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((1 << chain[k], 1 << chain[k - 1]) for k in range(1, len(chain)))
    if (chain := RISING_CHAINS.get((site, t))) is not None
    else ()
    for site in range(NUM_SITES)
    for t in range(NUM_SITES)
)

#: Per line of ``SEGMENTS``: its mask, the sites resting on it (out of the line), what eating it
#: can move (the mask of its reach), and the move that eats it in its own order.
_SEGMENT_ROWS: tuple[tuple[int, int, int, CakeMove], ...] = tuple(
    zip(SEGMENT_MASKS, _SEGMENT_HOLDS, _SEGMENT_REACH, (_MOVES[segment] for segment in SEGMENTS), strict=True)
)


def _line_set_table(first: int) -> tuple[int, ...]:
    """For each set of the ten sites from ``first``: the lines through any of them, as a set of
    line numbers (bit ``i`` for ``SEGMENTS[i]``)."""
    through = [sum(1 << i for i, mask in enumerate(SEGMENT_MASKS) if mask >> site & 1) for site in range(NUM_SITES)]
    sites = [s for s in range(first, first + _CHUNK) if s < NUM_SITES]
    tables = []
    for m in range(1 << len(sites)):
        lines = 0
        for s in sites:
            if m >> (s - first) & 1:
                lines |= through[s]
        tables.append(lines)
    return tuple(tables)


_LINES_THROUGH_0 = _line_set_table(0)
_LINES_THROUGH_1 = _line_set_table(_CHUNK)
_LINES_THROUGH_2 = _line_set_table(2 * _CHUNK)
_ALL_LINES = (1 << len(SEGMENTS)) - 1


def _lines_through(mask: int) -> int:
    """The lines through any site of ``mask``, as a set of line numbers."""
    return _LINES_THROUGH_0[mask & 1023] | _LINES_THROUGH_1[mask >> 10 & 1023] | _LINES_THROUGH_2[mask >> 20]


def _python_eating_moves(masks: Masks, cherry: bool, line_rule: str) -> dict[CakeMove, Masks]:
    """:func:`eating_moves` in Python: the moves of :func:`eating_outcomes`, in its order.

    The lines that may be eaten are found at once, as sets of line numbers: full (through no empty
    site), of the colours the rule allows, without the cherry; each one's orders come from
    :func:`_line_geometry`. (This runs once a position in every playout without the compiled generator.)
    """
    w, b, r = masks
    occupied = w | b | r
    first: dict[Masks, CakeMove] = {}  # each position reached, by the first move found to reach it
    keep_first = first.setdefault
    free = occupied
    while free:
        low = free & -free
        free ^= low
        site = low.bit_length() - 1
        held = ABOVE[site] & occupied
        if held & (held - 1) or (cherry and r & low):
            continue  # pinned, or the cherry
        rw, rb, rr = w & ~low, b & ~low, r & ~low  # it leaves; the candies it held drop in turn
        if held:
            for source, target in _DROPS[site * NUM_SITES + held.bit_length() - 1]:
                if not occupied & source:
                    break
                if w & source:
                    rw = rw & ~source | target
                elif b & source:
                    rb = rb & ~source | target
                else:
                    rr = rr & ~source | target
        keep_first((rw, rb, rr), _SINGLE_MOVES[site])
    lines = _ALL_LINES & ~_lines_through(ALL_SITES & ~occupied)
    if line_rule != ANY or cherry:
        white, black, red = _lines_through(w), _lines_through(b), _lines_through(r)
        if cherry:
            lines &= ~red
        if line_rule != ANY:
            mixed = (white & black) | (white & red) | (black & red)  # a full line: one colour or more
            lines &= mixed if line_rule == MIXED else ~mixed
    while lines:
        low = lines & -lines
        lines ^= low
        index = low.bit_length() - 1
        segment_mask, holds, reach, straight = _SEGMENT_ROWS[index]
        if not occupied & holds:  # nothing rests on the line: eaten in its own order
            keep_first((w & ~segment_mask, b & ~segment_mask, r & ~segment_mask), straight)
            continue
        local = occupied & reach
        geometry = _GEOMETRY_CACHE.get((index, local))
        if geometry is None:
            geometry = _line_geometry(index, local)
        for move, stays, moved in geometry:
            rw, rb, rr = w & stays, b & stays, r & stays
            for source, target in moved:  # each candy that dropped is of one colour
                if w & source:
                    rw |= target
                elif b & source:
                    rb |= target
                else:
                    rr |= target
            keep_first((rw, rb, rr), move)
    return {move: result for result, move in first.items()}


try:
    from spheria.games.special_cake import _cakemoves
except ImportError:  # the optional compiled generator was not built
    _cakemoves = None  # type: ignore[assignment]
else:
    _cakemoves.init(ABOVE, list(RISING_CHAINS.values()), SEGMENTS, tuple(_MOVES[order] for order in EATING_ORDERS))

#: Whether eating moves come from the compiled generator (``spheria.games.special_cake._cakemoves``).
COMPILED_MOVES = _cakemoves is not None


def eating_moves(masks: Masks, variant: str, line_rule: str) -> dict[CakeMove, Masks]:
    """Every legal eating move, one per distinct outcome, mapped to the masks it leaves.

    The same moves in the same order as :func:`eating_outcomes` finds them (compiled when
    :data:`COMPILED_MOVES`); the move objects are shared, never to be mutated.
    """
    if _cakemoves is not None:
        return _cakemoves.eating_moves(masks[0], masks[1], masks[2], variant == POISONED, _RULE_CODES[line_rule])
    return _python_eating_moves(masks, variant == POISONED, line_rule)


def random_cake(rng: random.Random) -> Board:
    """A sugar cake: 30 of the 48 balls (16 of each colour), on the 30 sites at random."""
    balls = [0] * 16 + [1] * 16 + [2] * 16
    rng.shuffle(balls)
    board = Board()
    for site, color in enumerate(balls[:NUM_SITES]):
        board.place(site, color)
    return board


@register
class SpecialCake(Game):
    name = "special-cake"
    title = N_("Special Cake")
    board_fields = (("1", "2"), ("place", "eat"))
    featured = True
    picking_modes = (PICK_PREFIX, PICK_SET)
    option_specs = (
        Option(
            "variant",
            MINT,
            N_("mint, sugar or poisoned (the cherry variant)"),
            (MINT, SUGAR, POISONED),
            label=M.OPTION_VARIANT,
            words=M.VARIANT_WORDS,
        ),
        Option(
            "line_rule",
            None,
            N_(
                "colours a line may hold: mixed (two or more colours), any, same (one colour); "
                "default mixed, or any in sugar"
            ),
            (MIXED, ANY, SAME),
            label=M.OPTION_LINE_RULE,
            words=M.LINE_RULE_WORDS,
        ),
    )

    def _resolve_options(self) -> None:
        if self._options["line_rule"] is None:
            self._options["line_rule"] = ANY if self._options["variant"] == SUGAR else MIXED

    @property
    def variant(self) -> str:
        return str(self._options["variant"])

    @property
    def line_rule(self) -> str:
        return str(self._options["line_rule"])

    def player_names(self) -> list[str]:
        return [N_("Player 1"), N_("Player 2")] if self.variant == SUGAR else [N_("Mint"), N_("Liquorice")]

    def seat_colors(self) -> list[str | None]:
        """Mint places white, Liquorice black; in sugar nobody places, so no seat has a colour."""
        return [None, None] if self.variant == SUGAR else ["w", "b"]

    @property
    def chance(self) -> bool:
        """The sugar cake is built at random."""
        return self.variant == SUGAR

    @property
    def placements(self) -> int:
        """Candies placed by the players in the set-up phase (0 in sugar)."""
        return {MINT: 30, POISONED: 29, SUGAR: 0}[self.variant]

    def new_initial_state(self, seed: int | None = None) -> CakeState:
        if self.variant != SUGAR:
            return CakeState(self, Board(), 0, PLACE, seed)
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
        return CakeState(self, random_cake(random.Random(seed)), 0, EAT, seed)

    def state_from_spn(self, text: str) -> CakeState:
        fields = self.spn_fields(text)
        if len(fields) != 3:
            raise ValueError(_(M.CAKE_SPN_FIELDS).format(n=len(fields)))
        board = Board.from_spn(fields[0])
        if fields[1] not in ("1", "2"):
            raise ValueError(_(K.SPN_PLAYER).format(text=repr(fields[1])))
        if fields[2] not in (PLACE, EAT):
            raise ValueError(_(M.CAKE_SPN_PHASE).format(text=repr(fields[2])))
        player, phase = int(fields[1]) - 1, fields[2]
        self._check_counts(board, player, phase)
        return CakeState(self, board, player, phase, None)

    def _check_counts(self, board: Board, player: int, phase: str) -> None:
        white, black, red = board.count(0), board.count(1), board.count(2)
        limits = {MINT: (15, 15, 0), POISONED: (15, 14, 1), SUGAR: (16, 16, 16)}[self.variant]
        for count, limit, char in zip((white, black, red), limits, COLOR_CHARS, strict=True):
            if count > limit:
                raise ValueError(_(M.CAKE_TOO_MANY).format(count=count, char=char, variant=self.variant, limit=limit))
        if phase == PLACE:
            if self.variant == SUGAR:
                raise ValueError(_(M.CAKE_SUGAR_NO_PLACE))
            if red:
                raise ValueError(_(M.CAKE_CHERRY_AFTER_SETUP))
            if white + black >= self.placements:
                raise ValueError(_(M.CAKE_SETUP_OVER).format(n=white + black, end=self.placements))
            if white - black not in (0, 1):
                raise ValueError(_(M.CAKE_ALTERNATE).format(white=white, black=black))
            if white - black != player:
                to_move = M.CAKE_MINT_TO_PLACE if white == black else M.CAKE_LIQUORICE_TO_PLACE
                raise ValueError(_(to_move).format(white=white, black=black))
        elif self.variant == POISONED:
            if red != 1:
                raise ValueError(_(M.CAKE_ONE_CHERRY))
            cherry = board.masks[2].bit_length() - 1
            if ABOVE[cherry] & board.occupied:
                raise ValueError(_(M.CAKE_ON_CHERRY))


class CakeObservation(PerfectObservation):
    """A Special Cake observation: everything, and the phase (``place`` or ``eat``)."""

    phase: str


class CakeState(State[CakeMove]):
    """A Special Cake position: the cake, the player to move and the phase."""

    def __init__(self, game: SpecialCake, board: Board, player: int, phase: str, seed: int | None) -> None:
        self.game: SpecialCake = game
        self._board = board
        self.player = player
        self.phase = phase
        self.seed = seed
        self._history: list[CakeMove] = []
        # What undo restores: the position, and its legal moves so search need not redo them.
        self._undo: list[tuple[Masks, int, str, dict[CakeMove, Masks] | None]] = []
        self._outcomes: dict[CakeMove, Masks] | None = None
        # In the set-up: the sites that can take a candy now (``None``: not worked out yet).
        self._free: int | None = None
        # The game's rules as the hot paths read them (its options never change).
        self._poisoned = game.variant == POISONED
        self._setup_size = game.placements

    # -- queries -----------------------------------------------------------------------

    @property
    def board(self) -> BoardView:
        """The balls as a read-only snapshot (the state's own board changes only by moves)."""
        return self._board.view()

    def masks(self) -> Masks:
        m = self._board.masks
        return (m[0], m[1], m[2])

    def is_terminal(self) -> bool:
        if self.phase != EAT:
            return False
        white, black, red = self._board.masks
        return white | black == 0 and (red == 0 or self._poisoned)

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.player

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        # Mint and sugar: the opponent ate the last candy. Poisoned: the player to move must eat the cherry.
        winner = 1 - self.player if self.game.variant == POISONED else self.player
        return [1.0 if p == winner else -1.0 for p in range(2)]

    def _legal_outcomes(self) -> dict[CakeMove, Masks]:
        if self._outcomes is None:
            if self.is_terminal():
                self._outcomes = {}
            elif self.phase == PLACE:
                w, b, r = self.masks()
                sites = iter_sites(placeable(w | b | r))
                if self.player == 0:
                    self._outcomes = {_SINGLE_MOVES[s]: (w | 1 << s, b, r) for s in sites}
                else:
                    self._outcomes = {_SINGLE_MOVES[s]: (w, b | 1 << s, r) for s in sites}
            else:
                self._outcomes = eating_moves(self.masks(), self.game.variant, self.game.line_rule)
        return self._outcomes

    def _placeable(self) -> int:
        """The sites that can take a candy (in the set-up)."""
        free = self._free
        if free is None:
            free = self._free = placeable(self._board.occupied)
        return free

    def legal_moves(self, player: int | None = None) -> list[CakeMove]:
        if player is not None and self.check_seat(player) != self.current_player():
            return []
        if self.phase == PLACE:  # the same moves as _legal_outcomes lists, by site
            free = self._placeable()
            return [*_PLACEMENTS_0[free & 1023], *_PLACEMENTS_1[free >> 10 & 1023], *_PLACEMENTS_2[free >> 20]]
        return list(self._legal_outcomes())

    def history_notation(self) -> list[str]:
        # Every move is one of the shared eating orders, written once at import (a record is
        # written after every turn, so this runs often).
        return [_MOVE_TEXT[move.sites] for move in self._history]

    # -- playing -----------------------------------------------------------------------

    def apply(self, move: CakeMove) -> None:
        """Play a move; a line eaten in another legal order is recorded as its listed equivalent."""
        if self.phase == PLACE and type(move) is CakeMove:
            sites = move.sites
            if type(sites) is tuple and len(sites) == 1:
                site = sites[0]
                if type(site) is int and 0 <= site < NUM_SITES and self._placeable() >> site & 1:
                    self._place(site)
                    return
        try:
            result = self._legal_outcomes().get(move)
        except TypeError:  # unhashable: a move object built with a list of sites
            result = None
        if result is None:
            move = self._equivalent(self._validate(move))
            result = self._outcomes[move]  # type: ignore[index]
        self._undo.append((self.masks(), self.player, self.phase, self._outcomes))
        self._history.append(move)
        self._set(result)

    def _place(self, site: int) -> None:
        """Place the mover's candy on ``site``, which can take it (the set-up's fast path of :meth:`apply`)."""
        board = self._board.masks
        white, black, red = board
        self._undo.append(((white, black, red), self.player, self.phase, self._outcomes))
        self._history.append(_SINGLE_MOVES[site])
        bit = 1 << site
        board[self.player] |= bit
        occupied = white | black | red | bit
        free = self._placeable() ^ bit
        for above, below in _UNLOCK[site]:
            if occupied & below == below:
                free |= above
        self._outcomes = None
        self._free = free
        if occupied.bit_count() == self._setup_size:
            self._end_setup()
        else:
            self.player = 1 - self.player

    def _end_setup(self) -> None:
        """The last candy of the set-up is placed: the cherry goes on top (poisoned), and Mint eats first."""
        if self.game.variant == POISONED:
            self._board.place(TOP, 2)
        self.phase, self.player = EAT, 0
        self._free = None

    def _set(self, masks: Masks) -> None:
        self._board.masks[:] = masks
        self._outcomes = None
        self._free = None
        if self.phase == PLACE and self._board.count() == self._setup_size:
            self._end_setup()
            return
        self.player = 1 - self.player

    def _validate(self, move: CakeMove) -> Masks:
        """The result of a move offered in a non-canonical eating order, or an error naming the fault."""
        if not isinstance(move, CakeMove):
            raise InvalidMoveError(f"{move!r} is not a Special Cake move")
        move.check()
        if self.is_terminal():
            raise IllegalMoveError(_(K.GAME_OVER))
        if self.phase == PLACE:
            site = move.sites[0]
            if len(move.sites) != 1:
                raise IllegalMoveError(_(M.CAKE_ONE_SITE))
            raise IllegalMoveError(_(M.CAKE_CANNOT_TAKE).format(site=SITE_NAMES[site]))
        masks = self.masks()
        occupied = self._board.occupied
        sites = move.sites
        for site in sites:
            if not occupied >> site & 1:
                raise IllegalMoveError(_(M.CAKE_NO_CANDY).format(site=SITE_NAMES[site]))
        if len(sites) == 1:
            site = sites[0]
            if (ABOVE[site] & occupied).bit_count() >= 2:
                raise IllegalMoveError(_(M.CAKE_PINNED).format(site=SITE_NAMES[site]))
            if self.game.variant == POISONED and masks[2] >> site & 1:
                raise IllegalMoveError(_(M.CAKE_CHERRY_LAST))
            # A legal eat whose position legal_moves() lists under another site (e.g. eating the
            # top, or the ball under it of the same colour that it drops into).
            return _eat(masks, occupied, site)[0]
        segment_mask = sum(BB_SITES[s] for s in sites)
        if segment_mask not in _SEGMENT_MASK_SET:
            raise IllegalMoveError(_(M.CAKE_NOT_A_LINE).format(move=move))
        if not _line_colors_ok(masks, segment_mask, self.game.line_rule, self.game.variant == POISONED):
            rule = _(M.CAKE_RULE[self.game.line_rule])
            template = M.CAKE_LINE_RULE_CHERRY if self.game.variant == POISONED else M.CAKE_LINE_RULE
            raise IllegalMoveError(_(template).format(move=move, rule=rule))
        positions = list(sites)
        for i, start in enumerate(sites):
            site = positions[i]
            if (ABOVE[site] & occupied).bit_count() >= 2:
                raise IllegalMoveError(_(M.CAKE_ORDER_PINNED).format(site=SITE_NAMES[start]))
            masks, occupied, chain = _eat(masks, occupied, site)
            positions = [chain[chain.index(p) - 1] if p in chain and j > i else p for j, p in enumerate(positions)]
        return masks

    def undo(self) -> CakeMove:
        masks, self.player, self.phase, outcomes = self._undo.pop()
        self._board.masks[:] = masks
        self._outcomes = outcomes
        self._free = None
        return self._history.pop()

    def parse_move(self, text: str, player: int | None = None) -> CakeMove:
        """The legal move written as ``text``: a site, or a line's sites in an eating order.

        Any legal order is accepted and returned as the equivalent move of ``legal_moves()``.
        With ``player`` given, the move must be that seat's.
        """
        move = CakeMove.parse(text)
        self.check_turn(player)
        if move in self._legal_outcomes():
            return move
        return self._equivalent(self._validate(move))

    def _equivalent(self, result: Masks) -> CakeMove:
        """The listed legal move that reaches ``result`` (a position a validated move reached)."""
        for legal, outcome in self._legal_outcomes().items():
            if outcome == result:
                return legal
        raise AssertionError("a validated move has no equivalent legal move")

    def clone(self) -> CakeState:
        state = CakeState(self.game, self._board.copy(), self.player, self.phase, self.seed)
        state._history = list(self._history)
        state._undo = list(self._undo)
        state._outcomes = self._outcomes  # never mutated, only replaced: safe to share
        state._free = self._free
        return state

    # -- text --------------------------------------------------------------------------

    def to_spn(self) -> str:
        return f"{self._board.spn()} {self.player + 1} {self.phase}"

    def __str__(self) -> str:
        return self._board.diagram()

    def status_lines(self, player: int | None = None) -> list[str]:
        if player is not None:
            self.check_seat(player)
        names = [_(name) for name in self.game.player_names()]
        reason = self.result_reason()
        if reason is not None:
            winner = self.winners()[0]
            return [_(M.CAKE_REASON[reason.code]).format(loser=names[reason.params["seat"]], winner=names[winner])]
        board = self._board
        counts = _(K.COUNTS).format(white=board.count(0), black=board.count(1), red=board.count(2))
        if self.phase == PLACE:
            places = M.CAKE_PLACES_MINT if self.player == 0 else M.CAKE_PLACES_LIQUORICE
            return [_(places).format(name=names[self.player]), _(M.CAKE_PLACED).format(counts=counts)]
        lines = [
            _(M.CAKE_TO_EAT).format(name=names[self.player], rule=self.game.line_rule),
            _(M.CAKE_LEFT).format(counts=counts),
        ]
        if board.occupied == ALL_SITES:
            complete = M.CAKE_COMPLETE_CHERRY if self.game.variant == POISONED else M.CAKE_COMPLETE
            lines.insert(0, _(complete).format(name=names[0]))
        return lines

    def result_reason(self) -> ResultReason | None:
        """``cherry_left`` (poisoned: only the cherry is left, and ``seat`` must eat it) or
        ``last_candy`` (``seat`` ate the last candy); ``seat`` is the loser."""
        if not self.is_terminal():
            return None
        if self.game.variant == POISONED:
            return ResultReason("cherry_left", {"seat": self.player})
        return ResultReason("last_candy", {"seat": 1 - self.player})

    def result_mask(self) -> int:
        """The cherry that must be eaten (poisoned), else the sites of the move that ate the last candy."""
        if not self.is_terminal():
            return 0
        if self.game.variant == POISONED:
            return self._board.masks[2]
        last = self._history[-1] if self._history else None
        return sum(1 << site for site in last.sites) if last is not None else 0

    def picking_mode(self) -> str:
        """Eating a line: its candies in any order (the server checks the order); else one site."""
        return PICK_SET if self.phase == EAT else PICK_PREFIX

    def phase_name(self) -> str:
        return self.phase

    def placing_color(self, player: int) -> str | None:
        """Candies are placed only in the set-up (not in sugar), in the seat's colour."""
        color = self.game.seat_colors()[self.check_seat(player)]
        return color if self.phase == PLACE else None

    def move_hint(self, player: int | None = None) -> str:
        if player is not None:
            self.check_seat(player)
        return _(M.CAKE_HINT_PLACE if self.phase == PLACE else M.CAKE_HINT_EAT)

    def observation(self, player: int) -> CakeObservation:
        self.check_seat(player)
        view: CakeObservation = {**self._perfect_observation(player), "phase": self.phase}
        return view
