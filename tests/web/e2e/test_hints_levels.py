"""End-to-end: a game against a level from the lobby, with hints, and hints refused where they do not belong.

A person picks "Level N" for the other seat and ticks *hints*, asks for a hint, sees the
suggestion ringed on the board, plays it by clicking it, and finds the count on the page and in
the record; the agent's thinking is shown while it lasts. In a game of two people there is no
Hint button, and a hint forged over the page's own websocket is refused (``hints_off``), as it
is for a spectator and a wrong invite token. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route

from tests.web.e2e.test_browser import (  # noqa: F401  (fixtures)
    CLICKABLE,
    assert_fits,
    browser,
    choose_game,
    page,
    play_to_the_end,
    screenshot,
    server,
    sized_page,
    wait_moved,
    wait_turn,
)


def create_against_level(
    page: Page,  # noqa: F811
    server: str,  # noqa: F811
    game: str,
    level: int,
    hints: bool,
    before_create: Callable[[Page], None] | None = None,
) -> str:
    """Fill in the lobby: a person against ``level:N``, with or without hints; returns the person's invite.
    ``before_create`` looks at the filled-in lobby (*Create game* takes the person to their seat)."""
    page.goto(server + "/")
    choose_game(page, game)
    kinds = page.locator("select.seat-kind")
    kinds.nth(0).select_option("human")
    kinds.nth(1).select_option(f"level:{level}")
    assert page.locator("input.seat-agent >> nth=1").is_hidden()  # a level takes no spec options
    assert page.is_enabled("#hints") and page.is_hidden("#hints-note")
    if hints:
        page.check("#hints")
    if before_create is not None:
        before_create(page)
    page.click("#create")
    page.wait_for_url("**/game/**")  # one person against an agent: straight to the seat
    return page.url.removeprefix(server)


def forged_hint(page: Page, server: str, join: dict[str, Any]) -> list[dict[str, Any]]:  # noqa: F811
    """Open a websocket from the page, send ``join`` then a hint request; the frames that came back."""
    game_id = page.url.split("/game/")[1].split("#")[0]
    url = server.replace("http", "ws") + f"/ws/{game_id}"
    frames: list[dict[str, Any]] = page.evaluate(
        """([url, join]) => new Promise((done) => {
            const ws = new WebSocket(url);
            const frames = [];
            ws.onopen = () => ws.send(JSON.stringify(join));
            ws.onmessage = (event) => {
              const frame = JSON.parse(event.data);
              frames.push(frame);
              if (frame.type === 'state' || (frame.type === 'error' && frames.length === 1)) {
                ws.send(JSON.stringify({ type: 'hint' }));
              }
              if (frame.type === 'hint' || (frame.type === 'error' && frames.length > 1)) { ws.close(); done(frames); }
            };
            setTimeout(() => done(frames), 8000);
          })""",
        [url, join],
    )
    return frames


def watch_thinking(page: Page) -> None:  # noqa: F811
    """Keep every text ``#thinking`` shows from now on: a level thinking 0.2 s (or playing a random
    move at once) shows it too briefly for a selector to wait for."""
    page.evaluate(
        """() => {
            const box = document.getElementById('thinking');
            window.thinkingShown = [];
            new MutationObserver(() => window.thinkingShown.push(box.textContent))
              .observe(box, { childList: true, characterData: true, subtree: true });
          }"""
    )


def thinking_shown(page: Page) -> list[str]:  # noqa: F811
    """The texts ``#thinking`` showed since :func:`watch_thinking`."""
    return [str(text) for text in page.evaluate("window.thinkingShown")]


def play_the_hint(page: Page) -> str:  # noqa: F811
    """Ask for a hint, wait for it, check it is ringed on the board, and play it by its ringed site."""
    version = str(page.evaluate("document.body.dataset.version"))
    page.click("#btn-hint")
    page.wait_for_selector("#hint-status:has-text('Suggested')")
    ringed = page.locator("#board .strip-site.suggested")
    assert ringed.count() == 1  # Spline: one site
    site = str(ringed.get_attribute("data-site"))
    assert page.locator(f"#board svg.pyramid [data-suggested='{site}']").count() == 1
    assert site in page.inner_text("#hint-status")
    page.click(f"{CLICKABLE}[data-site='{site}']")
    wait_moved(page, version)
    return site


