"""The generic estimate of any sequential perfect-information position: MCTS, run in chunks so
that its answer so far can be reported, with the visits and mean result of every legal move and
the principal variation."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from spheria.analysis.budget import Budget
from spheria.analysis.result import ESTIMATE, MCTS, Analysis, MoveValue, Progress, base, standard_error
from spheria.kernel.game import SIMULTANEOUS, State

#: MCTS iterations between two progress reports.
MCTS_CHUNK = 250
#: A principal variation stops at a node visited fewer times than this.
PV_MIN_VISITS = 4
#: The longest principal variation reported.
PV_LENGTH = 12


def estimate(state: State[Any], budget: Budget) -> Analysis:
    """MCTS on ``state`` for the player to move, within ``budget`` (its iterations, else its time)."""
    from spheria.agents.mcts import MCTSAgent

    seat = state.current_player()
    cap = budget.estimate_time()
    agent = MCTSAgent(iterations=MCTS_CHUNK, seed=budget.seed, reuse=True, max_time=max(cap, 1.0))
    done = 0
    analysis = _snapshot(state, seat, agent, done, budget)
    while budget.elapsed() < cap and (budget.iterations is None or done < budget.iterations):
        chunk = MCTS_CHUNK if budget.iterations is None else min(MCTS_CHUNK, budget.iterations - done)
        agent.iterations = chunk
        agent.choose(state, seat)
        assert agent.last_stats is not None
        done += agent.last_stats.iterations
        analysis = _snapshot(state, seat, agent, done, budget)
        budget.report(Progress(MCTS, budget.elapsed(), iterations=done, partial=analysis))
        if agent.last_stats.iterations < chunk:  # the agent's own time cap stopped it
            break
    return analysis


def _snapshot(state: State[Any], seat: int, agent: Any, done: int, budget: Budget) -> Analysis:
    children = agent.root_children()
    moves = []
    values: list[float] | None = None  # every seat's mean result of the most visited move
    most = 0
    for move in state.legal_moves():
        visits, means = children.get(str(move), (0, None))
        value = None if means is None else means[seat]
        error = None if value is None else standard_error(value, visits)
        moves.append(MoveValue(state.notation(move), value, visits, error=error))
        if visits > most:
            most, values = visits, list(means)
    moves.sort(key=lambda m: -(m.visits or 0))
    # The position is worth what its most visited move is worth: the root's own mean would
    # count the exploration of weaker moves against it.
    return replace(
        base(state, seat, MCTS, ESTIMATE),
        value=None if values is None else values[seat],
        values=values,
        moves=moves,
        best_moves=[moves[0].move] if values is not None else [],
        principal_variation=_principal_variation(state, agent) if done else [],
        iterations=done,
        seconds=budget.elapsed(),
        error=moves[0].error if values is not None else None,
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
