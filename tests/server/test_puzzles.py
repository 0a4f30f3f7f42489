# ruff: noqa: F811  (the fixtures app and make_app come from tests.server.people)
"""Puzzles through the HTTP interface (docs/server.md, Puzzles): a puzzle near the person's rating,
the daily puzzle, a hint, a try answered right, solved or wrong (with the oracle's refutation),
and puzzle ratings (accounts on the server, guests in their browser)."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime
from typing import Any

from starlette.applications import Starlette

from spheria.puzzles import Puzzle, maker_for, puzzle_state, refutation, shipped_puzzles
from spheria.puzzles.making import same_move
from spheria.ratings.glicko2 import Rating
from spheria.server.puzzles import NEAREST, catalogue, choose, daily_puzzle, first_rating
from tests.server.people import (  # noqa: F401  (app and make_app are fixtures)
    account,
    app,
    browser,
    error_code,
    make_app,
    send,
)


def spline_puzzle(plies: int) -> Puzzle:
    return next(p for p in shipped_puzzles("spline") if len(p.solution) == plies)


def wrong_move(puzzle: Puzzle) -> str:
    state = puzzle_state(puzzle)
    win = state.parse_move(puzzle.solution[0])
    return next(state.notation(m) for m in state.legal_moves() if not same_move(state, m, win))


def attempt(client: Any, puzzle: Puzzle, moves: list[str], **extra: Any) -> dict[str, Any]:
    response = send(client, "POST", f"/api/puzzles/{puzzle.id}/attempt", {"moves": moves, **extra})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_the_page_is_served(app: Starlette) -> None:
    response = browser(app).get("/puzzles")
    assert response.status_code == 200
    assert 'src="/static/js/puzzles.js"' in response.text


def test_next_sends_a_puzzle_of_the_game_near_the_guests_rating(app: Starlette) -> None:
    client = browser(app)
    for wanted in (900.0, 2000.0):
        answer = client.get(f"/api/puzzles/next?game=spline&rating={wanted}").json()
        puzzle = catalogue()[answer["id"]]
        assert puzzle.game == "spline" and answer["spn"] == puzzle.spn
        nearest = sorted((p for p in shipped_puzzles("spline")), key=lambda p: abs(first_rating(p).rating - wanted))[
            :NEAREST
        ]
        assert puzzle in nearest
        assert answer["frame"]["legal_moves"] and answer["frame"]["board"]
        assert answer["moves"] == (len(puzzle.solution) + 1) // 2


def test_choose_keeps_to_the_nearest_and_avoids_the_ones_played() -> None:
    puzzles = shipped_puzzles("special-cake")
    low = choose("special-cake", 0.0, {}, set(), random.Random(1))
    assert first_rating(low).rating == min(first_rating(p).rating for p in puzzles)
    played = {p.id for p in puzzles[:-1]}
    assert choose("special-cake", 1500.0, {}, played, random.Random(2)) == puzzles[-1]
    # a puzzle's own rating, once tried, counts instead of its first one
    target = min(puzzles, key=lambda p: p.difficulty)
    highest = {p.id for p in puzzles if first_rating(p).rating == 2500.0}
    assert len(highest) >= NEAREST
    tried = {target.id: Rating(3900.0, 60.0)}
    drawn = {choose("special-cake", 4000.0, tried, set(), random.Random(n)).id for n in range(60)}
    assert target.id in drawn and drawn <= highest | {target.id}


def test_a_puzzles_first_rating_grows_with_its_difficulty() -> None:
    puzzles = shipped_puzzles("spline")
    easy = min(puzzles, key=lambda p: p.difficulty)
    hard = max(puzzles, key=lambda p: p.difficulty)
    assert first_rating(easy).rating < first_rating(hard).rating


def test_the_daily_puzzle_is_the_dates_and_the_same_for_everyone(app: Starlette) -> None:
    one, other = browser(app), browser(app)
    today = daily_puzzle(datetime.now(UTC).date())
    assert one.get("/api/puzzles/daily").json()["id"] == today.id == other.get("/api/puzzles/daily").json()["id"]
    assert one.get("/api/puzzles/daily").json()["daily"] is True
    days = {daily_puzzle(date(2026, 1, 1).fromordinal(date(2026, 1, 1).toordinal() + n)).id for n in range(30)}
    assert len(days) > 20  # the date picks it: different days, (nearly always) different puzzles


def test_a_right_first_move_is_answered_with_the_defence_then_solved(app: Starlette) -> None:
    client = browser(app)
    puzzle = spline_puzzle(3)
    answer = attempt(client, puzzle, [puzzle.solution[0]])
    assert answer["result"] == "right"
    assert answer["reply"]["move"] == puzzle.solution[1]
    assert "solution" not in answer and puzzle.solution[2] not in str(answer["reply"])
    assert answer["frame"]["legal_moves"]
    done = attempt(client, puzzle, [puzzle.solution[0], puzzle.solution[2]])
    assert done["result"] == "solved"
    assert [step["move"] for step in done["solution"]] == list(puzzle.solution)


def test_a_wrong_move_is_refuted_by_the_oracle_and_the_solution_shown(app: Starlette) -> None:
    client = browser(app)
    puzzle = spline_puzzle(3)
    wrong = wrong_move(puzzle)
    answer = attempt(client, puzzle, [wrong])
    assert answer["result"] == "wrong" and answer["move"] == wrong
    after = puzzle_state(puzzle)
    after.apply(after.parse_move(wrong))
    maker = maker_for("spline")
    assert [step["move"] for step in answer["refutation"]] == refutation(maker, after, maker.budget)
    assert answer["refutation"], "a wrong move in a puzzle loses: the oracle plays it out"
    assert [step["move"] for step in answer["solution"]] == list(puzzle.solution)
    assert all(step["board"] for step in answer["solution"] + answer["refutation"])
    # the refuting side wins at the end of the refutation (or keeps a proved win when it stops)
    assert answer["themes"] == list(puzzle.themes)


def test_a_hint_names_the_winning_move_among_at_most_three(app: Starlette) -> None:
    puzzle = spline_puzzle(1)
    client = browser(app)
    moves = send(client, "POST", f"/api/puzzles/{puzzle.id}/hint").json()["moves"]
    assert puzzle.solution[0] in moves and 1 <= len(moves) <= 3
    assert moves == send(client, "POST", f"/api/puzzles/{puzzle.id}/hint").json()["moves"]  # the same each time


def test_an_account_given_a_hint_is_not_rated_on_that_puzzle_whatever_its_try_says(app: Starlette) -> None:
    client = account(app, "hana")
    puzzle = spline_puzzle(1)
    assert send(client, "POST", f"/api/puzzles/{puzzle.id}/hint").status_code == 200
    answer = attempt(client, puzzle, [puzzle.solution[0]], hinted=False)
    assert answer["result"] == "solved" and answer["rating"] is None
    assert app.state.puzzles.store.ratings([me_id(app, "hana")], "spline") == {}
    assert app.state.puzzles.store.puzzle_ratings("spline") == {}
    assert puzzle.id in app.state.puzzles.store.tried(me_id(app, "hana"))


def me_id(app: Starlette, name: str) -> str:
    found = app.state.accounts.store.account_named(name)
    assert found is not None
    return str(found[0].id)


def test_an_account_is_rated_once_per_puzzle_and_so_is_the_puzzle(app: Starlette) -> None:
    client = account(app, "mina")
    first = client.get("/api/puzzles/next?game=spline").json()
    assert first["player"]["rating"] == 1500.0 and first["player"]["games"] == 0
    puzzle = catalogue()[first["id"]]
    answer = attempt(client, puzzle, [wrong_move(puzzle)])
    assert answer["rating"]["rating"] < 1500.0 and answer["rating"]["games"] == 1
    again = attempt(client, puzzle, [wrong_move(puzzle)])
    assert again["rating"] is None  # the second ending of the same puzzle changes nothing
    after = client.get("/api/puzzles/next?game=spline").json()
    assert after["player"]["rating"] == answer["rating"]["rating"]
    assert after["id"] != puzzle.id
    store = app.state.puzzles.store
    own = store.puzzle_ratings("spline")[puzzle.id]
    assert own.rating > first_rating(puzzle).rating  # the puzzle won
    # a solved puzzle raises the account's rating
    other = catalogue()[after["id"]]
    line = [other.solution[i] for i in range(0, len(other.solution), 2)]
    solved = attempt(client, other, line)
    assert solved["result"] == "solved" and solved["rating"]["rating"] > answer["rating"]["rating"]


def test_a_guest_sends_its_rating_and_gets_the_new_one(app: Starlette) -> None:
    client = browser(app)
    puzzle = spline_puzzle(1)
    mine = {"rating": 1700.0, "deviation": 80.0, "volatility": 0.06, "games": 12}
    answer = attempt(client, puzzle, [puzzle.solution[0]], rating=mine)
    assert answer["result"] == "solved"
    assert answer["rating"]["rating"] > 1700.0 and answer["rating"]["games"] == 13
    lost = attempt(client, puzzle, [wrong_move(puzzle)], rating=mine)
    assert lost["rating"]["rating"] < 1700.0
    assert attempt(client, puzzle, [puzzle.solution[0]], rating=mine, hinted=True)["rating"] is None
    assert app.state.puzzles.store.puzzle_ratings("spline") == {}  # guests do not move puzzles' ratings


def test_bad_tries_get_a_clear_error(app: Starlette) -> None:
    client = browser(app)
    puzzle = spline_puzzle(3)
    path = f"/api/puzzles/{puzzle.id}/attempt"
    cases = [
        ({"moves": "2a1"}, "bad_attempt"),
        ({"moves": []}, "bad_attempt"),
        ({"moves": ["9z9"]}, "illegal_move"),
        ({"moves": [wrong_move(puzzle), puzzle.solution[2]]}, "bad_attempt"),
        ({"moves": [puzzle.solution[0]] * 3}, "bad_attempt"),
        ({"moves": [puzzle.solution[0]], "rating": {"rating": "high"}}, "bad_rating"),
        ({"moves": [puzzle.solution[0]], "rating": {"rating": 1500, "deviation": -3, "volatility": 0.1}}, "bad_rating"),
        ({"moves": [puzzle.solution[0]], "hinted": "yes"}, "bad_attempt"),
        ({"moves": [puzzle.solution[0]], "answer": 1}, "bad_request"),
    ]
    for body, code in cases:
        response = send(client, "POST", path, body)
        assert response.status_code == 400, (body, response.text)
        assert error_code(response) == code, (body, response.text)
    unknown = send(client, "POST", "/api/puzzles/000000000000/attempt", {"moves": ["1a1"]})
    assert unknown.status_code == 404 and error_code(unknown) == "unknown_puzzle"
    assert client.get("/api/puzzles/next?game=spinca").status_code == 400
    assert error_code(client.get("/api/puzzles/next?game=spline&rating=lots")) == "bad_rating"


def test_without_a_game_next_sends_the_first_game_with_puzzles_and_names_them_all(app: Starlette) -> None:
    answer = browser(app).get("/api/puzzles/next").json()
    assert answer["games"] == ["special-cake", "spline"]
    assert catalogue()[answer["id"]].game == "special-cake"
