"""Spline's own alpha-beta (``alphabeta:engine=game``): negamax on bare colour masks, with threats.

The generic search (:mod:`spheria.agents.alphabeta`) plays a move through the state's
``apply``/``undo`` and lists moves as objects; here a position is four integers — the mover's
balls, the opponent's, the placeable sites, and each side's *threat sites* (empty sites that
would complete a line of that side) — and a move is a few mask operations with precomputed
tables, so the search visits several times as many nodes a second. The threats also prune:

* the mover who can fill one of its threat sites wins at once (no move list);
* a mover facing two placeable threat sites of the opponent has lost; facing one, the block is
  the only move, and it costs no depth (a one-reply extension);
* a move that makes an opponent's threat site placeable (by completing the four balls under
  it) loses at once, and is searched last only when every move does.

Scores follow :mod:`spheria.agents.alphabeta` (a win ``k`` plies away scores ``WIN - k``; the
evaluation scaled by ``SCALE`` at the horizon). The transposition table is kept between the
moves of a game (its scores are relative to the mover and its wins to the node, so they stay
true), and the search orders moves by the table's best move, two killer moves a ply and a
history score.

>>> import spheria
>>> state = spheria.load_game("spline").state_from_spn("www.bbb........./........./..../. 1")
>>> search = SplineSearch()
>>> str(search.best_move(state, depth=2, deadline=None, clock=lambda: 0.0)[1])
'0d1'
"""

from __future__ import annotations

from collections.abc import Callable

from spheria.agents.alphabeta import PROVEN, SCALE, WIN, OutOfTime, to_child
from spheria.agents.mcts import MCTSAgent
from spheria.engine.board import ABOVE, BELOW, NUM_SITES, SYMMETRIES, iter_sites
from spheria.games.spline.knowledge import spline_relative_evaluation
from spheria.games.spline.rules import LINES_AT, MOVES, SplineMove, SplineState

INFINITY = 10 * WIN
#: Nodes between two looks at the clock.
_CLOCK_EVERY = 1023
_EXACT, _LOWER, _UPPER = 0, 1, 2
#: The depth of a table entry found without reaching the horizon (it holds at every depth).
_SOLVED = 1000
#: For each site, the (site bit, support mask) of every site resting on it.
_UNLOCK: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((1 << t, BELOW[t]) for t in iter_sites(ABOVE[s])) for s in range(NUM_SITES)
)
_BITS: tuple[int, ...] = tuple(1 << s for s in range(NUM_SITES))
#: The table outgrows this many entries only in very long thinking; it is then emptied.
_TABLE_LIMIT = 1_000_000


