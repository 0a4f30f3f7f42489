"""Records: build, save, load and replay; every malformed record is refused naming the problem."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.kernel import registry as base
from spheria.kernel.record import FORMAT, VERSION, Record, RecordError, replay, replay_steps, set_up, start_position
from spheria.match import play
from tests.conftest import SecretNumbers
from tests.test_match import SpyAgent


def finished(variant: str, seed: int = 4) -> spheria.State[Any]:
    state = spheria.load_game("special-cake", variant=variant).new_initial_state(seed=seed)
    play(state, [RandomAgent(seed=seed), RandomAgent(seed=seed + 1)])
    return state


def record_json(variant: str = "mint", **changes: Any) -> dict[str, Any]:
    data = Record.from_state(finished(variant), ["human", "random"]).to_json()
    data.update(changes)
    return data


def load_error(data: Any) -> RecordError:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(RecordError) as caught:
        Record.loads(text).replay()
    return caught.value


# -- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["mint", "sugar", "poisoned"])
def test_a_finished_game_saves_loads_and_replays(tmp_path: Path, variant: str) -> None:
    state = finished(variant)
    record = Record.from_state(state, ["human", "random:seed=5"])
    path = record.save(tmp_path / "game.spheria.json")

    data = json.loads(path.read_text())
    assert data["format"] == FORMAT == "spheria-record"
    assert data["version"] == VERSION == 2
    assert data["clock"] is None and data["clocks"] is None and data["lost_on_time"] is None  # untimed
    assert data["game"] == "special-cake"
    assert data["options"] == {"variant": variant, "line_rule": "any" if variant == "sugar" else "mixed"}
    assert data["seed"] == 4
    assert data["players"] == ["human", "random:seed=5"]
    assert data["moves"] == state.history_notation()
    assert data["result"] == state.returns()
    assert datetime.fromisoformat(data["created"].replace("Z", "+00:00")).tzinfo is not None
    fresh = spheria.load_game("special-cake", variant=variant).new_initial_state(seed=4)
    assert data["start"] == fresh.to_spn()

    loaded = Record.load(path)
    assert loaded == record
    replayed = loaded.replay()
    assert replayed.to_spn() == state.to_spn()
    assert replayed.history_notation() == state.history_notation()
    assert replayed.returns() == state.returns()


def test_the_sugar_cake_comes_back_from_the_seed() -> None:
    state = finished("sugar", seed=99)
    record = Record.from_state(state, ["random", "random"])
    assert record.start is None  # the game's own start: the seed builds it again
    start = record.to_json()["start"]
    assert start.endswith(" 1 eat") and "r" in start  # a random cake, already built
    assert record.initial_state().to_spn() == start == start_position(state).to_spn()


def test_an_unfinished_game_has_no_result_and_replays() -> None:
    state = spheria.load_game("special-cake", variant="poisoned").new_initial_state()
    for text in ("0a1", "0b1", "0c1"):
        state.apply(state.parse_move(text))
    record = Record.loads(Record.from_state(state, ["human", "human"]).dumps())
    assert record.result is None
    assert record.moves == ["0a1", "0b1", "0c1"]
    assert record.replay().to_spn() == state.to_spn()


def test_steps_show_each_move_with_its_player_and_number() -> None:
    state = finished("mint")
    steps = [(s.number, s.entry, s.player) for s in Record.from_state(state, ["random", "random"]).steps()]
    assert [n for n, _, _ in steps] == list(range(1, len(state.history) + 1))
    assert [e for _, e, _ in steps] == state.history_notation()
    assert [p for _, _, p in steps[:4]] == [0, 1, 0, 1]  # the set-up alternates
    assert steps[30][2] == 0  # Mint eats first after the 30th candy


def test_from_state_records_where_the_game_started_not_where_it_is() -> None:
    state = finished("mint")
    assert start_position(state).to_spn() == spheria.load_game("special-cake").new_initial_state().to_spn()
    assert state.history  # the original is untouched
    with pytest.raises(RecordError, match="has 2 seats; got 1 players"):
        Record.from_state(state, ["human"])


def test_a_game_set_up_from_a_position_is_not_passed_off_as_a_fresh_game() -> None:
    game = spheria.load_game("special-cake", variant="mint")
    state = game.state_from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat")
    state.apply(state.parse_move("3a1"))
    data = Record.from_state(state, ["human", "human"]).to_json()
    assert data["from_position"] is True  # the record says so; it replays from there
    assert Record.from_json(data).replay().to_spn() == state.to_spn()
    error = load_error({**data, "from_position": False})  # claimed as the game's own start
    assert "'start' is 'wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat'" in str(error)
    assert "starts at" in str(error)


def test_a_simultaneous_game_records_its_joint_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(base._REGISTRY, SecretNumbers.name, SecretNumbers)
    state = SecretNumbers().new_initial_state(seed=8)
    play(state, [SpyAgent(["3", "next", "1", "double"]), SpyAgent(["2", "2"])])
    record = Record.from_state(state, ["spy", "spy"])
    assert record.moves == ["3/2", "next", "1/2", "double"]
    assert record.options == {"rounds": 2} and record.seed == 8
    replayed = Record.loads(record.dumps()).replay()
    assert replayed.history == state.history
    assert replayed.returns() == state.returns() != [0.0, 0.0]

    bad = record.to_json()
    bad["moves"][2] = "1/7"
    error = load_error(bad)
    assert error.move_number == 3 and "'7' is not legal here" in str(error)


# -- illegal moves: the move number and the problem -------------------------------------------


@pytest.mark.parametrize(
    ("index", "entry", "problem"),
    [
        (0, "1a1", "1a1 cannot take a candy now"),
        (6, "zz9", "'zz9' is not a site name"),
        (9, "", "empty move"),
    ],
)
def test_an_illegal_move_is_named_by_number(index: int, entry: str, problem: str) -> None:
    data = record_json()
    data["moves"][index] = entry
    error = load_error(data)
    assert error.move_number == index + 1
    assert str(error).startswith(f"move {index + 1} ({entry!r}): ")
    assert problem in str(error)


def test_a_second_candy_on_a_taken_site_is_named_by_number() -> None:
    data = record_json()
    data["moves"][4] = data["moves"][0]
    error = load_error(data)
    assert error.move_number == 5
    assert f"move 5 ({data['moves'][0]!r}): {data['moves'][0]} cannot take a candy now" in str(error)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("0b1", "0b1 is pinned: it holds up two or more candies"),
        ("0a1+0c1", "0a1+0c1 is not a line"),
    ],
)
def test_an_illegal_eating_move_is_named_by_number(entry: str, problem: str) -> None:
    data = record_json()
    data["moves"][30] = entry  # Mint's first eat, from the full cake
    error = load_error(data)
    assert error.move_number == 31
    assert f"move 31 ({entry!r}): {problem}" in str(error)


def test_a_move_after_the_end_is_refused() -> None:
    data = record_json()
    data["moves"].append("0a1")
    error = load_error(data)
    assert error.move_number == len(data["moves"])
    assert "the game is over" in str(error)


def test_a_move_that_is_not_text_is_refused_on_load() -> None:
    data = record_json()
    data["moves"][2] = 17
    error = load_error(data)
    assert error.move_number == 3
    assert "move 3: an entry is text, not 17" in str(error)


# -- malformed files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"format": "pgn"}, "not a Spheria record: 'format' must be 'spheria-record', found 'pgn'"),
        ({"version": 3}, "record version 3 is not supported (this Spheria reads versions 1 to 2)"),
        ({"version": 0}, "record version 0 is not supported (this Spheria reads versions 1 to 2)"),
        ({"version": True}, "record version True is not supported"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"game": 3}, "'game' must be a game name, not 3"),
        ({"options": {"variant": "mint", "speed": "fast"}}, "special-cake has no option 'speed'"),
        ({"options": {"variant": "vanilla"}}, "option 'variant' must be one of mint, sugar, poisoned"),
        ({"options": ["mint"]}, "'options' must be an object"),
        ({"seed": "4"}, "'seed' must be a whole number or null, not '4'"),
        ({"start": None}, "'start' must be a position in SPN"),
        ({"start": "................/........./..../. 2 place"}, "'start' is '................/"),
        ({"players": ["human"]}, "special-cake has 2 seats but the record names 1"),
        ({"players": "human,random"}, "'players' must be a list"),
        ({"moves": "0a1 0b1"}, "'moves' must be a list of move entries"),
        ({"result": [-1.0, 1.0, 0.0]}, "'result' is [-1.0, 1.0, 0.0] but the moves give"),
        ({"result": None}, "'result' is null but the game is over after"),
        ({"result": ["win", "loss"]}, "'result' must be a list of numbers"),
        ({"created": 1700000000}, "'created' must be a timestamp"),
    ],
)
def test_a_malformed_record_names_the_problem(changes: dict[str, Any], problem: str) -> None:
    error = load_error(record_json(**changes))
    assert problem in str(error)
    assert error.move_number is None


def test_a_wrong_result_is_caught() -> None:
    data = record_json()
    data["result"] = [-r for r in data["result"]]
    error = load_error(data)
    assert f"'result' is {data['result']} but the moves give {[-r for r in data['result']]}" in str(error)


def test_a_result_before_the_end_is_caught() -> None:
    data = record_json()
    result = data["result"]
    data["moves"] = data["moves"][:10]
    error = load_error(data)
    assert f"'result' is {result} but the game is not over after 10 moves" in str(error)


@pytest.mark.parametrize("field", ["format", "game", "options", "seed", "start", "players", "moves", "result"])
def test_a_missing_field_is_named(field: str) -> None:
    data = record_json()
    del data[field]
    assert f"'{field}'" in str(load_error(data))


def test_not_json_and_not_an_object_are_refused(tmp_path: Path) -> None:
    assert "not valid JSON: Expecting value at line 1, column 1" in str(load_error("moves: 0a1"))
    assert "a record is a JSON object, not list" in str(load_error("[1, 2]"))
    path = tmp_path / "binary.spheria.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError, match="not a text file"):
        Record.load(path)


def test_fields_a_reader_does_not_know_are_ignored() -> None:
    data = record_json(comment="a fine game")
    assert Record.loads(json.dumps(data)).replay().is_terminal()


# -- resigned and unfinished games ----------------------------------------------------------------


def unfinished_json(**changes: Any) -> dict[str, Any]:
    state = spheria.load_game("special-cake").new_initial_state()
    for text in ("0a1", "0b1", "0c1"):
        state.apply_notation(text)
    data = Record.from_state(state, ["human", "random"]).to_json()
    data.update(changes)
    return data


def test_a_resignation_is_recorded_and_read_back() -> None:
    state = spheria.load_game("spinca", players=3).new_initial_state()
    for text in ("0a1", "0b1", "0c1", "0d1"):
        state.apply_notation(text)
    record = Record.loads(Record.from_state(state, ["human", "random", "random"], resigned=1).dumps())
    assert record.resigned == 1 and record.result is None and record.finished
    assert record.replay().to_spn() == state.to_spn()
    assert not Record.loads(json.dumps(unfinished_json())).finished


def test_a_record_without_the_resigned_field_reads_as_before() -> None:
    data = unfinished_json()
    del data["resigned"]
    assert Record.loads(json.dumps(data)).resigned is None


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"resigned": "Mint"}, "'resigned' must be the seat (0-based) that resigned, or null, not 'Mint'"),
        ({"resigned": True}, "'resigned' must be the seat"),
        ({"resigned": -1}, "'resigned' must be the seat"),
        ({"resigned": 2}, "'resigned' is seat 2 but special-cake has seats 0 to 1"),
        ({"resigned": 0, "result": [1.0, -1.0]}, "a resigned game has no 'result' (null)"),
    ],
)
def test_a_malformed_resignation_names_the_problem(changes: dict[str, Any], problem: str) -> None:
    assert problem in str(load_error(unfinished_json(**changes)))


def test_a_resignation_after_the_end_is_refused() -> None:
    data = record_json(result=None, resigned=0)
    assert "'resigned' is 0 but the game is already over after" in str(load_error(data))
    with pytest.raises(RecordError, match="cannot resign here: the game is over"):
        Record.from_state(finished("mint"), ["human", "random"], resigned=0)


# -- the one set-up and replay every caller uses ----------------------------------------------------


def test_set_up_starts_from_the_seed_or_from_the_position_given() -> None:
    sugar = spheria.load_game("special-cake", variant="sugar")
    assert set_up("special-cake", {"variant": "sugar"}, seed=5).to_spn() == sugar.new_initial_state(5).to_spn()
    spn = "ww.............b/........./..../. 2 eat"
    assert set_up(sugar, start=spn, seed=5).to_spn() == spn  # a set-up start: the seed is not used
    with pytest.raises(TypeError, match="give options with a game's name"):
        set_up(sugar, {"variant": "mint"})


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"game": "special-cake", "options": {"speed": "fast"}}, "special-cake has no option 'speed'"),
        (
            {"game": "special-cake", "start": "................/w......../..../. 1 eat"},
            "'start' '................/w......../..../. 1 eat' is not a position of special-cake: ball on 1a1 floats",
        ),
    ],
)
def test_set_up_names_what_is_wrong(arguments: dict[str, Any], problem: str) -> None:
    with pytest.raises(RecordError) as caught:
        set_up(**arguments)
    assert problem in str(caught.value)


def test_replay_plays_every_entry_and_names_the_one_that_does_not_apply() -> None:
    state = finished("mint")
    entries = state.history_notation()
    assert replay("special-cake", {"variant": "mint"}, seed=4, entries=entries).to_spn() == state.to_spn()
    spn = "ww.............b/........./..../. 2 eat"
    with pytest.raises(RecordError) as caught:
        replay("special-cake", {"variant": "mint"}, start=spn, entries=["0a1", "0a1"])
    assert caught.value.move_number == 2 and str(caught.value).startswith("move 2 ('0a1'): ")


def test_replay_steps_go_on_from_a_state_numbering_from_where_it_stands() -> None:
    state = set_up("spline", {})
    list(replay_steps(state, ["0a1"]))
    steps = list(replay_steps(state, ["0b1", "0c1"], first=2))
    assert [(s.number, s.entry, s.player) for s in steps] == [(2, "0b1", 1), (3, "0c1", 0)]
    assert all(s.state is state for s in steps) and state.history_notation() == ["0a1", "0b1", "0c1"]
    with pytest.raises(RecordError, match=r"^move 4 \('0c1'\): "):
        list(replay_steps(state, ["0c1"], first=4))
