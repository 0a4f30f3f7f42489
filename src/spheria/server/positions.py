"""Positions set up by hand: what the position editor and "play from here" need, from the rules.

The browser knows no rules; every fact about a position here comes from the game itself:

* :func:`check_position` reads SPN with the game's own ``state_from_spn``, whose ``ValueError``
  names what makes the position impossible (a floating ball, wrong counts, a ball out of place …), and
  answers the normalized SPN (``state.to_spn()``) with the board to draw;
* :func:`random_position` plays random legal moves from the game's start (a random full one is
  the position with the most balls on a random playout);
* :func:`transform_position` applies one of the pyramid's 8 symmetries (``SYMMETRIES``) to the
  board and to every field after it that lists sites (locked balls);
* :func:`field_choices` lists, for each SPN field after the board, the values seen in the game's
  own positions (its start and a few seeded random games): the editor's choices for the side to
  move and the phase. A field with many values (counts, locked sites) is typed instead.

Every position must be a live one to start a game from (:func:`start_state`). Every game's SPN is
its whole state (a hidden-information game's carries every seat's hidden balls), so nothing
hidden is left unset; but in a game with hidden information whoever sets the position up knows
every seat's secret, so such a start is only for a game with one person and agents.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from spheria.engine.board import SITE_NAMES, SYMMETRIES, Board, parse_site
from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS, Game, State
from spheria.server import messages as M
from spheria.server.views import board_of, status_code

#: The longest SPN accepted (the longest real one is under 80 characters).
MAX_SPN = 200
#: Most plies of a random playout: a bound on the work, far above the length of a real game.
MAX_PLAYOUT = 400
#: Seeded random games played to find the values of each SPN field.
SAMPLE_GAMES = 6
#: A field with more values than this is typed, not chosen from a list.
MAX_CHOICES = 9


#: Why a position is refused, as a code the page words (its message is the rules' detail, in the
#: request's language):
#: the text is not SPN at all, the board cannot stand (unreadable, or a ball floats), or the game's
#: rules refuse the rest (counts of balls, who is to move, the phase, the fields after the board).
SPN_TEXT, BOARD, RULES = "spn", "board", "rules"


class PositionError(ValueError):
    """A position that cannot be used; the message names the problem, ``code`` its kind."""

    def __init__(self, message: str, code: str = RULES) -> None:
        super().__init__(message)
        self.code = code


def checked_spn(spn: object) -> str:
    """``spn`` as printable text of at most :data:`MAX_SPN` characters, or :class:`PositionError`."""
    if not isinstance(spn, str):
        raise PositionError(_(M.POSITION_NOT_TEXT), SPN_TEXT)
    if len(spn) > MAX_SPN:
        raise PositionError(_(M.POSITION_TOO_LONG).format(length=len(spn), most=MAX_SPN), SPN_TEXT)
    if any(not ch.isprintable() and ch != " " for ch in spn) or not spn.isascii():
        raise PositionError(_(M.POSITION_NOT_ASCII), SPN_TEXT)
    return " ".join(spn.split())


def read_position(game: Game, spn: object) -> State[Any]:
    """The state ``spn`` names, read by the game's rules; :class:`PositionError` naming the problem."""
    text = checked_spn(spn)
    try:
        return game.state_from_spn(text)
    except (ValueError, TypeError) as error:
        raise PositionError(str(error), _fault_of(text, error)) from None


def _fault_of(text: str, error: Exception) -> str:
    """:data:`BOARD` when the rules refused ``text`` for its board (the board's own refusal, in the
    order the rules check), else :data:`RULES`."""
    try:
        Board.from_spn(text.split(" ")[0])
    except ValueError as board_error:
        return BOARD if str(board_error) == str(error) else RULES
    return RULES


def describe_position(state: State[Any]) -> dict[str, Any]:
    """What the editor shows of a valid position: its SPN, the board, who moves, whether it is over;
    ``code`` is the state of play as the game page gets it (the page words it; ``status`` is the
    rules' English lines)."""
    observation: Mapping[str, Any] = state.public_observation()
    locked = observation.get("locked")
    to_move = state.current_player()
    names = state.game.player_names()
    return {
        "ok": True,
        "spn": state.to_spn(),
        "board": board_of(observation),
        "locked": list(locked) if isinstance(locked, list) else [],
        "fields": state.to_spn().split()[1:],
        "to_move": to_move if to_move >= 0 else None,
        "to_move_name": names[to_move] if to_move >= 0 else None,
        "simultaneous": to_move == SIMULTANEOUS,
        "terminal": state.is_terminal(),
        "status": state.status_lines() if not state.is_terminal() else [],
        "code": status_code(state, None, {}),
        "legal_moves": 0 if state.is_terminal() or to_move == SIMULTANEOUS else len(state.legal_moves()),
    }


