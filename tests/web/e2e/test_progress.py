"""End-to-end: while the server's solver thinks, the game page counts the positions it has searched.

A person playing Special Cake against the solver sees "Liquorice is thinking… 1.2 s · 262,144
positions searched" (the number written as their language writes numbers), and the same count
under the Hint button while a hint is worked out; the line goes away with the move. Each test has
a server of its own, so the solver's tables start empty and every search takes its full time.
Screenshots go to ``test-artifacts/progress-*.png``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.web.e2e.test_browser import (  # noqa: F401  (fixtures)
    CLICKABLE,
    SIZES,
    assert_fits,
    browser,
    free_port,
    screenshot,
    start_server,
    stop_server,
    wait_moved,
    wait_turn,
    watched_page,
)

#: Mint (the person) to eat; after ``0a4`` the solver (Liquorice) searches about 800,000 positions.
BEFORE_SOLVER = "bwbbbwwwwbbbbwww/wbbbwwwbw/bww./. 1 eat"
EAT = "0a4"
#: A full cake (docs/solver.md, "mint 3"): a hint searches it until its time is up.
FULL_CAKE = "wwbwwwwbwwbbbbbb/wbwbwbwbw/wbwb/b 1 eat"

#: The count as each language writes it: grouped digits (the search is past 65,536 by then).
COUNTS = {
    "en-US": r"\d{1,3}(,\d{3})+ positions searched",
    "ko-KR": r"국면 \d{1,3}(,\d{3})+개 탐색",
}


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[str]:
    """A server of this test's own (its agents' solver tables empty)."""
    port = free_port()
    with (tmp_path / "server.log").open("w") as log:
        process = start_server(port, tmp_path / "games.sqlite3", log)
        yield f"http://127.0.0.1:{port}"
        stop_server(process)


def create(page: Page, server: str, other: str, start: str, hints: bool) -> str:
    """A Special Cake (mint) game from ``start``: the person as Mint, ``other`` as Liquorice; the invite."""
    seats = [{"kind": "human"}, {"kind": "agent", "agent": other}]
    body: dict[str, Any] = {"game": "special-cake", "options": {"variant": "mint"}, "seats": seats, "start": start}
    response = page.request.post(f"{server}/api/games", data={**body, "hints": hints})
    assert response.status == 201, response.text()
    return str(response.json()["seats"][0]["invite"])


def click(page: Page, selector: str) -> None:
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.locator(selector).tap()
    else:
        page.locator(selector).click()


def wait_count(page: Page, selector: str, locale: str) -> str:
    """Wait until ``selector`` shows a positions count written for ``locale``; its text."""
    page.wait_for_function(
        "([selector, pattern]) => new RegExp(pattern).test(document.querySelector(selector).textContent)",
        arg=[selector, COUNTS[locale]],
    )
    return page.inner_text(selector)


@pytest.mark.parametrize(
    ("size", "locale"), [("phone", "en-US"), ("desktop", "en-US"), ("phone", "ko-KR")], ids=["phone", "desktop", "ko"]
)
def test_the_page_counts_the_positions_the_solver_searched(
    browser: Browser,  # noqa: F811
    fresh_server: str,
    size: str,
    locale: str,
) -> None:
    page, errors = watched_page(browser, locale=locale, **SIZES[size])  # type: ignore[arg-type]
    name = f"{size}-{locale[:2]}"
    page.goto(fresh_server + create(page, fresh_server, "solver", BEFORE_SOLVER, hints=False))
    assert wait_turn(page)
    version = str(page.evaluate("document.body.dataset.version"))
    click(page, f"{CLICKABLE}[data-site='{EAT}']")
    if page.locator("#btn-play:not([disabled])").count():
        click(page, "#btn-play")
    wait_moved(page, version)
    line = wait_count(page, "#thinking", locale)  # the solver's search, live
    screenshot(page, f"progress-solver-{name}")
    assert ("Liquorice" if locale == "en-US" else "감초") in line
    if size == "phone":
        assert_fits(page)
    assert wait_turn(page)  # the solver moved: the line went away with its move
    assert page.inner_text("#thinking") == ""
    assert page.locator("body[data-thinking='']").count() == 1

    page.goto(fresh_server + create(page, fresh_server, "greedy", FULL_CAKE, hints=True))
    assert wait_turn(page)
    click(page, "#btn-hint")
    status = wait_count(page, "#hint-status", locale)  # the hint's search, live
    screenshot(page, f"progress-hint-{name}")
    assert re.search(r"\d+(\.\d)?", status)
    page.wait_for_selector("#board [data-suggested], #board .strip-site.suggested")  # the hint came
    assert not re.search(COUNTS[locale], page.inner_text("#hint-status"))
    assert errors == []
    page.context.close()
