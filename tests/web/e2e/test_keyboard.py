"""End-to-end: whole games played with the keyboard alone (no click, no tap), as a person who
cannot use a mouse or see the board plays them: by arrow keys and Enter on the sites of the
level maps, or by typing moves into the move box in the terminal's notation. What a screen
reader is given is checked in the browser's accessibility tree (``aria_snapshot``): each site
is a button named by what it holds and its state, and a polite log tells the opponent's move
and the result. A move typed wrong is refused with the rules' own precise words, the text kept.
English and Korean, on a phone (390×844) and on the desktop; screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocket

from spheria.i18n import using
from spheria.kernel.game import IllegalMoveError, InvalidMoveError
from spheria.kernel.registry import load_game
from spheria.server.views import words
from tests.web.e2e.test_browser import SIZES, browser, create_from_lobby, screenshot, server, wait_turn, watched_page
from tests.web.e2e.test_korean import assert_korean

__all__ = ["browser", "server"]  # the fixtures, shared with the other browser tests

CATALOGUES = Path(__file__).resolve().parents[3] / "src" / "spheria" / "web" / "i18n"
SITE = re.compile(r"([0-3])([a-d])([1-4])")
LEVEL_SIZES = (4, 3, 2, 1)
LEVEL_OFFSETS = (0, 16, 25, 29)
SITES = [
    f"{level}{'abcd'[col]}{row + 1}" for level, n in enumerate(LEVEL_SIZES) for row in range(n) for col in range(n)
]
#: The most keys one step may take (a Tab round of the page, a walk across the board).
MOST_KEYS = 90


def catalogue(lang: str) -> dict[str, Any]:
    english: dict[str, Any] = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))
    return {**english, **json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))}


def text(lang: str, key: str, **params: object) -> str:
    """The catalogue's text ``key`` in ``lang`` with its parameters filled in (as the page does)."""
    entry = catalogue(lang)[key]
    assert isinstance(entry, str), key
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), entry)


class Frames:
    """The state frames this page's socket received (read, never sent): the test knows the legal
    moves as the page does, and what the page must say about them."""

    def __init__(self, page: Page) -> None:
        self.by_version: dict[str, dict[str, Any]] = {}
        page.on("websocket", self.watch)

    def watch(self, socket: WebSocket) -> None:
        socket.on("framereceived", self.heard)

    def heard(self, payload: str | bytes) -> None:
        data = json.loads(payload)
        if data.get("type") == "state":
            self.by_version[f"{data['version']}{'c' if data.get('your_choice') else ''}"] = data

    def shown(self, page: Page) -> dict[str, Any]:
        """The frame the page shows now."""
        for _ in range(100):
            version = str(page.evaluate("document.body.dataset.version"))
            if version in self.by_version:
                return self.by_version[version]
            page.wait_for_timeout(50)
        raise AssertionError(f"no state frame for version {version}")


def ball_names(game: str, options: dict[str, str], lang: str) -> dict[str, str]:
    """What the game calls each ball (the one seat playing that colour, else the colour), in ``lang``."""
    sent = words_in(lang)
    info = load_game(game, **options).info()
    names = {}
    for code in "wbr":
        owners = [seat.name for seat in info.seats if seat.color == code]
        names[code] = sent["names"][owners[0]].lower() if len(owners) == 1 else sent["colors"][code]
    return names


def words_in(lang: str) -> dict[str, Any]:
    with using(lang):
        return words()


def pinned(board: list[str], site: str) -> bool:
    """Whether the ball on ``site`` holds up two or more balls (the system's own definition)."""
    level, col, row = int(site[0]), "abcd".index(site[1]), int(site[2]) - 1
    if board[SITES.index(site)] == "." or level == 3:
        return False
    n = LEVEL_SIZES[level + 1]
    resting = [
        LEVEL_OFFSETS[level + 1] + r * n + c
        for r in (row - 1, row)
        for c in (col - 1, col)
        if 0 <= r < n and 0 <= c < n
    ]
    return sum(board[i] != "." for i in resting) >= 2


