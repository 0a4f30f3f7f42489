"""Hidden information stays hidden: Spagyric's secret choices and supplies, frame by frame.

Every frame that reaches the opponent's socket and a spectator's socket is read and checked.
The strongest check is non-interference: two games from the same seed in which seat 0 commits
*different* secret colours must look exactly alike to seat 1 and to spectators until the
reveal — so no frame they get can carry the choice, in any field or form.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

import spheria
from spheria.kernel.game import SIMULTANEOUS
from spheria.server.views import public_observation
from tests.conftest import SecretNumbers
from tests.server.test_server import (  # noqa: F401  (client and make_client are fixtures)
    HUMAN,
    RANDOM,
    Frame,
    MakeClient,
    client,
    create,
    error,
    join,
    make_client,
    receive,
    state_at,
    token_of,
)


def drain_one(ws: WebSocketTestSession, seen: list[Frame]) -> Frame:
    """The next frame other than a presence frame (every frame read goes to ``seen``)."""
    return receive(ws, lambda f: f["type"] != "presence", seen)


def first_choice_seen(key: int | None, pick: str, version: int) -> Callable[[Frame], bool]:
    """For ``receive``: the state frame showing seat 0's choice ``pick`` made (to seat 0: the pick itself;
    to seat 1 and a spectator: only that seat 1 is awaited). Each state frame must be at ``version``,
    and none to seat 1 or the spectator may carry a choice."""

    def seen(frame: Frame) -> bool:
        if frame["type"] != "state":
            return False
        assert frame["version"] == version
        if key == 0:
            return bool(frame["your_choice"] == pick)
        assert frame["your_choice"] is None
        return bool(frame["waiting_for"] == [1])

    return seen


def newer_than(version: int) -> Callable[[Frame], bool]:
    return lambda frame: frame["type"] == "state" and (frame["version"] > version or bool(frame["terminal"]))


def keys_anywhere(data: Any) -> set[str]:
    if isinstance(data, dict):
        found = set(data)
        for value in data.values():
            found |= keys_anywhere(value)
        return found
    if isinstance(data, list):
        return set().union(*(keys_anywhere(v) for v in data)) if data else set()
    return set()


def without_ids(frames: list[Frame], game_id: str) -> str:
    """The frames as text with the game's id blanked: twins differ in their ids only."""
    return json.dumps(frames).replace(game_id, "<id>")


def test_a_pending_choice_never_reaches_the_opponent_or_a_spectator(client: TestClient) -> None:  # noqa: F811  (fixtures from tests.server.test_server)
    """Seat 0 commits white in one game and red in its twin: seat 1 and spectators see the same frames."""
    seen: list[tuple[str, str]] = []
    with ExitStack() as stack:
        for secret in ("w", "r"):
            game = create(client, "spagyric", [HUMAN, HUMAN])  # the same seed: twin games
            path = f"/ws/{game['id']}"
            north, south, watcher = (stack.enter_context(client.websocket_connect(path)) for _ in range(3))
            south_frames: list[Frame] = []
            watcher_frames: list[Frame] = []
            join(north, token_of(game, 0))
            south_frames.extend(join(south, token_of(game, 1)))
            watcher_frames.extend(join(watcher))
            north.send_json({"type": "move", "move": secret})
            mine = receive(north, lambda f: f["type"] == "state" and f["your_choice"] is not None)
            assert mine["your_choice"] == secret and mine["legal_moves"] == []
            # Every frame seat 1 and the spectator get, up to and including the one saying seat 0 has chosen.
            receive(south, lambda f: f["type"] == "state" and f["waiting_for"] == [1], south_frames)
            receive(watcher, lambda f: f["type"] == "state" and f["waiting_for"] == [1], watcher_frames)
            seen.append((without_ids(south_frames, game["id"]), without_ids(watcher_frames, game["id"])))
            last_south, last_watcher = south_frames[-1], watcher_frames[-1]
    (south_w, watcher_w), (south_r, watcher_r) = seen
    assert south_w == south_r
    assert watcher_w == watcher_r
    assert last_south["your_choice"] is None and last_south["legal_moves"] == ["w", "b", "r"]
    assert last_watcher["your_choice"] is None and last_watcher["legal_moves"] == []


