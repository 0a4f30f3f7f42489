"""Spagyric agents: ``spagyric`` (mixed strategies by simultaneous-move search) and ``fixed``.

**What the agent knows.** It is handed only its seat's view (:class:`SpagyricView`): the
pyramid, its own supply by colour, the opponent's number of balls, the stunned balls, the phase
and who places what. That is enough to rebuild everything that decides the rest of the game
(:func:`reconstruct`): each ball in play beat one ball of the colour it beats, both seats
started with ``supply`` balls of each colour, and the stunned balls are set aside from both, so
for every colour ``c`` the two supplies together hold
``2 * (supply - stunned[c]) - in_play[c] - in_play[beaten_by(c)]`` balls, and the opponent's
supply of ``c`` is that less the agent's own. What counting cannot tell — which seat lost which
balls to the bag — decides nothing. The only secret left is the opponent's choice at a reveal,
so the agent faces a simultaneous-move game with perfect information otherwise.

**How it chooses.** The position is first turned into its canonical form seen from the agent's
side (:func:`spheria.games.spagyric.solver.canonical`), so symmetric positions get the same answer,
and the search's random generator is seeded from that form and the agent's seed: the agent's
strategy is a fixed function of what it sees. Then:

* **small endgames** (each seat holding at most ``exact`` balls, stunned ones included): the
  exact solver (:mod:`spheria.games.spagyric.solver`) gives the equilibrium mix at a reveal and a best
  site at a placement;
* **otherwise**: decoupled simultaneous-move Monte Carlo tree search (SM-MCTS). At a reveal node
  each seat keeps its own regrets per colour and samples a colour by regret matching mixed with
  ``gamma`` exploration; the sampled result updates both seats' regrets with importance-weighted
  estimates (the outcome-sampling update of Lanctot, Lisý and Winands, 2013). At a placement
  node the placer picks by UCT. New nodes are valued by a playout: random colours, and
  placements that take a group of four when there is one and avoid groups of three or five+
  when they can. Endgames small enough for the solver are valued exactly instead. At a reveal
  the agent plays the equilibrium of the **matrix** of the root's mean results, one entry per
  pair of colours (``final=matrix``, solved exactly by support enumeration), or the
  **average** regret-matching strategy (``final=average``, colours under 3 % dropped); at a
  placement, the most visited site. The search stops early once every outcome of the root is
  known exactly (with ``final=matrix``).

Placements are sensible before any search: a site that makes a group of exactly four is taken at
once, and a site that makes a group of three or of five or more is never chosen while another
site is safe.

Options (spec ``spagyric:iterations=2000,exact=3,seed=1``):

* ``iterations`` — search iterations per decision; **or** ``time`` — seconds per decision
  (default ``time=1``). Give one, not both.
* ``exact`` — solve exactly once each seat holds at most this many balls (default 3; 0 never).
* ``final`` — ``matrix`` (default) or ``average``: how the strategy is read off the search.
* ``gamma`` — the exploration share at reveals (default 0.1); ``c`` — the UCT constant at
  placements (default 1).
* ``seed`` — with ``iterations`` the same seed gives the same strategy and the same choices.

``agent.policy(view)`` returns the mixed strategy the agent plays in ``view`` (a probability
per legal move); ``choose`` samples it. The strategy is spread evenly over the symmetries of
the position itself, so at the start, where turning the colours changes nothing, each colour
gets a third:

>>> import spheria
>>> state = spheria.load_game("spagyric").new_initial_state()
>>> agent = SpagyricAgent(iterations=200, seed=1)
>>> {str(move): round(p, 3) for move, p in agent.policy(state.view(0)).items()}
{'w': 0.333, 'b': 0.333, 'r': 0.333}
>>> str(agent.choose(state.view(1), 1)) in "wbr"
True
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from spheria.agents.options import CLOCK, SEED, check_max_time, one_budget, thinking_clock, time_option
from spheria.engine.board import COLOR_CHARS, COLORS, Board
from spheria.games.spagyric.rules import (
    BEATEN_BY,
    OVER,
    PLACE,
    REVEAL,
    SUDDEN,
    WINNING_SIZE,
    Choice,
    Place,
    Spagyric,
    SpagyricMove,
    parse_color,
)
from spheria.games.spagyric.solver import (
    TOLERANCE,
    Position,
    SolveLimitError,
    SpagyricSolver,
    canonical,
    choosable,
    group_possible,
    place_result,
    placement_sites,
    placement_size,
    reveal_result,
    solve_matrix_game,
    stabilizer,
    transform_move,
)
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import InvalidMoveError, PlayerView
from spheria.kernel.options import Option

#: The largest table the agent's solver may hold before it is emptied (reveals and placements).
SOLVER_TABLE_LIMIT = 400_000
#: The most reveals one exact endgame solve may add before the agent searches instead.
SOLVE_STATES = 60_000
#: Average-strategy probabilities below this are dropped from the strategy played (``final=average``).
PURIFY = 0.03

_T = TypeVar("_T")


def reconstruct(observation: Mapping[str, Any]) -> Position:
    """Everything that decides the rest of the game, counted from one seat's observation.

    The opponent's supply by colour is not shown, but it follows (see the module docstring)::

        opponent[c] = 2 * (supply - stunned[c]) - in_play[c] - in_play[beaten_by(c)] - own[c]

    where ``in_play`` counts the balls on the pyramid and the one being placed. Raises
    ``ValueError`` if the counts do not fit (the observation is not one of a legal game), so a
    wrong count can never pass silently: the result must also match the opponent's number of
    balls, which the observation does show.
    """
    if observation.get("game") != "spagyric":
        raise ValueError(f"a Spagyric observation is needed, not one of {observation.get('game')!r}")
    seat = int(observation["player"])
    if seat not in (0, 1):
        raise ValueError(f"the observation belongs to no seat (player {observation['player']!r})")
    s = int(observation["supply_per_color"])
    masks = Board.from_spn(observation["board"]).masks
    phase = str(observation["phase"])
    placer = observation["placer"]
    placing = None if observation["placing"] is None else parse_color(observation["placing"])
    stunned = tuple(int(observation["stunned"][COLOR_CHARS[c]]) for c in COLORS)
    own = tuple(int(observation["supply"][COLOR_CHARS[c]]) for c in COLORS)
    if phase == SUDDEN:
        other = own  # the fresh sudden-death balls: both seats hold the colours not yet stunned
    else:
        in_play = [m.bit_count() for m in masks]
        if phase == PLACE and placing is not None:
            in_play[placing] += 1
        other = tuple(2 * (s - stunned[c]) - in_play[c] - in_play[BEATEN_BY[c]] - own[c] for c in COLORS)
        if any(not 0 <= n <= s for n in other) or sum(other) != int(observation["opponent_supply"]):
            raise ValueError(
                f"the observation's counts do not fit a legal game: the opponent's supply would be {other}, "
                f"but they hold {observation['opponent_supply']} balls"
            )
    hands = (own, other) if seat == 0 else (other, own)
    returns = observation.get("returns") or [0.0, 0.0]
    winner = None
    if phase == OVER and returns[0] != returns[1]:
        winner = 0 if returns[0] > returns[1] else 1
    return Position(
        (masks[0], masks[1], masks[2]),
        (_three(hands[0]), _three(hands[1])),
        _three(stunned),
        phase,
        None if placer is None else int(placer),
        placing,
        winner,
    )


def _three(values: tuple[int, ...]) -> tuple[int, int, int]:
    return (values[0], values[1], values[2])


def held(position: Position) -> int:
    """The balls each seat holds: in hand and stunned (both seats always hold the same number)."""
    return sum(position.hands[0]) + sum(position.stunned)


def sorted_sites(position: Position) -> tuple[list[int], list[int], list[int]]:
    """The placer's sites split into those that win (a group of exactly four), the safe ones
    (a group of one or two) and those that lose (three, or five or more)."""
    assert position.placing is not None
    wins: list[int] = []
    safe: list[int] = []
    loses: list[int] = []
    for site in placement_sites(position):
        size = placement_size(position.masks, position.placing, site)
        (wins if size == WINNING_SIZE else safe if size < 3 else loses).append(site)
    return wins, safe, loses


# -- the search tree ---------------------------------------------------------------------------------


class _Node:
    """A position in the search tree, valued for seat 0 (the agent, in the canonical form).

    ``fixed`` is set for a position whose value is known (over, no group possible, a forced
    placement, or solved exactly): the search stops there.
    """

    __slots__ = ("avg", "children", "colors", "fixed", "position", "regrets", "sites", "total", "visits")

    def __init__(self, position: Position) -> None:
        self.position = position
        self.visits = 0
        self.total = 0.0
        self.fixed: float | None = None
        self.children: dict[Any, _Node] = {}
        self.colors: tuple[list[int], list[int]] = ([], [])
        self.regrets: tuple[list[float], list[float]] = ([], [])
        self.avg: tuple[list[float], list[float]] = ([], [])
        self.sites: list[int] = []


def _matching(regrets: list[float]) -> list[float]:
    """Regret matching: play each action in proportion to its positive regret (uniform if none)."""
    positive = [r if r > 0 else 0.0 for r in regrets]
    total = sum(positive)
    if total <= 0:
        return [1.0 / len(regrets)] * len(regrets)
    return [r / total for r in positive]


def _sample(weights: list[float], u: float) -> int:
    for i, w in enumerate(weights):
        u -= w
        if u < 0:
            return i
    return len(weights) - 1


FINALS = ("matrix", "average")
#: The most search iterations a decision may be given.
MAX_ITERATIONS = 1_000_000


class SpagyricAgent(Agent):
    """Mixed strategies at reveals by decoupled SM-MCTS with regret matching; exact in small endgames."""

    spec_name = "spagyric"
    option_specs = (
        Option("iterations", None, "search iterations per decision", kind=int, minimum=1, maximum=MAX_ITERATIONS),
        time_option(None, "seconds per decision (default 1 unless iterations is given)"),
        Option(
            "exact", 3, "solve exactly once each seat holds at most this many balls", kind=int, minimum=0, maximum=10
        ),
        Option("final", "matrix", "how the strategy is read off the search", FINALS),
        Option("gamma", 0.1, "the exploration share at reveals", kind=float, minimum=0.001, maximum=1),
        Option("c", 1.0, "the UCT constant at placements", kind=float, minimum=0, maximum=10),
        CLOCK,
        SEED,
    )
    plays = Plays(games=(Spagyric,), seats=(2,))

    def __init__(
        self,
        iterations: int | None = None,
        time: float | None = None,
        exact: int | None = None,
        final: str | None = None,
        gamma: float | None = None,
        c: float | None = None,
        seed: int | None = None,
        clock: str | None = None,
        max_time: float | None = None,
    ) -> None:
        self.time_cap = check_max_time(max_time)
        values = self.checked_options(
            self.time_cap,
            iterations=iterations,
            time=time,
            exact=exact,
            final=final,
            gamma=gamma,
            c=c,
            seed=seed,
            clock=clock,
        )
        one_budget(self.spec_name, values, self.time_cap)
        self.iterations: int | None = values["iterations"]
        self.time: float | None = values["time"]
        self.exact: int = values["exact"]
        self.final: str = values["final"]
        self.gamma: float = values["gamma"]
        self.c: float = values["c"]
        self.seed: int | None = values["seed"]
        self.clock: str = values["clock"]
        self.name = self.spec_from(values)
        self.rng = random.Random(self.seed)
        self.solver = SpagyricSolver()
        #: What the last decision did: search iterations run, and whether the solver decided.
        self.last_iterations = 0
        self.last_exact = False

    # -- the public calls ---------------------------------------------------------------------

    def choose(self, view: PlayerView, player: int) -> SpagyricMove:
        policy = self.policy(view, player)
        moves = list(policy)
        return moves[_sample(list(policy.values()), self.rng.random())]

    def policy(self, view: PlayerView, player: int | None = None) -> dict[SpagyricMove, float]:
        """The mixed strategy the agent plays in ``view``: a probability per legal move it may
        play (at a placement, usually one site). A fixed function of the position and the seed."""
        if player is None:
            player = int(getattr(view, "player"))  # noqa: B009  (a SpagyricView names its seat)
        position = reconstruct(view.observation(player))
        if player not in _deciding(position):
            raise ValueError(f"seat {player} has no decision to make here (phase {position.phase})")
        image, symmetry = canonical(position, seat=player)
        rng = random.Random(f"{self.seed}|{image}")
        dist = self._canonical_policy(image, rng)
        # Spread the strategy over the position's own symmetries (the start has 24): symmetric
        # moves get the same probability, and the spread strategy secures no less.
        keep = stabilizer(image)
        result: dict[SpagyricMove, float] = {}
        for move, p in dist.items():
            for same in keep:
                original = transform_move(transform_move(move, same), symmetry, inverse=True)
                result[original] = result.get(original, 0.0) + p / len(keep)
        legal = view.legal_moves(player)
        if any(move not in legal for move in result):  # a broken symmetry would show here
            raise AssertionError(f"the agent's strategy {result} holds moves outside {legal}")
        return {move: result[move] for move in legal if move in result}  # in the order of the legal moves

    def reset(self) -> None:
        self.solver.clear()

    def max_seconds_per_move(self) -> float:
        """``time``; with ``iterations``, the caller's ``max_time`` (the search stops there too)."""
        return self.within_limit(self.time if self.time is not None else self.time_cap)

    # -- deciding in the canonical position (the agent is seat 0) -----------------------------------

    def _canonical_policy(self, position: Position, rng: random.Random) -> dict[SpagyricMove, float]:
        self.last_iterations, self.last_exact = 0, False
        if position.phase == PLACE:
            wins, safe, loses = sorted_sites(position)
            if wins or len(safe) <= 1:
                return {Place(rng.choice(wins or safe or loses)): 1.0}
        solved = self._solve(position, rng)
        if solved is not None:
            self.last_exact = True
            return solved
        root = self._node(position)
        if root.fixed is not None:  # no group can form any more: every choice draws
            if position.phase == PLACE:
                return {Place(rng.choice(root.sites or placement_sites(position))): 1.0}
            colors = choosable(position, 0)
            return {Choice(c): 1.0 / len(colors) for c in colors}
        self._search(root, rng)
        if position.phase == PLACE:
            site, _ = max(root.children.items(), key=lambda item: (item[1].visits, -item[0]))
            return {Place(site): 1.0}
        strategy = self._matrix_strategy(root) if self.final == "matrix" else self._average_strategy(root)
        return {Choice(c): p for c, p in zip(root.colors[0], strategy, strict=True) if p > 0}

    @staticmethod
    def _matrix_strategy(root: _Node) -> tuple[float, ...]:
        """The equilibrium of the matrix of mean results of the root's joint choices."""
        neutral = root.total / root.visits if root.visits else 0.0  # for a pair never tried
        matrix = []
        for i in range(len(root.colors[0])):
            row = []
            for j in range(len(root.colors[1])):
                child = root.children.get((i, j))
                row.append(child.total / child.visits if child is not None and child.visits else neutral)
            matrix.append(row)
        return solve_matrix_game(matrix).row

    @staticmethod
    def _average_strategy(root: _Node) -> tuple[float, ...]:
        """The average regret-matching strategy, rare colours dropped."""
        average = root.avg[0]
        total = sum(average)
        probabilities = [p / total for p in average] if total > 0 else [1.0 / len(average)] * len(average)
        kept = [p if p >= PURIFY else 0.0 for p in probabilities]
        total = sum(kept)
        return tuple(p / total for p in kept)

    def _solve(self, position: Position, rng: random.Random) -> dict[SpagyricMove, float] | None:
        """The exact solver's strategy if the position is small enough, else ``None``.

        At a placement: a best site among the safe ones (a site that loses at once is worth -1,
        so no safe site is worth less), so the agent never hands over a game it could prolong.
        """
        if position.phase != SUDDEN and held(position) > self.exact:
            return None
        try:
            if position.phase != PLACE:
                return self._bounded(lambda: self.solver.policy(position, 0))
            values = self._bounded(lambda: self.solver.placement_values(position))
        except SolveLimitError:
            return None
        _, safe, _ = sorted_sites(position)
        best = max(values[site] for site in safe)  # the agent (seat 0) places: high is good
        return {Place(rng.choice([site for site in safe if values[site] >= best - TOLERANCE])): 1.0}

    def _bounded(self, solve: Callable[[], _T]) -> _T:
        """Run ``solve`` with the solver's table allowed to grow by :data:`SOLVE_STATES` reveals."""
        if self.solver.states > SOLVER_TABLE_LIMIT:
            self.solver.clear()
        self.solver.max_states = self.solver.reveals + SOLVE_STATES
        try:
            return solve()
        finally:
            self.solver.max_states = None

    def _node(self, position: Position) -> _Node:
        node = _Node(position)
        phase = position.phase
        if phase == OVER:
            node.fixed = position.value()
        elif phase == SUDDEN or not group_possible(position):
            node.fixed = 0.0
        elif phase == PLACE:
            wins, safe, _ = sorted_sites(position)
            sign = 1.0 if position.placer == 0 else -1.0
            if wins:
                node.fixed = sign
            elif not safe:
                node.fixed = -sign
            else:
                node.sites = safe
        else:
            node.colors = (choosable(position, 0), choosable(position, 1))
            node.regrets = ([0.0] * len(node.colors[0]), [0.0] * len(node.colors[1]))
            node.avg = ([0.0] * len(node.colors[0]), [0.0] * len(node.colors[1]))
        if node.fixed is None and held(position) <= self.exact:
            with contextlib.suppress(SolveLimitError):  # too big to solve now: search it
                node.fixed = self._bounded(lambda: self.solver.value(position))
        return node

    def _search(self, root: _Node, rng: random.Random) -> None:
        clock = thinking_clock(self.clock)
        deadline = clock() + self.max_seconds_per_move()
        done = 0
        while True:
            if (self.iterations is not None and done >= self.iterations) or clock() >= deadline:
                break
            if self.final == "matrix" and done % 64 == 63 and _settled(root):
                break  # more iterations cannot change what the root knows
            self._visit(root, rng)
            done += 1
        self.last_iterations = done

    def _visit(self, node: _Node, rng: random.Random) -> float:
        """One iteration below ``node``: its result for seat 0."""
        node.visits += 1
        if node.fixed is not None:
            value = node.fixed
        elif node.visits == 1:  # a new leaf: valued by a playout
            value = self._playout(node.position, rng)
        elif node.position.phase == PLACE:
            value = self._visit_place(node, rng)
        else:
            value = self._visit_reveal(node, rng)
        node.total += value
        return value

    def _visit_reveal(self, node: _Node, rng: random.Random) -> float:
        """Each seat samples a colour by regret matching (with ``gamma`` exploration); both seats'
        regrets are updated from the one sampled result, weighted by how likely the pick was."""
        gamma = self.gamma
        picks = []
        for seat in (0, 1):
            current = _matching(node.regrets[seat])
            n = len(current)
            sampling = [(1 - gamma) * p + gamma / n for p in current]
            pick = _sample(sampling, rng.random())
            picks.append((pick, sampling[pick], current))
        key = (picks[0][0], picks[1][0])
        child = node.children.get(key)
        if child is None:
            child = self._node(reveal_result(node.position, node.colors[0][key[0]], node.colors[1][key[1]]))
            node.children[key] = child
        value = self._visit(child, rng)
        for seat, reward in ((0, value), (1, -value)):
            pick, likelihood, current = picks[seat]
            regrets, average = node.regrets[seat], node.avg[seat]
            for a in range(len(regrets)):
                regrets[a] += (reward / likelihood if a == pick else 0.0) - reward
                average[a] += current[a]
        return value

    def _visit_place(self, node: _Node, rng: random.Random) -> float:
        """UCT over the safe sites, from the placer's side."""
        position = node.position
        untried = [site for site in node.sites if site not in node.children]
        if untried:
            site = rng.choice(untried)
            child = self._node(place_result(position, site))
            node.children[site] = child
        else:
            sign = 1.0 if position.placer == 0 else -1.0
            explore = 2.0 * self.c * math.sqrt(math.log(node.visits))  # results span [-1, 1]
            best_score = -math.inf
            child = node
            for candidate in node.children.values():
                score = sign * candidate.total / candidate.visits + explore / math.sqrt(candidate.visits)
                if score > best_score:
                    best_score, child = score, candidate
        return self._visit(child, rng)

    @staticmethod
    def _playout(position: Position, rng: random.Random) -> float:
        """Random colours; placements take a four when they can and avoid threes and fives+."""
        while True:
            phase = position.phase
            if phase == OVER:
                return position.value()
            if phase == SUDDEN:
                return 0.0
            if phase == REVEAL:
                if not group_possible(position):
                    return 0.0
                first, second = choosable(position, 0), choosable(position, 1)
                position = reveal_result(position, rng.choice(first), rng.choice(second))
                continue
            wins, safe, _ = sorted_sites(position)
            if wins:
                return 1.0 if position.placer == 0 else -1.0
            if not safe:
                return -1.0 if position.placer == 0 else 1.0
            position = place_result(position, rng.choice(safe))


