"""A timed game in the browser (issue 38): the clocks tick between frames, turn red when low, and a
3-second game ends on time with the server's verdict, on a phone and a desktop, in English and
Korean. Screenshots go to ``test-artifacts/clock/``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.web.e2e.test_browser import (
    ARTIFACTS,
    SIZES,
    assert_fits,
    browser,
    free_port,
    start_server,
    stop_server,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean

__all__ = ["browser"]  # the fixture, shared with the other browser tests

SHOTS = ARTIFACTS / "clock"
LOCALES = {"en": "en-US", "ko": "ko-KR"}
RAN_OUT = {"en": "ran out of time", "ko": "시간이 다 되었습니다"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    db = tmp_path_factory.mktemp("e2e-clock") / "games.sqlite3"
    with (tmp_path_factory.getbasetemp() / "server-clock.log").open("w") as log:
        process = start_server(port, db, log)
        yield f"http://127.0.0.1:{port}"
        stop_server(process)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_three_second_game_ticks_and_ends_on_time(browser: Browser, server: str, size: str, lang: str) -> None:
    page, errors = watched_page(browser, locale=LOCALES[lang], **SIZES[size])  # type: ignore[arg-type]
    body = {"game": "spline", "seats": [{"kind": "human"}] * 2, "clock": {"base": 3, "increment": 0}}
    made = page.request.post(f"{server}/api/games", data=body)
    assert made.ok, made.text()
    page.goto(server + made.json()["seats"][0]["invite"])
    mine = page.locator("#clocks .clock[data-seat='0']")
    mine.locator(".clock-time").wait_for()
    assert "running" in str(mine.get_attribute("class"))
    assert "running" not in str(page.locator("#clocks .clock[data-seat='1']").get_attribute("class"))
    before = mine.locator(".clock-time").inner_text()
    # The running clock ticks on the page's own between the server's frames (none comes meanwhile).
    page.wait_for_function(
        "(before) => document.querySelector(\"#clocks .clock[data-seat='0'] .clock-time\").textContent !== before",
        arg=before,
    )
    assert "low" in str(mine.get_attribute("class"))  # 3 s is low time: shown in red
    assert page.inner_text("#clocks .clock[data-seat='1'] .clock-time") == "0:03.0"  # the other one stands
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"ticking-{size}-{lang}.png"))
    assert_fits(page)
    # Nobody moves: the server flags the seat to move, and the page shows the result and why.
    page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    page.wait_for_selector("#clocks .clock.flagged[data-seat='0']")
    assert mine.locator(".clock-time").inner_text() == "0:00.0"
    assert RAN_OUT[lang] in page.inner_text("#result")
    page.screenshot(path=str(SHOTS / f"ended-{size}-{lang}.png"))
    assert_fits(page)
    if lang == "ko":
        assert_korean(page)
    assert errors == []
    page.context.close()
