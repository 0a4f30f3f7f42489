"""Text laid out by terminal columns: a Hangul or CJK character takes two, others one.

>>> display_width("수 12"), pad("수", 4) + "|"
(5, '수  |')
>>> wrap("가나다 라마 바사아자", 8)
['가나다', '라마', '바사아자']
"""

from __future__ import annotations

import textwrap
import unicodedata


def char_width(char: str) -> int:
    """The columns ``char`` takes: 2 for wide and full-width characters, 0 for combining marks."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """The columns ``text`` (one line) takes on a terminal."""
    return sum(char_width(char) for char in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``width`` columns (``align``: ``<`` left, ``>`` right)."""
    fill = " " * max(0, width - display_width(text))
    return text + fill if align == "<" else fill + text


def wrap(text: str, width: int, subsequent_indent: str = "") -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns (a longer word stays whole)."""
    if text.isascii():
        return textwrap.wrap(text, width, subsequent_indent=subsequent_indent)
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else (subsequent_indent if lines else "") + word
        if line and display_width(candidate) > width:
            lines.append(line)
            line = subsequent_indent + word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def fill(text: str, width: int, subsequent_indent: str = "") -> str:
    """:func:`wrap` joined into one string."""
    return "\n".join(wrap(text, width, subsequent_indent))
