"""The lobby's time controls (issue 38, item 1): the new-game form and the challenge posted from it
offer the game's presets from the server and a custom base + increment within the limits; a custom
one out of the limits is refused in words before anything is sent; open challenges, games in play
and your games show their clock (and your games the time your seat has left). A phone (390x844,
touch) and a desktop, in English and Korean. Screenshots go to ``test-artifacts/clock/``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    ARTIFACTS,
    assert_fits,
    browser,
    choose_game,
    server,
)
from tests.web.e2e.test_korean import assert_korean
from tests.web.e2e.test_lobby_presence import as_guest
from tests.web.e2e.test_people import open_lobby, person, press

SHOTS = ARTIFACTS / "clock"
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "choices": ["Untimed", "3+2", "5+3", "10+5", "1 day", "3 days", "7 days", "Custom…"],
        "bad": "Give a base of 1 s to 180 min",
        "custom": "90s+2",
        "days": "3 days",
        "left": re.compile(r"(9:[345]\d|10:00) on your clock"),
    },
    "ko": {
        "choices": ["시간 제한 없음", "3+2", "5+3", "10+5", "1일", "3일", "7일", "직접 정하기…"],
        "bad": "기본 시간은 1초에서 180분 사이",
        "custom": "90초+2",
        "days": "3일",
        "left": re.compile(r"(9:[345]\d|10:00) 남음"),
    },
}


def active_ids(page: Page, url: str) -> set[str]:
    return {game["id"] for game in page.request.get(f"{url}/api/games?status=active").json()["games"]}


def clocks(page: Page, url: str) -> dict[str, Any]:
    found: dict[str, Any] = page.request.get(f"{url}/api/clocks").json()["games"]
    return found


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_lobby_offers_and_shows_time_controls(browser: Browser, server: str, size: str, lang: str) -> None:  # noqa: F811
    words = WORDS[lang]
    page, errors = person(browser, size, lang)
    open_lobby(page, server)
    as_guest(page, f"Clock_{size[:2]}_{lang}")
    choose_game(page, "spline")

    # The game's presets, as the server lists them, then a custom one.
    offered = page.request.get(f"{server}/api/time-controls").json()["games"]["spline"]
    values = page.eval_on_selector_all("#clock option", "options => options.map(o => o.value)")
    assert values == [preset["control"] for preset in offered] + ["custom"]
    assert page.eval_on_selector_all("#clock option", "options => options.map(o => o.textContent)") == words["choices"]
    assert page.is_hidden("#clock-custom")

    # Both seats people; a custom control beyond the limits is refused in words, and nothing is made.
    page.locator("select.seat-kind").nth(1).select_option("human")
    page.select_option("#clock", "custom")
    assert page.is_visible("#clock-custom")
    page.fill("#clock-minutes", "200")
    before = active_ids(page, server)
    press(page, "#create")
    page.wait_for_function("() => document.getElementById('form-error').textContent.length > 0")
    assert words["bad"] in page.inner_text("#form-error")
    assert active_ids(page, server) == before

    # 1 min 30 s + 2 s: the game is made on that clock, and the games in play say so.
    page.fill("#clock-minutes", "1")
    page.fill("#clock-seconds", "30")
    page.fill("#clock-increment", "2")
    press(page, "#create")
    page.wait_for_selector("#created .invite a.open-seat")
    (made,) = active_ids(page, server) - before
    assert clocks(page, server)[made]["clock"] == {"base": 90, "increment": 2}
    row = page.wait_for_selector(f"#active-games tr[data-game='{made}'] .game-clock")
    assert row is not None and row.inner_text() == words["custom"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"lobby-form-{size}-{lang}.png"), full_page=True)
    page.locator("#new-game").screenshot(path=str(SHOTS / f"lobby-form-custom-{size}-{lang}.png"))
    page.locator("#active-games").screenshot(path=str(SHOTS / f"lobby-in-play-{size}-{lang}.png"))

    # A correspondence challenge: posted with its clock, and the open challenges show it.
    page.select_option("#clock", "3d")
    assert page.is_hidden("#clock-custom")
    press(page, "#post")
    posted = page.wait_for_selector("#challenges li.challenge[data-game='spline']")
    assert posted is not None and words["days"] in posted.inner_text()
    challenge = posted.get_attribute("data-challenge")
    listed = page.request.get(f"{server}/api/challenges").json()["challenges"]
    assert next(c["clock"] for c in listed if c["id"] == challenge) == {"days": 3}
    page.screenshot(path=str(SHOTS / f"lobby-challenge-{size}-{lang}.png"), full_page=True)
    page.locator("#challenges").screenshot(path=str(SHOTS / f"lobby-challenges-{size}-{lang}.png"))
    assert_fits(page, board=False)
    if lang == "ko":
        assert_korean(page)
    press(page, f"#challenges li.challenge[data-challenge='{challenge}'] button.cancel-challenge")
    page.wait_for_selector(f"#challenges li.challenge[data-challenge='{challenge}']", state="detached")

    # Against a level on 10+5, playing the first seat: the game starts at once on that clock; back in
    # the lobby, your games show its control and the time your seat has left.
    page.select_option("#clock", "10+5")
    page.select_option("#challenge-seat", "0")
    page.select_option("#challenge-to", "level:1")
    press(page, "#post")
    page.wait_for_url("**/game/**")
    page.wait_for_selector("#clocks .clock[data-seat='0'].running")
    open_lobby(page, server)
    mine = page.wait_for_selector("#my-games li.my-game .game-clock", timeout=15_000)
    assert mine is not None
    assert "10+5" in mine.inner_text() and words["left"].search(mine.inner_text()), mine.inner_text()
    page.screenshot(path=str(SHOTS / f"lobby-your-games-{size}-{lang}.png"), full_page=True)
    page.locator("#my-games").screenshot(path=str(SHOTS / f"lobby-my-games-{size}-{lang}.png"))
    assert_fits(page, board=False)
    assert errors == []
    page.context.close()
