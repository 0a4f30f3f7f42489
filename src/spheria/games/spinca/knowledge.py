"""What the generic searches know of Spinca: cheap playouts on the bare masks, random and guided.

The kit states them as :data:`KNOWLEDGE` (:class:`spheria.kernel.kit.Knowledge`): ``mcts`` rolls
out with :func:`spinca_playout`, and with :func:`spinca_guided_playout` under ``rollout=guided``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spheria.engine.board import ADJACENT, BELOW, TOUCHING
from spheria.games.spinca.rules import (
    FACES,
    PLACEMENTS,
    SEAT_COLORS,
    Masks,
    SpincaState,
    temple_placeable,
    temple_returns,
)
from spheria.kernel.game import State
from spheria.kernel.kit import Knowledge


def spinca_playout(state: State[Any], rand: Callable[[], float]) -> list[float]:
    """Finish the temple by cheap random turns (:func:`spinca_random_fill`) and score it.

    Listing a Spinca turn's legal relocations costs about as much as the rest of an MCTS
    iteration together, so the playout does not list them: it works on the bare masks, and
    a search of the same length sees 4 to 7 times as many finished temples in mid-game.

    >>> import random, spheria
    >>> state = spheria.load_game("spinca", players=3).new_initial_state()
    >>> rewards = spinca_playout(state, random.Random(1).random)
    >>> sorted(rewards) in ([-1.0, -1.0, 1.0], [0.0, 0.0, 0.0])
    True
    """
    assert isinstance(state, SpincaState)
    players = state.game.num_players
    return temple_returns(spinca_random_fill(state.masks(), state.placed, players, rand), players)


#: How often a uniformly random legal turn relocates a marble (measured over random 2- and
#: 3-player games: 76 %).
RANDOM_TURN_RELOCATES = 0.76


def spinca_guided_playout(state: State[Any], rand: Callable[[], float]) -> list[float]:
    """Finish the temple by cheap turns that build connected face groups, and score it.

    Like :func:`spinca_playout`, but every seat places as a player who wants a large smallest
    group on every face (the score): see :func:`spinca_random_fill` with ``guided``.

    >>> import random, spheria
    >>> state = spheria.load_game("spinca", players=2).new_initial_state()
    >>> sorted(spinca_guided_playout(state, random.Random(1).random)) in ([-1.0, 1.0], [0.0, 0.0])
    True
    """
    assert isinstance(state, SpincaState)
    players = state.game.num_players
    return temple_returns(spinca_random_fill(state.masks(), state.placed, players, rand, guided=True), players)


#: How often a guided playout's placement follows its goal (the rest are random, so the
#: playouts still sample the whole game); measured in ``docs/agents.md`` (Spinca's top).
GUIDED_SHARE = 0.85
#: The sites on some face: where a placement counts for the score.
ON_FACE = FACES[0] | FACES[1] | FACES[2] | FACES[3]


def spinca_random_fill(
    masks: Masks, placed: int, players: int, rand: Callable[[], float], guided: bool = False
) -> Masks:
    """The temple completed from ``masks`` (after ``placed`` turns) by cheap random turns.

    Like a random player, a turn first relocates a marble as often as a uniformly random legal
    turn does (:data:`RANDOM_TURN_RELOCATES`), then places on a random free site. To stay cheap
    it moves only marbles that hold nothing up (so nothing tumbles) and ignores locks.

    ``guided``: the placement (in :data:`GUIDED_SHARE` of turns) goes on a face site touching
    the mover's own colour — it joins or grows a face group instead of starting a lone marble,
    which would be the colour's smallest group — or, if there is none, on any site touching
    its colour, else at random.
    """
    colors = SEAT_COLORS[players]
    filled = list(masks)
    occupied = masks[0] | masks[1] | masks[2]
    for turn in range(placed, PLACEMENTS):
        if occupied and rand() < RANDOM_TURN_RELOCATES:
            source = _random_bit(occupied & ~_holding(occupied), rand)
            target = _random_bit(ADJACENT[source.bit_length() - 1] & temple_placeable(occupied ^ source), rand)
            if target:
                color = 0 if filled[0] & source else 1 if filled[1] & source else 2
                filled[color] ^= source | target
                occupied ^= source | target
        free = temple_placeable(occupied)
        color = colors[turn % players]
        if guided and filled[color] and rand() < GUIDED_SHARE:
            near = free & touching_sites(filled[color])
            free = (near & ON_FACE) or near or free
        site = _random_bit(free, rand)
        filled[color] |= site
        occupied |= site
    return (filled[0], filled[1], filled[2])


def touching_sites(mask: int) -> int:
    """The sites that touch some marble of ``mask`` (:data:`~spheria.engine.board.TOUCHING`)."""
    near = 0
    while mask:
        low = mask & -mask
        near |= TOUCHING[low.bit_length() - 1]
        mask ^= low
    return near


def _random_bit(mask: int, rand: Callable[[], float]) -> int:
    """One set bit of ``mask`` chosen uniformly (0 for an empty mask)."""
    for _ in range(int(rand() * mask.bit_count())):
        mask &= mask - 1
    return mask & -mask


def _holding(occupied: int) -> int:
    """The marbles that hold up another one."""
    held = 0
    upper = occupied >> 16
    while upper:
        low = upper & -upper
        held |= BELOW[low.bit_length() + 15]
        upper ^= low
    return held


#: What Spinca tells the generic searches: no evaluation (the fallbacks), its own playouts.
KNOWLEDGE = Knowledge(playout=spinca_playout, guided_playout=spinca_guided_playout)
