"""The accounts attacked: each test is what an attacker would try (issue 37, "Who you are"), and
checks that it gets nothing and that the player's state is unchanged."""

from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any, Literal

import httpx2 as httpx  # what Starlette's TestClient answers with
import pytest
from argon2 import PasswordHasher
from starlette.applications import Starlette
from starlette.testclient import TestClient

from spheria.agents.levels import LEVEL_NUMBERS, level_spec
from spheria.agents.registry import agent_names
from spheria.kernel.registry import game_names
from spheria.server.accounts import CSRF_COOKIE, SESSION_COOKIE, SQLiteAccounts, is_reserved
from spheria.server.database import Cursor, Database
from tests.server import people
from tests.server.people import (
    PASSWORD,
    MakeApp,
    accounts_of,
    browser,
    error_code,
    login,
    me,
    register,
    send,
)
from tests.server.test_accounts import create_game

app, make_app = people.app, people.make_app  # the fixtures


class CountingHasher(PasswordHasher):
    """The fast test hasher, counting its verifications."""

    def __init__(self, **parameters: Any) -> None:
        super().__init__(**{"time_cost": 1, "memory_cost": 1024, "parallelism": 1, **parameters})
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verified += 1
        return super().verify(hash, password)


def address(app: Starlette, host: str) -> TestClient:
    """A browser at another client address."""
    client = TestClient(app, client=(host, 40000))
    assert client.get("/api/session").status_code == 200
    return client


# -- enumeration ------------------------------------------------------------------------------------


def test_a_wrong_name_and_a_wrong_password_get_the_same_answer_after_the_same_work(app: Starlette) -> None:
    assert register(browser(app), "Sora").status_code == 201
    hasher = CountingHasher()
    accounts_of(app).use_hasher(hasher)
    attacker = browser(app)
    answers = []
    for name in ["Sora", "Nobody", "sora", "<b>x</b>"]:  # a taken name, a free one, a variant, not even a name
        before = hasher.verified
        response = login(attacker, name, "guessed password")
        answers.append((response.status_code, response.json(), response.headers.get("set-cookie")))
        assert hasher.verified == before + 1, name  # one Argon2 verification either way: the dummy for no account
    assert all(answer == answers[0] for answer in answers), answers
    assert answers[0][0] == 401 and answers[0][1]["error"]["code"] == "bad_login"


def test_a_wrong_name_takes_about_as_long_as_a_wrong_password(app: Starlette) -> None:
    # parameters costly enough that the hash, not the request, is most of the time
    accounts_of(app).use_hasher(PasswordHasher(time_cost=2, memory_cost=16384, parallelism=1))
    assert register(browser(app), "Sora").status_code == 201
    attacker = browser(app)
    login(attacker, "Nobody", "warm up the dummy hash")
    times: dict[str, list[float]] = {"Sora": [], "Nobody": []}
    for _ in range(4):
        for name, spent in times.items():
            start = time.perf_counter()
            assert login(attacker, name, f"guess {len(spent)}").status_code == 401
            spent.append(time.perf_counter() - start)
    known, unknown = statistics.median(times["Sora"]), statistics.median(times["Nobody"])
    assert 1 / 4 < unknown / known < 4, times  # generous: with no dummy hash it would be tens of times faster


def test_the_per_account_limit_does_not_tell_accounts_from_free_names(make_app: MakeApp) -> None:
    app = make_app(login_per_account=3)
    assert register(browser(app), "Sora").status_code == 201
    answers: dict[str, Any] = {}
    for name in ["Sora", "Nobody"]:
        attacker = address(app, f"10.0.0.{len(answers) + 1}")
        codes = [login(attacker, name, "guess").status_code for _ in range(4)]
        limited = login(attacker, name, "guess")
        answers[name] = (codes, limited.status_code, limited.json())
    assert answers["Sora"] == answers["Nobody"]
    assert answers["Sora"][0] == [401, 401, 401, 429]


# -- brute force ------------------------------------------------------------------------------------


def test_guessing_one_accounts_password_is_stopped_even_from_many_addresses(make_app: MakeApp) -> None:
    app = make_app(login_per_account=5)
    owner = browser(app)
    assert register(owner, "Sora").status_code == 201
    codes = [login(address(app, f"10.1.0.{i}"), "Sora", f"guess {i}").status_code for i in range(8)]
    assert codes == [401] * 5 + [429] * 3
    limited = login(address(app, "10.1.1.1"), "Sora")  # even the right password, while the window lasts
    assert limited.status_code == 429 and error_code(limited) == "rate_limited"
    assert 0 < int(limited.headers["retry-after"]) <= 15 * 60
    assert me(owner)["player"]["name"] == "Sora"  # the owner's session is untouched
    assert login(address(app, "10.1.1.2"), "Other1").status_code == 401  # other accounts are not locked


