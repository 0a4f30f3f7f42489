"""End-to-end: the real server in its own process, driven through Debian's headless Chromium.

Every game (each Special Cake variant, Spagyric, Spinca for 2, 3 and 4, Spline) is created
from the lobby form and played to the end by clicks against agent seats; two browser contexts
play each other in real time; the replay page steps through a finished game. A screenshot of
each game is saved under ``test-artifacts/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, WebSocketRoute, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
#: Console errors a test expects, by page (a server stopped on purpose: failed reconnections).
EXPECTED_ERRORS: dict[int, tuple[str, ...]] = {}
TIMEOUT = 20_000  # ms: how long one step may wait for the page (a turn, a reveal)


def free_port() -> int:
    """A free loopback port: any, or the first free one of ``SPHERIA_TEST_PORTS`` (``8610-8619``) when
    set (a machine shared by several people hands each a range)."""
    wanted = os.environ.get("SPHERIA_TEST_PORTS")
    low, _, high = (wanted or "0").partition("-")
    for port in range(int(low), int(high or low) + 1):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise RuntimeError(f"no free port in SPHERIA_TEST_PORTS={wanted}")


def start_server(port: int, db: Path, log: IO[str]) -> subprocess.Popen[bytes]:
    """``spheria serve`` in a subprocess on a loopback port, agents in a process pool; waits until it answers."""
    command = [sys.executable, "-m", "spheria.server", "--port", str(port), "--db", str(db)]
    process = subprocess.Popen([*command, "--agent-delay", "0.05"], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/catalog", timeout=1)
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)
    raise RuntimeError("the server did not answer")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(timeout=20)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    db = tmp_path_factory.mktemp("e2e") / "games.sqlite3"
    with (tmp_path_factory.getbasetemp() / "server.log").open("w") as log:
        process = start_server(port, db, log)
        yield f"http://127.0.0.1:{port}"
        stop_server(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: scripts/test installs Debian's chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def watched_page(browser: Browser, **context_options: Any) -> tuple[Page, list[str]]:
    """A page in a new browser context (``context_options``: viewport, touch, locale …), and the
    list that collects the errors it throws or logs, for the test to assert on."""
    context = browser.new_context(**context_options)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", on_console)
    return page, errors


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page, errors = watched_page(browser, viewport={"width": 1280, "height": 820})
    yield page
    page.context.close()
    expected = EXPECTED_ERRORS.pop(id(page), ())
    assert [e for e in errors if not any(words in e for words in expected)] == [], errors


def screenshot(page: Page, name: str, full_page: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def choose_game(page: Page, game: str) -> None:
    """Pick ``game`` in the lobby and wait until its seats, not the last game's, are shown."""
    page.select_option("#game", game)
    page.wait_for_selector(f"#seat-rows[data-game='{game}'] select.seat-kind")


def create_from_lobby(
    page: Page,
    server: str,
    game: str,
    options: dict[str, str],
    humans: int = 1,
    before_create: Callable[[Page], None] | None = None,
) -> list[str]:
    """Fill in the lobby form; seats after the first ``humans`` are random agents. Returns the invites.
    ``before_create`` looks at the filled-in lobby: one person against agents is taken to their seat
    at once, so the lobby is gone after *Create game* (with more people it shows the links)."""
    page.goto(server + "/")
    choose_game(page, game)
    for name, value in options.items():
        page.select_option(f"#opt-{name}", value)
    if "players" in options:
        count = int(options["players"])
        page.wait_for_function(f"() => document.querySelectorAll('select.seat-kind').length === {count}")
    kinds = page.locator("select.seat-kind")
    for i in range(kinds.count()):
        kinds.nth(i).select_option("human" if i < humans else "agent:random")
    if before_create is not None:
        before_create(page)
    page.click("#create")
    if humans == 1:
        page.wait_for_url("**/game/**")  # the person's own seat
        page.wait_for_selector("body[data-version]")  # claimed: this browser keeps the seat's credential
        invite = page.url.removeprefix(server)
        page.goto("about:blank")  # the caller opens the seat itself (with its own routes and listeners)
        return [invite]
    page.wait_for_selector("#created .invite a.open-seat")
    links = page.locator("#created a.open-seat")
    return [str(links.nth(i).get_attribute("href")) for i in range(links.count())]


