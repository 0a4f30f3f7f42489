"""mcts search options: ``widen=`` (an untried move counts as one visit at its node's mean) and
Spinca's decisive playout (``rollout=decisive``: a last turn that wins is taken).

Searches are bounded by iterations, so every result is deterministic for a seed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import spheria
from spheria.agents import heuristics
from spheria.agents.heuristics import GameKnowledge, spinca_decisive_playout, spinca_playout, winning_last_turn
from spheria.agents.mcts import MCTSAgent
from spheria.engine.board import parse_site
from spheria.games.base import State
from spheria.games.spinca import TEMPLE, SpincaState, temple_returns


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


#: White's last turn (28 marbles down): placing alone on 2b1 loses, and so does moving the
#: white 2a2 to 2b1 first; only moving the black 2b2 to 2b1 and placing on 2b2 wins.
ONE_WINNING_LAST_TURN = "bwbwwwbbwwwbbbbw/wwbbwbwbw/b.wb/. 1 2a1"
#: White's last turn where every turn loses.
NO_WINNING_LAST_TURN = "wbbwwbwbbwbwwwwb/bbwwwwbbb/b.wb/. 1 1c2,1c3,2b2"


def spinca_state(spn: str) -> SpincaState:
    state = spheria.load_game("spinca", players=2).state_from_spn(spn)
    assert isinstance(state, SpincaState)
    return state


def test_the_last_turn_positions_are_what_they_claim() -> None:
    game = spheria.load_game("spinca", players=2)
    for spn, winners in ((ONE_WINNING_LAST_TURN, ["2b2-2b1 2b2"]), (NO_WINNING_LAST_TURN, [])):
        state = game.state_from_spn(spn)
        found = []
        for move in state.legal_moves():
            state.apply(move)
            if state.returns()[0] > 0:
                found.append(str(move))
            state.undo()
        assert found == winners and len(state.legal_moves()) == 3


def test_the_decisive_playout_takes_a_winning_last_turn_where_the_random_one_often_misses() -> None:
    state = spinca_state(ONE_WINNING_LAST_TURN)
    rng = random.Random(5)
    plain = [spinca_playout(state.clone(), rng.random)[0] for _ in range(40)]
    decisive = [spinca_decisive_playout(state.clone(), rng.random)[0] for _ in range(40)]
    assert decisive == [1.0] * 40
    assert plain.count(-1.0) > 10  # a random last turn loses most of the time here
    after = winning_last_turn(state.masks(), 0, 2)
    assert after is not None and temple_returns(after, 2) == [1.0, -1.0]
    white, black, _ = after
    assert white | black == TEMPLE and white.bit_count() == 15 and black.bit_count() == 14


def test_without_a_winning_last_turn_the_decisive_playout_plays_it_at_random() -> None:
    state = spinca_state(NO_WINNING_LAST_TURN)
    assert winning_last_turn(state.masks(), 0, 2) is None
    rng = random.Random(5)
    assert all(spinca_decisive_playout(state.clone(), rng.random) == [-1.0, 1.0] for _ in range(20))


@pytest.mark.parametrize("players", [3, 4])
def test_the_last_turn_belongs_to_the_seat_that_places_the_29th_marble(players: int) -> None:
    # From the empty temple the decisive playout's last mover wins far more often than the others.
    state = spheria.load_game("spinca", players=players).new_initial_state()
    rng = random.Random(players)
    wins = [0] * players
    for _ in range(300):
        for seat, reward in enumerate(spinca_decisive_playout(state, rng.random)):
            wins[seat] += reward > 0
    last = 28 % players  # Black with 3 seats, White-A (and so White-B) with 4
    assert max(wins) == wins[last] and wins[last] > 1.3 * min(wins)


def test_mcts_takes_the_decisive_playout_when_told(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def playout(name: str) -> Any:
        def run(state: State[Any], rand: Any) -> list[float]:
            calls.append(name)
            return [1.0, -1.0]

        return run

    knowledge = GameKnowledge(playout=playout("game"), decisive_playout=playout("decisive"))
    monkeypatch.setitem(heuristics._KNOWLEDGE, "spinca", knowledge)
    agent = MCTSAgent(iterations=30, seed=1, rollout="decisive")
    assert agent.name == "mcts:iterations=30,c=1.4,rollout=decisive,seed=1"
    agent.choose(spheria.load_game("spinca", players=2).new_initial_state(), 0)
    assert len(calls) == 30 and set(calls) == {"decisive"}
    calls.clear()
    monkeypatch.setitem(heuristics._KNOWLEDGE, "spinca", GameKnowledge(playout=playout("game")))
    MCTSAgent(iterations=30, seed=1, rollout="decisive").choose(spheria.load_game("spinca").new_initial_state(), 0)
    assert calls and set(calls) == {"game"}  # no decisive playout: the game's own
