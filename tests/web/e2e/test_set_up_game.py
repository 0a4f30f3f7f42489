"""A finished game that started from a position set up by hand (the editor's *Play from here*)
opens on the analysis board at that position and is analysed from there, in Chromium on a
390×844 touch phone and on a desktop (screenshots under ``test-artifacts/``). The same over the
API, for every game: tests/server/test_set_up_game_analysis.py.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser

from spheria.analysis import analyse_game
from spheria.kernel.record import Record
from tests.server.test_set_up_game_analysis import AGENTS, SET_UP
from tests.web.e2e.test_browser import browser, screenshot, server, sized_page  # noqa: F401  (fixtures)

#: The analysis board's sites, each with a ball drawn or not, in SPN's order ('x' or '.').
BALLS = (
    "[...document.querySelectorAll('#board svg.levels .strip-site')]"
    ".map(n => n.querySelector('.strip-ball') ? 'x' : '.').join('')"
)


def api(base: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.load(response)


def finished_on(base: str, game: str) -> str:
    """The id of a game of two random agents started from ``SET_UP[game]``, once it is over."""
    spn, options = SET_UP[game]
    game_id = str(api(base, "/api/games", {"game": game, "options": options, "seats": AGENTS, "start": spn})["id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if api(base, f"/api/games/{game_id}")["status"] == "finished":
            return game_id
        time.sleep(0.05)
    raise AssertionError(f"the agents did not finish {game}")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_analysis_board_of_a_finished_set_up_game_shows_its_start(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    size: str,
) -> None:
    spn, _options = SET_UP["special-cake"]
    game_id = finished_on(server, "special-cake")
    record = Record.from_json(api(server, f"/api/games/{game_id}/record"))
    page, errors = sized_page(browser, size)
    try:
        page.goto(f"{server}/analysis?{urllib.parse.urlencode({'record': game_id, 'at': '0'})}")
        page.wait_for_function(
            "() => document.body.dataset.problem !== undefined"
            " || (document.body.dataset.ready === '1' && document.body.dataset.node === '0')"
        )
        assert page.evaluate("document.body.dataset.problem") is None  # the link opens: its moves replay
        expected = "".join("." if ch == "." else "x" for ch in spn.split()[0].replace("/", ""))
        assert page.evaluate(BALLS) == expected  # the set-up position's balls, not the empty cake
        assert page.locator("#tree .tnode").count() == len(record.moves)  # every move of the game, from there
        screenshot(page, f"set-up-game-analysis-start-{size}", full_page=True)
        # The game's analysis runs from that start to the end: its chart marks the wins thrown away.
        page.wait_for_selector("#chart svg.eval-chart")
        thrown = analyse_game(record, time=None).threw_away_win
        assert page.locator("#chart .eval-mistake").count() == len(thrown)
        marked = page.eval_on_selector_all("#tree .tnode.mark-mistake", "b => b.map(e => Number(e.dataset.node))")
        assert marked == thrown
        screenshot(page, f"set-up-game-analysis-chart-{size}", full_page=True)
        assert errors == []
    finally:
        page.context.close()
