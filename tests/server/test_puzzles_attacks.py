# ruff: noqa: F811  (the fixtures app and make_app come from tests.server.people)
"""Attacks on the puzzles' endpoints: the answer is never sent before a try, a try needs the CSRF
token, and tries are limited per address."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette

from spheria.server.puzzles import MOST_WAITING, TRIES_BURST, catalogue
from tests.server.people import (  # noqa: F401  (app and make_app are fixtures)
    account,
    app,
    browser,
    error_code,
    make_app,
    send,
)


def without_the_moves_offered(answer: dict[str, Any]) -> str:
    """The answer as text, less the legal moves and their click tree (every legal move is offered)."""
    frame = {k: v for k, v in answer["frame"].items() if k not in ("legal_moves", "clicks")}
    return json.dumps({**answer, "frame": frame})


def test_a_puzzle_before_its_try_holds_no_solution(app: Starlette) -> None:
    for client in (browser(app), account(app, "peeker")):
        for path in ("/api/puzzles/next?game=spline", "/api/puzzles/next?game=special-cake", "/api/puzzles/daily"):
            answer = client.get(path).json()
            puzzle = catalogue()[answer["id"]]
            for field in ("solution", "themes", "difficulty", "source"):
                assert field not in answer and field not in answer["frame"], (path, field)
            assert "hint" not in answer  # (the frame's "hint" is how to make a move, the same in every puzzle)
            text = without_the_moves_offered(answer)
            assert f'"{puzzle.solution[0]}"' not in text, path
            # the moves offered are every legal move, in the rules' order: they single none out
            state_moves = answer["frame"]["legal_moves"]
            assert puzzle.solution[0] in state_moves and len(state_moves) > 1


def test_a_try_or_a_hint_without_the_csrf_token_is_refused(app: Starlette) -> None:
    client = browser(app)
    puzzle = next(iter(catalogue().values()))
    response = client.post(f"/api/puzzles/{puzzle.id}/attempt", json={"moves": [puzzle.solution[0]]})
    assert response.status_code == 403 and error_code(response) == "bad_csrf"
    forged = client.post(
        f"/api/puzzles/{puzzle.id}/attempt", json={"moves": [puzzle.solution[0]]}, headers={"X-CSRF-Token": "x" * 40}
    )
    assert forged.status_code == 403 and error_code(forged) == "bad_csrf"
    hint = client.post(f"/api/puzzles/{puzzle.id}/hint", json={})
    assert hint.status_code == 403 and error_code(hint) == "bad_csrf"


def test_tries_and_hints_are_limited_per_address(app: Starlette) -> None:
    client = browser(app)
    puzzle = next(p for p in catalogue().values() if p.game == "spline")
    codes = []
    for _ in range(TRIES_BURST + 5):
        response = send(client, "POST", f"/api/puzzles/{puzzle.id}/attempt", {"moves": [puzzle.solution[0]]})
        codes.append(response.status_code)
    assert codes[:TRIES_BURST].count(200) >= TRIES_BURST - 2  # the bucket refills a second's worth
    assert codes[-1] == 429
    limited = send(client, "POST", f"/api/puzzles/{puzzle.id}/hint")
    assert limited.status_code == 429 and error_code(limited) == "rate_limited"
    assert "Retry-After" in limited.headers


def test_tries_beyond_those_the_oracle_can_take_are_refused_as_busy(app: Starlette) -> None:
    client = browser(app)
    puzzle = next(p for p in catalogue().values() if p.game == "spline")
    app.state.puzzles.waiting = MOST_WAITING  # as many tries as it takes are waiting for the oracle
    response = send(client, "POST", f"/api/puzzles/{puzzle.id}/attempt", {"moves": [puzzle.solution[0]]})
    assert response.status_code == 503 and error_code(response) == "busy"
    app.state.puzzles.waiting = 0
    response = send(client, "POST", f"/api/puzzles/{puzzle.id}/attempt", {"moves": [puzzle.solution[0]]})
    assert response.status_code == 200
