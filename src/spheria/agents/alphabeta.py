"""Alpha-beta search: negamax with a transposition table and iterative deepening.

Two-player perfect-information games only. Terminal positions score exactly (a win sooner
scores higher, a loss later scores higher); at the horizon the game's evaluation (its kit's
knowledge, see :mod:`spheria.agents.heuristics`) stands in, scaled far below any win. The search deepens one
ply at a time until the budget runs out, the maximum depth is reached, or a depth is searched
without reaching the horizon anywhere (the answer is then exact). Each depth tries first the
best move the transposition table remembers. A player who moves twice in a row (some games
end a phase so) is handled: the sign flips only when the turn passes.

Options (spec ``alphabeta:depth=6,seed=3``):

* ``depth`` — the deepest iteration (plies, 1 to 50); ``time`` — seconds per move (0.01 to the
  caller's ``max_time``). With both, whichever comes first stops the search; with neither,
  ``time=1``. ``depth`` alone is deterministic, but stops at ``max_time`` (default 600 s) too.
* ``seed`` — shuffles the root moves, so equal moves are chosen at random but reproducibly.
* ``engine`` — ``generic`` (default) searches through the game's public state; ``game`` uses
  the game's own search where it has one (its kit's ``search``, a :class:`GameSearch`, which
  may work on the game's bare masks with pruning and tables of its own), else the generic one.
  With ``engine=game`` the ``seed`` does not shuffle (the game's search orders).
* ``swindle`` — with ``engine=game``, in a position proven lost: ``share`` plays the move that
  leaves the opponent the fewest winning replies, ``mcts`` weighs the replies by a short Monte
  Carlo search's visits (the game's search decides how).

>>> import spheria
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> AlphaBetaAgent(depth=2, seed=1).choose(state, 0) in state.legal_moves()
True
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from spheria.agents.heuristics import evaluation, position_key, require_state, spn_key, zero_evaluation
from spheria.agents.options import CLOCK, SEED, check_max_time, thinking_clock, time_option
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import PlayerView, State
from spheria.kernel.kit import Evaluate, KeyFunction
from spheria.kernel.options import Option

#: The score of winning at once; a win ``k`` plies away scores ``WIN - k``.
WIN = 1_000_000
#: Scores beyond this are wins or losses.
PROVEN = WIN - 10_000
#: The evaluation's ``[-1, 1]`` maps to ``[-SCALE, SCALE]``, far below any proven score.
SCALE = 10_000
_INFINITY = 10 * WIN
_MAX_DEPTH = 200
#: The deepest search the ``depth`` option may ask for (plies).
MAX_DEPTH = 50
_EXACT, _LOWER, _UPPER = 0, 1, 2


class OutOfTime(Exception):
    """The search's deadline passed in the middle of an iteration."""


class GameSearch(Protocol):
    """A game's own alpha-beta (its kit's ``search`` makes one; ``alphabeta:engine=game`` runs it).

    One is kept for the moves of a game (its tables stay true between them) and counts the
    positions it visits in ``nodes``.
    """

    nodes: int

    def best_move(
        self, state: Any, depth: int, deadline: float | None, clock: Callable[[], float]
    ) -> tuple[int, Any, bool]:
        """One iteration of ``depth`` plies: the score for the mover (scaled as :data:`WIN` and
        :data:`SCALE` say), the best move and whether the score is exact; :class:`OutOfTime` if
        ``clock()`` passes ``deadline`` first."""
        ...

    def lost_move(self, state: Any, deadline: float | None, clock: Callable[[], float], swindle: str) -> Any:
        """In a position proven lost, the move that makes the win hardest to find (the ``swindle``
        option says whose mistakes to hope for); ``None`` for no better idea than the search's."""
        ...


@dataclass(frozen=True)
class DepthReport:
    """What one completed iteration found: its depth, score for the mover, move, nodes so far."""

    depth: int
    score: int
    move: str
    nodes: int
    exact: bool


