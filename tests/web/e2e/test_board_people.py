"""End-to-end: the people at the board (issue 37, item 5) — chat, mute and unmute, report, resign,
abort and rematch, on a phone and a desktop, in English and Korean. (A rated game played to the end,
with the rating change on the result cards, is in test_meet.py's one flow.)

Players sign in as guests or accounts through the page's own request context (the CSRF header from
GET /api/session) and take their seats by their invites, so the server knows who holds each seat.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Dialog, Page

from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    SIZES,
    TIMEOUT,
    assert_fits,
    browser,
    play_turn,
    screenshot,
    server,
    wait_turn,
)

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:  # noqa: F811
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


class Person:
    """A browser context of one screen size and language, and its page (errors and dialogs kept)."""

    def __init__(self, browser: Browser, opened: list[BrowserContext], server: str, size: str, lang: str) -> None:  # noqa: F811
        self.server = server
        self.context = browser.new_context(**SIZES[size], locale=lang)  # type: ignore[arg-type]
        self.context.set_default_timeout(TIMEOUT)
        opened.append(self.context)
        self.page = self.context.new_page()
        self.name = ""  # who this browser signed in as
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", self.dismiss)
        self.page.goto(server + "/")

    def dismiss(self, dialog: Dialog) -> None:
        """A dialog (an ``alert`` run by a message) is noted and closed."""
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def post(self, path: str, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
        """POST as this browser (its cookies), with the CSRF header its session gives."""
        csrf = self.page.request.get(self.server + "/api/session").json()["csrf"]
        response = self.page.request.post(self.server + path, data=body, headers={"X-CSRF-Token": csrf})
        assert response.status == status, response.text()
        answer: dict[str, Any] = response.json()
        return answer

    def guest(self, name: str) -> None:
        self.post("/api/guest", {"name": name})
        self.name = name

    def account(self, name: str) -> None:
        self.post("/api/account", {"name": name, "password": "correct horse battery"})
        self.name = name

    def open(self, path: str) -> Page:
        self.page.goto(self.server + path)
        self.page.wait_for_selector("#chat:not([hidden])")
        return self.page


def say(page: Page, text: str) -> None:
    """Type ``text`` in the chat (opened first if folded) and send it."""
    if page.locator("#chat[open]").count() == 0:
        page.click("#chat > summary")
    page.fill("#chat .chat-input", text)
    page.click("#chat .chat-form button")


def sees(page: Page, text: str) -> None:
    """Wait until a chat line holding ``text`` is shown."""
    page.locator("#chat .chat-text", has_text=text).first.wait_for()


def chat_texts(page: Page) -> list[str]:
    return page.locator("#chat .chat-text").all_inner_texts()


def unique(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"


def new_game(creator: Person, rated: bool = False) -> dict[str, Any]:
    body = {"game": "spline", "seats": [{"kind": "human"}, {"kind": "human"}], "rated": rated}
    return creator.post("/api/games", body)


def seated(people: list[Person], game: dict[str, Any]) -> list[Page]:
    pages = [person.open(seat["invite"]) for person, seat in zip(people, game["seats"], strict=True)]
    for page in pages:
        page.wait_for_selector("#players li.player .dot.on >> nth=1")  # both seats are connected
    return pages


def test_players_and_spectators_chat_apart_mute_and_resign(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
) -> None:
    phone = Person(browser, contexts, server, "phone", "en")
    desk = Person(browser, contexts, server, "desktop", "ko")
    phone.guest(unique("Mina"))
    desk.guest(unique("Joon"))
    game = new_game(phone)
    a, b = seated([phone, desk], game)
    assert a.inner_text("#chat > summary") == "Chat with the players"
    assert b.inner_text("#chat > summary") == "대국자 채팅"

    # On a phone the chat is folded below the board, and opened it stays clear of the action bar.
    assert a.locator("#chat[open]").count() == 0
    say(a, "hello from the phone")
    assert a.inner_text("#chat .chat-count") == "0/300"
    sees(b, "hello from the phone")  # without reloading
    say(b, "안녕하세요")
    sees(a, "안녕하세요")
    a.fill("#chat .chat-input", "x" * 12)
    assert a.inner_text("#chat .chat-count") == "12/300"
    a.fill("#chat .chat-input", "")
    a.locator("#chat .chat-form").scroll_into_view_if_needed()
    bar = a.locator("#action-bar").bounding_box()
    form = a.locator("#chat .chat-form").bounding_box()
    assert bar is not None and form is not None
    assert form["y"] + form["height"] <= bar["y"] + 0.5, (form, bar)  # the send button is not under the bar
    assert_fits(a)

    # Markup typed into the chat is shown as the characters typed, and makes no element.
    say(b, XSS)
    sees(a, "<img")
    assert XSS in chat_texts(a)
    assert a.locator("#chat img, #chat-log img").count() == 0
    assert a.evaluate("document.querySelectorAll('img[src=x]').length") == 0
    assert b.locator("#chat img").count() == 0

    # A spectator reads and writes the spectators' room only; without a name, the page offers one.
    watcher = Person(browser, contexts, server, "desktop", "en")
    w = watcher.open(game["spectate"])
    assert w.inner_text("#chat > summary") == "Spectators' chat"
    assert not any("hello" in text for text in chat_texts(w))
    say(w, "who is winning?")
    w.wait_for_selector("#chat .chat-refusal[data-code='not_signed_in']")
    assert "guest name" in w.inner_text("#chat .chat-refusal")
    w.fill("#chat .chat-guest-name", unique("Sora"))
    with w.expect_navigation():
        w.click("#chat .chat-guest button")
    w.wait_for_selector("#chat:not([hidden])")
    say(w, "who is winning?")
    sees(w, "who is winning?")
    screenshot(w, "people-spectator-desktop-en")
    # Past a burst of messages, the refusal says how long to wait.
    for i in range(7):
        say(w, f"flood {i}")
    w.wait_for_selector("#chat .chat-refusal[data-code='chat_rate_limited']")
    assert "wait" in w.inner_text("#chat .chat-refusal")
    say(a, "players only")
    sees(b, "players only")
    assert not any("winning" in text or "flood" in text for text in chat_texts(a) + chat_texts(b))

    # The desktop mutes the phone's player: the old messages go, the next one never shows.
    b.locator("#chat .chat-message", has_text="hello from the phone").locator(".chat-mute").click()
    b.wait_for_function(
        "() => ![...document.querySelectorAll('#chat .chat-text')].some(n => n.textContent.includes('hello'))"
    )
    say(a, "can you read me")
    sees(a, "can you read me")
    say(b, "still here")
    sees(a, "still here")
    b.wait_for_timeout(300)
    assert not any("read me" in text for text in chat_texts(b))
    # A report is kept for the operator: the message says it was reported.
    a.locator("#chat .chat-message", has_text="still here").locator(".chat-report").click()
    a.wait_for_selector("#chat .chat-message .chat-report[disabled]")
    screenshot(a, "people-chat-phone-en", full_page=True)

    # The muted player is listed with a way back; unmuted, the lines this page kept show again (those
    # said before the mute), while the one said meanwhile never reached it (the server held it back)
    # and stays away; what they say next is heard.
    muted = b.locator("#chat .chat-muted li")
    assert muted.count() == 1 and muted.get_attribute("data-name") == phone.name
    assert phone.name in muted.inner_text() and "숨겼습니다" in muted.inner_text()
    assert b.inner_text("#chat .chat-muted .chat-unmute") == "다시 보기"
    screenshot(b, "people-chat-muted-desktop-ko")
    b.click("#chat .chat-muted .chat-unmute")
    sees(b, "hello from the phone")
    assert "players only" in chat_texts(b)
    b.wait_for_selector("#chat .chat-muted", state="hidden")
    assert not any("read me" in text for text in chat_texts(b))
    say(a, "heard again")
    sees(b, "heard again")
    # The same on the phone, in English and by touch: the unmute button is a finger's size.
    a.locator("#chat .chat-message", has_text="still here").locator(".chat-mute").tap()
    a.wait_for_selector("#chat .chat-muted .chat-unmute")
    assert not any("still here" in text for text in chat_texts(a))
    assert a.inner_text("#chat .chat-muted li").split() == f"{desk.name}'s messages are hidden from you. Unmute".split()
    a.locator("#chat .chat-muted").scroll_into_view_if_needed()
    assert_fits(a)
    screenshot(a, "people-chat-muted-phone-en")
    a.tap("#chat .chat-muted .chat-unmute")
    sees(a, "still here")
    a.wait_for_selector("#chat .chat-muted", state="hidden")
    screenshot(b, "people-chat-desktop-ko")

    # Two moves each, then the phone resigns (a confirm first): the desktop wins, casual.
    rng = random.Random(37)
    for _ in range(2):
        for page in (a, b):
            assert wait_turn(page)
            play_turn(page, rng)
    a.click("#btn-resign")
    assert a.locator("#btn-resign-yes").is_visible()
    a.click("#btn-resign-no")
    assert a.locator("#result:not([hidden])").count() == 0
    a.click("#btn-resign")
    a.click("#btn-resign-yes")
    for page in (a, b):
        page.wait_for_selector("#result .result-reason[data-reason='resigned']")
        assert page.locator("#result .result-ratings[data-unrated='casual']").count() == 1
        assert page.locator("#resign-row").is_hidden()
    assert a.inner_text("#result .result-title") == "You lose"
    assert b.inner_text("#result .result-title") == "이겼습니다!"
    assert "resigned" in a.inner_text("#result .result-reason")
    w.wait_for_selector("#result .result-reason[data-reason='resigned']")
    screenshot(a, "people-resigned-phone-en")
    screenshot(b, "people-resigned-desktop-ko")

    # A rematch: offered on one result card, accepted on the other, both land in the new game.
    a.click("#btn-rematch")
    b.wait_for_selector("#result .rematch-note")
    screenshot(b, "people-rematch-offered-desktop-ko")
    b.click("#btn-rematch")
    for page in (a, b):
        page.wait_for_url(lambda url: game["id"] not in url and "/game/" in url)
        page.wait_for_selector("#players li.player .dot.on >> nth=1")
    assert a.url.split("#")[0] == b.url.split("#")[0]
    assert a.inner_text("#role") != b.inner_text("#role")
    assert phone.dialogs == desk.dialogs == watcher.dialogs == []
    assert phone.errors == desk.errors == watcher.errors == []


def test_resigning_before_both_moved_aborts_unrated(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
) -> None:
    one = Person(browser, contexts, server, "desktop", "ko")
    two = Person(browser, contexts, server, "phone", "en")
    one.guest(unique("Hana"))
    two.guest(unique("Dul"))
    a, b = seated([one, two], new_game(one))
    a.click("#btn-resign")
    a.click("#btn-resign-yes")
    for page in (a, b):
        page.wait_for_selector("#result .result-reason[data-reason='aborted']")
        assert page.locator("#result .result-ratings[data-unrated='aborted']").count() == 1
    assert b.inner_text("#result .result-title") == "Game aborted"
    assert b.inner_text("#result .result-ratings") == "Aborted: not rated."
    assert b.locator("#result .result-text").count() == 0  # no "draw" for a game nobody played
    screenshot(a, "people-aborted-desktop-ko")
    screenshot(b, "people-aborted-phone-en")
    assert one.errors == two.errors == []
