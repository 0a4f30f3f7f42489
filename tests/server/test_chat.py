# ruff: noqa: F811  (the fixtures app and make_app come from tests.server.people)
"""Chat at the board, mute, report, "your games" and presence through the interface: browsers with
their own cookies, real websockets, a real app on its SQLite file (docs/server.md, Chat and Presence)."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

from spheria.server import chat
from spheria.server.session import SessionManager
from tests.server.people import (  # noqa: F401  (app and make_app are fixtures)
    Frame,
    MakeApp,
    app,
    browser,
    connect,
    guest,
    invite,
    make_app,
    new_game,
    send,
)


def next_of(ws: WebSocketTestSession, kinds: tuple[str, ...], seen: list[Frame] | None = None) -> Frame:
    """The next frame of one of ``kinds`` (others skipped; each read frame added to ``seen``)."""
    while True:
        frame: Frame = ws.receive_json()
        if seen is not None:
            seen.append(frame)
        if frame["type"] in kinds:
            return frame


def enter(ws: WebSocketTestSession, token: str | None = None, credential: str | None = None) -> Frame:
    """Join (a seat by invite or credential, else as a spectator); the chat history frame sent on join."""
    frame: Frame = {"type": "join"}
    if token is not None:
        frame["token"] = token
    if credential is not None:
        frame["credential"] = credential
    ws.send_json(frame)
    history = next_of(ws, ("chat_history", "error"))
    assert history["type"] == "chat_history", history
    return history


def say(ws: WebSocketTestSession, room: str, text: str) -> None:
    ws.send_json({"type": "chat", "room": room, "text": text})


def heard(ws: WebSocketTestSession) -> Frame:
    """The next chat frame or error to this connection."""
    return next_of(ws, ("chat", "error"))


def player_id(app: Starlette, name: str) -> str:
    row = app.state.accounts.store.store.transaction(
        lambda db: db.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
    )
    return str(row[0])


def wait_for(check: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_players_and_spectators_each_chat_in_their_own_room_with_history_on_join(app: Starlette) -> None:
    mina, joon, sora = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Sora")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with (
        connect(app, mina, path) as first,
        connect(app, joon, path) as second,
        connect(app, sora, path) as watcher,
    ):
        assert enter(first, invite(created, 0)) == {"type": "chat_history", "room": "players", "messages": []}
        assert enter(second, invite(created, 1))["room"] == "players"
        assert enter(watcher)["room"] == "spectators"

        say(first, "players", "good luck")
        for ws in (first, second):
            frame = heard(ws)
            assert frame["type"] == "chat" and frame["room"] == "players"
            message = frame["message"]
            assert message["name"] == "Mina" and message["guest"] is True and message["seat"] == 0
            assert message["text"] == "good luck" and isinstance(message["id"], int)
        say(watcher, "spectators", "nice opening")
        # The spectator was never sent the players' message: its next chat frame is its own.
        assert heard(watcher)["message"]["text"] == "nice opening"
        say(second, "players", "you too")
        # Nor were the players sent the spectators' message.
        assert heard(first)["message"]["text"] == "you too"
        assert heard(second)["message"]["text"] == "you too"

        with connect(app, sora, path) as late_watcher:
            history = enter(late_watcher)
            assert [m["text"] for m in history["messages"]] == ["nice opening"]
            assert history["messages"][0]["name"] == "Sora" and history["messages"][0]["seat"] is None


def test_a_seat_that_rejoins_is_sent_the_players_history(app: Starlette) -> None:
    mina = guest(app, "Mina")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with connect(app, mina, path) as first:
        first.send_json({"type": "join", "token": invite(created, 0)})
        credential = next_of(first, ("claimed",))["credential"]
        next_of(first, ("chat_history",))
        for text in ("one", "two", "three"):
            say(first, "players", text)
            assert heard(first)["message"]["text"] == text
    with connect(app, mina, path) as back:
        history = enter(back, credential=credential)
    assert [m["text"] for m in history["messages"]] == ["one", "two", "three"]


def test_history_on_join_is_the_last_hundred_messages(make_app: MakeApp) -> None:
    app = make_app(frame_rate=0, chat_rate=1000.0, chat_burst=1000, chat_per_minute=1000)
    mina = guest(app, "Mina")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with connect(app, mina, path) as first:
        first.send_json({"type": "join", "token": invite(created, 0)})
        credential = next_of(first, ("claimed",))["credential"]
        next_of(first, ("chat_history",))
        for number in range(chat.HISTORY + 5):
            say(first, "players", f"m{number}")
            assert heard(first)["message"]["text"] == f"m{number}"
    with connect(app, mina, path) as back:
        history = enter(back, credential=credential)
    texts = [m["text"] for m in history["messages"]]
    assert len(texts) == chat.HISTORY and texts[0] == "m5" and texts[-1] == f"m{chat.HISTORY + 4}"


def test_a_player_mutes_another_for_themselves_only_and_can_unmute(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    created = new_game(mina)
    game_id = created["id"]
    path = f"/ws/{game_id}"
    with connect(app, mina, path) as first, connect(app, joon, path) as second:
        enter(first, invite(created, 0))
        enter(second, invite(created, 1))
        say(first, "players", "hello")
        message_id = heard(second)["message"]["id"]
        assert heard(first)["message"]["id"] == message_id

        response = send(joon, "POST", f"/api/games/{game_id}/chat/{message_id}/mute")
        assert response.status_code == 200, response.text
        assert response.json() == {"muted": True, "name": "Mina"}
        say(first, "players", "are you there?")
        assert heard(first)["message"]["text"] == "are you there?"  # Mina still reads herself
        say(second, "players", "quiet now")
        assert heard(second)["message"]["text"] == "quiet now"  # Mina's message never reached Joon
        assert heard(first)["message"]["text"] == "quiet now"  # Joon is not muted for Mina

        assert (
            send(mina, "POST", f"/api/games/{game_id}/chat/{message_id}/mute").json()["error"]["code"] == "own_message"
        )

    stored = chat.chat_of(app).store.history(game_id, "players")
    assert [m.text for m in stored] == ["hello", "are you there?", "quiet now"]

    response = send(joon, "DELETE", f"/api/games/{game_id}/chat/{message_id}/mute")
    assert response.status_code == 200 and response.json()["muted"] is False
    assert chat.chat_of(app).store.mutes(player_id(app, "Joon")) == set()


def test_a_muted_senders_messages_are_left_out_of_the_history_too(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    created = new_game(mina)
    game_id = created["id"]
    path = f"/ws/{game_id}"
    with connect(app, mina, path) as first, connect(app, joon, path) as second:
        enter(first, invite(created, 0))
        second.send_json({"type": "join", "token": invite(created, 1)})
        credential = next_of(second, ("claimed",))["credential"]
        next_of(second, ("chat_history",))
        say(first, "players", "hello")
        message_id = heard(second)["message"]["id"]
        say(second, "players", "hi")
        heard(second)
        assert send(joon, "POST", f"/api/games/{game_id}/chat/{message_id}/mute").status_code == 200
    with connect(app, joon, path) as second:
        history = enter(second, credential=credential)
    assert [m["text"] for m in history["messages"]] == ["hi"]


def test_a_report_is_kept_for_the_operator_who_lists_it(app: Starlette, tmp_path: Path) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    created = new_game(mina)
    game_id = created["id"]
    path = f"/ws/{game_id}"
    with connect(app, mina, path) as first, connect(app, joon, path) as second:
        enter(first, invite(created, 0))
        enter(second, invite(created, 1))
        say(first, "players", "something rude")
        message_id = heard(second)["message"]["id"]
    response = send(joon, "POST", f"/api/games/{game_id}/chat/{message_id}/report")
    assert response.status_code == 200, response.text
    assert response.json() == {"reported": message_id}
    assert send(joon, "POST", f"/api/games/{game_id}/chat/{message_id}/report").status_code == 200  # once kept

    out = io.StringIO()
    with redirect_stdout(out):
        assert chat.main(["--db", str(tmp_path / "games.sqlite3")]) == 0
    reports = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(reports) == 1
    report = reports[0]
    assert report["reporter"] == "Joon" and report["name"] == "Mina" and report["text"] == "something rude"
    assert report["game_id"] == game_id and report["room"] == "players" and report["message"] == message_id


def presence_of(client: TestClient) -> Frame:
    response = client.get("/api/presence")
    assert response.status_code == 200
    data: Frame = response.json()
    return data


def test_presence_counts_sockets_as_they_open_and_close(app: Starlette) -> None:
    mina, joon, nobody = guest(app, "Mina"), guest(app, "Joon"), browser(app)
    assert presence_of(nobody) == {"online": 0, "players": [], "games": 0, "playing": []}
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with connect(app, mina, path) as first:
        enter(first, invite(created, 0))
        seen = presence_of(nobody)
        assert seen["online"] == 1 and seen["players"] == [{"name": "Mina", "guest": True}]
        assert seen["games"] == 1 and seen["playing"][0]["id"] == created["id"]
        with (
            connect(app, mina, path) as again,
            connect(app, joon, path) as second,
            connect(app, nobody, path) as anonymous,
        ):
            enter(again)  # the same player twice: once online
            enter(second, invite(created, 1))
            enter(anonymous)  # counted, not named
            seen = presence_of(nobody)
            assert seen["online"] == 3
            assert seen["players"] == [{"name": "Joon", "guest": True}, {"name": "Mina", "guest": True}]
            assert seen["playing"][0]["spectators"] == 2
        wait_for(lambda: presence_of(nobody)["online"] == 1)
        assert presence_of(nobody)["players"] == [{"name": "Mina", "guest": True}]
    wait_for(lambda: presence_of(nobody)["online"] == 0)
    assert presence_of(nobody) == {"online": 0, "players": [], "games": 0, "playing": []}


def hold_seat(app: Starlette, client: TestClient, created: Frame, seat: int) -> str:
    """``client``'s player takes ``seat`` of the game by its invite, as a browser signed in does
    (the server then knows the seat as theirs); the seat's credential, to come back to it."""
    with connect(app, client, f"/ws/{created['id']}") as ws:
        ws.send_json({"type": "join", "token": invite(created, seat)})
        return str(next_of(ws, ("claimed",))["credential"])


