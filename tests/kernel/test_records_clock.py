"""Records of timed games (version 2): the time control, each move's clock, a loss on time; and
version-1 records still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.kernel.clock import Clocks, SeatClock, TimeControl, running_seats, time_reason
from spheria.kernel.record import VERSION, Record, RecordError

#: A version-1 record as Spheria wrote it before clocks (a Spline game of two moves, unfinished).
VERSION_1 = """{
  "format": "spheria-record",
  "version": 1,
  "game": "spline",
  "options": {},
  "seed": null,
  "start": "START",
  "players": ["human", "random"],
  "moves": ["0a1", "0b1"],
  "result": null,
  "created": "2025-01-31T12:00:00Z",
  "resigned": null,
  "from_position": false
}
"""


def timed_game(
    game: str = "spline", control: str = "1+2", moves: int = 6, **options: Any
) -> tuple[Any, Clocks, list[list[SeatClock]]]:
    """A game played ``moves`` turns on the clock: each chooser thinks 1.5 s a seat number more."""
    state = spheria.load_game(game, **options).new_initial_state(seed=3)
    clocks = Clocks(TimeControl.parse(control), state.game.num_players)
    kept: list[list[SeatClock]] = []
    now = 0
    for _turn in range(moves):
        seats = running_seats(state)
        clocks.start(seats, now)
        now += 1_000
        kept.append([clocks.stop(seat, now + 500 * seat) for seat in seats])
        if len(seats) > 1:
            state.apply_joint([state.legal_moves(seat)[0] for seat in seats])
        else:
            state.apply(state.legal_moves()[0])
    return state, clocks, kept


def test_a_timed_record_keeps_the_control_and_every_move_s_clock(tmp_path: Path) -> None:
    state, clocks, kept = timed_game()
    record = Record.from_state(state, ["human", "random"], clock=TimeControl.parse("1+2"), clocks=kept)
    data = json.loads(record.save(tmp_path / "timed.spheria.json").read_text())
    assert data["version"] == VERSION == 2
    assert data["clock"] == {"base": 60, "increment": 2}
    assert data["clocks"][:2] == [[[0, 1000, 61000]], [[1, 1500, 60500]]]
    assert len(data["clocks"]) == len(data["moves"]) == 6
    again = Record.load(tmp_path / "timed.spheria.json")
    assert again.clock == TimeControl.parse("1+2") and again.clocks == kept
    assert again.replay().to_spn() == state.to_spn()
    assert Clocks.resumed(again.clock, 2, again.clocks).left == clocks.left  # to the millisecond


def test_a_joint_move_keeps_each_choosing_seat_s_clock() -> None:
    state, _clocks, kept = timed_game("spagyric", moves=3)
    assert len(kept[0]) == 2  # both chose in secret, both on the clock
    record = Record.loads(
        Record.from_state(state, ["human", "random"], clock=TimeControl.parse("1+2"), clocks=kept).dumps()
    )
    assert record.clocks is not None and record.clocks[0] == [SeatClock(0, 1000, 61000), SeatClock(1, 1500, 60500)]
    assert record.replay().to_spn() == state.to_spn()


def test_a_game_lost_on_time_is_recorded_as_such() -> None:
    state, clocks, kept = timed_game(control="3s+0", moves=2)
    clocks.start(running_seats(state), 10_000)
    assert clocks.expire(20_000) == 0
    record = Record.from_state(state, ["human", "random"], clock=TimeControl.parse("3s+0"), clocks=kept, lost_on_time=0)
    assert record.finished and record.result is None
    data = record.to_json()
    assert data["lost_on_time"] == 0 and data["result"] is None
    assert Record.from_json(data).lost_on_time == 0
    assert time_reason(0).to_json() == {"code": "time", "seat": 0}
    with pytest.raises(RecordError, match="seat 1's clock was not running"):
        Record.from_json({**data, "lost_on_time": 1}).replay()


def test_an_old_version_1_record_still_reads() -> None:
    start = spheria.load_game("spline").new_initial_state().to_spn()
    record = Record.loads(VERSION_1.replace("START", start))
    assert record.clock == TimeControl() and record.clocks is None and record.lost_on_time is None
    assert record.replay().history_notation() == ["0a1", "0b1"]
    assert json.loads(record.dumps())["version"] == 2  # written back in the new version
    # a version-1 reader knew no clocks: fields of that name in an old file are not read
    ignored = json.loads(VERSION_1.replace("START", start)) | {"clock": {"days": 3}, "clocks": "x"}
    assert Record.from_json(ignored).clock == TimeControl()


def bad(**changes: Any) -> RecordError:
    state, _clocks, kept = timed_game()
    data = Record.from_state(state, ["human", "random"], clock=TimeControl.parse("1+2"), clocks=kept).to_json()
    data.update(changes)
    with pytest.raises(RecordError) as caught:
        Record.from_json(data).replay()
    return caught.value


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"clock": {"base": 60, "increment": 99}}, "'clock': a real-time game's increment is 0 to 60 seconds, not 99"),
        ({"clock": "1+2"}, "'clock': a time control is null"),
        ({"clocks": None}, "a timed game has one 'clocks' entry a move: 6 moves, none entries"),
        ({"clocks": "fast"}, "'clocks' must be a list with each move's clocks, or null"),
        ({"clock": None}, "an untimed game ('clock' null) has no 'clocks'"),
        ({"lost_on_time": 2}, "'lost_on_time' must be the seat (0 to 1) that ran out of time, not 2"),
        ({"lost_on_time": 0, "resigned": 0}, "'resigned' or 'lost_on_time', not both"),
        ({"lost_on_time": 0, "result": [1.0, -1.0]}, "a game lost on time has no 'result'"),
    ],
)
def test_a_bad_clock_field_is_refused_naming_the_problem(changes: dict[str, Any], problem: str) -> None:
    assert problem in str(bad(**changes))


def test_clocks_that_do_not_add_up_are_refused() -> None:
    state, _clocks, kept = timed_game()
    data = Record.from_state(state, ["human", "random"], clock=TimeControl.parse("1+2"), clocks=kept).to_json()
    timed = json.loads(json.dumps(data))
    data["clocks"][2] = [[0, 1000, 70000]]  # a seat cannot give itself time
    with pytest.raises(
        RecordError, match="move 3: seat 0 had 61000 ms and used 1000 ms, so it has 62000 ms left, not 70000"
    ):
        Record.from_json(data)
    timed["clocks"][4:] = [[[1, 1000, 62000]], [[0, 1500, 62500]]]  # the last two moves' seats swapped
    with pytest.raises(RecordError, match=r"move 5: 'clocks' time seats \[1\] but seats \[0\] moved"):
        Record.from_json(timed).replay()
    data["clocks"][2] = [[0, 61000, 2000]]  # all it had: it ran out, it could not have moved
    with pytest.raises(RecordError, match="move 3: seat 0 had 61000 ms and used 61000 ms"):
        Record.from_json(data)
    data["clocks"] = data["clocks"][:5]
    with pytest.raises(RecordError, match="6 moves, 5 entries"):
        Record.from_json(data)
    data["clocks"] = [[[0, 1, 2, 3]]] * 6
    with pytest.raises(RecordError, match="move 1: 'clocks': a seat's clock is"):
        Record.from_json(data)


def test_a_version_2_record_without_its_clock_fields_is_refused() -> None:
    state, _clocks, _kept = timed_game()
    data = Record.from_state(state, ["human", "random"]).to_json()
    del data["clocks"]
    with pytest.raises(RecordError, match="record has no 'clocks' field"):
        Record.from_json(data)


def test_from_state_refuses_clocks_that_do_not_fit_the_game() -> None:
    state, _clocks, kept = timed_game()
    with pytest.raises(RecordError, match="6 moves, 5 entries"):
        Record.from_state(state, ["human", "random"], clock=TimeControl.parse("1+2"), clocks=kept[:5])
    with pytest.raises(RecordError, match="an untimed game"):
        Record.from_state(state, ["human", "random"], clocks=kept)
