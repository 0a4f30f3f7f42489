"""The game on a phone (390×844, touch), in English and Korean: what a player must see is on the screen.

At every step of a whole game against random agents — whatever the page has scrolled to for a
tap on the board — whose turn it is, what the player has picked, the Play button that confirms
it (when shown) and at the end the result card with its reason are inside the screen, with no
scrolling by the player (issue 36, item 1). The result says why the game ended in the page's
language and rings the sites that decided it (item 2); Spagyric's last reveal does not cover the
board at the end, and its status speaks to the player who must choose; a seat's label has no
double parentheses; the page's background has no seam; the how-to's tables keep their columns
(item 7). A screenshot of every step goes to ``test-artifacts/phone/``.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocket

from tests.web.e2e.test_browser import (
    ARTIFACTS,
    SIZES,
    browser,
    create_from_lobby,
    free_port,
    start_server,
    stop_server,
    submitted,
    wait_moved,
    wait_turn,
    watched_page,
)
from tests.web.e2e.test_korean import HANGUL, assert_korean

__all__ = ["browser"]  # the fixture, shared with the other browser tests

WIDTH, HEIGHT = SIZES["phone"]["viewport"]["width"], SIZES["phone"]["viewport"]["height"]  # type: ignore[index]
SHOTS = ARTIFACTS / "phone"
GAMES = [
    ("special-cake", {"variant": "mint"}, "special-cake-mint"),
    ("spagyric", {}, "spagyric"),
    ("spinca", {"players": "2"}, "spinca-2"),
    ("spline", {}, "spline"),
]
LOCALES = {"en": "en-US", "ko": "ko-KR"}
CLICKABLE = "#board .strip-site.clickable"
#: How the status begins when this player has still to choose in secret (alone, or with others).
YOU_CHOOSE = {"en": ("Waiting for your choice", "Waiting for you and "), "ko": ("내 선택을 ", "나와 ")}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    db = tmp_path_factory.mktemp("e2e-phone") / "games.sqlite3"
    with (tmp_path_factory.getbasetemp() / "server-phone.log").open("w") as log:
        process = start_server(port, db, log)
        yield f"http://127.0.0.1:{port}"
        stop_server(process)


def phone(browser: Browser, lang: str) -> tuple[Page, list[str], list[dict[str, Any]]]:
    """A phone page in ``lang``, the errors it logs, and the state frames the server sends it."""
    page, errors = watched_page(browser, locale=LOCALES[lang], **SIZES["phone"])  # type: ignore[arg-type]
    frames: list[dict[str, Any]] = []

    def on_socket(socket: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            data = json.loads(payload)
            if data.get("type") == "state":
                frames.append(data)

        socket.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return page, errors, frames


def on_screen(page: Page, selector: str) -> None:
    """``selector`` is shown wholly inside the screen as it is now (the test never scrolls)."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    inside = box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= WIDTH + 0.5
    inside = inside and box["y"] + box["height"] <= HEIGHT + 0.5
    scroll = page.evaluate("scrollY")
    assert inside, f"{selector} at {box} is not inside the {WIDTH}×{HEIGHT} screen (page scrolled to {scroll})"


class Steps:
    """Checks the screen at each step of a game and keeps a screenshot of it."""

    def __init__(self, page: Page, name: str) -> None:
        self.page, self.name, self.count = page, name, 0
        SHOTS.mkdir(parents=True, exist_ok=True)

    def check(self) -> None:
        page = self.page
        on_screen(page, "#result" if page.locator("#result:not([hidden])").count() else "#turn")
        if page.locator("#picker:not([hidden])").count():
            on_screen(page, "#selection")
            if page.locator("#btn-play").is_visible():
                on_screen(page, "#btn-play")
            if page.locator("#words button.choice").count():
                on_screen(page, "#words")
        self.count += 1
        page.screenshot(path=str(SHOTS / f"{self.name}-{self.count:03d}.png"))


def tap_random(page: Page, selector: str, rng: random.Random) -> None:
    items = page.locator(selector)
    count = items.count()
    assert count, f"nothing to tap: {selector}"
    items.nth(rng.randrange(count)).tap()


