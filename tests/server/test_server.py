"""The server in-process: HTTP API, websocket protocol, bad input, agents and persistence.

Each test runs the real ASGI app (Starlette's test client) on a SQLite file in a temporary
folder, with agents in a thread pool so that test-only games and agents are visible to them.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

import spheria
from spheria.agents import registry
from spheria.engine.board import SITE_NAMES
from spheria.kernel.agent import Agent
from spheria.kernel.game import PlayerView
from spheria.kernel.record import Record
from spheria.server import app as app_module
from spheria.server import connection as connection_module
from spheria.server.app import create_app
from spheria.server.limits import Limits
from spheria.server.ownership import CLOSE_RESTART
from spheria.server.protocol import MAX_FRAME

Frame = dict[str, Any]
#: Starlette's test client calls the server "testserver".
TEST_LIMITS = Limits(allowed_hosts=("testserver",))
MakeClient = Callable[..., TestClient]


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[MakeClient]:
    """``make_client(db=None)``: a running app on ``db`` (default: one file per test)."""
    opened: list[TestClient] = []

    def make(db: Path | None = None) -> TestClient:
        db_path = str(db or tmp_path / "games.sqlite3")
        app = create_app(db_path, executor=ThreadPoolExecutor(4), agent_delay=0, limits=TEST_LIMITS)
        client = TestClient(app)
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


def create(client: TestClient, game: str, seats: list[Frame], **options: Any) -> Frame:
    response = client.post("/api/games", json={"game": game, "options": options, "seats": seats, "seed": 11})
    assert response.status_code == 201, response.text
    data: Frame = response.json()
    return data


def token_of(created: Frame, seat: int) -> str:
    invite = created["seats"][seat]["invite"]
    assert invite.startswith(f"/game/{created['id']}#")
    return str(invite.split("#", 1)[1])


HUMAN = {"kind": "human"}
RANDOM = {"kind": "agent", "agent": "random:seed=5"}


def receive(ws: WebSocketTestSession, until: Callable[[Frame], bool], seen: list[Frame] | None = None) -> Frame:
    """Read frames until one satisfies ``until``; every frame read is added to ``seen``."""
    while True:
        frame: Frame = ws.receive_json()
        if seen is not None:
            seen.append(frame)
        if until(frame):
            return frame


#: The credential each invite token was exchanged for (as the browser that opened it keeps it).
CLAIMS: dict[str, str] = {}


def join(ws: WebSocketTestSession, token: str | None = None) -> tuple[Frame, Frame]:
    """Join with an invite token (claiming its seat) or, if this token was claimed, its credential."""
    if token is None:
        ws.send_json({"type": "join"})
    elif token in CLAIMS:
        ws.send_json({"type": "join", "credential": CLAIMS[token]})
    else:
        ws.send_json({"type": "join", "token": token})

    def welcomed(frame: Frame) -> bool:
        assert frame["type"] != "error", frame
        if frame["type"] == "claimed" and token is not None:
            CLAIMS[token] = frame["credential"]
        return bool(frame["type"] == "welcome")

    welcome = receive(ws, welcomed)
    state = receive(ws, lambda f: f["type"] == "state")
    return welcome, state


def state_at(ws: WebSocketTestSession, version: int, seen: list[Frame] | None = None) -> Frame:
    """The first state frame at ``version`` or later; an error frame on the way fails the test."""

    def wanted(frame: Frame) -> bool:
        assert frame["type"] != "error", frame
        return bool(frame["type"] == "state" and frame["version"] >= version)

    return receive(ws, wanted, seen)


def error(ws: WebSocketTestSession) -> Frame:
    return receive(ws, lambda f: f["type"] == "error")


# -- HTTP API ------------------------------------------------------------------------------


def test_catalog_lists_every_game_with_its_options_and_the_agents(client: TestClient) -> None:
    data = client.get("/api/catalog").json()
    names = {g["name"] for g in data["games"]}
    assert names == set(spheria.game_names())
    cake = next(g for g in data["games"] if g["name"] == "special-cake")
    variant = next(o for o in cake["options"] if o["name"] == "variant")
    assert variant["choices"] == ["mint", "sugar", "poisoned"]
    assert "random" in data["agents"]


def test_check_names_the_seats_and_refuses_unknown_options(client: TestClient) -> None:
    ok = client.post("/api/check", json={"game": "special-cake", "options": {"variant": "poisoned"}})
    assert ok.json()["players"] == ["Mint", "Liquorice"]
    bad = client.post("/api/check", json={"game": "special-cake", "options": {"flavour": "lemon"}})
    assert bad.status_code == 400
    assert "no option 'flavour'" in bad.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ({"game": "chess", "seats": [HUMAN, HUMAN]}, "bad_game", "unknown game 'chess'"),
        ({"game": "special-cake", "options": {"variant": "lemon"}, "seats": [HUMAN, HUMAN]}, "bad_game", "variant"),
        ({"game": "special-cake", "seats": [HUMAN]}, "bad_seats", "has 2 seats; 1 given"),
        (
            {"game": "special-cake", "seats": [HUMAN, {"kind": "agent", "agent": "nobody"}]},
            "bad_seats",
            "unknown agent",
        ),
        ({"game": "special-cake", "seats": [HUMAN, {"kind": "robot"}]}, "bad_seats", "kind must be"),
        ({"game": "spline", "seats": [HUMAN, {"kind": "agent", "agent": "mcts:time=600"}]}, "bad_seats", "10, not 600"),
        ({"game": "special-cake", "seats": "two"}, "bad_seats", "seats"),
        ({"game": "special-cake", "seats": [HUMAN, HUMAN], "admin": True}, "bad_game", "unexpected field 'admin'"),
        ({"game": "special-cake", "seats": [HUMAN, HUMAN], "seed": "x"}, "bad_game", "seed"),
    ],
)
def test_creating_a_bad_game_is_refused_with_a_clear_error(
    client: TestClient, body: Frame, code: str, words: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert words in response.json()["error"]["message"]
    assert client.get("/api/games").json()["games"] == []


def test_malformed_and_oversize_bodies_are_refused(client: TestClient) -> None:
    response = client.post("/api/games", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_json"
    big = json.dumps({"game": "special-cake", "seats": [HUMAN, HUMAN], "options": {"x": "y" * 40000}})
    response = client.post("/api/games", content=big.encode(), headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_large"


def test_a_new_game_gives_each_human_seat_its_own_secret_invite(client: TestClient) -> None:
    created = create(client, "special-cake", [HUMAN, HUMAN], variant="mint")
    first, second = token_of(created, 0), token_of(created, 1)
    assert first != second and len(first) >= 40
    assert created["seats"][0]["name"] == "Mint"
    listed = client.get("/api/games").json()["games"]
    assert [g["id"] for g in listed] == [created["id"]]
    assert first not in json.dumps(listed) and second not in json.dumps(listed)
    info = client.get(f"/api/games/{created['id']}").json()
    assert first not in json.dumps(info)
    assert client.get("/api/games/nope").status_code == 404


def test_pages_and_static_files_are_served_by_the_package(client: TestClient) -> None:
    for path in ("/", "/game/abc", "/replay/abc"):
        page = client.get(path)
        assert page.status_code == (200 if path == "/" else 404)  # no game abc: the page says so
        assert '<script type="module"' in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
    script = client.get("/static/js/board.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert "http" not in client.get("/static/css/spheria.css").text.replace("http://www.w3.org", "")


# -- the websocket ------------------------------------------------------------------------


def test_a_seat_gets_its_legal_moves_and_a_spectator_gets_none(client: TestClient) -> None:
    created = create(client, "special-cake", [HUMAN, HUMAN], variant="mint")
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        welcome, state = join(ws, token_of(created, 0))
        assert welcome["seat"] == 0
        assert state["to_move"] == 0 and len(state["legal_moves"]) == 16
        assert state["status"][0].startswith("Set-up: Mint places")
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        welcome, state = join(ws)
        assert welcome["seat"] is None
        assert state["legal_moves"] == [] and state["observation"]["player"] is None


def test_every_state_change_reaches_every_client_at_once(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    with (
        client.websocket_connect(path) as white,
        client.websocket_connect(path) as black,
        client.websocket_connect(path) as watcher,
    ):
        join(white, token_of(created, 0))
        join(black, token_of(created, 1))
        join(watcher)
        white.send_json({"type": "move", "move": "0b2", "version": 0})
        for ws in (white, black, watcher):
            frame = state_at(ws, 1)
            assert frame["last_move"] == "0b2"
            assert frame["board"].startswith(".....w")
        black.send_json({"type": "move", "move": "0c3"})
        frames = [state_at(ws, 2) for ws in (white, black, watcher)]
        assert {f["last_move"] for f in frames} == {"0c3"}
        assert frames[0]["legal_moves"] and not frames[1]["legal_moves"] and not frames[2]["legal_moves"]


def test_a_join_to_a_session_let_go_meanwhile_starts_again_on_the_live_one(client: TestClient) -> None:
    """A live game's session can leave memory between a socket's opening and its join (a cluster
    process lets go an adopted game nobody was connected to). The join must not attach to the
    session let go: the other seat would join a new one, and neither would see the other's moves.
    It is told to start again (1012, as when a game moves to another process), and then plays."""
    created = create(client, "spline", [HUMAN, HUMAN])
    path = f"/ws/{created['id']}"
    manager = client.app.state.manager  # type: ignore[attr-defined]
    assert client.portal is not None
    with client.websocket_connect(path) as white:
        white.send_json({"type": "ping"})
        receive(white, lambda f: f["type"] == "pong")  # the socket holds its session now
        client.portal.call(manager.evict, manager.sessions[created["id"]])
        with pytest.raises(WebSocketDisconnect) as closed:
            join(white, token_of(created, 0))  # claimed and welcomed, but no state: closed instead
        assert closed.value.code == CLOSE_RESTART
    with client.websocket_connect(path) as white, client.websocket_connect(path) as black:
        join(white, token_of(created, 0))  # the seat claimed above, by its credential
        join(black, token_of(created, 1))
        white.send_json({"type": "move", "move": "0b2", "version": 0})
        assert [state_at(ws, 1)["last_move"] for ws in (white, black)] == ["0b2", "0b2"]


def bad_input_cases() -> list[tuple[Any, str, str]]:
    return [
        ("not json", "bad_frame", "not valid JSON"),
        ("[1, 2]", "bad_frame", "JSON object"),
        ('{"type": "dance"}', "bad_frame", "unknown frame type"),
        ('{"type": "move"}', "bad_frame", "'move' is required"),
        ('{"type": "move", "move": 7}', "bad_frame", "must be a str"),
        ('{"type": "move", "move": "0a1", "seat": 1}', "bad_frame", "unexpected field 'seat'"),
        ('{"type": "preview", "move": "0a1", "complete": true}', "bad_frame", "unexpected field 'complete'"),
        ('{"type": "move", "move": "0a1", "version": true}', "bad_frame", "must be a int"),
        (json.dumps({"type": "move", "move": "0a1" + " " * MAX_FRAME}), "bad_frame", "frame too large"),
        (b"\x00\x01binary", "bad_frame", "JSON text frames"),
        ('{"type": "move", "move": "9z9"}', "illegal_move", "not a site name"),
        ('{"type": "move", "move": "1a1"}', "illegal_move", "cannot take a candy"),
        ('{"type": "move", "move": "0a1", "version": 5}', "stale", "moved on"),
        ('{"type": "join", "token": "x"}', "already_joined", "already joined"),
    ]


def test_bad_input_gets_a_clear_error_and_changes_nothing(client: TestClient) -> None:
    created = create(client, "special-cake", [HUMAN, HUMAN], variant="mint")
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, start = join(ws, token_of(created, 0))
        for payload, code, words in bad_input_cases():
            if isinstance(payload, bytes):
                ws.send_bytes(payload)
            else:
                ws.send_text(payload)
            frame = error(ws)
            assert frame["code"] == code, (payload, frame)
            assert words in frame["message"], (payload, frame)
        ws.send_json({"type": "ping"})
        assert receive(ws, lambda f: f["type"] not in ("state", "presence")) == {"type": "pong"}
        # Nothing changed: the same position, and the connection still plays.
        ws.send_json({"type": "move", "move": "0a1", "version": 0})
        after = state_at(ws, 1)
        assert after["observation"]["history"] == ["0a1"]
    assert start["version"] == 0


def test_a_move_out_of_turn_or_by_a_spectator_or_before_joining_is_refused(client: TestClient) -> None:
    created = create(client, "special-cake", [HUMAN, HUMAN], variant="mint")
    path = f"/ws/{created['id']}"
    with client.websocket_connect(path) as mint, client.websocket_connect(path) as liquorice:
        liquorice.send_json({"type": "move", "move": "0a1"})
        assert error(liquorice)["code"] == "not_joined"
        liquorice.send_json({"type": "join", "token": token_of(created, 0) + "x"})
        assert error(liquorice)["code"] == "bad_token"
        liquorice.send_json({"type": "join", "token": ""})
        assert error(liquorice)["code"] == "bad_token"
        join(liquorice, token_of(created, 1))
        join(mint, token_of(created, 0))
        liquorice.send_json({"type": "move", "move": "0a1"})
        frame = error(liquorice)
        assert frame["code"] == "not_your_turn" and "Mint's turn" in frame["message"]
        with client.websocket_connect(path) as watcher:
            join(watcher)
            watcher.send_json({"type": "move", "move": "0a1"})
            assert error(watcher)["code"] == "spectator"
            watcher.send_json({"type": "preview", "move": "0a1"})
            assert error(watcher)["code"] == "spectator"
        mint.send_json({"type": "move", "move": "0a1"})
        assert state_at(liquorice, 1)["observation"]["history"] == ["0a1"]


def test_an_unknown_game_gets_an_error_frame(client: TestClient) -> None:
    with client.websocket_connect("/ws/no-such-game") as ws:
        frame = ws.receive_json()
        assert frame == {"type": "error", "code": "unknown_game", "message": "no game with that id"}


def test_preview_shows_the_drops_of_a_candidate_eating_move(client: TestClient) -> None:
    created = create(client, "special-cake", [HUMAN, HUMAN], variant="sugar")
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        game = spheria.load_game("special-cake", variant="sugar")
        position = game.new_initial_state(11)
        assert state["board"] == position.to_spn().split()[0]
        ws.send_json({"type": "preview", "move": "0a1"})
        preview = receive(ws, lambda f: f["type"] == "preview")
        assert preview["ok"] and preview["canonical"] == "0a1"
        assert preview["board"] == position.child(position.parse_move("0a1")).to_spn().split()[0]
        ws.send_json({"type": "preview", "move": "1b2"})
        pinned = receive(ws, lambda f: f["type"] == "preview")
        assert not pinned["ok"] and "pinned" in pinned["error"]
        # A preview changes nothing.
        ws.send_json({"type": "move", "move": "0a1", "version": 0})
        assert state_at(ws, 1)["version"] == 1


def test_the_clicks_after_a_spinca_relocation_are_the_placements_that_complete_it(client: TestClient) -> None:
    """The page builds a move from the seat's click tree alone: after a marble and where it goes,
    the clicks offered are exactly the placements that make a legal move; a preview of the
    relocation alone is refused, naming why, and is never a move."""
    created = create(client, "spinca", [HUMAN, HUMAN])
    with (
        client.websocket_connect(f"/ws/{created['id']}") as white,
        client.websocket_connect(f"/ws/{created['id']}") as black,
    ):
        join(white, token_of(created, 0))
        join(black, token_of(created, 1))
        for version, (ws, move) in enumerate([(white, "0a1"), (black, "0d4"), (white, "0b1")]):
            ws.send_json({"type": "move", "move": move})
            state_at(white, version + 1)
        state = state_at(black, 3)
        relocation = state["clicks"]["next"]["0a1"]["next"]["0a2"]
        assert "move" not in relocation and relocation["board"].startswith(".w")  # 0a1's marble is on 0a2
        sites = set(relocation["next"])
        position = spheria.load_game("spinca").new_initial_state()
        for move in ("0a1", "0d4", "0b1"):
            position.apply(position.parse_move(move))
        expected = set()
        for site in SITE_NAMES:
            try:
                position.parse_move(f"0a1-0a2 {site}")
            except spheria.MoveError:
                continue
            expected.add(site)
        assert sites == expected and "0a1" in sites and "0b1" not in sites  # 0b1 is taken
        for site in sites:
            assert state["legal_moves"][relocation["next"][site]["move"]] == f"0a1-0a2 {site}"
        black.send_json({"type": "preview", "move": "0a1-0a2"})
        preview = receive(black, lambda f: f["type"] == "preview")
        assert not preview["ok"] and "places none" in preview["error"] and "board" not in preview
        assert state["observation"]["locked"] == ["0b1"]


# -- agents --------------------------------------------------------------------------------


def play_out(ws: WebSocketTestSession, seat: int, state: Frame, rng: random.Random) -> Frame:
    """Play random legal moves for ``seat`` until the game ends; returns the last frame."""
    while not state["terminal"]:
        if state["legal_moves"]:
            ws.send_json({"type": "move", "move": rng.choice(state["legal_moves"]), "version": state["version"]})
        state = state_at(ws, state["version"] + 1)
    return state


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("special-cake", {"variant": "mint"}),
        ("special-cake", {"variant": "sugar"}),
        ("special-cake", {"variant": "poisoned"}),
        ("spline", {}),
        ("spinca", {"players": 2}),
    ],
)
def test_a_human_plays_a_whole_game_against_an_agent_seat(client: TestClient, game: str, options: Frame) -> None:
    created = create(client, game, [HUMAN, RANDOM], **options)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 0))
        final = play_out(ws, 0, state, random.Random(3))
    assert final["result"]["winners"] or final["result"]["text"].startswith("Draw")
    info = client.get("/api/games").json()["games"][0]
    assert info["status"] == "finished" and info["result"] == final["result"]
    record = client.get(f"/api/games/{created['id']}/record")
    assert "attachment" in record.headers["content-disposition"]
    replayed = Record.from_json(record.json()).replay()
    assert replayed.is_terminal() and replayed.history_notation() == final["observation"]["history"]
    replay = client.get(f"/api/games/{created['id']}/replay").json()
    assert len(replay["steps"]) == len(replay["moves"]) + 1
    assert replay["steps"][-1]["board"] == final["board"]


def test_spinca_for_three_and_four_seats_runs_with_agents_only(client: TestClient) -> None:
    for players in (3, 4):
        created = create(client, "spinca", [RANDOM] * players, players=players)
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            _, state = join(ws)
            final = state if state["terminal"] else receive(ws, lambda f: f["type"] == "state" and f["terminal"])
        assert len(final["observation"]["history"]) == 29
        assert [p["kind"] for p in final["players"]] == ["agent"] * players
        assert final["observation"]["scores"]


def test_the_record_and_replay_wait_for_the_end_of_the_game(client: TestClient) -> None:
    created = create(client, "spline", [HUMAN, HUMAN])
    assert client.get(f"/api/games/{created['id']}/record").status_code == 409
    assert client.get(f"/api/games/{created['id']}/replay").status_code == 409


class GateAgent(Agent):
    """An agent that thinks until the test lets it go: a stand-in for a very slow agent."""

    gate = threading.Event()
    started = threading.Event()

    def __init__(self) -> None:
        self.name = "gate"

    def choose(self, view: PlayerView, player: int) -> Any:
        GateAgent.started.set()
        assert GateAgent.gate.wait(60)
        return view.legal_moves(player)[0]


@pytest.fixture
def gate_agent() -> Iterator[type[GateAgent]]:
    GateAgent.gate.clear()
    GateAgent.started.clear()
    registry.register_agent("test-gate", GateAgent)
    yield GateAgent
    GateAgent.gate.set()
    registry._AGENTS.pop("test-gate", None)


def test_a_slow_agent_never_blocks_other_games(client: TestClient, gate_agent: type[GateAgent]) -> None:
    slow = create(client, "spline", [{"kind": "agent", "agent": "test-gate"}, HUMAN])
    assert gate_agent.started.wait(30)  # the slow agent is thinking now, and will until released
    other = create(client, "spline", [HUMAN, RANDOM])
    with client.websocket_connect(f"/ws/{other['id']}") as ws:
        _, state = join(ws, token_of(other, 0))
        for _ in range(3):  # three moves each, answered by the agent, while the slow one thinks
            ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
            state = state_at(ws, state["version"] + 2)
        assert len(state["observation"]["history"]) == 6
    with client.websocket_connect(f"/ws/{slow['id']}") as ws:
        _, waiting = join(ws, token_of(slow, 1))
        assert waiting["version"] == 0 and waiting["to_move"] == 0
        gate_agent.gate.set()
        assert state_at(ws, 1)["to_move"] == 1


# -- persistence ---------------------------------------------------------------------------


def play_both(
    sockets: list[WebSocketTestSession], frames: list[Frame], rng: random.Random, moves: int | None = None
) -> Frame:
    """Two seats on two sockets (their latest frames given) play random moves; returns seat 0's last frame."""
    played = 0
    while not frames[0]["terminal"] and (moves is None or played < moves):
        mover = frames[0]["to_move"]
        move = rng.choice(frames[mover]["legal_moves"])
        sockets[mover].send_json({"type": "move", "move": move, "version": frames[mover]["version"]})
        after = state_at(sockets[mover], frames[0]["version"] + 1)
        frames = [after if i == mover else state_at(ws, after["version"]) for i, ws in enumerate(sockets)]
        played += 1
    return frames[0]