def test_a_whole_spagyric_game_shows_no_seat_anothers_supply_or_choice(client: TestClient) -> None:  # noqa: F811  (fixtures from tests.server.test_server)
    """Every frame of a full game, to both seats and a spectator, checked against the true state."""
    created = create(client, "spagyric", [HUMAN, HUMAN])
    game = spheria.load_game("spagyric")
    truth = game.new_initial_state(11)
    path = f"/ws/{created['id']}"
    rng = random.Random(4)
    with (
        client.websocket_connect(path) as north,
        client.websocket_connect(path) as south,
        client.websocket_connect(path) as watcher,
    ):
        seats = [north, south]
        frames: dict[int | None, list[Frame]] = {0: [], 1: [], None: []}
        _, first = join(north, token_of(created, 0))
        frames[0].append(first)
        for ws, key in ((south, 1), (watcher, None)):
            _, frame = join(ws, token_of(created, key) if key is not None else None)
            frames[key].append(frame)
        latest = {0: frames[0][-1], 1: frames[1][-1]}
        version = 0
        while not truth.is_terminal():
            if truth.current_player() == SIMULTANEOUS:
                picks = []
                for seat in (0, 1):
                    options = [str(m) for m in truth.legal_moves(seat)]
                    pick = rng.choice(options)
                    picks.append(pick)
                    seats[seat].send_json({"type": "move", "move": pick})
                    if seat == 0:
                        # Between the two commits: what seat 1 and the spectator get must not show seat 0's
                        # pick (read up to the frame that says seat 0 has chosen: one sent before, e.g. for
                        # a join, may still be on its way; every frame on the way is checked).
                        for key, ws in ((0, north), (1, south), (None, watcher)):
                            receive(ws, first_choice_seen(key, pick, version), frames[key])
                truth.apply_joint([truth.parse_move(p, s) for s, p in enumerate(picks)])
            else:
                mover = truth.current_player()
                move = rng.choice(latest[mover]["legal_moves"])
                seats[mover].send_json({"type": "move", "move": move, "version": version})
                truth.apply(truth.parse_move(move, mover))
            version += 1
            for key, ws in ((0, north), (1, south), (None, watcher)):
                frame = state_at(ws, version, frames[key])
                if key is not None:
                    latest[key] = frame
    assert frames[None][-1]["terminal"]
    for key in (0, 1, None):
        for frame in frames[key]:
            if frame["type"] != "state":
                continue
            observation = frame["observation"]
            if key is None:
                assert "supply" not in keys_anywhere(frame)
                assert frame["legal_moves"] == [] and frame["your_choice"] is None
                assert not any("supply:" in line.lower() for line in frame["status"])
            else:
                # A seat's frame holds its own supply and the other's count, never the other's colours.
                assert observation["player"] == key
                assert set(observation["supply"]) == {"w", "b", "r"}
                assert isinstance(observation["opponent_supply"], int)
                assert "opponent_supply_by_color" not in keys_anywhere(frame)
                assert sum(1 for k in keys_anywhere(frame) if k == "supply") == 1


def test_a_committed_choice_survives_a_restart_and_stays_secret(make_client: MakeClient, tmp_path: Path) -> None:  # noqa: F811  (fixtures from tests.server.test_server)
    db = tmp_path / "secret.sqlite3"
    first = make_client(db)
    created = create(first, "spagyric", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with first.websocket_connect(path) as north:
        join(north, token_of(created, 0))
        north.send_json({"type": "move", "move": "r"})
        assert drain_one(north, [])["your_choice"] == "r"
    first.__exit__(None, None, None)

    second = make_client(db)
    with second.websocket_connect(path) as north, second.websocket_connect(path) as south:
        _, mine = join(north, token_of(created, 0))
        assert mine["your_choice"] == "r" and mine["legal_moves"] == []
        north.send_json({"type": "move", "move": "w"})
        assert error(north)["code"] == "already_chosen"
        _, theirs = join(south, token_of(created, 1))
        assert theirs["your_choice"] is None and theirs["waiting_for"] == [1]
        # Exactly what seat 1 sees of a fresh game: the committed choice changed nothing it is shown.
        assert theirs["observation"] == spheria.load_game("spagyric").new_initial_state(11).observation(1)
        south.send_json({"type": "move", "move": "w"})  # red beats white: seat 0 places
        resolved = state_at(south, 1)
        assert resolved["to_move"] == 0
        assert "red beats white" in resolved["status"][0]


def test_spagyric_against_an_agent_seat_to_the_end(client: TestClient) -> None:  # noqa: F811  (fixtures from tests.server.test_server)
    created = create(client, "spagyric", [HUMAN, RANDOM])
    rng = random.Random(2)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        while not state["terminal"]:
            if state["legal_moves"]:
                ws.send_json({"type": "move", "move": rng.choice(state["legal_moves"])})
            state = receive(ws, newer_than(state["version"]))
    assert state["result"] is not None
    assert client.get(f"/api/games/{created['id']}/record").status_code == 200


def test_a_hidden_game_that_keeps_the_generic_public_view_shows_spectators_no_seat_s_card() -> None:
    state = SecretNumbers(rounds=1).new_initial_state(5)
    assert not state.game.perfect_information
    shown = public_observation(state)
    assert "card" not in shown and shown["player"] is None
    assert shown["history"] == [] and shown["current_player"] == state.current_player()


def test_spectators_of_a_game_without_a_public_view_see_only_the_board_turn_and_moves() -> None:
    state = spheria.load_game("spagyric").new_initial_state(3)
    state.apply_joint([state.parse_move("r", 0), state.parse_move("w", 1)])
    state.apply(state.parse_move("0b2"))
    # The generic public view of a hidden-information game (Spagyric's own is richer).
    shown = spheria.State.public_observation(state)
    assert shown == {
        "game": "spagyric",
        "board": state.observation(0)["board"],
        "current_player": state.current_player(),
        "history": state.history_notation(),
        "player": None,
    }
