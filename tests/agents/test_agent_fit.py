"""Agents that fit the game: every (game, variant or seat count, agent) pair either plays a whole
game or is refused before the first move, naming the agents that fit — never fails mid-game.

Budgets are small (iterations, depth, and ``max_time=1`` on every agent so no solve runs long).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

import spheria
from spheria.agents.registry import agent_names, agents_for, check_fit, check_spec, default_agent, make_agent
from spheria.arena import run_arena
from spheria.cli.main import main
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import PlayerView
from spheria.match import play

#: Every game as a player meets it: each variant, each seat count (Spagyric with a small supply).
GAMES: list[tuple[str, dict[str, Any]]] = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "poisoned"}),
    ("spline", {}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spagyric", {"supply": 3}),
]

#: Each agent with a small budget; ``{seed}`` differs per seat.
SMALL = {
    "random": "random:seed={seed}",
    "greedy": "greedy:seed={seed}",
    "mcts": "mcts:iterations=15,seed={seed}",
    "alphabeta": "alphabeta:depth=1,seed={seed}",
    "solver": "solver:seed={seed},time=0.5",
    "planner": "planner:seed={seed},time=0.02,solves=2,exact=3",
    "spagyric": "spagyric:iterations=8,exact=1,seed={seed}",
    "fixed": "fixed:color=b,seed={seed}",
}


def test_every_agent_has_a_small_budget_here() -> None:
    assert sorted(SMALL) == agent_names()


@pytest.mark.parametrize("agent", sorted(SMALL))
@pytest.mark.parametrize(("name", "options"), GAMES, ids=[f"{n}-{o}" for n, o in GAMES])
def test_an_agent_plays_a_whole_game_or_is_refused_before_it_starts(
    name: str, options: dict[str, Any], agent: str
) -> None:
    game = spheria.load_game(name, **options)
    state = game.new_initial_state(seed=1)
    agents = [make_agent(SMALL[agent].format(seed=seat + 1), max_time=1) for seat in range(game.num_players)]
    if agent in agents_for(game):
        returns = play(state, agents)
        assert state.is_terminal() and len(returns) == game.num_players
    else:
        with pytest.raises(ValueError, match=rf"^{agent} does not play .*Agents for .*: ") as refused:
            play(state, agents)
        assert state.history == ()  # refused before the first move
        for fitting in agents_for(game):
            assert fitting in str(refused.value)
        assert "View" not in str(refused.value) and "(or human)" not in str(refused.value)


@pytest.mark.parametrize(("name", "options"), GAMES, ids=[f"{n}-{o}" for n, o in GAMES])
def test_every_game_has_a_default_agent_that_fits(name: str, options: dict[str, Any]) -> None:
    game = spheria.load_game(name, **options)
    default = default_agent(game)
    assert default in agents_for(game) and "random" in agents_for(game)
    check_fit(game, [check_spec(default, game)])


def test_what_each_agent_declares_it_plays() -> None:
    load, fits = spheria.load_game, agents_for
    assert fits(load("spagyric")) == ["fixed", "random", "spagyric"]
    assert fits(load("spline")) == ["alphabeta", "greedy", "mcts", "random"]
    assert fits(load("special-cake", variant="mint")) == ["alphabeta", "greedy", "mcts", "planner", "random", "solver"]
    assert fits(load("special-cake", variant="sugar")) == ["alphabeta", "greedy", "mcts", "random", "solver"]
    assert fits(load("spinca", players=3)) == ["greedy", "mcts", "random"]  # alphabeta: two seats only


def test_options_can_narrow_what_an_agent_plays() -> None:
    sugar = spheria.load_game("special-cake", variant="sugar")
    check_spec("solver", sugar)
    with pytest.raises(
        ValueError,
        match=r"solver:setup=planner does not play Special Cake \(variant=sugar\): "
        r"it plays Special Cake \(variant=mint\|poisoned\)\. Agents for",
    ):
        check_spec("solver:setup=planner", sugar)


class SmallSupply(Agent):
    """An agent that plays any game with a ``supply`` option, at a small supply only."""

    spec_name = "small-supply"
    plays = Plays(options={"supply": (2, 3)})

    def choose(self, view: PlayerView, player: int) -> Any:
        raise AssertionError("a misfit is refused before it chooses")


def test_an_agent_may_play_some_values_of_any_option() -> None:
    load = spheria.load_game
    assert SmallSupply().fits(load("spagyric", supply=3)) and SmallSupply().fits(load("spagyric", supply=2))
    assert not SmallSupply().fits(load("spagyric", supply=4))
    assert not SmallSupply().fits(load("spline"))  # a game without the option is not one it plays
    with pytest.raises(
        ValueError,
        match=r"^small-supply does not play Spagyric \(supply=4\): it plays every game \(supply=2\|3\)\. Agents for",
    ):
        check_fit(load("spagyric", supply=4), [SmallSupply()])
    with pytest.raises(ValueError, match=r"^small-supply does not play Spline: it plays every game \(supply=2\|3\)"):
        check_fit(load("spline"), [SmallSupply()])


def test_what_an_agent_plays_is_fixed_once_declared() -> None:
    values = {"players": (2,)}
    plays = Plays(options=values)
    values["players"] = (3,)
    assert plays.fits(spheria.load_game("spinca", players=2)) and not plays.fits(spheria.load_game("spinca", players=3))
    with pytest.raises(TypeError):
        plays.options["players"] = (3,)  # type: ignore[index]
    assert plays == Plays(options={"players": (2,)}) != Plays()


def test_the_arena_refuses_a_misfit_before_any_game() -> None:
    with pytest.raises(ValueError, match=r"mcts does not play Spagyric.*Agents for Spagyric: fixed, random, spagyric"):
        run_arena("spagyric", {}, ["mcts", "random"], games=2)


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["play", "spagyric", "--players", "human,mcts"], "mcts does not play Spagyric"),
        (["play", "spline", "--players", "human,planner"], "planner does not play Spline"),
        (["play", "spinca", "--players", "alphabeta,human,human"], "alphabeta does not play Spinca (3 seats)"),
    ],
)
def test_play_refuses_a_misfit_up_front(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("0a1\n" * 5))
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""  # nothing drawn: refused before the game starts
    assert problem in err and "Agents for" in err
    assert "View" not in err and not err.rstrip().endswith("(or human)")
