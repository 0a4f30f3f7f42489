"""End-to-end in Korean: a browser whose language is Korean (``locale="ko-KR"``) plays whole games
on the desktop and on a phone by touch, reads the How to play, and replays the game, and no
English sentence of the catalogue is on the page; switching language in the middle of a game
keeps the socket, the game and the seat. Screenshots (Korean, phone and desktop) go to
``test-artifacts/``.
"""

from __future__ import annotations

import json
import os
import random
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from spheria.i18n import using
from spheria.server.views import words
from tests.web.e2e.test_analysis import finished_game, known_position
from tests.web.e2e.test_browser import (
    SIZES,
    assert_fits,
    browser,
    choose_game,
    create_from_lobby,
    free_port,
    play_to_the_end,
    play_turn,
    screenshot,
    start_server,
    stop_server,
    wait_turn,
    watched_page,
)

__all__ = ["browser"]  # the fixture, shared with the English browser tests

CATALOGUES = Path(__file__).resolve().parents[3] / "src" / "spheria" / "web" / "i18n"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: Texts the same in every language (a separator, a title pattern).
SAME_IN_EVERY_LANGUAGE = {"page.game", "list.comma"}


def server_words(lang: str) -> dict[str, Any]:
    """The server's words for the pages in ``lang`` (``GET /api/words``): titles, names, colours, levels
    and each game's own words (options, agents, methods, position fields, phases, turns)."""
    with using(lang):
        return words()


def english_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Each English text of the catalogue and of the server's words (a word or more of letters)
    as a pattern, placeholders as wildcards."""
    english: dict[str, Any] = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))
    sent = server_words("en")
    english.update((f"server.games.{key}", text) for key, text in sent["games"].items())
    english.update((f"server.names.{text}", text) for text in sent["names"])
    for group in ("colors", "levels", "agents", "methods"):
        english.update((f"server.{group}.{key}", text) for key, text in sent[group].items())
    for option, worded in sent["options"].items():
        english[f"server.options.{option}"] = worded["label"]
        english.update((f"server.options.{option}.{choice}", text) for choice, text in worded["choices"].items())
    for game, fields in sent["fields"].items():
        english.update((f"server.fields.{game}.{number}", text) for number, text in enumerate(fields, 1))
    for group in ("phases", "turns"):
        for game, worded in sent[group].items():
            english.update((f"server.{group}.{game}.{key}", text) for key, text in worded.items())
    patterns = []
    for key, entry in english.items():
        if key in SAME_IN_EVERY_LANGUAGE:
            continue
        for form in entry.values() if isinstance(entry, dict) else [entry]:
            literal = re.sub(r"\{\w+\}", " ", form)
            if not re.search(r"[A-Za-z]{3,}", literal):
                continue  # "S", "{count} {color}": nothing English to find
            parts = re.split(r"\{\w+\}", form)
            body = ".{1,80}?".join(re.escape(part.strip()) for part in parts if part.strip())
            patterns.append((key, re.compile(rf"(?<![A-Za-z]){body}(?![A-Za-z])")))
    return patterns


ENGLISH = english_patterns()


def english_on(page: Page) -> list[tuple[str, str]]:
    """The catalogue's English texts the page shows: in its visible text, and in the titles,
    labels and placeholders of what it shows. An option's help (under its input, the server's
    words) names the option's values as they are typed, so those are not counted there."""
    shown, helps = page.evaluate(
        """() => {
          const attributes = (nodes) => nodes.filter(n => !n.closest('[hidden]'))
            .flatMap(n => ['title', 'aria-label', 'placeholder'].map(a => n.getAttribute(a) || ''));
          const all = [...document.querySelectorAll('[title], [aria-label], [placeholder]')];
          const helps = [...document.querySelectorAll('.option-help')].map(n => n.innerText);
          const body = helps.reduce((text, help) => text.replace(help, ''), document.body.innerText);
          return [[body, document.title, ...attributes(all)].join('\\n'), helps.join('\\n')];
        }"""
    )
    typed = option_values_as_typed()
    found = [(key, match.group(0)) for key, pattern in ENGLISH for match in [pattern.search(shown)] if match]
    found += [
        (key, match.group(0))
        for key, pattern in ENGLISH
        if key not in typed
        for match in [pattern.search(helps)]
        if match and (key, match.group(0)) not in found
    ]
    return found


