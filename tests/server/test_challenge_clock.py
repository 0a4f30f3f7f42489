"""A challenge carries its time control to the game it starts (issue 38; docs/server.md, Clocks)."""

from __future__ import annotations

from starlette.applications import Starlette

from tests.server.people import account, app, guest, make_app, send
from tests.server.test_challenges import MINT, accept, next_frame, open_ids, post, posted

__all__ = ["app", "make_app"]  # the fixtures, shared with the challenges' tests


def test_a_challenge_offers_its_clock_and_the_game_it_starts_is_on_it(app: Starlette) -> None:
    poster, taker = guest(app, "Mina"), account(app, "Joon")
    clock = {"base": 300, "increment": 3}
    with poster.websocket_connect("/ws/lobby") as lobby:
        next_frame(lobby, "lobby")
        challenge_id = posted(poster, seat=1, clock=clock)
        assert next_frame(lobby, "challenge")["challenge"]["clock"] == clock  # every lobby sees it
    answer = accept(taker, challenge_id).json()
    with taker.websocket_connect(f"/ws/{answer['game_id']}") as ws:
        ws.send_json({"type": "join", "token": answer["invite"].split("#", 1)[1]})
        state = next_frame(ws, "state")
    assert state["clock"]["clock"] == clock and state["clock"]["running"] == [0]
    assert 290_000 < state["clock"]["left"][0] <= 300_000 and state["clock"]["left"][1] == 300_000  # the wall clock


def test_a_challenge_with_a_bad_clock_is_refused_naming_the_problem(app: Starlette) -> None:
    poster = guest(app, "Mina")
    response = post(poster, clock={"base": 300, "increment": 99})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_clock"
    assert "increment is 0 to 60 seconds, not 99" in response.json()["error"]["message"]
    untimed = posted(poster)
    assert poster.get(f"/api/challenges/{untimed}").json()["clock"] is None


def test_quick_pairing_never_lands_in_a_timed_game(app: Starlette) -> None:
    poster, other = guest(app, "Mina"), guest(app, "Joon")
    timed = posted(poster, clock={"days": 3})
    response = send(other, "POST", "/api/challenges/quick", MINT)
    assert response.status_code == 201  # it posted its own untimed challenge: the timed one is left open
    assert sorted(open_ids(other)) == sorted([timed, response.json()["id"]])
