"""What each client is shown: one seat's observation, or the public view for spectators.

Everything the server sends about a game goes through :func:`seat_frame` or
:func:`public_frame`, so this is the one place that decides what leaves the server:

* a seat gets ``state.observation(seat)``, its own legal moves as text, ``status_lines(seat)``
  and, at a simultaneous node, its own pending choice — never another seat's;
* a spectator gets ``state.public_observation()``: everything in a perfect-information game;
  in a hidden-information game the game's own public view, or by default only what is public
  by construction (the board, whose turn it is and the resolved moves), never a seat's
  observation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from spheria.games.base import SIMULTANEOUS, TERMINAL, State

SITE_RE = re.compile(r"[0-3][a-d][1-4]")


def board_of(observation: Mapping[str, Any]) -> str:
    """The board string (SPN's first field: ``w``/``b``/``r``/``.`` by site) of an observation."""
    board = observation.get("board")
    if isinstance(board, str):
        return board
    spn = observation.get("spn")
    if isinstance(spn, str) and spn.strip():
        return spn.split()[0]
    return "/".join("." * n * n for n in (4, 3, 2, 1))


def public_observation(state: State[Any]) -> Mapping[str, Any]:
    """What anyone may see: no seat's hidden data (the game's own :meth:`State.public_observation`)."""
    return state.public_observation()


def last_move(history: list[str]) -> str | None:
    return history[-1] if history else None


def move_sites(text: str | None) -> list[str]:
    """The site names in a move's text, in order."""
    return SITE_RE.findall(text or "")


def choosers(state: State[Any]) -> list[int]:
    """The seats that must choose at a simultaneous node (seats with a legal move there)."""
    if state.current_player() != SIMULTANEOUS:
        return []
    return [seat for seat in range(state.game.num_players) if state.legal_moves(seat)]


def result_of(state: State[Any]) -> dict[str, Any] | None:
    """The result of a finished game, as stored and shown."""
    if not state.is_terminal():
        return None
    names = state.game.player_names()
    winners = state.winners()
    lines = state.status_lines(None)
    text = lines[0] if lines else ("Draw." if not winners else f"{' and '.join(names[w] for w in winners)} won.")
    return {"returns": state.returns(), "winners": winners, "text": text}


def _common(state: State[Any], pending: dict[int, str], version: int) -> dict[str, Any]:
    to_move = state.current_player()
    need = choosers(state)
    return {
        "type": "state",
        "version": version,
        "to_move": to_move,
        "simultaneous": to_move == SIMULTANEOUS,
        "terminal": to_move == TERMINAL,
        # Who has still to choose at a simultaneous node: whether a seat has chosen, never what.
        "waiting_for": [seat for seat in need if seat not in pending],
        "result": result_of(state),
    }


def seat_frame(state: State[Any], seat: int, pending: dict[int, str], version: int) -> dict[str, Any]:
    """The frame sent to the clients of ``seat``: only what that seat may know."""
    observation = state.observation(seat)
    frame = _common(state, pending, version)
    own_choice = pending.get(seat)
    moves = [] if own_choice is not None else [str(m) for m in state.legal_moves(seat)]
    history = observation.get("history")
    frame.update(
        seat=seat,
        observation=observation,
        board=board_of(observation),
        legal_moves=moves,
        status=state.status_lines(seat),
        hint=state.move_hint(seat) if moves else "",
        your_choice=own_choice,
        last_move=last_move(history) if isinstance(history, list) else None,
    )
    return frame


def public_frame(state: State[Any], pending: dict[int, str], version: int) -> dict[str, Any]:
    """The frame sent to spectators."""
    observation = public_observation(state)
    frame = _common(state, pending, version)
    history = observation.get("history")
    frame.update(
        seat=None,
        observation=observation,
        board=board_of(observation),
        legal_moves=[],
        status=state.status_lines(None),
        hint="",
        your_choice=None,
        last_move=last_move(history) if isinstance(history, list) else None,
    )
    return frame
