"""The position editor's endpoints and games started from a set-up position, over HTTP.

Answers come from the games' rules: a valid position comes back normalized with its board, an
impossible one with the rules' reason. Requests are tried as an attacker would send them: huge,
malformed, with control characters, with wrong types; each is refused with a clear error and the
server goes on answering.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import spheria
from spheria.engine.board import SITE_NAMES, SYMMETRIES, Board, parse_site
from spheria.kernel.options import options_from_pairs
from spheria.kernel.record import Record
from spheria.server.app import create_app
from spheria.server.endpoints import fitting_agents
from spheria.server.limits import Limits

MINT = {"variant": "mint"}
EMPTY_BOARD = "................/........./..../."
#: A Special Cake eating position: two candies on the tray, Mint to eat.
TWO_CANDIES = "w..............b/........./..../. 1 eat"


def make_client(db: Path) -> TestClient:
    limits = Limits(allowed_hosts=("testserver",), create_burst=100)
    app = create_app(str(db), executor=ThreadPoolExecutor(2), agent_delay=0, limits=limits)
    return TestClient(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "games.sqlite3") as test_client:
        yield test_client


def check(client: TestClient, game: str, spn: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    response = client.post("/api/position/check", json={"game": game, "options": options or {}, "spn": spn})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


# -- validation --------------------------------------------------------------------------


def test_a_valid_position_comes_back_normalized_with_its_board_and_who_moves(client: TestClient) -> None:
    answer = check(client, "special-cake", "  w..............b/........./..../.   1  eat ", MINT)
    assert answer["ok"] is True
    assert answer["spn"] == TWO_CANDIES
    assert answer["board"] == TWO_CANDIES.split()[0]
    assert answer["to_move_name"] == "Mint" and answer["fields"] == ["1", "eat"]
    assert answer["legal_moves"] == len(
        spheria.load_game("special-cake", **MINT).state_from_spn(TWO_CANDIES).legal_moves()
    )
    assert answer["choices"] == [["1", "2"], ["eat", "place"]]  # the side to move and the phase
    assert answer["players"] == ["Mint", "Liquorice"]


def test_the_agents_offered_are_those_that_fit_the_options(client: TestClient) -> None:
    three = check(client, "spinca", None, {"players": 3})
    assert three["agents"] == fitting_agents(spheria.load_game("spinca", players=3))
    assert "alphabeta" not in three["agents"] and "alphabeta" in check(client, "spinca", None)["agents"]


@pytest.mark.parametrize(
    ("game", "options", "spn", "words"),
    [
        ("special-cake", MINT, "................/w......../..../. 2 place", "1a1 floats"),
        ("special-cake", MINT, "w.............../........./..../. 1 place", "so Liquorice is to place"),
        (
            "special-cake",
            MINT,
            "wwwwwwwwwwwwwwww/........./..../. 2 place",
            "16 'w' balls; the mint variant has at most 15",
        ),
        ("special-cake", {"variant": "poisoned"}, "w..............b/........./..../. 1 eat", "exactly one cherry"),
        ("special-cake", {"variant": "poisoned"}, "wr.............b/........./..../. 1 place", "cherry is placed only"),
        ("spline", {}, "r.............../........./..../. 1", "white and black balls only"),
        ("spinca", {}, "w.............../........./..../. 2 -", "the marble placed on the last turn is locked"),
        ("spagyric", {}, f"{EMPTY_BOARD} reveal - 9,8,8 8,8,8 0,0,0 0,0,0 0,0,0", "only 8 of each"),
        ("special-cake", MINT, f"{EMPTY_BOARD} 3 place", "player to move must be 1 or 2"),
        ("special-cake", MINT, EMPTY_BOARD, "3 fields"),
    ],
)
def test_an_impossible_position_is_refused_with_the_rules_reason(
    client: TestClient, game: str, options: dict[str, Any], spn: str, words: str
) -> None:
    answer = check(client, game, spn, options)
    assert answer["ok"] is False
    assert words in answer["reason"]


@pytest.mark.parametrize(
    ("spn", "code"),
    [
        (12, "spn"),  # not text
        ("w" * 201, "spn"),
        (f"{EMPTY_BOARD} 1\x00 place", "spn"),
        ("................/w......../..../. 2 place", "board"),  # a ball floats
        ("w.............../......../..../. 2 place", "board"),  # level 1 is a site short
        ("w.............../........./..../. 1 place", "rules"),  # Mint is not to place again
        (f"{EMPTY_BOARD} 3 place", "rules"),
    ],
)
def test_an_impossible_position_says_what_kind_of_fault_by_a_code(client: TestClient, spn: Any, code: str) -> None:
    """The page words the fault by ``code`` in its language; ``reason`` is the rules' own, in the request's."""
    answer = check(client, "special-cake", spn, MINT)
    assert answer["ok"] is False and answer["code"] == code and answer["reason"]


def test_a_valid_position_carries_the_state_of_play_as_a_code(client: TestClient) -> None:
    assert check(client, "special-cake", TWO_CANDIES, MINT)["code"] == {"code": "turn", "seat": 0, "phase": "eat"}
    spagyric = check(client, "spagyric", None)
    assert spagyric["code"]["code"] == "choose" and spagyric["code"]["chosen"] is False


def test_without_a_position_the_answer_is_the_games_own_start(client: TestClient) -> None:
    response = client.post("/api/position/check", json={"game": "spinca", "options": {"players": 3}})
    answer = response.json()
    assert answer["ok"] and answer["spn"] == spheria.load_game("spinca", players=3).new_initial_state().to_spn()
    assert answer["choices"][0] == ["1", "2", "3"]


def test_a_random_full_cake_is_the_set_up_finished_and_a_valid_eating_position(client: TestClient) -> None:
    answer = client.post(
        "/api/position/random", json={"game": "special-cake", "options": MINT, "full": True, "seed": 5}
    )
    data = answer.json()
    assert data["ok"] and data["fields"] == ["1", "eat"]
    assert Board.from_spn(data["board"]).count() == 30
    again = client.post("/api/position/random", json={"game": "special-cake", "options": MINT, "full": True, "seed": 5})
    assert again.json()["spn"] == data["spn"]  # the seed fixes it
    other = client.post("/api/position/random", json={"game": "special-cake", "options": MINT, "full": True, "seed": 6})
    assert other.json()["spn"] != data["spn"]


@pytest.mark.parametrize("game", ["special-cake", "spinca", "spline", "spagyric"])
def test_a_random_position_is_one_the_rules_accept_and_not_over(client: TestClient, game: str) -> None:
    for seed in range(3):
        data = client.post("/api/position/random", json={"game": game, "seed": seed}).json()
        assert data["ok"] and not data["terminal"]
        assert spheria.load_game(game).state_from_spn(data["spn"]).to_spn() == data["spn"]


def test_rotating_and_mirroring_move_the_board_and_the_locked_sites(client: TestClient) -> None:
    game = spheria.load_game("spinca")
    state = game.new_initial_state()
    for text in ["0a1", "0b1", "0c1"]:
        state.apply(state.parse_move(text))
    spn = state.to_spn()
    for symmetry in (1, 4):
        data = client.post("/api/position/transform", json={"game": "spinca", "spn": spn, "symmetry": symmetry}).json()
        assert data["ok"], data
        moved = Board.from_spn(data["board"])
        before = Board.from_spn(spn.split()[0])
        for site in range(30):
            assert moved.color_at(SYMMETRIES[symmetry][site]) == before.color_at(site)
        locked = spn.split()[2].split(",")
        assert sorted(data["locked"]) == sorted(SITE_NAMES[SYMMETRIES[symmetry][parse_site(s)]] for s in locked)
    four_rotations = spn
    for _ in range(4):
        four_rotations = client.post(
            "/api/position/transform", json={"game": "spinca", "spn": four_rotations, "symmetry": 1}
        ).json()["spn"]
    assert four_rotations == spn


def test_a_half_built_position_is_still_turned_and_its_fault_named(client: TestClient) -> None:
    data = client.post(
        "/api/position/transform",
        json={"game": "special-cake", "options": MINT, "spn": "w...b.........../........./..../. 1 eat", "symmetry": 4},
    ).json()
    assert data["ok"] is True and data["spn"].startswith("...w...b")
    float_spn = "................/w......../..../. 1 eat"
    refused = client.post(
        "/api/position/transform", json={"game": "special-cake", "options": MINT, "spn": float_spn, "symmetry": 1}
    )
    assert refused.status_code == 400 and "floats" in refused.json()["error"]["message"]


# -- attacks -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/position/check", {"game": "special-cake", "spn": 12}, "must be text"),
        ("/api/position/check", {"game": "special-cake", "spn": ["w"]}, "must be text"),
        ("/api/position/check", {"game": "special-cake", "spn": "w" * 201}, "at most 200"),
        ("/api/position/check", {"game": "special-cake", "spn": f"{EMPTY_BOARD} 1\x00 place"}, "printable ASCII"),
        ("/api/position/check", {"game": "special-cake", "spn": f"{EMPTY_BOARD} 1 place\x1b[2J"}, "printable ASCII"),
        ("/api/position/check", {"game": "special-cake", "spn": f"{EMPTY_BOARD} ١ place"}, "printable ASCII"),
        ("/api/position/check", {"game": "special-cake", "spn": f"{EMPTY_BOARD}\n1\tplace"}, "printable ASCII"),
    ],
)
def test_bad_positions_are_answered_with_a_reason_not_a_crash(
    client: TestClient, path: str, body: dict[str, Any], words: str
) -> None:
    answer = client.post(path, json=body).json()
    assert answer["ok"] is False and words in answer["reason"]


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/position/check", [], "JSON object"),
        ("/api/position/check", {"game": 3}, "game's name"),
        ("/api/position/check", {"game": "chess"}, "unknown game"),
        ("/api/position/check", {"game": "x" * 5000}, "game's name"),
        ("/api/position/check", {"game": "spinca", "options": {"players": 9}}, "players"),
        ("/api/position/check", {"game": "spinca", "options": [1]}, "options"),
        ("/api/position/check", {"game": "spinca", "evil": 1}, "unexpected field 'evil'"),
        ("/api/position/random", {"game": "spinca", "full": "yes"}, "true or false"),
        ("/api/position/random", {"game": "spinca", "seed": -1}, "seed"),
        ("/api/position/random", {"game": "spinca", "seed": 2**80}, "seed"),
        ("/api/position/random", {"game": "spinca", "seed": True}, "seed"),
        ("/api/position/transform", {"game": "spinca", "spn": EMPTY_BOARD + " 1 -", "symmetry": 8}, "0 to 7"),
        ("/api/position/transform", {"game": "spinca", "spn": EMPTY_BOARD + " 1 -", "symmetry": "1"}, "0 to 7"),
        ("/api/position/transform", {"game": "spinca", "spn": EMPTY_BOARD + " 1 -", "symmetry": True}, "0 to 7"),
        ("/api/position/transform", {"game": "spinca", "spn": None, "symmetry": 1}, "must be text"),
        ("/api/position/transform", {"game": "spinca", "spn": "", "symmetry": 1}, "4 levels"),
    ],
)
def test_malformed_requests_are_refused_with_400_naming_the_problem(
    client: TestClient, path: str, body: Any, words: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]["message"]


def test_a_huge_or_broken_body_is_refused_before_it_is_read(client: TestClient) -> None:
    huge = client.post(
        "/api/position/check",
        content=b'{"game": "spinca", "spn": "' + b"w" * 20000 + b'"}',
        headers={"Content-Type": "application/json"},
    )
    assert huge.status_code == 400 and huge.json()["error"]["code"] == "too_large"
    broken = client.post("/api/position/check", content=b"{not json", headers={"Content-Type": "application/json"})
    assert broken.status_code == 400 and broken.json()["error"]["code"] == "bad_json"
    deep = client.post(
        "/api/position/check", content=b"[" * 5000 + b"]" * 5000, headers={"Content-Type": "application/json"}
    )
    assert deep.status_code == 400
    assert check(client, "spline", EMPTY_BOARD + " 1")["ok"]  # still answering


# -- the analysis link -------------------------------------------------------------------


def quote(value: object) -> str:
    """As the page's encodeURIComponent writes a value (JSON's true/false for a flag)."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return urllib.parse.quote(text, safe="")


