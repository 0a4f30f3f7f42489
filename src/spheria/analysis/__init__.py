"""Analysis of any position of any game: who is winning, and what each legal move is worth.

:func:`analyse` picks the strongest method that reaches the position:

* Special Cake, eating phase — the exact solver (:mod:`spheria.games.special_cake.solver`): the verdict for the
  player to move and win/loss for every legal move (``status`` ``exact``, ``method``
  ``solver``); answers are cached per position.
* Special Cake, set-up — the planner's exact search (every way the set-up can finish, each
  cake solved) once few enough placements are left (:data:`spheria.games.special_cake.planner.DEFAULT_EXACT`)
  and the solves fit the time; otherwise an MCTS estimate (``status`` ``estimate``).
* Spinca and Spline — MCTS: visits and mean result per legal move, the principal variation and
  the iterations run (an estimate).
* Spagyric — from one seat's public view only (the opponent's secret choice never enters): at a
  reveal the equilibrium mixed strategy and value by the exact solver
  (:mod:`spheria.games.spagyric.solver`) where its table bound reaches, otherwise the Spagyric agent's
  strategy as an estimate; at a placement the value of each site.

Values are for the seat analysed (``seat``: the player to move, or the view's seat), from -1 (a
certain loss) to +1 (a certain win); ``win_rate`` is the same on a 0 to 1 scale.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> result = analyse(game.state_from_spn("w.b............./........./..../. 1 eat"))
>>> result.status, result.verdict, [(m.move, m.value) for m in result.moves]
('exact', 1, [('0a1', 1.0), ('0c1', 1.0)])

:func:`analyse_game` runs it over a finished game: the verdict before and after every move,
the Special Cake eating moves that threw a win away, the moves where the engine's win rate fell
most, and the evaluation series. See docs/analysis.md.
"""

from __future__ import annotations

import itertools
import math
import threading
import time as _time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from spheria.analysis import messages as msg
from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS, PlayerView, State
from spheria.kernel.record import Record

__all__ = [
    "ESTIMATE",
    "EXACT",
    "OVER",
    "UNSOLVED",
    "Analysis",
    "GameAnalysis",
    "MoveAnalysis",
    "MoveValue",
    "Progress",
    "analyse",
    "analyse_game",
    "clear_cache",
]

#: ``status``: proved by an exact search.
EXACT = "exact"
#: ``status``: a search's estimate (MCTS win rates, or the Spagyric agent's strategy).
ESTIMATE = "estimate"
#: ``status``: the exact search did not finish within the time given.
UNSOLVED = "unsolved"
#: ``status``: the game is over; ``values`` holds its result.
OVER = "over"

#: ``method`` codes.
SOLVER, PLANNER, MCTS, SPAGYRIC_SOLVER, SPAGYRIC_AGENT, RESULT = (
    "solver",
    "planner",
    "mcts",
    "spagyric-solver",
    "spagyric-agent",
    "result",
)

#: The time an estimate takes when ``analyse`` is given no time.
DEFAULT_TIME = 1.0
#: The share of the time the exact set-up search may take before the estimate takes over.
EXACT_SHARE = 2 / 3
#: MCTS iterations between two progress reports.
MCTS_CHUNK = 250
#: The exact Spagyric solver is tried once each seat holds at most this many balls (in hand
#: and stunned; the Spagyric agent's default ``exact``)...
SPAGYRIC_HELD = 4
#: ...and gives way to the agent's estimate if its table would grow past this many reveals.
SPAGYRIC_STATES = 60_000
#: The most positions whose exact eating-phase analysis is kept.
CACHE_SIZE = 4096
#: A principal variation stops at a node visited fewer times than this.
PV_MIN_VISITS = 4
#: The longest principal variation reported.
PV_LENGTH = 12
#: analyse_game lists at most this many moves where the win rate fell most...
LARGEST_DROPS = 3
#: ...and only those where it fell by at least this much (on the 0 to 1 scale).
DROP_THRESHOLD = 0.1


