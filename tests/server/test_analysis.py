"""The analysis board's endpoints: positions as the page draws them, and the engine over /ws/analysis
(docs/analysis.md, "In the browser"): exact Special Cake answers as the solver gives them, MCTS
progress, the limits an attacker meets, and a finished game's mistakes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

import spheria
from spheria.analysis import analyse_game
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import solve
from spheria.kernel.record import Record
from spheria.server.analysis import AnalysisLimits
from spheria.server.app import create_app
from spheria.server.limits import Limits
from tests.analysis.test_analysis import twins

Frame = dict[str, Any]
TEST_LIMITS = Limits(allowed_hosts=("testserver",))
ROW = "wbw............./........./..../. 1 eat"  # docs/analysis.md: Mint wins by eating a pair
MakeClient = Callable[..., TestClient]


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[MakeClient]:
    opened: list[TestClient] = []

    def make(**limits: Any) -> TestClient:
        settings = AnalysisLimits(**{"workers": 1, **limits})
        app = create_app(
            str(tmp_path / f"games{len(opened)}.sqlite3"),
            executor=ThreadPoolExecutor(2),
            agent_delay=0,
            limits=TEST_LIMITS,
            analysis_limits=settings,
        )
        client = TestClient(app)
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


def position(client: TestClient, **query: str) -> Any:
    return client.get("/api/analysis/position", params=query)


def answer(ws: WebSocketTestSession, job_id: int, seen: list[Frame] | None = None) -> Frame:
    """The first frame for ``job_id`` that is not progress (progress frames go to ``seen``)."""
    while True:
        frame: Frame = ws.receive_json()
        if frame.get("id") != job_id:
            continue
        if frame["type"] != "progress":
            return frame
        if seen is not None:
            seen.append(frame)


def test_a_position_is_drawn_with_its_click_tree_and_the_moves_as_the_game_writes_them(client: TestClient) -> None:
    data = position(client, game="special-cake", options="variant=mint", spn=ROW, moves="0b1 0a1").json()
    state = spheria.load_game("special-cake", variant="mint").state_from_spn(ROW)
    move = state.parse_move("0b1 0a1")
    state.apply(move)
    assert data["moves"] == [str(move)]
    assert data["position"] == state.to_spn()
    assert data["frame"]["legal_moves"] == [str(m) for m in state.legal_moves()]
    start = position(client, game="special-cake", options="variant=mint", spn=ROW).json()["frame"]
    assert start["picking"] == "set" and set(start["clicks"]["next"]) == {"0a1", "0b1", "0c1"}


def test_every_part_of_the_link_is_optional(client: TestClient) -> None:
    assert position(client).json()["error"]["code"] == "bad_game"  # the page names its default game
    for name in spheria.game_names():
        data = position(client, game=name).json()
        assert data["spn"] == spheria.load_game(name).new_initial_state().to_spn()
        assert data["frame"]["legal_moves"]


def test_a_spagyric_reveal_offers_every_joint_choice_seat_by_seat(client: TestClient) -> None:
    frame = position(client, game="spagyric", options="supply=1").json()["frame"]
    assert frame["choosers"] == [0, 1]
    assert sorted(frame["legal_moves"]) == sorted(f"{a}:{b}" for a in "wbr" for b in "wbr")
    leaf = frame["clicks"]["next"]["w"]["next"]["b"]
    assert frame["legal_moves"][leaf["move"]] == "w:b"
    after = position(client, game="spagyric", options="supply=1", moves="w:b").json()
    assert after["moves"] == ["w:b"]


@pytest.mark.parametrize(
    ("query", "code", "words"),
    [
        ({"game": "chess"}, "bad_game", "no game called 'chess'"),
        ({"game": "spline", "options": "colour=red"}, "bad_options", "colour"),
        ({"game": "spline", "options": "novalue"}, "bad_options", "name=value"),
        ({"game": "spline", "spn": "zzz"}, "bad_spn", "bad SPN for spline"),
        ({"game": "spline", "spn": "x" * 300}, "bad_spn", "too long"),
        ({"game": "spline", "moves": "0a1,0a1"}, "bad_move", "move 2 (0a1)"),
        ({"game": "spline", "moves": "0a1,9z9"}, "bad_move", "move 2 (9z9)"),
        ({"game": "spline", "moves": ",".join(["0a1"] * 500)}, "bad_move", "too many moves"),
    ],
)
def test_a_bad_link_gets_an_error_naming_the_problem(client: TestClient, query: Frame, code: str, words: str) -> None:
    response = position(client, **query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"]


def test_the_engine_gives_the_solvers_verdict_and_every_winning_move(client: TestClient) -> None:
    game = spheria.load_game("special-cake", variant="sugar")
    state = game.new_initial_state(seed=7)
    assert isinstance(state, CakeState)
    for _ in range(4):
        state.apply(state.legal_moves()[0])
    spn = state.to_spn()
    expected = solve(state)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "game": "special-cake", "options": "variant=sugar", "spn": spn})
        result = answer(ws, 1)
        analysis = result["analysis"]
        assert result["type"] == "analysis" and not result["cached"]
        assert analysis["status"] == "exact" and analysis["verdict"] == expected.value
        assert analysis["best_moves"] == [state.notation(m) for m in expected.best_moves]
        winning = {m["move"] for m in analysis["moves"] if m["value"] == 1.0}
        assert winning == (set(analysis["best_moves"]) if expected.value > 0 else set())
        assert len(analysis["moves"]) == len(state.legal_moves())
        ws.send_json({"type": "analyse", "id": 2, "game": "special-cake", "options": "variant=sugar", "spn": spn})
        again = answer(ws, 2)
        assert again["cached"] and again["analysis"]["best_moves"] == analysis["best_moves"]


def test_mcts_reports_its_iterations_and_win_rates_as_it_runs(client: TestClient) -> None:
    seen: list[Frame] = []
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 5, "game": "spinca", "time": 1.5})  # not solved: MCTS
        result = answer(ws, 5, seen)
    partial = [f for f in seen if f.get("partial")]
    assert partial, seen
    counts = [f["iterations"] for f in partial]
    assert counts == sorted(counts) and counts[0] >= 1
    assert all(f["partial"]["moves"] for f in partial)
    final = result["analysis"]
    assert final["status"] == "estimate" and final["iterations"] >= counts[-1]
    assert final["principal_variation"] and len(final["moves"]) == 16


def test_a_request_asking_for_hours_is_held_to_the_time_cap(make_client: MakeClient) -> None:
    client = make_client(max_time=0.5)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "game": "spinca", "time": 36000})
        analysis = answer(ws, 1)["analysis"]
    # MCTS stops at the cap it was given (the job's own time), not the hours asked.
    assert analysis["seconds"] < 5


def test_a_runaway_job_loses_its_worker_and_the_next_job_gets_a_new_one(make_client: MakeClient) -> None:
    client = make_client(max_time=0.2, grace=0.01)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 0.2})
        failed = answer(ws, 1)  # a fresh worker's start alone takes longer than 0.21 s
        assert failed["type"] == "error" and failed["code"] == "timeout"
    assert client.app.state.analysis.pool.killed >= 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"type": "analyse", "game": "spline"}, "bad_frame"),
        ({"type": "analyse", "id": 1}, "bad_frame"),
        ({"type": "analyse", "id": 1, "game": "spline", "time": -1}, "bad_time"),
        ({"type": "analyse", "id": 1, "game": "spline", "time": "soon"}, "bad_time"),
        ({"type": "analyse", "id": 1, "game": "spline", "moves": "0a1"}, "bad_move"),
        ({"type": "analyse", "id": 1, "game": "spline", "moves": ["0a1", "0a1"]}, "bad_move"),
        ({"type": "analyse", "id": 1, "game": "spline", "spn": "nonsense"}, "bad_spn"),
        ({"type": "analyse", "id": 1, "game": "spline", "extra": 1}, "bad_frame"),
        ({"type": "analyse", "id": 1, "game": "spagyric"}, "bad_seat"),
        ({"type": "analyse", "id": 1, "game": "spagyric", "seat": 7}, "bad_seat"),
        ({"type": "solve_everything", "id": 1}, "bad_frame"),
        ({"type": "analyse_game", "id": 1, "record": "nope"}, "unknown_game"),
    ],
)
def test_bad_engine_requests_get_a_clear_error(client: TestClient, frame: Frame, code: str) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json(frame)
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == code and error["message"]
        ws.send_text("{not json")
        assert ws.receive_json()["code"] == "bad_frame"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # the connection lives on


def test_analyses_at_once_are_bounded_per_connection_and_in_total(make_client: MakeClient) -> None:
    client = make_client(per_connection=2, total=3)
    long = {"type": "analyse", "game": "spline", "time": 3}
    with client.websocket_connect("/ws/analysis") as ws, client.websocket_connect("/ws/analysis") as other:
        ws.send_json({**long, "id": 1})
        ws.send_json({**long, "id": 2, "moves": ["0a1"]})
        ws.send_json({**long, "id": 3, "moves": ["0b1"]})
        refused = answer(ws, 3)
        assert refused["code"] == "busy"
        other.send_json({**long, "id": 1, "moves": ["0c1"]})
        other.send_json({**long, "id": 2, "moves": ["0d1"]})
        assert answer(other, 2)["code"] == "server_busy"
        ws.send_json({"type": "cancel", "id": 1})
        ws.send_json({"type": "cancel", "id": 2})
        other.send_json({"type": "cancel", "id": 1})


def addressed(app: Any) -> Any:
    """``app`` seeing each request come from the address in its ``x-test-address`` header (a test's
    stand-in for requests from several machines)."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        for name, value in scope.get("headers", []):
            if name == b"x-test-address":
                scope = {**scope, "client": (value.decode(), 1)}
        await app(scope, receive, send)

    return wrapped


