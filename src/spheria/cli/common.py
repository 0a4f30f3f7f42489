"""What the ``spheria`` subcommands share: one-line errors and reading games and players."""

from __future__ import annotations

import argparse
import unicodedata
from collections.abc import Sequence
from typing import Any

from spheria.cli import messages as msg
from spheria.i18n import gettext as _
from spheria.kernel.game import Game
from spheria.kernel.options import options_from_pairs
from spheria.kernel.registry import game_class, load_game

HUMAN = "human"
PROG = "spheria"


class CliError(Exception):
    """A problem to report in one line before exiting with status 1."""


# Bidirectional overrides and isolates reorder what follows them on screen.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: object) -> str:
    r"""``text`` made safe to print: control characters written as escapes such as ``\x1b``.

    Everything the command line prints that came from outside (a record, an agent spec, a
    file name, what was typed, an error message quoting any of these) goes through this, so
    a record cannot move the cursor, clear the screen, retitle the window or ring the bell.

    >>> print(printable("random:seed=\x1b]0;pwned\x07\r"))
    random:seed=\x1b]0;pwned\x07\r
    >>> printable("White (you) é")
    'White (you) é'
    """
    return "".join(_escape_char(char) for char in str(text))


def _escape_char(char: str) -> str:
    if char in _BIDI_CONTROLS or unicodedata.category(char) == "Cc":
        return repr(char)[1:-1]  # '\x1b', '\r', '\u202e'
    return char


# -- choosing the game and the players -------------------------------------------------------


def game_key(name: str) -> str:
    """Accept a game's title and its name written with ``_`` or ``-`` alike (``Some Game``, ``some-game``)."""
    return "-".join(name.strip().lower().replace("_", " ").split())


def make_game(name: str, pairs: Sequence[str] = (), seat_count: int | None = None) -> Game:
    """The game from the command line's name and ``--option`` pairs.

    A game whose seat count is an option (``players``) takes it from ``--players`` when
    ``--option players=N`` is not given, so ``--players human,random,random`` means three seats.
    """
    options: dict[str, Any] = {}
    for pair in pairs:
        try:
            ((option, value),) = options_from_pairs([pair]).items()
        except ValueError as error:
            raise CliError(_(msg.OPTION_ERROR).format(error=error)) from None
        if option in options:  # the last would win unseen
            raise CliError(_(msg.OPTION_TWICE).format(option=option, first=options[option], second=value))
        options[option] = value
    key = game_key(name)
    try:
        specs = game_class(key).option_specs
    except ValueError as error:
        raise CliError(str(error)) from None
    if seat_count is not None and "players" not in options and any(o.name == "players" for o in specs):
        options["players"] = seat_count
    try:
        return load_game(key, **options)
    except ValueError as error:
        message = str(error)
        raise CliError(
            message if message.startswith(key) else _(msg.GAME_ERROR).format(game=key, error=message)
        ) from None


def split_players(text: str) -> list[str]:
    """Split ``--players`` on commas, keeping an agent's own ``key=value`` options together.

    >>> split_players("human,mcts:time=1,c=1.4")
    ['human', 'mcts:time=1,c=1.4']
    """
    specs: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if specs and "=" in piece and ":" not in piece and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--option``: how every subcommand that makes a game takes its options (one flag for any
    game's options, so generic commands name none of them)."""
    parser.add_argument("--option", metavar="K=V", action="append", help=_(msg.HELP_OPTION))


def add_color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-color", action="store_true", help=_(msg.HELP_NO_COLOR))