def option_values_as_typed() -> set[str]:
    """The keys of the option values whose English word is the value itself (``server.options.variant.mint``:
    "mint", ``value.true``: "true"): the server's help of an option names its values as they are typed, in
    every language."""
    english = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))
    typed = {key for key, text in english.items() if key.startswith("value.") and key.split(".")[-1] == text}
    for option, worded in server_words("en")["options"].items():
        typed |= {f"server.options.{option}.{choice}" for choice, text in worded["choices"].items() if choice == text}
    return typed


def assert_korean(page: Page, names: tuple[str, ...] = ()) -> None:
    """The page is Korean; ``names`` are catalogue keys whose English is also a name the page may
    show as it is (an option's name in the server's words, ``옵션 'supply'``: names never change)."""
    text = page.inner_text("body")
    assert len(HANGUL.findall(text)) > 20, text[:500]
    assert page.evaluate("document.documentElement.lang") == "ko"
    assert [(key, shown) for key, shown in english_on(page) if key not in names] == []


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server on ``SPHERIA_E2E_PORT`` (a port of one's own), else on a free one."""
    port = int(os.environ.get("SPHERIA_E2E_PORT", "0")) or free_port()
    db = tmp_path_factory.mktemp("e2e-ko") / "games.sqlite3"
    with (tmp_path_factory.getbasetemp() / "server-ko.log").open("w") as log:
        process = start_server(port, db, log)
        yield f"http://127.0.0.1:{port}"
        stop_server(process)


def korean_page(browser: Browser, size: str, locale: str = "ko-KR") -> tuple[Page, list[str]]:
    return watched_page(browser, locale=locale, **SIZES[size])  # type: ignore[arg-type]


def open_how_to_play(page: Page) -> None:
    page.wait_for_selector("#howto:not([hidden]) .howto-body p", state="attached")
    page.locator("#howto summary").click()


KOREAN_GAMES = [
    ("special-cake", {"variant": "mint"}, "special-cake-mint", "desktop"),
    ("special-cake", {"variant": "mint"}, "special-cake-mint", "phone"),
    ("spagyric", {}, "spagyric", "phone"),
    ("spinca", {"players": "4"}, "spinca-4", "desktop"),
    ("special-cake", {"variant": "poisoned"}, "special-cake-poisoned", "desktop"),
    ("special-cake", {"variant": "sugar"}, "special-cake-sugar", "phone"),
    ("spinca", {"players": "3"}, "spinca-3", "phone"),
    ("spline", {}, "spline", "phone"),
]


@pytest.mark.parametrize(
    ("game", "options", "name", "size"), KOREAN_GAMES, ids=[f"{g[2]}-{g[3]}" for g in KOREAN_GAMES]
)
def test_a_whole_game_in_korean(
    browser: Browser, server: str, game: str, options: dict[str, str], name: str, size: str
) -> None:
    page, errors = korean_page(browser, size)

    def korean_lobby(lobby: Page) -> None:
        assert_korean(lobby)
        screenshot(lobby, f"ko-lobby-{size}", full_page=True)

    invites = create_from_lobby(page, server, game, options, before_create=korean_lobby)
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    assert page.inner_text("#role").startswith("내 자리: ")
    rng = random.Random(name + size)
    for _ in range(3):  # a few moves, then the page is all Korean
        if wait_turn(page):
            play_turn(page, rng, relocate=True)
    assert_korean(page)
    if size == "phone":
        assert_fits(page)
    result = play_to_the_end(page, rng, f"ko-{name}-{size}", shot_after=2, fits=size == "phone")
    assert result.endswith(" 승리") or result == "무승부"
    assert page.inner_text("#result .result-title") in ("이겼습니다!", "졌습니다", "게임 종료")
    assert_korean(page)
    open_how_to_play(page)
    assert len(HANGUL.findall(page.inner_text("#howto"))) > 200, "How to play is not in Korean"
    screenshot(page, f"ko-{name}-{size}-howto", full_page=True)
    page.locator("#result a[href^='/replay/']").click()
    page.wait_for_selector("#history li")
    total = page.locator("#history li").count()
    assert page.inner_text("#step") == f"{total}수 중 0수"
    page.click("#last")
    assert page.inner_text("#step") == f"{total}수 중 {total}수"
    assert_korean(page)
    screenshot(page, f"ko-replay-{name}-{size}")
    assert errors == []
    page.context.close()


def test_switching_language_mid_game_keeps_the_game_and_the_seat(browser: Browser, server: str) -> None:
    page, errors = korean_page(browser, "desktop", locale="en-US")
    invites = create_from_lobby(page, server, "special-cake", {"variant": "mint"})
    sockets: list[str] = []  # from the seat's page on (the lobby's landing on the seat is over)
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(server + invites[0])
    page.wait_for_selector("#players li.player")
    assert page.inner_text("#role") == "You play Mint"
    rng = random.Random("switch")
    for _ in range(4):
        assert wait_turn(page)
        play_turn(page, rng)
    assert wait_turn(page)
    version = page.evaluate("document.body.dataset.version")
    moves = page.inner_text("#history")
    assert {"turn.mine", "button.play"} <= {key for key, _ in english_on(page)}  # the check sees English
    page.click(".lang-switch button[data-lang='ko']")
    page.wait_for_function("() => document.documentElement.lang === 'ko'")
    assert page.inner_text("#role") == "내 자리: 민트"
    assert page.inner_text("#turn").startswith("내 차례")
    assert page.evaluate("document.body.dataset.version") == version and page.inner_text("#history") == moves
    assert len(sockets) == 1, "the switch opened another socket"
    assert_korean(page)
    screenshot(page, "ko-switched-mid-game-desktop")
    play_turn(page, rng)  # the same seat plays on, in Korean
    assert page.inner_text("#history") != moves
    # The choice is remembered: a reload speaks Korean and the browser still holds the seat.
    page.reload()
    page.wait_for_selector("#players li.player")
    assert page.inner_text("#role") == "내 자리: 민트"
    page.click(".lang-switch button[data-lang='en']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.inner_text("#role") == "You play Mint"
    assert page.locator(".lang-switch button[aria-pressed='true']").inner_text() == "EN"
    assert errors == []
    page.context.close()


def test_switching_language_in_the_lobby_keeps_the_form(browser: Browser, server: str) -> None:
    page, errors = korean_page(browser, "phone", locale="en-US")
    made = page.request.post(f"{server}/api/games", data={"game": "spline", "seats": [{"kind": "human"}] * 2})
    assert made.ok, made.text()
    page.goto(server + "/")
    page.wait_for_selector(f"#active-games tr[data-game='{made.json()['id']}']")  # a game listed, in English
    choose_game(page, "special-cake")
    page.select_option("#opt-variant", "poisoned")
    page.wait_for_function("() => document.querySelectorAll('select.seat-kind').length === 2")
    page.locator("select.seat-kind").nth(1).select_option("agent:greedy")
    # The lists are re-worded at once from what was fetched, not only when the server answers
    # again (on a slow line, or here never: the next fetches fail).
    page.route("**/api/games", lambda route: route.abort())
    page.locator(".lang-switch button[data-lang='ko']").tap()
    page.wait_for_function("() => document.querySelector('.seat-name').textContent === '민트'")
    assert page.input_value("#game") == "special-cake"
    assert page.input_value("#opt-variant") == "poisoned"
    assert page.locator("#opt-variant option:checked").inner_text() == "독이 든 사탕"
    assert page.locator("select.seat-kind").nth(1).input_value() == "agent:greedy"
    # How to play (its pictured boards labelled in words) is fetched again in Korean.
    page.wait_for_selector("#howto[data-shown='ko']", state="attached")
    assert_korean(page)
    assert_fits(page, board=False)
    assert [e for e in errors if "ERR_FAILED" not in e] == []  # only the fetches refused above
    page.context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_lobby_says_in_korean_which_option_or_seat_is_wrong(browser: Browser, server: str, size: str) -> None:
    page, errors = korean_page(browser, size)
    page.goto(server + "/")
    choose_game(page, "spagyric")
    page.fill("#opt-supply", "120")
    page.dispatch_event("#opt-supply", "change")
    page.wait_for_function("() => document.querySelector('#form-error').textContent !== ''")
    refusal = page.inner_text("#form-error")
    assert refusal.startswith(korean()["error.bad_game"]), refusal
    assert "옵션 'supply'은(는) 1 이상 99 이하여야 합니다" in refusal and "at most" not in refusal
    assert page.is_disabled("#create")
    assert_korean(page, names=("server.options.supply",))
    screenshot(page, f"ko-lobby-bad-option-{size}", full_page=True)
    page.fill("#opt-supply", "8")
    page.dispatch_event("#opt-supply", "change")
    page.wait_for_function("() => document.querySelector('#form-error').textContent === ''")
    # An agent's option out of its range: refused when the game is made, naming the seat and the option.
    page.locator("select.seat-kind").nth(1).select_option("agent:spagyric")
    page.locator("input.seat-agent").nth(1).fill("time=999")
    press(page, "#create")
    page.wait_for_function("() => document.querySelector('#form-error').textContent !== ''")
    refusal = page.inner_text("#form-error")
    assert refusal.startswith(korean()["error.bad_seats"]) and "2번 자리: " in refusal, refusal
    assert HANGUL.search(refusal.split("2번 자리: ", 1)[1]) and "must be" not in refusal
    assert_korean(page, names=("server.agents.spagyric",))  # the agent's name, as the spec wrote it
    if size == "phone":
        assert_fits(page, board=False)
    screenshot(page, f"ko-lobby-bad-agent-{size}", full_page=True)
    assert unexpected(errors) == []
    page.context.close()


def test_an_unknown_game_says_so_in_korean(browser: Browser, server: str) -> None:
    page, errors = korean_page(browser, "phone")
    response = page.goto(server + "/game/no-such-game")
    assert response is not None and response.status == 404  # the page, answered as not found
    page.wait_for_selector("#missing:not([hidden]) a[href='/']")
    assert page.inner_text("#missing h1") == "없는 게임" and page.title() == "없는 게임 · Spheria"
    assert_korean(page)
    screenshot(page, "ko-missing-phone")
    assert [e for e in errors if "status of 404" not in e] == []  # the browser logs the page's own 404
    page.context.close()


# -- the analysis board and the position editor, in Korean --------------------------------


EMPTY = "................/........./..../."


def unexpected(errors: list[str]) -> list[str]:
    """The errors a page logged, but the browser's note of a request the server refused (400) on purpose."""
    return [error for error in errors if "status of 400 (Bad Request)" not in error]


def korean() -> dict[str, str]:
    return dict(json.loads((CATALOGUES / "ko.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_analysis_board_gives_the_engines_verdict_in_korean(browser: Browser, server: str, size: str) -> None:
    state = known_position()  # a Special Cake (sugar) eating position that the side to move wins
    query = urllib.parse.urlencode({"game": "special-cake", "options": "variant=sugar", "spn": state.to_spn()})
    page, errors = korean_page(browser, size)
    page.goto(f"{server}/analysis?{query}")
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    assert page.get_attribute("#engine-verdict", "data-verdict") == "1"
    name = state.game.player_names()[state.current_player()]  # "Player 2" in sugar
    side = server_words("ko")["names"][name]
    assert page.inner_text("#engine-verdict .verdict-line") == f"둘 차례인 {side}: 완벽한 플레이로 승리합니다"
    assert page.inner_text("#engine-verdict .method").startswith("정확한 값: ")
    assert set(page.eval_on_selector_all("#engine-moves .em-value", "cells => cells.map(c => c.textContent)")) == {
        "승리",
        "패배",
    }
    assert page.inner_text("#title") == "스페셜 케이크" and page.title() == "분석: 스페셜 케이크 · Spheria"
    assert page.get_attribute("#last", "title") == "이 수순의 끝 (End)"
    assert_korean(page)
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"ko-analysis-{size}", full_page=True)
    # The switch re-words the verdict in place: the engine is not asked again.
    press(page, ".lang-switch button[data-lang='en']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.inner_text("#engine-verdict .verdict-line").endswith("to move wins with perfect play")
    assert page.evaluate("document.body.dataset.engine") == "done"
    assert errors == []
    page.context.close()


def test_a_finished_games_analysis_and_a_bad_link_in_korean(browser: Browser, server: str) -> None:
    page, errors = korean_page(browser, "phone")
    page.goto(f"{server}/analysis?record={finished_game(server)}")
    page.wait_for_selector("#chart svg.eval-chart")
    page.wait_for_selector("#mistakes-list li")
    assert page.get_attribute("#chart svg", "aria-label") == korean()["analysis.chart"]
    assert page.inner_text(".mistakes-title") == "승부가 갈린 곳"
    page.wait_for_function("() => document.body.dataset.engine === 'done'")
    assert_korean(page)
    width, screen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= screen, "the Korean texts widen the page"  # (the tree's moves are 36 px tap targets by design)
    screenshot(page, "ko-analysis-finished-phone", full_page=True)
    # A link that does not work says why in Korean, and the server's own words say it in Korean too.
    page.goto(f"{server}/analysis?game=chess")
    page.wait_for_selector("#problem:not([hidden])")
    assert page.inner_text("#problem h1") == "이 분석 링크는 열 수 없습니다"
    assert page.inner_text("#problem-text").startswith(korean()["error.bad_game"])
    detail = page.inner_text("#problem-text .detail")
    assert "게임 'chess'은(는) 없습니다" in detail and "no game called" not in detail
    assert_korean(page, names=("server.agents.spagyric",))  # the games' ids it lists (one is an agent's name too)
    screenshot(page, "ko-analysis-bad-link-phone")
    assert unexpected(errors) == []
    page.context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_editor_says_in_korean_why_a_position_is_impossible(browser: Browser, server: str, size: str) -> None:
    page, errors = korean_page(browser, size)
    one_candy = "w.............../........./..../. 1 place"  # Mint placed, and Mint to place again
    query = urllib.parse.urlencode({"game": "special-cake", "options": "variant=mint", "spn": one_candy})
    page.goto(f"{server}/editor?{query}")
    page.wait_for_selector("#verdict .verdict-title")
    assert page.inner_text("#verdict .verdict-title") == "불가능한 국면"
    assert page.get_attribute("#verdict .reason", "data-code") == "rules"
    assert page.inner_text("#verdict .reason") == korean()["editor.reason.rules"]
    assert page.title() == "국면 편집기 · Spheria"
    assert page.locator("#field-1 option:checked").inner_text() == "민트"  # the seat by its name, not its number
    reason = page.inner_text("#reason-detail")  # the rules' own reason, in Korean, shown as it is
    assert page.is_visible("#reason-detail") and HANGUL.search(reason) and "감초" in reason, reason
    assert "so Liquorice is to place" not in reason and not re.search("[A-Za-z]{4,}", reason)
    assert_korean(page)
    screenshot(page, f"ko-editor-impossible-{size}", full_page=True)
    # The switch asks the rules again: the same fault (the same code), in English.
    press(page, ".lang-switch button[data-lang='en']")
    page.wait_for_function(
        "() => /so Liquorice is to place/.test(document.querySelector('#reason-detail')?.textContent)"
    )
    assert page.get_attribute("#verdict .reason", "data-code") == "rules"
    press(page, ".lang-switch button[data-lang='ko']")
    page.wait_for_function("() => /감초/.test(document.querySelector('#reason-detail')?.textContent)")
    # A ball with nothing under it: the board cannot stand.
    floating = "................/w......../..../. 2 place"
    page.fill("#spn", floating)
    press(page, "#btn-import")
    page.wait_for_function("() => document.querySelector('#verdict .reason')?.dataset.code === 'board'")
    assert page.inner_text("#verdict .reason") == korean()["editor.reason.board"]
    press(page, "#btn-rotate")  # the server will not turn a board that cannot stand: refused by code
    page.wait_for_function(
        "() => document.querySelector('#verdict .verdict-title').textContent === '확인하지 못했습니다'"
    )
    assert page.inner_text("#verdict .reason") == korean()["error.bad_position"]
    detail = page.inner_text("#verdict .detail")
    assert "떠 있습니다" in detail and "floats" not in detail, detail  # the server's words, in Korean
    screenshot(page, f"ko-editor-refused-{size}", full_page=True)
    assert_korean(page)
    # A valid position: who is to move, worded in Korean.
    press(page, "#btn-start")
    page.wait_for_function("() => document.body.dataset.valid === '1'")
    assert "둘 차례: 민트 (둘 수 있는 수 16개)" in page.inner_text("#verdict")
    assert page.locator("#opponent option:checked").inner_text() == "난이도 3"
    assert_korean(page)
    if size == "phone":
        assert_fits(page)
    screenshot(page, f"ko-editor-{size}", full_page=True)
    # The switch re-words the verdict, the fields and the lists; the position stays.
    press(page, ".lang-switch button[data-lang='en']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert "Mint to move (16 legal moves)" in page.inner_text("#verdict")
    assert page.locator("#opponent option:checked").inner_text() == "level 3"
    assert page.locator("#opt-variant option:checked").inner_text() == "mint"
    assert page.evaluate("document.body.dataset.spn") == f"{EMPTY} 1 place"
    assert unexpected(errors) == []
    page.context.close()


def press(page: Page, selector: str) -> None:
    """Tap on a touch screen, click elsewhere."""
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.locator(selector).first.tap()
    else:
        page.locator(selector).first.click()
