"""Issue 38's "done means" in browsers: a clocked game between two browsers ends on time (one player
never moves, a 3-second base), and a clocked game made in the lobby against an agent ends on time
(the person runs out). Every result card says who ran out of time. Phones (390x844, touch) and
desktops, in English and Korean. Screenshots go to ``test-artifacts/clock/``.
"""

from __future__ import annotations

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
from tests.web.e2e.test_people import open_lobby, person, press

SHOTS = ARTIFACTS / "clock"
#: What the result card says when White (the first seat) ran out of time.
WHITE_RAN_OUT = {"en": "White ran out of time", "ko": "흰색의 시간이 다 되었습니다"}
THREE_SECONDS = {"base": 3, "increment": 0}


def ended_on_time(page: Page, lang: str, shot: str) -> None:
    """Wait for the page's result card; it says White ran out of time, and White's clock shows 0."""
    page.wait_for_selector("#result:not([hidden])", timeout=20_000)
    page.wait_for_selector("#clocks .clock.flagged[data-seat='0']")
    assert WHITE_RAN_OUT[lang] in page.inner_text("#result"), page.inner_text("#result")
    assert page.inner_text("#clocks .clock[data-seat='0'] .clock-time") == "0:00.0"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{shot}.png"))
    assert_fits(page)
    if lang == "ko":
        assert_korean(page)


@pytest.mark.parametrize("langs", [("en", "ko"), ("ko", "en")])
def test_a_game_between_two_browsers_ends_on_time(browser: Browser, server: str, langs: tuple[str, str]) -> None:  # noqa: F811
    phone_lang, desk_lang = langs
    phone, phone_errors = person(browser, "phone", phone_lang)
    desk, desk_errors = person(browser, "desktop", desk_lang)
    body = {"game": "spline", "seats": [{"kind": "human"}] * 2, "clock": THREE_SECONDS}
    made = phone.request.post(f"{server}/api/games", data=body)
    assert made.ok, made.text()
    seats = made.json()["seats"]
    # The phone holds White, who never moves; the desktop holds Black and waits.
    phone.goto(server + seats[0]["invite"])
    desk.goto(server + seats[1]["invite"])
    for page in (phone, desk):
        page.wait_for_selector("#clocks .clock[data-seat='0'].running")
    assert "running" not in str(desk.get_attribute("#clocks .clock[data-seat='1']", "class"))
    ended_on_time(phone, phone_lang, f"two-browsers-phone-{phone_lang}")
    ended_on_time(desk, desk_lang, f"two-browsers-desktop-{desk_lang}")
    result = phone.request.get(f"{server}/api/games/{made.json()['id']}").json()
    assert result["status"] == "finished"
    assert phone_errors == [] and desk_errors == []
    phone.context.close()
    desk.context.close()


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_game_against_an_agent_ends_when_the_person_runs_out(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    size: str,
    lang: str,
) -> None:
    page, errors = person(browser, size, lang)
    open_lobby(page, server)
    choose_game(page, "spline")
    # The person (White, first to move) against the engine's first level, on a custom 3 s + 0 clock.
    page.locator("select.seat-kind").nth(1).select_option("level:1")
    page.select_option("#clock", "custom")
    page.fill("#clock-minutes", "0")
    page.fill("#clock-seconds", "3")
    page.fill("#clock-increment", "0")
    press(page, "#create")
    page.wait_for_url("**/game/**")  # one person against agents goes to their seat at once
    page.wait_for_selector("#clocks .clock[data-seat='0'].running")
    assert page.inner_text("#clocks .clock[data-seat='1'] .clock-time") == "0:03.0"  # the agent's stands
    ended_on_time(page, lang, f"agent-{size}-{lang}")
    assert errors == []
    page.context.close()