def test_guessing_many_accounts_from_one_address_is_stopped(make_app: MakeApp) -> None:
    app = make_app(login_per_address=6)
    attacker = address(app, "10.2.0.1")
    codes = [login(attacker, f"user{i}x", "password1").status_code for i in range(8)]
    assert codes == [401] * 6 + [429] * 2
    assert int(login(attacker, "Sora").headers["retry-after"]) > 0
    assert register(address(app, "10.2.0.2"), "Sora").status_code == 201  # another address is not held back


def test_guessing_the_old_password_to_change_it_is_limited_too(make_app: MakeApp) -> None:
    app = make_app(login_per_account=3)
    stolen = browser(app)  # a session left open on a shared computer
    assert register(stolen, "Sora").status_code == 201
    codes = [
        send(stolen, "PUT", "/api/account/password", {"old": f"guess {i}", "new": "attacker pass"}).status_code
        for i in range(5)
    ]
    assert codes == [403, 403, 403, 429, 429]
    assert login(address(app, "10.3.0.1"), "Sora").status_code == 429  # the account is in its window


def test_a_flood_of_new_guests_from_one_address_is_stopped(make_app: MakeApp) -> None:
    app = make_app(signup_per_address=4)
    codes = [send(browser(app), "POST", "/api/guest", {"name": f"bot{i}x"}).status_code for i in range(6)]
    assert codes == [201] * 4 + [429] * 2


# -- session fixation and theft ------------------------------------------------------------------------


def test_a_session_id_planted_before_log_in_is_not_the_session_after(app: Starlette) -> None:
    assert register(browser(app), "Sora").status_code == 201
    attacker = browser(app)
    assert send(attacker, "POST", "/api/guest", {"name": "Trap"}).status_code == 201
    planted = attacker.cookies.get(SESSION_COOKIE)
    assert planted
    victim = browser(app)
    victim.cookies.set(SESSION_COOKIE, planted)  # the attacker's own, valid, session id
    response = login(victim, "Sora")
    assert response.status_code == 200
    assert session_set_by(response) not in ("", planted)
    assert me(attacker)["player"] is None  # the planted session was ended, not promoted to Sora's
    made_up = browser(app)
    made_up.cookies.set(SESSION_COOKIE, "attacker-chosen-value")
    response = login(made_up, "Sora")
    assert response.status_code == 200 and session_set_by(response) not in ("", "attacker-chosen-value")


def session_set_by(response: httpx.Response) -> str:
    """The session id a response sets ('' if none)."""
    for cookie in response.headers.get_list("set-cookie"):
        if cookie.startswith(SESSION_COOKIE + "="):
            return cookie.split(";", 1)[0].split("=", 1)[1]
    return ""


def test_the_session_cookie_is_httponly_lax_and_secure_under_https(make_app: MakeApp) -> None:
    app = make_app()
    plain = browser(app)
    cookies = register(plain, "Sora").headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith(SESSION_COOKIE + "="))
    assert "HttpOnly" in session and "SameSite=lax" in session and "Path=/" in session
    assert "Secure" not in session  # plain http on loopback: a Secure cookie would never come back
    csrf = plain.get("/api/session").json()["csrf"]
    assert csrf == plain.cookies.get(CSRF_COOKIE)

    tls = TestClient(app, base_url="https://testserver")
    first = tls.get("/api/session")
    assert "Secure" in first.headers["set-cookie"] and "HttpOnly" not in first.headers["set-cookie"]  # CSRF cookie
    cookies = login(tls, "Sora").headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith(SESSION_COOKIE + "="))
    assert "Secure" in session and "HttpOnly" in session and "SameSite=lax" in session

    proxied = make_app(secure_cookies=True)  # behind a TLS proxy (--public-url https://…), seen as http here
    first = TestClient(proxied).get("/api/session")
    assert "Secure" in first.headers["set-cookie"]
    token = first.json()["csrf"]
    body = {"name": "Mina", "password": PASSWORD}
    headers = {"Cookie": f"{CSRF_COOKIE}={token}", "X-CSRF-Token": token}
    cookies = TestClient(proxied).post("/api/account", json=body, headers=headers).headers.get_list("set-cookie")
    assert "Secure" in next(c for c in cookies if c.startswith(SESSION_COOKIE + "="))


