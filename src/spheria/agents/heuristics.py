"""What the search agents know about each game: an evaluation, a cheap position key, a win test.

Agents look a game up by name with :func:`knowledge_for`; a game nobody registered gets the
generic fallback (evaluation 0, key ``to_spn()``, win test by trying every move), so every
agent plays every perfect-information game, only less well.

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

>>> import spheria
>>> state = spheria.load_game("spline").state_from_spn("www.bbb........./........./..../. 1")
>>> knowledge_for(state.game).can_win_now(state)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from spheria.agents.messages import message
from spheria.engine.board import ADJACENT, BELOW, SPAN_LINES, TOUCHING
from spheria.games.special_cake.rules import EAT, POISONED, CakeState, eating_outcomes
from spheria.games.spinca.rules import (
    FACES,
    PLACEMENTS,
    SEAT_COLORS,
    Masks,
    SpincaState,
    temple_placeable,
    temple_returns,
)
from spheria.games.spline.rules import LINE_MASKS, SplineState
from spheria.kernel.game import SIMULTANEOUS, TERMINAL, Game, PlayerView, State

Evaluate = Callable[[State[Any], int], float]
KeyFunction = Callable[[State[Any]], Hashable]
WinTest = Callable[[State[Any]], bool]
Playout = Callable[[State[Any], Callable[[], float]], list[float]]


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


@dataclass(frozen=True)
class GameKnowledge:
    evaluate: Evaluate = zero_evaluation
    key: KeyFunction = spn_key
    can_win_now: WinTest = try_every_move
    playout: Playout | None = None
    guided_playout: Playout | None = None


_KNOWLEDGE: dict[str, GameKnowledge] = {}


def register_knowledge(game_name: str, knowledge: GameKnowledge) -> None:
    _KNOWLEDGE[game_name] = knowledge


def knowledge_for(game: Game) -> GameKnowledge:
    """What the agents know about ``game``; the generic fallback for a game nobody registered."""
    return _KNOWLEDGE.get(game.name, GameKnowledge())


# -- Spline ------------------------------------------------------------------------------

_LINE_SIZES = tuple(zip(LINE_MASKS, (len(line) for line in SPAN_LINES), strict=True))
#: Weight of an open line (no enemy ball) by the number of balls it still misses.
_OPEN_LINE_WEIGHT = (0.0, 1.0, 0.3, 0.1, 0.03)
_SPLINE_SCALE = 3.0


def spline_line_potential(white: int, black: int) -> float:
    """White's open lines minus Black's, weighted by how close each is to complete."""
    score = 0.0
    for line, size in _LINE_SIZES:
        w = white & line
        b = black & line
        if not b:
            if w:
                score += _OPEN_LINE_WEIGHT[size - w.bit_count()]
        elif not w:
            score -= _OPEN_LINE_WEIGHT[size - b.bit_count()]
    return score


def _spline_threat(mine: int, free: int) -> bool:
    """Whether ``mine`` completes a line by filling one site of ``free``."""
    for line in LINE_MASKS:
        missing = line & ~mine
        if missing & free and not missing & (missing - 1):
            return True
    return False


def spline_evaluate(state: State[Any], seat: int) -> float:
    """Line potential for ``seat``; close to ±1 when the player to move can complete a line now.

    >>> import spheria
    >>> state = spheria.load_game("spline").state_from_spn("ww..b.........../........./..../. 2")
    >>> spline_evaluate(state, 0) > 0 > spline_evaluate(state, 1)
    True
    """
    assert isinstance(state, SplineState)
    white, black = state.masks()
    to_move = state.current_player()
    if to_move >= 0 and _spline_threat(white if to_move == 0 else black, state.placeable_mask()):
        return 0.95 if to_move == seat else -0.95
    value = math.tanh(spline_line_potential(white, black) / _SPLINE_SCALE) * 0.9
    return value if seat == 0 else -value


def spline_relative_evaluation(mine: int, theirs: int, free: int, my_threats: int, their_threats: int) -> float:
    """:func:`spline_evaluate` for the mover on bare masks, at a quiet horizon of ``alphabeta:engine=game``.

    The search calls it only where the mover cannot win at once and need not block (so no
    threat site is placeable); ``my_threats``/``their_threats`` are each side's threat sites.
    """
    return math.tanh(spline_line_potential(mine, theirs) / _SPLINE_SCALE) * 0.9


def spline_can_win_now(state: State[Any]) -> bool:
    assert isinstance(state, SplineState)
    white, black = state.masks()
    to_move = state.current_player()
    return to_move >= 0 and _spline_threat(white if to_move == 0 else black, state.placeable_mask())


def spline_key(state: State[Any]) -> Hashable:
    assert isinstance(state, SplineState)
    return state.key()


register_knowledge("spline", GameKnowledge(spline_evaluate, spline_key, spline_can_win_now))


# -- Special Cake ------------------------------------------------------------------------


def cake_evaluate(state: State[Any], seat: int) -> float:
    """Parity of the candies left, trusted more as the cake shrinks.

    If every turn ate one candy, the player to move with ``n`` candies left would eat the last
    one exactly when ``n`` is odd: bad in mint and sugar (eating the last candy loses), good in
    poisoned (there ``n`` counts the candies other than the cherry, and eating the last of
    them wins). Lines break the parity, so the signal is weak on a big cake. 0 while building.
    """
    assert isinstance(state, CakeState)
    if state.phase != EAT or state.is_terminal():
        return 0.0
    white, black, red = state.masks()
    poisoned = state.game.variant == POISONED
    n = (white | black).bit_count() if poisoned else (white | black | red).bit_count()
    good_for_mover = (n % 2 == 1) if poisoned else (n % 2 == 0)
    value = 0.5 * 6.0 / (6.0 + n)
    if not good_for_mover:
        value = -value
    return value if seat == state.player else -value


def cake_can_win_now(state: State[Any]) -> bool:
    """Only a poisoned cake can be won by one move: eat every candy but the cherry at once.

    In mint and sugar the move that ends the game eats the last candy, and loses.
    """
    assert isinstance(state, CakeState)
    if state.game.variant != POISONED or state.phase != EAT or state.is_terminal():
        return False
    outcomes = eating_outcomes(state.masks(), state.game.variant, state.game.line_rule)
    return any(not (white | black) for white, black, _ in outcomes)


def cake_key(state: State[Any]) -> Hashable:
    assert isinstance(state, CakeState)
    white, black, red = state.masks()
    return (white, black, red, state.player, state.phase)


register_knowledge("special-cake", GameKnowledge(cake_evaluate, cake_key, cake_can_win_now))


# -- Spinca ------------------------------------------------------------------------------


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


register_knowledge("spinca", GameKnowledge(playout=spinca_playout, guided_playout=spinca_guided_playout))