def expected_site_names(frame: dict[str, Any], names: dict[str, str], lang: str, mine: bool) -> dict[str, str]:
    """Each site's name as the page must give it for ``frame`` (nothing picked yet)."""
    board = [c for c in frame["board"] if c != "/"]
    targets = {click for click in (frame["clicks"].get("next") or {}) if SITE.fullmatch(click)} if mine else set()
    last = set(SITE.findall(frame["last_move"] or ""))
    last_sites = {"".join(parts) for parts in last}
    locked = set((frame["observation"] or {}).get("locked") or [])
    out = {}
    for i, site in enumerate(SITES):
        holds = text(lang, "site.empty") if board[i] == "." else names[board[i]]
        states = [
            text(lang, "site.pinned") if pinned(board, site) else None,
            text(lang, "site.locked") if site in locked else None,
            text(lang, "site.playable") if site in targets else None,
            text(lang, "site.last_move") if site in last_sites else None,
        ]
        out[site] = text(lang, "list.comma").join([site, holds, *[s for s in states if s]])
    return out


def site_names_shown(page: Page) -> dict[str, str]:
    """The sites' names in the accessibility tree of the level maps (``button "0a1, …"``)."""
    tree = page.locator("#board svg.levels").aria_snapshot()
    names = re.findall(r'- button "([^"]*)"', tree)
    assert len(names) == 30, tree
    return {name.split(text("en", "list.comma"))[0]: name for name in names}


def announced(page: Page) -> list[str]:
    """What the live log holds, read from the accessibility tree (``- log:`` then its paragraphs)."""
    tree = page.locator("#announce").aria_snapshot()
    assert tree.startswith("- log"), tree
    return [line.split(": ", 1)[1].strip('"') for line in tree.splitlines()[1:] if "paragraph" in line]


def focused(page: Page) -> str:
    """What has the keyboard's focus: a site's name, or an element's id."""
    return str(page.evaluate("(e => e.dataset.site || e.id || e.tagName)(document.activeElement)"))


def tab_to(page: Page, selector: str) -> None:
    """Press Tab until the focus is on ``selector`` (the way a keyboard reaches a control)."""
    for _ in range(MOST_KEYS):
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector} (the focus is on {focused(page)})")


def key_towards(here: str, there: str) -> str:
    """The key that brings the focus one step from site ``here`` towards site ``there``."""
    (level, col, row), (to_level, to_col, to_row) = ((int(s[0]), "abcd".index(s[1]), int(s[2])) for s in (here, there))
    if level != to_level:
        return "PageUp" if to_level > level else "PageDown"
    if col != to_col:
        return "ArrowRight" if to_col > col else "ArrowLeft"
    return "ArrowUp" if to_row > row else "ArrowDown"


def walk_to(page: Page, site: str) -> None:
    """Bring the focus to ``site`` by the keys of the level maps alone."""
    if not page.evaluate("document.activeElement.matches('#board .strip-site')"):
        tab_to(page, "#board .strip-site")
    for _ in range(MOST_KEYS):
        here = focused(page)
        if here == site:
            return
        page.keyboard.press(key_towards(here, site))
    raise AssertionError(f"the keys never reached {site}")


def sent(page: Page, version: str) -> bool:
    return bool(
        page.evaluate(
            """(v) => document.body.dataset.sending === '1' || document.body.dataset.version !== v
                    || !!document.querySelector('#result:not([hidden])')""",
            version,
        )
    )


def play_by_arrows(page: Page, frame: dict[str, Any], move: str) -> None:
    """Play ``move`` by keys: a colour's button reached by Tab, or each site walked to and Entered."""
    version = str(page.evaluate("document.body.dataset.version"))
    if frame["code"]["code"] == "choose":
        tab_to(page, f"#words button.choice[data-word='{move}']")
        page.keyboard.press("Enter")
    else:
        for site in SITE.findall(move):
            walk_to(page, "".join(site))
            page.keyboard.press("Enter")
        if not sent(page, version):  # a move more candies could extend is played by its button
            tab_to(page, "#btn-play")
            page.keyboard.press("Enter")
    page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version)