def test_a_game_against_a_level_with_hints_from_the_lobby(page: Page, server: str) -> None:  # noqa: F811
    invite = create_against_level(page, server, "spline", 4, hints=True)
    page.goto(server + invite)
    page.wait_for_selector("#players li.player")
    assert "agent level 4, hard" in page.inner_text("#players")  # no parentheses in parentheses (issue 36, item 7)
    assert wait_turn(page)
    page.click("#btn-hint")
    page.wait_for_selector("#hint-status:has-text('The engine is thinking')")  # the progress of the hint
    screenshot(page, "hint-thinking-desktop")
    page.wait_for_selector("#hint-status:has-text('Suggested')")
    screenshot(page, "hint-desktop")
    site = page.locator("#board .strip-site.suggested").get_attribute("data-site")
    version = str(page.evaluate("document.body.dataset.version"))
    watch_thinking(page)
    page.click(f"{CLICKABLE}[data-site='{site}']")
    wait_moved(page, version)
    assert wait_turn(page)
    assert any(re.search(r"Black is thinking\S* \d+\.\d s", text) for text in thinking_shown(page))  # with its time
    assert "hints: 1" in page.inner_text("#players li.me")
    play_the_hint(page)
    assert "hints: 2" in page.inner_text("#players li.me")
    result = play_to_the_end(page, random.Random(3), "level-hints")
    assert result
    assert "Hints used: 2" in page.inner_text("#result")
    game_id = invite.split("/")[2].split("#")[0]
    record = page.request.get(f"{server}/api/games/{game_id}/record").json()
    assert record["players"] == ["human", "level:4"] and record["hints"] == [2, 0]
    page.click("#result a:has-text('Replay')")
    page.wait_for_selector("#players li.player")
    assert "hints: 2" in page.inner_text("#players li[data-seat='0']")


def lobby_levels_fit(page: Page) -> None:  # noqa: F811
    assert_fits(page, board=False)
    screenshot(page, "lobby-levels-phone", full_page=True)


def test_hints_by_touch_on_a_phone(browser: Browser, server: str) -> None:  # noqa: F811
    page, errors = sized_page(browser, "phone")  # noqa: F811
    invite = create_against_level(page, server, "special-cake", 1, hints=True, before_create=lobby_levels_fit)
    page.goto(server + invite)
    assert wait_turn(page)
    page.locator("#btn-hint").tap()
    page.wait_for_selector("#hint-status:has-text('Suggested')")
    ringed = page.locator("#board .strip-site.suggested")
    assert ringed.count() == 1  # a set-up placement: one site
    assert ringed.is_visible()
    assert_fits(page)
    screenshot(page, "hint-phone")
    version = str(page.evaluate("document.body.dataset.version"))
    page.locator(f"{CLICKABLE}[data-site='{ringed.get_attribute('data-site')}']").tap()
    wait_moved(page, version)
    assert "hints: 1" in page.inner_text("#players li.me")
    assert errors == []
    page.context.close()


def test_no_hints_between_two_people_even_when_forged(page: Page, server: str) -> None:  # noqa: F811
    page.goto(server + "/")
    choose_game(page, "spline")
    page.locator("select.seat-kind").nth(1).select_option("human")
    assert page.is_disabled("#hints") and page.is_visible("#hints-note")  # the lobby does not offer them
    refused = page.request.post(
        f"{server}/api/games", data={"game": "spline", "seats": [{"kind": "human"}] * 2, "hints": True}
    )
    assert refused.status == 400 and refused.json()["error"]["code"] == "bad_hints"
    page.click("#create")
    page.wait_for_selector("#created a.open-seat")
    invites = [str(a.get_attribute("href")) for a in page.locator("#created a.open-seat").all()]
    page.goto(server + invites[0])
    assert wait_turn(page)
    assert page.locator("#hint-row").is_hidden()
    token = invites[1].split("#")[1]
    seat = forged_hint(page, server, {"type": "join", "token": token})
    assert seat[-1]["type"] == "error" and seat[-1]["code"] == "hints_off", seat
    assert not [f for f in seat if f["type"] == "hint"]
    watcher = forged_hint(page, server, {"type": "join"})
    assert watcher[-1]["code"] == "spectator", watcher
    stranger = forged_hint(page, server, {"type": "join", "token": "not-a-real-token"})
    assert [f.get("code") for f in stranger if f["type"] == "error"] == ["bad_token", "not_joined"], stranger