def _settled(root: _Node) -> bool:
    """Whether every outcome of the root has been tried and is known exactly."""
    expected = len(root.sites) if root.position.phase == PLACE else len(root.colors[0]) * len(root.colors[1])
    return len(root.children) == expected and all(child.fixed is not None for child in root.children.values())


def _deciding(position: Position) -> list[int]:
    """The seats with a decision: both at a reveal, the placer at a placement."""
    if position.phase in (REVEAL, SUDDEN):
        return [0, 1]
    if position.phase == PLACE and position.placer is not None:
        return [position.placer]
    return []


class FixedColorAgent(Agent):
    """Always reveals ``color`` while it holds one (else a random colour it holds); places at random.

    A deliberately simple opponent for the ``spagyric`` agent (spec ``fixed:color=w``).

    >>> import spheria
    >>> state = spheria.load_game("spagyric").new_initial_state()
    >>> str(FixedColorAgent(color="red", seed=1).choose(state.view(1), 1))
    'r'
    """

    spec_name = "fixed"
    option_specs = (Option("color", "w", "the colour it always reveals", ("w", "b", "r")), SEED)
    named_options = ("color",)
    plays = Plays(games=(Spagyric,), seats=(2,))

    def __init__(self, color: str | None = None, seed: int | None = None) -> None:
        if color is not None:
            with contextlib.suppress(InvalidMoveError):
                color = COLOR_CHARS[parse_color(str(color))]  # white, black and red are read too
        values = self.checked_options(color=color, seed=seed)
        self.color = parse_color(values["color"])
        self.seed: int | None = values["seed"]
        self.name = self.spec_from(values)
        self.rng = random.Random(self.seed)

    def policy(self, view: PlayerView, player: int | None = None) -> dict[SpagyricMove, float]:
        """``color`` with probability 1 when it can be chosen; otherwise every legal move alike."""
        if player is None:
            player = int(getattr(view, "player"))  # noqa: B009
        moves = view.legal_moves(player)
        if not moves:
            raise ValueError(f"seat {player} has no legal move here")
        if Choice(self.color) in moves:
            return {Choice(self.color): 1.0}
        return {move: 1.0 / len(moves) for move in moves}

    def choose(self, view: PlayerView, player: int) -> SpagyricMove:
        moves = view.legal_moves(player)
        if not moves:
            raise ValueError(f"seat {player} has no legal move here")
        choice = Choice(self.color)
        if choice in moves:
            return choice
        move: SpagyricMove = self.rng.choice(moves)
        return move
