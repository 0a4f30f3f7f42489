"""Agent seats, run off the event loop.

An agent's move is computed from a picklable job (the game's name, options, seed and move
entries, the seat and the agent spec) by :func:`choose_move` in a worker process (or thread),
so a slow agent never stalls the server. A worker keeps the states it rebuilt, keyed by game,
and replays only the new entries on the next job. The agent is handed ``state.view(seat)``:
in a game with hidden information it sees only what its seat may see.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from spheria.agents.registry import make_agent
from spheria.games.base import State, load_game


@dataclass(frozen=True)
class AgentJob:
    game_id: str
    name: str
    options: dict[str, Any]
    seed: int | None
    entries: tuple[str, ...]
    seat: int
    spec: str


_CACHE_SIZE = 64
_cache: OrderedDict[str, tuple[State[Any], list[str]]] = OrderedDict()
_cache_lock = threading.Lock()


def rebuild(name: str, options: dict[str, Any], seed: int | None, entries: tuple[str, ...] | list[str]) -> State[Any]:
    """The state reached by replaying ``entries`` from the start of a game."""
    state = load_game(name, **options).new_initial_state(seed)
    for entry in entries:
        state.apply_notation(entry)
    return state


def _state_for(job: AgentJob) -> State[Any]:
    key = f"{job.game_id}:{job.seat}"
    with _cache_lock:
        cached = _cache.pop(key, None)
    if cached is not None:
        state, seen = cached
        if list(job.entries[: len(seen)]) == seen:
            for entry in job.entries[len(seen) :]:
                state.apply_notation(entry)
            return state
    return rebuild(job.name, job.options, job.seed, job.entries)


def choose_move(job: AgentJob) -> str:
    """The agent's move for ``job.seat``, as text that ``state.parse_move(text, seat)`` reads."""
    state = _state_for(job)
    agent = make_agent(job.spec)
    move = agent.choose(state.view(job.seat), job.seat)
    text = str(move)
    with _cache_lock:
        _cache[f"{job.game_id}:{job.seat}"] = (state, list(job.entries))
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return text


def make_executor(kind: str = "process", workers: int | None = None) -> Executor:
    """A pool for agent moves: ``process`` (default: true parallelism, isolated) or ``thread``."""
    if kind == "thread":
        return ThreadPoolExecutor(max_workers=workers or 8, thread_name_prefix="spheria-agent")
    if kind != "process":
        raise ValueError(f"agent pool must be 'process' or 'thread', not {kind!r}")
    count = workers or max(2, os.cpu_count() or 2)
    return ProcessPoolExecutor(max_workers=count, mp_context=get_context("spawn"))