def play_by_typing(page: Page, move: str) -> None:
    """Play ``move`` by typing it into the move box and pressing Enter."""
    version = str(page.evaluate("document.body.dataset.version"))
    tab_to(page, "#move-input")
    page.keyboard.type(move)
    page.keyboard.press("Enter")
    page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version)
    assert page.input_value("#move-input") == ""  # a move played leaves the box empty


def refusal(game: str, options: dict[str, str], lang: str, typed: str) -> str:
    """The rules' own words for ``typed`` at the start of the game, as the move box shows them."""
    with using(lang):
        state = load_game(game, **options).new_initial_state()
        try:
            state.parse_move(typed, 0)
        except (InvalidMoveError, IllegalMoveError) as error:
            message = str(error)
        else:
            raise AssertionError(f"{typed} is legal")
    message = message[0].upper() + message[1:]
    return message if message.endswith(".") else message + "."


def check_typing_errors(
    page: Page, game: str, options: dict[str, str], lang: str, bad: tuple[str, ...], shot: str
) -> None:
    """Each bad move typed is refused beside the box in the rules' words, the text kept, the state
    unchanged (``shot``: the screenshot of the last refusal)."""
    version = str(page.evaluate("document.body.dataset.version"))
    tab_to(page, "#move-input")
    for typed in bad:
        page.keyboard.press("Control+A")
        page.keyboard.press("Backspace")
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        expected = refusal(game, options, lang, typed)
        page.wait_for_function("(t) => document.getElementById('move-error').textContent === t", arg=expected)
        assert page.input_value("#move-input") == typed
        assert page.get_attribute("#move-input", "aria-invalid") == "true"
        assert page.locator("#move-box").aria_snapshot().count(expected) == 1  # read out as an alert
        assert page.inner_text("#message") == ""  # said once, beside the box
        assert page.evaluate("document.body.dataset.version") == version
    screenshot(page, shot)
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")


KEYBOARD_GAMES = [
    # game, options, how the moves are made, language, screen, bad moves typed at the start
    ("spline", {}, "arrows", "en", "desktop", ()),
    ("special-cake", {"variant": "mint"}, "arrows", "ko", "desktop", ()),
    ("spagyric", {}, "arrows", "en", "phone", ()),
    ("spline", {}, "typing", "ko", "phone", ("zz", "1a1")),
    ("special-cake", {"variant": "mint"}, "typing", "en", "phone", ("0e9", "0a1+0b1", "3a1")),
    ("spagyric", {}, "typing", "ko", "desktop", ("q", "0a1")),
    ("special-cake", {"variant": "mint"}, "typing", "ko", "desktop", ("zz", "3a1")),
]


@pytest.mark.parametrize(
    ("game", "options", "how", "lang", "size", "bad"),
    KEYBOARD_GAMES,
    ids=[f"{g[0]}-{g[2]}-{g[3]}-{g[4]}" for g in KEYBOARD_GAMES],
)
def test_a_whole_game_by_keyboard_alone(
    browser: Browser,
    server: str,
    game: str,
    options: dict[str, str],
    how: str,
    lang: str,
    size: str,
    bad: tuple[str, ...],
) -> None:
    page, errors = watched_page(browser, locale="ko-KR" if lang == "ko" else "en-US", **SIZES[size])  # type: ignore[arg-type]
    invites = create_from_lobby(page, server, game, options)  # this browser holds the seat now
    frames = Frames(page)
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    names = ball_names(game, options, lang)
    seat_names = words_in(lang)["names"]
    opponent = seat_names[load_game(game, **options).info().seats[1].name]
    name = f"keyboard-{game}-{how}-{lang}-{size}"
    if bad:
        assert wait_turn(page)
        check_typing_errors(page, game, options, lang, bad, name + "-refused")
    rng = random.Random(name)
    turns, reveals = 0, 0
    heard: list[str] = []
    while wait_turn(page):
        frame = frames.shown(page)
        # Every site is named by what it holds and its state, in the page's language.
        assert site_names_shown(page) == expected_site_names(frame, names, lang, mine=True)
        log = announced(page)
        if turns and game != "spagyric":  # the opponent's move, told politely
            assert log[-1] == text(lang, "announce.played", name=opponent, move=frame["last_move"]), log
        elif turns:  # a reveal, or the placement that followed it
            assert log and log != heard, log
            reveals += log[-1].startswith(text(lang, "announce.reveal", choices="", verdict="").split(" ")[0])
        heard = log
        move = rng.choice(frame["legal_moves"])
        if how == "arrows":
            play_by_arrows(page, frame, move)
        else:
            play_by_typing(page, move)
        turns += 1
        if turns == 3:
            page.wait_for_timeout(300)
            screenshot(page, name)
    page.wait_for_selector("#result .result-title")
    result = page.inner_text("#result .result-text")
    title = page.inner_text("#result .result-title")
    page.wait_for_function("() => document.querySelector('#announce p:last-child') !== null")
    assert announced(page)[-1].endswith(text(lang, "announce.result", title=title, result=result)), announced(page)
    assert turns >= 3  # the shortest game: a group of three or a line of four after three reveals or moves
    if game == "spagyric":
        assert reveals, "no reveal was told"
    screenshot(page, name + "-end", full_page=True)
    if lang == "ko":
        assert_korean(page)
    assert errors == []
    page.context.close()


