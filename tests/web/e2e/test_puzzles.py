"""Puzzles in the browser (issue 42, done means): a person plays ten puzzles on a phone, in Korean
and in English, by touch: some solved (every move of the solution, the defence answered between),
some missed (the oracle's refutation played out, then the solution), two after a hint, the daily
puzzle, and the guest's puzzle rating kept in the browser. A screenshot of each ended puzzle goes
to ``test-artifacts/puzzles/``."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Browser, Page

from spheria.puzzles import Puzzle, puzzle_state
from spheria.puzzles.making import same_move
from spheria.server.puzzles import catalogue, daily_puzzle
from tests.web.e2e.test_browser import ARTIFACTS, SIZES, assert_fits, browser, server, watched_page
from tests.web.e2e.test_korean import assert_korean

__all__ = ["browser", "server"]  # the fixtures

SITE = re.compile(r"[0-3][a-d][1-4]")
#: What the person does with each of the ten puzzles: solve it, miss it, or solve it after a hint.
PLAN = ["solve", "miss", "hint", "solve", "miss", "solve", "miss", "hint", "solve", "miss"]


@pytest.fixture(params=["en", "ko"])
def phone(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[Page, str]]:
    lang = str(request.param)
    page, errors = watched_page(browser, locale="ko-KR" if lang == "ko" else "en-US", **SIZES["phone"])  # type: ignore[arg-type]
    yield page, lang
    page.context.close()
    assert errors == [], errors


def shot(page: Page, name: str) -> None:
    (ARTIFACTS / "puzzles").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "puzzles" / f"{name}.png"))


def shown_puzzle(page: Page, before: str = "") -> Puzzle:
    page.wait_for_function(
        "(before) => document.body.dataset.state === 'asking' && document.body.dataset.puzzle"
        " && document.body.dataset.puzzle !== before",
        arg=before,
    )
    return catalogue()[str(page.evaluate("document.body.dataset.puzzle"))]


def wrong_move(puzzle: Puzzle) -> str:
    state = puzzle_state(puzzle)
    win = state.parse_move(puzzle.solution[0])
    return next(state.notation(m) for m in state.legal_moves() if not same_move(state, m, win))


def press(page: Page, selector: str) -> None:
    """Tap ``selector`` on a touch screen, click it elsewhere."""
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.locator(selector).tap()
    else:
        page.locator(selector).click()


def tap_move(page: Page, move: str) -> None:
    """Make ``move`` by tapping its sites (a line's in the order written), then Play if it is not sent."""
    played = page.evaluate("document.body.dataset.played")
    for site in SITE.findall(move):
        press(page, f'#board .strip-site.clickable[data-site="{site}"]')
    waiting = "(p) => document.body.dataset.played === p && document.body.dataset.state === 'asking'"
    if page.evaluate(waiting, played) and page.locator("#btn-play:not([disabled])").count():
        press(page, "#btn-play")


def guest_rating(page: Page, game: str) -> dict[str, float]:
    ratings = json.loads(page.evaluate("localStorage.getItem('spheria.puzzle-ratings') || '{}'"))
    found: dict[str, float] = ratings.get(game, {})
    return found


def test_ten_puzzles_on_a_phone(phone: tuple[Page, str], server: str) -> None:
    page, lang = phone
    page.goto(f"{server}/puzzles?game=spline")
    puzzle = shown_puzzle(page)
    assert not page.locator("#steps-controls").is_visible()  # nothing to step through before the try
    assert not page.locator("#hint-text").is_visible()
    assert_fits(page)
    if lang == "ko":
        assert_korean(page)
    shot(page, f"{lang}-start")
    rated = 0
    for number, plan in enumerate(PLAN, 1):
        if number == 6:  # the second half in the other game
            press(page, '#puzzle-games button[data-game="special-cake"]')
            puzzle = shown_puzzle(page, puzzle.id)
        assert page.locator("#turn").inner_text().strip()
        before = guest_rating(page, puzzle.game)
        if plan == "hint":
            press(page, "#btn-hint")
            page.wait_for_function("() => document.getElementById('hint-text').textContent.length > 0")
            assert puzzle.solution[0] in page.locator("#hint-text").inner_text()
        if plan == "miss":
            tap_move(page, wrong_move(puzzle))
            page.wait_for_function("() => document.body.dataset.state === 'wrong'")
            page.wait_for_selector("#lines:not([hidden]) .puzzle-line[data-line='puzzles.refutation'] button")
            solution = page.locator(".puzzle-line[data-line='puzzles.solution'] button").all_inner_texts()
            assert solution == list(puzzle.solution)
            page.wait_for_timeout(1000)  # the refutation plays out a move a second
        else:
            for index, move in enumerate(puzzle.solution[::2]):
                tap_move(page, move)
                page.wait_for_function(
                    "(n) => document.body.dataset.played === n || document.body.dataset.state !== 'asking'",
                    arg=str(index + 1),
                )
            page.wait_for_function("() => document.body.dataset.state === 'solved'")
        after = guest_rating(page, puzzle.game)
        if plan == "hint":
            assert after == before  # a try after a hint changes no rating
        else:
            rated += 1
            assert after["games"] == before.get("games", 0) + 1
            assert (after["rating"] > before.get("rating", 1500)) == (plan == "solve")
            shown = re.sub(r"\D", "", page.locator("#my-rating").inner_text())
            assert shown == str(math.floor(after["rating"] + 0.5))  # as JavaScript's Math.round rounds
        assert page.locator("#btn-hint[disabled]").count() == 1  # the try is over: no hint
        assert_fits(page)
        if lang == "ko":
            assert_korean(page)
        shot(page, f"{lang}-{number:02d}-{plan}")
        press(page, "#btn-next")
        puzzle = shown_puzzle(page, puzzle.id)
        assert not page.locator("#steps-controls").is_visible() and not page.locator("#lines").is_visible()
    assert rated == 8
    press(page, "#btn-daily")
    page.wait_for_function("() => document.body.dataset.state === 'asking' && location.search === '?daily=1'")
    assert page.evaluate("document.body.dataset.puzzle") == daily_puzzle(datetime.now(UTC).date()).id
    if lang == "ko":
        assert_korean(page)
    shot(page, f"{lang}-daily")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_missed_puzzle_on_a_desktop(browser: Browser, server: str, lang: str) -> None:
    locale = "ko-KR" if lang == "ko" else "en-US"
    page, errors = watched_page(browser, locale=locale, **SIZES["desktop"])  # type: ignore[arg-type]
    page.goto(f"{server}/puzzles?game=special-cake")
    puzzle = shown_puzzle(page)
    press(page, "#btn-hint")
    page.wait_for_function("() => document.getElementById('hint-text').textContent.length > 0")
    tap_move(page, wrong_move(puzzle))
    page.wait_for_function("() => document.body.dataset.state === 'wrong'")
    assert_fits(page)
    if lang == "ko":
        assert_korean(page)
    shot(page, f"desktop-{lang}-missed")
    press(page, "#step-on")  # the person steps through the lines
    page.context.close()
    assert errors == [], errors
