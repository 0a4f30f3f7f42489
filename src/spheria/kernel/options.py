"""Options: one declared option type and parser, for a game's options and an agent's alike."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel import messages


def number_text(number: float) -> str:
    """A number as short as it is exact, for messages and specs: ``2``, ``0.05``, ``1e-05``.

    >>> number_text(2.0), number_text(0.05), number_text(600)
    ('2', '0.05', '600')
    """
    if isinstance(number, float) and math.isfinite(number):
        if number.is_integer() and abs(number) < 1e15:
            return str(int(number))
        short = f"{number:g}"
        return short if float(short) == number else repr(number)
    return str(number)


@dataclass(frozen=True)
class Option:
    """One declared option: name, type (``kind``), default, allowed values and a line of help.

    ``kind`` is ``str``, ``int``, ``float`` or ``bool``. Numbers must be finite and within
    ``minimum``..``maximum`` (when given); whole-number options refuse fractions; ``choices``
    (typed like ``kind``) lists the only allowed values. ``default`` ``None`` means the value
    is worked out from other options (see :meth:`Game._resolve_options`) or, for an agent, from
    its other options. ``seconds`` marks an agent's time budget: its greatest value is also capped
    by the caller's ``max_time``, and so is its default. ``label`` names a game's option for
    people and ``words`` its choices, in the order of ``choices`` (``N_``-marked in the game's
    messages; the server sends them translated to the pages, which show the name and the value
    themselves where a game gives no words).

    >>> Option("players", 2, "seats", kind=int, minimum=2, maximum=4).parse("3")
    3
    >>> Option("players", 2, "seats", kind=int).parse(2.5)
    Traceback (most recent call last):
    ...
    ValueError: option 'players' takes a whole number, not 2.5
    >>> Option("rule", "a", "the rule", ("a", "b"), label="rule", words=("one",))
    Traceback (most recent call last):
    ...
    ValueError: option 'rule' has 1 words for its 2 choices
    """

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    kind: type = str
    minimum: float | None = None
    maximum: float | None = None
    seconds: bool = False
    label: str = ""
    words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.words and len(self.words) != len(self.choices):
            raise ValueError(f"option {self.name!r} has {len(self.words)} words for its {len(self.choices)} choices")

    @property
    def type_name(self) -> str:
        """``"str"``, ``"int"``, ``"float"`` or ``"bool"``: the option's type in JSON descriptions."""
        return self.kind.__name__

    def parse(self, value: Any, max_time: float | None = None) -> Any:
        """Convert a value (possibly a string from a command line or URL) and check it.

        ``max_time`` caps a time budget (``seconds``). Raises ``ValueError`` naming the option
        and what it takes.
        """
        if self.kind is bool:
            result: Any = self._parse_bool(value)
        elif self.kind is int:
            result = self._parse_int(value, max_time)
        elif self.kind is float:
            result = self._parse_float(value, max_time)
        else:
            if not isinstance(value, str):
                raise ValueError(_(messages.OPTION_TEXT).format(option=repr(self.name), value=repr(value)))
            result = value.strip().lower()
        if self.choices and result not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise ValueError(
                _(messages.OPTION_CHOICE).format(option=repr(self.name), choices=allowed, value=repr(value))
            )
        return result

    def _parse_bool(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower() if isinstance(value, str | int) else ""
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError(_(messages.OPTION_BOOL).format(option=repr(self.name), value=repr(value)))

    def high(self, max_time: float | None = None) -> float | None:
        """The greatest value allowed: ``maximum``, for a time budget no more than ``max_time``."""
        if self.seconds and max_time is not None:
            return max_time if self.maximum is None else min(self.maximum, max_time)
        return self.maximum

    def default_within(self, max_time: float | None = None) -> Any:
        """The default; a time budget's shrinks to the caller's ``max_time``."""
        if self.seconds and self.default is not None and max_time is not None:
            return min(self.default, max_time)
        return self.default

    def range_text(self, max_time: float | None = None) -> str:
        """The option's type and range for a help text: ``1 to 1000000``, ``wall, cpu``, ``1 or 0``."""
        if self.kind is bool:
            return "1 or 0"
        high = self.high(max_time)
        if self.minimum is not None and high is not None:
            return f"{number_text(self.minimum)} to {number_text(high)}"
        return ", ".join(str(choice) for choice in self.choices) if self.choices else "text"

    def _parse_int(self, value: Any, max_time: float | None = None) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif (isinstance(value, float) and math.isfinite(value) and value.is_integer()) or (
            isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", value)
        ):
            number = int(value)
        if number is None:
            raise ValueError(_(messages.OPTION_WHOLE).format(option=repr(self.name), value=repr(value)))
        self._check_range(number, max_time)
        return number

    def _parse_float(self, value: Any, max_time: float | None = None) -> float:
        number: float | None = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                number = None
        if number is None or not math.isfinite(number):
            raise ValueError(_(messages.OPTION_FINITE).format(option=repr(self.name), value=repr(value)))
        self._check_range(number, max_time)
        return number

    def _check_range(self, number: float, max_time: float | None = None) -> None:
        low, high = self.minimum, self.high(max_time)
        if (low is not None and number < low) or (high is not None and number > high):
            if low is not None and high is not None:
                template = messages.OPTION_BETWEEN
            elif low is not None:
                template = messages.OPTION_AT_LEAST
            else:
                template = messages.OPTION_AT_MOST
            words = {"low": low, "high": high, "value": number}
            shown = {k: number_text(v) for k, v in words.items() if v is not None}
            raise ValueError(_(template).format(option=repr(self.name), **shown))

    def describe(self, value: Any = None) -> dict[str, Any]:
        """This option as JSON-ready data; ``value`` is the value in force, if any."""
        return {
            "name": self.name,
            "type": self.type_name,
            "default": self.default,
            "value": value,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "help": self.help,
        }


def options_from_pairs(pairs: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """Turn ``["size=4", "depth=3"]`` into a dict; raises ``ValueError`` on a bad pair."""
    if isinstance(pairs, Mapping):
        return dict(pairs)
    result = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(_(messages.OPTION_PAIR).format(pair=repr(pair)))
        result[key.strip().replace("-", "_")] = value.strip()
    return result
