"""End-to-end: the analysis board (/analysis, docs/analysis.md "In the browser") in Chromium, on a
desktop and on a 390×844 touch phone.

The solver's verdict and winning moves for a Special Cake position are checked against
:mod:`spheria.games.special_cake.solver` run here; a variation is branched, left and returned to; the link carries
the tree into a second browser; the engine can be off; a bad link is refused with its reason; a
finished game opened from its replay marks the moves that threw a win away; a proved win is
ringed the moment its verdict shows (a full mint cake too), with what is still being proved said
under the verdict; a review words estimates as estimates and claims a fall only beyond their
error, in English and Korean. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import math
import random
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

import spheria
from spheria.analysis import analyse_game
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import solve
from spheria.kernel.record import Record
from tests.web.e2e.test_browser import TIMEOUT, assert_fits, browser, screenshot, server  # noqa: F401  (fixtures)

#: The sites of the level maps ringed as a winning move's (or the result's).
RINGED = "svg.levels .strip-site:has(.ring-marked)"
SIZES: dict[str, dict[str, Any]] = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 820}},
}


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:  # noqa: F811
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def open_page(
    browser: Browser,  # noqa: F811
    opened: list[BrowserContext],
    url: str,
    size: str,
    locale: str | None = None,
) -> tuple[Page, list[str]]:
    """``url`` in a new context of ``size`` (and ``locale``, else the browser's), with the list of its errors."""
    context = browser.new_context(locale=locale, **SIZES[size])
    context.set_default_timeout(TIMEOUT)
    opened.append(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return page, errors


def analysis_url(server: str, **query: str) -> str:  # noqa: F811
    return f"{server}/analysis?{urllib.parse.urlencode(query)}"


def press(page: Page, selector: str) -> None:
    """Tap on a touch screen, click elsewhere."""
    item = page.locator(selector).first
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        item.tap()
    else:
        item.click()


def site(page: Page, name: str) -> None:
    press(page, f"#board svg.levels .strip-site[data-site='{name}']")


def at_node(page: Page, index: int) -> None:
    """Wait until the analysis board shows node ``index`` (also across a navigation, when for a
    moment the new document has no body yet)."""
    page.wait_for_function(
        "(n) => document.body !== null && document.body.dataset.ready === '1'"
        " && document.body.dataset.node === String(n)",
        arg=index,
    )


def tree_of(page: Page) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query).get("tree", [""])[0]


def known_position() -> CakeState:
    """A sugar eating position with some winning and some losing moves (found by seed, solved here)."""
    game = spheria.load_game("special-cake", variant="sugar")
    for seed in range(100):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal() and sum(c not in "./" for c in state.to_spn().split()[0]) > 12:
            state.apply(rng.choice(state.legal_moves()))
        assert isinstance(state, CakeState)
        if state.is_terminal():
            continue
        result = solve(state)
        if result.value > 0 and len(result.best_moves) < len(state.legal_moves()):
            return state
    raise AssertionError("no position with winning and losing moves")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_solvers_verdict_and_every_winning_move_are_shown(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
) -> None:
    state = known_position()
    expected = solve(state)
    winning = {state.notation(m) for m in expected.best_moves}
    url = analysis_url(server, game="special-cake", options="variant=sugar", spn=state.to_spn())
    page, errors = open_page(browser, contexts, url, size)
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    assert page.get_attribute("#engine-verdict", "data-verdict") == str(expected.value)
    assert "wins with perfect play" in page.inner_text("#engine-verdict")
    listed = page.eval_on_selector_all("#engine-moves li", "items => items.map(i => [i.dataset.move, i.dataset.value])")
    assert sorted(m for m, _ in listed) == sorted(state.notation(m) for m in state.legal_moves())
    assert {m for m, v in listed if float(v) > 0} == winning
    # Every site of a winning move is ringed on the board.
    marked = set(page.eval_on_selector_all(RINGED, "s => s.map(e => e.dataset.site)"))
    assert marked == {s for move in winning for s in move.split("+")}
    screenshot(page, f"analysis-solver-{size}", full_page=True)
    # A winning move played from the list leaves the other player lost: nothing to ring.
    first = page.locator("#engine-moves li.win").first
    played = str(first.get_attribute("data-move"))
    press(page, "#engine-moves li.win")
    at_node(page, 1)
    page.mouse.move(0, 0)  # off the list: a move pointed at there is ringed instead
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    child = state.child(state.parse_move(played))
    assert isinstance(child, CakeState) and solve(child).value == -1
    assert page.get_attribute("#engine-verdict", "data-verdict") == "-1"
    assert page.locator(RINGED).count() == 0
    values = page.eval_on_selector_all("#engine-moves li[data-move]", "items => items.map(i => i.dataset.value)")
    assert values and set(values) == {"-1"}
    assert errors == []


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_variation_is_branched_returned_to_and_shared_by_its_link(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
) -> None:
    page, errors = open_page(browser, contexts, analysis_url(server, game="spline", engine="off"), size)
    at_node(page, 0)
    site(page, "0a1")
    at_node(page, 1)
    site(page, "0b1")
    at_node(page, 2)
    if size == "desktop":
        page.keyboard.press("ArrowLeft")  # back a move with the keyboard
    else:
        press(page, "#prev")
    at_node(page, 1)
    site(page, "0c1")  # another move from here: a variation
    at_node(page, 3)
    assert tree_of(page) == "0a1,0b1,(0c1)"
    assert page.locator("#tree .variation .tnode").inner_text().endswith("0c1")
    assert page.locator("#board .strip-site[data-site='0c1'] .strip-ball").count() == 1
    press(page, "#tree .tnode[data-node='2']")  # back to the main line
    at_node(page, 2)
    assert page.locator("#board .strip-site[data-site='0b1'] .strip-ball").count() == 1
    assert page.locator("#board .strip-site[data-site='0c1'] .strip-ball").count() == 0
    press(page, "#tree .tnode[data-node='3']")
    at_node(page, 3)
    press(page, "#btn-promote")
    page.wait_for_function("() => new URLSearchParams(location.search).get('tree') === '0a1,0c1,(0b1)'")
    shared = page.url
    screenshot(page, f"analysis-variation-{size}", full_page=True)
    if size == "phone":  # no sideways scroll, and the tree's moves are finger-sized like every control
        assert_fits(page)
    # The link alone, in another browser, gives the same tree at the same move.
    other, other_errors = open_page(browser, contexts, shared, size)
    at_node(other, int(page.evaluate("document.body.dataset.node")))
    assert tree_of(other) == "0a1,0c1,(0b1)"
    texts = "() => [...document.querySelectorAll('#tree .tnode')].map(b => b.textContent)"
    assert other.evaluate(texts) == page.evaluate(texts)
    assert other.locator("#tree .tnode.current").inner_text() == page.locator("#tree .tnode.current").inner_text()
    press(other, "#tree .tnode[data-node='3']")  # the variation 0b1
    at_node(other, 3)
    press(other, "#btn-delete")
    other.wait_for_function("() => new URLSearchParams(location.search).get('tree') === '0a1,0c1'")
    assert errors == [] and other_errors == []


def test_with_the_engine_off_nothing_is_asked_until_it_is_switched_on(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
) -> None:
    spn = "wbw............./........./..../. 1 eat"
    url = analysis_url(server, game="special-cake", options="variant=mint", spn=spn, engine="off")
    page, errors = open_page(browser, contexts, url, "desktop")
    at_node(page, 0)
    assert page.evaluate("document.body.dataset.engine") == "off"
    assert page.locator("#engine-moves li").count() == 0
    assert "off" in page.inner_text("#engine-verdict")
    site(page, "0a1")  # a move played with the engine off stays unanalysed (a line may go on: Play ends it)
    press(page, "#btn-play")
    at_node(page, 1)
    assert page.evaluate("document.body.dataset.engine") == "off"
    page.locator("#engine-toggle").check()
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    assert page.locator("#engine-moves li").count() > 0
    assert "engine=off" not in page.url
    assert errors == []


@pytest.mark.parametrize(
    ("query", "words"),
    [
        # the server's detail begins its own sentence under the page's words, with a capital
        ({"game": "special-cake", "spn": "garbage"}, "\nBad SPN for special-cake"),
        ({"game": "chess"}, "\nNo game called 'chess'"),
        ({"game": "spline", "tree": "0a1,0a1"}, "\nMove 2 (0a1)"),
        ({"game": "spline", "options": "size=9"}, "size"),
    ],
)
def test_a_bad_link_gets_a_clear_message(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    query: dict[str, str],
    words: str,
) -> None:
    page, errors = open_page(browser, contexts, analysis_url(server, **query), "phone")
    page.wait_for_selector("#problem:not([hidden])")
    assert words in page.inner_text("#problem-text")
    assert page.locator("#analysis-main").is_hidden()
    if query.get("spn") == "garbage":
        screenshot(page, "analysis-bad-link-phone")
    assert errors == []


def finished_game(server: str, variant: str = "sugar", **options: str) -> str:  # noqa: F811
    seats = [{"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "random"}]
    chosen = {"variant": variant, **options}
    body = json.dumps({"game": "special-cake", "options": chosen, "seats": seats, "seed": 11}).encode()
    request = urllib.request.Request(server + "/api/games", body, {"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=20) as response:
        game_id = str(json.load(response)["id"])
    for _ in range(400):
        with urllib.request.urlopen(f"{server}/api/games/{game_id}", timeout=20) as response:
            if json.load(response)["status"] == "finished":
                return game_id
        time.sleep(0.05)
    raise AssertionError("the agents did not finish")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_finished_game_opened_from_its_replay_marks_the_wins_thrown_away(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
) -> None:
    game_id = finished_game(server)
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/record", timeout=20) as response:
        record = Record.from_json(json.load(response))
    expected = analyse_game(record, time=None)
    page, errors = open_page(browser, contexts, f"{server}/replay/{game_id}", size)
    page.wait_for_selector("#history li")
    press(page, "#next")
    press(page, "#next")
    page.wait_for_function("() => document.getElementById('analyse').href.endsWith('at=2')")
    press(page, "#analyse")
    at_node(page, 2)
    page.wait_for_selector("#chart svg.eval-chart")
    marked = page.eval_on_selector_all("#tree .tnode.mark-mistake", "b => b.map(e => Number(e.dataset.node))")
    assert marked == expected.threw_away_win  # a main line only: a node's number is its move's
    assert page.locator("#chart .eval-mistake").count() == len(expected.threw_away_win)
    assert page.locator("#mistakes-list .mistake-mistake").count() == len(expected.threw_away_win)
    site_count = page.locator("#tree .tnode").count()
    assert site_count == len(record.moves)
    screenshot(page, f"analysis-finished-{size}", full_page=True)
    # The finished game's own page links here too.
    page.goto(f"{server}/game/{game_id}")
    link = page.locator("#result a[href^='/analysis']")
    link.wait_for()
    assert link.get_attribute("href") == f"/analysis?record={game_id}"
    assert errors == []


# -- issue 36, items 3 and 4: a proved win is ringed with its verdict; estimates are worded as such --

#: Records, in the page, what it showed the first time the engine's verdict said "wins": the
#: sites ringed on the board, whether the answer was still partial, and where the note under the
#: verdict stood (the observer runs after the render that drew the verdict, board included).
FIRST_VERDICT = """
new MutationObserver(() => {
  const verdict = document.getElementById("engine-verdict");
  if (window.firstWin || !verdict || verdict.dataset.verdict !== "1") return;
  const note = document.getElementById("engine-note");
  const list = document.getElementById("engine-moves");
  const box = (node) => { const r = node.getBoundingClientRect(); return [r.top, r.bottom]; };
  window.firstWin = {
    ringed: [...document.querySelectorAll(RINGED_SELECTOR)].map((e) => e.dataset.site),
    partial: verdict.dataset.partial === "1",
    note: note ? note.textContent : null,
    noteBox: note ? box(note) : null,
    listBox: list ? box(list) : null,
    verdictBox: box(verdict.querySelector(".verdict-line")),
  };
}).observe(document, { subtree: true, childList: true, attributes: true });
""".replace("RINGED_SELECTOR", json.dumps(RINGED))

LANGUAGES = {"en": "en-US", "ko": "ko-KR"}


def won_mint_position(seed: int, candies: int) -> CakeState:
    """A won mint eating position of ``candies`` candies from a random set-up: big enough that
    its other moves take a moment to prove after the first winning one."""
    rng = random.Random(seed)
    state = spheria.load_game("special-cake", variant="mint").new_initial_state(seed=seed)
    assert isinstance(state, CakeState)
    while state.phase != "eat" or sum(m.bit_count() for m in state.masks()) > candies:
        state.apply(rng.choice(state.legal_moves()))
    assert solve(state).value == 1
    return state


@pytest.mark.parametrize(
    ("size", "lang", "seed", "candies"),
    [
        ("desktop", "en", 0, 24),
        ("phone", "en", 1, 24),
        ("desktop", "ko", 2, 24),
        ("phone", "ko", 0, 22),
    ],
)
def test_a_proved_win_is_ringed_the_moment_its_verdict_shows(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
    lang: str,
    seed: int,
    candies: int,
) -> None:
    state = won_mint_position(seed, candies)
    winning = {state.notation(m) for m in solve(state).best_moves}
    context = browser.new_context(locale=LANGUAGES[lang], **SIZES[size])
    context.set_default_timeout(TIMEOUT)
    contexts.append(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(FIRST_VERDICT)
    page.goto(analysis_url(server, game="special-cake", options="variant=mint", spn=state.to_spn()))
    page.wait_for_function("() => window.firstWin !== undefined")
    first = page.evaluate("window.firstWin")
    # The verdict came with its winning move ringed: every ringed site is a winning move's.
    assert first["ringed"], f"the verdict showed with nothing ringed: {first}"
    ringed_moves = [m for m in winning if set(m.split("+")) <= set(first["ringed"])]
    assert ringed_moves and set(first["ringed"]) <= {s for m in winning for s in m.split("+")}
    if first["partial"]:  # the other moves were still being proved: said right under the verdict
        assert first["note"] and first["noteBox"][0] >= first["verdictBox"][1] - 1
        assert first["noteBox"][1] <= first["listBox"][0] + 1, "the note is below the list of moves"
        assert ("proving the other moves" if lang == "en" else "다른 수를 증명하는 중") in first["note"]
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    listed = page.eval_on_selector_all("#engine-moves li", "items => items.map(i => [i.dataset.move, i.dataset.value])")
    assert {m for m, v in listed if float(v) > 0} == winning
    assert page.locator("#engine-note").count() == 0  # every move proved: nothing left to say
    verdict = page.inner_text("#engine-verdict")
    assert ("wins with perfect play" if lang == "en" else "완벽한 플레이로 승리합니다") in verdict
    if lang == "ko":
        from tests.web.e2e.test_korean import assert_korean  # here: test_korean imports this module

        assert_korean(page)
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"analysis-win-ringed-{lang}-{size}", full_page=True)
    assert errors == []


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "ko"), ("phone", "en"), ("desktop", "ko")])
def test_a_finished_games_review_claims_mistakes_only_beyond_the_estimates_error(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
    lang: str,
) -> None:
    context = browser.new_context(locale=LANGUAGES[lang], **SIZES[size])
    context.set_default_timeout(TIMEOUT)
    contexts.append(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    reports: list[dict[str, Any]] = []

    def on_socket(socket: Any) -> None:
        def received(payload: str | bytes) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "game_analysis":
                reports.append(frame["report"])

        socket.on("framereceived", received)

    page.on("websocket", on_socket)
    # A game of random agents (the server does not seed them) whose set-up has falls of the
    # estimated win rate to word; one without any is left for another.
    for _ in range(4):
        # its set-up is estimated (MCTS; with mixed lines the shipped table is exact), its eating exact
        game_id = finished_game(server, "poisoned", line_rule="same")
        reports.clear()
        page.goto(f"{server}/analysis?record={game_id}")
        # About 40 positions at half a second each, and the cakes solved: up to the server's minute.
        page.wait_for_selector("#chart svg.eval-chart", timeout=120_000)
        page.wait_for_function("() => document.querySelector('#mistakes-list li') !== null")
        assert len(reports) == 1
        report = reports[0]
        claimed, within, thrown = (
            set(report["largest_drops"]),
            set(report["drops_within_error"]),
            set(report["threw_away_win"]),
        )
        if claimed | within:
            break
    else:
        raise AssertionError("four random games' set-ups had no fall of the estimated win rate")
    rows = {m["number"]: m for m in report["moves"]}
    for number in claimed:
        assert rows[number]["clear_drop"] and rows[number]["drop"] > rows[number]["drop_margin"]
    for number in within:
        assert not rows[number]["clear_drop"] and rows[number]["better_moves"] == []
    items = page.eval_on_selector_all(
        "#mistakes-list li[data-number]", "li => li.map(e => [Number(e.dataset.number), e.className, e.innerText])"
    )
    assert {n for n, _, _ in items} == claimed | within | thrown
    words = {
        "en": {
            "within": "within the estimate's error",
            "claimed": "a fall larger than the estimate's error",
            "instead": "Winning instead",
        },
        "ko": {"within": "추정값의 오차(", "claimed": "보다 크게 떨어졌습니다", "instead": "대신 이기는 수"},
    }[lang]
    for number, kind, text in items:
        row = rows[number]
        if number in thrown:
            assert kind == "mistake-mistake"
            continue
        before, after = (math.floor(rate * 100 + 0.5) for rate in row["win_rates"])  # as JavaScript rounds
        assert f"{before}% → {after}%" in text  # the estimate's numbers, worded as an estimate
        assert words["instead"] not in text  # "winning instead" is an exact claim
        if number in within:
            assert kind == "mistake-estimate" and words["within"] in text and words["claimed"] not in text
        else:
            assert kind == "mistake-drop" and words["claimed"] in text
    marked = page.eval_on_selector_all("#tree .tnode.mark-drop", "b => b.map(e => Number(e.dataset.node))")
    assert set(marked) == claimed  # only a fall beyond the error is marked "?"
    # The engine panel words the position before such a move as an estimate with its error too.
    shown = sorted(within or claimed)[0]
    press(page, f"#mistakes-list li[data-number='{shown}']")
    at_node(page, shown - 1)
    page.wait_for_function("() => /±/.test(document.querySelector('#engine-verdict .verdict-line')?.textContent)")
    verdict = page.inner_text("#engine-verdict .verdict-line")
    assert "±" in verdict and ("Estimate" in verdict if lang == "en" else "추정" in verdict)
    assert page.locator("#engine-moves .em-error").count() > 0
    if lang == "ko":
        from tests.web.e2e.test_korean import assert_korean  # here: test_korean imports this module

        assert_korean(page)
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"analysis-review-{lang}-{size}", full_page=True)
    assert errors == []


@pytest.mark.compiled_speed
def test_a_full_mint_cakes_verdict_comes_with_its_winning_move_ringed(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
) -> None:
    # The case: a random full mint cake, whose verdict the shipped set-up table knows at
    # once. The page shows it only with a winning move, found by the search (the first won cake
    # of seed 23 needs about 0.6 million positions: seconds, within the 15 s cap).
    from spheria.games.special_cake.solver.setup_table import shipped_table

    rng = random.Random(23)
    game = spheria.load_game("special-cake", variant="mint")
    while True:
        cake = game.new_initial_state()
        assert isinstance(cake, CakeState)
        while cake.phase != "eat":
            cake.apply(rng.choice(cake.legal_moves()))
        if shipped_table().mint_wins(*cake.masks()[:2]):
            break
    context = browser.new_context(locale="en-US", **SIZES["desktop"])
    context.set_default_timeout(TIMEOUT)
    contexts.append(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(FIRST_VERDICT)
    page.goto(analysis_url(server, game="special-cake", options="variant=mint", spn=cake.to_spn()))
    page.wait_for_function("() => window.firstWin !== undefined", timeout=30_000)
    first = page.evaluate("window.firstWin")
    ringed = set(first["ringed"])
    moves = [cake.notation(m) for m in cake.legal_moves() if set(cake.notation(m).split("+")) == ringed]
    assert len(moves) == 1, f"the verdict showed without exactly one winning move ringed: {first}"
    child = cake.child(cake.parse_move(moves[0]))
    assert isinstance(child, CakeState) and solve(child).value == -1  # the ringed move wins
    if first["partial"]:
        assert first["note"] == "proving the other moves…"
        assert first["verdictBox"][1] - 1 <= first["noteBox"][0] and first["noteBox"][1] <= first["listBox"][0] + 1
    screenshot(page, "analysis-full-cake-verdict-desktop", full_page=True)
    assert errors == []


# -- issue 42, item 3: Spline answered exactly from its prover --------------------------------------


def won_spline_position() -> tuple[Any, set[str]]:
    """A Spline position the prover says the mover wins, with losing moves too (seeded random play),
    and its winning moves as the prover finds them."""
    from spheria.games.spline.rules import SplineState
    from spheria.games.spline.search import SplineSearch

    game = spheria.load_game("spline")
    for seed in range(100):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while len(state.history) < 9 and not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        assert isinstance(state, SplineState)
        if state.is_terminal():
            continue
        winning = {state.notation(m) for m in SplineSearch().winning_moves(state)}
        if winning and len(winning) < len(state.legal_moves()):
            return state, winning
    raise AssertionError("no won Spline position with losing moves")


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "ko"), ("phone", "en"), ("desktop", "ko")])
def test_a_spline_position_is_answered_exactly_by_the_prover(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
    lang: str,
) -> None:
    state, winning = won_spline_position()
    context = browser.new_context(locale=LANGUAGES[lang], **SIZES[size])
    context.set_default_timeout(TIMEOUT)
    contexts.append(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(analysis_url(server, game="spline", spn=state.to_spn()))
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    assert page.get_attribute("#engine-verdict", "data-verdict") == "1"
    listed = page.eval_on_selector_all("#engine-moves li", "items => items.map(i => [i.dataset.move, i.dataset.value])")
    assert sorted(m for m, _ in listed) == sorted(state.notation(m) for m in state.legal_moves())
    assert {m for m, v in listed if float(v) > 0} == winning
    assert {m for m, v in listed if float(v) < 0} == {m for m, _ in listed} - winning  # every other move lost
    assert set(page.eval_on_selector_all(RINGED, "s => s.map(e => e.dataset.site)")) == winning
    verdict = page.inner_text("#engine-verdict")
    if lang == "en":
        assert "wins with perfect play" in verdict and "the prover's proof to the end" in verdict.lower()
        assert "estimate" not in verdict.lower()
    else:
        assert "완벽한 플레이로 승리합니다" in verdict and "끝까지 읽는 증명기" in verdict and "추정" not in verdict
        from tests.web.e2e.test_korean import assert_korean  # here: test_korean imports this module

        assert_korean(page)
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"analysis-spline-prover-{lang}-{size}", full_page=True)
    assert errors == []