def _symmetry_chunks(permutation: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For one symmetry, three tables: a 10-site chunk of a mask to the image of those sites."""
    return tuple(
        tuple(sum(1 << permutation[first + i] for i in range(_CHUNK) if m >> i & 1) for m in range(1 << _CHUNK))
        for first in (0, 10, 20)
    )


def _chunk_sites(first: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(first + i for i in range(_CHUNK) if m >> i & 1) for m in range(1 << _CHUNK))


_CHUNK = 10
_SITES_0, _SITES_1, _SITES_2 = _chunk_sites(0), _chunk_sites(10), _chunk_sites(20)
#: The 7 symmetries other than the identity, each as three chunk tables (see :func:`canonical_key`).
_SYMMETRY_CHUNKS = tuple(_symmetry_chunks(permutation) for permutation in SYMMETRIES[1:])
#: Up to this many balls the prover's table keys positions up to symmetry (deeper, alike
#: positions are rare and the seven images cost more than they save).
_SYMMETRIC_UP_TO = 14


def canonical_key(me: int, opp: int) -> int:
    """The least of ``me | opp << 30`` over the pyramid's 8 symmetries: one key for alike positions.

    >>> canonical_key(1 << 0, 0) == canonical_key(1 << 3, 0) == canonical_key(1 << 15, 0)
    True
    """
    best = me | opp << NUM_SITES
    for low, middle, high in _SYMMETRY_CHUNKS:
        key = (
            low[me & 1023]
            | middle[me >> 10 & 1023]
            | high[me >> 20]
            | (low[opp & 1023] | middle[opp >> 10 & 1023] | high[opp >> 20]) << NUM_SITES
        )
        if key < best:
            best = key
    return best


def sites_of(mask: int) -> list[int]:
    """The sites of ``mask``, lowest first (ten at a time from tables: no per-site loop)."""
    return [*_SITES_0[mask & 1023], *_SITES_1[mask >> 10 & 1023], *_SITES_2[mask >> 20]]


def threat_sites(mine: int, occupied: int) -> int:
    """The empty sites that would complete a line of ``mine`` (placeable or not yet)."""
    threats = 0
    for lines in LINES_AT:
        for line in lines:
            missing = line & ~mine
            if missing and not missing & (missing - 1) and not missing & occupied:
                threats |= missing
    return threats


def _masks(state: SplineState) -> tuple[int, int, int, int, int, int]:
    """The mover's balls, the opponent's, the placeable sites, all balls, and each side's threat sites."""
    white, black = state.masks()
    me, opp = (white, black) if state.current_player() == 0 else (black, white)
    occupied = white | black
    return me, opp, state.placeable_mask(), occupied, threat_sites(me, occupied), threat_sites(opp, occupied)


def _play(me: int, free: int, occupied: int, mine: int, theirs: int, site: int) -> tuple[int, int, int, int, int]:
    """The mover's ball on ``site`` (not a winning one): its balls, the placeable sites, all balls, its
    threat sites and the opponent's. (:meth:`SplineSearch._negamax` does the same inline, for speed.)"""
    bit = _BITS[site]
    me |= bit
    occupied |= bit
    free ^= bit
    for above, below in _UNLOCK[site]:
        if occupied & below == below:
            free |= above
    for line in LINES_AT[site]:
        missing = line & ~me
        if not missing & (missing - 1) and not missing & occupied:
            mine |= missing
    return me, free, occupied, mine, theirs & ~bit


class SplineSearch:
    """Iterative-deepening negamax over Spline's masks; keep one per game to keep its table."""

    def __init__(self) -> None:
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.nodes = 0
        self.approx = 0
        self.killers: list[list[int]] = [[-1, -1] for _ in range(NUM_SITES + 2)]
        self.history = [0] * NUM_SITES
        #: The prover's table: a position's key (see :func:`canonical_key`) to whether its mover wins.
        self.proven: dict[int, bool] = {}
        #: The horizon's judge: ``(mine, theirs, free, my_threats, their_threats)`` to ``[-1, 1]`` for the mover.
        self.evaluate = spline_relative_evaluation
        self._deadline: float | None = None
        self._clock: Callable[[], float] = lambda: 0.0

    def best_move(
        self, state: SplineState, depth: int, deadline: float | None, clock: Callable[[], float]
    ) -> tuple[int, SplineMove, bool]:
        """One iteration: the score for the mover, the best move, and whether the score is exact.

        Raises :class:`OutOfTime` if ``clock()`` passes ``deadline`` first.
        """
        self._deadline, self._clock = deadline, clock
        self.approx = 0
        if len(self.table) > _TABLE_LIMIT:
            self.table.clear()
        me, opp, free, occupied, mine, theirs = _masks(state)
        if mine & free:
            return WIN - 1, MOVES[sites_of(mine & free)[0]], True
        score = self._negamax(me, opp, free, occupied, mine, theirs, depth, -INFINITY, INFINITY, occupied.bit_count())
        entry = self.table.get(me | opp << NUM_SITES)  # none when two threat sites of the opponent are open
        best = entry[3] if entry is not None else sites_of(theirs & free or free)[0]
        return score, MOVES[best], self.approx == 0

    def swindle(
        self,
        state: SplineState,
        deadline: float | None,
        clock: Callable[[], float],
        model: Callable[[SplineState], dict[int, float]] | None = None,
    ) -> SplineMove | None:
        """In a lost position: the move that leaves the opponent the smallest share of replies that keep its win.

        Only *plausible* replies count (not one that lets the mover win at once: no searching
        opponent misses that), and a move after which the opponent wins at once is never chosen
        while there is another. Every reply is proven (:meth:`wins`, with its kept table); raises :class:`OutOfTime`
        at ``deadline``. ``None`` when every move loses at once. With ``model`` (an opponent
        model: for a position, a weight for each reply site, e.g. a short Monte Carlo search's
        visits) the share is weighted by it: the move where that opponent most often goes wrong.
        """
        self._deadline, self._clock = deadline, clock
        me, opp, free, occupied, mine, theirs = _masks(state)
        best, best_share = None, 2.0
        ply = occupied.bit_count()
        for site in sites_of(theirs & free or free):
            after, opened, filled, my_threats, their_threats = _play(me, free, occupied, mine, theirs, site)
            if their_threats & opened:
                continue  # the opponent fills its threat site next
            forced = my_threats & opened
            weights = None
            if model is not None:
                if deadline is not None and clock() > deadline:
                    raise OutOfTime
                child = state.clone()
                child.apply(MOVES[site])
                weights = model(child)
            kept = plausible = 0.0
            for reply in sites_of(forced or opened):
                answer, reopened, refilled, replier_threats, still_mine = _play(
                    opp, opened, filled, their_threats, my_threats, reply
                )
                if still_mine & reopened:
                    continue  # a reply that opens the mover's threat site: a blunder nobody makes
                weight = 1.0 if weights is None else weights.get(reply, 0.0)
                plausible += weight
                if weight and not self._prove(after, answer, reopened, refilled, still_mine, replier_threats, ply + 2):
                    kept += weight
            share = kept / plausible if plausible else 0.0
            if share < best_share:
                best, best_share = MOVES[site], share
        return best

    def lost_move(
        self, state: SplineState, deadline: float | None, clock: Callable[[], float], swindle: str
    ) -> SplineMove | None:
        """``alphabeta:engine=game``'s move in a lost position: :meth:`swindle`, with ``swindle=mcts``
        weighing the replies by :func:`monte_carlo_replies` (``share``: every plausible reply alike)."""
        return self.swindle(state, deadline, clock, monte_carlo_replies if swindle == "mcts" else None)

    def winning_move(
        self, state: SplineState, deadline: float | None = None, clock: Callable[[], float] = lambda: 0.0
    ) -> SplineMove | None:
        """A move that wins against every defence, or ``None`` in a lost position: a proof to the end.

        Spline has no draws, so the answer is exact either way. Results found on the way are
        kept (:attr:`proven`) for later calls; raises :class:`OutOfTime` if ``clock()`` passes
        ``deadline`` first. From the empty board it proves that Black wins (docs/agents.md).

        >>> import spheria
        >>> spline = spheria.load_game("spline")
        >>> str(SplineSearch().winning_move(spline.state_from_spn("www.bbb........./........./..../. 1")))
        '0d1'
        >>> SplineSearch().winning_move(spline.state_from_spn("ww..bb........../........./..../. 1")) is None
        True
        """
        self._deadline, self._clock = deadline, clock
        me, opp, free, occupied, mine, theirs = _masks(state)
        if mine & free:
            return MOVES[sites_of(mine & free)[0]]
        for _, site, after, opened, filled, my_threats, their_threats in self._children(
            me, free, occupied, mine, theirs
        ):
            if not self._prove(opp, after, opened, filled, their_threats, my_threats, filled.bit_count()):
                return MOVES[site]
        return None

    def winning_moves(
        self, state: SplineState, deadline: float | None = None, clock: Callable[[], float] = lambda: 0.0
    ) -> list[SplineMove]:
        """Every move that keeps a win for the player to move (none in a lost position), site order."""
        self._deadline, self._clock = deadline, clock
        me, opp, free, occupied, mine, theirs = _masks(state)
        winning = set(sites_of(mine & free))  # each completes a line at once
        for _, site, after, opened, filled, my_threats, their_threats in self._children(
            me, free, occupied, mine, theirs
        ):
            if site not in winning and not self._prove(
                opp, after, opened, filled, their_threats, my_threats, filled.bit_count()
            ):
                winning.add(site)
        return [MOVES[site] for site in sorted(winning)]

    def _children(
        self, me: int, free: int, occupied: int, mine: int, theirs: int
    ) -> list[tuple[int, int, int, int, int, int, int]]:
        """The moves worth proving, each ``(order, site, masks after it...)``, best first: a forced block
        alone, none that opens a threat site of the opponent, moves that make a threat first, then by
        history. Empty when two threat sites of the opponent are open (the position is lost)."""
        forced = theirs & free
        if forced & (forced - 1):
            return []
        history = self.history
        children = []
        for site in sites_of(forced or free):
            after, opened, filled, my_threats, their_threats = _play(me, free, occupied, mine, theirs, site)
            if their_threats & opened:
                continue  # the opponent fills its threat site next
            threatens = 1 << 20 if my_threats & ~mine else 0
            children.append((threatens + history[site], site, after, opened, filled, my_threats, their_threats))
        children.sort(reverse=True)
        return children

    def _prove(self, me: int, opp: int, free: int, occupied: int, mine: int, theirs: int, ply: int) -> bool:
        """Whether the mover wins (``ply``: the balls on the board); see :meth:`winning_move`."""
        self.nodes += 1
        if not self.nodes & _CLOCK_EVERY and self._deadline is not None and self._clock() > self._deadline:
            raise OutOfTime
        if mine & free:
            return True
        key = canonical_key(me, opp) if ply <= _SYMMETRIC_UP_TO else me | opp << NUM_SITES
        known = self.proven.get(key)
        if known is not None:
            return known
        won = False
        for _, site, after, opened, filled, my_threats, their_threats in self._children(
            me, free, occupied, mine, theirs
        ):
            if not self._prove(opp, after, opened, filled, their_threats, my_threats, ply + 1):
                won = True
                self.history[site] += 1
                break
        self.proven[key] = won
        return won

    def _ordered(self, free: int, forced: int, first: int, ply: int) -> list[int]:
        """The sites to try: a forced block alone; else the table's move, the killers, then by history."""
        if forced:
            return sites_of(forced)
        history = self.history
        moves = sorted(sites_of(free), key=history.__getitem__, reverse=True)
        killers = self.killers[ply]
        for site in (killers[1], killers[0], first):
            if site >= 0 and free >> site & 1:
                moves.remove(site)
                moves.insert(0, site)
        return moves

    def _negamax(
        self,
        me: int,
        opp: int,
        free: int,
        occupied: int,
        mine: int,
        theirs: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """The score for the mover (fail-soft); ``mine``/``theirs``: each side's threat sites.

        The mover cannot have lost yet: the opponent's last ball completed no line.
        """
        self.nodes += 1
        if not self.nodes & _CLOCK_EVERY and self._deadline is not None and self._clock() > self._deadline:
            raise OutOfTime
        if mine & free:
            return WIN - 1
        forced = theirs & free
        if forced & (forced - 1):
            return -(WIN - 2)
        key = me | opp << NUM_SITES
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            entry_depth, entry_score, flag, first = entry
            if entry_depth >= depth and (
                flag == _EXACT or (flag == _LOWER and entry_score >= beta) or (flag == _UPPER and entry_score <= alpha)
            ):
                if entry_depth < _SOLVED:
                    self.approx += 1
                return entry_score
        if depth <= 0:
            self.approx += 1
            return round(self.evaluate(me, opp, free, mine, theirs) * SCALE)
        approx_before = self.approx
        original_alpha = alpha
        best_score, best = -INFINITY, -1
        # The window handed to every child, one ply further from proven results.
        child_alpha, child_beta = -to_child(beta), -to_child(alpha)
        for site in self._ordered(free, forced, first, ply):
            # The ball on ``site``: never a win (checked above), so only the masks change.
            bit = _BITS[site]
            after = me | bit
            filled = occupied | bit
            open_sites = free ^ bit
            for above, below in _UNLOCK[site]:
                if filled & below == below:
                    open_sites |= above
            their_threats = theirs & ~bit
            if their_threats & open_sites:
                score = -(WIN - 2)  # the opponent fills a threat site next
            else:
                my_threats = mine
                for line in LINES_AT[site]:
                    missing = line & ~after
                    if not missing & (missing - 1) and not missing & filled:
                        my_threats |= missing
                block = my_threats & open_sites
                child_depth = depth if block and not block & (block - 1) else depth - 1
                if child_depth <= 0:  # a leaf, judged here: no call, no table entry
                    self.nodes += 1
                    if block:
                        score = WIN - 2  # the opponent faces two threat sites: it blocks one, the mover fills the other
                    else:
                        self.approx += 1
                        evaluation = self.evaluate(opp, after, open_sites, their_threats, my_threats)
                        score = -round(evaluation * SCALE)
                else:
                    score = -self._negamax(
                        opp,
                        after,
                        open_sites,
                        filled,
                        their_threats,
                        my_threats,
                        child_depth,
                        child_alpha,
                        child_beta,
                        ply + 1,
                    )
                score = score - 1 if score > PROVEN else score + 1 if score < -PROVEN else score
            if score > best_score:
                best_score, best = score, site
                if score > alpha:
                    alpha = score
                    child_beta = -to_child(alpha)
                    if alpha >= beta:
                        if not forced:
                            killers = self.killers[ply]
                            if killers[1] != site:
                                killers[0], killers[1] = killers[1], site
                            self.history[site] += depth * depth
                        break
        flag = _UPPER if best_score <= original_alpha else _LOWER if best_score >= beta else _EXACT
        if self.approx == approx_before:
            depth = _SOLVED  # found without the horizon: true at every depth
        self.table[key] = (depth, best_score, flag, best)
        return best_score


def monte_carlo_replies(state: SplineState) -> dict[int, float]:
    """An opponent model for ``swindle=mcts``: the visits of a 600-iteration ``mcts`` search, by reply site."""
    agent = MCTSAgent(iterations=600, seed=len(state.history), reuse=False)
    agent.choose(state, state.current_player())
    return {SplineMove.parse(move).site: float(visits) for move, (visits, _) in agent.root_children().items()}
