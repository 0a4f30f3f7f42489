"""Whether a game changes ratings: the rated decision, made once the game has ended.

A game changes ratings only when all of these hold (:func:`unrated_reason` names the first that
fails; :func:`is_rated` says whether none does):

1. it was offered as a rated game (a casual game never is);
2. it finished with a result by the rules or by a resignation, a timeout or a forfeit the
   server decided (an aborted game has no result and is never rated);
3. every seat had moved (a choice at a simultaneous node counts as a move) before it ended, so
   that aborting or resigning at once, before the other side has played, cannot move ratings;
4. every seat is held by a rating holder: a registered person or a level agent (``level:N``,
   which holds a rating in each game like anyone; see :func:`agent_holder`). A guest or any
   other agent (``mcts:time=1``, say) makes the whole game unrated: guests hold no rating, and an
   agent's strength changes with its options;
5. a registered person plays: a game of level agents alone changes nothing, as their ratings
   say how they fare against people and their seeds already say how they stand among
   themselves;
6. two holders or more meet (a person holding every seat plays no one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from spheria.agents.levels import LEVEL_SPEC, level_spec
from spheria.agents.registry import parse_spec


class Holder(Enum):
    """Who holds a seat, as far as ratings go."""

    PERSON = "person"  # a registered player: holds ratings
    LEVEL = "level"  # a level agent: holds ratings
    GUEST = "guest"  # a player without an account: holds none
    AGENT = "agent"  # any other agent: holds none


class Unrated(Enum):
    """Why a game changes no rating (a code for the server to word; see the module)."""

    CASUAL = "casual"
    ABORTED = "aborted"
    NOT_EVERY_SEAT_MOVED = "not-every-seat-moved"
    UNRATED_PLAYER = "unrated-player"
    NO_PERSON = "no-person"
    ONE_PLAYER = "one-player"


@dataclass(frozen=True)
class SeatHolder:
    """One seat of an ended game: who held it (``name``: an account, or a level's ``level:N``),
    what kind of holder that is, and how many moves the seat made. Names are one namespace, the
    one ratings are stored under: ``level:N`` is the level's, which no account may take."""

    name: str
    holder: Holder
    moves: int


def unrated_reason(seats: Sequence[SeatHolder], *, rated: bool, finished: bool) -> Unrated | None:
    """Why the ended game with ``seats`` changes no rating, or ``None`` when it changes them.

    ``rated``: the game was offered as rated; ``finished``: it ended with a result (not aborted).
    """
    if not rated:
        return Unrated.CASUAL
    if not finished:
        return Unrated.ABORTED
    if any(seat.moves < 1 for seat in seats):
        return Unrated.NOT_EVERY_SEAT_MOVED
    if any(seat.holder not in (Holder.PERSON, Holder.LEVEL) for seat in seats):
        return Unrated.UNRATED_PLAYER
    if all(seat.holder is not Holder.PERSON for seat in seats):
        return Unrated.NO_PERSON
    if len({seat.name for seat in seats}) < 2:
        return Unrated.ONE_PLAYER
    return None


def is_rated(seats: Sequence[SeatHolder], *, rated: bool, finished: bool) -> bool:
    """Whether the ended game changes ratings (:func:`unrated_reason` finds no reason it does not)."""
    return unrated_reason(seats, rated=rated, finished=finished) is None


def agent_holder(spec: str) -> tuple[str, Holder]:
    """Who holds the seat an agent plays: a level (``level:3``, whatever its seed or clock) holds
    the rating ``level:3``; any other agent holds none (its spec names it).

    >>> agent_holder("level:3,seed=7")
    ('level:3', <Holder.LEVEL: 'level'>)
    >>> agent_holder("mcts:time=1")
    ('mcts:time=1', <Holder.AGENT: 'agent'>)
    """
    name, params = parse_spec(spec)
    if name == LEVEL_SPEC:
        return level_spec(params.get("level")), Holder.LEVEL
    return spec, Holder.AGENT