def test_one_address_holds_only_its_share_of_the_pool_and_never_starves_another(tmp_path: Path) -> None:
    """An attacker opens many analysis sockets from one address and asks for long analyses on each:
    its address holds ``per_address`` jobs and no more, and another address is still served."""
    settings = AnalysisLimits(workers=1, per_connection=2, total=8, per_address=3, connections_per_address=20)
    app = create_app(str(tmp_path / "g.sqlite3"), agent_delay=0, limits=TEST_LIMITS, analysis_limits=settings)
    long = {"type": "analyse", "game": "spinca", "time": 8}  # an estimate: it takes its whole time
    with TestClient(addressed(app)) as client:
        attacker = {"x-test-address": "10.0.0.66"}
        sockets = [client.websocket_connect("/ws/analysis", headers=attacker) for _ in range(5)]
        opened = [ws.__enter__() for ws in sockets]
        try:
            codes = []
            for ws in opened:
                for job in (1, 2):
                    ws.send_json({**long, "id": job})
            for ws in opened:
                for job in (1, 2):
                    ws.send_json({"type": "ping", "id": 100 + job})
            for ws in opened:
                seen: list[Frame] = []
                while len([f for f in seen if f.get("type") == "pong"]) < 2:
                    seen.append(ws.receive_json())
                codes += [f.get("code") for f in seen if f.get("type") == "error"]
            assert len(codes) == 10 - 3 and set(codes) == {"busy"}, seen  # 3 jobs taken, 7 refused
            with client.websocket_connect("/ws/analysis", headers={"x-test-address": "10.0.0.7"}) as honest:
                honest.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 0.3})
                started = time.monotonic()
                assert answer(honest, 1)["type"] == "analysis"  # served while the attacker holds its share
                assert time.monotonic() - started < 15  # next in turn, not behind all the attacker's 8 s jobs
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)