def wait_turn(page: Page) -> bool:
    """Wait until it is this page's turn (True) or the game is over (False)."""
    page.wait_for_selector(".turn.mine, #result:not([hidden])")
    return page.locator("#result:not([hidden])").count() == 0


def click_random(page: Page, selector: str, rng: random.Random) -> bool:
    """Click (or, on a touch screen, tap) one of the elements ``selector`` finds, at random."""
    items = page.locator(selector)
    count = items.count()
    if not count:
        return False
    item = items.nth(rng.randrange(count))
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        item.tap()
    else:
        item.click()
    return True


def wait_moved(page: Page, before: str) -> None:
    """Wait until the page has taken the move in (the version it shows changes) or the game ends;
    if it does not, the failure says what the page showed (its connection, message, data)."""
    try:
        page.wait_for_function(
            "(before) => document.body.dataset.version !== before || !document.getElementById('result').hidden",
            arg=before,
        )
    except PlaywrightTimeoutError:
        shown = page.evaluate(
            """() => ({data: {...document.body.dataset},
                       connection: document.getElementById('connection').className,
                       message: document.getElementById('message').textContent})"""
        )
        raise AssertionError(f"the page did not take its move in (version {before}): {shown}") from None


def submitted(page: Page, before: str) -> bool:
    """Whether the page has sent its move already (or taken it in)."""
    return bool(
        page.evaluate(
            "(before) => document.body.dataset.sending === '1' || document.body.dataset.version !== before",
            before,
        )
    )


CLICKABLE = "#board .strip-site.clickable"


def play_turn(page: Page, rng: random.Random, relocate: bool = False) -> None:
    """Make one legal move by clicks, as a person would. The page offers only clicks that lead
    to a legal move, so every click here must be accepted and every path must end in a move."""
    version = str(page.evaluate("document.body.dataset.version"))
    mode = str(page.evaluate("document.body.dataset.mode"))
    if mode == "choose":
        assert click_random(page, "#words button.choice", rng)  # a secret colour
    elif mode == "set":  # Special Cake eating: candies in any order until the move is made
        for picks in range(1, 6):
            assert click_random(page, CLICKABLE, rng), "a pick led nowhere"
            if submitted(page, version):  # a move nothing can extend is sent without asking
                break
            assert page.evaluate("document.body.dataset.selection") == str(picks)
            playable = page.locator("#btn-play:not([disabled])").count() > 0
            if playable and (rng.random() < 0.5 or not page.locator(CLICKABLE).count()):
                page.click("#btn-play")
                break
        else:
            raise AssertionError("five picks made no move")
    elif mode == "sequence" and relocate and page.locator(f"{CLICKABLE}:has(.strip-ball)").count():
        assert click_random(page, f"{CLICKABLE}:has(.strip-ball)", rng)  # a free marble
        assert click_random(page, f"{CLICKABLE}:has(.strip-empty)", rng)  # where it goes
        assert click_random(page, f"{CLICKABLE}:has(.strip-empty)", rng)  # then the placement
    else:
        assert click_random(page, f"{CLICKABLE}:has(.strip-empty)", rng)
    wait_moved(page, version)


# Chromium lays out in 1/64 px units but reports rectangles as float32, so a 44 px box placed at a
# fractional offset can measure 43.99994 px: sizes are rounded to a layout unit before comparing.
LAYOUT_UNIT_JS = "(x => Math.round(x * 64) / 64)"


def assert_fits(page: Page, board: bool = True) -> None:
    """No horizontal scroll, and the board's sites are tap targets of at least 44 CSS px."""
    width, screen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= screen, f"the page is {width} px wide on a {screen} px screen"
    sizes_js = """() => [...document.querySelectorAll('#board .strip-site .strip-hit')].map(n => {
          const r = n.getBoundingClientRect();
          return [n.closest('[data-site]').dataset.site, UNIT(Math.min(r.width, r.height))];
        })""".replace("UNIT", LAYOUT_UNIT_JS)
    if board:  # once the page has settled (drawn its latest frame)
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(f"() => ({sizes_js})().every(([, size]) => size >= 44)", timeout=5000)
    sizes = page.evaluate(sizes_js)
    assert len(sizes) == (30 if board else 0), sizes
    small = [(site, round(size)) for site, size in sizes if size < 44]
    assert not small, f"sites smaller than 44 px on {page.url}: {small}"
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):  # every control a finger can hit
        controls_js = """() => [...document.querySelectorAll(
                'button, a.button, select, input[type=text], .board-tools label, summary')]
            .filter(n => n.offsetParent !== null)
            .map(n => [n.id || n.textContent.trim().slice(0, 20), UNIT(n.getBoundingClientRect().height)])""".replace(
            "UNIT", LAYOUT_UNIT_JS
        )
        with contextlib.suppress(PlaywrightTimeoutError):  # once the controls have settled after a tap
            page.wait_for_function(f"() => ({controls_js})().every(([, height]) => height >= 44)", timeout=5000)
        controls = page.evaluate(controls_js)
        low = [(name, height) for name, height in controls if height < 44]
        assert not low, f"controls lower than 44 px on {page.url}: {low}"


