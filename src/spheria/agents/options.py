"""The options many agents share (``seed``, ``blunder``, ``clock``, a ``time`` budget) and the cap on
thinking time.

An agent declares its options as :class:`spheria.kernel.options.Option` values, the type game
options have: a kind, a default and, for numbers, the range allowed (both ends included). The same
declaration checks a value given to the constructor or written in a spec (``mcts:time=2``), names
the agent's spec, and documents the option (:func:`spheria.kernel.agent.check_option`). A time
budget (``seconds=True``) may not exceed the longest thinking time the caller allows (``max_time``,
at most :data:`MAX_TIME`).

>>> from spheria.kernel.agent import check_option
>>> check_option("mcts", time_option(None, "seconds per move"), "2", max_time=10)
2.0
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from spheria.agents.messages import message
from spheria.kernel.messages import shown
from spheria.kernel.options import Option, number_text

#: The longest any agent may think about one move (seconds), unless the caller allows less.
MAX_TIME = 600.0
#: The shortest time budget (seconds).
MIN_TIME = 0.01
#: Seeds are whole numbers from 0 to this.
MAX_SEED = 2**32 - 1


def check_max_time(max_time: float | None) -> float:
    """The caller's cap on thinking time, checked (``None``: :data:`MAX_TIME`)."""
    if max_time is None:
        return MAX_TIME
    if isinstance(max_time, bool) or not isinstance(max_time, int | float) or not MIN_TIME <= max_time <= MAX_TIME:
        low, high = number_text(MIN_TIME), number_text(MAX_TIME)
        raise ValueError(message("max_time", low=low, high=high, value=shown(max_time)))
    return float(max_time)


#: The ``seed`` option every agent takes: the same seed, asked the same questions, gives the same answers.
SEED = Option("seed", None, "the random generator's seed", kind=int, minimum=0, maximum=MAX_SEED)


#: The ``blunder`` option every agent takes: the share of its moves played uniformly at random instead
#: (see :mod:`spheria.agents.blunder`); 0, the default, is the agent itself.
BLUNDER = Option("blunder", 0.0, "the share of moves played at random instead", kind=float, minimum=0.0, maximum=1.0)


#: What a ``time`` budget counts: ``wall`` seconds, or ``cpu`` — the thinking thread's CPU seconds,
#: which other work on the machine does not eat into (fair matches on a shared machine).
CLOCK = Option("clock", "wall", "what time counts: wall seconds or the thread's CPU seconds", ("wall", "cpu"))


def thinking_clock(clock: str) -> Callable[[], float]:
    """The clock a search reads for its ``time`` budget and ``max_time`` cap (see :data:`CLOCK`).

    >>> thinking_clock("cpu") is time.thread_time, thinking_clock("wall") is time.perf_counter
    (True, True)
    """
    return time.thread_time if clock == "cpu" else time.perf_counter


def one_budget(agent: str, values: dict[str, Any], max_time: float, budget: str = "iterations") -> None:
    """Check that ``values`` give ``time`` or ``budget`` (iterations, say), not both; with neither,
    ``time`` becomes 1 s (or ``max_time`` if less). Refused with the agent's name."""
    if values[budget] is not None and values["time"] is not None:
        raise ValueError(message("one_budget", agent=agent))
    if values[budget] is None and values["time"] is None:
        values["time"] = min(1.0, max_time)


def time_option(default: float | None, help: str) -> Option:
    """A time budget in seconds, from :data:`MIN_TIME` to the caller's ``max_time``."""
    return Option("time", default, help, kind=float, minimum=MIN_TIME, maximum=MAX_TIME, seconds=True)
