"""A game from outside the shipped ones (tests/plugin_games/pile, found through ``SPHERIA_GAME_PATH``)
shows its own option words in the lobby: the server sends them from the game, and no page catalogue
was edited for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from spheria.kernel.registry import GAME_PATH
from tests.web.e2e.test_browser import (  # noqa: F401  (browser is a fixture)
    SIZES,
    assert_fits,
    browser,
    choose_game,
    free_port,
    screenshot,
    start_server,
    stop_server,
    watched_page,
)

PLUGINS = Path(__file__).resolve().parents[2] / "plugin_games"
CATALOGUES = Path(__file__).resolve().parents[3] / "src" / "spheria" / "web" / "i18n"
LOCALES = {"en": "en-US", "ko": "ko-KR"}


@pytest.fixture(scope="module")
def server_with_pile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server started as a game's author would start it: with Pile's folder on the game path."""
    port = free_port()
    db = tmp_path_factory.mktemp("e2e-pile") / "games.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(GAME_PATH, str(PLUGINS))
        with (tmp_path_factory.getbasetemp() / "server-pile.log").open("w") as log:
            process = start_server(port, db, log)
            yield f"http://127.0.0.1:{port}"
            stop_server(process)


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_new_game_shows_its_own_option_words_in_the_lobby(
    browser: Browser,  # noqa: F811
    server_with_pile: str,
    size: str,
    lang: str,
) -> None:
    for catalogue in CATALOGUES.glob("*.json"):
        assert not [key for key in json.loads(catalogue.read_text(encoding="utf-8")) if "stones" in key]
    page, errors = watched_page(browser, locale=LOCALES[lang], **SIZES[size])  # type: ignore[arg-type]
    page.goto(server_with_pile + "/")
    page.wait_for_selector("#seat-rows[data-game] select.seat-kind")
    choose_game(page, "test-pile")
    # Its label is the game's (English: this game has no Korean catalogue), not the option's key.
    assert page.inner_text("label[for='opt-stones']").strip() == "Stones to begin with"
    assert page.inner_text("#opt-stones-help") == "stones in the pile at the start"
    # A shipped game's option is still worded in the page's language.
    choose_game(page, "special-cake")
    assert page.inner_text("label[for='opt-variant']").strip() == ("Variant" if lang == "en" else "변형")
    choose_game(page, "test-pile")
    if size == "phone":
        assert_fits(page, board=False)
    screenshot(page, f"pile-lobby-{size}-{lang}", full_page=True)
    page.context.close()
    assert errors == [], errors