def test_one_address_never_runs_on_every_worker_so_another_address_starts_at_once(tmp_path: Path) -> None:
    """With two workers, an attacker's address asking for long analyses runs on one of them only:
    the other is left for whoever asks next, who is answered long before the attacker's jobs end
    (the attacker benchmark once saw an honest request wait 30 s for a worker)."""
    settings = AnalysisLimits(workers=2, per_connection=2, total=8, per_address=4, connections_per_address=20)
    app = create_app(str(tmp_path / "g.sqlite3"), agent_delay=0, limits=TEST_LIMITS, analysis_limits=settings)
    long = {"type": "analyse", "game": "spinca", "time": 30}  # an estimate: it takes its whole time
    with TestClient(addressed(app)) as client:
        attacker = {"x-test-address": "10.0.0.66"}
        with (
            client.websocket_connect("/ws/analysis", headers=attacker) as first,
            client.websocket_connect("/ws/analysis", headers=attacker) as second,
        ):
            for ws in (first, second):
                for job in (1, 2):
                    ws.send_json({**long, "id": job})
                ws.send_json({"type": "ping", "id": 100})
                seen: list[Frame] = []
                while not any(f.get("type") == "pong" for f in seen):
                    seen.append(ws.receive_json())
                assert not [f for f in seen if f.get("type") == "error"], seen  # all four jobs taken
            with client.websocket_connect("/ws/analysis", headers={"x-test-address": "10.0.0.7"}) as honest:
                honest.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 0.3})
                started = time.monotonic()
                assert answer(honest, 1)["type"] == "analysis"
                assert time.monotonic() - started < 20  # not behind the attacker's 30 s jobs


