"""End-to-end: the lobby of people and the profiles (issue 37, items 1, 2, 4 and 6 in the page), beside
the issue's one flow from registration to the rating change on both profiles (test_meet.py).

A guest plays under a name, posts a casual challenge and cancels it, then logs out; in Korean on a
phone, and a Korean profile page. An unknown player's page says so with a 404. An account plays two
rated games against a level, both listed on its profile. Screenshots go to ``test-artifacts/``
(``people-*``); the helpers here (a person's page, the lobby, registering) serve test_meet.py too.
"""

from __future__ import annotations

import random
import re

from playwright.sync_api import Browser, Page

from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    SIZES,
    assert_fits,
    browser,
    choose_game,
    play_to_the_end,
    screenshot,
    server,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean

LOCALES = {"en": "en-US", "ko": "ko-KR"}
PASSWORD = "correct horse battery"


def person(browser: Browser, size: str, lang: str = "en") -> tuple[Page, list[str]]:  # noqa: F811
    return watched_page(browser, locale=LOCALES[lang], **SIZES[size])  # type: ignore[arg-type]


def open_lobby(page: Page, server: str) -> None:  # noqa: F811
    page.goto(server + "/")
    page.wait_for_selector("#seat-rows[data-game] select.seat-kind")
    page.wait_for_selector("#account form, #you-are")
    page.wait_for_selector("#quick .quick-pair")


def press(page: Page, selector: str) -> None:
    """Tap on a touch screen, click elsewhere: as a person would."""
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.tap(selector)
    else:
        page.click(selector)


def register(page: Page, name: str) -> None:
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    press(page, "#register")
    page.wait_for_selector("#you-are")
    assert page.inner_text("#you-are a") == name
    assert "(" not in page.inner_text("#you-are")  # an account, not marked as a guest
    assert not page.is_disabled("#challenge-rated")  # rated games are offered to accounts


def test_a_guest_in_korean_posts_cancels_and_logs_out(browser: Browser, server: str) -> None:  # noqa: F811
    page, errors = person(browser, "phone", "ko")
    watcher, watcher_errors = person(browser, "desktop", "ko")
    open_lobby(page, server)
    open_lobby(watcher, server)
    assert_korean(page)
    # Nobody yet: posting asks for a name first, and nothing is posted.
    page.click("#post")
    assert page.inner_text("#post-error") != ""
    page.fill("#guest-name", "Bora")
    press(page, "#play-as-guest")
    page.wait_for_selector("#you-are")
    assert page.inner_text("#you-are a") == "Bora"
    assert "손님" in page.inner_text("#you-are")  # a guest is marked as one
    assert page.is_disabled("#challenge-rated")  # rated games are for registered players
    page.click("#post")
    page.wait_for_selector("#challenges li.challenge button.cancel-challenge")
    watcher.wait_for_selector("#challenges li.challenge button.accept-challenge")
    assert "Bora" in watcher.inner_text("#challenges li.challenge")
    assert_korean(page)
    assert_fits(page, board=False)
    screenshot(page, "people-ko-guest-phone", full_page=True)
    screenshot(watcher, "people-ko-lobby-desktop", full_page=True)
    # Cancelled: gone from the poster's list and, pushed, from the other lobby.
    press(page, "#challenges li.challenge button.cancel-challenge")
    page.wait_for_selector("#no-challenges:not([hidden])")
    watcher.wait_for_selector("#challenges li.challenge", state="detached")
    watcher.wait_for_selector("#no-challenges:not([hidden])")
    # The guest's profile, in Korean, marks the guest.
    response = watcher.goto(f"{server}/@/Bora")
    assert response is not None and response.status == 200
    watcher.wait_for_selector("#no-games:not([hidden])")
    assert watcher.is_visible("#player-guest")
    assert_korean(watcher)
    screenshot(watcher, "people-ko-profile-desktop", full_page=True)
    # Logged out: nobody again, the guest-name box is back.
    press(page, "#log-out")
    page.wait_for_selector("#guest-name")
    assert page.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.player)") is None
    for p in (page, watcher):
        p.context.close()
    assert errors == [] and watcher_errors == [], (errors, watcher_errors)


def test_an_unknown_player_page_says_so(browser: Browser, server: str) -> None:  # noqa: F811
    page, errors = person(browser, "desktop")
    response = page.goto(f"{server}/@/Nobody_here")
    assert response is not None and response.status == 404
    page.wait_for_selector("#profile-error:not(:empty)")
    assert page.inner_text("#player-name") == "Nobody_here"
    page.context.close()
    # The page's own fetch of the missing profile is logged by the browser as a failed resource.
    assert [e for e in errors if "404" not in e] == [], errors


def test_a_rated_game_against_a_level_shows_on_the_profile(browser: Browser, server: str) -> None:  # noqa: F811
    page, errors = person(browser, "desktop")
    open_lobby(page, server)
    register(page, "Sora_rated")
    choose_game(page, "special-cake")
    page.select_option("#opt-variant", "mint")
    page.select_option("#challenge-seat", "0")
    page.select_option("#challenge-to", "level:1")
    page.check("#challenge-rated")
    game_ids = []
    for round_ in range(2):  # two rated games: a history of two points to chart
        if round_:
            open_lobby(page, server)
            choose_game(page, "special-cake")
            page.select_option("#opt-variant", "mint")
            page.select_option("#challenge-to", "level:1")
            page.check("#challenge-rated")
        page.click("#post")  # against a level the game starts at once
        page.wait_for_url(re.compile(r"/game/[^/#]+#"))
        game_ids.append(page.url.split("/game/")[1].split("#")[0])
        play_to_the_end(page, random.Random(3 + round_), f"people-rated-level-{round_}")
    response = page.goto(f"{server}/@/Sora_rated")
    assert response is not None and response.status == 200
    for game_id in game_ids:  # both games, each with its result against the level
        row = page.wait_for_selector(f"#games tr[data-game='{game_id}']")
        assert row is not None
        assert any(word in row.inner_text() for word in ("Won", "Lost")), row.inner_text()
    rating = page.wait_for_selector("#ratings .rating[data-key^='special-cake/']")
    assert rating is not None and "Special Cake" in rating.inner_text()
    assert "2 games" in rating.inner_text()
    assert len(str(page.get_attribute("#ratings svg.eval-chart polyline", "points")).split()) == 3  # start, two games
    screenshot(page, "people-profile-rated-desktop", full_page=True)
    page.context.close()
    assert errors == [], errors
