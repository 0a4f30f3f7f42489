"""mcts search options: ``rave=`` (AMAF statistics of end-of-game features) and ``widen=``.

Searches are bounded by iterations, so every result is deterministic for a seed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import spheria
from spheria.agents import heuristics
from spheria.agents.heuristics import Amaf, GameKnowledge, spinca_held_playout
from spheria.agents.mcts import MCTSAgent
from spheria.agents.registry import make_agent
from spheria.engine.board import parse_site
from spheria.games.base import State
from spheria.games.spinca import TEMPLE, temple_returns
from tests.test_agents import Takeaway

#: Black to move with two turns left: of its five moves only ``2a2-2a1 2a2`` (Black ends on
#: 2a1 and 2a2) wins against every reply; placing on 2b2 loses (checked in the test below).
TWO_TURNS_LEFT = "wwbwwbbbbwbwbwww/bbbwbwbww/.wb./. 2 1c1,1c2,2b1"


def test_rave_counts_every_iteration_for_the_features_the_movers_side_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seat 0 always ends holding feature 1 and winning; seat 1 holds feature 2 and loses.
    def playout(state: State[Any], rand: Any) -> tuple[list[float], list[int]]:
        return [1.0, -1.0], [0b010, 0b100]

    amaf = Amaf(3, lambda move: int(move), lambda state: [0b010, 0b100], playout)
    monkeypatch.setitem(heuristics._KNOWLEDGE, Takeaway.name, GameKnowledge(amaf=amaf))
    agent = MCTSAgent(iterations=40, seed=1, rave=100)
    assert agent.name == "mcts:iterations=40,c=1.4,rave=100,seed=1"
    agent.choose(Takeaway(pile=20).new_initial_state(), 0)
    assert agent.root_amaf() == {1: (40, 1.0)}  # every iteration, seat 0's reward, seat 0's feature only
    assert agent.root_values() == [1.0, -1.0]


def test_rave_widens_a_node_towards_the_feature_that_has_done_well(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seat 0 wins exactly when its first move took 2 tokens, and then holds feature 2; else feature 1.
    def playout(state: State[Any], rand: Any) -> tuple[list[float], list[int]]:
        first = state.history[0]
        return ([1.0, -1.0] if first == 2 else [-1.0, 1.0]), [1 << first, 0]

    amaf = Amaf(3, lambda move: int(move), lambda state: [0, 0], playout)
    monkeypatch.setitem(heuristics._KNOWLEDGE, Takeaway.name, GameKnowledge(amaf=amaf))
    agent = MCTSAgent(iterations=60, seed=3, rave=1000, c=0.2)
    assert agent.choose(Takeaway(pile=20).new_initial_state(), 0) == 2
    amaf_stats = agent.root_amaf()
    assert amaf_stats[2][1] == 1.0 and amaf_stats[1][1] == -1.0
    visits = {move: n for move, (n, _) in agent.root_children().items()}
    assert visits["2"] > 50 and visits["1"] < 5  # the losing move is tried, then starved


def test_the_position_has_one_winning_move_and_rave_finds_it() -> None:
    game = spheria.load_game("spinca", players=2)
    state = game.state_from_spn(TWO_TURNS_LEFT)
    black = state.current_player()
    winning = []
    for move in state.legal_moves():
        state.apply(move)
        replies = []
        for reply in state.legal_moves():
            state.apply(reply)
            replies.append(state.returns()[black])
            state.undo()
        state.undo()
        if min(replies) > 0:
            winning.append(move)
    assert [str(move) for move in winning] == ["2a2-2a1 2a2"] and len(state.legal_moves()) == 5
    a1, a2, b2 = (parse_site(name) for name in ("2a1", "2a2", "2b2"))
    for seed in range(3):
        agent = MCTSAgent(iterations=150, seed=seed, rave=300, c=0.5)
        assert agent.choose(state, black) == winning[0]
        means = {site: mean for site, (_, mean) in agent.root_amaf().items()}
        ranked = sorted(means, key=means.__getitem__)
        assert set(ranked[-2:]) == {a1, a2} and ranked[0] == b2  # Black's reward, Black's sites


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_spinca_held_playout_returns_each_seats_colour_on_the_finished_temple(players: int) -> None:
    game = spheria.load_game("spinca", players=players)
    state = game.new_initial_state()
    rng = random.Random(players)
    for _ in range(6):
        moves = state.legal_moves()
        state.apply(moves[int(rng.random() * len(moves))])
    for _ in range(20):
        rewards, held = spinca_held_playout(state.clone(), rng.random)
        colors = list(dict.fromkeys(held))  # one mask per side, in side order
        assert len(held) == players and len(colors) == (3 if players == 3 else 2)
        if players == 4:
            assert held[0] == held[2] and held[1] == held[3]  # a team holds one colour
        assert sum(mask.bit_count() for mask in colors) == 29 and not colors[0] & colors[1]
        masks = [*colors, 0][:3]
        assert rewards == temple_returns((masks[0], masks[1], masks[2]), players)
        assert all(mask & ~TEMPLE == 0 for mask in colors)


def test_rave_option_is_checked() -> None:
    assert make_agent("mcts:time=0.2,rave=300").name == "mcts:time=0.2,c=1.4,rave=300"
    with pytest.raises(ValueError, match="mcts option rave must be a number from 0 to 100000, not -1"):
        make_agent("mcts:rave=-1")
    with pytest.raises(ValueError, match=r"own playout \(rollout=game\), not rollout=guided$"):
        make_agent("mcts:rave=10,rollout=guided")


def test_widen_follows_a_child_that_beats_the_nodes_mean_instead_of_trying_every_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # White wins exactly when its first marble went on 0b2; the empty temple offers 16 first moves.
    good = parse_site("0b2")

    def playout(state: State[Any], rand: Any) -> list[float]:
        return [1.0, -1.0] if state.history[0].place == good else [-1.0, 1.0]

    monkeypatch.setitem(heuristics._KNOWLEDGE, "spinca", GameKnowledge(playout=playout))
    empty = spheria.load_game("spinca", players=2).new_initial_state()
    plain = MCTSAgent(iterations=60, seed=0, c=0.05)
    widened = MCTSAgent(iterations=60, seed=0, c=0.05, widen=True)
    assert widened.name == "mcts:iterations=60,c=0.05,widen=1,seed=0"
    assert str(plain.choose(empty, 0)) == str(widened.choose(empty, 0)) == "0b2"
    assert len(plain.root_children()) == 16  # every first move tried before any is searched again
    tried = widened.root_children()
    # An untried move counts as one visit at the root's mean (near 1 once 0b2 dominates), which
    # rarely beats 0b2's own mean of 1: most first moves are never tried.
    assert len(tried) < 10 and tried["0b2"][0] > 50