def check_position(game: Game, spn: object) -> dict[str, Any]:
    """:func:`describe_position` of ``spn``, or ``{"ok": False, "code", "reason"}`` for an impossible
    one (``code`` one of :data:`SPN_TEXT`, :data:`BOARD`, :data:`RULES`, the same in every language;
    ``reason`` the rules' detail in the current language)."""
    try:
        return describe_position(read_position(game, spn))
    except PositionError as error:
        return {"ok": False, "code": error.code, "reason": str(error)}


def start_state(game: Game, spn: object, humans: int) -> State[Any]:
    """The state to start a game from: a valid position that is not over; in a game with hidden
    information only for one person against agents (the one who set it up knows every secret)."""
    state = read_position(game, spn)
    if state.is_terminal():
        raise PositionError(_(M.POSITION_OVER))
    if not game.perfect_information and humans > 1:
        raise PositionError(_(M.POSITION_HIDDEN).format(title=_(game.title)))
    return state


def _playout(game: Game, rng: random.Random) -> list[State[Any]]:
    """The positions of one random game from the start, the start included (bounded)."""
    state = game.new_initial_state(rng.randrange(2**31))
    seen = [state.clone()]
    for _ply in range(MAX_PLAYOUT):
        if state.is_terminal():
            break
        to_move = state.current_player()
        if to_move == SIMULTANEOUS:
            choices = [state.legal_moves(seat) for seat in range(game.num_players)]
            state.apply_joint([rng.choice(moves) if moves else None for moves in choices])
        else:
            state.apply(rng.choice(state.legal_moves()))
        seen.append(state.clone())
    return seen


def _balls(state: State[Any]) -> int:
    return sum(ch != "." and ch != "/" for ch in board_of(state.public_observation()))


def random_position(game: Game, seed: int | None, full: bool) -> State[Any]:
    """A position reached by random legal play, not over: one at random, or (``full``) the first
    with the most balls."""
    rng = random.Random(seed)
    live = [s for s in _playout(game, rng) if not s.is_terminal()]
    if full:
        most = max(_balls(s) for s in live)
        return next(s for s in live if _balls(s) == most)
    return rng.choice(live)


def _site_list(field: str, symmetry: tuple[int, ...]) -> str | None:
    """A comma-separated list of site names with each site moved by ``symmetry``; None if not such a list."""
    try:
        sites = [parse_site(name) for name in field.split(",")]
    except ValueError:
        return None
    return ",".join(SITE_NAMES[symmetry[site]] for site in sites)


def transform_position(game: Game, spn: object, symmetry: object) -> str:
    """``spn`` moved by symmetry ``symmetry`` (0..7 of ``SYMMETRIES``); the board need not be valid
    for the game, only readable (the editor turns half-built positions too)."""
    if not isinstance(symmetry, int) or isinstance(symmetry, bool) or not 0 <= symmetry < len(SYMMETRIES):
        raise PositionError(_(M.SYMMETRY).format(last=len(SYMMETRIES) - 1))
    fields = checked_spn(spn).split(" ")
    try:
        board = Board.from_spn(fields[0])
    except ValueError as error:
        raise PositionError(str(error)) from None
    mapping = SYMMETRIES[symmetry]
    moved = Board()
    for site in range(len(SITE_NAMES)):
        color = board.color_at(site)
        if color is not None:
            moved.place(mapping[site], color)
    rest = [_site_list(field, mapping) or field for field in fields[1:]]
    return " ".join([moved.spn(), *rest])


@lru_cache(maxsize=64)
def _choices(name: str, options: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, ...] | None, ...]:
    from spheria.kernel.registry import load_game

    game = load_game(name, **dict(options))
    rng = random.Random(0)
    values: list[list[str]] = []
    for _game in range(SAMPLE_GAMES):
        for state in _playout(game, rng):
            for index, field in enumerate(state.to_spn().split()[1:]):
                while len(values) <= index:
                    values.append([])
                if field not in values[index]:
                    values[index].append(field)
    return tuple(tuple(sorted(v)) if len(v) <= MAX_CHOICES else None for v in values)


def field_choices(game: Game) -> list[list[str] | None]:
    """For each SPN field after the board: the values the game's positions take, or None (typed)."""
    choices = _choices(game.name, tuple(sorted(game.options.items())))
    return [None if c is None else list(c) for c in choices]
