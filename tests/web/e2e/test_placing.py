"""The ball a placement would put down, drawn on the board's targets, is the colour the server
sends for the seat (the frame's ``placing``): the page computes no rule. Spinca with three seats
(the third seat places red), Special Cake mint's set-up (the second seat places black) and
Spagyric (the ball that won the reveal), on a 390x844 phone by touch and on the desktop, in
English and in Korean. Screenshots go to ``test-artifacts/`` (``placing-<game>-<lang>-<size>``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from spheria.kernel.registry import load_game
from tests.web.e2e.test_browser import (
    SIZES,
    assert_fits,
    browser,
    play_turn,
    screenshot,
    server,
    wait_turn,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean, server_words

__all__ = ["browser", "server"]  # the fixtures, shared with the English browser tests

#: (screenshot name, game, options, the human seat); the other seats are random agents.
CASES: list[tuple[str, str, dict[str, Any], int]] = [
    ("spinca-3", "spinca", {"players": 3}, 2),
    ("special-cake-mint", "special-cake", {"variant": "mint"}, 1),
    ("spagyric", "spagyric", {}, 0),
]
LOCALES = {"en": "en-US", "ko": "ko-KR"}


def open_seat(
    browser: Browser, server: str, size: str, lang: str, case: tuple[str, str, dict[str, Any], int]
) -> tuple[Page, list[str]]:
    """A new game with the case's human seat, opened at that seat's invite in a ``size`` page
    speaking ``lang``, and the errors the page logs."""
    _, game, options, human = case
    seats = load_game(game, **options).num_players
    page, errors = watched_page(browser, locale=LOCALES[lang], **SIZES[size])  # type: ignore[arg-type]
    page.goto(server + "/")
    wanted = [{"kind": "human"} if i == human else {"kind": "agent", "agent": "random"} for i in range(seats)]
    created = page.request.post(f"{server}/api/games", data={"game": game, "options": options, "seats": wanted})
    assert created.status == 201, created.text()
    invite = next(seat["invite"] for seat in created.json()["seats"] if seat["seat"] == human)
    page.goto(server + invite)
    page.wait_for_selector("#players li")
    return page, errors


def ghost_colors(page: Page) -> tuple[set[str], int]:
    """The fills of the balls drawn on the targets (pyramid and level maps), and how many there are."""
    fills: list[str] = page.eval_on_selector_all(
        "#board .ghost-fill, #board .strip-site circle[opacity='0.55']",
        "nodes => nodes.map(n => n.getAttribute('fill'))",
    )
    return set(fills), len(fills)


def reach_a_placement(page: Page, game: str) -> bool:
    """Play (by clicks) until this seat places a ball: in Spagyric, choose colours until it wins a
    reveal. False when the game ended first (the random opponent can win every reveal)."""
    rng = random.Random(5)
    for _ in range(60):
        if not wait_turn(page):
            return False
        if game != "spagyric" or page.evaluate("document.body.dataset.mode") == "place":
            return True
        play_turn(page, rng)
    raise AssertionError("this seat won no reveal in 60 turns")


def open_a_placement(
    browser: Browser, server: str, size: str, lang: str, case: tuple[str, str, dict[str, Any], int]
) -> tuple[Page, list[str]]:
    """A seat at the moment it places a ball, in a new game; a game the opponent's choices end
    before that is left for another (the server's agents are not seeded, so which one is luck)."""
    for _ in range(5):
        page, errors = open_seat(browser, server, size, lang, case)
        if reach_a_placement(page, case[1]):
            return page, errors
        assert errors == []
        page.context.close()
    raise AssertionError("five games ended before this seat placed a ball")


def placed_color(page: Page, game: str, options: dict[str, Any], human: int) -> str:
    """The colour the rules say the seat places now: its own, or in Spagyric the ball that won the reveal."""
    if game == "spagyric":
        return str(page.get_attribute(".reveal-seat.winner", "data-color"))
    color = load_game(game, **options).info().seats[human].color
    assert color is not None
    return color


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_the_targets_show_the_ball_the_seat_places(
    browser: Browser, server: str, case: tuple[str, str, dict[str, Any], int], size: str, lang: str
) -> None:
    name, game, options, human = case
    page, errors = open_a_placement(browser, server, size, lang, case)
    color = placed_color(page, game, options, human)
    page.wait_for_function("() => document.querySelectorAll('#board .ghost-fill').length > 0")
    fills, count = ghost_colors(page)
    assert fills == {f"url(#ball-{color})"} and count > 1, (fills, count)
    seat_name = load_game(game, **options).player_names()[human]
    shown_name = server_words(lang)["names"][seat_name]
    assert page.locator("#players li.me .name").inner_text() == shown_name
    if lang == "ko":
        assert_korean(page)
    assert_fits(page)
    screenshot(page, f"placing-{name}-{lang}-{size}", full_page=True)
    page.context.close()
    assert errors == []
