"""Correspondence in the browser (issue 38, item 3): a move made in one of your games while a
Spheria tab is open tells you through the browser's Notification API, when you allowed it. The test
grants the permission to the browser context and wraps ``window.Notification`` to see what the page
constructs. A phone (390x844, touch) and a desktop, in English and Korean. Screenshots go to
``test-artifacts/clock/``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    ARTIFACTS,
    SIZES,
    assert_fits,
    browser,
    choose_game,
    play_turn,
    server,
    wait_turn,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean
from tests.web.e2e.test_lobby_presence import as_guest
from tests.web.e2e.test_people import LOCALES, open_lobby, person, press

SHOTS = ARTIFACTS / "clock"
#: Every Notification the page constructs is noted in ``window.notes`` (then made as the browser would).
RECORD_NOTIFICATIONS = """
window.notes = [];
const Real = window.Notification;
function Recorded(title, options) {
  window.notes.push({ title, body: options && options.body });
  return new Real(title, options);
}
Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
Recorded.requestPermission = (...args) => Real.requestPermission(...args);
window.Notification = Recorded;
"""
WORDS = {
    "en": {"waiting": "Waiting for the other side", "note": "Your move in Spline", "yours": "Your move"},
    "ko": {"waiting": "상대를 기다리는 중", "note": "스플라인: 내 차례입니다", "yours": "내 차례"},
}


def notes(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.notes")
    return found


@pytest.mark.parametrize(("size", "lang"), [("phone", "en"), ("desktop", "ko"), ("phone", "ko"), ("desktop", "en")])
def test_a_move_in_your_game_notifies_you_in_an_open_lobby(browser: Browser, server: str, size: str, lang: str) -> None:  # noqa: F811
    words = WORDS[lang]
    rng = random.Random(38)
    mina, mina_errors = watched_page(browser, locale=LOCALES[lang], permissions=["notifications"], **SIZES[size])  # type: ignore[arg-type]
    mina.add_init_script(RECORD_NOTIFICATIONS)
    joon, joon_errors = person(browser, "desktop")
    for page, name in ((mina, f"Mina_{size[:2]}_{lang}"), (joon, f"Joon_{size[:2]}_{lang}")):
        open_lobby(page, server)
        as_guest(page, name)
    assert mina.is_hidden("#notify")  # allowed already: nothing to ask

    # Mina posts a correspondence challenge, playing White; Joon takes it; both land in the game.
    choose_game(mina, "spline")
    mina.select_option("#clock", "1d")
    mina.select_option("#challenge-seat", "0")
    press(mina, "#post")
    offer = f"#challenges li.challenge[data-game='spline']:has-text('Mina_{size[:2]}_{lang}') button.accept-challenge"
    joon.wait_for_selector(offer)
    press(joon, offer)
    for page in (mina, joon):
        page.wait_for_url("**/game/**")
    assert wait_turn(mina)
    play_turn(mina, rng)

    # Back in her lobby, Mina waits; Joon moves; her open lobby tells her through a notification.
    open_lobby(mina, server)
    mina.wait_for_selector(f"#my-games li.my-game:has-text('{words['waiting']}')")
    assert notes(mina) == []  # what stood at the first look is no news
    assert wait_turn(joon)
    play_turn(joon, rng)
    mina.wait_for_function("() => window.notes.length > 0", timeout=20_000)
    assert notes(mina) == [{"title": "Spheria", "body": words["note"]}]
    mina.wait_for_selector(f"#my-games li.my-game:has-text('{words['yours']}') .time-left")
    SHOTS.mkdir(parents=True, exist_ok=True)
    mina.screenshot(path=str(SHOTS / f"notified-{size}-{lang}.png"), full_page=True)
    mina.locator("#my-games").screenshot(path=str(SHOTS / f"notified-my-games-{size}-{lang}.png"))
    assert_fits(mina, board=False)
    if lang == "ko":
        assert_korean(mina)
    assert mina_errors == [] and joon_errors == []
    mina.context.close()
    joon.context.close()