def test_a_spectator_of_a_hints_game_gets_no_hint(page: Page, server: str) -> None:  # noqa: F811
    invite = create_against_level(page, server, "spline", 1, hints=True)
    page.goto(server + invite.split("#")[0])  # the watch link
    page.wait_for_selector("#players li.player")
    assert page.locator("#hint-row").is_hidden()
    frames = forged_hint(page, server, {"type": "join"})
    assert frames[-1]["code"] == "spectator", frames


SEAT_NAMES_JS = "() => [...document.querySelectorAll('#seat-rows .seat-name')].map((n) => n.textContent)"


def wait_seats_redrawn(page: Page, change: Any) -> None:  # noqa: F811
    """Mark today's seat rows, do ``change`` and wait until the lobby has drawn them anew."""
    page.evaluate("() => document.querySelectorAll('#seat-rows .seat-row').forEach((r) => (r.dataset.old = '1'))")
    change()
    page.wait_for_function(
        "() => document.querySelectorAll('#seat-rows .seat-row').length > 0"
        " && !document.querySelector('#seat-rows .seat-row[data-old]')"
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_ticked_hints_box_and_the_chosen_level_survive_a_change_of_options(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    size: str,
) -> None:
    page, errors = sized_page(browser, size)  # noqa: F811
    page.goto(server + "/")
    page.select_option("#game", "special-cake")
    page.wait_for_function(f"() => ({SEAT_NAMES_JS})().includes('Mint')")
    page.locator("select.seat-kind").nth(1).select_option("level:2")
    hints = page.locator("#hints")
    hints.tap() if size == "phone" else hints.click()
    assert hints.is_checked()
    # Sugar's seats have other names, so they are drawn anew (seats that come back the same are kept).
    wait_seats_redrawn(page, lambda: page.select_option("#opt-variant", "sugar"))
    assert page.evaluate(SEAT_NAMES_JS) == ["Player 1", "Player 2"]
    assert hints.is_checked()  # the redraw judged the half-built rows and cleared the tick
    assert page.locator("select.seat-kind").nth(1).input_value() == "level:2"
    screenshot(page, f"lobby-hints-kept-{size}")
    page.click("#create")
    page.wait_for_url("**/game/**")  # one person against an agent: straight to the seat
    assert wait_turn(page)
    assert page.locator("#btn-hint").is_visible()  # the game was made with hints
    assert errors == []
    page.context.close()


def test_a_late_answer_about_the_game_first_shown_does_not_replace_the_game_chosen(page: Page, server: str) -> None:  # noqa: F811
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)  # the check of the game the page opens with, answered late

    page.route("**/api/check", hold_the_first)
    page.goto(server + "/")
    page.wait_for_function("() => document.querySelectorAll('#game option').length > 1")
    chosen = "spline" if page.input_value("#game") != "spline" else "special-cake"
    page.select_option("#game", chosen)
    names = "White" if chosen == "spline" else "Mint"
    page.wait_for_function(f"() => ({SEAT_NAMES_JS})().includes('{names}')")
    assert held
    with page.expect_response("**/api/check"):
        held[0].continue_()
    page.evaluate("() => new Promise((done) => setTimeout(done, 300))")  # let the page handle it
    assert names in page.evaluate(SEAT_NAMES_JS)
    assert page.input_value("#game") == chosen
