"""Done means for the sandbox online (issue 40): a whole sandbox game between two people in two
browser contexts — a phone (390x844, by touch, in English) and a desktop (by mouse, in Korean) —
placing, moving and removing with drops, the marks of the last turn shown to the next player, a
turn taken back, an offer declined and an agreed result; then the replay shows the marks too. The
empty board opens as a Spinca position on the analysis board ("Open as …").

Every click comes from the server's click tree (the word buttons and the highlighted sites); the
page names no game. Screenshots go to ``test-artifacts/`` (``sandbox-<step>-<size>``).
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from tests.web.e2e.test_browser import (
    SIZES,
    assert_fits,
    browser,
    screenshot,
    server,
    wait_moved,
    wait_turn,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean

__all__ = ["browser", "server"]  # the fixtures, shared with the other browser tests

SITE = "#board .strip-site[data-site='{}']"


#: Page keys whose English is also a sandbox move word the move list shows as typed ("back").
NOTATION = ("puzzles.step_back",)


def press(page: Page, selector: str) -> None:
    """Tap (a touch screen) or click the element ``selector`` finds; it must be offered now."""
    item = page.locator(selector)
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        item.tap()
    else:
        item.click()


def act(page: Page, *clicks: str) -> None:
    """Play one sandbox action by its clicks (words as buttons, sites on the level maps), each one
    offered by the page before it is pressed, and wait until the server has taken it in."""
    version = str(page.evaluate("document.body.dataset.version"))
    for click in clicks:
        if click[0] in "0123" and len(click) == 3:
            selector = SITE.format(click) + ".clickable"
        else:
            selector = f"#words button[data-word='{click}']"
        page.wait_for_selector(selector)
        press(page, selector)
    wait_moved(page, version)


def marks(page: Page) -> dict[str, str]:
    """The turn marks on the level maps, by site: placed, moved, dropped or removed."""
    found: list[list[str]] = page.eval_on_selector_all(
        "#board .strip-site .turn-mark", "nodes => nodes.map(n => [n.dataset.markSite, n.dataset.mark])"
    )
    pyramid: list[list[str]] = page.eval_on_selector_all(
        "#board .main-view .turn-mark", "nodes => nodes.map(n => [n.dataset.markSite, n.dataset.mark])"
    )
    assert sorted(map(tuple, pyramid)) == sorted(map(tuple, found)), (pyramid, found)  # both views agree
    return {site: kind for site, kind in found}


def board(page: Page) -> str:
    """The sites that hold a ball on the page's level maps now, in site order."""
    sites: list[str] = page.eval_on_selector_all(
        "#board .strip-site:has(.strip-ball)", "nodes => nodes.map(n => n.dataset.site)"
    )
    return " ".join(sites)


def open_seats(browser: Browser, server: str) -> tuple[Page, Page, list[list[str]], str]:
    """A new two-seat sandbox: seat 1 on a phone in English, seat 2 on a desktop in Korean."""
    phone, phone_errors = watched_page(browser, locale="en-US", **SIZES["phone"])  # type: ignore[arg-type]
    desk, desk_errors = watched_page(browser, locale="ko-KR", **SIZES["desktop"])  # type: ignore[arg-type]
    phone.goto(server + "/")
    created = phone.request.post(
        f"{server}/api/games", data={"game": "sandbox", "options": {}, "seats": [{"kind": "human"}] * 2}
    )
    assert created.status == 201, created.text()
    body = created.json()
    invites = {seat["seat"]: seat["invite"] for seat in body["seats"]}
    for page, seat in ((phone, 0), (desk, 1)):
        page.goto(server + invites[seat])
    for page in (phone, desk):
        page.wait_for_selector("#players li.player .dot.on >> nth=1")  # both seats are connected
    return phone, desk, [phone_errors, desk_errors], str(body["id"])


