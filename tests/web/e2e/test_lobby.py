"""End-to-end: the lobby, on a phone (390x844, touch) and on a desktop, in English and Korean.

It offers the game Spheria features first (the server says which), leads to the analysis board,
the position editor and how to play the chosen game, names each option in words with the game's
own explanation under it (never its key), says what "default" is, and takes a person who made a
game against agents straight to their seat; a game between people keeps its links shown to send.
Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

import spheria
from spheria.i18n import using
from spheria.server.views import words
from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    SIZES,
    assert_fits,
    browser,
    choose_game,
    screenshot,
    server,
    watched_page,
)
from tests.web.e2e.test_korean import assert_korean

CATALOGUES = Path(__file__).resolve().parents[3] / "src" / "spheria" / "web" / "i18n"
LOCALES = {"en": "en-US", "ko": "ko-KR"}


def catalogue(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(params=[("phone", "en"), ("desktop", "en"), ("phone", "ko"), ("desktop", "ko")], ids="-".join)
def lobby(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[str, str, Page]]:  # noqa: F811
    size, lang = request.param
    page, errors = watched_page(browser, locale=LOCALES[lang], **SIZES[size])  # type: ignore[arg-type]
    yield size, lang, page
    page.context.close()
    assert errors == [], errors


def open_lobby(page: Page, server: str) -> None:  # noqa: F811
    page.goto(server + "/")
    page.wait_for_selector("#seat-rows[data-game] select.seat-kind")


def press(page: Page, selector: str) -> None:
    """Tap on a touch screen, click elsewhere: as a person would."""
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.locator(selector).first.tap()
    else:
        page.locator(selector).first.click()


def test_the_lobby_offers_the_featured_game_and_leads_to_the_board_the_editor_and_the_rules(
    lobby: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    size, lang, page = lobby
    words_here = catalogue(lang)
    with urllib.request.urlopen(f"{server}/api/catalog", timeout=20) as response:
        featured = json.load(response)["default"]
    assert featured == spheria.default_game_name() == "special-cake"
    open_lobby(page, server)
    assert page.input_value("#game") == featured  # not the first by name (Spagyric)
    for link, key in (("#link-analysis", "analysis"), ("#link-editor", "editor"), ("#link-howto", "howto")):
        assert page.locator(link).is_visible() and page.inner_text(link) == words_here[f"lobby.{key}"]
    # The links follow the game chosen, with its options.
    choose_game(page, "spinca")
    page.select_option("#opt-players", "3")
    page.wait_for_function("() => document.querySelectorAll('select.seat-kind').length === 3")
    page.wait_for_function("() => document.getElementById('link-editor').href.includes('players=3')")
    editor = urllib.parse.urlsplit(str(page.get_attribute("#link-editor", "href")))
    assert editor.path == "/editor"
    assert urllib.parse.parse_qs(editor.query) == {"game": ["spinca"], "options": ["players=3"]}
    # How to play, for the chosen game, in the page's language: opened by its link.
    page.wait_for_selector("#howto:not([hidden]) .howto-body p", state="attached")
    press(page, "#link-howto")
    assert page.locator("#howto").evaluate("node => node.open")
    assert page.locator("#howto .howto-body").is_visible()
    rules = page.inner_text("#howto .howto-body")
    assert ("Spinca" in rules) if lang == "en" else ("스핑카" in rules)
    if size == "phone":
        assert_fits(page, board=False)
    screenshot(page, f"lobby-links-{size}-{lang}", full_page=True)
    # The analysis board and the editor open on the game chosen.
    press(page, "#link-analysis")
    page.wait_for_url("**/analysis?**")
    page.wait_for_selector("body[data-ready='1']")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["options"] == ["players=3"]
    assert page.locator("#board .strip-site").count() == 30
    page.go_back()
    page.wait_for_selector("#seat-rows[data-game] select.seat-kind")
    press(page, "#link-editor")
    page.wait_for_url("**/editor?**")
    page.wait_for_selector("#verdict .verdict-title")
    assert page.input_value("#game") == "spinca" and page.input_value("#opt-players") == "3"


def test_each_option_is_named_in_words_and_explained_in_the_page_language(
    lobby: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    size, lang, page = lobby
    words_here = catalogue(lang)
    with using(lang):
        helps = words()["names"]
        options = words()["options"]  # each game's option words, from the game
    open_lobby(page, server)
    for game in spheria.game_names():
        choose_game(page, game)
        for spec in spheria.load_game(game).option_specs:
            label = page.inner_text(f"label[for='opt-{spec.name}']").strip()
            assert label not in (spec.name, spec.name.replace("_", " ")), label  # not the option's key
            assert label[0] == label[0].upper() and label.lower() == options[spec.name]["label"].lower()
            help_text = page.locator(f"#opt-{spec.name}-help")
            assert help_text.is_visible() and help_text.inner_text() == helps[spec.help]
    # "default" says what it is now: the line rule follows the variant.
    choose_game(page, "special-cake")
    default = words_here["lobby.default_is"]
    empty = "#opt-line_rule option[value='']"
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector).textContent === text",
        arg=[empty, default.format(value=options["line_rule"]["choices"]["mixed"])],
    )
    page.select_option("#opt-variant", "sugar")
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector).textContent === text",
        arg=[empty, default.format(value=options["line_rule"]["choices"]["any"])],
    )
    if lang == "ko":
        assert_korean(page)
    if size == "phone":
        assert_fits(page, board=False)
    screenshot(page, f"lobby-options-{size}-{lang}", full_page=True)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_option_out_of_range_is_refused_in_sentences(browser: Browser, server: str, lang: str) -> None:  # noqa: F811
    """The page's words for the refusal, then the server's, each a sentence of its own (the
    server writes its details in lower case, to go after other words)."""
    page, errors = watched_page(browser, locale=LOCALES[lang], **SIZES["phone"])  # type: ignore[arg-type]
    words_here = catalogue(lang)
    open_lobby(page, server)
    choose_game(page, "spagyric")
    page.fill("#opt-supply", "0")
    page.evaluate("document.activeElement.blur()")
    page.wait_for_function("() => document.querySelector('#form-error').textContent !== ''")
    refusal = page.inner_text("#form-error")
    assert refusal.startswith(words_here["error.bad_game"]), refusal
    detail = refusal.removeprefix(words_here["error.bad_game"]).strip()
    assert "supply" in detail and not detail[0].islower(), refusal
    assert (detail.startswith("Option 'supply'")) if lang == "en" else detail.startswith("옵션 'supply'")
    assert page.is_disabled("#create")
    page.context.close()
    assert [e for e in errors if "status of 400" not in e] == []  # only the refusal itself


def test_a_game_against_an_agent_takes_the_player_to_their_seat_and_one_between_people_shows_the_links(
    lobby: tuple[str, str, Page],
    server: str,  # noqa: F811
) -> None:
    size, lang, page = lobby
    words_here = catalogue(lang)
    open_lobby(page, server)
    assert page.locator("select.seat-kind").nth(1).input_value().startswith("level:")
    press(page, "#create")
    page.wait_for_url("**/game/**")
    game_id = urllib.parse.urlsplit(page.url).path.rsplit("/", 1)[1]
    page.wait_for_selector("#players li.player")
    role = page.inner_text("#role")
    assert role == "You play Mint" if lang == "en" else role.startswith("내 자리: ")
    screenshot(page, f"lobby-created-against-agent-{size}-{lang}")
    with urllib.request.urlopen(f"{server}/api/games/{game_id}", timeout=20) as response:
        seats = json.load(response)["players"]
    assert [(s["kind"], s["claimed"]) for s in seats] == [("human", True), ("agent", True)]
    # Between two people the links stay in the lobby, to be sent.
    open_lobby(page, server)
    page.locator("select.seat-kind").nth(1).select_option("human")
    press(page, "#create")
    page.wait_for_selector("#created .invite a.open-seat")
    assert urllib.parse.urlsplit(page.url).path == "/"
    assert words_here["lobby.created"] in page.inner_text("#created")
    assert page.locator("#created a.open-seat").count() == 2
    if size == "phone":
        assert_fits(page, board=False)
    screenshot(page, f"lobby-created-between-people-{size}-{lang}", full_page=True)
