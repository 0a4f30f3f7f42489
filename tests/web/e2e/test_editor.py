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
import re
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
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
from tests.web.e2e.test_korean import assert_korean, server_words

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
    assert "Ball on 1a1 floats" in verdict(page)
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


# -- the link, the words, playing the position shown (issue 36, items 5 to 7) ---------------------

CATALOGUES = Path(__file__).resolve().parents[3] / "src" / "spheria" / "web" / "i18n"
LOCALES = {"en": "en-US", "ko": "ko-KR"}


def catalogue(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(params=[("phone", "en"), ("desktop", "en"), ("phone", "ko"), ("desktop", "ko")], ids="-".join)
def speaking(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[str, str, Page]]:  # noqa: F811
    """A page on a phone (390x844, touch) or a desktop, whose browser speaks English or Korean."""
    size, lang = request.param
    page, errors = watched_page(browser, locale=LOCALES[lang], **(PHONE if size == "phone" else DESKTOP))
    yield size, lang, page
    page.context.close()
    assert errors == [], errors


def enter(page: Page, selector: str, text: str) -> None:
    """Type ``text`` into a field and leave it, as a person does (its change is sent then)."""
    page.fill(selector, text)
    page.evaluate("document.activeElement.blur()")


def linked(page: Page) -> dict[str, str]:
    """What the page's own link says: game, options and SPN."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    return {key: values[0] for key, values in query.items()}


def test_the_link_keeps_the_position_through_a_reload_and_back_from_the_analysis(
    speaking: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    size, lang, page = speaking
    page.goto(f"{server}/editor?game=special-cake")
    page.wait_for_selector("#verdict .verdict-title")
    settled(page)
    press(page, '.tool[data-tool="w"]')
    tap_site(page, "0a1")
    settled(page)
    page.select_option("#field-1", "2")  # Liquorice to place: a possible position again
    edited = "w.............../........./..../. 2 place"
    assert settled(page) == edited
    assert linked(page) == {"game": "special-cake", "options": "variant=mint,line_rule=mixed", "spn": edited}
    page.reload()
    page.wait_for_selector("#verdict .verdict-title")
    assert settled(page) == edited and page.input_value("#field-1") == "2"
    press(page, "#analyse")
    page.wait_for_url("**/analysis?**")
    page.wait_for_selector("body[data-ready='1']")
    page.go_back()
    page.wait_for_selector("#verdict .verdict-title")
    assert settled(page) == edited and page.input_value("#game") == "special-cake"
    # An impossible position is kept too (the work is not lost while it is being fixed), and so is
    # another game's, with its options.
    page.select_option("#game", "spagyric")
    page.wait_for_function("() => (document.body.dataset.checked || '').includes('reveal')")
    enter(page, "#opt-supply", "5")
    page.wait_for_function("() => (document.body.dataset.checked || '').endsWith('5,5,5 5,5,5 0,0,0 0,0,0 0,0,0')")
    enter(page, "#field-3-w", "4")
    page.wait_for_function("() => document.body.dataset.valid === '0'")
    impossible = "................/........./..../. reveal - 4,5,5 5,5,5 0,0,0 0,0,0 0,0,0"
    assert linked(page) == {"game": "spagyric", "options": "supply=5,memory=true", "spn": impossible}
    page.reload()
    page.wait_for_selector("#verdict .verdict-title")
    page.wait_for_function("() => document.body.dataset.valid === '0'")
    assert page.input_value("#field-3-w") == "4" and page.input_value("#opt-supply") == "5"
    assert page.input_value("#spn") == impossible
    screenshot(page, f"editor-link-kept-{size}-{lang}", full_page=True)


def first_frame(page: Page) -> dict[str, Any]:
    """The first state the game page was sent (its websocket's first ``state`` frame)."""
    page.wait_for_function("() => window.__frames && window.__frames.some(f => f.type === 'state')")
    frames: list[dict[str, Any]] = page.evaluate("window.__frames")
    return next(frame for frame in frames if frame["type"] == "state")


def catch_frames(page: Page) -> None:
    """Keep every frame the pages' websockets are sent, in ``window.__frames`` (the game page's too)."""
    page.context.add_init_script(
        """(() => {
          window.__frames = [];
          const Native = window.WebSocket;
          window.WebSocket = class extends Native {
            constructor(...args) {
              super(...args);
              this.addEventListener('message', (e) => { try { window.__frames.push(JSON.parse(e.data)); } catch {} });
            }
          };
        })()"""
    )


@pytest.mark.parametrize("game", ["spagyric", "special-cake"])
def test_play_from_here_plays_the_position_shown_even_an_edit_just_made(
    speaking: tuple[str, str, Page],
    server: str,  # noqa: F811
    game: str,
) -> None:
    size, lang, page = speaking
    catch_frames(page)
    if game == "spagyric":
        # Player 1's white beat Player 2's black: the white is on the pyramid, the black in Player
        # 2's bag; every field typed in its own number input.
        open_editor(page, server, game, {})
        press(page, '.tool[data-tool="w"]')
        tap_site(page, "0a1")
        for field, count in (("#field-3-w", "7"), ("#field-4-b", "7"), ("#field-7-b", "1")):
            settled(page)
            enter(page, field, count)
        shown = "w.............../........./..../. reveal - 7,8,8 8,7,8 0,0,0 0,0,0 0,1,0"
        page.wait_for_function("(spn) => document.body.dataset.checked === spn", arg=shown)
        assert page.evaluate("document.body.dataset.valid") == "1"
    else:
        # Liquorice to eat instead of Mint, and Play pressed at once, before the server has seen it.
        open_editor(page, server, game, {}, "wbwb...........b/........./..../. 1 eat")
        page.select_option("#my-seat", "1")  # the person eats first: no agent moves before the first frame
        page.select_option("#field-1", "2")
        shown = "wbwb...........b/........./..../. 2 eat"
    with page.expect_request("**/api/games") as sent:
        press(page, "#btn-play")
    assert json.loads(str(sent.value.post_data))["start"] == shown
    page.wait_for_url("**/game/**")
    frame = first_frame(page)
    assert frame["board"] == shown.split()[0]
    if game == "spagyric":
        assert frame["observation"]["supply"] == {"w": 7, "b": 8, "r": 8}  # Player 1's own, as edited
        assert frame["simultaneous"] is True
    else:
        assert frame["to_move"] == 1 and frame["code"]["phase"] == "eat"  # Liquorice eats, as edited
    page.wait_for_selector("#players li.player")
    screenshot(page, f"editor-played-{game}-{size}-{lang}")


def test_the_fields_are_words_in_the_page_language_and_the_game_speaks_its_own(
    speaking: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    size, lang, page = speaking
    words = catalogue(lang)
    game_words = server_words(lang)  # each game's own words, from the game (GET /api/words)
    open_editor(page, server, "spagyric", {})
    phase = page.locator("#field-1 option")
    assert phase.all_inner_texts() == [
        words["editor.value.over"],
        words["editor.value.place"],
        words["editor.value.reveal"],
    ]
    placers = page.locator("#field-2 option").all_inner_texts()
    assert placers[0] == words["editor.value.none"] and len(placers) == 9
    assert not [text for text in placers if re.fullmatch(r"-|\d[wbr]?", text.strip())]  # no notation
    seat = "Player 1" if lang == "en" else "플레이어 1"
    white = "white" if lang == "en" else "흰색"
    assert words["editor.value.placer"].format(name=seat, color=white) in placers
    for field in range(3, 8):  # supplies, stunned pairs, bags: a number per colour, each named
        for color in "wbr":
            count = page.locator(f"#field-{field}-{color}")
            assert count.get_attribute("type") == "number" and count.is_visible()
    labels = page.locator("#fields .form-row > label, #fields .field-label").all_inner_texts()
    assert labels == game_words["fields"]["spagyric"] and len(labels) == 7
    assert "Spagyric" not in page.input_value("#spn")  # the SPN is still there to read and edit
    assert page.input_value("#spn").endswith("reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0")
    if lang == "ko":
        assert_korean(page)
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"editor-spagyric-fields-{size}-{lang}", full_page=True)
    # Special Cake speaks of candies: its phases and the player to move.
    open_editor(page, server, "special-cake", {})
    assert page.locator("#field-2 option").all_inner_texts() == [
        game_words["phases"]["special-cake"]["eat"],
        game_words["phases"]["special-cake"]["place"],
    ]
    mint = "Mint" if lang == "en" else "민트"
    assert game_words["turns"]["special-cake"]["place"].format(name=mint) in verdict(page)
    assert ("candy" in verdict(page)) if lang == "en" else ("사탕" in verdict(page))
    if lang == "ko":
        assert_korean(page)
    # What the rules say begins with a capital, like every sentence the page shows (the rules
    # write their reasons in lower case, to be put in a sentence).
    press(page, '.tool[data-tool="w"]')
    tap_site(page, "0a1")
    tap_site(page, "1a1")  # floats
    settled(page)
    detail = page.inner_text("#reason-detail")
    assert not detail[0].islower() and (lang == "ko" or detail.startswith("Ball on 1a1 floats")), detail
    page.fill("#spn", "................/........./..../. 3 place")
    press(page, "#btn-import")
    page.wait_for_function(
        "() => document.body.dataset.valid === '0' && document.body.dataset.checked.endsWith(' 3 place')"
    )
    detail = page.inner_text("#reason-detail")
    assert not detail[0].islower() and (lang == "ko" or detail.startswith("Player to move must be 1 or 2")), detail
    screenshot(page, f"editor-cake-words-{size}-{lang}", full_page=True)


def test_the_analysis_board_opens_the_editor_on_the_position_it_shows(
    speaking: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    size, lang, page = speaking
    page.goto(f"{server}/analysis?game=spline&engine=off")
    page.wait_for_function("() => document.body.dataset.ready === '1' && document.body.dataset.node === '0'")
    for n, name in enumerate(("0a1", "0b1"), start=1):
        press(page, f"#board svg.levels .strip-site[data-site='{name}']")
        page.wait_for_function(f"() => document.body.dataset.ready === '1' && document.body.dataset.node === '{n}'")
    state = spheria.load_game("spline").new_initial_state()
    for move in ("0a1", "0b1"):
        state.apply(state.parse_move(move))
    link = page.locator("#edit-position")
    assert link.inner_text() == catalogue(lang)["analysis.edit"]
    screenshot(page, f"analysis-edit-link-{size}-{lang}", full_page=True)
    press(page, "#edit-position")
    page.wait_for_url("**/editor?**")
    page.wait_for_selector("#verdict .verdict-title")
    assert settled(page) == state.to_spn() and page.input_value("#game") == "spline"
    assert page.evaluate("document.body.dataset.valid") == "1"


def test_the_preview_label_fits_the_board(
    speaking: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    """The label over a previewed move (drawn by the board the game page, the analysis board and
    this page share) is within the view, in either language, on a phone too."""
    size, lang, page = speaking
    open_editor(page, server, "special-cake", {})
    boxes = page.evaluate(
        """async () => {
          const { PyramidView } = await import('/static/js/board.js');
          const view = new PyramidView(document.getElementById('board'), { onClick: () => {}, onHover: () => {} });
          view.render({ board: 'wbwbbwbwwbwbbwbw/........./..../.', preview: 'wbwbbwbwwbwbbw.w/........./..../.',
                        targets: new Set(), locked: new Set() });
          const label = document.querySelector('#board .preview-label');
          const [x, , width] = label.ownerSVGElement.getAttribute('viewBox').split(' ').map(Number);
          const box = label.getBBox();
          return { text: label.textContent, left: box.x, right: box.x + box.width, x, width };
        }"""
    )
    assert boxes["text"] == catalogue(lang)["board.preview"]
    assert boxes["x"] <= boxes["left"] and boxes["right"] <= boxes["x"] + boxes["width"], boxes
    screenshot(page, f"board-preview-label-{size}-{lang}")