def analysis_link(answer: dict[str, Any]) -> str:
    """The link the editor builds (editor.js analysisLink), for comparing with what the page shows."""
    options = ",".join(f"{quote(k)}={quote(v)}" for k, v in answer["options"].items())
    return f"/analysis?game={quote(answer['game'])}&options={options}&spn={quote(answer['spn'])}"


def test_the_analysis_link_names_a_position_the_rules_rebuild(client: TestClient) -> None:
    answer = check(client, "special-cake", TWO_CANDIES, MINT)
    link = analysis_link(answer)
    assert link.startswith("/analysis?game=special-cake&options=variant=mint,line_rule=mixed&spn=w")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    game = spheria.load_game(query["game"][0], **options_from_pairs(query["options"][0].split(",")))
    assert game.options == {"variant": "mint", "line_rule": "mixed"}
    assert game.state_from_spn(query["spn"][0]).to_spn() == TWO_CANDIES


# -- playing from a set-up position --------------------------------------------------------


def create(client: TestClient, game: str, seats: list[dict[str, Any]], **extra: Any) -> Any:
    return client.post("/api/games", json={"game": game, "seats": seats, **extra})


HUMAN = {"kind": "human"}


def wait_for(client: TestClient, game_id: str, condition: Any, seconds: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        info: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if condition(info):
            return info
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} never reached the condition: {info}")


