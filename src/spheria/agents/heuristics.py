"""What the generic searches know of a game, and what they fall back on where the game says nothing.

A game states its knowledge in its kit (:class:`spheria.kernel.kit.Knowledge`, asked as
``state.game.kit().knowledge``); a field it leaves ``None`` gets the fallback here (evaluation 0,
key ``to_spn()``, win test by trying every move, random playouts), so every agent plays every
perfect-information game, only less well.

* ``evaluate(state, seat)`` — how good a non-terminal ``state`` looks for ``seat``, in
  ``[-1, 1]`` (``+1`` a sure win). Used by ``greedy`` and at the horizon of ``alphabeta``.
* ``key(state)`` — a hashable that identifies the position (with whose turn it is), for
  transposition tables.
* ``can_win_now(state)`` — whether the player to move has a move that wins at once.
* ``playout(state, rand)`` — plays ``state`` (a scratch copy it may change) to the end by a
  cheap policy of the game's own and returns each seat's reward; ``None`` when uniformly
  random legal moves are the best cheap policy there is. ``mcts`` rolls out with it.
* ``guided_playout(state, rand)`` — the same with a policy that plays *towards a goal* (each
  seat models its opponents as players who pursue their own score, not at random); ``None``
  where the game has none (``mcts:rollout=guided`` then falls back to ``playout``).

A game whose kit gives no evaluation is judged by the fallback:

>>> from spheria.kernel.registry import game_classes
>>> game = next(cls for cls in game_classes() if cls.kit().knowledge.evaluate is None)()
>>> evaluation(game) is zero_evaluation
True
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from spheria.agents.messages import message
from spheria.kernel.game import SIMULTANEOUS, TERMINAL, Game, PlayerView, State
from spheria.kernel.kit import Evaluate, KeyFunction, WinTest


def require_state(view: PlayerView, player: int, agent: str) -> State[Any]:
    """The full state behind ``view``, checked: perfect information, ``player`` to move.

    Raises ``ValueError`` naming the problem (a hidden-information view, a simultaneous node,
    a finished game, or another seat to move).
    """
    if not isinstance(view, State) or not view.game.perfect_information:
        raise ValueError(message("needs_state", agent=agent))
    to_move = view.current_player()
    if to_move == SIMULTANEOUS:
        raise ValueError(f"{agent} cannot play a simultaneous move ({view.game.name}): use an agent made for them")
    if to_move == TERMINAL:
        raise ValueError("the game is over: there is no move to choose")
    if to_move != player:
        raise ValueError(f"seat {player} is not to move: seat {to_move} is")
    return view


def zero_evaluation(state: State[Any], seat: int) -> float:
    """The fallback evaluation: no opinion."""
    return 0.0


def spn_key(state: State[Any]) -> Hashable:
    """The fallback position key: the position notation."""
    return state.to_spn()


def try_every_move(state: State[Any]) -> bool:
    """The fallback win test: play each move on a copy and look."""
    player = state.current_player()
    work = state.clone()
    for move in state.legal_moves():
        work.apply(move)
        won = work.is_terminal() and work.returns()[player] > 0
        work.undo()
        if won:
            return True
    return False


def evaluation(game: Game) -> Evaluate:
    """``game``'s evaluation, or :func:`zero_evaluation`."""
    return game.kit().knowledge.evaluate or zero_evaluation


def position_key(game: Game) -> KeyFunction:
    """``game``'s position key, or :func:`spn_key`."""
    return game.kit().knowledge.key or spn_key


def win_test(game: Game) -> WinTest:
    """``game``'s test for a win in one move, or :func:`try_every_move`."""
    return game.kit().knowledge.can_win_now or try_every_move