def check_moves_list_shows_the_latest(page: Page) -> None:
    """The last move of the Moves list is inside the list's visible box (it scrolls to the end)."""
    if page.locator(".history-box:not([hidden]) #history li").count() < 2:
        return
    in_sight = """() => {
          const list = document.getElementById('history');
          const last = list.lastElementChild.getBoundingClientRect();
          const box = (list.closest('.history-scroll') || list).getBoundingClientRect();
          return last.bottom <= box.bottom + 2 && last.top >= box.top - 2 && last.right <= box.right + 2;
        }"""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(in_sight, timeout=3000)
    inside = page.evaluate(in_sight)
    assert inside, "the latest move is not in sight"


def play_to_the_end(page: Page, rng: random.Random, shot: str, shot_after: int = 6, fits: bool = False) -> str:
    moves = 0
    while wait_turn(page):
        play_turn(page, rng, relocate=moves % 3 == 1)
        moves += 1
        if fits:
            assert_fits(page)
            check_moves_list_shows_the_latest(page)
        if moves == shot_after:
            page.wait_for_timeout(300)
            screenshot(page, shot)
    page.wait_for_selector("#result .result-title")
    check_moves_list_shows_the_latest(page)
    assert_no_empty_cards(page)
    if moves < shot_after:
        screenshot(page, shot)
    screenshot(page, shot + "-end", full_page=True)
    # A full-page screenshot lays the page out again (as turning a phone does): the list still ends in sight.
    check_moves_list_shows_the_latest(page)
    return page.inner_text("#result .result-text")


def assert_no_empty_cards(page: Page) -> None:
    """Every card shown beside the board holds something (no empty status bar at the end)."""
    empty = page.evaluate(
        """() => [...document.querySelectorAll('.side-panel > *')]
            .filter(n => n.offsetParent !== null && !n.textContent.trim() && !n.querySelector('svg, table'))
            .map(n => n.id || n.className)"""
    )
    assert empty == [], f"empty cards beside the board: {empty}"


def pyramid_band_above(page: Page, board: str) -> float:
    """The empty band above what the page's 3D view draws of ``board``, as a share of the view's height."""
    return float(
        page.evaluate(
            """async (board) => {
              const { PyramidView } = await import('/static/js/board.js');
              const host = document.createElement('div');
              host.className = 'board';
              document.querySelector('.board-panel').prepend(host);
              new PyramidView(host).render({ board });
              const svg = host.querySelector('svg.pyramid').getBoundingClientRect();
              const drawn = host.querySelector('svg.pyramid .main-view').getBoundingClientRect();
              host.remove();
              return (drawn.top - svg.top) / svg.height;
            }""",
            board,
        )
    )


GAMES = [
    ("special-cake", {"variant": "mint"}, "special-cake-mint"),
    ("special-cake", {"variant": "sugar"}, "special-cake-sugar"),
    ("special-cake", {"variant": "poisoned"}, "special-cake-poisoned"),
    ("spagyric", {}, "spagyric"),
    ("spinca", {"players": "2"}, "spinca-2"),
    ("spinca", {"players": "3"}, "spinca-3"),
    ("spinca", {"players": "4"}, "spinca-4"),
    ("spline", {}, "spline"),
]


SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "tablet": {"viewport": {"width": 768, "height": 1024}, "has_touch": True, "is_mobile": True},
    "desktop": {"viewport": {"width": 1280, "height": 820}},
}


def lobby_fits(page: Page, size: str) -> None:
    assert_fits(page, board=False)
    screenshot(page, f"lobby-{size}", full_page=True)


def sized_page(browser: Browser, size: str) -> tuple[Page, list[str]]:
    """A page in a new context of that screen size, and the errors it logs."""
    return watched_page(browser, **SIZES[size])  # type: ignore[arg-type]