def test_a_cancelled_analysis_frees_its_worker_for_the_next(client: TestClient) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 10})
        while ws.receive_json()["type"] != "progress":
            pass
        ws.send_json({"type": "cancel", "id": 1})
        started = time.monotonic()
        ws.send_json({"type": "analyse", "id": 2, "game": "special-cake", "options": "variant=mint", "spn": ROW})
        result = answer(ws, 2)
    assert result["type"] == "analysis" and result["analysis"]["verdict"] == 1
    assert time.monotonic() - started < 10  # it did not wait for the 10 s search it replaced


def test_spagyric_twins_differing_in_the_hidden_bags_get_byte_identical_answers(client: TestClient) -> None:
    [(state, twin)] = twins(2, True, 1)
    assert state.to_spn() != twin.to_spn()
    with client.websocket_connect("/ws/analysis") as ws:
        for seat in (0, 1):
            texts = []
            for number, spn in enumerate((state.to_spn(), twin.to_spn())):
                job = {"type": "analyse", "id": 10 * seat + number, "game": "spagyric", "options": "supply=2"}
                ws.send_json({**job, "spn": spn, "seat": seat})
                result = answer(ws, 10 * seat + number)["analysis"]
                assert result["status"] == "exact" and result["seat"] == seat
                texts.append(json.dumps({k: v for k, v in result.items() if k not in ("seconds", "positions")}))
            assert texts[0] == texts[1]