def my_games(client: TestClient) -> list[Frame]:
    response = client.get("/api/my/games")
    assert response.status_code == 200, response.text
    games: list[Frame] = response.json()["games"]
    return games


def test_your_games_lists_ongoing_games_with_those_waiting_for_you_first(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    assert my_games(mina) == []  # no seat held anywhere
    first_game, second_game = new_game(mina), new_game(mina)
    hold_seat(app, mina, first_game, 1)  # Mina second to move here …
    hold_seat(app, mina, second_game, 0)  # … and first to move there
    joons_seat = hold_seat(app, joon, first_game, 0)

    games = my_games(mina)
    assert [(g["id"], g["seat"], g["your_move"]) for g in games] == [
        (second_game["id"], 0, True),
        (first_game["id"], 1, False),
    ]
    assert games[0]["game"] == "spline" and games[0]["plies"] == 0
    assert [(g["id"], g["your_move"]) for g in my_games(joon)] == [(first_game["id"], True)]

    path = f"/ws/{first_game['id']}"
    with connect(app, joon, path) as ws:
        ws.send_json({"type": "join", "credential": joons_seat})
        state = next_of(ws, ("state",))
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        next_of(ws, ("state",))
    assert [(g["id"], g["your_move"]) for g in my_games(joon)] == [(first_game["id"], False)]
    # Both wait for Mina now: the one moved in most recently first.
    assert [(g["id"], g["your_move"]) for g in my_games(mina)] == [(first_game["id"], True), (second_game["id"], True)]

    assert browser(app).get("/api/my/games").status_code == 401  # nobody signed in


def test_your_games_leaves_out_finished_games(app: Starlette) -> None:
    mina = guest(app, "Mina")
    created = new_game(mina)
    hold_seat(app, mina, created, 0)
    assert len(my_games(mina)) == 1
    manager: SessionManager = app.state.manager
    app.state.accounts.store.store.abort(created["id"])
    manager.sessions.pop(created["id"], None)
    assert my_games(mina) == []