def test_a_whole_sandbox_game_between_a_phone_and_a_desktop(browser: Browser, server: str) -> None:
    phone, desk, errors, game_id = open_seats(browser, server)

    # The empty board is a position of Spinca, Special Cake and Spline: the page opens it as one.
    link = desk.locator(".open-as-link[data-game='spinca']")
    assert sorted(desk.eval_on_selector_all(".open-as-link", "nodes => nodes.map(n => n.dataset.game)")) == [
        "special-cake",
        "spinca",
        "spline",
    ]
    screenshot(desk, "sandbox-0-open-as-desktop")
    analysis, analysis_errors = watched_page(browser, **SIZES["desktop"])  # type: ignore[arg-type]
    analysis.goto(server + str(link.get_attribute("href")))
    analysis.wait_for_selector("#board .strip-site")
    assert "spinca" in analysis.url and analysis_errors == []
    screenshot(analysis, "sandbox-0-open-as-spinca-desktop")
    analysis.context.close()

    # Seat 1 (the phone) places a square of four white balls and a red one on it, then ends its turn.
    assert wait_turn(phone)
    assert phone.evaluate("document.body.dataset.mode") == "words"
    hint = phone.inner_text("#hint")
    assert "secret" not in hint and "button" in hint, hint  # a turn of actions, not a secret choice
    act(phone, "w", "0a1")
    assert marks(phone) == {"0a1": "placed"}  # the turn in progress is marked as it goes
    screenshot(phone, "sandbox-1-placed-phone")
    for site in ("0b1", "0a2", "0b2"):
        act(phone, "w", site)
    act(phone, "r", "1a1")
    assert_fits(phone)
    screenshot(phone, "sandbox-2-square-phone")
    act(phone, "end")

    # Seat 2 (the desktop, in Korean) sees the five balls placed last turn marked +, then removes
    # 0a1 (the red ball above drops into it) and moves 0b2 to 0d4.
    assert wait_turn(desk)
    placed = {site: "placed" for site in ("0a1", "0b1", "0a2", "0b2", "1a1")}
    assert marks(desk) == placed
    assert desk.locator("#board .main-view .turn-mark-placed text").first.text_content() == "+"
    assert "+" in desk.inner_text("#status .marks-line")
    assert_korean(desk, NOTATION)
    screenshot(desk, "sandbox-3-marks-seen-desktop")
    act(desk, "x", "0a1")
    assert "1a1" not in board(desk) and "0a1" in board(desk)  # the red ball dropped: nothing floats
    assert marks(desk) == {"0a1": "dropped", "1a1": "removed"}
    act(desk, "0b2", "0d4")
    assert marks(desk) == {"0a1": "dropped", "1a1": "removed", "0b2": "removed", "0d4": "moved"}
    screenshot(desk, "sandbox-4-moved-desktop")
    act(desk, "end")

    # Seat 1 sees what seat 2 did; it places a ball and takes it back, then offers itself the win.
    assert wait_turn(phone)
    assert marks(phone) == {"0a1": "dropped", "1a1": "removed", "0b2": "removed", "0d4": "moved"}
    assert "Last turn" in phone.inner_text("#status .marks-line")
    screenshot(phone, "sandbox-5-marks-seen-phone")
    before = board(phone)
    act(phone, "b", "0c1")
    assert "0c1" in board(phone)
    act(phone, "back")
    assert board(phone) == before
    assert marks(phone) == {"0a1": "dropped", "1a1": "removed", "0b2": "removed", "0d4": "moved"}
    phone.wait_for_selector("#words button[data-word='offer']")
    press(phone, "#words button[data-word='offer']")
    # Each offer is its own choice: a win for either seat, or a draw.
    offers = phone.eval_on_selector_all("#words button", "nodes => nodes.map(n => n.dataset.word)")
    assert sorted(offers) == ["1", "2", "draw"], offers
    screenshot(phone, "sandbox-6-offer-phone")
    version = str(phone.evaluate("document.body.dataset.version"))
    press(phone, "#words button[data-word='1']")
    wait_moved(phone, version)
    assert "Player 1 wins" in phone.inner_text("#status .offer-line")

    # Seat 2 declines (seat 1's turn goes on); seat 1 offers a draw, which seat 2 accepts.
    assert wait_turn(desk)
    answers = desk.eval_on_selector_all("#words button", "nodes => nodes.map(n => n.dataset.word)")
    assert sorted(answers) == ["accept", "decline"], answers
    assert "플레이어 1 승리" in desk.inner_text("#status .offer-line")  # what is offered, in words
    assert "버튼" in desk.inner_text("#hint")
    assert_korean(desk, NOTATION)
    screenshot(desk, "sandbox-7-answer-desktop")
    act(desk, "decline")
    assert wait_turn(phone)
    act(phone, "offer", "draw")
    assert wait_turn(desk)
    act(desk, "accept")
    for page, size in ((phone, "phone"), (desk, "desktop")):
        page.wait_for_selector("#result:not([hidden])")
        screenshot(page, f"sandbox-8-agreed-{size}")
    assert_korean(desk, NOTATION)
    press(phone, ".lang-switch button[data-lang='ko']")  # the phone's words in Korean too
    phone.wait_for_function("() => document.documentElement.lang === 'ko'")
    assert_korean(phone, NOTATION)
    screenshot(phone, "sandbox-8-agreed-phone-ko")

    # The replay shows each turn's marks from its frames: after seat 2's turn ended (move 9 of
    # w w w w r end x move end), the marks seat 1 saw.
    replay, replay_errors = watched_page(browser, **SIZES["phone"])  # type: ignore[arg-type]
    replay.goto(f"{server}/replay/{game_id}")
    replay.wait_for_selector("#history li[data-step='9']")
    press(replay, "#history li[data-step='9']")
    replay.wait_for_selector("#board .strip-site .turn-mark")
    assert marks(replay) == {"0a1": "dropped", "1a1": "removed", "0b2": "removed", "0d4": "moved"}
    assert "Player 2" in replay.inner_text("#status .marks-line")
    replay.locator("#board").scroll_into_view_if_needed()
    screenshot(replay, "sandbox-9-replay-phone")
    for page in (phone, desk, replay):
        page.context.close()
    assert errors == [[], []] and replay_errors == []
