"""What the people tests share (accounts, challenges, chat, profiles, and their attack files): a real
app started on the test's SQLite file with a fast password hasher, browsers with cookies of their own
that all run on the app's one event loop (as a server has one), and requests sent as the page sends
them (JSON, with the CSRF header its cookie gives)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx2 as httpx  # what Starlette's TestClient answers with
import pytest
from argon2 import PasswordHasher
from starlette.applications import Starlette
from starlette.testclient import TestClient

from spheria.server.accounts import CSRF_COOKIE, Accounts
from spheria.server.app import create_app
from tests.server.test_server import HUMAN, TEST_LIMITS

#: Argon2id with small parameters, so that the tests do not wait on the real ones.
FAST = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
PASSWORD = "correct horse battery"

Frame = dict[str, Any]
MakeApp = Callable[..., Starlette]


@contextlib.contextmanager
def started_apps(tmp_path: Path) -> Iterator[MakeApp]:
    """``make(db=None, **limits)`` makes an app on ``db`` (by default the test's one file,
    ``games.sqlite3``: a second app on it is the server restarted), started by a client that runs its
    lifespan and its event loop (``app.state.test_keeper``); every app made is stopped at the end."""
    opened: list[TestClient] = []

    def make(db: Path | None = None, **limits: Any) -> Starlette:
        app = create_app(
            str(db or tmp_path / "games.sqlite3"),
            executor=ThreadPoolExecutor(2),
            agent_delay=0,
            limits=replace(TEST_LIMITS, **limits),
        )
        accounts_of(app).use_hasher(FAST)
        keeper = TestClient(app)
        keeper.__enter__()
        app.state.test_keeper = keeper
        opened.append(keeper)
        return app

    yield make
    for keeper in opened:
        keeper.__exit__(None, None, None)


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[MakeApp]:
    """``make_app(db=None, **limits)``: an app, started (see :func:`started_apps`)."""
    with started_apps(tmp_path) as make:
        yield make


@pytest.fixture
def app(make_app: MakeApp) -> Starlette:
    return make_app()


def accounts_of(app: Starlette) -> Accounts:
    accounts: Accounts = app.state.accounts
    return accounts


def browser(app: Starlette, **how: Any) -> TestClient:
    """A browser with its own cookies, on the app's event loop, that has loaded a page: it holds the
    CSRF cookie."""
    client = TestClient(app, **how)
    client.portal = app.state.test_keeper.portal
    assert client.get("/api/session").status_code == 200
    return client


def send(client: TestClient, method: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
    """A request as the page sends it: JSON, with the CSRF header from the CSRF cookie."""
    token = client.cookies.get(CSRF_COOKIE) or ""
    return client.request(method, path, json=body or {}, headers={"X-CSRF-Token": token, **headers})


def register(client: TestClient, name: str, password: str = PASSWORD) -> httpx.Response:
    return send(client, "POST", "/api/account", {"name": name, "password": password})


def login(client: TestClient, name: str, password: str = PASSWORD) -> httpx.Response:
    return send(client, "POST", "/api/session", {"name": name, "password": password})


def me(client: TestClient) -> Frame:
    response = client.get("/api/session")
    assert response.status_code == 200
    data: Frame = response.json()
    return data


def error_code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


def guest(app: Starlette, name: str) -> TestClient:
    """A browser signed in as a guest called ``name``."""
    client = browser(app)
    response = send(client, "POST", "/api/guest", {"name": name})
    assert response.status_code == 201, response.text
    return client


def account(app: Starlette, name: str) -> TestClient:
    """A browser that has registered the account ``name`` (password :data:`PASSWORD`) and is signed in."""
    client = browser(app)
    response = register(client, name)
    assert response.status_code == 201, response.text
    return client


def connect(app: Starlette, client: TestClient, path: str) -> Any:
    """A websocket of the browser ``client`` (its cookies), on the app's loop."""
    cookies = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
    keeper: TestClient = app.state.test_keeper
    return keeper.websocket_connect(path, headers={"cookie": cookies} if cookies else {})


def new_game(
    client: TestClient, game: str = "spline", seats: list[Frame] | None = None, rated: bool = False, **options: Any
) -> Frame:
    """``POST /api/games`` as ``client`` (seed 11; two people's seats unless ``seats`` says): the answer."""
    body = {"game": game, "options": options, "seats": seats or [HUMAN, HUMAN], "seed": 11, "rated": rated}
    response = send(client, "POST", "/api/games", body)
    assert response.status_code == 201, response.text
    created: Frame = response.json()
    return created


def invite(created: Frame, seat: int) -> str:
    """The invite token of ``seat`` in a created game (what its invite link carries after ``#``)."""
    return str(created["seats"][seat]["invite"].split("#", 1)[1])
