# ruff: noqa: F811  (the fixtures app and make_app come from tests.server.people)
"""Attacks on the chat, written as an attacker would try them (docs/server.md, Chat)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.websockets import WebSocketDisconnect

from spheria.server import chat
from tests.server.people import (  # noqa: F401  (fixtures)
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
from tests.server.test_chat import enter, heard, next_of, say
from tests.server.test_server import HUMAN

Frame = dict[str, Any]


def stored(app: Starlette, game_id: str, room: str) -> list[str]:
    return [m.text for m in chat.chat_of(app).store.history(game_id, room)]


def test_a_chat_flood_is_refused_then_the_socket_is_closed(make_app: MakeApp) -> None:
    app = make_app(frame_rate=0, chat_rate=0.001, chat_burst=3, chat_flood_refusals=5)
    mina = guest(app, "Mina")
    created = new_game(mina)
    with connect(app, mina, f"/ws/{created['id']}") as ws:
        enter(ws, invite(created, 0))
        for number in range(3):
            say(ws, "players", f"spam {number}")
            assert heard(ws)["type"] == "chat"
        for _ in range(4):
            say(ws, "players", "spam")
            refusal = heard(ws)
            assert refusal["code"] == "chat_rate_limited" and refusal["retry_after"] >= 1
        say(ws, "players", "spam")
        assert heard(ws)["code"] == "chat_rate_limited"
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 1008
    assert stored(app, created["id"], "players") == ["spam 0", "spam 1", "spam 2"]


def test_one_sender_on_two_sockets_shares_one_limit(make_app: MakeApp) -> None:
    app = make_app(frame_rate=0, chat_rate=100.0, chat_burst=100, chat_per_minute=3)
    mina = guest(app, "Mina")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with connect(app, mina, path) as first, connect(app, mina, path) as second:
        enter(first, invite(created, 0))
        enter(second, invite(created, 1))  # the same player in both seats
        for ws in (first, second, first):
            say(ws, "players", "hi")
            assert heard(ws)["type"] == "chat"
        say(second, "players", "one more")
        assert next_of(second, ("error",))["code"] == "chat_rate_limited"
    assert stored(app, created["id"], "players") == ["hi", "hi", "hi"]


XSS = '<script>alert(1)</script><img src=x onerror="alert(2)">&amp;'


def test_markup_is_kept_and_sent_as_the_exact_plain_text_never_in_a_page(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    created = new_game(mina)
    game_id = created["id"]
    path = f"/ws/{game_id}"
    with connect(app, mina, path) as first, connect(app, joon, path) as second:
        enter(first, invite(created, 0))
        enter(second, invite(created, 1))
        say(first, "players", XSS)
        assert heard(second)["message"]["text"] == XSS  # the exact text: the page sets it as textContent
    with connect(app, joon, path) as again:
        again.send_json({"type": "join"})
    for page in (f"/game/{game_id}", f"/replay/{game_id}", "/"):
        response = joon.get(page)
        assert "onerror" not in response.text and "<script>alert" not in response.text
        assert response.headers["content-type"].startswith("text/html")
    assert "script-src" in joon.get(f"/game/{game_id}").headers["content-security-policy"]
    assert stored(app, game_id, "players") == [XSS]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("x" * (chat.TEXT_MOST + 1), "chat_too_long"),
        ("   ", "bad_chat_text"),
        ("look \u202egnp.exe", "bad_chat_text"),
        ("bell\x07", "bad_chat_text"),
        ("line\nbreak", "bad_chat_text"),
        ("x" * 5000, "bad_frame"),
    ],
)
def test_oversized_blank_and_control_messages_are_refused_and_nothing_is_kept(
    app: Starlette, text: str, code: str
) -> None:
    mina = guest(app, "Mina")
    created = new_game(mina)
    with connect(app, mina, f"/ws/{created['id']}") as ws:
        enter(ws, invite(created, 0))
        say(ws, "players", text)
        refusal = next_of(ws, ("error",))
        assert refusal["code"] == code and refusal["message"]
        say(ws, "players", "x" * chat.TEXT_MOST)  # the longest allowed still goes through
        assert next_of(ws, ("chat",))["message"]["text"] == "x" * chat.TEXT_MOST
    assert stored(app, created["id"], "players") == ["x" * chat.TEXT_MOST]


def test_a_spectator_cannot_write_into_the_players_room_nor_a_player_into_the_spectators(app: Starlette) -> None:
    mina, sora = guest(app, "Mina"), guest(app, "Sora")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with connect(app, mina, path) as seat, connect(app, sora, path) as watcher:
        enter(seat, invite(created, 0))
        enter(watcher)
        say(watcher, "players", "psst, move there")
        assert next_of(watcher, ("error", "chat"))["code"] == "wrong_room"
        say(seat, "spectators", "hello watchers")
        assert next_of(seat, ("error", "chat"))["code"] == "wrong_room"
        say(seat, "players", "alone")
        assert next_of(seat, ("chat", "error"))["message"]["text"] == "alone"  # nothing else reached the seat
        seat.send_json({"type": "chat", "room": "everyone", "text": "hi"})
        assert next_of(seat, ("error",))["code"] == "wrong_room"
    assert stored(app, created["id"], "players") == ["alone"]
    assert stored(app, created["id"], "spectators") == []


def test_strangers_cannot_chat_before_joining_without_a_name_or_with_a_stolen_looking_credential(
    app: Starlette,
) -> None:
    mina = guest(app, "Mina")
    created = new_game(mina)
    nobody = browser(app)
    path = f"/ws/{created['id']}"
    with connect(app, nobody, path) as ws:
        say(ws, "players", "before joining")
        assert next_of(ws, ("error",))["code"] == "not_joined"
        ws.send_json({"type": "join", "credential": "A" * 43})
        assert next_of(ws, ("error",))["code"] == "bad_credential"
        say(ws, "spectators", "still not joined")
        assert next_of(ws, ("error",))["code"] == "not_joined"
        enter(ws)  # an anonymous spectator reads, but writes under no name
        say(ws, "spectators", "anonymous words")
        assert next_of(ws, ("error", "chat"))["code"] == "not_signed_in"
    forged = browser(app)  # a session cookie nobody issued is nobody
    forged.cookies.set("spheria_session", "made-up-token")
    with connect(app, forged, path) as ws:
        enter(ws)
        say(ws, "spectators", "i am someone")
        assert next_of(ws, ("error", "chat"))["code"] == "not_signed_in"
    assert stored(app, created["id"], "spectators") == []


def test_a_sender_cannot_set_its_own_name_or_seat(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    with connect(app, mina, path) as first, connect(app, joon, path) as second:
        enter(first, invite(created, 0))
        enter(second, invite(created, 1))
        for extra in ({"name": "Joon"}, {"seat": 1}, {"guest": False}, {"sender": "x"}):
            first.send_json({"type": "chat", "room": "players", "text": "it is me", **extra})
            assert next_of(first, ("error", "chat"))["code"] == "bad_frame"
        say(first, "players", "it is me")
        message = heard(second)["message"]
        assert message["name"] == "Mina" and message["guest"] is True and message["seat"] == 0
    # A seat holder with no session speaks under the seat's name, never one it chose.
    anonymous = browser(app)
    other = new_game(mina)
    with connect(app, anonymous, f"/ws/{other['id']}") as ws:
        enter(ws, invite(other, 1))
        say(ws, "players", "hi")
        message = next_of(ws, ("chat",))["message"]
        assert message["name"] == "Black" and message["guest"] is False and message["seat"] == 1


def said_in(app: Starlette, created: Frame, speaker: Any, text: str) -> int:
    with connect(app, speaker, f"/ws/{created['id']}") as ws:
        enter(ws, invite(created, 0))
        say(ws, "players", text)
        message_id: int = next_of(ws, ("chat",))["message"]["id"]
    return message_id


def test_a_report_flood_is_limited_and_kept_once_per_message(make_app: MakeApp) -> None:
    app = make_app(frame_rate=0, chat_rate=100.0, chat_burst=100, chat_reports_per_hour=3)
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    created = new_game(mina)
    path = f"/ws/{created['id']}"
    ids = []
    with connect(app, mina, path) as first, connect(app, joon, path) as second:
        enter(first, invite(created, 0))
        enter(second, invite(created, 1))
        for number in range(5):
            say(first, "players", f"m{number}")
            ids.append(heard(second)["message"]["id"])
    base = f"/api/games/{created['id']}/chat"
    assert send(joon, "POST", f"{base}/{ids[0]}/report").status_code == 200
    assert send(joon, "POST", f"{base}/{ids[0]}/report").status_code == 200  # the same report again
    assert send(joon, "POST", f"{base}/{ids[1]}/report").status_code == 200
    response = send(joon, "POST", f"{base}/{ids[2]}/report")
    assert response.status_code == 429 and int(response.headers["retry-after"]) > 0
    assert response.json()["error"]["code"] == "rate_limited"
    reports = chat.chat_of(app).store.reports()
    assert sorted(r["message"] for r in reports) == [ids[0], ids[1]]


def test_mute_and_report_by_strangers_are_refused(app: Starlette) -> None:
    mina, joon, stranger = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Eve")
    created = new_game(mina)
    message_id = said_in(app, created, mina, "hello")
    base = f"/api/games/{created['id']}/chat/{message_id}"
    for action in ("mute", "report"):
        # Signed in but never in that room: the message does not exist for them.
        response = send(stranger, "POST", f"{base}/{action}")
        assert response.status_code == 404 and response.json()["error"]["code"] == "no_message"
        # Not signed in at all.
        assert send(browser(app), "POST", f"{base}/{action}").status_code == 401
        # From another site: no CSRF token.
        response = joon.post(f"{base}/{action}", json={})
        assert response.status_code == 403 and response.json()["error"]["code"] == "bad_csrf"
        # Nonsense ids.
        for bad in ("abc", "-1", "9" * 40, "99999"):
            response = send(joon, "POST", f"/api/games/{created['id']}/chat/{bad}/{action}")
            assert response.status_code == 404
    assert chat.chat_of(app).store.reports() == []
    assert chat.chat_of(app).store.mutes(_id(app, "Eve")) == set()
    assert chat.chat_of(app).store.mutes(_id(app, "Joon")) == set()


def _id(app: Starlette, name: str) -> str:
    row = app.state.accounts.store.store.transaction(
        lambda db: db.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
    )
    return str(row[0])


def test_another_games_chat_cannot_be_read_reported_or_muted_through_this_one(app: Starlette) -> None:
    mina, joon = guest(app, "Mina"), guest(app, "Joon")
    game_a, game_b = new_game(mina), new_game(joon)
    secret = said_in(app, game_a, mina, "only for game A")
    with connect(app, joon, f"/ws/{game_b['id']}") as ws:
        history = enter(ws, invite(game_b, 0))
        assert history["messages"] == []
        say(ws, "players", "game B talk")
        assert next_of(ws, ("chat",))["message"]["text"] == "game B talk"
    # Joon reads game B, not game A: game A's message is not theirs to report or mute, by either path.
    for game_id in (game_a["id"], game_b["id"]):
        for action in ("report", "mute"):
            response = send(joon, "POST", f"/api/games/{game_id}/chat/{secret}/{action}")
            assert response.status_code == 404
    # Joining game A as a spectator gives the spectators' room only.
    with connect(app, joon, f"/ws/{game_a['id']}") as ws:
        history = enter(ws)
        assert history == {"type": "chat_history", "room": "spectators", "messages": []}
    assert send(joon, "POST", f"/api/games/{game_a['id']}/chat/{secret}/report").status_code == 404


def test_no_chat_frame_reveals_a_hidden_spagyric_choice(app: Starlette) -> None:
    mina, joon, sora = guest(app, "Mina"), guest(app, "Joon"), guest(app, "Sora")
    created = new_game(mina, "spagyric", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    seen: dict[str, list[Frame]] = {"joon": [], "sora": []}
    with (
        connect(app, mina, path) as north,
        connect(app, joon, path) as south,
        connect(app, sora, path) as watcher,
    ):
        north.send_json({"type": "join", "token": invite(created, 0)})
        next_of(north, ("chat_history",))  # sent before the game's first state
        state = next_of(north, ("state",))
        seen["joon"].append(enter(south, invite(created, 1)))
        seen["sora"].append(enter(watcher))
        choice = state["legal_moves"][0]
        north.send_json({"type": "move", "move": choice, "version": state["version"]})
        assert next_of(north, ("state",))["your_choice"] == choice
        say(north, "players", "I have chosen")
        say(watcher, "spectators", "what did they pick?")
        say(south, "players", "me next")
        for who, ws, last in (("joon", south, "me next"), ("sora", watcher, "what did they pick?")):
            while True:
                frame = next_of(ws, ("chat", "chat_history", "error"))
                seen[who].append(frame)
                if frame["type"] == "chat" and frame["message"]["text"] == last:
                    break
        with connect(app, sora, path) as late:  # a late spectator's history too
            seen["sora"].append(enter(late))
    messages = [m for frames in seen.values() for f in frames for m in f.get("messages", [f.get("message")]) if m]
    assert messages, "the chat frames were read"
    for frames in seen.values():
        for frame in frames:
            assert frame["type"] in ("chat", "chat_history"), frame
            assert set(frame) <= {"type", "room", "message", "messages"}
    for message in messages:
        # Only the sender's name, seat and own words: no field the server fills could carry the choice.
        assert set(message) == {"id", "name", "guest", "seat", "text", "at"}
        assert message["name"] in ("Mina", "Joon", "Sora") and message["text"] in (
            "I have chosen",
            "what did they pick?",
            "me next",
        )
