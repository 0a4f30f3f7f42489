"""The ``hints`` field of a record (docs/records.md): one count per seat, optional within version 1."""

from __future__ import annotations

import json
from typing import Any

import pytest

import spheria
from spheria.kernel.record import Record, RecordError


def finished_spline() -> spheria.State[Any]:
    state = spheria.load_game("spline").new_initial_state()
    while not state.is_terminal():
        state.apply(state.legal_moves()[0])
    return state


def test_hint_counts_round_trip_and_a_record_without_them_reads_as_before() -> None:
    state = finished_spline()
    with_hints = Record.from_state(state, ["human", "random"], hints=[3, 0])
    assert json.loads(with_hints.dumps())["hints"] == [3, 0]
    assert Record.loads(with_hints.dumps()).hints == [3, 0]
    plain = Record.from_state(state, ["human", "random"])
    assert "hints" not in plain.to_json()  # records of games without hints are unchanged
    assert Record.loads(plain.dumps()).hints is None
    assert Record.loads(with_hints.dumps()).replay().to_spn() == state.to_spn()


@pytest.mark.parametrize("hints", [[1], [1, -1], [1, 2.5], [True, 0], "2", {"0": 1}])
def test_bad_hint_counts_are_refused_by_name(hints: object) -> None:
    data = Record.from_state(finished_spline(), ["human", "random"]).to_json()
    data["hints"] = hints
    with pytest.raises(RecordError, match="'hints' must be the number of hints each of the 2 seats"):
        Record.from_json(data)
