"""Agents by spec string: ``name`` or ``name:key=value,key=value`` (``mcts:time=1,c=1.4``).

One registry serves the command line, the arena and the server, so a spec means the same
agent everywhere.

>>> make_agent("random:seed=3").name
'random:seed=3'
>>> make_agent("nobody")
Traceback (most recent call last):
...
ValueError: unknown agent 'nobody' (agents: alphabeta, fixed, greedy, mcts, planner, random, solver, spagyric)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spheria.agents.alphabeta import AlphaBetaAgent
from spheria.agents.base import Agent
from spheria.agents.greedy import GreedyAgent
from spheria.agents.mcts import MCTSAgent
from spheria.agents.planner import PlannerAgent
from spheria.agents.random_agent import RandomAgent
from spheria.agents.solver_agent import SolverAgent
from spheria.agents.spagyric_agent import FixedColorAgent, SpagyricAgent

AgentFactory = Callable[..., Agent]

_AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
    "alphabeta": AlphaBetaAgent,
    "solver": SolverAgent,
    "planner": PlannerAgent,
    "spagyric": SpagyricAgent,
    "fixed": FixedColorAgent,
}


def register_agent(name: str, factory: AgentFactory) -> None:
    _AGENTS[name] = factory


def agent_names() -> list[str]:
    return sorted(_AGENTS)


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"mcts:time=1,c=1.4"`` into ``("mcts", {"time": 1, "c": 1.4})``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"agent option {pair!r} in {spec!r} must be written key=value")
        params[key.strip()] = _value(value.strip())
    return name, params


def make_agent(spec: str) -> Agent:
    """The agent a spec names; raises ``ValueError`` naming an unknown agent or option."""
    name, params = parse_spec(spec)
    factory = _AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r} (agents: {', '.join(agent_names())})")
    try:
        return factory(**params)
    except TypeError as error:
        raise ValueError(f"bad options for agent {name!r}: {error}") from None
