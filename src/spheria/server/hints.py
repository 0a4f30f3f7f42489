"""Hints: the engine's best move for the one human seat of a game against agents.

A game is created with hints (``{"hints": true}`` in ``POST /api/games``) only when exactly one
seat is a human and every other seat an agent; two people playing each other never get one.
The human seat asks with ``{"type": "hint"}``; the server checks, in this order, that the
connection holds a seat (spectators: ``spectator``), that the game has hints (``hints_off``),
that it is not over (``game_over``), that the seat has a move to make (``not_your_turn``) and
that it is not already waiting for one (``hint_busy``). The hint is the game's top level agent
(``level:5``: a game's exact solver where its search reaches) run in the agent pool
with a deadline (``Limits.hint_time``), like an agent seat's move: the event loop and the other
games never wait for it. The agent is handed ``state.view(seat)``, so in a game of hidden
information a hint is worked out from the requesting seat's view only, and with a seed fixed by
the game and the ply, so twin positions that differ only in what the seat may not see get the same hint.

Each hint given is stored (``hints`` table) and counted per seat in the frames, the replay and
the record (docs/records.md, ``hints``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from spheria.i18n import gettext as _
from spheria.kernel.game import SIMULTANEOUS
from spheria.server import messages as M
from spheria.server.agents import AgentJob, AgentTimeout, agent_budget
from spheria.server.session import GameError, GameSession
from spheria.server.storage import AGENT, HUMAN
from spheria.server.views import choosers, clicks_of

#: The agent a hint comes from: each game's strongest level.
HINT_SPEC = "level:5"

#: Words for people, by error code (in the server's message table, translated when raised).
MESSAGES = {
    "hints_need_agents": M.HINTS_NEED_AGENTS,
    "hints_off": M.HINTS_OFF,
    "hint_not_your_turn": M.HINT_NOT_YOUR_TURN,
    "hint_busy": M.HINT_BUSY,
    "hint_timeout": M.HINT_TIMEOUT,
    "hint_failed": M.HINT_FAILED,
    "stale": M.HINT_STALE,
    "game_over": M.GAME_OVER,
}


def hints_fit(kinds: Sequence[Any]) -> bool:
    """Whether a game whose seats are of these kinds may have hints: one human, every other an agent."""
    humans = sum(1 for kind in kinds if kind == HUMAN)
    agents = sum(1 for kind in kinds if kind == AGENT)
    return humans == 1 and agents == len(kinds) - 1 and agents > 0


def check_hints_setting(value: Any, seats: Sequence[dict[str, Any]]) -> bool:
    """The ``hints`` field of a new game's request (absent: False); ``bad_hints`` for a misfit."""
    if value is None or value is False:
        return False
    if value is not True:
        raise GameError("bad_hints", "hints must be true or false")
    if not hints_fit([seat.get("kind") for seat in seats]):
        raise GameError("bad_hints", _(MESSAGES["hints_need_agents"]))
    return True


def _searched(on_progress: Callable[[int], None], report: dict[str, Any]) -> None:
    positions = report.get("positions")
    if isinstance(positions, int):
        on_progress(positions)


def _refuse(code: str) -> GameError:
    return GameError(code, _(MESSAGES[code]))


def check_hint_request(session: GameSession, seat: int) -> None:
    """Refuse (:class:`GameError`) a hint for ``seat`` now, unless the game has hints and the seat is to move."""
    if not session.stored.hints or not hints_fit([s.kind for s in session.stored.seats]):
        raise _refuse("hints_off")
    if session.is_over():
        raise _refuse("game_over")
    state = session.state
    to_move = state.current_player()
    movers = [s for s in choosers(state) if s not in session.pending] if to_move == SIMULTANEOUS else [to_move]
    if seat not in movers:
        raise GameError("not_your_turn", _(MESSAGES["hint_not_your_turn"]))
    if seat in session.hinting:
        raise _refuse("hint_busy")


async def give_hint(
    session: GameSession,
    seat: int,
    on_start: Callable[[float], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The engine's move for ``seat`` now, as a ``hint`` frame for that seat's client alone.

    ``on_start(seconds)`` is called once the job is queued, with its deadline (for progress), and
    ``on_progress(positions)`` while the engine searches, with the positions searched so far (in a
    game with perfect information, by an engine that counts them: an exact solver)."""
    check_hint_request(session, seat)
    record = session.record
    manager = session.manager
    version, ply = session.version, len(record.moves)
    seed = ((record.seed or 0) * 1_000_003 + ply) % 2**31
    spec = f"{HINT_SPEC},seed={seed}"
    seconds = min(manager.limits.hint_time, manager.limits.agent_max_time)
    moves = tuple(record.moves)
    job = AgentJob(session.id, record.game, dict(record.options), record.seed, moves, seat, spec, seconds, record.start)
    budget = agent_budget(spec, seconds)
    searching = None
    if on_progress is not None and session.game.perfect_information:
        searching = partial(_searched, on_progress)
    session.hinting.add(seat)
    try:
        if on_start is not None:
            on_start(budget)
        try:
            text = await manager.agents.run(job, budget, searching)
        except AgentTimeout:
            raise _refuse("hint_timeout") from None
        except (asyncio.CancelledError, GameError):
            raise
        except Exception:
            raise _refuse("hint_failed") from None
    finally:
        session.hinting.discard(seat)
    if session.version != version or session.is_over():
        raise _refuse("stale")
    await manager.db(manager.storage.add_hint, session.id, seat, ply, text)
    session.stored.hints_given.append((seat, ply))
    session.broadcast()  # everyone sees the count
    return {
        "type": "hint",
        "version": version,
        "move": text,
        "clicks": clicks_of(text),
        "used": session.hint_counts()[seat],
    }
