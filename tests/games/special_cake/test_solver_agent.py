"""The solver as a player and on the command line: `solver` agent, `spheria solve`, `spheria analyse`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.agents.registry import make_agent
from spheria.cli.main import main
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.kernel.record import Record
from spheria.match import play

# Three candies in a row on level 0: w b w. Eating one leaves two, and whoever faces two
# eats one (eating both as a line would eat the last candy) and leaves the last to the other:
# so leaving two loses. Eating a mixed pair leaves one, which the opponent must eat: a win.
# Eating all three eats the last candy: a loss. The winning moves are exactly the two pairs.
ROW = "wbw............./........./..../. 1 eat"


def test_solve_names_the_winning_moves(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", ROW]) == 0
    out = capsys.readouterr().out
    assert "Mint to eat: won with perfect play." in out
    assert "Winning moves (2): 0a1+0b1 0b1+0c1" in out


def test_solve_json_and_a_lost_position(capsys: pytest.CaptureFixture[str]) -> None:
    # Two apart candies (0a1 and 0d4 do not touch): the mover must eat one and leave the last
    # to the opponent ... who then eats the last candy and loses. So two singles: won.
    # One candy: the mover eats the last candy: lost, and the only move is listed.
    assert main(["solve", "b..............w/........./..../. 2 eat", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["value"], sorted(data["best_moves"])) == (1, ["0a1", "0d4"])
    assert main(["solve", "b.............../........./..../. 2 eat", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["value"], data["best_moves"], data["player_to_move"]) == (-1, ["0a1"], 2)


def test_solve_rejects_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "wbw............./........./..../. 1"]) == 1
    assert "SPN: Special Cake SPN has 3 fields" in capsys.readouterr().err
    spn = "w.............../........./..../. 2 place"
    assert main(["solve", spn, "--option", "variant=poisoned", "--option", "line_rule=same"]) == 1
    assert "only for mint and poisoned with mixed lines" in capsys.readouterr().err


def test_analyse_marks_every_thrown_away_win(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=5)
    play(state, [RandomAgent(seed=1), RandomAgent(seed=2)])
    path = Record.from_state(state, ["random", "random"]).save(tmp_path / "game.spheria.json")
    assert main(["analyse", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["moves"]
    assert [row["number"] for row in rows] == list(range(1, len(state.history) + 1))  # sugar: all eating
    won = [row["values_before"][row["seat"]] > 0 for row in rows]
    for row, following, had_won, next_won in zip(rows, rows[1:], won, won[1:], strict=False):
        assert row["status"] == "exact" and following["seat"] == 1 - row["seat"]
        # A move threw a win away exactly when the mover had won and the opponent has won next.
        assert row["threw_away_win"] == (had_won and next_won)
        if not had_won:
            assert next_won  # every move from a lost position hands over a win
    assert not won[-1]  # eating the last candy: the last mover had lost
    assert data["threw_away_win"] == [row["number"] for row in rows if row["threw_away_win"]]


def test_analyse_gives_engine_win_rates_for_other_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = spheria.load_game("spinca").new_initial_state()  # a game no exact analyser answers
    play(state, [RandomAgent(seed=1), RandomAgent(seed=2)])
    path = Record.from_state(state, ["random", "random"]).save(tmp_path / "spinca.spheria.json")
    assert main(["analyse", str(path), "--iterations", "50", "--time", "30", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["move"] for row in data["moves"]] == [str(move) for move in state.history]
    assert {row["status"] for row in data["moves"]} == {"estimate"}
    assert len(data["evaluation"]) == len(state.history) + 1
    assert all(row["before"]["iterations"] == 50 for row in data["moves"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_solver_never_loses_a_position_it_judged_won(seed: int) -> None:
    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=seed)
    solver = SolverAgent(seed=seed)
    judged_won = False

    def watch(state: spheria.State[object], turn: object) -> None:
        nonlocal judged_won
        judged_won = judged_won or solver.last_value == 1

    for solver_seat in (0, 1):
        game = state.clone()
        agents = [RandomAgent(seed=seed), RandomAgent(seed=seed)]
        agents[solver_seat] = solver  # type: ignore[call-overload]
        judged_won = False
        returns = play(game, agents, on_move=watch)
        if judged_won:
            assert returns[solver_seat] == 1


def test_solver_specs() -> None:
    assert make_agent("solver:setup=random,seed=3").name == "solver:seed=3,setup=random"
    with pytest.raises(ValueError, match="setup must be one of"):
        make_agent("solver:setup=alphabeta")
    with pytest.raises(ValueError, match="plays Special Cake"):
        SolverAgent().choose(spheria.load_game("spline").new_initial_state(), 0)


@pytest.mark.parametrize("spec", ["solver", "level:5", "solver:blunder=0.05,seed=1", "level:4,seed=1"])
def test_a_watched_solver_reports_the_positions_it_searched(spec: str) -> None:
    """The positions counted while it solves reach ``watch``'s callback (the server's progress line)."""
    from spheria.games.special_cake.solver import clear_tables, solve

    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=1)  # a full cake to eat
    assert isinstance(state, CakeState)
    clear_tables()
    reports: list[int] = []
    agent = make_agent(spec)
    agent.watch(reports.append)
    move = agent.choose(state, 0)
    assert move in state.legal_moves()
    clear_tables()
    searched = solve(state, stop_at_first=True).positions
    assert len(reports) > 1 and reports == sorted(reports) and 0 < reports[-1] <= searched
    count = len(reports)
    agent.watch(None)  # stopped: a new move reports nothing
    clear_tables()
    agent.choose(state, 0)
    assert len(reports) == count