def play_turn(page: Page, rng: random.Random, steps: Steps, lang: str) -> None:
    """One legal move by taps, the screen checked after each tap (what was picked, Play)."""
    version = str(page.evaluate("document.body.dataset.version"))
    mode = str(page.evaluate("document.body.dataset.mode"))
    steps.check()
    if mode == "choose":  # a secret colour: the status speaks to the player who must choose
        status = page.inner_text("#status .status-line")
        mine = page.inner_text("#players li.me .name")
        assert status.startswith(YOU_CHOOSE[lang]) and mine not in status, status
        tap_random(page, "#words button.choice", rng)
    elif mode == "set":  # candies in any order; Play confirms a line that could go on
        for _ in range(5):
            tap_random(page, CLICKABLE, rng)
            if submitted(page, version):
                break
            steps.check()
            if page.locator("#btn-play:not([disabled])").count():
                on_screen(page, "#btn-play")
                if rng.random() < 0.5 or not page.locator(CLICKABLE).count():
                    page.locator("#btn-play").tap()
                    break
        else:
            raise AssertionError("five picks made no move")
    elif mode == "sequence" and rng.random() < 0.4 and page.locator(f"{CLICKABLE}:has(.strip-ball)").count():
        tap_random(page, f"{CLICKABLE}:has(.strip-ball)", rng)  # a free marble
        steps.check()
        tap_random(page, f"{CLICKABLE}:has(.strip-empty)", rng)  # where it goes
        steps.check()
        tap_random(page, f"{CLICKABLE}:has(.strip-empty)", rng)  # then the placement
    else:
        tap_random(page, f"{CLICKABLE}:has(.strip-empty)", rng)
    wait_moved(page, version)


def result_shown(page: Page, frames: list[dict[str, Any]]) -> dict[str, Any]:
    """The result card is on the screen with the reason the server sent, and its sites are ringed."""
    page.wait_for_selector("#result:not([hidden]) .result-title")
    for _ in range(50):  # the socket's frames reach the test as the page goes on
        if frames and frames[-1]["terminal"]:
            break
        page.wait_for_timeout(100)
    result: dict[str, Any] = frames[-1]["result"]
    reason = result["reason"]
    assert reason is not None and reason["code"]
    page.wait_for_selector(f"#result .result-reason[data-reason='{reason['code']}']")
    on_screen(page, "#result")
    text = page.inner_text("#result .result-reason")
    assert text and "{" not in text and "reason." not in text, text
    for site in result["sites"]:
        assert page.locator(f"#board .strip-site[data-site='{site}'] .ring-marked").count() == 1, site
    assert page.locator("#board svg.pyramid .ring-marked").count() == len(result["sites"])
    assert page.locator("#reveal").is_hidden(), "a reveal's popup covers the board at the end"
    return result


@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize(("game", "options", "name"), GAMES, ids=[g[2] for g in GAMES])
def test_a_whole_game_on_a_phone_keeps_the_turn_the_picks_play_and_the_result_on_screen(
    browser: Browser, server: str, game: str, options: dict[str, str], name: str, lang: str
) -> None:
    page, errors, frames = phone(browser, lang)
    invites = create_from_lobby(page, server, game, options)
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    steps = Steps(page, f"{name}-{lang}")
    rng = random.Random(f"{name}-{lang}")
    try:
        while wait_turn(page):
            play_turn(page, rng, steps, lang)
        result = result_shown(page, frames)
    except Exception:
        page.screenshot(path=str(SHOTS / f"{name}-{lang}-failure.png"))
        raise
    steps.check()
    on_screen(page, "#result .result-reason")
    reason = page.inner_text("#result .result-reason")
    if lang == "ko":
        assert HANGUL.search(reason), reason
        assert_korean(page)
    if result["reason"].get("seat") is not None:  # the seat it names, by the name the page gives it
        named = page.inner_text(f"#players li[data-seat='{result['reason']['seat']}'] .name")
        assert named in reason, (named, reason)
    page.screenshot(path=str(SHOTS / f"{name}-{lang}-end-full.png"), full_page=True)
    assert errors == []
    page.context.close()


def set_up_game(page: Page, server: str, body: dict[str, Any]) -> str:
    """A game made over the API (a position set up by hand); the first seat's invite."""
    response = page.request.post(f"{server}/api/games", data=body, headers={"Origin": server})
    assert response.status == 201, response.text()
    return str(response.json()["seats"][0]["invite"])


#: Mint to eat the last two candies: eating them as one line loses at once.
LAST_TWO = {
    "game": "special-cake",
    "options": {"variant": "mint"},
    "start": ".wb............./........./..../. 1 eat",
    "seats": [{"kind": "human"}, {"kind": "agent", "agent": "level:1"}],
}
REASON = {"en": "Mint ate the last candy.", "ko": "마지막 사탕을 먹음: 민트"}
LOST = {"en": "You lose", "ko": "졌습니다"}
LEVEL = {"en": "level 1, beginner", "ko": "난이도 1, 입문"}


