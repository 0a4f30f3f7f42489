"""The set-up planner: builds a Special Cake (mint, poisoned) for the eating phase.

Mint eats first. Liquorice wants the set-up to end in a cake the first eater loses; Mint
wants one the first eater wins (most random cakes are: see docs/agents.md). The planner plays
either seat:

* **Near the end** — ``exact`` placements left or fewer — it searches every way the set-up
  can finish. Each distinct complete cake is solved exactly by :mod:`spheria.games.special_cake.solver`. Sibling
  cakes (the same cake but for the last few candies) share most of their eating positions and
  the solver's table persists between calls, so after the first one they cost a tenth of a
  second or so. A position is scored by two numbers, compared in order:

  1. the **guaranteed** score: plain minimax, the planner taking its best move and the opponent
     the worst one for it (1 if the planner can force a cake it wants, else 0);
  2. the **expected** score if the opponent places at random from there on (the planner still
     choosing its best), which tells moves apart when minimax cannot — when no finish can be
     forced, it steers towards the finishes an opponent who may go wrong would leave.

  Cakes are solved one below each legal move in turn until the move's budget runs out
  (``time`` seconds, and at most ``solves`` cakes if that option is given); a cake not solved
  yet counts as wanted with the base rate (:data:`BASE_LOSS_RATE`: how often random set-up
  play builds a first-eater loss). What the solver proved stays in its table and what the
  planner solved in :attr:`PlannerAgent.solved`, so the next move goes on where this one
  stopped.
* **Earlier**, with ``early=random`` (the default), it places at random — see docs/agents.md
  for why: first-eater losses are rare among random cakes (about 6 % in mint, 9 % in
  poisoned), and even 10,000 exactly labelled mint cakes teach a simple evaluation almost
  nothing. On its moves in the three placements before the exact search it also solves one
  random finish, so that the solver's table is warm when the search starts.
  With ``early=sampled`` it spends each early move's budget on the solver instead: it draws a
  random finish below each legal move in turn (a random order), solves it, and places where
  the finishes it solved were most often cakes it wants (a Beta prior at the base rate; ties
  at random). What it solved stays in :attr:`PlannerAgent.solved` and the solver's table, so
  the exact search starts warm.

In the eating phase it hands the position to another agent (option ``eat``, default
``solver``: perfect eating).

With a budget that lets the exact search finish, the same ``seed`` gives the same moves; when
``time`` binds, moves depend on the machine's speed.

>>> import spheria
>>> game = spheria.load_game("special-cake", variant="mint")
>>> state = game.new_initial_state()
>>> PlannerAgent(seed=1).choose(state, 0) in state.legal_moves()
True
"""

from __future__ import annotations

import contextlib
import itertools
import random
import time as _time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from spheria.agents.heuristics import require_state
from spheria.agents.options import CLOCK, SEED, check_max_time, thinking_clock, time_option
from spheria.agents.registry import make_agent
from spheria.engine.board import TOP, iter_sites, placeable
from spheria.games.special_cake.rules import MINT, PLACE, POISONED, CakeMove, CakeState, Masks, SpecialCake
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import PlayerView
from spheria.kernel.options import Option

#: Agents the planner may hand the eating phase to.
EAT_AGENTS = ("solver", "greedy", "mcts", "alphabeta", "random")
#: How the placements before the exact search are chosen.
EARLY_RANDOM, EARLY_SAMPLED = "random", "sampled"
#: Weight of the base rate's prior, in sampled finishes, when ``early=sampled`` compares moves.
PRIOR_WEIGHT = 2.0

#: Placements left at which the exact search starts, by variant (poisoned cakes cost more to solve).
DEFAULT_EXACT = {MINT: 9, POISONED: 6}
#: The most placements left that the ``exact`` option may ask the exact search to start at.
MAX_EXACT = 12
#: The most cakes the ``solves`` option may allow per set-up move.
MAX_SOLVES = 100_000

#: How often uniformly random set-up play builds a cake the first eater loses, measured with
#: ``benchmarks/label_cakes.py`` (see docs/agents.md); the chance given to a cake not solved yet.
BASE_LOSS_RATE = {MINT: 0.03, POISONED: 0.1}


def set_up_children(masks: Masks, mover: int) -> Iterator[Masks]:
    """The masks after each placement of ``mover``'s colour, in site order (set-up only)."""
    white, black, red = masks
    for site in iter_sites(placeable(white | black | red)):
        bit = 1 << site
        yield (white | bit, black, red) if mover == 0 else (white, black | bit, red)


