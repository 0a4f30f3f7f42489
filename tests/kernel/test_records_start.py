"""Records of games started from a position set up by hand (``from_position``): they replay
from ``start`` through the game's rules, old records without the field read as before, and a
start the rules refuse (or write differently) is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.cli.main import main
from spheria.kernel.record import Record, RecordError

SET_UP = {
    "special-cake": ("ww.............b/........./..../. 2 eat", {"variant": "mint"}),
    "spinca": ("wb............../........./..../. 1 0a1,0b1", {}),
    "spline": ("w.b...w........./........./..../. 2", {}),
    "spagyric": (".....r........../........./..../. reveal - 8,8,7 7,8,8 0,0,0 0,0,0 1,0,0", {}),
}


def played(game: str, plies: int = 3) -> Any:
    spn, options = SET_UP[game]
    state = spheria.load_game(game, **options).state_from_spn(spn)
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == spheria.SIMULTANEOUS:
            state.apply_joint([state.legal_moves(seat)[0] for seat in range(2)])
        else:
            state.apply(state.legal_moves()[0])
    return state


@pytest.mark.parametrize("game", sorted(SET_UP))
def test_a_set_up_game_records_its_start_and_replays_from_it(tmp_path: Path, game: str) -> None:
    state = played(game)
    record = Record.from_state(state, ["human", "random"])
    assert record.from_position is True and record.start == SET_UP[game][0]
    path = record.save(tmp_path / "game.spheria.json")
    loaded = Record.load(path)
    assert loaded.from_position is True
    assert loaded.replay().to_spn() == state.to_spn()
    assert loaded.initial_state().to_spn() == SET_UP[game][0]


def test_the_games_own_start_is_not_marked_set_up() -> None:
    state = spheria.load_game("spline").new_initial_state()
    state.apply(state.legal_moves()[0])
    assert Record.from_state(state, ["human", "human"]).from_position is False
    sugar = spheria.load_game("special-cake", variant="sugar").new_initial_state(9)
    assert Record.from_state(sugar, ["human", "human"]).from_position is False  # the seed rebuilds that cake


def test_an_old_record_without_the_field_reads_as_a_fresh_game() -> None:
    state = spheria.load_game("spline").new_initial_state()
    state.apply(state.legal_moves()[0])
    data = Record.from_state(state, ["human", "human"]).to_json()
    del data["from_position"]
    record = Record.from_json(data)
    assert record.from_position is False and record.replay().to_spn() == state.to_spn()


@pytest.mark.parametrize(
    ("start", "problem"),
    [
        ("................/w......../..../. 1 eat", "is not a position of special-cake: ball on 1a1 floats"),
        ("w.............../........./..../. 1 place", "so Liquorice is to place"),
        (
            "ww.............b/........./..../.  2   eat",
            "writes that position 'ww.............b/........./..../. 2 eat'",
        ),
    ],
)
def test_a_start_the_rules_refuse_is_named(start: str, problem: str) -> None:
    data = Record.from_state(played("special-cake", 0), ["human", "human"]).to_json()
    data["start"] = start
    with pytest.raises(RecordError, match="'start'") as caught:
        Record.from_json(data).replay()
    assert problem in str(caught.value)


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_from_position_must_be_true_or_false(value: object) -> None:
    data = Record.from_state(played("spline"), ["human", "human"]).to_json()
    data["from_position"] = value
    with pytest.raises(RecordError, match="'from_position' must be true or false"):
        Record.from_json(data)


def test_spheria_replay_shows_a_set_up_game_from_its_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = played("special-cake", 2)
    path = Record.from_state(state, ["human", "random"]).save(tmp_path / "set-up.spheria.json")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert json.loads(path.read_text())["moves"][0] in out
