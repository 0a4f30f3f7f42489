"""Agent options, declared like game options (:class:`spheria.kernel.game.Option`) with a range.

Every agent lists its options as :class:`AgentOption` values: a type, a default and, for
numbers, the range allowed (both ends included). The same declaration checks a value given to
the constructor or written in a spec (``mcts:time=2``), names the agent's spec, and documents
the option. Numbers must be finite and inside their range; whole numbers must be whole; a time
budget (``seconds=True``) may not exceed the longest thinking time the caller allows
(``max_time``, at most :data:`MAX_TIME`).

>>> TIME = AgentOption("time", None, "seconds per move", kind=float, bounds=(0.01, MAX_TIME), seconds=True)
>>> TIME.check("mcts", "2", max_time=10)
2.0
>>> TIME.check("mcts", "nan")
Traceback (most recent call last):
...
ValueError: mcts option time must be a number of seconds from 0.01 to 600, not nan
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from spheria.agents.messages import message, shown
from spheria.kernel.options import Option

#: The longest any agent may think about one move (seconds), unless the caller allows less.
MAX_TIME = 600.0
#: The shortest time budget (seconds).
MIN_TIME = 0.01
#: Seeds are whole numbers from 0 to this.
MAX_SEED = 2**32 - 1


@dataclass(frozen=True)
class AgentOption(Option):
    """An agent option: a game :class:`Option` with a range for numbers (``kind`` int or float).

    ``bounds`` are the least and the greatest value allowed; ``seconds`` marks a time budget,
    whose greatest value is also capped by the caller's ``max_time``.
    """

    bounds: tuple[float, float] | None = None
    seconds: bool = False

    def check(self, agent: str, value: Any, max_time: float | None = None) -> Any:
        """``value`` (typed, or text from a spec) converted and checked; ``ValueError`` naming the
        agent, the option and what it takes. ``None`` stands for "not given": the default."""
        if value is None:
            return self._default(max_time)
        if self.kind is bool:
            try:
                return Option.parse(self, value)  # true/false is read in one place, for games and agents
            except ValueError:
                raise ValueError(message("flag", agent=agent, option=self.name, value=shown(value))) from None
        if self.kind in (int, float):
            return self._number(agent, value, max_time)
        text = str(value).strip().lower()
        if self.choices and text not in self.choices:
            choices = ", ".join(self.choices)
            raise ValueError(message("choice", agent=agent, option=self.name, choices=choices, value=shown(value)))
        return text

    def high(self, max_time: float | None = None) -> float:
        """The greatest value allowed (for a time budget, no more than ``max_time``)."""
        high = self.bounds[1] if self.bounds is not None else math.inf
        return min(high, max_time) if self.seconds and max_time is not None else high

    def range_text(self, max_time: float | None = None) -> str:
        """The option's type and range, for help texts: ``a whole number from 1 to 1000000``."""
        if self.kind is bool:
            return "1 or 0"
        if self.bounds is not None:
            return f"{_number_text(self.bounds[0])} to {_number_text(self.high(max_time))}"
        return ", ".join(self.choices) if self.choices else "text"

    def _default(self, max_time: float | None) -> Any:
        if self.seconds and self.default is not None and max_time is not None:
            return min(self.default, max_time)  # a default budget shrinks to what the caller allows
        return self.default

    def _number(self, agent: str, value: Any, max_time: float | None) -> int | float:
        whole = self.kind is int
        low, high = (self.bounds[0] if self.bounds else -math.inf), self.high(max_time)
        key = "whole" if whole else "seconds" if self.seconds else "number"
        problem = message(
            key, agent=agent, option=self.name, low=_number_text(low), high=_number_text(high), value=shown(value)
        )
        number: int | float
        if isinstance(value, str):
            try:
                number = int(value) if whole else float(value)
            except ValueError:
                raise ValueError(problem) from None
        elif isinstance(value, int | float) and not isinstance(value, bool):
            number = value
        else:
            raise ValueError(problem)
        if isinstance(number, float) and (not math.isfinite(number) or (whole and not number.is_integer())):
            raise ValueError(problem)
        if not low <= number <= high:
            raise ValueError(problem)
        return int(number) if whole else float(number)