@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_result_says_why_in_the_pages_language_and_rings_the_deciding_sites(
    browser: Browser, server: str, lang: str
) -> None:
    page, errors, frames = phone(browser, lang)
    page.goto(server + "/")  # the page's language is chosen once the pages have loaded
    page.goto(server + set_up_game(page, server, LAST_TWO))
    page.wait_for_selector("#players li.player")
    agent = page.inner_text("#players li[data-seat='1'] .who")
    assert LEVEL[lang] in agent and "((" not in agent and "))" not in agent, agent
    page.wait_for_selector(".turn.mine")
    page.locator("#board .strip-site[data-site='0b1']").tap()
    on_screen(page, "#btn-play:not([disabled])")  # the candy alone is a move, or the line goes on
    page.locator("#board .strip-site[data-site='0c1']").tap()  # the whole line: the last candy
    result = result_shown(page, frames)
    assert result["reason"] == {"code": "last_candy", "seat": 0} and result["sites"] == ["0b1", "0c1"]
    assert page.inner_text("#result .result-title") == LOST[lang]
    assert page.inner_text("#result .result-reason") == REASON[lang]
    page.screenshot(path=str(SHOTS / f"last-candy-{lang}.png"))
    assert errors == []
    page.context.close()


def test_the_background_has_no_seam_however_long_the_page(browser: Browser, server: str) -> None:
    """A full-page picture of a page longer than the screen: the background just above and just
    below one screen's height is the same colour (a fixed background repeated there)."""
    page, errors, _ = phone(browser, "en")
    invites = create_from_lobby(page, server, "spline", {})
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height > HEIGHT + 40, height
    # Only the background is looked at: the bar held over the page is hidden.
    page.evaluate("document.querySelectorAll('#action-bar').forEach(bar => (bar.style.visibility = 'hidden'))")
    picture = base64.b64encode(page.screenshot(full_page=True)).decode()
    above, below = page.evaluate(
        """async ([data, y]) => {
          const image = new Image();
          image.src = 'data:image/png;base64,' + data;
          await image.decode();
          const canvas = document.createElement('canvas');
          canvas.width = image.width;
          canvas.height = image.height;
          const context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          const at = (row) => [...context.getImageData(2, row, 1, 1).data.slice(0, 3)];
          return [at(y - 3), at(y + 3)];
        }""",
        [picture, HEIGHT],
    )
    assert max(abs(a - b) for a, b in zip(above, below, strict=True)) <= 2, (above, below)
    assert errors == []
    page.context.close()


def test_the_korean_how_to_keeps_the_columns_of_its_tables_on_a_phone(browser: Browser, server: str) -> None:
    """Spagyric's reveal table (a block of text in columns) is not wrapped: each of its lines stays
    one line, and a narrow screen scrolls the table in its own box, never the page."""
    page, errors, _ = phone(browser, "ko")
    invites = create_from_lobby(page, server, "spagyric", {})
    page.goto(server + invites[0])
    page.wait_for_selector("#howto:not([hidden]) .howto-body pre", state="attached")
    page.locator("#howto summary").tap()
    table = page.locator("#howto .howto-body pre").first
    table.scroll_into_view_if_needed()
    lines, height, line_height, page_width = table.evaluate(
        """(pre) => [pre.textContent.split('\\n').filter(Boolean).length, pre.clientHeight,
                     parseFloat(getComputedStyle(pre).lineHeight) || 1.2 * parseFloat(getComputedStyle(pre).fontSize),
                     document.documentElement.scrollWidth]"""
    )
    assert "플레이어 1" in table.inner_text()
    assert height <= (lines + 0.5) * line_height, f"{lines} lines take {height} px: the table wrapped"
    assert page_width <= WIDTH
    page.screenshot(path=str(SHOTS / "howto-spagyric-ko.png"))
    assert errors == []
    page.context.close()


def test_a_refusal_and_its_detail_each_begin_with_a_capital(browser: Browser, server: str) -> None:
    """The page's words for a refusal and the server's detail after them (which begins in lower
    case on the wire) are two sentences, each begun with a capital; alone, the detail is one too."""
    page, errors, _ = phone(browser, "en")
    page.goto(server + "/")
    shown = page.evaluate(
        """async () => {
          const ui = await import('/static/js/ui.js');
          const error = { code: 'bad_options', message: 'The game\\'s options are not right.',
                          detail: "option 'supply' must be at least 1" };
          return [ui.refusalText(error), ui.serverDetail(error.detail).textContent];
        }"""
    )
    assert shown == [
        "The game's options are not right. Option 'supply' must be at least 1",
        "Option 'supply' must be at least 1",
    ]
    assert errors == []
    page.context.close()