@dataclass(frozen=True)
class MoveValue:
    """One legal move: its notation and what it is worth to the seat analysed.

    ``value`` from -1 to +1 (``None`` when the search did not value it), ``win_rate`` the same
    from 0 to 1, ``visits`` the MCTS visits, ``probability`` its weight in a mixed strategy.
    """

    move: str
    value: float | None = None
    visits: int | None = None
    probability: float | None = None

    @property
    def win_rate(self) -> float | None:
        return None if self.value is None else (self.value + 1.0) / 2.0

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "value": _rounded(self.value),
            "win_rate": _rounded(self.win_rate),
            "visits": self.visits,
            "probability": _rounded(self.probability),
        }


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` found. See the module docstring and docs/analysis.md."""

    game: str
    options: dict[str, Any]
    position: str
    seat: int | None
    phase: str | None
    method: str
    status: str
    verdict: int | None = None
    value: float | None = None
    values: list[float] | None = None
    moves: list[MoveValue] = field(default_factory=list)
    best_moves: list[str] = field(default_factory=list)
    principal_variation: list[str] = field(default_factory=list)
    iterations: int | None = None
    positions: int | None = None
    seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.status in (EXACT, OVER)

    @property
    def win_rate(self) -> float | None:
        return None if self.value is None else (self.value + 1.0) / 2.0

    def move(self, notation: str) -> MoveValue:
        """The entry of the move written ``notation``; ``KeyError`` if it is not listed."""
        for entry in self.moves:
            if entry.move == notation:
                return entry
        raise KeyError(notation)

    def to_json(self, statistics: bool = True) -> dict[str, Any]:
        """JSON-ready data with stable keys; ``statistics=False`` leaves out ``seconds`` and
        ``positions`` (searched), which depend on the machine and on what the solvers' tables
        already held: all that differs between two runs of the same exact or seeded analysis."""
        data: dict[str, Any] = {
            "game": self.game,
            "options": dict(self.options),
            "position": self.position,
            "seat": self.seat,
            "phase": self.phase,
            "method": self.method,
            "status": self.status,
            "verdict": self.verdict,
            "value": _rounded(self.value),
            "win_rate": _rounded(self.win_rate),
            "values": None if self.values is None else [_rounded(v) for v in self.values],
            "best_moves": list(self.best_moves),
            "principal_variation": list(self.principal_variation),
            "moves": [m.to_json() for m in self.moves],
            "iterations": self.iterations,
        }
        if statistics:
            data["positions"] = self.positions
            data["seconds"] = round(self.seconds, 3)
        return data


@dataclass(frozen=True)
class Progress:
    """A report while :func:`analyse` runs: the ``method`` at work, ``seconds`` so far, the
    solver's ``positions`` or MCTS ``iterations``, and for MCTS the analysis so far."""

    method: str
    seconds: float
    positions: int | None = None
    iterations: int | None = None
    partial: Analysis | None = None


ProgressCallback = Callable[[Progress], object]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4) + 0.0  # + 0.0: no "-0.0" in the JSON


# -- analyse -----------------------------------------------------------------------------------


def analyse(
    state: State[Any] | PlayerView,
    time: float | None = 1.0,
    progress: ProgressCallback | None = None,
    *,
    seat: int | None = None,
    iterations: int | None = None,
    seed: int | None = 0,
) -> Analysis:
    """Analyse ``state`` within about ``time`` seconds (see the module docstring); ``None``
    lets an exact search run to the end (a search that only estimates then takes
    :data:`DEFAULT_TIME` unless ``iterations`` is given).

    ``state`` is an engine state, or a Spagyric seat's view (``state.view(seat)``). A live
    Spagyric state is analysed from ``seat``'s view only; a finished one needs no seat.
    ``iterations`` fixes the MCTS budget (with ``seed``, the same answer every run; ``time``
    still caps it). ``progress`` is called as the search runs. Raises ``ValueError`` for a bad
    argument.
    """
    if time is not None and (isinstance(time, bool) or not isinstance(time, int | float) or not 0 < time < math.inf):
        raise ValueError(_(msg.BAD_TIME).format(time=time))
    if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1):
        raise ValueError(_(msg.BAD_ITERATIONS).format(iterations=iterations))
    budget = _Budget(None if time is None else float(time), iterations, seed, progress)
    from spheria.games.spagyric.rules import SpagyricState, SpagyricView

    if isinstance(state, SpagyricView):
        return _spagyric_view(state, budget)
    if not isinstance(state, State):
        raise ValueError(_(msg.NOT_A_STATE).format(kind=type(state).__name__))
    if state.is_terminal():
        return _over(state)
    if isinstance(state, SpagyricState):
        if seat is None:
            raise ValueError(_(msg.SEAT_NEEDED).format(game=state.game.name))
        if seat not in range(state.game.num_players) or isinstance(seat, bool):
            raise ValueError(_(msg.BAD_SEAT).format(game=state.game.name, last=state.game.num_players - 1, seat=seat))
        return _spagyric_view(state.view(seat), budget)
    from spheria.games.special_cake.rules import EAT, CakeState

    if isinstance(state, CakeState):
        if state.phase == EAT:
            return _eating(state, budget)
        return _set_up(state, budget)
    if not state.game.perfect_information or state.current_player() == SIMULTANEOUS:
        raise ValueError(_(msg.NOT_ANALYSED).format(game=state.game.name))  # MCTS would see hidden data
    return _mcts(state, budget)


@dataclass
class _Budget:
    time: float | None
    iterations: int | None
    seed: int | None
    progress: ProgressCallback | None
    start: float = field(default_factory=_time.perf_counter)

    def left(self) -> float | None:
        """Seconds left, ``None`` for no limit."""
        return None if self.time is None else max(self.start + self.time - _time.perf_counter(), 0.0)

    def estimate_time(self) -> float:
        """The time a search that only estimates may take."""
        return DEFAULT_TIME if self.time is None else self.time

    def spent(self) -> bool:
        left = self.left()
        return left is not None and left <= 0

    def elapsed(self) -> float:
        return _time.perf_counter() - self.start

    def report(self, report: Progress) -> None:
        if self.progress is not None:
            self.progress(report)


def _base(state: State[Any], seat: int | None, method: str, status: str) -> Analysis:
    return Analysis(
        state.game.name,
        dict(state.game.options),
        state.to_spn(),
        seat,
        getattr(state, "phase", None),
        method,
        status,
    )


def _two(value: float, seat: int) -> list[float]:
    """Both seats' values of a two-seat zero-sum game, from ``seat``'s ``value``."""
    return [value + 0.0, -value + 0.0] if seat == 0 else [-value + 0.0, value + 0.0]


def _over(state: State[Any]) -> Analysis:
    returns = [float(r) for r in state.returns()]
    return replace(_base(state, None, RESULT, OVER), values=returns)


# -- Special Cake ------------------------------------------------------------------------------

_cache: OrderedDict[tuple[str, str], Analysis] = OrderedDict()
#: Guards the cache and the Spagyric solvers' tables (the server analyses from several threads).
_lock = threading.RLock()


def clear_cache() -> None:
    """Forget the cached exact analyses and the Spagyric solvers' tables."""
    with _lock:
        _cache.clear()
        _spagyric_solvers.clear()


def _eating(state: Any, budget: _Budget) -> Analysis:
    """The solver's exact answer: the eating phase by search, a mint set-up from the shipped table.

    With a ``progress`` callback an eating position is solved in two steps: the verdict first
    (the search stops at the first winning move, or proves every move lost), reported at once as
    ``partial``; then every other move. If the time runs out between the two, the verdict stands
    and the moves not yet proved have no value.
    """
    from spheria.games.special_cake.rules import EAT
    from spheria.games.special_cake.solver import SolveProgress, solve

    key = (repr(state.game), state.to_spn())
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return replace(cached, seconds=budget.elapsed())
    seat = state.player
    positions = 0

    def forward(report: SolveProgress) -> None:
        budget.report(Progress(SOLVER, budget.elapsed(), positions=positions + report.positions))

    callback = forward if budget.progress else None
    verdict_first: Analysis | None = None
    try:
        if budget.progress is not None and state.phase == EAT:
            known = _full_cake_value(state)
            if known is not None:
                verdict_first = _verdict_only(state, known, budget)
            else:
                first = solve(state, time_limit=budget.left(), progress=callback, stop_at_first=True)
                positions = first.positions
                verdict_first = _solved(state, first, positions, budget, complete=first.value < 0)
            if verdict_first.verdict is not None and verdict_first.verdict < 0:  # every move is lost
                return _remember(key, verdict_first)
            budget.report(Progress(SOLVER, budget.elapsed(), positions=positions, partial=verdict_first))
        result = solve(state, time_limit=budget.left(), progress=callback)
    except TimeoutError:
        if verdict_first is not None:
            return replace(verdict_first, seconds=budget.elapsed())
        moves = [MoveValue(state.notation(m)) for m in state.legal_moves()]
        return replace(_base(state, seat, SOLVER, UNSOLVED), moves=moves, seconds=budget.elapsed())
    return _remember(key, _solved(state, result, positions + result.positions, budget, complete=True))


def _full_cake_value(state: Any) -> int | None:
    """The value of a full mint cake (mixed lines) read from the shipped set-up table, whose last
    level holds every full cake: eating is impartial, so "Mint, eating first, wins" is "the player
    to move wins". ``None`` for any other position."""
    from spheria.games.special_cake.solver import solves_set_up
    from spheria.games.special_cake.solver.setup_table import shipped_table

    white, black, red = state.masks()
    full = (white | black | red).bit_count() == state.game.placements
    if not (full and solves_set_up(state.game) and white.bit_count() == black.bit_count()):
        return None
    return 1 if shipped_table().mint_wins(white, black) else -1


def _verdict_only(state: Any, value: int, budget: _Budget) -> Analysis:
    """An exact verdict before any move is proved; when it is a loss every move is lost."""
    seat = state.player
    lost = -1.0 if value < 0 else None
    return replace(
        _base(state, seat, SOLVER, EXACT),
        verdict=value,
        value=float(value),
        values=_two(float(value), seat),
        moves=[MoveValue(state.notation(m), lost) for m in state.legal_moves()],
        seconds=budget.elapsed(),
    )


def _solved(state: Any, result: Any, positions: int, budget: _Budget, complete: bool) -> Analysis:
    """The analysis of a solve: every move valued (``complete``), or only the winning ones found."""
    seat = state.player
    winning = {str(m) for m in result.best_moves} if result.value > 0 else set()
    lost = -1.0 if complete else None  # a move not (yet) proved has no value
    moves = [MoveValue(state.notation(m), 1.0 if str(m) in winning else lost) for m in state.legal_moves()]
    return replace(
        _base(state, seat, SOLVER, EXACT),
        verdict=result.value,
        value=float(result.value),
        values=_two(float(result.value), seat),
        moves=moves,
        best_moves=[state.notation(m) for m in result.best_moves],
        positions=positions,
        seconds=budget.elapsed(),
    )


def _remember(key: tuple[str, str], analysis: Analysis) -> Analysis:
    """Cache a complete exact answer (every move valued) and return it."""
    if all(m.value is not None for m in analysis.moves):
        with _lock:
            _cache[key] = analysis
            if len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return analysis


def _set_up(state: Any, budget: _Budget) -> Analysis:
    from spheria.games.special_cake.planner import DEFAULT_EXACT, placed
    from spheria.games.special_cake.solver import solves_set_up

    if solves_set_up(state.game):  # mint with mixed lines: the shipped set-up table is exact
        return _eating(state, budget)
    variant = state.game.variant
    left = state.game.placements - placed(state.masks())
    if variant in DEFAULT_EXACT and left <= DEFAULT_EXACT[variant]:
        # The exact search may take EXACT_SHARE of the time; if it does not finish, the
        # estimate has the rest.
        share = None if budget.time is None else budget.time * EXACT_SHARE
        exact = _set_up_exact(state, replace(budget, time=share))
        if exact is not None:
            return exact
    return _mcts(state, budget)


def _set_up_exact(state: Any, budget: _Budget) -> Analysis | None:
    """Minimax over every way the set-up can finish, each complete cake solved exactly (the
    planner's exact search, without its tie-break); ``None`` if the solves overrun the time."""
    from spheria.games.special_cake.planner import complete_cakes, finished, placed, set_up_children
    from spheria.games.special_cake.solver import position_value

    game = state.game
    variant, line_rule, placements = game.variant, game.line_rule, game.placements
    cakes = complete_cakes(state.masks(), state.player, placements, variant)
    solved: dict[Any, int] = {}
    for number, cake in enumerate(cakes):
        try:
            solved[cake] = position_value(cake, variant, line_rule, time_limit=budget.left())
        except TimeoutError:
            return None
        budget.report(Progress(PLANNER, budget.elapsed(), positions=number + 1))
    memo: dict[Any, int] = {}

    def first_eater(masks: Any, mover: int) -> int:
        """+1 if Mint (seat 0, the first eater) wins with perfect play from this set-up."""
        if masks in memo:
            return memo[masks]
        if placed(masks) == placements:
            value = solved[finished(masks, variant)]
        else:
            values = [first_eater(child, 1 - mover) for child in set_up_children(masks, mover)]
            value = max(values) if mover == 0 else min(values)
        memo[masks] = value
        return value

    seat = state.player
    sign = 1 if seat == 0 else -1
    children = list(set_up_children(state.masks(), seat))
    moves = [
        MoveValue(state.notation(move), float(sign * first_eater(child, 1 - seat)))
        for move, child in zip(state.legal_moves(), children, strict=True)
    ]
    verdict = max(int(m.value or 0) for m in moves)
    return replace(
        _base(state, seat, PLANNER, EXACT),
        verdict=verdict,
        value=float(verdict),
        values=_two(float(verdict), seat),
        moves=moves,
        best_moves=[m.move for m in moves if m.value == verdict],
        positions=len(cakes),
        seconds=budget.elapsed(),
    )


# -- MCTS (Spinca, Spline, the early Special Cake set-up) --------------------------------------


def _mcts(state: State[Any], budget: _Budget) -> Analysis:
    from spheria.agents.mcts import MCTSAgent

    seat = state.current_player()
    cap = budget.estimate_time()
    agent = MCTSAgent(iterations=MCTS_CHUNK, seed=budget.seed, reuse=True, max_time=max(cap, 1.0))
    done = 0
    analysis = _mcts_snapshot(state, seat, agent, done, budget)
    while budget.elapsed() < cap and (budget.iterations is None or done < budget.iterations):
        chunk = MCTS_CHUNK if budget.iterations is None else min(MCTS_CHUNK, budget.iterations - done)
        agent.iterations = chunk
        agent.choose(state, seat)
        assert agent.last_stats is not None
        done += agent.last_stats.iterations
        analysis = _mcts_snapshot(state, seat, agent, done, budget)
        budget.report(Progress(MCTS, budget.elapsed(), iterations=done, partial=analysis))
        if agent.last_stats.iterations < chunk:  # the agent's own time cap stopped it
            break
    return analysis


def _mcts_snapshot(state: State[Any], seat: int, agent: Any, done: int, budget: _Budget) -> Analysis:
    children = agent.root_children()
    moves = []
    values: list[float] | None = None  # every seat's mean result of the most visited move
    most = 0
    for move in state.legal_moves():
        visits, means = children.get(str(move), (0, None))
        moves.append(MoveValue(state.notation(move), None if means is None else means[seat], visits))
        if visits > most:
            most, values = visits, list(means)
    moves.sort(key=lambda m: -(m.visits or 0))
    # The position is worth what its most visited move is worth: the root's own mean would
    # count the exploration of weaker moves against it.
    return replace(
        _base(state, seat, MCTS, ESTIMATE),
        value=None if values is None else values[seat],
        values=values,
        moves=moves,
        best_moves=[moves[0].move] if values is not None else [],
        principal_variation=_principal_variation(state, agent) if done else [],
        iterations=done,
        seconds=budget.elapsed(),
    )


def _principal_variation(state: State[Any], agent: Any) -> list[str]:
    """The most visited line of the search tree, while its nodes are visited enough."""
    line: list[Any] = []
    notation: list[str] = []
    probe = state.clone()
    while len(line) < PV_LENGTH and not probe.is_terminal() and probe.current_player() != SIMULTANEOUS:
        visits = [(agent.tree_visits([*line, move]), index) for index, move in enumerate(probe.legal_moves())]
        best_visits, index = max(visits, key=lambda item: (item[0], -item[1]))
        if best_visits < PV_MIN_VISITS:
            break
        move = probe.legal_moves()[index]
        notation.append(probe.notation(move))
        line.append(move)
        probe.apply(move)
    return notation


# -- Spagyric ----------------------------------------------------------------------------------

_spagyric_solvers: dict[int, Any] = {}


def _spagyric_view(view: Any, budget: _Budget) -> Analysis:
    from spheria.games.spagyric.agent import reconstruct

    seat = int(view.player)
    observation = view.observation(seat)
    position = reconstruct(observation)
    base = Analysis(
        str(observation["game"]),
        {"supply": observation["supply_per_color"], "memory": observation["memory"]},
        str(observation["board"]),
        seat,
        str(observation["phase"]),
        SPAGYRIC_SOLVER,
        EXACT,
    )
    return _spagyric(position, seat, base, lambda: view, int(observation["supply_per_color"]), budget)


def _spagyric(
    position: Any, seat: int, base: Analysis, view: Callable[[], Any], supply: int, budget: _Budget
) -> Analysis:
    """The analysis of a Spagyric ``position`` for ``seat``; ``view`` gives that seat's view for
    the agent's estimate when the exact solver does not reach."""
    from spheria.games.spagyric.agent import held
    from spheria.games.spagyric.rules import OVER as GAME_OVER
    from spheria.games.spagyric.rules import SUDDEN

    if position.phase == GAME_OVER:
        value = position.value()
        return replace(base, method=RESULT, status=OVER, values=[value, -value])
    if position.phase != SUDDEN and held(position) > SPAGYRIC_HELD:
        return _spagyric_estimate(base, view(), seat, budget)
    with _lock:
        exact = _spagyric_exact(position, seat, base, supply, budget)
    return _spagyric_estimate(base, view(), seat, budget) if exact is None else exact


def _spagyric_exact(position: Any, seat: int, base: Analysis, supply: int, budget: _Budget) -> Analysis | None:
    """The exact solver's answer; ``None`` past its table bound. Hold ``_lock``."""
    from spheria.engine.board import SITE_NAMES
    from spheria.games.spagyric.rules import PLACE, Choice
    from spheria.games.spagyric.solver import SolveLimitError, SpagyricSolver

    solver = _spagyric_solvers.setdefault(supply, SpagyricSolver())
    if solver.reveals > 4 * SPAGYRIC_STATES:
        solver.clear()
    solver.max_states = solver.reveals + SPAGYRIC_STATES
    sign = 1.0 if seat == 0 else -1.0
    try:
        if position.phase == PLACE:
            if position.placer != seat:
                value = _signed(sign, solver.value(position))
                return replace(base, value=value, values=_two(value, seat), seconds=budget.elapsed())
            sites = solver.placement_values(position)
            moves = [MoveValue(SITE_NAMES[site], _signed(sign, v)) for site, v in sites.items()]
            value = max(m.value or 0.0 for m in moves)
        else:
            solution = solver.solve_reveal(position)
            value = _signed(sign, solution.value)
            moves = [
                MoveValue(str(Choice(color)), _signed(sign, _against(solution, seat, index)), probability=probability)
                for index, (color, probability) in enumerate(
                    zip(solution.colors[seat], solution.strategies[seat], strict=True)
                )
            ]
    except SolveLimitError:
        return None
    finally:
        solver.max_states = None
    best = max(m.value or 0.0 for m in moves)
    return replace(
        base,
        value=value,
        values=_two(value, seat),
        moves=moves,
        best_moves=[m.move for m in moves if (m.value or 0.0) >= best - 1e-9 and m.probability != 0.0],
        positions=solver.states,
        seconds=budget.elapsed(),
    )


def _signed(sign: float, value: float) -> float:
    """``value`` for seat 0 as a value for the seat of ``sign`` (no ``-0.0``)."""
    return sign * value + 0.0


def _against(solution: Any, seat: int, index: int) -> float:
    """Seat 0's expected value when ``seat`` plays its ``index``-th colour against the other
    seat's equilibrium mix."""
    other = solution.strategies[1 - seat]
    row = solution.matrix[index] if seat == 0 else [line[index] for line in solution.matrix]
    return float(sum(p * v for p, v in zip(other, row, strict=True)))


def _spagyric_estimate(base: Analysis, view: Any, seat: int, budget: _Budget) -> Analysis:
    from spheria.games.spagyric.agent import SpagyricAgent

    cap = budget.estimate_time()
    if budget.iterations is None:
        agent = SpagyricAgent(time=cap, seed=budget.seed, max_time=cap)
    else:
        agent = SpagyricAgent(iterations=budget.iterations, seed=budget.seed, max_time=max(cap, 1.0))
    policy = agent.policy(view, seat)
    moves = [MoveValue(str(move), probability=p) for move, p in policy.items()]
    top = max(m.probability or 0.0 for m in moves)
    return replace(
        base,
        method=SPAGYRIC_AGENT,
        status=ESTIMATE,
        moves=moves,
        best_moves=[m.move for m in moves if m.probability == top],
        iterations=agent.last_iterations,
        seconds=budget.elapsed(),
    )


# -- a whole game ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of a game: its ``number`` (1-based), the ``seat`` that made it (``None`` for a
    joint Spagyric reveal), its notation, and the analyses of the positions before and after."""

    number: int
    seat: int | None
    move: str
    before: Analysis
    after: Analysis

    @property
    def threw_away_win(self) -> bool:
        """An exact win before the move, an exact loss for the same seat after it."""
        if self.seat is None or not (self.before.exact and self.after.exact):
            return False
        before, after = self.before.values, self.after.values
        return before is not None and after is not None and before[self.seat] > 0 and after[self.seat] < 0

    @property
    def drop(self) -> float | None:
        """How far the mover's win rate (0 to 1) fell with this move (negative: it rose)."""
        before, after = self.before.values, self.after.values
        if before is None or after is None:
            return None
        seats = range(len(before)) if self.seat is None else [self.seat]
        return max((before[s] - after[s]) / 2.0 for s in seats)

    def to_json(self, statistics: bool = True) -> dict[str, Any]:
        drop = self.drop
        return {
            "number": self.number,
            "seat": self.seat,
            "move": self.move,
            "status": self.before.status,
            "verdict_before": self.before.verdict,
            "verdict_after": self.after.verdict,
            "values_before": None if self.before.values is None else [_rounded(v) for v in self.before.values],
            "values_after": None if self.after.values is None else [_rounded(v) for v in self.after.values],
            "drop": _rounded(drop),
            "threw_away_win": self.threw_away_win,
            "best_moves": list(self.before.best_moves),
            "before": self.before.to_json(statistics),
        }


@dataclass(frozen=True)
class GameAnalysis:
    """:func:`analyse_game`'s answer: every move, the throw-aways (exact), the largest drops
    (estimates only: where a move lost the most win rate) and the evaluation series (seat 0's
    value at each position, ``None`` where unknown)."""

    game: str
    options: dict[str, Any]
    moves: list[MoveAnalysis]
    evaluation: list[float | None]

    @property
    def threw_away_win(self) -> list[int]:
        return [m.number for m in self.moves if m.threw_away_win]

    @property
    def largest_drops(self) -> list[int]:
        dropped = [
            m
            for m in self.moves
            if not (m.before.exact and m.after.exact) and m.drop is not None and m.drop >= DROP_THRESHOLD
        ]
        dropped.sort(key=lambda m: (-(m.drop or 0.0), m.number))
        return [m.number for m in dropped[:LARGEST_DROPS]]

    def to_json(self, statistics: bool = True) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": dict(self.options),
            "moves": [m.to_json(statistics) for m in self.moves],
            "threw_away_win": self.threw_away_win,
            "largest_drops": self.largest_drops,
            "evaluation": [_rounded(v) for v in self.evaluation],
        }


def analyse_game(
    record_or_states: Record | State[Any] | Sequence[State[Any]],
    time: float | None = 0.5,
    progress: Callable[[int, int], object] | None = None,
    *,
    iterations: int | None = None,
    seed: int | None = 0,
    search_progress: ProgressCallback | None = None,
) -> GameAnalysis:
    """Analyse every move of a game: a :class:`Record`, a state with its history, or the
    positions of a game in order (each one move after the one before).

    ``time`` is per position. Spagyric is analysed from the full record (both seats' secrets:
    the game is over, or the caller holds the referee's state). ``progress(number, total)`` is
    called before each move, ``search_progress`` as each position's search runs (as
    :func:`analyse`'s ``progress``). Raises ``ValueError`` (a :class:`RecordError` for a bad
    record).
    """
    states = _positions(record_or_states)
    if not states:
        raise ValueError(_(msg.NO_MOVES).format(kind=type(record_or_states).__name__))
    game = states[0].game
    cache: dict[int, Analysis] = {}

    def at(index: int) -> Analysis:
        if index not in cache:
            cache[index] = _full(states[index], _Budget(time, iterations, seed, search_progress))
        return cache[index]

    rows = []
    for index in range(len(states) - 1):
        if progress is not None:
            progress(index + 1, len(states) - 1)
        before, after = states[index], states[index + 1]
        seat = before.current_player()
        move = after.history[-1]
        rows.append(
            MoveAnalysis(
                index + 1, None if seat == SIMULTANEOUS else seat, before.notation(move), at(index), at(index + 1)
            )
        )
    evaluation = [None if at(i).values is None else at(i).values[0] for i in range(len(states))]  # type: ignore[index]
    return GameAnalysis(game.name, dict(game.options), rows, evaluation)


def _full(state: State[Any], budget: _Budget) -> Analysis:
    """The analysis of a position of a recorded game, hidden information included."""
    from spheria.games.spagyric.rules import SpagyricState

    if not isinstance(state, SpagyricState) or state.is_terminal():
        return analyse(state, budget.time, budget.progress, iterations=budget.iterations, seed=budget.seed)
    from spheria.games.spagyric.solver import position_of

    base = replace(_base(state, 0, SPAGYRIC_SOLVER, EXACT), options=dict(state.game.options))
    return _spagyric(position_of(state), 0, base, lambda: state.view(0), state.game.supply, budget)


def _positions(given: Record | State[Any] | Sequence[State[Any]]) -> list[State[Any]]:
    if isinstance(given, Record):
        state = given.initial_state()
        states = [state.clone()]
        for step in given.steps(state):
            states.append(step.state.clone())
        return states
    if isinstance(given, State):
        from spheria.kernel.record import start_position

        state = start_position(given)
        states = [state.clone()]
        for move in given.history:
            state.apply(move)
            states.append(state.clone())
        return states
    if isinstance(given, Sequence) and all(isinstance(s, State) for s in given):
        states = list(given)
        for number, (before, after) in enumerate(itertools.pairwise(states), 2):
            if len(after.history) != len(before.history) + 1 or after.history[:-1] != before.history:
                raise ValueError(_(msg.NOT_CONSECUTIVE).format(number=number))
        return states
    raise ValueError(_(msg.NO_MOVES).format(kind=type(given).__name__))
