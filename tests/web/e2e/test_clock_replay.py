"""Replays show each move's clock from the record (issue 38, item 4): after each move, every seat's
time left as the record stores it, the time each move took in the moves list, and at the end of a
game lost on time the seat that ran out at 0. A phone (390x844, touch) and a desktop, in English
and Korean. Screenshots go to ``test-artifacts/clock/``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from spheria.kernel.clock import describe_left
from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    ARTIFACTS,
    assert_fits,
    browser,
    play_turn,
    server,
    wait_turn,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean
from tests.web.e2e.test_people import person

SHOTS = ARTIFACTS / "clock"
RAN_OUT = {"en": "White ran out of time", "ko": "흰색의 시간이 다 되었습니다"}


@pytest.fixture(scope="module")
def record(browser: Browser, server: str) -> Iterator[dict[str, Any]]:  # noqa: F811
    """A 5 s + 0 Spline game: each seat moves once, then White never moves again and runs out."""
    rng = random.Random(4)
    white, _ = watched_page(browser, viewport={"width": 1280, "height": 820})
    black, _ = watched_page(browser, viewport={"width": 1280, "height": 820})
    body = {"game": "spline", "seats": [{"kind": "human"}] * 2, "clock": {"base": 5, "increment": 0}}
    made = white.request.post(f"{server}/api/games", data=body)
    assert made.ok, made.text()
    seats = made.json()["seats"]
    white.goto(server + seats[0]["invite"])
    black.goto(server + seats[1]["invite"])
    assert wait_turn(white)
    play_turn(white, rng)
    assert wait_turn(black)
    play_turn(black, rng)
    white.wait_for_selector("#result:not([hidden])", timeout=20_000)
    found: dict[str, Any] = white.request.get(f"{server}/api/games/{made.json()['id']}/record").json()
    found["id"] = made.json()["id"]
    white.context.close()
    black.context.close()
    yield found


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_replay_shows_each_move_s_clocks_from_the_record(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    record: dict[str, Any],
    size: str,
    lang: str,
) -> None:
    assert len(record["moves"]) == 2 and record["lost_on_time"] == 0 and len(record["clocks"]) == 2
    (white_move,), (black_move,) = record["clocks"]
    page, errors = person(browser, size, lang)
    page.goto(f"{server}/replay/{record['id']}")
    times = "#clocks .clock .clock-time"
    page.wait_for_selector(times)
    assert page.locator(times).all_inner_texts() == ["0:05.0", "0:05.0"]  # the start: both whole
    page.click("#next")
    page.wait_for_function("() => document.getElementById('slider').value === '1'")
    assert page.locator(times).all_inner_texts() == [describe_left(white_move[2]), "0:05.0"]
    page.click("#next")
    page.wait_for_function("() => document.getElementById('slider').value === '2'")
    # The last move shown: Black's time after it, and White, who ran out, flagged at 0.
    assert page.locator(times).all_inner_texts() == ["0:00.0", describe_left(black_move[2])]
    assert "flagged" in str(page.get_attribute("#clocks .clock[data-seat='0']", "class"))
    used = page.locator("#history .move-used").all_inner_texts()
    assert [text.strip() for text in used] == [describe_left(white_move[1]), describe_left(black_move[1])]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"replay-{size}-{lang}.png"), full_page=True)
    assert RAN_OUT[lang] in page.inner_text("#status")
    assert_fits(page)
    if lang == "ko":
        assert_korean(page)

    # The analysis board, opened at this move, shows the same clocks on the recorded line.
    page.click("#analyse")
    page.wait_for_selector("body[data-ready='1'][data-node='2']")
    assert page.locator(times).all_inner_texts() == ["0:00.0", describe_left(black_move[2])]
    page.screenshot(path=str(SHOTS / f"analysis-{size}-{lang}.png"), full_page=True)
    page.click("#first")
    page.wait_for_selector("body[data-ready='1'][data-node='0']")
    assert page.locator(times).all_inner_texts() == ["0:05.0", "0:05.0"]
    assert errors == []
    page.context.close()