def test_a_strangers_or_forged_token_is_nobody(app: Starlette, tmp_path: Path) -> None:
    owner = browser(app)
    assert register(owner, "Sora").status_code == 201
    token = owner.cookies.get(SESSION_COOKIE)
    assert token
    for forged in ["", "x" * 43, token[:-1], token + "A", "A" * 5000]:
        thief = browser(app)
        thief.cookies.set(SESSION_COOKIE, forged)
        assert me(thief)["player"] is None, forged
        refused = send(thief, "DELETE", "/api/account", {"password": PASSWORD})
        assert refused.status_code == 401 and error_code(refused) == "not_signed_in"
    # the store keeps digests only: a copy of the file gives no session and no password
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        dump = "\n".join(db.iterdump())
    assert token not in dump and PASSWORD not in dump and "$argon2id$" in dump
    # a token that was logged out is dead
    assert send(owner, "DELETE", "/api/session").status_code == 200
    replay = browser(app)
    replay.cookies.set(SESSION_COOKIE, token)
    assert me(replay)["player"] is None


# -- cross-site request forgery ----------------------------------------------------------------------------


def test_forged_requests_from_another_site_are_refused(app: Starlette) -> None:
    victim = browser(app)
    assert register(victim, "Sora").status_code == 201
    csrf = victim.cookies.get(CSRF_COOKIE) or ""
    change = {"old": PASSWORD, "new": "attacker pass"}
    attempts = [
        ({"Origin": "https://evil.example", "X-CSRF-Token": csrf}, "bad_origin"),  # even with the token
        ({}, "bad_csrf"),  # no token: a page elsewhere cannot read the cookie
        ({"X-CSRF-Token": "guessed"}, "bad_csrf"),
        ({"Referer": "https://evil.example/page", "X-CSRF-Token": csrf}, "bad_origin"),
    ]
    for headers, code in attempts:
        for method, path, body in [
            ("PUT", "/api/account/password", change),
            ("DELETE", "/api/account", {"password": PASSWORD}),
            ("DELETE", "/api/sessions", {}),
            ("DELETE", "/api/session", {}),
        ]:
            response = victim.request(method, path, json=body, headers=headers)
            assert response.status_code == 403 and error_code(response) == code, (headers, path)
    # a form post (no JSON) is refused before anything reads it
    form = victim.post("/api/session", data={"name": "Sora", "password": PASSWORD}, headers={"X-CSRF-Token": csrf})
    assert form.status_code == 415
    assert me(victim)["player"]["name"] == "Sora"
    assert login(browser(app), "Sora").status_code == 200  # the password is unchanged
    # and the same requests from the page itself work
    same_site = {"Origin": "http://testserver", "Referer": "http://testserver/"}
    assert send(victim, "PUT", "/api/account/password", change, **same_site).status_code == 200