def finished(masks: Masks, variant: str) -> Masks:
    """The cake once the last placement is made: the cherry goes on top in poisoned."""
    return (masks[0], masks[1], 1 << TOP) if variant == POISONED else masks


def placed(masks: Masks) -> int:
    """Candies placed by the players (the cherry not counted)."""
    return (masks[0] | masks[1]).bit_count()


def complete_cakes(masks: Masks, mover: int, placements: int, variant: str) -> list[Masks]:
    """Every distinct complete cake the set-up can end in from ``masks``, ``mover`` to place next."""
    seen: set[Masks] = set()
    found: dict[Masks, None] = {}

    def walk(position: Masks, to_move: int) -> None:
        if position in seen:
            return
        seen.add(position)
        if placed(position) == placements:
            found.setdefault(finished(position, variant), None)
            return
        for child in set_up_children(position, to_move):
            walk(child, 1 - to_move)

    walk(masks, mover)
    return list(found)


def random_finish(masks: Masks, mover: int, placements: int, variant: str, rng: random.Random) -> Masks:
    """The complete cake that uniformly random placements from ``masks`` (``mover`` next) build."""
    while placed(masks) < placements:
        children = list(set_up_children(masks, mover))
        masks = children[int(rng.random() * len(children))]
        mover = 1 - mover
    return finished(masks, variant)


@dataclass
class _Budget:
    """What one set-up move may still spend: time on ``clock``, and cakes to solve if limited."""

    deadline: float
    solves_left: int | None
    clock: Callable[[], float] = _time.perf_counter

    def remaining(self) -> float:
        """Seconds left for the next solve; 0 when the time or the solves are spent."""
        if self.solves_left is not None and self.solves_left <= 0:
            return 0.0
        return max(self.deadline - self.clock(), 0.0)


@dataclass(frozen=True)
class Score:
    """What a set-up position is worth to the planner: forced first, then against random play."""

    guaranteed: float
    expected: float

    def key(self) -> tuple[float, float]:
        return (round(self.guaranteed, 9), round(self.expected, 9))


