"""End-to-end: issue 37's "done means", as one flow — two people meet, play a rated game and see it on
their profiles.

A phone (390x844, touch, in English) and a desktop (in Korean) each register an account through the
lobby's form; the phone posts a rated Special Cake mint challenge; the desktop sees it appear, pushed
over its lobby socket without reloading, and accepts; both land in the game, each in a seat of their
own; they chat both ways; they play to the end through the board (each move picked from the page's
own clickable sites); the result card shows the rating change on both; then both profile pages list
the game with the rating before and after, the rating moved from its start, and the history chart
starts from the rating before the first game, so that one game draws a line. Screenshots go to
``test-artifacts/`` (``meet-*``).
"""

from __future__ import annotations

import random
import re
import time

from playwright.sync_api import Browser, Page

from tests.web.e2e.test_board_people import chat_texts, say, sees
from tests.web.e2e.test_browser import (  # noqa: F401  (browser and server are fixtures)
    assert_fits,
    browser,
    choose_game,
    play_turn,
    screenshot,
    server,
)
from tests.web.e2e.test_korean import assert_korean
from tests.web.e2e.test_people import open_lobby, person, press, register

PHONE, DESK = "Mina_phone", "Jun-desk"
#: A newcomer's rating (Glicko-2's start): where both ratings and both charts begin.
START = 1500


def numbers(text: str) -> list[int]:
    """The whole numbers written in ``text`` ("1,500 → 1,662?" gives [1500, 1662])."""
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]


def game_of(page: Page) -> str:
    return page.url.split("/game/")[1].split("#")[0]


def play_together(pages: list[Page], rng: random.Random, shot: str) -> int:
    """Moves by whichever page shows it is its turn, each a click on the page's own legal sites, until
    both pages show the result; the number of moves. A screenshot of each page after six moves."""
    moves = 0
    deadline = time.monotonic() + 300
    while not all(page.locator("#result:not([hidden])").count() for page in pages):
        mover = next((page for page in pages if page.locator(".turn.mine").count()), None)
        if mover is None:  # the other page has not taken the last move in yet
            assert time.monotonic() < deadline, "no page has the turn and the game is not over"
            pages[0].wait_for_timeout(50)
            continue
        play_turn(mover, rng)
        moves += 1
        if moves == 6:
            for page, size in zip(pages, ("phone", "desktop"), strict=True):
                screenshot(page, f"{shot}-{size}")
    return moves