def test_a_game_starts_at_the_set_up_position_and_the_agent_plays_from_there(tmp_path: Path) -> None:
    spn = "ww.............b/........./..../. 2 eat"  # Liquorice (an agent) eats first
    with make_client(tmp_path / "games.sqlite3") as client:
        created = create(
            client, "special-cake", [HUMAN, {"kind": "agent", "agent": "level:1"}], options=MINT, start=spn
        ).json()
        game_id = created["id"]
        assert created["game"]["set_up"] is True
        info = wait_for(client, game_id, lambda i: i["plies"] >= 1)
        assert info["status"] == "active"
    # The server restarts: the game is rebuilt from the stored start, not the empty cake.
    with make_client(tmp_path / "games.sqlite3") as client:
        info = client.get(f"/api/games/{game_id}").json()
        assert info["plies"] == 1 and info["set_up"] is True
        session = client.app.state.manager.sessions[game_id]  # type: ignore[attr-defined]
        first = session.record.moves[0]
        expected = spheria.load_game("special-cake", **MINT).state_from_spn(spn)
        expected.apply_notation(first)
        assert session.state.to_spn() == expected.to_spn()


def test_a_finished_set_up_game_replays_and_its_record_starts_there(client: TestClient) -> None:
    spn = "w..............b/........./..../. 2 eat"
    created = create(
        client,
        "special-cake",
        [{"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "random"}],
        options=MINT,
        start=spn,
    ).json()
    wait_for(client, created["id"], lambda i: i["status"] == "finished")
    record_json = client.get(f"/api/games/{created['id']}/record").json()
    assert record_json["start"] == spn and record_json["from_position"] is True
    record = Record.from_json(record_json)
    final = record.replay()
    assert final.is_terminal() and record.result == [float(r) for r in final.returns()]
    replay = client.get(f"/api/games/{created['id']}/replay").json()
    assert replay["steps"][0]["board"] == spn.split()[0]
    assert len(replay["steps"]) == len(record.moves) + 1


@pytest.mark.parametrize(
    ("start", "words"),
    [
        ("................/w......../..../. 1 eat", "floats"),
        ("................/........./..../. 1 eat", "already over"),
        (12, "SPN (text)"),
        ("w" * 300, "at most 200"),
    ],
)
def test_a_bad_start_position_creates_no_game(client: TestClient, start: Any, words: str) -> None:
    before = len(client.get("/api/games").json()["games"])
    response = create(client, "special-cake", [HUMAN, {"kind": "agent", "agent": "random"}], options=MINT, start=start)
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_position"
    assert words in response.json()["error"]["message"]
    assert len(client.get("/api/games").json()["games"]) == before


def test_a_hidden_information_start_is_only_for_one_person_against_agents(client: TestClient) -> None:
    spn = ".....r........../........./..../. reveal - 8,8,7 7,8,8 0,0,0 0,0,0 1,0,0"
    two_people = create(client, "spagyric", [HUMAN, HUMAN], start=spn)
    assert two_people.status_code == 400
    assert "hidden balls" in two_people.json()["error"]["message"]
    against_agent = create(client, "spagyric", [HUMAN, {"kind": "agent", "agent": "random"}], start=spn)
    assert against_agent.status_code == 201
    # Nobody but the seat is shown a supply: the public facts say only that the game was set up.
    info = client.get(f"/api/games/{against_agent.json()['id']}").json()
    assert info["set_up"] is True and "8,8,7" not in str(info)


@pytest.mark.parametrize(
    ("game", "options"),
    [("special-cake", {"variant": "poisoned"}), ("spinca", {"players": 3}), ("spline", {}), ("spagyric", {})],
)
def test_every_game_plays_on_from_a_random_set_up_position_against_levels(
    client: TestClient, game: str, options: dict[str, Any]
) -> None:
    position = client.post("/api/position/random", json={"game": game, "options": options, "seed": 11}).json()
    seats = [{"kind": "agent", "agent": "level:1"} for _ in position["players"]]
    created = create(client, game, seats, options=options, start=position["spn"])
    assert created.status_code == 201, created.text
    info = wait_for(client, created.json()["id"], lambda i: i["plies"] >= 2 or i["status"] == "finished")
    assert info["set_up"] is True
