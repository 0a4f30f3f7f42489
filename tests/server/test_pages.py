"""The pages: a game's or a replay's address that names no game answers 404 (with the page, which
says so to a person); an address of a game that exists answers 200, live or only in storage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from spheria.server.app import create_app
from spheria.server.endpoints import WEB_DIR
from spheria.server.limits import Limits
from tests.server.test_server import HUMAN, create

LIMITS = Limits(allowed_hosts=("testserver",))


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "games.sqlite3")


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, agent_delay=0, agent_pool="thread", limits=LIMITS)) as test_client:
        yield test_client


@pytest.mark.parametrize("page", ["game", "replay"])
def test_an_address_of_no_game_answers_404_with_the_page(client: TestClient, page: str) -> None:
    response = client.get(f"/{page}/no-such-game")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert response.text == (WEB_DIR / f"{page}.html").read_text(encoding="utf-8")  # the page says so


def test_a_game_answers_200_live_and_after_a_restart(client: TestClient, db: str) -> None:
    created = create(client, "spline", [HUMAN, HUMAN])
    for page in ("game", "replay"):
        assert client.get(f"/{page}/{created['id']}").status_code == 200
    with TestClient(create_app(db, agent_delay=0, agent_pool="thread", limits=LIMITS)) as restarted:
        assert restarted.get(f"/game/{created['id']}").status_code == 200  # from storage, not memory
        assert restarted.get("/game/" + created["id"][:-1] + "x").status_code == 404
