"""Worlds a seat cannot tell apart: what information-set search samples (plain Python, no third-party import).

A seat's information state is what it has seen since the game's first position: its view of
that position and the public moves since. In Spagyric every reveal shows both colours and every
placement is public, so the only hidden facts are in the first position when it was given as
an SPN: the opponent's supply by colour and who lost which balls (the two bags). Every
consistent split is listed from the seat's own view and the board, and one is drawn from those
from which the public moves replay. A game started from its usual first position hides nothing,
so there the sample is the position itself. (A choice half made at a reveal, or a placement
whose idle seat has not yet played its wait, never lives in a Spheria state; OpenSpiel's
turn-based transform holds it, and :mod:`spheria.integrations.openspiel` samples it.)

>>> import random, spheria
>>> game = spheria.load_game("spagyric", supply=2)
>>> spn = "....r..b.......w/........./..../. reveal - 1,1,1 1,1,1 0,0,0 1,1,1 0,0,0"
>>> sorted(" ".join(o.split()[6:]) for o in consistent_origins(game.state_from_spn(spn), 0))  # the bags
['0,0,0 1,1,1', '1,1,1 0,0,0']
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from spheria.games.spagyric.rules import BEATS, SpagyricState
from spheria.kernel.game import Game, State
from spheria.kernel.record import replay


def _counts(values: Sequence[int]) -> str:
    return ",".join(str(n) for n in values)


def consistent_origins(state: State[Any], player: int) -> list[str]:
    """Every position (as SPN) that ``player`` cannot tell from ``state``: ``state`` itself in a
    game without hidden information, else every split of the hidden counts its view allows."""
    if not isinstance(state, SpagyricState) or state.phase not in ("reveal", "place", "over"):
        return [state.to_spn()]
    game = state.game
    supply = game.supply
    seen = state.observation(player)
    other = 1 - player
    on_board = [state.board.count(c) for c in range(3)]
    held = [[0, 0, 0], [0, 0, 0]]  # the won ball waiting to be placed
    if state.phase == "place" and state.placer is not None and state.placing is not None:
        held[state.placer][state.placing] = 1
    found = []
    # ``mine[c]``: how many of the c balls on the board ``player`` placed. Each ball placed (or
    # held) beat one ball of the colour it beats, which went into the other seat's bag.
    for mine in itertools.product(*(range(n + 1) for n in on_board)):
        bags = [[0, 0, 0], [0, 0, 0]]
        for c in range(3):
            bags[other][BEATS[c]] += mine[c] + held[player][c]
            bags[player][BEATS[c]] += on_board[c] - mine[c] + held[other][c]
        if any(
            state.supply[player][c] + state.stunned[c] + bags[player][c] + mine[c] + held[player][c] != supply
            for c in range(3)
        ):
            continue
        theirs = [
            supply - state.stunned[c] - bags[other][c] - (on_board[c] - mine[c]) - held[other][c] for c in range(3)
        ]
        if min(theirs) < 0:
            continue
        supplies = [list(state.supply[0]), list(state.supply[1])]
        supplies[other] = theirs
        fields = state.to_spn().split()
        fields[3:5] = [_counts(supplies[0]), _counts(supplies[1])]
        fields[6:8] = [_counts(bags[0]), _counts(bags[1])]
        spn = " ".join(fields)
        try:
            candidate = game.state_from_spn(spn)
        except ValueError:
            continue
        if candidate.observation(player) == seen:
            found.append(spn)
    return found or [state.to_spn()]  # a position no play reaches: nothing to hide it among


def sample_origin(game: Game, origin: str, history: Sequence[str], player: int, rng: random.Random) -> str:
    """A first position ``player`` cannot tell from ``origin`` from which ``history`` replays,
    drawn uniformly from those (the true one among them)."""
    candidates = consistent_origins(game.state_from_spn(origin), player)
    rng.shuffle(candidates)
    for candidate in candidates:
        try:
            replay(game, start=candidate, entries=history)
        except ValueError:  # a RecordError: the history does not replay from there
            continue
        return candidate
    return origin


__all__ = ["consistent_origins", "sample_origin"]
