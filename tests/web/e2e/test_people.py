"""End-to-end: the lobby of people and the profiles (issue 37, items 1, 2, 4 and 6 in the page).

Two browser contexts, a phone (390x844, touch) and a desktop, register under different names; the
desktop posts a rated Special Cake mint challenge, the phone sees it appear without reloading and
accepts it, and both land in the game, each in a seat of their own; both profile pages show the
player and list the game as being played. A guest plays under a name, posts a casual challenge
and cancels it, then logs out; in Korean on a phone, and a Korean profile page. An unknown
player's page says so with a 404. Screenshots go to ``test-artifacts/`` (``people-*``).
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


def test_two_people_meet_through_a_rated_challenge(browser: Browser, server: str) -> None:  # noqa: F811
    phone, phone_errors = person(browser, "phone")
    desk, desk_errors = person(browser, "desktop")
    for page in (phone, desk):
        open_lobby(page, server)
        assert_fits(page, board=False)
    register(phone, "Mina_phone")
    register(desk, "Jun-desk")
    phone.evaluate("window.stillHere = true")  # gone if the page reloads
    # Both are online, counted by their lobby sockets (the list is asked for every few seconds).
    desk.wait_for_selector("#presence-players a[href='/@/Mina_phone']")
    desk.wait_for_selector("#presence-players a[href='/@/Jun-desk']")
    desk.wait_for_function("document.getElementById('presence-counts').textContent.startsWith('2 people online')")

    # The desktop posts a rated Special Cake mint challenge, playing the first seat.
    choose_game(desk, "special-cake")
    desk.select_option("#opt-variant", "mint")
    desk.select_option("#challenge-seat", "0")
    desk.check("#challenge-rated")
    desk.click("#post")
    own = desk.wait_for_selector("#challenges li.challenge[data-game='special-cake']")
    assert own is not None
    assert own.query_selector("button.cancel-challenge") is not None  # one's own: cancel, not accept
    assert own.query_selector("button.accept-challenge") is None

    # The phone sees it at once, pushed over its lobby socket, with the poster's name and "rated".
    offer = phone.wait_for_selector("#challenges li.challenge[data-game='special-cake'] button.accept-challenge")
    assert offer is not None
    assert phone.evaluate("window.stillHere") is True
    row = phone.inner_text("#challenges li.challenge[data-game='special-cake']")
    assert "Jun-desk" in row and "rated" in row and "mint" in row.lower(), row
    assert phone.is_hidden("#no-challenges")
    screenshot(phone, "people-lobby-phone", full_page=True)
    screenshot(desk, "people-lobby-desktop", full_page=True)
    assert offer.is_visible()

    press(phone, "#challenges li.challenge[data-game='special-cake'] button.accept-challenge")
    # Both land in the game: the accepter by the answer's invite, the poster by its game_ready frame.
    for page in (phone, desk):
        page.wait_for_url(re.compile(r"/game/[^/#]+#"))
    game_id = phone.url.split("/game/")[1].split("#")[0]
    assert desk.url.split("/game/")[1].split("#")[0] == game_id
    for page in (phone, desk):
        page.wait_for_selector("#players li.player .dot.on >> nth=1")  # both seats are connected
        page.wait_for_selector("#players .me-tag")  # each holds a seat of their own
    assert phone.inner_text("#players .me-tag >> xpath=..") != desk.inner_text("#players .me-tag >> xpath=..")
    screenshot(phone, "people-game-phone")
    screenshot(desk, "people-game-desktop")

    # Each profile shows its player, the game being played, and the opponent by name.
    for page, name, other in ((desk, "Jun-desk", "Mina_phone"), (phone, "Mina_phone", "Jun-desk")):
        response = page.goto(f"{server}/@/{name}")
        assert response is not None and response.status == 200
        playing = page.wait_for_selector(f"#playing li[data-game='{game_id}']")
        assert playing is not None
        assert page.inner_text("#player-name") == name
        assert other in playing.inner_text()
        assert playing.query_selector(f"a[href='/game/{game_id}']") is not None
        assert page.is_hidden("#player-guest")
        assert_fits(page, board=False)
    screenshot(phone, "people-profile-phone", full_page=True)
    screenshot(desk, "people-profile-desktop", full_page=True)

    # The search finds a player by the start of their name and leads to the profile.
    desk.fill("#player-prefix", "mina")
    desk.click("#player-results a[href='/@/Mina_phone']")
    desk.wait_for_url(re.compile(r"/@/Mina_phone$"))
    desk.wait_for_selector(f"#playing li[data-game='{game_id}']")

    # Back in the lobby, the game is among "your games".
    open_lobby(phone, server)
    phone.wait_for_selector(f"#my-games li[data-game='{game_id}']")
    for page in (phone, desk):
        page.context.close()
    assert phone_errors == [] and desk_errors == [], (phone_errors, desk_errors)


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
    game_id = game_ids[0]
    response = page.goto(f"{server}/@/Sora_rated")
    assert response is not None and response.status == 200
    row = page.wait_for_selector(f"#games tr[data-game='{game_id}']")
    assert row is not None
    text = row.inner_text()
    assert any(word in text for word in ("Won", "Lost", "Draw")), text
    assert "→" in text  # the rating before and after the game
    assert row.query_selector(f"a[href='/replay/{game_id}']") is not None
    assert row.query_selector("a[href^='/analysis?record=']") is not None
    rating = page.wait_for_selector("#ratings .rating[data-key^='special-cake/']")
    assert rating is not None and "Special Cake" in rating.inner_text()
    assert rating.query_selector("abbr.provisional") is not None  # two games: still provisional
    assert rating.query_selector("svg.eval-chart polyline") is not None  # the history, charted
    assert "2 games" in rating.inner_text()
    page.wait_for_selector(f"#games tr[data-game='{game_ids[1]}']")
    assert page.is_hidden("#no-ratings")
    screenshot(page, "people-profile-rated-desktop", full_page=True)
    page.context.close()
    assert errors == [], errors