def _from_child(score: int) -> int:
    """A child's score seen one ply higher: proven results move one ply further away."""
    if score > PROVEN:
        return score - 1
    if score < -PROVEN:
        return score + 1
    return score


def to_child(bound: int) -> int:
    """A window bound handed down one ply (the inverse of :func:`_from_child`)."""
    if bound > PROVEN:
        return bound + 1
    if bound < -PROVEN:
        return bound - 1
    return bound


class AlphaBetaAgent(Agent):
    """Negamax alpha-beta with a transposition table, iterative deepening and a per-game evaluation."""

    spec_name = "alphabeta"
    option_specs = (
        Option("depth", None, "the deepest iteration, in plies", kind=int, minimum=1, maximum=MAX_DEPTH),
        time_option(None, "seconds per move (default 1 unless depth is given)"),
        CLOCK,
        SEED,
        Option("engine", "generic", "generic search, or the game's own where it has one", ("generic", "game")),
        Option("swindle", "share", "engine=game, lost: whose mistakes to hope for", ("share", "mcts")),
    )
    plays = Plays(seats=(2,), hidden_information=False)

    def __init__(
        self,
        depth: int | None = None,
        time: float | None = None,
        seed: int | None = None,
        clock: str | None = None,
        engine: str | None = None,
        swindle: str | None = None,
        max_time: float | None = None,
    ) -> None:
        self.time_cap = check_max_time(max_time)
        values = self.checked_options(
            self.time_cap, depth=depth, time=time, seed=seed, clock=clock, engine=engine, swindle=swindle
        )
        if values["depth"] is None and values["time"] is None:
            values["time"] = min(1.0, self.time_cap)
        self.depth: int | None = values["depth"]
        self.time: float | None = values["time"]
        self.seed: int | None = values["seed"]
        self.clock = thinking_clock(values["clock"])
        self.engine: str = values["engine"]
        self.swindle: str = values["swindle"]
        self._game_search: GameSearch | None = None
        self._game_search_of: Callable[[], Any] | None = None  # the kit's factory that made it
        self.name = self.spec_from(values)
        self.rng = random.Random(self.seed)
        self.reports: list[DepthReport] = []
        self.nodes = 0
        self._table: dict[Hashable, tuple[int, int, int, Any, bool]] = {}
        self._approx = 0
        self._deadline: float | None = None
        self._key: KeyFunction = spn_key  # set per search from the game's knowledge
        self._evaluate: Evaluate = zero_evaluation

    def choose(self, view: PlayerView, player: int) -> Any:
        state = require_state(view, player, "alphabeta")
        if state.game.num_players != 2:
            players = state.game.num_players
            raise ValueError(f"alphabeta plays two-player games only; this {state.game.name} has {players} players")
        factory = state.game.kit().search
        if self.engine == "game" and factory is not None:
            return self._choose_by_game(state, factory)
        self._key, self._evaluate = position_key(state.game), evaluation(state.game)
        self._table = {}
        self.reports = []
        self.nodes = 0
        work = state.clone()
        moves = work.legal_moves()
        self.rng.shuffle(moves)
        if len(moves) == 1:
            return moves[0]
        start = self.clock()
        budget = self.max_seconds_per_move()
        max_depth = self.depth or _MAX_DEPTH
        best = moves[0]
        for depth in range(1, max_depth + 1):
            # The first iteration always completes, so there is always a searched answer.
            self._deadline = None if depth == 1 else start + budget
            self._approx = 0
            try:
                score, best = self._root(work, moves, depth)
            except OutOfTime:
                break
            exact = self._approx == 0
            self.reports.append(DepthReport(depth, score, str(best), self.nodes, exact))
            moves.remove(best)
            moves.insert(0, best)
            if exact or abs(score) > PROVEN:
                break
            if self.clock() - start >= budget:
                break
        return best

    def _choose_by_game(self, state: State[Any], factory: Callable[[], Any]) -> Any:
        """The move by the game's own search (its kit's ``search``), deepening like :meth:`choose`."""
        if self._game_search is None or self._game_search_of is not factory or len(state.history) < 2:
            self._game_search = factory()  # a new game: a new table
            self._game_search_of = factory
        search = self._game_search
        assert search is not None
        self.reports = []
        search.nodes = 0
        start = self.clock()
        budget = self.max_seconds_per_move()
        best = None
        for depth in range(1, (self.depth or _MAX_DEPTH) + 1):
            try:
                score, move, exact = search.best_move(state, depth, None if depth == 1 else start + budget, self.clock)
            except OutOfTime:
                break
            best = move
            self.reports.append(DepthReport(depth, score, str(move), search.nodes, exact))
            if exact or abs(score) > PROVEN or self.clock() - start >= budget:
                break
        if self.reports and self.reports[-1].score < -PROVEN:
            with contextlib.suppress(OutOfTime):  # lost against perfect play: make the win hard to find
                best = search.lost_move(state, start + budget, self.clock, self.swindle) or best
        self.nodes = search.nodes
        return best

    def reset(self) -> None:
        self._game_search = self._game_search_of = None

    def max_seconds_per_move(self) -> float:
        """``time``; with ``depth`` alone, the caller's ``max_time`` (the search stops there too)."""
        return self.within_limit(self.time if self.time is not None else self.time_cap)

    def value(self, state: State[Any], depth: int) -> int:
        """The negamax score of ``state`` for the player to move, searched ``depth`` plies (for tests)."""
        self._key, self._evaluate = position_key(state.game), evaluation(state.game)
        self._table = {}
        self._deadline = None
        return self._negamax(state.clone(), depth, -_INFINITY, _INFINITY)

    # -- search --------------------------------------------------------------------------

    def _root(self, state: State[Any], moves: list[Any], depth: int) -> tuple[int, Any]:
        player = state.current_player()
        alpha = -_INFINITY
        best = moves[0]
        for move in moves:
            score = self._child_score(state, move, player, depth, alpha, _INFINITY)
            if score > alpha:
                alpha, best = score, move
        return alpha, best

    def _child_score(self, state: State[Any], move: Any, player: int, depth: int, alpha: int, beta: int) -> int:
        """The score for ``player`` of playing ``move`` in ``state``, searched ``depth - 1`` plies beyond."""
        state.apply(move)
        try:
            if state.is_terminal():
                result = state.returns()[player]
                return WIN - 1 if result > 0 else -(WIN - 1) if result < 0 else 0
            if state.current_player() == player:
                return _from_child(self._negamax(state, depth - 1, to_child(alpha), to_child(beta)))
            return _from_child(-self._negamax(state, depth - 1, -to_child(beta), -to_child(alpha)))
        finally:
            state.undo()

    def _negamax(self, state: State[Any], depth: int, alpha: int, beta: int) -> int:
        """The score of the non-terminal ``state`` for the player to move (fail-soft)."""
        self.nodes += 1
        if self._deadline is not None and self.clock() > self._deadline:
            raise OutOfTime
        key = self._key(state)
        entry = self._table.get(key)
        best_move = None
        if entry is not None:
            entry_depth, entry_score, flag, best_move, approx = entry
            if entry_depth >= depth and (
                flag == _EXACT or (flag == _LOWER and entry_score >= beta) or (flag == _UPPER and entry_score <= alpha)
            ):
                self._approx += approx
                return entry_score
        player = state.current_player()
        if depth <= 0:
            self._approx += 1
            return round(self._evaluate(state, player) * SCALE)
        approx_before = self._approx
        moves = state.legal_moves()
        if best_move is not None and best_move in moves:
            moves.remove(best_move)
            moves.insert(0, best_move)
        original_alpha = alpha
        best_score = -_INFINITY
        for move in moves:
            score = self._child_score(state, move, player, depth, alpha, beta)
            if score > best_score:
                best_score, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        flag = _UPPER if best_score <= original_alpha else _LOWER if best_score >= beta else _EXACT
        self._table[key] = (depth, best_score, flag, best_move, self._approx > approx_before)
        return best_score