class PlannerAgent(Agent):
    """Plans the Special Cake set-up so the eating phase starts in a cake its seat wants.

    Options: ``time`` (seconds per set-up move, 0.01 to the caller's ``max_time``, default 3),
    ``exact`` (placements left at which the exact search starts, 1 to 12; default 9 in mint, 6
    in poisoned), ``solves`` (at most this many cakes solved per set-up move, 1 to 100,000;
    default no limit but ``time``: a budget that does not depend on the machine's load),
    ``eat`` (the agent for the eating phase, default ``solver``), ``early`` (``random`` or
    ``sampled``: the placements before the exact search), ``clock`` (``wall`` or ``cpu``: what
    ``time`` counts), ``seed``.
    """

    spec_name = "planner"
    option_specs = (
        SEED,
        time_option(3.0, "seconds per set-up move"),
        Option("exact", None, "placements left when the exact search starts", kind=int, minimum=1, maximum=MAX_EXACT),
        Option(
            "solves",
            None,
            "at most this many cakes solved (early=sampled: finishes drawn) per set-up move",
            kind=int,
            minimum=1,
            maximum=MAX_SOLVES,
        ),
        Option("eat", "solver", "the agent for the eating phase", EAT_AGENTS),
        Option(
            "early",
            EARLY_RANDOM,
            "the placements before the exact search: random, or solved random finishes",
            (EARLY_RANDOM, EARLY_SAMPLED),
        ),
        CLOCK,
    )
    plays = Plays(games=(SpecialCake,), options={"variant": tuple(DEFAULT_EXACT)}, seats=(2,))

    def __init__(
        self,
        seed: int | None = None,
        time: float | None = None,
        exact: int | None = None,
        solves: int | None = None,
        eat: str | None = None,
        early: str | None = None,
        clock: str | None = None,
        max_time: float | None = None,
    ) -> None:
        self.time_cap = check_max_time(max_time)
        values = self.checked_options(
            self.time_cap, seed=seed, time=time, exact=exact, solves=solves, eat=eat, early=early, clock=clock
        )
        self.seed: int | None = values["seed"]
        self.time: float = values["time"]
        self.exact: int | None = values["exact"]
        self.solves: int | None = values["solves"]
        self.eat: str = values["eat"]
        self.early: str = values["early"]
        #: What ``time`` counts: wall seconds, or this thread's CPU seconds (``clock=cpu``; the
        #: solver then runs in this thread, and a solve's own limit stays in wall seconds, so it
        #: stops no later than the budget and the move tries the next cake).
        self.clock = thinking_clock(values["clock"])
        self.rng = random.Random(self.seed)
        self._eater: Agent | None = None
        #: The solved value (+1 the first eater wins, -1 loses) of every complete cake solved so far.
        self.solved: dict[Masks, int] = {}
        #: How the last set-up move was chosen: method, cakes below the position, unsolved, score.
        self.last_report: dict[str, Any] = {}
        self._searched = 0  # positions the solver searched for the move being chosen (for ``watch``)
        self.name = self.spec_from(values)

    def max_seconds_per_move(self) -> float:
        """``time`` in the set-up; in the eating phase, the eating agent's budget."""
        return max(self.within_limit(self.time), self._eating_agent().max_seconds_per_move())

    def limit_time(self, seconds: float | None) -> None:
        super().limit_time(seconds)
        if self._eater is not None:
            self._eater.limit_time(seconds)

    def reset(self) -> None:
        self.solved.clear()
        self.last_report = {}
        if self._eater is not None:
            self._eater.reset()

    @staticmethod
    def wanted(value: int, player: int) -> bool:
        """Whether a cake of solved ``value`` (+1: the first eater, Mint, wins) is what ``player`` wants."""
        return (value > 0) == (player == 0)

    # -- the public call -----------------------------------------------------------------

    def choose(self, view: PlayerView, player: int) -> Any:
        state = require_state(view, player, "planner")
        if not isinstance(state, CakeState) or state.game.variant not in DEFAULT_EXACT:
            raise ValueError("the planner plays the set-up of Special Cake's mint and poisoned variants")
        if state.phase != PLACE:
            return self._eating_agent().choose(state, player)
        budget = _Budget(self.clock() + self.within_limit(self.time), self.solves, self.clock)
        self._searched = 0  # positions the solver searched for this move, for ``watch``
        moves = state.legal_moves()
        left = state.game.placements - placed(state.masks())
        exact = DEFAULT_EXACT[state.game.variant] if self.exact is None else self.exact
        if len(moves) == 1:
            self.last_report = {"method": "forced"}
            return moves[0]
        if left > exact and self.early == EARLY_SAMPLED:
            return self._sampled_move(state, player, budget)
        if left > exact:
            move = self.rng.choice(moves)
            self.last_report = {"method": "random"}
            if left - 1 <= exact + 2:
                self._warm_up(state, move, budget)
            return move
        return self._exact_move(state, player, budget)

    def _value(self, cake: Masks, variant: str, line_rule: str, time_limit: float) -> int:
        """The solver's value of ``cake``; while ``watch``ed, the positions searched go to its callback
        as a running count over the whole move (one set-up move may solve many cakes)."""
        from spheria.games.special_cake.solver import position_value

        watching = self.progress
        if watching is None:
            return position_value(cake, variant, line_rule, time_limit=time_limit)
        base, searched = self._searched, [0]

        def report(positions: int) -> None:
            searched[0] = positions
            watching(base + positions)

        try:
            return position_value(cake, variant, line_rule, time_limit=time_limit, progress=report)
        finally:
            self._searched = base + searched[0]

    def _warm_up(self, state: CakeState, move: CakeMove, budget: _Budget) -> None:
        """Solve one random finish of the set-up after ``move``, within the move's budget.

        Just before the exact search starts, the cakes it will meet share their base with this
        one, so the solver's table is warm when it matters: the first cake from an empty table
        is by far the dearest (seconds, against tenths of a second for its siblings).
        """

        remaining = budget.remaining()
        if remaining <= 0:
            return
        variant, placements = state.game.variant, state.game.placements
        masks = next(
            child
            for child, m in zip(set_up_children(state.masks(), state.player), state.legal_moves(), strict=True)
            if m == move
        )
        rng = random.Random(f"{self.seed}-{masks}")  # apart from self.rng: the budget must not change later moves
        cake = random_finish(masks, 1 - state.player, placements, variant, rng)
        with contextlib.suppress(TimeoutError):  # what was proved stays in the solver's table
            self.solved[cake] = self._value(cake, variant, state.game.line_rule, remaining)
        self.last_report["warmed"] = cake in self.solved

    def _sampled_move(self, state: CakeState, player: int, budget: _Budget) -> CakeMove:
        """The move whose solved random finishes were most often wanted (``early=sampled``)."""

        variant, line_rule, placements = state.game.variant, state.game.line_rule, state.game.placements
        moves = state.legal_moves()
        children = list(set_up_children(state.masks(), state.player))
        rng = random.Random(f"{self.seed}-{state.masks()}")  # apart from self.rng, as in _warm_up
        order = list(range(len(moves)))
        rng.shuffle(order)
        wanted, samples = [0] * len(moves), [0] * len(moves)
        for turn in range(MAX_SOLVES):  # a bound, should every finish drawn be one solved before
            remaining = budget.remaining()
            if remaining <= 0:
                break
            i = order[turn % len(order)]
            cake = random_finish(children[i], 1 - state.player, placements, variant, rng)
            if budget.solves_left is not None:
                budget.solves_left -= 1  # every finish drawn counts, solved before or not
            if cake not in self.solved:
                try:
                    self.solved[cake] = self._value(cake, variant, line_rule, remaining)
                except TimeoutError:
                    break  # what was proved stays in the solver's table
            samples[i] += 1
            wanted[i] += self.wanted(self.solved[cake], player)
        lost = BASE_LOSS_RATE[variant]
        prior = lost if player == 1 else 1.0 - lost
        rates = [(w + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT) for w, n in zip(wanted, samples, strict=True)]
        best_rate = max(rates)
        best = [move for move, rate in zip(moves, rates, strict=True) if rate == best_rate]
        self.last_report = {"method": "sampled", "finishes": sum(samples), "wanted": sum(wanted), "rate": best_rate}
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _eating_agent(self) -> Agent:
        if self._eater is None:
            spec = self.eat if self.seed is None else f"{self.eat}:seed={self.seed}"
            self._eater = make_agent(spec, max_time=self.time_cap)
            self._eater.limit_time(self.time_limit)
        return self._eater

    # -- near the end: every finish, solved ----------------------------------------------

    def _exact_move(self, state: CakeState, player: int, budget: _Budget) -> CakeMove:

        variant, line_rule, placements = state.game.variant, state.game.line_rule, state.game.placements
        children = list(set_up_children(state.masks(), state.player))
        # One cake below each move in turn, so that when the budget runs out every move has
        # about as many of its cakes solved as the others.
        groups = [complete_cakes(child, 1 - state.player, placements, variant) for child in children]
        order = list(dict.fromkeys(cake for row in itertools.zip_longest(*groups) for cake in row if cake))
        unsolved = 0
        for cake in order:
            if cake in self.solved:
                continue
            remaining = budget.remaining()
            if remaining <= 0:
                unsolved += 1
                continue
            budget.solves_left = None if budget.solves_left is None else budget.solves_left - 1
            try:
                self.solved[cake] = self._value(cake, variant, line_rule, remaining)
            except TimeoutError:
                unsolved += 1
        memo: dict[Masks, Score] = {}
        keys = [self._score(child, 1 - state.player, player, state, memo).key() for child in children]
        best_key = max(keys)
        best = [move for move, key in zip(state.legal_moves(), keys, strict=True) if key == best_key]
        self.last_report = {
            "method": "exact",
            "cakes": len(order),
            "unsolved": unsolved,
            "guaranteed": best_key[0],
            "expected": best_key[1],
        }
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _score(self, masks: Masks, mover: int, player: int, state: CakeState, memo: dict[Masks, Score]) -> Score:
        """The score for ``player`` of the set-up ``masks``, ``mover`` to place next."""
        score = memo.get(masks)
        if score is not None:
            return score
        variant = state.game.variant
        if placed(masks) == state.game.placements:
            value = self.solved.get(finished(masks, variant))
            if value is None:
                lost = BASE_LOSS_RATE[variant]
                chance = lost if player == 1 else 1.0 - lost
            else:
                chance = 1.0 if self.wanted(value, player) else 0.0
            score = Score(chance, chance)
        else:
            scores = [self._score(child, 1 - mover, player, state, memo) for child in set_up_children(masks, mover)]
            if mover == player:
                score = max(scores, key=Score.key)
            else:
                score = Score(min(s.guaranteed for s in scores), sum(s.expected for s in scores) / len(scores))
        memo[masks] = score
        return score