def test_login_csrf_cannot_sign_a_victim_into_the_attackers_account(app: Starlette) -> None:
    assert register(browser(app), "Evil1").status_code == 201
    victim = browser(app)
    response = victim.post(
        "/api/session", json={"name": "Evil1", "password": PASSWORD}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403
    no_token = victim.post("/api/session", json={"name": "Evil1", "password": PASSWORD})
    assert no_token.status_code == 403 and error_code(no_token) == "bad_csrf"
    assert me(victim)["player"] is None


def test_a_game_is_never_filed_under_a_player_without_the_token(app: Starlette) -> None:
    victim = browser(app)
    assert register(victim, "Sora").status_code == 201
    forged = victim.post("/api/games", json={"game": "spline", "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert forged.status_code == 201  # games need no player ...
    assert me(victim)["games"] == []  # ... but none is filed under Sora without the page's token
    assert me(victim)["games"] == [] and create_game(victim) in me(victim)["games"]


# -- names: XSS and impersonation ----------------------------------------------------------------------------

XSS_NAMES = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "Kim'--",
    "javascript:alert(1)",
    "Kim&amp;",
    "Kіm",  # a Cyrillic і, to pass for Kim
    "Ki\u200bm",  # a zero-width space
    "\u202eKim",  # right-to-left override
    "Kim\n",
    "Ｋｉｍ",  # full-width letters
]


@pytest.mark.parametrize("name", XSS_NAMES)
def test_names_that_could_carry_markup_or_pass_for_another_are_refused(app: Starlette, name: str) -> None:
    client = browser(app)
    for path, body in [("/api/account", {"name": name, "password": PASSWORD}), ("/api/guest", {"name": name})]:
        response = send(client, "POST", path, body)
        assert response.status_code == 400 and error_code(response) == "bad_name", (path, name)
        assert name not in response.text  # the refusal never echoes the name
    assert me(client)["player"] is None


def reserved_names() -> list[str]:
    """What an impersonator would try: every agent and level (from the registries), games, house words."""
    names = [*agent_names(), *game_names(), "Admin", "SPHERIA", "guest", "Guest_1", "deleted"]
    for level in LEVEL_NUMBERS:
        names += [level_spec(level).replace(":", ""), level_spec(level).replace(":", "-").upper()]
    names += [name.upper() for name in agent_names()] + [f"{name}2" for name in agent_names()]
    return names


def test_agent_and_level_names_cannot_be_taken(app: Starlette) -> None:
    client = browser(app)
    for name in reserved_names():
        assert is_reserved(name), name
        for path, body in [("/api/account", {"name": name, "password": PASSWORD}), ("/api/guest", {"name": name})]:
            response = send(client, "POST", path, body)
            assert response.status_code == 400 and error_code(response) == "reserved_name", (path, name)
    assert send(client, "POST", "/api/guest", {"name": level_spec(3)}).status_code == 400  # ':' is no name letter
    assert me(client)["player"] is None


def test_a_taken_name_cannot_be_taken_again_in_another_case_or_by_a_guest(app: Starlette) -> None:
    assert register(browser(app), "Kim_Lee").status_code == 201
    impostor = browser(app)
    for name in ["Kim_Lee", "kim_lee", "KIM_LEE", "kim-lee", "Kim-LEE"]:
        account = register(impostor, name)
        assert account.status_code == 409 and error_code(account) == "name_taken", name
        guest = send(impostor, "POST", "/api/guest", {"name": name})
        assert guest.status_code == 409 and error_code(guest) == "name_taken", name
    assert me(impostor)["player"] is None


def test_a_guest_using_a_name_is_marked_and_an_account_may_still_take_it(app: Starlette) -> None:
    guest = browser(app)
    assert send(guest, "POST", "/api/guest", {"name": "Mina"}).status_code == 201
    owner = browser(app)
    assert register(owner, "mina").status_code == 201  # guests hold no name
    assert me(guest)["player"] == {"name": "Mina", "guest": True, "deleted": False}
    assert me(owner)["player"] == {"name": "mina", "guest": False, "deleted": False}


# -- storage faults --------------------------------------------------------------------------------------


class FaultyAccounts(SQLiteAccounts):
    """The accounts' store, failing the first statement that starts with ``fail_on``."""

    fail_on: str | None = None

    def execute(self, db: Database, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        if self.fail_on is not None and sql.startswith(self.fail_on):
            self.fail_on = None
            raise sqlite3.OperationalError("database is locked")
        return super().execute(db, sql, params)


def faulty(app: Starlette) -> FaultyAccounts:
    accounts = accounts_of(app)
    store = FaultyAccounts(accounts.store.store)
    accounts.store = store
    return store


def test_a_store_failing_midway_leaves_no_half_made_account(app: Starlette) -> None:
    store = faulty(app)
    client = browser(app)
    store.fail_on = "INSERT INTO player_sessions"  # after the player row was written
    response = register(client, "Sora")
    assert response.status_code == 503 and error_code(response) == "server_error"
    assert client.cookies.get(SESSION_COOKIE) is None
    assert store.account_named("Sora") is None
    assert login(browser(app), "Sora").status_code == 401
    assert register(client, "Sora").status_code == 201  # the name was never held


def test_a_store_failing_while_a_guest_registers_leaves_the_guest_whole(app: Starlette) -> None:
    store = faulty(app)
    client = browser(app)
    assert send(client, "POST", "/api/guest", {"name": "Mina"}).status_code == 201
    game_id = create_game(client)
    store.fail_on = "INSERT INTO player_sessions"
    assert register(client, "MinaJ").status_code == 503
    assert me(client)["player"] == {"name": "Mina", "guest": True, "deleted": False}
    assert me(client)["games"] == [game_id]
    assert register(client, "MinaJ").status_code == 201
    assert me(client)["games"] == [game_id]


def test_a_store_failing_while_deleting_keeps_the_account_whole(app: Starlette) -> None:
    store = faulty(app)
    client = browser(app)
    assert register(client, "Sora").status_code == 201
    store.fail_on = "DELETE FROM player_sessions"  # after the account was marked deleted
    assert send(client, "DELETE", "/api/account", {"password": PASSWORD}).status_code == 503
    assert me(client)["player"]["name"] == "Sora"
    assert login(browser(app), "Sora").status_code == 200


def test_a_store_failing_on_a_read_is_a_clear_refusal(app: Starlette) -> None:
    store = faulty(app)
    client = browser(app)
    assert register(client, "Sora").status_code == 201
    store.fail_on = "SELECT player_id"  # the session's lookup
    response = client.get("/api/session")
    assert response.status_code == 503 and error_code(response) == "server_error"
    assert me(client)["player"]["name"] == "Sora"  # and the next request is served
