"""The server answers a person in the language of the request (``?lang=``, else ``Accept-Language``)
or of the websocket: the details of its refusals and the rules' reasons are translated, the codes
beside them are the same in every language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from spheria.server.app import create_app
from spheria.server.limits import Limits

HANGUL = re.compile("[가-힣]")
KOREAN = {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
HUMAN = {"kind": "human"}
RANDOM = {"kind": "agent", "agent": "random:seed=5"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(allowed_hosts=("testserver",), create_burst=100)
    app = create_app(str(tmp_path / "games.sqlite3"), executor=ThreadPoolExecutor(2), agent_delay=0, limits=limits)
    with TestClient(app) as test_client:
        yield test_client


def check(client: TestClient, spn: str, headers: dict[str, str], query: str = "", game: str = "spline") -> Any:
    response = client.post(f"/api/position/check{query}", json={"game": game, "spn": spn}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


#: Impossible positions, the kind of fault the editor names by code, and the rules' English sentence.
IMPOSSIBLE = [
    (
        "spline",
        "................/........./..w./. 1",
        "board",
        "ball on 2a2 floats: a ball needs all four balls below it",
    ),
    ("spline", "www.bbbb......../........./..../. 1", "rules", "4 black"),
    ("spline", "w" * 300, "spn", "the position is 300 characters long; SPN has at most 200"),
    ("spline", "가나다", "spn", "the position may hold only printable ASCII characters"),
    ("spinca", "w.............../........./..../. 2", "rules", "Spinca SPN has 3 fields"),
    ("special-cake", "................/........w/..../. 1 place", "board", "floats"),
]


@pytest.mark.parametrize(("game", "spn", "code", "english"), IMPOSSIBLE, ids=[f"{g}-{c}" for g, _, c, _ in IMPOSSIBLE])
def test_the_editor_gives_the_reason_in_the_language_of_the_request(
    client: TestClient, game: str, spn: str, code: str, english: str
) -> None:
    korean = check(client, spn, KOREAN, game=game)
    assert korean["ok"] is False and HANGUL.search(korean["reason"]), korean
    assert english not in korean["reason"]
    in_english = check(client, spn, ENGLISH, game=game)
    assert in_english["ok"] is False and english in in_english["reason"] and not HANGUL.search(in_english["reason"])
    assert korean["code"] == in_english["code"] == code  # the machine-readable kind never changes


def test_lang_in_the_query_is_the_pages_own_switch_and_outweighs_the_header(client: TestClient) -> None:
    spn = "................/........./..w./. 1"
    assert HANGUL.search(check(client, spn, ENGLISH, "?lang=ko")["reason"])
    assert not HANGUL.search(check(client, spn, KOREAN, "?lang=en")["reason"])
    assert HANGUL.search(check(client, spn, KOREAN, "?lang=xx")["reason"])  # not one we speak: the header decides


def test_a_turned_half_built_position_is_refused_in_korean(client: TestClient) -> None:
    body = {"game": "spline", "spn": "www.bbbb......../........./..../. 1", "symmetry": 1}
    answer = client.post("/api/position/transform", json=body, headers=KOREAN).json()
    assert answer["ok"] is False and answer["code"] == "rules" and HANGUL.search(answer["reason"]), answer
    refused = client.post("/api/position/transform", json={**body, "symmetry": 9}, headers=KOREAN).json()
    assert refused["error"]["code"] == "bad_position" and "0부터 7까지" in refused["error"]["message"]
    floating = {**body, "spn": "................/........./..w./. 1"}  # a board that cannot stand is not turned
    refused = client.post("/api/position/transform", json=floating, headers=KOREAN).json()
    assert refused["error"]["code"] == "bad_position" and "떠 있습니다" in refused["error"]["message"]


def refusal(client: TestClient, body: dict[str, Any], headers: dict[str, str]) -> dict[str, str]:
    response = client.post("/api/games", json=body, headers=headers)
    assert response.status_code == 400, response.text
    error: dict[str, str] = response.json()["error"]
    return error


#: New games a person can get refused from the lobby or the editor, and the English words of each.
REFUSED_GAMES = [
    ({"game": "spline", "seats": [HUMAN]}, "bad_seats", "Spline with these options has 2 seats; 1 given"),
    ({"game": "spinca", "options": {"players": 9}, "seats": [HUMAN, RANDOM]}, "bad_game", "must be one of 2, 3, 4"),
    ({"game": "spline", "options": {"x": 1}, "seats": [HUMAN, RANDOM]}, "bad_game", "spline has no option 'x'"),
    ({"game": "spline", "seats": [HUMAN, {"kind": "agent", "agent": ""}]}, "bad_seats", "an agent seat needs a spec"),
    (
        {"game": "spline", "seats": [HUMAN, RANDOM], "start": "wwww.bbbb......./........./..../. 1"},
        "bad_position",
        "White has the line 0a1 0b1 0c1 0d1",
    ),
    (
        {"game": "spline", "seats": [HUMAN, RANDOM], "start": "bwwwwbbbbbbwbwbw/wwwwbww.b/.b../. 2"},
        "bad_position",
        "this position is already over",
    ),
    (
        {
            "game": "spagyric",
            "seats": [HUMAN, HUMAN],
            "start": "................/........./..../. reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0",
        },
        "bad_position",
        "shows every player's hidden balls",
    ),
]


@pytest.mark.parametrize(
    ("body", "code", "english"), REFUSED_GAMES, ids=[c + str(i) for i, (_, c, _) in enumerate(REFUSED_GAMES)]
)
def test_a_new_game_is_refused_in_the_language_of_the_request(
    client: TestClient, body: dict[str, Any], code: str, english: str
) -> None:
    korean, in_english = refusal(client, body, KOREAN), refusal(client, body, ENGLISH)
    assert korean["code"] == in_english["code"] == code
    assert english in in_english["message"] and not HANGUL.search(in_english["message"])
    assert HANGUL.search(korean["message"]) and english not in korean["message"], korean


def test_the_analysis_board_refuses_a_move_in_korean(client: TestClient) -> None:
    url = "/api/analysis/position?game=spline&moves=0a1,0a1"
    korean, english = client.get(url, headers=KOREAN).json()["error"], client.get(url, headers=ENGLISH).json()["error"]
    assert korean["code"] == english["code"] == "bad_move"
    assert english["message"].startswith("move 2 (0a1) is not legal here: ")
    assert (
        korean["message"].startswith("2번째 수(0a1)는 여기서 둘 수 없습니다: ")
        and "is not legal" not in korean["message"]
    )


def test_an_unknown_game_is_refused_in_korean(client: TestClient) -> None:
    korean = client.get("/api/games/nope", headers=KOREAN).json()["error"]
    assert korean == {"code": "unknown_game", "message": "그 id의 게임이 없습니다"}
    assert client.get("/api/games/nope", headers=ENGLISH).json()["error"]["message"] == "no game with that id"


def first_error(ws: WebSocketTestSession) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = ws.receive_json()
        if frame["type"] == "error":
            return frame


def test_a_websocket_speaks_the_language_it_was_opened_in(client: TestClient) -> None:
    created = client.post("/api/games", json={"game": "spline", "seats": [HUMAN, HUMAN], "seed": 3}).json()
    game_id = created["id"]
    frames = {}
    for lang in ("ko", "en"):
        with client.websocket_connect(f"/ws/{game_id}?lang={lang}") as ws:
            ws.send_json({"type": "join"})  # a spectator
            ws.send_json({"type": "move", "move": "0a1"})
            frames[lang] = first_error(ws)
    assert frames["ko"]["code"] == frames["en"]["code"] == "spectator"
    assert frames["en"]["message"] == "spectators cannot play; open your seat's invite link"
    assert frames["ko"]["message"] == "관전자는 둘 수 없습니다. 자기 자리의 초대 링크를 여세요"


def test_an_illegal_move_is_refused_in_the_players_language(client: TestClient) -> None:
    created = client.post("/api/games", json={"game": "spline", "seats": [HUMAN, RANDOM], "seed": 3}).json()
    token = created["seats"][0]["invite"].split("#", 1)[1]
    with client.websocket_connect(f"/ws/{created['id']}", headers=KOREAN) as ws:
        ws.send_json({"type": "join", "token": token})
        ws.send_json({"type": "move", "move": "3a1"})
        refused = first_error(ws)
    assert refused["code"] == "illegal_move" and HANGUL.search(refused["message"]), refused


def test_not_your_turn_comes_whole_in_the_players_language_with_the_seats_name(client: TestClient) -> None:
    """The page has no text of its own for ``not_your_turn``: the server's sentence is the one shown,
    naming the seat to move in the player's language."""
    messages = {}
    for lang in ("ko", "en"):
        created = client.post("/api/games", json={"game": "special-cake", "seats": [HUMAN, HUMAN], "seed": 3}).json()
        token = created["seats"][1]["invite"].split("#", 1)[1]
        with client.websocket_connect(f"/ws/{created['id']}?lang={lang}") as ws:
            ws.send_json({"type": "join", "token": token})  # Liquorice, while Mint is to move
            ws.send_json({"type": "move", "move": "0a1"})
            refused = first_error(ws)
        assert refused["code"] == "not_your_turn"
        messages[lang] = refused["message"]
    assert messages == {"en": "it is Mint's turn, not yours", "ko": "민트의 차례입니다. 당신의 차례가 아닙니다"}