def test_two_people_register_challenge_chat_play_and_see_the_rating_change(browser: Browser, server: str) -> None:  # noqa: F811
    phone, phone_errors = person(browser, "phone")
    desk, desk_errors = person(browser, "desktop", "ko")
    for page in (phone, desk):
        open_lobby(page, server)
        assert_fits(page, board=False)
    assert_korean(desk)
    register(phone, PHONE)
    register(desk, DESK)
    desk.evaluate("window.stillHere = true")  # gone if the page reloads
    # Both are online, counted by their lobby sockets.
    phone.wait_for_selector(f"#presence-players a[href='/@/{PHONE}']")
    phone.wait_for_selector(f"#presence-players a[href='/@/{DESK}']")
    phone.wait_for_function("document.getElementById('presence-counts').textContent.startsWith('2 people online')")
    screenshot(phone, "meet-registered-phone", full_page=True)
    screenshot(desk, "meet-registered-desktop", full_page=True)

    # The phone posts a rated Special Cake mint challenge through the lobby's form, playing the first seat.
    choose_game(phone, "special-cake")
    phone.select_option("#opt-variant", "mint")
    phone.select_option("#challenge-seat", "0")
    phone.check("#challenge-rated")
    press(phone, "#post")
    own = phone.wait_for_selector("#challenges li.challenge[data-game='special-cake']")
    assert own is not None
    assert own.query_selector("button.cancel-challenge") is not None  # one's own: cancel, not accept
    assert own.query_selector("button.accept-challenge") is None

    # The desktop sees it at once, pushed over its lobby socket, with the poster's name, rated and mint.
    offer = desk.wait_for_selector("#challenges li.challenge[data-game='special-cake'] button.accept-challenge")
    assert offer is not None and offer.is_visible()
    assert desk.evaluate("window.stillHere") is True
    line = desk.inner_text("#challenges li.challenge[data-game='special-cake']")
    assert PHONE in line and "레이팅 대국" in line and "민트" in line, line
    assert desk.is_hidden("#no-challenges")
    screenshot(phone, "meet-challenge-phone", full_page=True)
    screenshot(desk, "meet-challenge-desktop", full_page=True)

    # One click takes the other seat; both land in the game: the accepter by the answer's invite, the
    # poster by its lobby's game_ready frame.
    press(desk, "#challenges li.challenge[data-game='special-cake'] button.accept-challenge")
    for page in (phone, desk):
        page.wait_for_url(re.compile(r"/game/[^/#]+#"))
    game_id = game_of(phone)
    assert game_of(desk) == game_id
    for page in (phone, desk):
        page.wait_for_selector("#players li.player .dot.on >> nth=1")  # both seats are connected
        page.wait_for_selector("#players .me-tag")  # each holds a seat of their own
    assert phone.inner_text("#players .me-tag >> xpath=..") != desk.inner_text("#players .me-tag >> xpath=..")
    screenshot(phone, "meet-game-phone")
    screenshot(desk, "meet-game-desktop")

    # While they play: each profile lists the game as being played, against the other by name; the
    # search finds a player by the start of their name; the game is among the phone's "your games".
    watching = desk.context.new_page()
    watching.goto(f"{server}/@/{PHONE}")
    playing = watching.wait_for_selector(f"#playing li[data-game='{game_id}']")
    assert playing is not None and DESK in playing.inner_text()
    assert playing.query_selector(f"a[href='/game/{game_id}']") is not None
    watching.fill("#player-prefix", "jun")
    watching.click(f"#player-results a[href='/@/{DESK}']")
    watching.wait_for_url(re.compile(f"/@/{DESK}$"))
    assert PHONE in watching.inner_text(f"#playing li[data-game='{game_id}']")
    watching.close()
    lobby = phone.context.new_page()
    open_lobby(lobby, server)
    lobby.wait_for_selector(f"#my-games li[data-game='{game_id}']")
    lobby.close()

    # They chat both ways, each seeing the other's line; an account speaks under its name, unmarked.
    say(phone, "hello from the phone")
    sees(desk, "hello from the phone")
    say(desk, "잘 부탁합니다")
    sees(phone, "잘 부탁합니다")
    assert desk.inner_text("#chat .chat-message .chat-name") == PHONE
    assert phone.locator("#chat .chat-message", has_text="잘 부탁합니다").locator(".chat-name").inner_text() == DESK
    assert chat_texts(phone) == chat_texts(desk) == ["hello from the phone", "잘 부탁합니다"]
    phone.locator("#chat .chat-form").scroll_into_view_if_needed()
    screenshot(phone, "meet-chat-phone")
    screenshot(desk, "meet-chat-desktop")

    # They play to the end through the board. Special Cake has no draw: one of them wins.
    moves = play_together([phone, desk], random.Random(37), "meet-play")
    assert moves >= 30  # the cake's 30 candies are placed before anyone eats

    # The result card shows both rating changes, the same on both pages: what one wins the other loses
    # (two newcomers of equal rating), both still provisional.
    cards = {}
    for page in (phone, desk):
        page.wait_for_selector("#result .result-ratings .rating-change >> nth=1")
        assert page.locator("#result .rating-change").count() == 2
        values = [
            numbers(page.inner_text(f"#result .rating-change[data-seat='{seat}'] .rating-values")) for seat in (0, 1)
        ]
        diffs = [
            int(text.replace("−", "-").replace("±", ""))
            for text in page.locator("#result .rating-diff").all_inner_texts()
        ]
        assert [before for before, _ in values] == [START, START], values
        assert diffs == [after - before for before, after in values]
        assert diffs[0] == -diffs[1] != 0, diffs
        assert "?" in page.inner_text("#result .rating-values >> nth=0")  # newcomers are provisional
        cards[page] = values
    assert cards[phone] == cards[desk]
    after = {PHONE: cards[phone][0][1], DESK: cards[phone][1][1]}  # the phone posted for the first seat
    assert "Rated" in phone.inner_text("#result .result-ratings")
    assert "레이팅" in desk.inner_text("#result .result-ratings")
    assert_fits(phone)
    screenshot(phone, "meet-result-phone", full_page=True)
    screenshot(desk, "meet-result-desktop", full_page=True)

    # Both profiles: the game listed with its result and the rating before → after, the rating moved
    # from its start, and the chart drawn from the start to the rating now (one game, one line).
    won = {"en": "Won", "ko": "승"}
    lost = {"en": "Lost", "ko": "패"}
    for page, name, other, lang in ((phone, PHONE, DESK, "en"), (desk, DESK, PHONE, "ko")):
        response = page.goto(f"{server}/@/{name}")
        assert response is not None and response.status == 200
        row = page.wait_for_selector(f"#games tr[data-game='{game_id}']")
        assert row is not None
        assert page.inner_text("#player-name") == name and page.is_hidden("#player-guest")
        text = row.inner_text()
        assert (won if after[name] > START else lost)[lang] in text, text
        assert numbers(row.inner_text().split(" → ")[0])[-1] == START and " → " in text, text
        assert numbers(text.split(" → ")[1])[0] == after[name], text
        assert row.query_selector(f"a[href='/@/{other}']") is not None  # the opponent, by name
        assert row.query_selector(f"a[href='/replay/{game_id}']") is not None
        assert row.query_selector(f"a[href='/analysis?record={game_id}']") is not None
        rating = page.locator("#ratings .rating[data-key^='special-cake/']")
        assert numbers(rating.locator(".rating-value").inner_text()) == [after[name]] != [START]
        assert rating.locator("abbr.provisional").count() == 1
        chart = rating.locator("svg.eval-chart")
        assert len(str(chart.locator("polyline").get_attribute("points")).split()) == 2
        assert set(numbers(str(chart.get_attribute("aria-label")))) == {START, after[name]}
        assert page.is_hidden("#no-ratings")
        page.wait_for_selector("#no-playing:not([hidden])")  # over: no longer being played
        assert_fits(page, board=False)
    assert_korean(desk)
    screenshot(phone, "meet-profile-phone", full_page=True)
    screenshot(desk, "meet-profile-desktop", full_page=True)
    for page in (phone, desk):
        page.context.close()
    assert phone_errors == [] and desk_errors == [], (phone_errors, desk_errors)
