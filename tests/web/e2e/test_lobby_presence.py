"""End-to-end: the lobby follows presence over its socket (never polling ``/api/presence``) and a
player who joined a 3-seat Spinca challenge leaves it with the "Leave" button (issue 37, items 2
and 6). A desktop and a phone (390x844, touch), in English and in Korean. Screenshots go to
``test-artifacts/`` (``lobby-presence-*``, ``lobby-leave-*``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    assert_fits,
    browser,
    choose_game,
    screenshot,
    server,
)
from tests.web.e2e.test_korean import assert_korean
from tests.web.e2e.test_people import open_lobby, person, press

WORDS = {
    "en": {
        "online": "2 people online",
        "lobby": "2 in the lobby",
        "leave": "Leave",
        "left": "your seat is open",
        "two": "2 of 3 seats taken",
        "one": "1 of 3 seats taken",
    },
    "ko": {
        "online": "2명 접속 중",
        "lobby": "로비에 2명",
        "leave": "나가기",
        "left": "자리가 다시 비었습니다",
        "two": "3자리 중 2자리 찼음",
        "one": "3자리 중 1자리 찼음",
    },
}


def as_guest(page: Page, name: str) -> None:
    page.fill("#guest-name", name)
    press(page, "#play-as-guest")
    page.wait_for_selector("#you-are")


def presence_asked(page: Page) -> list[str]:
    """Every request the page makes for ``/api/presence`` (none: the socket says it)."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/api/presence" in request.url else None)
    return asked


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_presence_is_pushed_and_a_joined_player_leaves_a_spinca_challenge(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    lang: str,
) -> None:
    words = WORDS[lang]
    desk, desk_errors = person(browser, "desktop", lang)
    phone, phone_errors = person(browser, "phone", lang)
    asked_desk, asked_phone = presence_asked(desk), presence_asked(phone)
    open_lobby(desk, server)
    as_guest(desk, f"Desk_{lang}")
    desk.wait_for_selector(f"#presence-players a[href='/@/Desk_{lang}']")
    # The phone arrives: the desktop is told over its socket, without reloading and without asking.
    desk.evaluate("window.stillHere = true")
    open_lobby(phone, server)
    as_guest(phone, f"Phone_{lang}")
    desk.wait_for_selector(f"#presence-players a[href='/@/Phone_{lang}']")
    desk.wait_for_function(
        "words => { const t = document.getElementById('presence-counts').textContent;"
        " return t.includes(words.online) && t.includes(words.lobby); }",
        arg=words,
    )
    assert desk.evaluate("window.stillHere") is True
    screenshot(desk, f"lobby-presence-{lang}-desktop", full_page=True)

    # The desktop posts a Spinca challenge for three; the phone takes a seat, then leaves it.
    choose_game(desk, "spinca")
    desk.select_option("#opt-players", "3")
    desk.select_option("#challenge-seat", "0")
    desk.click("#post")
    row = f"#challenges li.challenge[data-game='spinca']:has(a[href='/@/Desk_{lang}'])"
    desk.wait_for_selector(f"{row} button.cancel-challenge")
    press(phone, f"{row} button.accept-challenge")
    leave = phone.wait_for_selector(f"{row} button.leave-challenge")
    assert leave is not None and leave.inner_text() == words["leave"]
    assert phone.query_selector(f"{row} button.accept-challenge") is None
    desk.wait_for_selector(f"{row} .challenge-who:has-text('{words['two']}')")  # the poster sees the seat taken
    if lang == "ko":
        assert_korean(phone)
    assert_fits(phone, board=False)
    screenshot(phone, f"lobby-leave-{lang}-phone", full_page=True)
    screenshot(desk, f"lobby-leave-{lang}-desktop", full_page=True)
    press(phone, f"{row} button.leave-challenge")
    phone.wait_for_selector(f"{row} button.accept-challenge")  # the seat is open: it may be taken again
    assert words["left"] in phone.inner_text("#challenge-error")
    desk.wait_for_selector(f"{row} .challenge-who:has-text('{words['one']}')")
    screenshot(phone, f"lobby-left-{lang}-phone", full_page=True)
    press(desk, f"{row} button.cancel-challenge")  # the poster cancels: gone from both lobbies
    phone.wait_for_selector(row, state="detached")
    for page in (desk, phone):
        page.context.close()
    assert asked_desk == [] and asked_phone == [], (asked_desk, asked_phone)
    assert desk_errors == [] and phone_errors == [], (desk_errors, phone_errors)