def test_the_analysis_boards_keys_stay_its_own_unless_the_board_has_the_focus(browser: Browser, server: str) -> None:
    """The analysis board's arrow keys walk its tree; on a site reached by keys they walk the board
    instead (and Enter plays there, as a click does). A click never takes the keyboard's focus."""
    page, errors = watched_page(browser, **SIZES["desktop"])  # type: ignore[arg-type]
    page.goto(f"{server}/analysis?game=spline&engine=off")
    node = "(n) => document.body.dataset.ready === '1' && document.body.dataset.node === n"
    page.wait_for_function(node, arg="0")
    page.click("#board svg.levels .strip-site[data-site='0a1']")
    page.wait_for_function(node, arg="1")
    assert not page.evaluate("document.activeElement.matches('#board .strip-site')")
    page.keyboard.press("ArrowLeft")  # the page's key: back to the start
    page.wait_for_function(node, arg="0")
    walk_to(page, "0b1")
    page.keyboard.press("Enter")  # a variation from the start, by keys
    page.wait_for_function(node, arg="2")
    assert site_names_shown(page)["0b1"] == "0b1, white, last move"
    page.keyboard.press("ArrowLeft")  # the board's key: to the next site, the tree stays
    assert focused(page) == "0a1"
    assert site_names_shown(page)["0a1"] == "0a1, empty, playable"
    page.wait_for_timeout(200)
    assert page.evaluate("document.body.dataset.node") == "2"
    assert errors == []
    page.context.close()


def test_a_switch_of_language_words_the_sites_and_the_log_again(browser: Browser, server: str) -> None:
    """Switched by keys in the middle of a game, the sites' names, the log's entries and the move
    box are worded in the new language at once (the socket, the game and the seat stay)."""
    page, errors = watched_page(browser, locale="en-US", **SIZES["desktop"])  # type: ignore[arg-type]
    invites = create_from_lobby(page, server, "spline", {})  # this browser holds the seat now
    frames = Frames(page)
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    rng = random.Random("switch")
    for _ in range(2):
        assert wait_turn(page)
        play_by_typing(page, rng.choice(frames.shown(page)["legal_moves"]))
    assert wait_turn(page)
    frame = frames.shown(page)
    english = announced(page)
    assert english[-1] == text("en", "announce.played", name="Black", move=frame["last_move"])
    tab_to(page, ".lang-switch button[data-lang='ko']")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.documentElement.lang === 'ko'")
    names = ball_names("spline", {}, "ko")
    assert site_names_shown(page) == expected_site_names(frame, names, "ko", mine=True)
    korean = announced(page)
    assert len(korean) == len(english)
    assert korean[-1] == text("ko", "announce.played", name=words_in("ko")["names"]["Black"], move=frame["last_move"])
    assert page.inner_text("#move-box label") == text("ko", "movebox.label")
    assert_korean(page)
    assert errors == []
    page.context.close()
