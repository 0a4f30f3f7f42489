"""mcts search options: ``widen=`` (an untried move counts as one visit at its node's mean).

Searches are bounded by iterations, so every result is deterministic for a seed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import spheria
from spheria.agents.mcts import MCTSAgent
from spheria.engine.board import parse_site
from spheria.games.spinca.rules import Spinca
from spheria.kernel.game import State
from spheria.kernel.kit import Knowledge


def test_widen_follows_a_child_that_beats_the_nodes_mean_instead_of_trying_every_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # White wins exactly when its first marble went on 0b2; the empty temple offers 16 first moves.
    good = parse_site("0b2")

    def playout(state: State[Any], rand: Any) -> list[float]:
        return [1.0, -1.0] if state.history[0].place == good else [-1.0, 1.0]

    kit = replace(Spinca.kit(), knowledge=Knowledge(playout=playout))
    monkeypatch.setattr(Spinca, "kit", classmethod(lambda cls: kit))
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
