"""Whether an ended game changes ratings (spheria.ratings.rated)."""

from __future__ import annotations

import pytest

from spheria.ratings.rated import Holder, SeatHolder, Unrated, agent_holder, is_rated, unrated_reason

ANN = SeatHolder("ann", Holder.PERSON, 12)
BO = SeatHolder("bo", Holder.PERSON, 11)
LEVEL = SeatHolder("level:3", Holder.LEVEL, 11)


def test_a_finished_rated_game_between_two_people_is_rated() -> None:
    assert unrated_reason([ANN, BO], rated=True, finished=True) is None
    assert is_rated([ANN, BO], rated=True, finished=True)


def test_a_casual_game_is_never_rated() -> None:
    assert unrated_reason([ANN, BO], rated=False, finished=True) is Unrated.CASUAL


def test_an_aborted_game_is_never_rated() -> None:
    assert unrated_reason([ANN, BO], rated=True, finished=False) is Unrated.ABORTED


@pytest.mark.parametrize("moves", [(0, 0), (1, 0), (0, 1)])
def test_no_rating_changes_before_every_seat_has_moved(moves: tuple[int, int]) -> None:
    """Resigning (or losing on time) at once, before the other side has played, moves no rating."""
    seats = [SeatHolder("ann", Holder.PERSON, moves[0]), SeatHolder("bo", Holder.PERSON, moves[1])]
    assert unrated_reason(seats, rated=True, finished=True) is Unrated.NOT_EVERY_SEAT_MOVED
    assert not is_rated(seats, rated=True, finished=True)


def test_after_one_move_each_a_resignation_is_rated() -> None:
    seats = [SeatHolder("ann", Holder.PERSON, 1), SeatHolder("bo", Holder.PERSON, 1)]
    assert is_rated(seats, rated=True, finished=True)


def test_a_three_seat_game_needs_every_seat_to_have_moved() -> None:
    idle = SeatHolder("cy", Holder.PERSON, 0)
    assert unrated_reason([ANN, BO, idle], rated=True, finished=True) is Unrated.NOT_EVERY_SEAT_MOVED


def test_level_agents_hold_ratings_against_people() -> None:
    assert is_rated([ANN, LEVEL], rated=True, finished=True)
    assert is_rated([LEVEL, ANN, SeatHolder("level:5", Holder.LEVEL, 10)], rated=True, finished=True)


@pytest.mark.parametrize(
    "other", [SeatHolder("guest-17", Holder.GUEST, 11), SeatHolder("mcts:time=1", Holder.AGENT, 11)]
)
def test_a_guest_or_another_agent_makes_the_game_unrated(other: SeatHolder) -> None:
    assert unrated_reason([ANN, other], rated=True, finished=True) is Unrated.UNRATED_PLAYER
    assert unrated_reason([ANN, BO, other], rated=True, finished=True) is Unrated.UNRATED_PLAYER


def test_levels_alone_are_not_rated() -> None:
    seats = [LEVEL, SeatHolder("level:4", Holder.LEVEL, 11)]
    assert unrated_reason(seats, rated=True, finished=True) is Unrated.NO_PERSON


def test_a_person_holding_every_seat_plays_no_one() -> None:
    assert unrated_reason([ANN, SeatHolder("ann", Holder.PERSON, 3)], rated=True, finished=True) is Unrated.ONE_PLAYER


def test_the_holder_of_an_agents_seat() -> None:
    assert agent_holder("level:3") == ("level:3", Holder.LEVEL)
    assert agent_holder("level:level=2,seed=7,clock=wall") == ("level:2", Holder.LEVEL)
    assert agent_holder("mcts:time=1") == ("mcts:time=1", Holder.AGENT)
    with pytest.raises(ValueError, match="level"):
        agent_holder("level:9")