@pytest.mark.parametrize(("game", "options", "name"), GAMES, ids=[g[2] for g in GAMES])
def test_a_whole_game_through_the_ui_against_agents(
    page: Page, server: str, game: str, options: dict[str, str], name: str
) -> None:
    invites = create_from_lobby(page, server, game, options)
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    assert "You play" in page.inner_text("#role")
    try:
        result = play_to_the_end(page, random.Random(name), name + "-desktop")
    except Exception:
        screenshot(page, name + "-failure")
        raise
    assert result
    # The result is told once (not again in the status lines), and the list shows the last move.
    assert page.inner_text("main").count(result) == 1
    # The record downloads and the replay steps through the game.
    game_id = invites[0].split("/")[2].split("#")[0]
    record = page.request.get(f"{server}/api/games/{game_id}/record")
    assert record.ok and record.json()["game"] == game
    page.click("#result a:has-text('Replay')")
    page.wait_for_selector("#history li")
    total = page.locator("#history li").count()
    assert page.inner_text("#step") == f"move 0 of {total}"
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#step") == f"move 2 of {total}"
    page.click("#last")
    assert page.inner_text("#step") == f"move {total} of {total}"
    check_moves_list_shows_the_latest(page)
    if game == "spinca":  # the replay shows the face scores as the game page does
        page.wait_for_selector("#scores table.scores")
        sides = page.locator("#scores table.scores tbody tr").count()
        assert sides == (2 if options["players"] != "3" else 3), sides
    screenshot(page, f"replay-{name}-desktop")
    # In the lobby the game has left "Games in play" for "Finished games".
    page.goto(server + "/")
    page.wait_for_selector(f"#finished-games tr[data-game='{game_id}']")
    assert page.locator(f"#active-games tr[data-game='{game_id}']").count() == 0


@pytest.mark.parametrize(("game", "options", "name"), GAMES, ids=[g[2] for g in GAMES])
def test_a_whole_game_on_a_phone_by_touch(
    browser: Browser, server: str, game: str, options: dict[str, str], name: str
) -> None:
    """390×844 with touch: the lobby, a whole game and its replay fit the screen (no horizontal
    scroll), every site is a tap target of at least 44 px, and the game is played by taps."""
    page, errors = sized_page(browser, "phone")
    invites = create_from_lobby(page, server, game, options, before_create=lambda lobby: lobby_fits(lobby, "phone"))
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    assert_fits(page)
    try:
        result = play_to_the_end(page, random.Random(name + "phone"), name + "-phone", fits=True)
    except Exception:
        screenshot(page, name + "-phone-failure")
        raise
    assert result and page.inner_text("main").count(result) == 1
    page.locator("#result a:has-text('Replay')").tap()
    page.wait_for_selector("#history li")
    page.locator("#last").tap()
    page.wait_for_selector("#board .strip-site")
    assert_fits(page)
    check_moves_list_shows_the_latest(page)
    screenshot(page, f"replay-{name}-phone")
    assert errors == []
    page.context.close()


@pytest.mark.parametrize(("game", "options", "name"), GAMES, ids=[g[2] for g in GAMES])
def test_every_game_fits_a_tablet(browser: Browser, server: str, game: str, options: dict[str, str], name: str) -> None:
    page, errors = sized_page(browser, "tablet")
    invites = create_from_lobby(page, server, game, options, before_create=lambda lobby: lobby_fits(lobby, "tablet"))
    page.goto(server + invites[0])
    rng = random.Random(name + "tablet")
    for _ in range(6):
        if not wait_turn(page):
            break
        play_turn(page, rng, relocate=True)
        assert_fits(page)
    page.wait_for_timeout(300)
    screenshot(page, name + "-tablet")
    # The 3D view starts where the pyramid does: a full one, a bottom level only, a level begun above it.
    full, bottom = "wbwbwbwbwbwbwbwb/wbwbwbwbw/wbwb/w", "wbwbwbwbwbwbwbwb/........./..../."
    boards = (full, bottom, "bwbwbwbwbwbwbwbw/......w../..../.")
    for board in boards:
        assert pyramid_band_above(page, board) < 0.04, board
    assert errors == []
    page.context.close()