def check_options(
    agent: str, specs: tuple[AgentOption, ...], given: Mapping[str, Any], max_time: float | None = None
) -> dict[str, Any]:
    """Every option of ``specs``: its value in ``given`` checked, or its default."""
    check_names(agent, specs, given)
    return {spec.name: spec.check(agent, given.get(spec.name), max_time) for spec in specs}


def check_names(agent: str, specs: tuple[AgentOption, ...], given: Mapping[str, Any]) -> None:
    """Refuse an option ``specs`` does not declare, listing the ones it does."""
    known = {spec.name for spec in specs}
    unknown = [name for name in given if name not in known]
    if unknown:
        if not specs:
            raise ValueError(message("no_options", agent=agent, option=shown(unknown[0])))
        listed = ", ".join(spec.name for spec in specs)
        raise ValueError(message("unknown_option", agent=agent, option=shown(unknown[0]), options=listed))


def check_max_time(max_time: float | None) -> float:
    """The caller's cap on thinking time, checked (``None``: :data:`MAX_TIME`)."""
    if max_time is None:
        return MAX_TIME
    if isinstance(max_time, bool) or not isinstance(max_time, int | float) or not MIN_TIME <= max_time <= MAX_TIME:
        low, high = _number_text(MIN_TIME), _number_text(MAX_TIME)
        raise ValueError(message("max_time", low=low, high=high, value=shown(max_time)))
    return float(max_time)


def spec_text(
    agent: str, specs: tuple[AgentOption, ...], values: Mapping[str, Any], always: tuple[str, ...] = ()
) -> str:
    """The spec that names an agent: its options that differ from the default (or are listed in
    ``always``), in declaration order.

    >>> spec_text("random", (SEED,), {"seed": 3}), spec_text("random", (SEED,), {"seed": None})
    ('random:seed=3', 'random')
    """
    parts = [
        f"{spec.name}={value_text(values[spec.name])}"
        for spec in specs
        if values.get(spec.name) is not None and (values[spec.name] != spec.default or spec.name in always)
    ]
    return agent + (":" + ",".join(parts) if parts else "")


def value_text(value: Any) -> str:
    """An option's value as a spec writes it: ``1``/``0`` for yes/no, numbers as short as exact."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return _number_text(value)
    return str(value)


def _number_text(number: float) -> str:
    if isinstance(number, float) and math.isfinite(number):
        if number.is_integer() and abs(number) < 1e15:
            return str(int(number))
        short = f"{number:g}"
        return short if float(short) == number else repr(number)
    return str(number)


#: The ``seed`` option every agent takes: the same seed, asked the same questions, gives the same answers.
SEED = AgentOption("seed", None, "the random generator's seed", kind=int, bounds=(0, MAX_SEED))


#: The ``blunder`` option every agent takes: the share of its moves played uniformly at random instead
#: (see :mod:`spheria.agents.blunder`); 0, the default, is the agent itself.
BLUNDER = AgentOption("blunder", 0.0, "the share of moves played at random instead", kind=float, bounds=(0.0, 1.0))


#: What a ``time`` budget counts: ``wall`` seconds, or ``cpu`` — the thinking thread's CPU seconds,
#: which other work on the machine does not eat into (fair matches on a shared machine).
CLOCK = AgentOption("clock", "wall", "what time counts: wall seconds or the thread's CPU seconds", ("wall", "cpu"))


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


def time_option(default: float | None, help: str) -> AgentOption:
    """A time budget in seconds, from :data:`MIN_TIME` to the caller's ``max_time``."""
    return AgentOption("time", default, help, kind=float, bounds=(MIN_TIME, MAX_TIME), seconds=True)
