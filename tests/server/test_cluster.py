# ruff: noqa: F811  (the fixture store comes from tests.server.cluster_helpers)
"""Several server processes, one service (issue 39): real processes, a real Redis, one shared store.

A game is owned by one process; a client that reaches another process is served through the tunnel
and gets exactly the frames a one-process server sends (hidden information included). The lobby is
one more lease: a challenge posted on one process is seen and accepted on another.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.cluster_helpers import (  # noqa: F401  (store is a fixture)
    Frame,
    Person,
    Process,
    Socket,
    create_game,
    request,
    start_process,
    store,
    token_of,
)


@pytest.fixture
def pair(store: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[Process, Process]]:
    """Two processes, A and B, of one service."""
    first = start_process(store, redis_url, tmp_path)
    second = start_process(store, redis_url, tmp_path)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def normalised(frames: list[Frame], secrets: dict[str, str]) -> list[Any]:
    """``frames`` with the values that differ between two servers (game id, credentials) named."""
    text = json.dumps(frames)
    for value, name in secrets.items():
        text = text.replace(value, name)
    result: list[Any] = json.loads(text)
    return result


def acting_seat(states: dict[int, Frame]) -> int | None:
    """The seat that may act now (the lowest), from each seat's latest state frame."""
    for seat, state in sorted(states.items()):
        may_act = state["result"] is None and state["legal_moves"] and state.get("your_choice") is None
        if may_act and (state["to_move"] == seat or seat in (state.get("waiting_for") or [])):
            return seat
    return None


def moment(frame: Frame) -> tuple[int, tuple[int, ...]]:
    """Where a state frame stands: its version and the seats awaited (a secret choice committed
    changes the second only)."""
    return frame["version"], tuple(frame.get("waiting_for") or [])


def moved_from(was: tuple[int, tuple[int, ...]]) -> Callable[[Frame], bool]:
    """For :meth:`Socket.until`: a state frame standing elsewhere than ``was``."""

    def moved(frame: Frame) -> bool:
        return frame["type"] == "state" and moment(frame) != was

    return moved


def play_out(seats: dict[int, Socket], watchers: list[Socket], states: dict[int, Frame], most: int = 400) -> int:
    """Play the first legal move of whichever seat may act until the game ends; every socket reads
    the state each move leads to before the next. Returns the moves played."""
    played = 0
    last = {id(socket): moment(states[seat]) for seat, socket in seats.items()}
    for socket in watchers:
        last[id(socket)] = moment([f for f in socket.seen if f["type"] == "state"][-1])
    while (seat := acting_seat(states)) is not None and played < most:
        seats[seat].send({"type": "move", "move": states[seat]["legal_moves"][0], "version": states[seat]["version"]})
        for socket in [*seats.values(), *watchers]:
            state = socket.until(moved_from(last[id(socket)]))
            last[id(socket)] = moment(state)
        states.update({index: [f for f in socket.seen if f["type"] == "state"][-1] for index, socket in seats.items()})
        played += 1
    return played


def play_spagyric(where: dict[str, Process], creator: Process) -> tuple[dict[str, list[Any]], int, Frame]:
    """A human-vs-human Spagyric game created on ``creator``; seat 0, seat 1 and a spectator connect
    to ``where["seat0"]``, ``where["seat1"]``, ``where["watcher"]``. Their frames (normalised),
    the moves played and the last state."""
    created = create_game(creator, "spagyric", [{"kind": "human"}, {"kind": "human"}], seed=7)
    game = created["id"]
    sockets = {name: process.ws(f"/ws/{game}") for name, process in where.items()}
    try:
        states = {0: sockets["seat0"].join(token_of(created, 0)), 1: sockets["seat1"].join(token_of(created, 1))}
        sockets["watcher"].join()
        played = play_out({0: sockets["seat0"], 1: sockets["seat1"]}, [sockets["watcher"]], states)
        secrets = {game: "<game>", token_of(created, 0): "<token0>", token_of(created, 1): "<token1>"}
        for socket in sockets.values():
            for frame in socket.seen:
                if frame["type"] == "claimed":
                    secrets[frame["credential"]] = f"<credential{frame['seat']}>"
        frames = {name: normalised(socket.game_frames(), secrets) for name, socket in sockets.items()}
        return frames, played, states[0]
    finally:
        for socket in sockets.values():
            socket.close()


def test_a_game_played_through_two_processes_sends_exactly_the_frames_of_one(
    pair: tuple[Process, Process], tmp_path: Path
) -> None:
    a, b = pair
    alone = start_process(str(tmp_path / "alone.sqlite3"), None, tmp_path)  # the embedded default
    try:
        expected, moves, last = play_spagyric({"seat0": alone, "seat1": alone, "watcher": alone}, alone)
    finally:
        alone.stop()
    assert last["result"] is not None and moves > 4  # played to the end
    got, moves_here, last_here = play_spagyric({"seat0": a, "seat1": b, "watcher": b}, a)
    assert moves_here == moves and last_here["result"] == last["result"]
    for name in ("seat0", "seat1", "watcher"):
        assert got[name] == expected[name], name
    # Hidden information through the tunnel: seat 1 and the spectator (both on B) never see seat 0's
    # pending choice, which they would if a frame carried it (the one-process frames do not).
    for name in ("seat1", "watcher"):
        assert all(f.get("your_choice") is None for f in got[name] if f["type"] == "state" and f.get("seat") != 0)


def test_the_game_lives_on_its_creators_process_and_the_other_relays(pair: tuple[Process, Process]) -> None:
    a, b = pair
    created = create_game(a, "spline", [{"kind": "human"}, {"kind": "human"}])
    status, facts = request(f"{b.url}/api/games/{created['id']}")  # through B: answered by A
    assert status == 200 and facts["id"] == created["id"]
    status, refusal = request(f"{b.url}/api/games/{created['id']}/invites", "POST", {"seat": 0, "owner": "wrong"})
    assert status == 403 and refusal["error"]["code"] == "not_owner"  # A's endpoint, A's answer
    seat = b.ws(f"/ws/{created['id']}")
    try:
        state = seat.join(token_of(created, 0))
        assert state["seat"] == 0 and state["legal_moves"]
        seat.send({"type": "move", "move": "nonsense", "version": state["version"]})
        refused = seat.until(lambda f: f["type"] == "error")
        assert refused["code"] == "illegal_move"
    finally:
        seat.close()


def test_a_challenge_posted_on_one_process_is_seen_and_accepted_on_the_other(pair: tuple[Process, Process]) -> None:
    a, b = pair
    ann, ben = Person(a), Person(b)
    assert ann.send(a, "POST", "/api/guest", {"name": "Ann"}).status_code == 201
    assert ben.send(b, "POST", "/api/guest", {"name": "Ben"}).status_code == 201
    lobby = ben.ws(b, "/ws/lobby")
    try:
        assert lobby.until(lambda f: f["type"] == "lobby")["challenges"] == []
        body = {"game": "special-cake", "options": {"variant": "mint"}, "seat": 0, "rated": False}
        posted = ann.send(a, "POST", "/api/challenges", body)
        assert posted.status_code == 201, posted.text
        pushed = lobby.until(lambda f: f["type"] == "challenge")
        assert pushed["event"] == "created" and pushed["challenge"]["id"] == posted.json()["id"]
        accepted = ben.send(b, "POST", f"/api/challenges/{posted.json()['id']}/accept")
        assert accepted.status_code == 200, accepted.text
        game = accepted.json()["game_id"]
        status, facts = request(f"{a.url}/api/games/{game}")
        assert status == 200 and facts["id"] == game
    finally:
        lobby.close()