def test_the_lobby_offers_only_agents_that_fit(page: Page, server: str) -> None:
    page.goto(server + "/")
    for game in ("spagyric", "special-cake", "spinca", "spline"):
        choose_game(page, game)
        fit = page.request.get(f"{server}/api/catalog").json()
        agents = next(g["agents"] for g in fit["games"] if g["name"] == game)
        offered = page.eval_on_selector_all("select.seat-kind >> nth=1", "s => [...s[0].options].map(o => o.value)")
        levels = [f"level:{n}" for n in range(1, 6)]
        assert offered == ["human", *levels, *(f"agent:{a}" for a in agents)]  # levels first, then specs
        groups = page.eval_on_selector_all("select.seat-kind >> nth=1", "s => [...s[0].children].map(g => g.label)")
        assert groups[1:] == ["Levels", "Advanced: an agent by its spec"]
        words = page.eval_on_selector_all("select.seat-kind >> nth=1", "s => [...s[0].options].map(o => o.text)")
        assert words[1].startswith("Level 1 · beginner (") and words[5].startswith("Level 5 · strongest")
        assert page.locator("select.seat-kind").nth(1).input_value() == "level:3"
    assert "mcts" not in next(g["agents"] for g in fit["games"] if g["name"] == "spagyric")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_option_changed_while_typing_agent_options_keeps_typing(browser: Browser, server: str, size: str) -> None:
    page, errors = sized_page(browser, size)
    page.goto(server + "/")
    choose_game(page, "spagyric")
    page.locator("select.seat-kind").nth(1).select_option("agent:spagyric")
    typing = page.locator("input.seat-agent").nth(1)
    typing.tap() if size == "phone" else typing.click()
    page.keyboard.type("time=")
    typing.evaluate("node => (node.dataset.typedIn = '1')")
    # The options are checked again while the player types (the supply field's own change event comes
    # late, when it loses the focus): the server answers with the same seats.
    with page.expect_response("**/api/check"):
        page.evaluate("""() => {
            const supply = document.querySelector('#opt-supply');
            supply.value = '9';
            supply.dispatchEvent(new Event('change'));
        }""")
    page.keyboard.type("0.5")
    assert page.evaluate("document.activeElement.dataset.typedIn") == "1"  # the same input, still focused
    assert page.locator("input.seat-agent").nth(1).input_value() == "time=0.5"
    screenshot(page, f"lobby-typing-kept-{size}")
    page.locator("#create").click()
    page.wait_for_url("**/game/**")  # one person against an agent: straight to the seat
    assert errors == []
    page.context.close()


def test_an_unknown_game_says_so_and_does_not_reconnect(page: Page, server: str) -> None:
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    EXPECTED_ERRORS[id(page)] = ("status of 404",)  # the browser logs the page's own 404
    response = page.goto(server + "/game/no-such-game")
    assert response is not None and response.status == 404
    page.wait_for_selector("#missing:not([hidden]) a[href='/']")
    page.wait_for_timeout(3000)
    assert len(sockets) == 1
    assert "No such game" in page.inner_text("#missing")


def test_two_people_play_each_other_in_real_time(browser: Browser, server: str) -> None:
    lobby = browser.new_page()
    lobby.set_default_timeout(TIMEOUT)
    invites = create_from_lobby(lobby, server, "spline", {}, humans=2)
    screenshot(lobby, "lobby-desktop")
    lobby.close()
    contexts = [browser.new_context(viewport={"width": 1280, "height": 820}) for _ in range(2)]
    pages = []
    for context, invite in zip(contexts, invites, strict=True):
        context.set_default_timeout(TIMEOUT)
        p = context.new_page()
        p.goto(server + invite)
        pages.append(p)
    for p in pages:
        p.wait_for_selector("#players li.player .dot.on >> nth=1")  # both seats are connected
    rng = random.Random(7)
    moves = 0
    while True:
        mover = pages[moves % 2]
        other = pages[1 - moves % 2]
        if not wait_turn(mover):
            break
        version = str(mover.evaluate("document.body.dataset.version"))
        site = mover.locator(f"{CLICKABLE}:has(.strip-empty)")
        target = site.nth(rng.randrange(site.count()))
        name = str(target.get_attribute("data-site"))
        target.click()
        wait_moved(mover, version)
        # The other browser sees the move at once, without reloading: marked as the last move.
        other.wait_for_selector(f"#board .strip-site[data-site='{name}'] .last-dot")
        moves += 1
    texts = [p.inner_text("#result .result-title") for p in pages]
    assert sorted(texts) == ["You lose", "You win!"]
    screenshot(pages[0], "spline-two-players")
    for context in contexts:
        context.close()


