"""Monte Carlo tree search (UCT) with random rollouts, for any number of players.

Each iteration walks down the tree by UCT, adds one node, plays random moves to the end (or
the game's own cheap playout, see ``rollout``) and backs up ``state.returns()`` — one reward
per seat — through the nodes it passed. At a node where seat ``p`` is to move the child
maximising ``mean_p + c * sqrt(ln N / n)`` is followed, with rewards scaled from ``[-1, 1]``
to ``[0, 1]``, so each seat looks after its own reward: two-player, three-player and team
games all work.

Options (spec ``mcts:iterations=2000,c=1.4,seed=3``):

* ``iterations`` — iterations per move (1 to 1,000,000); or ``time`` — seconds per move (0.01
  to the caller's ``max_time``, default ``time=1``). Give one of them, not both. A search by
  iterations also stops at ``max_time`` (default 600 s), so no move takes longer.
* ``c`` — the exploration constant (0 to 10, default 1.4).
* ``reuse`` — keep the matching subtree between moves (default 1; 0 to search afresh).
* ``rollout`` — ``game`` (default) rolls out with the game's own fast playout where its kit's
  knowledge has one (say, cheap random turns on the game's bare masks), else uniformly random
  legal moves; ``random`` always uses the latter;
  ``guided`` the game's guided playout, whose players pursue their own score, where there is
  one, else ``game``.
* ``seed`` — the random generator's seed: with ``iterations`` the same seed gives the same game.

The tree of the previous search is kept: asked again in a position that descends from its
last root (the same game, a few moves on), the agent moves down to the matching node and
carries its visits over. Perfect-information games only: the agent plays on copies of the
state it is given, and refuses hidden-information views and simultaneous moves.

>>> import spheria
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> MCTSAgent(iterations=300, seed=1).choose(state, 0) in state.legal_moves()
True
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from spheria.agents.heuristics import require_state
from spheria.agents.options import CLOCK, SEED, check_max_time, one_budget, thinking_clock, time_option
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import SIMULTANEOUS, PlayerView, State
from spheria.kernel.kit import Knowledge, Playout
from spheria.kernel.options import Option

#: The values of the ``rollout`` option.
ROLLOUTS = ("game", "random", "guided")
#: The most iterations a move may be given.
MAX_ITERATIONS = 1_000_000


class _Node:
    """A position in the tree: reached by ``move``; ``player`` chooses among ``children``.

    ``untried`` is ``None`` until the search first passes through the node: a leaf that is
    only rolled out from never pays for listing its moves.
    """

    __slots__ = ("children", "move", "parent", "player", "totals", "untried", "visits")

    def __init__(self, move: Any, parent: _Node | None, player: int, untried: list[Any] | None, players: int) -> None:
        self.move = move
        self.parent = parent
        self.player = player
        self.untried = untried
        self.children: list[_Node] = []
        self.visits = 0
        self.totals = [0.0] * players


@dataclass(frozen=True)
class SearchStats:
    """What the last ``choose`` did."""

    iterations: int
    reused_visits: int
    root_visits: int
    seconds: float

    @property
    def iterations_per_s(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


class MCTSAgent(Agent):
    """UCT with random rollouts, a reward per seat, and tree reuse between moves."""

    spec_name = "mcts"
    option_specs = (
        Option("iterations", None, "iterations per move", kind=int, minimum=1, maximum=MAX_ITERATIONS),
        time_option(None, "seconds per move (default 1 unless iterations is given)"),
        Option("c", 1.4, "the exploration constant", kind=float, minimum=0, maximum=10),
        Option("reuse", True, "keep the matching subtree between moves", kind=bool),
        Option("widen", False, "value an untried move as one visit at the node's mean", kind=bool),
        Option("rollout", "game", "game: the game's own playout; random: random moves; guided: goal-seeking", ROLLOUTS),
        CLOCK,
        SEED,
    )
    named_options = ("c",)
    plays = Plays(hidden_information=False)

    def __init__(
        self,
        iterations: int | None = None,
        time: float | None = None,
        c: float | None = None,
        seed: int | None = None,
        reuse: bool | int | None = None,
        rollout: str | None = None,
        widen: bool | int | None = None,
        clock: str | None = None,
        max_time: float | None = None,
    ) -> None:
        self.time_cap = check_max_time(max_time)
        values = self.checked_options(
            self.time_cap,
            iterations=iterations,
            time=time,
            c=c,
            seed=seed,
            reuse=reuse,
            rollout=rollout,
            widen=widen,
            clock=clock,
        )
        one_budget(self.spec_name, values, self.time_cap)
        self.iterations: int | None = values["iterations"]
        self.time: float | None = values["time"]
        self.c: float = values["c"]
        self.seed: int | None = values["seed"]
        self.reuse: bool = values["reuse"]
        self.rollout: str = values["rollout"]
        self.widen: bool = values["widen"]
        self.clock: str = values["clock"]
        self.name = self.spec_from(values)
        self.rng = random.Random(self.seed)
        self.last_stats: SearchStats | None = None
        self._root: _Node | None = None
        self._root_history: tuple[Any, ...] = ()
        self._root_spn = ""
        self._root_game = ""

    def reset(self) -> None:
        self._root = None
        self._root_history = ()
        self._root_spn = ""
        self._root_game = ""

    # -- the public calls ----------------------------------------------------------------

    def choose(self, view: PlayerView, player: int) -> Any:
        state = require_state(view, player, "mcts")
        root = self._reused_root(state) if self.reuse else None
        reused = 0 if root is None else root.visits
        if root is None:
            root = _Node(None, None, player, None, state.game.num_players)
        start = time.perf_counter()
        deadline = thinking_clock(self.clock)() + self.max_seconds_per_move()
        playout = _playout(state.game.kit().knowledge, self.rollout)
        done = self._search(root, state, self.iterations, deadline, playout)
        self.last_stats = SearchStats(done, reused, root.visits, time.perf_counter() - start)
        self._root = root
        self._root_history = state.history
        self._root_spn = state.to_spn()
        self._root_game = repr(state.game)
        if not root.children:  # no iteration ran (a tiny time budget): any legal move
            return state.legal_moves()[0]
        p = root.player
        best = max(root.children, key=lambda node: (node.visits, node.totals[p]))
        return best.move

    def max_seconds_per_move(self) -> float:
        """``time``; with ``iterations``, the caller's ``max_time`` (the search stops there too)."""
        return self.within_limit(self.time if self.time is not None else self.time_cap)

    def root_values(self) -> list[float]:
        """The mean return per seat over the last search's root visits (``[-1, 1]`` each)."""
        if self._root is None or not self._root.visits:
            raise ValueError("mcts has not searched yet")
        return [total / self._root.visits for total in self._root.totals]

    def root_children(self) -> dict[str, tuple[int, list[float]]]:
        """For each move searched at the last root: its visits and mean return per seat."""
        if self._root is None:
            return {}
        return {
            str(child.move): (child.visits, [t / child.visits for t in child.totals]) for child in self._root.children
        }

    def tree_visits(self, moves: list[Any]) -> int:
        """Visits of the kept node reached from the last root by ``moves`` (0 if the tree lacks it)."""
        node = self._root
        for move in moves:
            if node is None:
                return 0
            node = next((child for child in node.children if child.move == move), None)
        return 0 if node is None else node.visits

    # -- the tree ------------------------------------------------------------------------

    def _reused_root(self, state: State[Any]) -> _Node | None:
        """The node of the kept tree that stands for ``state``, detached; ``None`` if there is none."""
        old = self._root
        if old is None or repr(state.game) != self._root_game:
            return None
        known = len(self._root_history)
        history = state.history
        if len(history) < known or history[:known] != self._root_history:
            return None
        probe = state.clone()
        for _ in range(len(history) - known):
            probe.undo()
        if probe.to_spn() != self._root_spn:
            return None
        node: _Node | None = old
        for move in history[known:]:
            assert node is not None
            node = next((child for child in node.children if child.move == move), None)
            if node is None:
                return None
        assert node is not None
        node.parent = None
        return node

    def _search(
        self,
        root: _Node,
        root_state: State[Any],
        iterations: int | None,
        deadline: float | None,
        playout: Playout | None,
    ) -> int:
        rand = self.rng.random
        explore = 2.0 * self.c  # rewards in [-1, 1] count double against [0, 1]
        widen = self.widen
        players = len(root.totals)
        seats = range(players)
        log, sqrt, clock = math.log, math.sqrt, thinking_clock(self.clock)
        done = 0
        while True:
            if (iterations is not None and done >= iterations) or (deadline is not None and clock() >= deadline):
                break
            state = root_state.clone()
            node = root
            # Selection: down through fully expanded nodes (with ``widen``, also past untried
            # moves while some child beats an untried move's value).
            while True:
                if node.untried is None:
                    node.untried = state.legal_moves() if node.player >= 0 else []
                if not node.children or (node.untried and not widen):
                    break
                p = node.player
                k = explore * sqrt(log(node.visits))
                best = node
                best_value = -1e300
                for child in node.children:
                    n = child.visits
                    value = child.totals[p] / n + k / sqrt(n)
                    if value > best_value:
                        best_value, best = value, child
                if node.untried and best_value <= node.totals[p] / node.visits + k:
                    break  # an untried move, valued as one visit at the node's mean, comes first
                node = best
                state.apply(node.move)
            # Expansion: one untried move, picked at random.
            untried = node.untried
            if untried:
                i = int(rand() * len(untried))
                move = untried[i]
                untried[i] = untried[-1]
                untried.pop()
                state.apply(move)
                to_move = state.current_player()
                if to_move == SIMULTANEOUS:
                    raise ValueError(f"mcts cannot search simultaneous moves ({state.game.name})")
                child = _Node(move, node, to_move, None, players)
                node.children.append(child)
                node = child
            # Rollout: random moves to the end.
            if playout is not None and not state.is_terminal():
                rewards = playout(state, rand)
            else:
                while not state.is_terminal():
                    moves = state.legal_moves()
                    if not moves:
                        raise ValueError(f"mcts cannot search simultaneous moves ({state.game.name})")
                    state.apply(moves[int(rand() * len(moves))])
                rewards = state.returns()
            # Backup: every seat's reward on every node passed.
            back: _Node | None = node
            while back is not None:
                back.visits += 1
                totals = back.totals
                for seat in seats:
                    totals[seat] += rewards[seat]
                back = back.parent
            done += 1
        return done


def _playout(knowledge: Knowledge, rollout: str) -> Playout | None:
    """The playout ``rollout`` asks for (``None``: random legal moves)."""
    if rollout == "random":
        return None
    if rollout == "guided" and knowledge.guided_playout is not None:
        return knowledge.guided_playout
    return knowledge.playout