def finished_game(client: TestClient, game: str = "special-cake", options: Frame | None = None) -> Frame:
    created = client.post(
        "/api/games",
        json={
            "game": game,
            "options": {"variant": "sugar"} if options is None else options,
            "seats": [{"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "random"}],
            "seed": 3,
        },
    ).json()
    for _ in range(200):
        info = client.get(f"/api/games/{created['id']}").json()
        if info["status"] == "finished":
            return dict(created)
        time.sleep(0.05)
    raise AssertionError("the agents did not finish")


def test_a_finished_game_opens_on_the_board_and_its_thrown_away_wins_are_marked(client: TestClient) -> None:
    created = finished_game(client)
    opened = client.get(f"/api/analysis/record/{created['id']}").json()
    record = client.get(f"/api/games/{created['id']}/record").json()
    assert opened["moves"] == [m if isinstance(m, str) else m["move"] for m in record["moves"]]
    end = position(
        client, game=opened["game"], spn=opened["spn"], moves=",".join(opened["moves"]), options="variant=sugar"
    )
    assert end.json()["frame"]["terminal"]
    state = spheria.load_game("special-cake", variant="sugar").state_from_spn(opened["spn"])
    for move in opened["moves"]:
        state.apply_notation(move)
    expected = analyse_game(state, time=None)
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse_game", "id": 9, "record": created["id"]})
        seen: list[Frame] = []
        report = answer(ws, 9, seen)["report"]
    assert [f["number"] for f in seen] == list(range(1, len(opened["moves"]) + 1))
    assert report["threw_away_win"] == expected.threw_away_win
    assert [m["move"] for m in report["moves"]] == opened["moves"]
    assert len(report["evaluation"]) == len(opened["moves"]) + 1


def test_a_game_in_play_is_not_analysed_from_its_record(client: TestClient) -> None:
    created = client.post(
        "/api/games", json={"game": "spagyric", "options": {"supply": 1}, "seats": [{"kind": "human"}] * 2}
    ).json()
    assert client.get(f"/api/analysis/record/{created['id']}").json()["error"]["code"] == "not_finished"
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse_game", "id": 1, "record": created["id"]})
        assert ws.receive_json()["code"] == "not_finished"


def test_the_page_is_served(client: TestClient) -> None:
    page = client.get("/analysis?game=spline")
    assert page.status_code == 200 and "/static/js/analysis.js" in page.text


def test_the_verdict_comes_first_and_stands_if_the_other_moves_run_out_of_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from spheria import analysis as library
    from spheria.games.special_cake import solver

    state = known_won_position()
    expected = solve(state)
    library.clear_cache()
    reports: list[Any] = []
    complete = library.analyse(state, time=60, progress=reports.append)
    partial = [r.partial for r in reports if r.partial is not None]
    assert partial and all(p.verdict == 1 for p in partial)
    found = [m for m in partial[0].moves if m.value == 1.0]  # the verdict comes with the move that proved it
    assert len(found) == 1 and found[0].move in {state.notation(m) for m in expected.best_moves}
    assert complete.best_moves == [state.notation(m) for m in expected.best_moves]
    assert all(m.value is not None for m in complete.moves)

    real = solver.solve

    def only_the_first(*args: Any, proved: Any, **kwargs: Any) -> Any:
        def then_out_of_time(move: Any, value: int) -> None:
            proved(move, value)
            if value > 0:
                raise TimeoutError

        return real(*args, proved=then_out_of_time, **kwargs)

    library.clear_cache()
    monkeypatch.setattr(solver, "solve", only_the_first)
    cut = library.analyse(state, time=60, progress=lambda _: None)
    assert cut.status == "exact" and cut.verdict == 1
    assert [m.move for m in cut.moves if m.value == 1.0] == [found[0].move]
    assert any(m.value is None for m in cut.moves)
    monkeypatch.undo()
    assert library.analyse(state, time=60).moves == complete.moves  # the cut answer was not cached
    library.clear_cache()


def known_won_position() -> CakeState:
    """A sugar eating position won with more than one winning move, and losing moves besides."""
    game = spheria.load_game("special-cake", variant="sugar")
    for seed in range(200):
        state = game.new_initial_state(seed=seed)
        for _ in range(3):
            state.apply(state.legal_moves()[seed % len(state.legal_moves())])
        assert isinstance(state, CakeState)
        result = solve(state)
        if result.value > 0 and 1 < len(result.best_moves) < len(state.legal_moves()):
            return state
    raise AssertionError("no such position")


def test_a_finished_spagyric_game_is_replayed_on_the_board_and_analysed_from_its_full_record(
    client: TestClient,
) -> None:
    created = finished_game(client, "spagyric", {"supply": 1})
    opened = client.get(f"/api/analysis/record/{created['id']}").json()
    end = position(client, game="spagyric", options="supply=1", spn=opened["spn"], moves=",".join(opened["moves"]))
    assert end.status_code == 200 and end.json()["frame"]["terminal"]
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse_game", "id": 1, "record": created["id"]})
        report = answer(ws, 1)["report"]
    assert [m["move"] for m in report["moves"]] == opened["moves"]
    record = Record.from_json(client.get(f"/api/games/{created['id']}/record").json())
    expected = analyse_game(record, time=None).to_json(statistics=False)
    assert report["evaluation"] == expected["evaluation"]  # exact at supply 1: the full record's values
    assert report["threw_away_win"] == expected["threw_away_win"]


def test_a_long_analysis_blocks_neither_the_event_loop_nor_other_games(client: TestClient) -> None:
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "id": 1, "game": "spline", "time": 8})
        while ws.receive_json()["type"] != "progress":
            pass  # the search runs in its worker
        created = finished_game(client, "spline", {})  # a whole agents' game is played meanwhile
        assert client.get(f"/api/games/{created['id']}").json()["status"] == "finished"
        ws.send_json({"type": "ping"})
        frame = ws.receive_json()
        while frame["type"] == "progress":
            frame = ws.receive_json()
        assert frame == {"type": "pong"}  # answered while the 8 s search still runs
        ws.send_json({"type": "cancel", "id": 1})


def test_a_flood_of_frames_is_rate_limited_and_the_socket_stays_up(make_client: MakeClient) -> None:
    client = make_client(frame_rate=5.0)
    with client.websocket_connect("/ws/analysis") as ws:
        for _ in range(40):
            ws.send_json({"type": "ping"})
        replies = [ws.receive_json() for _ in range(40)]
    limited = [r for r in replies if r.get("code") == "rate_limited"]
    assert limited and len(limited) < 40 and {"type": "pong"} in replies
