"""Time controls and clocks: parsing and limits, hand-worked clock sequences, and their invariants."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria.kernel.clock import (
    DAY,
    LAG_CREDIT_CAP,
    PRESETS,
    ClockError,
    Clocks,
    SeatClock,
    TimeControl,
    presets,
    running_seats,
    seat_clocks,
    time_loss,
    time_reason,
)
from spheria.kernel.kit import GameKit

# -- time controls --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "control", "json"),
    [
        ("untimed", TimeControl(), None),
        ("5+3", TimeControl(base=300, increment=3), {"base": 300, "increment": 3}),
        ("3+2", TimeControl(base=180, increment=2), {"base": 180, "increment": 2}),
        ("30s+0", TimeControl(base=30), {"base": 30, "increment": 0}),
        ("3s+0", TimeControl(base=3), {"base": 3, "increment": 0}),
        ("1d", TimeControl(days=1), {"days": 1}),
        ("7d", TimeControl(days=7), {"days": 7}),
    ],
)
def test_a_control_reads_and_writes_in_text_and_json(text: str, control: TimeControl, json: object) -> None:
    assert TimeControl.parse(text) == control
    assert str(control) == text
    assert control.to_json() == json
    assert TimeControl.from_json(json) == control


def test_the_written_form_is_forgiving_of_case_and_blanks() -> None:
    assert TimeControl.parse(" 10+5 ") == TimeControl.parse("10+5") == TimeControl(base=600, increment=5)
    assert TimeControl.parse("UNTIMED") == TimeControl.parse("Untimed")
    assert TimeControl.from_json({"base": 60}) == TimeControl(base=60)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("5", "'5' is not a time control"),
        ("5+", "'5+' is not a time control"),
        ("+3", "'+3' is not a time control"),
        ("-5+3", "'-5+3' is not a time control"),
        ("5+3+1", "'5+3+1' is not a time control"),
        ("2w", "'2w' is not a time control"),
        ("", "'' is not a time control"),
        ("0+3", "base is 1 to 10800 seconds, not 0"),
        ("181+0", "base is 1 to 10800 seconds, not 10860"),
        ("5+61", "increment is 0 to 60 seconds, not 61"),
        ("2d", "1, 3 or 7 days per move, not 2"),
        ("0d", "1, 3 or 7 days per move, not 0"),
    ],
)
def test_a_bad_written_control_is_refused_naming_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ClockError) as caught:
        TimeControl.parse(text)
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"base": 300, "increment": -1}, "increment is 0 to 60 seconds, not -1"),
        ({"base": 0, "increment": 5}, "base is 1 to 10800 seconds, not 0"),
        ({"base": 1.5, "increment": 0}, "base is a whole number, not 1.5"),
        ({"base": True}, "base is a whole number, not True"),
        ({"base": "300"}, "base is a whole number, not '300'"),
        ({"days": 10}, "1, 3 or 7 days per move, not 10"),
        ({"days": 3, "base": 60}, "a time control is null"),
        ({"minutes": 5}, "a time control is null"),
        ("5+3", "a time control is null"),
        ([300, 3], "a time control is null"),
    ],
)
def test_a_bad_json_control_is_refused_naming_the_problem(data: object, problem: str) -> None:
    with pytest.raises(ClockError) as caught:
        TimeControl.from_json(data)
    assert problem in str(caught.value)


def test_the_refusals_are_translated() -> None:
    with spheria.i18n.using("ko"), pytest.raises(ClockError) as caught:
        TimeControl.parse("5+99")
    assert "99" in str(caught.value) and "increment" not in str(caught.value)


def test_presets_come_from_the_kit_or_the_generic_list(monkeypatch: pytest.MonkeyPatch) -> None:
    spline = type(spheria.load_game("spline"))
    assert [str(control) for control in presets(spline)] == list(PRESETS)
    assert {"3+2", "5+3", "10+5", "1d", "3d", "7d", "untimed"} <= set(PRESETS)
    own = dataclasses.replace(spline.kit(), time_controls=("1+0", "2d"))
    monkeypatch.setattr(spline, "kit", classmethod(lambda cls: own))
    with pytest.raises(ClockError, match="not 2"):  # a kit's preset is checked like any control
        presets(spline)
    monkeypatch.setattr(spline, "kit", classmethod(lambda cls: GameKit(time_controls=("1+0", "3d"))))
    assert presets(spline) == (TimeControl(base=60), TimeControl(days=3))


# -- clocks, by hand ------------------------------------------------------------------------


def test_a_real_time_game_by_hand() -> None:
    clocks = Clocks(TimeControl.parse("1+2"), seats=2)
    assert clocks.remaining(0) == [60_000, 60_000]
    clocks.start([0], now=1_000)
    assert clocks.remaining(4_000) == [57_000, 60_000]
    assert clocks.stop(0, now=11_000) == SeatClock(0, used=10_000, left=52_000)  # 60 - 10 + 2
    clocks.start([1], now=11_000)
    assert clocks.stop(1, now=11_500) == SeatClock(1, used=500, left=61_500)  # the increment can grow it
    clocks.start([0], now=11_500)
    assert clocks.out_of_time(63_499) is None
    assert clocks.remaining(63_499) == [1, 61_500]
    assert clocks.deadline() == 63_500
    assert clocks.out_of_time(63_500) == 0  # exactly nothing left is out of time
    assert clocks.expire(63_000) is None and clocks.flagged is None  # not yet: nothing changes
    assert clocks.expire(64_000) == 0
    assert clocks.flagged == 0 and clocks.remaining(99_999) == [0, 61_500] and clocks.running == {}
    with pytest.raises(ClockError, match="seat 1 has run out of time"):
        clocks.stop(0, now=64_001)
    with pytest.raises(ClockError, match="seat 1 has run out of time"):
        clocks.start([1], now=64_001)


def test_the_increment_is_added_once_per_move() -> None:
    clocks = Clocks(TimeControl.parse("30s+5"), seats=2)
    for move in range(4):
        clocks.start([0], now=move * 1_000)
        clocks.start([0], now=move * 1_000 + 500)  # starting a running clock again changes nothing
        clocks.stop(0, now=move * 1_000 + 1_000)
    assert clocks.left == [30_000 - 4 * 1_000 + 4 * 5_000, 30_000]


def test_a_correspondence_game_gives_each_move_its_days() -> None:
    clocks = Clocks(TimeControl.parse("1d"), seats=2)
    clocks.start([0], now=0)
    assert clocks.stop(0, now=DAY - 1) == SeatClock(0, used=DAY - 1, left=DAY)  # whole again for the next
    clocks.start([1], now=DAY - 1)
    assert clocks.remaining(DAY) == [DAY, DAY - 1]
    assert clocks.expire(2 * DAY - 2) is None
    assert clocks.expire(2 * DAY - 1) == 1


def test_both_choosing_seats_run_during_a_secret_choice() -> None:
    state = spheria.load_game("spagyric").new_initial_state(seed=1)
    assert running_seats(state) == (0, 1)
    clocks = Clocks(TimeControl.parse("1+0"), seats=2)
    clocks.start(running_seats(state), now=0)
    assert clocks.remaining(20_000) == [40_000, 40_000]
    assert clocks.stop(1, now=20_000) == SeatClock(1, 20_000, 40_000)  # seat 1 has chosen: its clock stops
    assert clocks.remaining(50_000) == [10_000, 40_000]  # seat 0's runs on
    assert clocks.expire(60_000) == 0


def test_the_first_running_seat_out_of_time_has_lost() -> None:
    clocks = Clocks(TimeControl.parse("1+0"), seats=2)
    clocks.start([1, 0], now=0)
    assert clocks.expire(70_000) == 0  # both are out: the first in seat order


def test_each_seat_of_a_three_seat_game_has_its_clock() -> None:
    state = spheria.load_game("spinca", players=3).new_initial_state()
    clocks = Clocks(TimeControl.parse("1+0"), seats=state.game.num_players)
    now = 0
    for seat, think in enumerate([1_000, 2_000, 3_000]):
        assert running_seats(state) == (seat,)
        clocks.start(running_seats(state), now)
        now += think
        clocks.stop(seat, now)
        state.apply(state.legal_moves()[0])
    assert clocks.left == [59_000, 58_000, 57_000]
    assert running_seats(spheria.load_game("spline").state_from_spn(_finished_spline())) == ()


def _finished_spline() -> str:
    state = spheria.load_game("spline").new_initial_state()
    while not state.is_terminal():
        state.apply(state.legal_moves()[0])
    return state.to_spn()


def test_lag_credit_is_capped_and_never_more_than_the_move_took() -> None:
    clocks = Clocks(TimeControl.parse("1+0"), seats=1)
    clocks.start([0], now=0)
    assert clocks.stop(0, now=2_000, lag=300).used == 1_700
    clocks.start([0], now=2_000)
    assert clocks.stop(0, now=4_000, lag=10_000).used == 2_000 - LAG_CREDIT_CAP
    clocks.start([0], now=4_000)
    assert clocks.stop(0, now=4_100, lag=10_000).used == 0  # a 100 ms move is credited 100 ms at most
    clocks.start([0], now=4_100)
    assert clocks.stop(0, now=4_200, lag=-50).used == 100  # a negative round trip credits nothing


def test_clocks_refuse_being_driven_wrongly() -> None:
    with pytest.raises(ClockError, match="an untimed game has no clocks"):
        Clocks(TimeControl(), seats=2)
    clocks = Clocks(TimeControl.parse("5+3"), seats=2)
    with pytest.raises(ClockError, match="seat 0's clock is not running"):
        clocks.stop(0, now=5)
    with pytest.raises(ClockError, match="there is no seat 2"):
        clocks.start([2], now=5)
    clocks.start([0], now=10)
    with pytest.raises(ClockError, match="time went back"):
        clocks.stop(0, now=9)
    assert clocks.running == {0: 10}  # the refused stop changed nothing
    with pytest.raises(ClockError, match="seat 0 had 300000 ms and took 300000 ms: it ran out of time"):
        clocks.stop(0, now=300_010)
    assert clocks.running == {0: 10} and clocks.left == [300_000, 300_000]
    assert clocks.stop(0, now=300_010, lag=1).left == 3_001  # a little lag credit, and it was in time
    with pytest.raises(ClockError, match="2 seats need 2 clocks, not 3"):
        Clocks(TimeControl.parse("5+3"), seats=2, left=[1, 2, 3])


def test_clocks_resume_from_the_moves_to_the_millisecond() -> None:
    control = TimeControl.parse("5+3")
    clocks = Clocks(control, seats=2)
    moves = []
    for number, (seat, think) in enumerate([(0, 1_234), (1, 5_678), (0, 9_999)]):
        clocks.start([seat], now=number * 100_000)
        moves.append([clocks.stop(seat, now=number * 100_000 + think)])
    again = Clocks.resumed(control, 2, moves)
    assert again.left == clocks.left == [300_000 - 1_234 - 9_999 + 6_000, 300_000 - 5_678 + 3_000]
    assert seat_clocks([c.to_json() for c in moves[1]], 2) == moves[1]


@pytest.mark.parametrize("data", [[], "x", [[0, 1]], [[2, 0, 0]], [[0, -1, 5]], [[0, 1.5, 2]], [[True, 0, 0]], [None]])
def test_a_bad_move_clock_is_refused(data: object) -> None:
    with pytest.raises(ClockError, match="clock"):
        seat_clocks(data, 2)


def test_losing_on_time_loses_for_the_seat_s_side() -> None:
    two = spheria.load_game("spline").new_initial_state()
    assert time_loss(two, 1) == [1.0, -1.0]
    teams = spheria.load_game("spinca", players=4).new_initial_state()
    assert time_loss(teams, 2) == [-1.0, 1.0, -1.0, 1.0]  # seat 2 plays for seat 0's team
    assert time_reason(1).to_json() == {"code": "time", "seat": 1}


# -- clocks, by property --------------------------------------------------------------------

moves = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 400_000), st.integers(-100, 5_000)), min_size=1, max_size=40
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["1+0", "3+2", "30s+60", "1d"]), moves)
def test_time_left_only_grows_by_increment_or_lag_and_the_used_times_add_up(
    control_text: str, played: list[tuple[int, int, int]]
) -> None:
    control = TimeControl.parse(control_text)
    clocks = Clocks(control, seats=3)
    now = 0
    used = [0, 0, 0]
    for seat, think, lag in played:
        before = clocks.remaining(now)
        clocks.start([seat], now)
        if clocks.expire(now + think) is not None:
            assert clocks.remaining(now + think)[seat] == 0
            break
        for later in (now + think // 2, now + think):  # a running clock never grows; the others stand still
            during = clocks.remaining(later)
            assert during[seat] <= before[seat]
            assert [t for s, t in enumerate(during) if s != seat] == [t for s, t in enumerate(before) if s != seat]
        move = clocks.stop(seat, now + think, lag)
        now += think
        used[seat] += move.used
        credit = think - move.used
        assert 0 <= credit <= min(max(lag, 0), LAG_CREDIT_CAP)
        if control.correspondence:
            assert move.left == control.allowance
        else:
            assert move.left == before[seat] - think + credit + control.increment * 1000
    if not control.correspondence:
        moved = [sum(1 for s, _t, _l in played if s == seat) for seat in range(3)]
        if clocks.flagged is None:
            assert all(
                clocks.left[seat] == control.allowance - used[seat] + moved[seat] * control.increment * 1000
                for seat in range(3)
            )
