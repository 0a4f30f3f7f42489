"""End-to-end: a seat belongs to the first browser that opens its invite link.

The invitee's browser opens the link and plays; the same link opened in another browser (the
creator's, say) shows "seat already taken" and watches, at phone size (390×844, touch) and on a
desktop; the invitee's browser, reloaded, is still the seat. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.web.e2e.test_browser import TIMEOUT, browser, screenshot, server  # noqa: F401  (fixtures)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 820}}


def create_game(server: str) -> dict[str, object]:  # noqa: F811  (server is a fixture's name too)
    body = json.dumps({"game": "spline", "seats": [{"kind": "human"}, {"kind": "human"}]}).encode()
    request = urllib.request.Request(server + "/api/games", body, {"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=20) as response:
        created: dict[str, object] = json.load(response)
        return created


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:  # noqa: F811
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def open_page(browser: Browser, opened: list[BrowserContext], url: str, **settings: object) -> Page:  # noqa: F811
    context = browser.new_context(**settings)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT)
    opened.append(context)
    page = context.new_page()
    page.goto(url)
    return page


@pytest.mark.parametrize(("size", "settings"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_a_second_browser_opening_a_claimed_link_is_told_the_seat_is_taken(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
    settings: dict[str, object],
) -> None:
    created = create_game(server)
    seats = created["seats"]
    assert isinstance(seats, list)
    invite = server + str(seats[1]["invite"])
    invitee = open_page(browser, contexts, invite, **settings)
    invitee.wait_for_selector("#role:has-text('You play')")
    second = open_page(browser, contexts, invite, **settings)
    second.wait_for_selector("#role:has-text('already taken')")
    assert "Watching" not in second.locator("#role").inner_text()
    screenshot(second, f"seat-taken-{size}")
    invitee.reload()  # the invitee's browser kept its credential: still the seat
    invitee.wait_for_selector("#role:has-text('You play')")
