"""End-to-end: the position editor, on a desktop and on a phone (390x844, touch).

A position is built by tapping sites and checked by the server (the page knows no rules); an
impossible one is refused with the rules' reason; SPN goes out and comes back; the board is
mirrored and turned by the pyramid's symmetries; "Analyse" links to /analysis with the position;
"Play from here" starts a game at that position, which is then played to its end by clicks.
Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import random
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

import spheria
from spheria.engine.board import SYMMETRIES, Board
from spheria.kernel.record import Record
from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    TIMEOUT,
    assert_fits,
    browser,
    play_turn,
    screenshot,
    server,
    wait_turn,
    watched_page,
)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
EMPTY = "................/........./..../."


@pytest.fixture(params=["desktop", "phone"])
def device(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[str, Page]]:  # noqa: F811
    page, errors = watched_page(browser, **(PHONE if request.param == "phone" else DESKTOP))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    yield request.param, page
    page.context.close()
    assert errors == [], errors


def press(page: Page, selector: str) -> None:
    """Tap on a touch screen, click elsewhere: as a person would."""
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.locator(selector).first.tap()
    else:
        page.locator(selector).first.click()


def settled(page: Page) -> str:
    """Wait until the server's answer is about the position shown; returns its SPN."""
    page.wait_for_function(
        "() => document.body.dataset.checked && document.body.dataset.checked === document.body.dataset.spn"
    )
    return str(page.evaluate("document.body.dataset.spn"))


def open_editor(page: Page, server: str, game: str, options: dict[str, str], spn: str | None = None) -> str:  # noqa: F811
    query = {"game": game, "options": ",".join(f"{k}={v}" for k, v in options.items())}
    if spn is not None:
        query["spn"] = spn
    page.goto(f"{server}/editor?{urllib.parse.urlencode(query)}")
    page.wait_for_selector("#verdict .verdict-title")
    return settled(page)


def tap_site(page: Page, site: str) -> None:
    press(page, f'#board .levels [data-site="{site}"]')


def verdict(page: Page) -> str:
    return str(page.locator("#verdict").inner_text())


def test_a_position_built_by_taps_is_checked_and_an_impossible_one_refused(
    device: tuple[str, Page],
    server: str,  # noqa: F811
) -> None:
    name, page = device
    assert open_editor(page, server, "special-cake", {"variant": "mint"}) == f"{EMPTY} 1 place"
    assert "Valid position" in verdict(page)
    press(page, '.tool[data-tool="w"]')
    tap_site(page, "0a1")
    settled(page)
    # One mint candy with Mint still to move: the rules say why not.
    assert page.evaluate("document.body.dataset.valid") == "0"
    assert "1 mint and 0 liquorice placed, so Liquorice is to place" in verdict(page)
    screenshot(page, f"editor-impossible-{name}", full_page=True)
    page.select_option("#field-1", "2")
    assert settled(page) == "w.............../........./..../. 2 place"
    assert "Valid position" in verdict(page) and "Liquorice to move" in verdict(page)
    press(page, '.tool[data-tool="b"]')
    tap_site(page, "0b1")
    tap_site(page, "1a1")  # a ball with nothing under it
    settled(page)
    assert "ball on 1a1 floats" in verdict(page)
    press(page, '.tool[data-tool="."]')
    tap_site(page, "1a1")
    page.select_option("#field-1", "1")
    assert settled(page) == "wb............../........./..../. 1 place"
    assert page.evaluate("document.body.dataset.valid") == "1"
    if name == "phone":
        assert_fits(page)
    screenshot(page, f"editor-valid-{name}", full_page=True)


