"""Play a game to the end with one agent per seat.

At a normal node the seat to move chooses from ``state.view(seat)`` and the move is applied.
At a ``SIMULTANEOUS`` node every seat chooses from its own view — which holds only what that
seat may know — and the choices are applied together with ``state.apply_joint``. Agents are
never handed the full state of a game with hidden information.

>>> import spheria
>>> from spheria.agents.random_agent import RandomAgent
>>> state = spheria.load_game(spheria.default_game_name()).new_initial_state(seed=1)
>>> returns = play(state, [RandomAgent(seed=1), RandomAgent(seed=2)])
>>> state.is_terminal(), sorted(returns)
(True, [-1.0, 1.0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spheria.kernel.agent import Agent
from spheria.kernel.game import SIMULTANEOUS, MoveError, State


@dataclass(frozen=True)
class Turn:
    """One turn that was played.

    ``number`` is the turn's 1-based place in the history, ``player`` the seat that moved
    (``SIMULTANEOUS`` for a joint move), ``moves`` the move (one) or the joint move (one per
    seat, in seat order), and ``entry`` the record entry the turn added.
    """

    number: int
    player: int
    moves: tuple[Any, ...]
    entry: str

    @property
    def simultaneous(self) -> bool:
        return self.player == SIMULTANEOUS


OnMove = Callable[[State[Any], Turn], None]


def _check_seats(state: State[Any], agents: Sequence[Agent]) -> None:
    seats = state.game.num_players
    if len(agents) != seats:
        raise ValueError(f"{state.game.name} needs {seats} agents, one per seat; got {len(agents)}")


def choose_moves(state: State[Any], agents: Sequence[Agent]) -> tuple[int, tuple[Any, ...]]:
    """Ask the agents for the next turn without playing it: ``(player, moves)``.

    ``player`` is the seat to move, or ``SIMULTANEOUS`` with one move per seat.
    """
    _check_seats(state, agents)
    player = state.current_player()
    if player == SIMULTANEOUS:
        return player, tuple(agents[p].choose(state.view(p), p) for p in range(len(agents)))
    if not 0 <= player < len(agents):
        raise ValueError(f"no seat is to move (current player {player}): the game is over")
    return player, (agents[player].choose(state.view(player), player),)


def apply_turn(state: State[Any], player: int, moves: Sequence[Any], agents: Sequence[Agent] = ()) -> Turn:
    """Play what :func:`choose_moves` returned; an illegal choice raises naming the agent."""
    try:
        if player == SIMULTANEOUS:
            state.apply_joint(list(moves))
        else:
            state.apply(moves[0])
    except MoveError as error:  # not a move (InvalidMoveError) or not legal here: the same kind, naming the agent
        if player == SIMULTANEOUS:
            who = ", ".join(f"seat {p} ({a}) chose {m}" for p, (a, m) in enumerate(zip(agents, moves, strict=False)))
        else:
            agent = agents[player] if player < len(agents) else "an agent"
            who = f"seat {player} ({agent}) chose {moves[0]}"
        raise type(error)(f"illegal move: {who or 'no agents'}: {error}") from None
    entries = state.history_notation()
    return Turn(len(entries), player, tuple(moves), entries[-1] if entries else "")


def step(state: State[Any], agents: Sequence[Agent]) -> Turn:
    """Play one turn (one move, or one joint move at a simultaneous node) and return it."""
    player, moves = choose_moves(state, agents)
    return apply_turn(state, player, moves, agents)


def check_agents(state: State[Any], agents: Sequence[Agent]) -> None:
    """Refuse, before any move, the wrong number of agents or an agent that cannot play the game."""
    _check_seats(state, agents)
    if not all(agent.fits(state.game) for agent in agents):
        from spheria.agents.registry import check_fit  # every agent's module: only to name the ones that fit

        check_fit(state.game, agents)


def play(state: State[Any], agents: Sequence[Agent], on_move: OnMove | None = None) -> list[float]:
    """Play ``state`` to the end in place; ``on_move(state, turn)`` is called after every turn.

    Returns ``state.returns()``. An agent that cannot play the game is refused before the
    first move (``ValueError`` naming the agents that fit, see :func:`check_agents`).
    """
    check_agents(state, agents)
    while not state.is_terminal():
        turn = step(state, agents)
        if on_move is not None:
            on_move(state, turn)
    return state.returns()