def test_a_wrong_invite_token_watches_instead(page: Page, server: str) -> None:
    invites = create_from_lobby(page, server, "spline", {}, humans=2)
    page.goto(server + invites[0].split("#")[0] + "#not-a-real-token")
    page.wait_for_selector("#players li.player")
    assert "not valid" in page.inner_text("#role")
    assert page.locator(CLICKABLE).count() == 0


def test_a_game_survives_a_server_restart_and_the_page_resumes_it(page: Page, tmp_path: Path) -> None:
    """Play, stop the server, start it again on the same database: the open page reconnects and finishes."""
    port = free_port()
    db = tmp_path / "restart.sqlite3"
    base = f"http://127.0.0.1:{port}"
    with (tmp_path / "server.log").open("w") as log:
        process = start_server(port, db, log)
        try:
            invites = create_from_lobby(page, base, "special-cake", {"variant": "poisoned"})
            page.goto(base + invites[0])
            rng = random.Random(5)
            for _ in range(4):
                assert wait_turn(page)
                play_turn(page, rng)
            assert wait_turn(page)
            before = page.locator("#history li").count()
            assert before >= 8
            EXPECTED_ERRORS[id(page)] = ("WebSocket connection to", "ERR_CONNECTION_REFUSED")
            stop_server(process)
            page.wait_for_selector(".connection.offline")
            process = start_server(port, db, log)
            page.wait_for_selector(".connection.online")
            assert page.locator("#history li").count() == before
            result = play_to_the_end(page, rng, "restart")
            assert result
            assert page.locator("#history li").count() > before
        finally:
            stop_server(process)


def test_a_move_lost_with_the_connection_is_sent_again_when_it_returns(page: Page, server: str) -> None:
    """The connection drops just as a move leaves the page (the frame never reaches the server):
    the page reconnects and sends the move again, so the click is not lost and the page does not
    wait for an answer forever."""
    dropped: list[str] = []

    def route(ws: WebSocketRoute) -> None:
        to_server = ws.connect_to_server()
        if dropped:  # later connections pass untouched
            return

        def from_page(message: str | bytes) -> None:
            if not dropped and json.loads(message).get("type") == "move":
                dropped.append(str(message))
                ws.close()
                return
            to_server.send(message)

        ws.on_message(from_page)

    invites = create_from_lobby(page, server, "spline", {})
    page.route_web_socket("**/ws/**", route)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto(server + invites[0])
    assert wait_turn(page)
    version = str(page.evaluate("document.body.dataset.version"))
    site = page.locator(f"{CLICKABLE}:has(.strip-empty)").first
    name = str(site.get_attribute("data-site"))
    site.click()
    wait_moved(page, version)
    assert len(dropped) == 1 and len(sockets) >= 2, (dropped, sockets)
    page.wait_for_selector(f"#board .strip-site[data-site='{name}'] .strip-ball")
    assert name in page.locator("#history li").first.inner_text()


