"""Drawing and prompting in a terminal: ANSI colours for the balls, clean input and clearing.

Colour is used only when stdout is a terminal, ``NO_COLOR`` is unset or empty, ``TERM`` is
not ``dumb`` and the user did not pass ``--no-color``.

>>> term = Terminal(color=False)
>>> term.board("1 w b r .")
'1 w b r .'
>>> Terminal(color=True).board("1 w .").count("\\x1b[")
4
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Mapping
from typing import TextIO

from spheria.cli.messages import SCREEN_CLEARED
from spheria.i18n import gettext as _

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
RED_TEXT = "\x1b[31m"
GREEN_TEXT = "\x1b[32m"

#: How each ball character is drawn: dark on light for white, light on dark for black, light on red.
BALL_STYLES: dict[str, str] = {
    "w": "\x1b[1;30;107m",
    "b": "\x1b[1;97;40m",
    "r": "\x1b[1;97;41m",
    ".": "\x1b[2m",
}

# A rank line of a drawn pyramid: a rank digit, a space, then cells.
_RANK_LINE = re.compile(r"^\d ")
_CELL = re.compile(r"(?<= )([wbr.])(?=[^a-z]|$)", re.IGNORECASE)


def wants_color(stream: TextIO, disabled: bool = False, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour output written to ``stream``."""
    env = os.environ if environ is None else environ
    if disabled or env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


class Terminal:
    """Output and input streams plus the drawing conventions of the command line."""

    def __init__(self, color: bool | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.inp = stdin if stdin is not None else sys.stdin
        self.out = stdout if stdout is not None else sys.stdout
        self.color = wants_color(self.out) if color is None else color
        self._readline = False

    @property
    def interactive(self) -> bool:
        """Whether a person is typing at a screen (both streams are terminals)."""
        return _isatty(self.inp) and _isatty(self.out)

    # -- output ----------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def style(self, text: str, code: str) -> str:
        return f"{code}{text}{RESET}" if self.color and text else text

    def bold(self, text: str) -> str:
        return self.style(text, BOLD)

    def dim(self, text: str) -> str:
        return self.style(text, DIM)

    def error(self, text: str) -> None:
        """A problem with what the user typed; the prompt follows."""
        self.say(self.style(text, RED_TEXT))

    def good(self, text: str) -> None:
        self.say(self.style(text, GREEN_TEXT))

    def board(self, diagram: str) -> str:
        """Colour the balls of a pyramid drawn by ``Board.diagram`` (rank lines only)."""
        if not self.color:
            return diagram
        lines = []
        for line in diagram.splitlines():
            if _RANK_LINE.match(line):
                line = _CELL.sub(lambda m: self._ball(m.group(1)), line)
            lines.append(line)
        return "\n".join(lines)

    def _ball(self, char: str) -> str:
        code = BALL_STYLES.get(char.lower())
        return f"{code}{char}{RESET}" if code else char

    def clear(self) -> None:
        """Wipe the screen and its scrollback, so the next person cannot read what was typed."""
        if _isatty(self.out):
            self.out.write("\x1b[H\x1b[2J\x1b[3J")
        else:
            self.out.write("\n" + "-" * 30 + f" {_(SCREEN_CLEARED)} " + "-" * 30 + "\n")
        self.out.flush()

    def transient(self, text: str) -> None:
        """A line shown only until :meth:`end_transient` (e.g. "thinking…"); only on a terminal."""
        if _isatty(self.out):
            self.out.write(self.dim(text))
            self.out.flush()

    def end_transient(self) -> None:
        if _isatty(self.out):
            self.out.write("\r\x1b[K")
            self.out.flush()

    # -- input -----------------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """One line typed by the user, without its newline; raises ``EOFError`` at end of input."""
        if self.inp is sys.stdin and self.out is sys.stdout and _isatty(self.inp):
            self._enable_line_editing()
            return input(prompt)
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    def _enable_line_editing(self) -> None:
        if not self._readline:
            self._readline = True
            with contextlib.suppress(ImportError):  # not on every platform
                import readline  # noqa: F401  (importing it gives input() history and editing)


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False