# -- the analysis board says why a search fell short: the eating table is not built -------------

#: A full poisoned cake: the shipped set-up table says Mint, eating first, wins; proving each move
#: takes the search minutes without the eating table (the tests' SPHERIA_TABLEBASE is empty).
FULL_POISONED_SPN = "bwwwwbbbbbbwbwbw/wwwwbwwwb/bbbw/r 1 eat"
TABLE_NOTE = {
    "en": ("The eating table of Special Cake poisoned is not built on this machine", "4.5 GiB of disk"),
    "ko": ("스페셜 케이크 poisoned의 먹기 테이블이 만들어져 있지 않아서", "디스크 4.5 GiB"),
}


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "ko")])
def test_a_search_that_ran_out_for_want_of_the_eating_table_says_how_to_build_it(
    browser: Browser,  # noqa: F811
    server: str,  # noqa: F811
    contexts: list[BrowserContext],
    size: str,
    lang: str,
) -> None:
    url = analysis_url(server, game="special-cake", options="variant=poisoned", spn=FULL_POISONED_SPN)
    page, errors = open_page(browser, contexts, url, size, LANGUAGES[lang])
    why = page.locator("#engine-why")
    why.wait_for(timeout=90_000)  # the server's default time cap (15 s) runs out first
    text = why.inner_text()
    for words in (*TABLE_NOTE[lang], "spheria tablebase build --variant poisoned"):
        assert words in text, text
    verdict = page.locator("#engine-verdict .verdict-line").bounding_box()
    listed = page.locator("#engine-moves").bounding_box()
    box = why.bounding_box()
    assert verdict and listed and box and verdict["y"] < box["y"] < listed["y"]  # under the verdict, above the moves
    assert page.locator("#engine-moves li[data-value='']").count() > 0  # moves left unproved, as it says
    if lang == "ko":
        from tests.web.e2e.test_korean import assert_korean  # here: test_korean imports this module

        # the command's words are typed as they are in every language
        assert_korean(page, names=("server.options.variant", "server.options.variant.poisoned"))
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"analysis-table-note-{lang}-{size}", full_page=True)
    assert errors == []
