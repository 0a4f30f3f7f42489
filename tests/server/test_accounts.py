# ruff: noqa: F811  (the fixtures app and make_app come from tests.server.people)
"""Guests, accounts and sessions through the HTTP interface (docs/server.md, Accounts): each
endpoint as a browser uses it, on a real app with its SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from starlette.applications import Starlette
from starlette.testclient import TestClient

from spheria.server.accounts import CSRF_COOKIE, SESSION_COOKIE
from spheria.server.limits import Limits
from tests.server.people import (  # noqa: F401  (app and make_app are fixtures)
    PASSWORD,
    MakeApp,
    accounts_of,
    app,
    browser,
    error_code,
    login,
    make_app,
    me,
    register,
    send,
)
from tests.server.test_server import RANDOM


def create_game(client: TestClient) -> str:
    response = send(client, "POST", "/api/games", {"game": "spline", "seats": [{"kind": "human"}, RANDOM]})
    assert response.status_code == 201, response.text
    game_id: str = response.json()["id"]
    return game_id


def test_a_new_browser_is_nobody_and_is_given_its_csrf_token(app: Starlette) -> None:
    client = TestClient(app)
    response = client.get("/api/session")
    assert response.status_code == 200
    data = response.json()
    assert data["player"] is None and data["games"] == []
    assert data["csrf"] == client.cookies.get(CSRF_COOKIE) and len(data["csrf"]) >= 40
    assert response.headers["cache-control"] == "no-store"
    assert me(client)["csrf"] == data["csrf"]  # the same token while the cookie lasts


def test_register_log_out_and_log_in(app: Starlette) -> None:
    client = browser(app)
    response = register(client, "Kim_2")
    assert response.status_code == 201, response.text
    assert response.json()["player"] == {"name": "Kim_2", "guest": False, "deleted": False}
    assert client.cookies.get(SESSION_COOKIE)
    assert me(client)["player"]["name"] == "Kim_2"

    assert send(client, "DELETE", "/api/session").status_code == 200
    assert client.cookies.get(SESSION_COOKIE) is None
    assert me(client)["player"] is None

    assert login(client, "kim_2", "wrong password").status_code == 401
    response = login(client, "KIM_2")  # names are case-insensitive
    assert response.status_code == 200, response.text
    assert me(client)["player"] == {"name": "Kim_2", "guest": False, "deleted": False}


def test_a_guest_plays_under_a_name_marked_as_a_guests(app: Starlette) -> None:
    client = browser(app)
    response = send(client, "POST", "/api/guest", {"name": "Mina"})
    assert response.status_code == 201, response.text
    assert response.json()["player"] == {"name": "Mina", "guest": True, "deleted": False}
    game_id = create_game(client)
    assert me(client)["games"] == [game_id]
    players = client.get(f"/api/games/{game_id}/players").json()["players"]
    assert players == [{"name": "Mina", "guest": True, "deleted": False}]
    # two guests may share a display name (the guest mark tells them from an account)
    assert send(browser(app), "POST", "/api/guest", {"name": "mina"}).status_code == 201


def test_a_guest_who_registers_keeps_the_games_of_that_browser(app: Starlette) -> None:
    client = browser(app)
    assert send(client, "POST", "/api/guest", {"name": "Mina"}).status_code == 201
    games = [create_game(client), create_game(client)]
    guest_cookie = client.cookies.get(SESSION_COOKIE)
    assert register(client, "MinaJ").status_code == 201
    assert client.cookies.get(SESSION_COOKIE) != guest_cookie  # a new session for the account
    assert sorted(me(client)["games"]) == sorted(games)
    assert me(client)["player"] == {"name": "MinaJ", "guest": False, "deleted": False}
    # and from another browser, once logged in
    other = browser(app)
    assert login(other, "minaj").status_code == 200
    assert sorted(me(other)["games"]) == sorted(games)
    assert other.get(f"/api/games/{games[0]}/players").json()["players"] == [
        {"name": "MinaJ", "guest": False, "deleted": False}
    ]


def test_a_game_created_without_a_session_belongs_to_nobody(app: Starlette) -> None:
    client = browser(app)
    game_id = create_game(client)
    assert client.get(f"/api/games/{game_id}/players").json()["players"] == []


def test_change_password_ends_every_other_session(app: Starlette) -> None:
    laptop, phone = browser(app), browser(app)
    assert register(laptop, "Sora").status_code == 201
    assert login(phone, "Sora").status_code == 200
    old_cookie = laptop.cookies.get(SESSION_COOKIE)

    wrong = send(laptop, "PUT", "/api/account/password", {"old": "not the password", "new": "a new password"})
    assert wrong.status_code == 403 and error_code(wrong) == "bad_password"
    short = send(laptop, "PUT", "/api/account/password", {"old": PASSWORD, "new": "short"})
    assert short.status_code == 400 and error_code(short) == "bad_password_form"

    response = send(laptop, "PUT", "/api/account/password", {"old": PASSWORD, "new": "a new password"})
    assert response.status_code == 200, response.text
    assert laptop.cookies.get(SESSION_COOKIE) not in (None, old_cookie)
    assert me(laptop)["player"]["name"] == "Sora"
    assert me(phone)["player"] is None
    assert login(phone, "Sora").status_code == 401
    assert login(phone, "Sora", "a new password").status_code == 200


def test_log_out_everywhere(app: Starlette) -> None:
    laptop, phone = browser(app), browser(app)
    assert register(laptop, "Sora").status_code == 201
    assert login(phone, "sora").status_code == 200
    assert send(phone, "DELETE", "/api/sessions").status_code == 200
    assert me(laptop)["player"] is None and me(phone)["player"] is None
    nobody = send(phone, "DELETE", "/api/sessions")
    assert nobody.status_code == 401 and error_code(nobody) == "not_signed_in"


def test_delete_the_account_keeps_its_games_and_holds_its_name(app: Starlette) -> None:
    client, other = browser(app), browser(app)
    assert register(client, "Sora").status_code == 201
    game_id = create_game(client)
    assert login(other, "Sora").status_code == 200

    wrong = send(client, "DELETE", "/api/account", {"password": "not the password"})
    assert wrong.status_code == 403 and me(client)["player"]["name"] == "Sora"
    response = send(client, "DELETE", "/api/account", {"password": PASSWORD})
    assert response.status_code == 200, response.text
    assert me(client)["player"] is None and me(other)["player"] is None  # every session ended
    assert client.get(f"/api/games/{game_id}").status_code == 200  # the game stays
    players = client.get(f"/api/games/{game_id}/players").json()["players"]
    assert players == [{"name": None, "guest": False, "deleted": True}]
    assert login(client, "Sora").status_code == 401
    # the name is held: neither an account nor a guest takes it at once
    assert error_code(register(client, "sora")) == "name_taken"
    assert error_code(send(client, "POST", "/api/guest", {"name": "SORA"})) == "name_taken"


def test_a_deleted_name_is_free_again_after_the_hold(app: Starlette, monkeypatch: pytest.MonkeyPatch) -> None:
    from spheria.server import accounts

    client = browser(app)
    assert register(client, "Sora").status_code == 201
    assert send(client, "DELETE", "/api/account", {"password": PASSWORD}).status_code == 200
    monkeypatch.setattr(accounts, "NAME_HOLD_SECONDS", -1.0)  # as if the hold were over
    assert register(client, "Sora").status_code == 201
    assert me(client)["player"]["name"] == "Sora"


def test_a_guest_has_no_password_to_change_and_no_account_to_delete(app: Starlette) -> None:
    client = browser(app)
    assert send(client, "POST", "/api/guest", {"name": "Mina"}).status_code == 201
    for method, path, body in [
        ("PUT", "/api/account/password", {"old": PASSWORD, "new": "whatever1"}),
        ("DELETE", "/api/account", {"password": PASSWORD}),
    ]:
        response = send(client, method, path, body)
        assert response.status_code == 403 and error_code(response) == "not_account"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "a", "password": PASSWORD}, "bad_name"),
        ({"name": "x" * 21, "password": PASSWORD}, "bad_name"),
        ({"name": "Kim Lee", "password": PASSWORD}, "bad_name"),
        ({"name": 7, "password": PASSWORD}, "bad_name"),
        ({"name": "Kim", "password": "short"}, "bad_password_form"),
        ({"name": "Kim", "password": "x" * 257}, "bad_password_form"),
        ({"name": "Kim", "password": PASSWORD, "email": "k@example.org"}, "bad_request"),
        ({"name": "Admin", "password": PASSWORD}, "reserved_name"),
    ],
)
def test_bad_registrations_are_refused_naming_the_problem(app: Starlette, body: dict[str, Any], code: str) -> None:
    client = browser(app)
    response = send(client, "POST", "/api/account", body)
    assert response.status_code == 400 and error_code(response) == code, response.text
    assert response.json()["error"]["message"]
    assert me(client)["player"] is None and client.cookies.get(SESSION_COOKIE) is None


def test_refusals_are_worded_in_the_browsers_language(app: Starlette) -> None:
    client = browser(app)
    english = send(client, "POST", "/api/account", {"name": "Kim", "password": "short"}).json()["error"]
    korean = send(client, "POST", "/api/account?lang=ko", {"name": "Kim", "password": "short"}).json()["error"]
    assert english["code"] == korean["code"] == "bad_password_form"
    assert english["message"] != korean["message"] and any("가" <= c <= "힣" for c in korean["message"])


def test_the_password_hash_is_redone_when_the_parameters_change(app: Starlette) -> None:
    client = browser(app)
    assert register(client, "Sora").status_code == 201
    store = accounts_of(app).store
    before = store.password_hash(store.account_named("sora")[0].id)  # type: ignore[index]
    assert before is not None and "m=1024,t=1,p=1" in before
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    accounts_of(app).use_hasher(stronger)
    assert login(browser(app), "Sora").status_code == 200
    after = store.password_hash(store.account_named("sora")[0].id)  # type: ignore[index]
    assert after is not None and "m=2048,t=2,p=1" in after and after.startswith("$argon2id$")
    assert login(browser(app), "Sora").status_code == 200  # the new hash verifies


def test_accounts_and_sessions_outlive_a_restart(make_app: MakeApp, tmp_path: Path) -> None:
    db = tmp_path / "kept.sqlite3"
    first = browser(make_app(db))
    assert register(first, "Sora").status_code == 201
    cookies = dict(first.cookies)
    again = make_app(db)
    client = TestClient(again, cookies=cookies)
    assert me(client)["player"]["name"] == "Sora"
    assert login(browser(again), "Sora").status_code == 200


def test_the_accounts_limits_are_in_the_limits(app: Starlette) -> None:
    limits: Limits = app.state.limits
    accounts = accounts_of(app)
    assert accounts.logins_per_account.limit == limits.login_per_account
    assert accounts.logins_per_address.limit == limits.login_per_address
    assert accounts.logins_per_address.seconds == limits.login_window_seconds


def test_serve_options_set_the_login_limits_and_an_https_public_url_makes_cookies_secure() -> None:
    import argparse

    from spheria.server.command import add_arguments, limits_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = limits_of(parser.parse_args([]))
    assert defaults.login_per_account == Limits.login_per_account and not defaults.secure_cookies
    options = "--login-per-account 4 --login-per-address 9 --signup-per-address 2 --login-window-minutes 5"
    asked = limits_of(parser.parse_args([*options.split(), "--public-url", "https://spheria.example.org"]))
    assert (asked.login_per_account, asked.login_per_address, asked.signup_per_address) == (4, 9, 2)
    assert asked.login_window_seconds == 300 and asked.secure_cookies
    assert not limits_of(parser.parse_args(["--public-url", "http://192.0.2.1:8000"])).secure_cookies
