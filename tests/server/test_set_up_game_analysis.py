"""A finished game that started from a position set up by hand (the editor's *Play from here*)
opens on the analysis board at that position and is analysed from there, over the API, for every
game (in Chromium, on a 390×844 touch phone and on a desktop: tests/web/e2e/test_set_up_game.py).

The bug this guards against: one of the server's rebuilds of a stored game forgot its ``start``,
so ``/api/analysis/record/{id}`` sent the empty board and the game's analysis failed on its first
move ("0a1 is empty", "1a1 cannot take a ball yet").
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

import spheria
from spheria.analysis import analyse_game
from spheria.kernel.record import Record
from spheria.server.analysis import AnalysisLimits
from spheria.server.app import create_app
from spheria.server.limits import Limits
from spheria.server.storage import SQLiteStorage

Frame = dict[str, Any]
AGENTS = [{"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "random"}]
#: Positions set up by hand, one a game, each with balls on the board that the game's own start
#: has not (so a rebuild that forgets the start cannot pass for one that remembers it).
SET_UP: dict[str, tuple[str, dict[str, Any]]] = {
    "special-cake": ("wbwb...........b/........./..../. 1 eat", {"variant": "mint"}),
    "spinca": ("wb............../........./..../. 1 0a1,0b1", {}),
    "spline": ("w.b...w........./........./..../. 2", {}),
    # Hidden information: the supplies and bags are the set-up's too (one person or agents only).
    "spagyric": ("..r.....w......./........./..../. reveal - 1,1,2 1,2,1 0,0,0 1,1,0 0,0,0", {"supply": 2}),
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(
        str(tmp_path / "games.sqlite3"),
        executor=ThreadPoolExecutor(2),
        agent_delay=0,
        limits=Limits(allowed_hosts=("testserver",)),
        analysis_limits=AnalysisLimits(workers=1, game_position_time=0.05, game_max_time=20),
    )
    with TestClient(app) as test_client:
        yield test_client


def finished_from(client: TestClient, game: str) -> str:
    """The id of a game of two random agents started from ``SET_UP[game]``, once it is over."""
    spn, options = SET_UP[game]
    response = client.post("/api/games", json={"game": game, "options": options, "seats": AGENTS, "start": spn})
    assert response.status_code == 201, response.text
    game_id = str(response.json()["id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if client.get(f"/api/games/{game_id}").json()["status"] == "finished":
            return game_id
        time.sleep(0.05)
    raise AssertionError(f"the agents did not finish {game}")


def answer(ws: WebSocketTestSession, job_id: int) -> Frame:
    """The first frame for ``job_id`` that is not progress."""
    while True:
        frame: Frame = ws.receive_json()
        if frame.get("id") == job_id and frame["type"] != "progress":
            return frame


@pytest.mark.parametrize("game", sorted(SET_UP))
def test_a_finished_set_up_game_opens_at_its_start_and_is_analysed_from_there(client: TestClient, game: str) -> None:
    spn, options = SET_UP[game]
    game_id = finished_from(client, game)
    record_json = client.get(f"/api/games/{game_id}/record").json()
    assert record_json["start"] == spn and record_json["from_position"] is True
    record = Record.from_json(record_json)

    opened = client.get(f"/api/analysis/record/{game_id}").json()
    assert opened["spn"] == spn  # the set-up position, not the game's own (empty) start
    assert opened["moves"] == record.moves and opened["result"] == "finished"
    query = {"game": game, "options": ",".join(f"{k}={v}" for k, v in options.items()), "spn": opened["spn"]}
    end = client.get("/api/analysis/position", params={**query, "moves": ",".join(opened["moves"])})
    assert end.status_code == 200, end.text
    assert end.json()["frame"]["terminal"]  # the moves replay from there to the end

    expected = analyse_game(record, time=None)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse_game", "id": 1, "record": game_id})
        reply = answer(ws, 1)
    assert reply["type"] == "game_analysis", reply
    report = reply["report"]
    assert [m["move"] for m in report["moves"]] == record.moves
    assert len(report["evaluation"]) == len(record.moves) + 1
    assert report["evaluation"][-1] == expected.to_json(statistics=False)["evaluation"][-1]  # the result, exactly


def test_a_set_up_game_rebuilt_after_a_restart_is_opened_at_its_start(tmp_path: Path) -> None:
    spn, options = SET_UP["special-cake"]
    settings: dict[str, Any] = {"executor": ThreadPoolExecutor(2), "agent_delay": 0}
    limits = Limits(allowed_hosts=("testserver",))
    with TestClient(create_app(str(tmp_path / "g.sqlite3"), limits=limits, **settings)) as client:
        game_id = finished_from(client, "special-cake")
    settings["executor"] = ThreadPoolExecutor(2)
    with TestClient(create_app(str(tmp_path / "g.sqlite3"), limits=limits, **settings)) as client:
        opened = client.get(f"/api/analysis/record/{game_id}").json()  # from storage, not from memory
        replay = client.get(f"/api/games/{game_id}/replay").json()
    final = spheria.load_game("special-cake", **options).state_from_spn(spn)
    for entry in opened["moves"]:
        final.apply_notation(entry)
    assert opened["spn"] == spn and final.is_terminal()
    stored = SQLiteStorage(str(tmp_path / "g.sqlite3")).load_game(game_id)
    assert stored is not None and stored.status == "finished"
    record = stored.record  # what the server keeps is the one record type, whole
    assert (record.game, record.start, record.players) == ("special-cake", spn, ["random", "random"])
    assert record.moves == opened["moves"] and record.result == final.returns()
    assert record.replay().to_spn() == final.to_spn()
    assert replay["steps"][0]["board"] == spn.split()[0]
    assert replay["steps"][-1]["board"] == final.to_spn().split()[0]
