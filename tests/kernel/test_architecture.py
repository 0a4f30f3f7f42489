"""A new game is one package: dropped into :mod:`spheria.games`, it appears everywhere without
editing another file — the registry, the command line (``spheria games``, ``play``, ``replay``,
``analyse``, ``arena``), the levels, the arena, the lobby (its catalogue, levels and how-to, a game
played to the end and its record) and the analysis board (a position, the finished game opened and
analysed), OpenSpiel and PettingZoo.

The game is tests/plugin_games/pile (a pile of stones; each turn takes one or two; whoever takes
the last stone wins), a package laid out as docs/architecture.md's "Adding a game" says, with a
kit of levels, knowledge, a codec and a how-to. It is taken out again after each test.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import spheria
import spheria.games
from spheria.cli.main import main
from spheria.kernel import registry as base
from spheria.kernel.game import Game
from spheria.kernel.options import Option
from spheria.kernel.registry import register

PLUGINS = Path(__file__).parents[1] / "plugin_games"  # the packages a game's author would drop in


@pytest.fixture
def pile_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Game]]:
    """Put the Pile package (tests/plugin_games/pile) where the registry finds games (the folder named
    by ``SPHERIA_GAME_PATH``), as a game's author would; afterwards the registry, the namespace and the
    modules are as before."""
    base.game_names()  # the built-in games registered first, so that the copy below holds them all
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(spheria.games, "__path__", list(spheria.games.__path__))  # restored afterwards
    monkeypatch.setenv(base.GAME_PATH, str(PLUGINS))  # worker processes find it too
    monkeypatch.setattr(base, "_BUILTINS_LOADED", False)
    yield base.game_class("test-pile")
    for name in [m for m in sys.modules if m == "spheria.games.pile" or m.startswith("spheria.games.pile.")]:
        del sys.modules[name]


def test_a_registered_game_is_listed_loaded_and_described(pile_registered: type[Game]) -> None:
    assert "test-pile" in spheria.game_names()
    assert pile_registered in spheria.game_classes() and pile_registered.__module__ == "spheria.games.pile.rules"
    game = spheria.load_game("test-pile", stones="7", players=3)
    info = game.info()
    assert (info.title, info.min_players, info.max_players, info.num_players) == ("Pile", 2, 3, 3)
    assert [seat.name for seat in info.seats] == ["Taker 1", "Taker 2", "Taker 3"]
    described = {d["name"]: d for d in spheria.describe_games()}["test-pile"]
    assert json.loads(json.dumps(described)) == described  # JSON-safe as it is
    assert described["seats"] == [{"name": f"Taker {n}", "color": None, "side": n - 1} for n in (1, 2)]
    assert described["options"][0] == {
        "name": "stones",
        "type": "int",
        "default": 5,
        "value": 5,
        "choices": [],
        "minimum": 1,
        "maximum": 50,
        "help": "stones in the pile at the start",
    }
    assert described["simultaneous"] is False and described["perfect_information"] is True
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply(state.parse_move(str(state.legal_moves()[-1])))
    assert state.winners() == [(len(state.history) - 1) % 3]
    # A plugin's options and history are as safe as a shipped game's: the base classes see to it.
    with pytest.raises(TypeError):
        game.options["players"] = 2  # type: ignore[index]
    assert game.num_players == 3 and dict(game.options) == {"players": 3, "stones": 7}
    assert isinstance(state.history, tuple) and state.history == tuple(state._history)
    with pytest.raises(AttributeError):
        state.history = ()  # type: ignore[misc]


def test_a_registered_game_appears_in_spheria_games(
    pile_registered: type[Game], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "test-pile  Pile, 2 to 3 players (by default 2: Taker 1, Taker 2); sequential, perfect information" in out
    assert "--option stones=N (1 to 50); default 5" in out
    assert "e.g. spheria play test-pile --players human,level:3" in out  # it has levels
    pile_block = out[out.index("test-pile  ") :].split("\n\n")[0]
    assert "level:1" in pile_block and "level:5" in pile_block  # from its kit's level table


def test_the_registry_refuses_a_game_without_its_facts(pile_registered: type[Game]) -> None:
    nameless = type("Nameless", (pile_registered,), {"name": ""})
    crowded = type("Crowded", (pile_registered,), {"name": "test-crowded", "min_players": 3, "max_players": 2})
    impostor = type("Impostor", (pile_registered,), {"name": "spinca"})
    for cls, problem in ((nameless, "must declare its name"), (crowded, "seat range 3..2"), (impostor, "taken")):
        with pytest.raises(ValueError, match=problem):
            register(cls)
    assert spheria.load_game("spinca").title == "Spinca"


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"players": 2.5}, "option 'players' takes a whole number, not 2.5"),
        ({"players": "2.5"}, "option 'players' takes a whole number, not '2.5'"),
        ({"players": 4}, "option 'players' must be at least 2 and at most 3, not 4"),
        ({"stones": float("inf")}, "option 'stones' takes a whole number, not inf"),
        ({"stones": True}, "option 'stones' takes a whole number, not True"),
    ],
)
def test_whole_number_options_refuse_fractions_and_bounds(
    pile_registered: type[Game], options: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        spheria.load_game("test-pile", **options)


def test_number_options_must_be_finite_and_in_range() -> None:
    seconds = Option("seconds", 1.0, "thinking time", kind=float, minimum=0.0, maximum=10)
    assert seconds.parse("2.5") == 2.5 and seconds.parse(3) == 3.0
    for value, problem in ((float("nan"), "finite"), ("inf", "finite"), (11, "at most 10"), ("x", "finite")):
        with pytest.raises(ValueError, match=problem):
            seconds.parse(value)
    assert seconds.describe(2.0)["type"] == "float"


def test_a_registered_game_loads_in_openspiel(pile_registered: type[Game]) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from spheria.integrations import openspiel

    openspiel.register_all()  # the integration picks up games registered after its import
    game = openspiel.load("test-pile", stones=7, players=3)
    kind = game.get_type()
    # Three takers are general-sum: another game type, so its own registration, found from the facts.
    assert (kind.short_name, kind.utility) == ("spheria_test_pile_3", pyspiel.GameType.Utility.GENERAL_SUM)
    assert (kind.min_num_players, kind.max_num_players, game.num_players()) == (3, 3, 3)
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL and game.num_distinct_actions() == 2
    assert pyspiel.load_game("spheria_test_pile").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.string_to_action(state.action_to_string(state.legal_actions()[-1])))
    assert state.returns() == [1.0 if seat == 0 else -1.0 for seat in range(3)]  # 2, 2, 2, 1: seat 1 took the last


def test_a_game_package_plays_from_the_command_line_against_its_levels(
    pile_registered: type[Game], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "pile.spheria.json"
    assert main(["play", "test-pile", "--players", "level:1,level:5", "--seed", "3", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "took the last stone and wins." in out  # the game's own words, through status_lines
    record = json.loads(saved.read_text(encoding="utf-8"))
    assert (record["game"], record["players"]) == ("test-pile", ["level:1", "level:5"])
    assert sum(int(move) for move in record["moves"]) == 5 and record["result"] in ([1.0, -1.0], [-1.0, 1.0])
    # The record replays, and is analysed, by the same commands as a shipped game's.
    assert main(["replay", str(saved), "--no-color"]) == 0
    assert "took the last stone and wins." in capsys.readouterr().out
    assert main(["analyse", str(saved), "--json", "--iterations", "50"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [move["move"] for move in report["moves"]] == record["moves"]
    assert main(["analyse", "--game", "test-pile", "--position", "4 1 1", "--json", "--iterations", "50"]) == 0
    assert {move["move"] for move in json.loads(capsys.readouterr().out)["moves"]} == {"1", "2"}
    arena = ["arena", "test-pile", "--option", "stones=9", "--agents", "random,level:5", "--games", "4", "--json"]
    assert main(arena) == 0
    assert json.loads(capsys.readouterr().out)["agents"]["level:5"]["wins"] == 4


def test_a_game_package_has_levels_knowledge_and_how_to(pile_registered: type[Game]) -> None:
    from spheria.agents.heuristics import evaluation
    from spheria.agents.levels import levels_for
    from spheria.agents.registry import make_agent
    from spheria.help import howto_blocks

    game = spheria.load_game("test-pile", stones=7)
    assert [entry.spec for entry in levels_for(game)][-1] == "alphabeta:depth=8"
    state = game.new_initial_state()
    assert make_agent("level:5").choose(state, 0) == 1  # 7 stones: take 1, leave a multiple of three
    assert evaluation(game)(state, 0) == 1.0 and evaluation(game)(state.child(2), 0) == -1.0
    assert "whoever takes the last stone wins" in " ".join(str(block) for block in howto_blocks("test-pile"))


def test_a_game_package_plays_in_the_arena(pile_registered: type[Game]) -> None:
    from spheria.arena import run_arena

    report = run_arena("test-pile", {"stones": 9}, ["random", "level:5"], games=6, seed=2)
    assert report.agents["level:5"].wins == 6  # perfect play wins every game of 9 stones from either seat


def test_a_game_package_is_in_the_lobby_and_on_the_analysis_board(pile_registered: type[Game], tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from spheria.kernel.record import Record
    from spheria.server.app import create_app
    from spheria.server.limits import Limits

    app = create_app(
        str(tmp_path / "g.sqlite3"), agent_delay=0, agent_pool="thread", limits=Limits(allowed_hosts=("testserver",))
    )
    with TestClient(app) as client:
        # The lobby: listed, its options checked with its seats and its five levels, its how-to.
        listed = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}["test-pile"]
        assert listed["title"] == "Pile" and listed["players"] == ["Taker 1", "Taker 2"]
        checked = client.post("/api/check", json={"game": "test-pile", "options": {"stones": 6}}).json()
        assert checked["options"] == {"stones": 6, "players": 2}
        assert [level["spec"] for level in checked["levels"]] == [f"level:{n}" for n in range(1, 6)]
        howto = client.get("/api/howto/test-pile").json()
        assert "whoever takes the last stone" in howto["text"]
        # A game between two of its levels is played to the end, and its record replays.
        seats = [{"kind": "agent", "agent": "level:5"}, {"kind": "agent", "agent": "level:1"}]
        created = client.post("/api/games", json={"game": "test-pile", "options": {"stones": 6}, "seats": seats})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        deadline = time.monotonic() + 30
        while client.get(f"/api/games/{game_id}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the levels did not finish a pile of 6"
            time.sleep(0.05)
        record = Record.from_json(client.get(f"/api/games/{game_id}/record").json())
        final = record.replay()
        assert final.is_terminal() and sum(int(move) for move in record.moves) == 6
        assert record.players == ["level:5", "level:1"] and record.result == final.returns()
        # The analysis board: a position of it, and the finished game opened and analysed.
        position = client.get(
            "/api/analysis/position", params={"game": "test-pile", "spn": "4 1 1", "options": "stones=5"}
        )
        assert position.status_code == 200, position.text
        assert position.json()["spn"] == "4 1 1" and position.json()["frame"]["legal_moves"] == ["1", "2"]
        opened = client.get(f"/api/analysis/record/{game_id}").json()
        assert (opened["spn"], opened["moves"], opened["result"]) == ("6 1 0", record.moves, "finished")
        with client.websocket_connect("/ws/analysis") as ws:
            ws.send_json(
                {"type": "analyse", "id": 1, "game": "test-pile", "options": "stones=5", "spn": "4 1 1", "time": 0.3}
            )
            while (frame := ws.receive_json())["type"] == "progress":
                pass
            assert frame["type"] == "analysis", frame
            assert {m["move"] for m in frame["analysis"]["moves"]} == {"1", "2"}
            ws.send_json({"type": "analyse_game", "id": 2, "record": game_id})
            while (frame := ws.receive_json())["type"] == "progress":
                pass
        assert frame["type"] == "game_analysis", frame
        assert [m["move"] for m in frame["report"]["moves"]] == record.moves
        assert len(frame["report"]["evaluation"]) == len(record.moves) + 1


def test_a_game_package_is_a_pettingzoo_environment(pile_registered: type[Game]) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from spheria.integrations.pettingzoo import env

    api_test(env("test-pile", stones=7), num_cycles=50)
