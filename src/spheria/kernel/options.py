"""Options: one declared option type and parser, for a game's options and an agent's alike."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel import messages


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@dataclass(frozen=True)
class Option:
    """One declared option: name, type (``kind``), default, allowed values and a line of help.

    ``kind`` is ``str``, ``int``, ``float`` or ``bool``. Numbers must be finite and within
    ``minimum``..``maximum`` (when given); whole-number options refuse fractions; ``choices``
    (typed like ``kind``) lists the only allowed values. ``default`` ``None`` means the value
    is worked out from other options (see :meth:`Game._resolve_options`).

    >>> Option("players", 2, "seats", kind=int, minimum=2, maximum=4).parse("3")
    3
    >>> Option("players", 2, "seats", kind=int).parse(2.5)
    Traceback (most recent call last):
    ...
    ValueError: option 'players' takes a whole number, not 2.5
    """

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    kind: type = str
    minimum: float | None = None
    maximum: float | None = None

    @property
    def type_name(self) -> str:
        """``"str"``, ``"int"``, ``"float"`` or ``"bool"``: the option's type in JSON descriptions."""
        return self.kind.__name__

    def parse(self, value: Any) -> Any:
        """Convert a value (possibly a string from a command line or URL) and check it.

        Raises ``ValueError`` naming the option and what it takes.
        """
        if self.kind is bool:
            result: Any = self._parse_bool(value)
        elif self.kind is int:
            result = self._parse_int(value)
        elif self.kind is float:
            result = self._parse_float(value)
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

    def _parse_int(self, value: Any) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif (isinstance(value, float) and math.isfinite(value) and value.is_integer()) or (
            isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", value)
        ):
            number = int(value)
        if number is None:
            raise ValueError(_(messages.OPTION_WHOLE).format(option=repr(self.name), value=repr(value)))
        self._check_range(number)
        return number

    def _parse_float(self, value: Any) -> float:
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
        self._check_range(number)
        return number

    def _check_range(self, number: float) -> None:
        low, high = self.minimum, self.maximum
        if (low is not None and number < low) or (high is not None and number > high):
            if low is not None and high is not None:
                template = messages.OPTION_BETWEEN
            elif low is not None:
                template = messages.OPTION_AT_LEAST
            else:
                template = messages.OPTION_AT_MOST
            words = {"low": low, "high": high, "value": number}
            shown = {k: _number_text(v) for k, v in words.items() if v is not None}
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
    """Turn ``["variant=mint", "line_rule=any"]`` into a dict; raises ``ValueError`` on a bad pair."""
    if isinstance(pairs, Mapping):
        return dict(pairs)
    result = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(_(messages.OPTION_PAIR).format(pair=repr(pair)))
        result[key.strip().replace("-", "_")] = value.strip()
    return result