def centre(element: Any) -> tuple[float, float]:
    box = element.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def press_redraw_release(page: Page, touch: bool, pressed: Any, released: Any, lang: str) -> None:
    """Press on ``pressed`` (a finger or the mouse), switch the language to ``lang`` so that the
    page redraws it, wait until that element is gone, then release over ``released``."""
    pressed.scroll_into_view_if_needed()
    start, end = centre(pressed), centre(released)
    assert pressed.evaluate("(node, [x, y]) => node.contains(document.elementFromPoint(x, y))", list(start))
    pressed.evaluate("node => node.dataset.pressed = '1'")
    cdp = page.context.new_cdp_session(page) if touch else None

    def finger(kind: str, at: tuple[float, float] | None) -> None:
        assert cdp is not None
        points = [] if at is None else [{"x": at[0], "y": at[1]}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    if touch:
        finger("touchStart", start)
    else:
        page.mouse.move(*start)
        page.mouse.down()
    page.evaluate(f"document.querySelector(\".lang-switch button[data-lang='{lang}']\").click()")
    page.wait_for_function("() => !document.querySelector('[data-pressed]')")  # redrawn: the pressed one is gone
    if touch:
        finger("touchMove", end)
        finger("touchEnd", None)
    else:
        page.mouse.move(*end)
        page.mouse.up()
    if cdp is not None:
        cdp.detach()


@pytest.mark.parametrize("touch", [False, True], ids=["mouse", "touch"])
def test_a_tap_counts_when_the_board_is_redrawn_under_the_finger(browser: Browser, server: str, touch: bool) -> None:
    """A frame from the server (someone joins, the language changes) can redraw the board between
    a press and its release; the move is still made, and a press that slides to another site is not."""
    page, errors = sized_page(browser, "phone" if touch else "desktop")
    invites = create_from_lobby(page, server, "spline", {})
    page.goto(server + invites[0])
    assert wait_turn(page)
    sites = page.locator(f"{CLICKABLE}:has(.strip-empty)")
    first, other = sites.nth(0), sites.nth(5)
    name = str(first.get_attribute("data-site"))
    version = str(page.evaluate("document.body.dataset.version"))
    press_redraw_release(page, touch, first, other, "ko")  # slid away: no move
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.dataset.version") == version
    assert page.evaluate("document.body.dataset.selection") == "0"
    press_redraw_release(page, touch, first, first, "en")
    wait_moved(page, version)
    assert name in page.locator("#history li").first.inner_text()
    page.context.close()
    assert errors == []


@pytest.mark.parametrize("touch", [False, True], ids=["mouse", "touch"])
def test_a_secret_colour_tapped_as_the_buttons_are_redrawn_still_counts(
    browser: Browser, server: str, touch: bool
) -> None:
    """Spagyric's colour buttons are rebuilt when their words change (a switch of language); a
    press and release across the rebuild still chooses, and one that slides to another colour does not."""
    page, errors = sized_page(browser, "phone" if touch else "desktop")
    invites = create_from_lobby(page, server, "spagyric", {})
    sent: list[dict[str, Any]] = []  # what the page sends the server
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    page.goto(server + invites[0])
    assert wait_turn(page)
    assert page.evaluate("document.body.dataset.mode") == "choose"
    words = page.locator("#words button.choice")
    assert words.count() == 3
    screenshot(page, f"spagyric-words-{'phone' if touch else 'desktop'}", full_page=True)
    version = str(page.evaluate("document.body.dataset.version"))
    press_redraw_release(page, touch, words.nth(0), words.nth(2), "ko")  # slid to another colour
    page.wait_for_timeout(300)
    assert not submitted(page, version)
    word = str(words.nth(0).get_attribute("data-word"))
    press_redraw_release(page, touch, words.nth(0), words.nth(0), "en")
    wait_moved(page, version)
    assert [frame["move"] for frame in sent if frame["type"] == "move"] == [word]  # the pressed one, once
    rng = random.Random(3)
    while wait_turn(page) and page.evaluate("document.body.dataset.mode") != "choose":
        play_turn(page, rng)  # a placement after the reveal, by clicks
    # The next choice by keyboard: a focused button and Enter, no pointer at all.
    version = str(page.evaluate("document.body.dataset.version"))
    key_word = str(words.nth(0).get_attribute("data-word"))
    words.nth(0).focus()
    page.keyboard.press("Enter")
    wait_moved(page, version)
    assert [frame["move"] for frame in sent if frame["type"] == "move"][-1] == key_word
    page.context.close()
    assert errors == []


def test_a_click_on_the_result_survives_someone_arriving(browser: Browser, page: Page, server: str) -> None:
    """After the end, a spectator's arrival sends every page a presence frame; the result box is not
    rebuilt by it, so a press on its Replay link that straddles the frame still opens the replay."""
    presences: list[str] = []

    def on_frame(text: str | bytes) -> None:
        if '"presence"' in str(text):
            presences.append(str(text))

    def on_socket(socket: Any) -> None:
        socket.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    invites = create_from_lobby(page, server, "spline", {})
    page.goto(server + invites[0])
    assert play_to_the_end(page, random.Random(11), "spline-result-click")
    link = page.locator("#result a:has-text('Replay')")
    link.evaluate("node => node.dataset.pressed = '1'")
    box = link.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    before = len(presences)
    spectator = browser.new_page()
    spectator.goto(server + invites[0].split("#")[0])
    spectator.wait_for_selector("#players li.player")
    for _ in range(50):  # the presence frame reaches the page
        if len(presences) > before:
            break
        page.wait_for_timeout(100)
    assert len(presences) > before, "no presence frame came"
    page.wait_for_timeout(200)  # and has been drawn
    assert page.locator("#result [data-pressed]").count() == 1  # the link pressed is still there
    page.mouse.up()
    page.wait_for_url("**/replay/**")
    spectator.close()