def test_a_game_survives_a_server_restart_and_the_seat_link_resumes_it(make_client: MakeClient, tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    first = make_client(db)
    created = create(first, "special-cake", [HUMAN, HUMAN], variant="poisoned")
    mint, liquorice = token_of(created, 0), token_of(created, 1)
    rng = random.Random(8)
    path = f"/ws/{created['id']}"
    with first.websocket_connect(path) as a, first.websocket_connect(path) as b:
        _, frame_a = join(a, mint)
        _, frame_b = join(b, liquorice)
        before = play_both([a, b], [frame_a, frame_b], rng, moves=12)
    played = before["observation"]["history"]
    assert len(played) == 12
    first.__exit__(None, None, None)  # the server stops

    stored = sqlite3.connect(db).execute("SELECT token_hash FROM seats").fetchall()
    assert all(len(h) == 64 and h not in (mint, liquorice) for (h,) in stored)
    assert mint.encode() not in db.read_bytes() and liquorice.encode() not in db.read_bytes()

    second = make_client(db)  # the server starts again on the same file
    with second.websocket_connect(path) as a, second.websocket_connect(path) as b:
        _, resumed = join(a, mint)
        _, frame_b = join(b, liquorice)
        assert resumed["observation"]["history"] == played
        assert resumed["version"] == 12 and resumed["board"] == before["board"]
        final = play_both([a, b], [resumed, frame_b], rng)
    assert final["terminal"] and final["result"]["winners"]
    assert second.get("/api/games?status=finished").json()["games"][0]["id"] == created["id"]
    replayed = Record.from_json(second.get(f"/api/games/{created['id']}/record").json()).replay()
    assert replayed.history_notation()[:12] == played


def test_an_agent_game_left_running_is_finished_after_a_restart(make_client: MakeClient, tmp_path: Path) -> None:
    db = tmp_path / "agents.sqlite3"
    first = make_client(db)
    created = create(first, "spline", [RANDOM, HUMAN])
    with first.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 1))
        if state["version"] < 1:  # the agent seat opens; it may have done so before we joined
            state = state_at(ws, 1)
        ws.send_json({"type": "move", "move": state["legal_moves"][0], "version": 1})
        state_at(ws, 2)  # the human has moved; the agent is now to move (and may already have)
    first.__exit__(None, None, None)
    second = make_client(db)
    with second.websocket_connect(f"/ws/{created['id']}") as ws:
        _, state = join(ws, token_of(created, 1))
        assert state["version"] >= 2
        final = play_out(ws, 1, state, random.Random(1))
    assert final["terminal"]


def test_a_flood_of_frames_is_rate_limited_and_the_connection_stays_up(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_module, "clock", lambda: 1000.0)  # time stands still: no allowance is earned
    burst = int(2 * app_module.FRAME_RATE)
    created = create(client, "spline", [HUMAN, HUMAN])
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        join(ws, token_of(created, 0))  # one frame of the burst
        for _ in range(burst + 4):
            ws.send_json({"type": "ping"})
        replies = [receive(ws, lambda f: f["type"] not in ("state", "presence")) for _ in range(burst + 4)]
        assert replies.count({"type": "pong"}) == burst - 1
        assert {r.get("code") for r in replies if r["type"] == "error"} == {"rate_limited"}
        monkeypatch.setattr(connection_module, "clock", lambda: 1010.0)  # ten seconds later: allowed again
        ws.send_json({"type": "ping"})
        assert receive(ws, lambda f: f["type"] not in ("state", "presence")) == {"type": "pong"}