def test_spn_goes_out_and_comes_back_and_the_board_turns_and_mirrors(
    device: tuple[str, Page],
    server: str,  # noqa: F811
) -> None:
    name, page = device
    open_editor(page, server, "spinca", {"players": "2"})
    spn = "wb............../........./..../. 1 0a1,0b1"
    page.fill("#spn", f"  {spn.replace(' ', '   ')} ")
    press(page, "#btn-import")
    page.wait_for_function(f"() => document.body.dataset.spn === {json.dumps(spn)}")
    assert settled(page) == spn and "Valid position" in verdict(page)
    press(page, "#btn-copy")
    assert page.evaluate("navigator.clipboard.readText()") == spn
    assert page.input_value("#spn") == spn
    board = Board.from_spn(spn.split()[0])
    for button, symmetry in (("#btn-mirror", 4), ("#btn-rotate", 1)):
        shown = str(page.evaluate("document.body.dataset.spn"))
        before = Board.from_spn(shown.split()[0])
        press(page, button)
        page.wait_for_function("(old) => document.body.dataset.spn !== old", arg=shown)
        after = settled(page)
        moved = Board.from_spn(after.split()[0])
        assert all(moved.color_at(SYMMETRIES[symmetry][s]) == before.color_at(s) for s in range(30))
        assert "Valid position" in verdict(page)  # the locked marbles moved with their sites
    assert board.count() == Board.from_spn(after.split()[0]).count()
    page.fill("#spn", "hello")  # not SPN at all: refused, and the text stays to be fixed
    press(page, "#btn-import")
    page.wait_for_function("() => document.body.dataset.valid === '0'")
    assert "Spinca SPN has 3 fields" in verdict(page) and page.input_value("#spn") == "hello"
    screenshot(page, f"editor-turned-{name}", full_page=True)


def test_analyse_links_to_the_analysis_page_with_the_position(
    device: tuple[str, Page],
    server: str,  # noqa: F811
) -> None:
    _, page = device
    spn = "w..............b/........./..../. 1 eat"
    open_editor(page, server, "special-cake", {"variant": "mint"}, spn)
    href = str(page.get_attribute("#analyse", "href"))
    expected_spn = urllib.parse.quote(spn, safe="")
    assert href == f"/analysis?game=special-cake&options=variant=mint,line_rule=mixed&spn={expected_spn}"
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(href).query)
    options = dict(pair.split("=") for pair in query["options"][0].split(","))
    assert spheria.load_game(query["game"][0], **options).state_from_spn(query["spn"][0]).to_spn() == spn
    page.fill("#spn", "................/w......../..../. 1 eat")
    press(page, "#btn-import")
    page.wait_for_function("() => document.body.dataset.valid === '0'")
    assert page.get_attribute("#analyse", "aria-disabled") == "true"  # no link for an impossible position


def test_a_random_full_cake_is_filled_by_the_rules(
    device: tuple[str, Page],
    server: str,  # noqa: F811
) -> None:
    name, page = device
    start = open_editor(page, server, "special-cake", {"variant": "mint"})
    press(page, "#btn-full")
    page.wait_for_function("(old) => document.body.dataset.spn !== old", arg=start)
    spn = settled(page)
    assert Board.from_spn(spn.split()[0]).count() == 30 and spn.endswith(" 1 eat")
    assert "Valid position" in verdict(page) and page.input_value("#field-2") == "eat"
    screenshot(page, f"editor-random-full-{name}", full_page=True)


def record_of(server: str, game_id: str) -> dict[str, Any]:  # noqa: F811
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/record", timeout=20) as response:
        data: dict[str, Any] = json.load(response)
        return data


def test_play_from_here_starts_a_game_at_that_position_and_it_is_played_out(
    device: tuple[str, Page],
    server: str,  # noqa: F811
) -> None:
    name, page = device
    spn = "wbwb...........b/........./..../. 1 eat"
    open_editor(page, server, "special-cake", {"variant": "mint"}, spn)
    page.select_option("#my-seat", "0")
    page.select_option("#opponent", "level:1")
    press(page, "#btn-play")
    page.wait_for_url("**/game/**")
    game_id = urllib.parse.urlsplit(page.url).path.rsplit("/", 1)[1]
    page.wait_for_selector("body[data-version]")
    balls = "[...document.querySelectorAll('#board .levels .strip-site')].map(n => n.querySelector('.strip-ball'))"
    board = page.evaluate(f"{balls}.map(ball => ball ? 'x' : '.').join('')")
    assert board == "".join("." if ch == "." else "x" for ch in spn.split()[0].replace("/", ""))
    screenshot(page, f"editor-play-from-here-{name}", full_page=True)
    rng = random.Random(3)
    for _ in range(20):
        if not wait_turn(page):
            break
        play_turn(page, rng)
    page.wait_for_selector("#result:not([hidden])")
    record = record_of(server, game_id)
    assert record["start"] == spn and record["from_position"] is True
    assert record["players"] == ["human", "level:1"]
    assert Record.from_json(record).replay().is_terminal()
