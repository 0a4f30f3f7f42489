"""What the browser client reads from the server besides the game frames: the agents that fit
each game (the lobby offers nothing else), the game's seat facts, and How to play."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import spheria
from spheria.agents.registry import agents_for, default_agent
from spheria.server.app import create_app
from spheria.server.limits import Limits


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    limits = Limits(allowed_hosts=("testserver",))  # Starlette's test client calls the server "testserver"
    app = create_app(str(tmp_path / "games.sqlite3"), executor=ThreadPoolExecutor(2), agent_delay=0, limits=limits)
    with TestClient(app) as test_client:
        yield test_client


def test_the_catalog_lists_per_game_only_the_agents_that_fit_default_first(client: TestClient) -> None:
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    for name, entry in games.items():
        game = spheria.load_game(name)
        assert sorted(entry["agents"]) == sorted(agents_for(game))
        if game.why_no_agents is not None:  # people only: the lobby offers no agent at all
            assert entry["agents"] == []
        else:
            assert entry["agents"][0] == default_agent(game).split(":")[0]
        assert [seat["name"] for seat in entry["seats"]] == game.player_names()
    # The lobby used to open on Spagyric with "mcts" (silently random there): no longer offered.
    assert "mcts" not in games["spagyric"]["agents"] and games["spagyric"]["agents"][0] != "random"


def test_checking_options_gives_the_agents_for_those_options(client: TestClient) -> None:
    three = client.post("/api/check", json={"game": "spinca", "options": {"players": 3}}).json()
    assert "alphabeta" not in three["agents"]  # a two-player search
    assert [seat["color"] for seat in three["seats"]] == ["w", "b", "r"]
    two = client.post("/api/check", json={"game": "spinca", "options": {"players": 2}}).json()
    assert "alphabeta" in two["agents"]


def test_how_to_play_comes_as_blocks_with_positions_drawn_as_boards(client: TestClient) -> None:
    data = client.get("/api/howto/spinca").json()
    assert data["text"] and data["blocks"][0]["kind"] == "heading"
    positions = [b for b in data["blocks"] if b["kind"] == "position"]
    locked = [p for p in positions if p.get("after")]
    assert locked, "the Spinca lock example is played from one position to the next"
    example = locked[0]
    assert len(example["board"].replace("/", "")) == 30 and example["after"] != example["board"]
    assert example["after_locked"]  # the marbles the move locked
    assert client.get("/api/howto/no-such-game").status_code == 404


def test_a_game_page_knows_its_seat_colours_and_sides(client: TestClient) -> None:
    created = client.post(
        "/api/games",
        json={"game": "spinca", "options": {"players": 4}, "seats": [{"kind": "agent", "agent": "random"}] * 4},
    ).json()
    info = client.get(f"/api/games/{created['id']}").json()
    assert [seat["color"] for seat in info["seats"]] == ["w", "b", "w", "b"]
    assert [seat["side"] for seat in info["seats"]] == [0, 1, 0, 1]
    assert len(info["sides"]) == 2
