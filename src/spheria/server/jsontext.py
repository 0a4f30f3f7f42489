"""The one way the server reads JSON from a client: a POST body or a websocket frame.

Python refuses integers longer than 4,300 digits with a ``ValueError`` that no JSON error
handler expects, and a client has no business sending a number longer than any field holds;
so integers past :data:`MAX_DIGITS` digits are refused as bad input naming the field, before
Python converts them.

>>> parse_json('{"seed": 7}')
{'seed': 7}
>>> parse_json('{"options": {"seed": ' + "9" * 50 + '}}')
Traceback (most recent call last):
...
spheria.server.jsontext.BadJson: field 'seed' holds a number of 50 digits; numbers have at most 30
"""

from __future__ import annotations

import json
from typing import Any

#: The most digits an integer from a client may have (a 64-bit seed has 20).
MAX_DIGITS = 30


class BadJson(ValueError):
    """Text that is not JSON, or JSON a client must not send; the message names the problem."""


class _LongNumber:
    """An integer too long to convert, held until the field that holds it is known."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _integer(text: str) -> int | _LongNumber:
    digits = len(text.lstrip("-"))
    return _LongNumber(digits) if digits > MAX_DIGITS else int(text)


def _long_number_in(value: Any) -> _LongNumber | None:
    if isinstance(value, _LongNumber):
        return value
    if isinstance(value, list):
        for item in value:
            found = _long_number_in(item)
            if found is not None:
                return found
    return None


def _too_long(where: str, number: _LongNumber) -> BadJson:
    return BadJson(f"{where} holds a number of {number.digits} digits; numbers have at most {MAX_DIGITS}")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    for key, value in pairs:
        number = _long_number_in(value)
        if number is not None:
            raise _too_long(f"field {key!r}", number)
    return dict(pairs)


def parse_json(text: str | bytes) -> Any:
    """The JSON value of ``text``; :class:`BadJson` naming the problem if it is not JSON, nests
    too deep, or holds an integer of more than :data:`MAX_DIGITS` digits."""
    try:
        value = json.loads(text, parse_int=_integer, object_pairs_hook=_object)
    except BadJson:
        raise
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError):
        raise BadJson("not valid JSON") from None
    number = _long_number_in(value)
    if number is not None:
        raise _too_long("the message", number)
    return value
