"""The game runner: normal nodes, simultaneous nodes, views and callbacks.

``SecretNumbers`` is a tiny simultaneous game with hidden information, so the simultaneous
path is tested without depending on Spagyric. Two rounds: both seats secretly pick 1, 2 or 3
at once (a ``SIMULTANEOUS`` node), the picks are revealed, then seat 0 alone says ``next`` or
``double`` (a normal node). Each seat also holds a secret card dealt from the seed, which only
that seat may see. The larger total of picks (doubled if seat 0 said ``double``) plus the
card wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import spheria
from spheria.agents.random_agent import RandomAgent
from spheria.kernel.agent import Agent, Plays
from spheria.kernel.game import SIMULTANEOUS, IllegalMoveError, InvalidMoveError, PlayerView, State
from spheria.match import Turn, choose_moves, play, step
from tests.conftest import PICKS, SecretNumbers


class SpyAgent(Agent):
    """Plays a fixed sequence and remembers every (view, player) it was handed.

    With ``match_legal`` it returns the legal move (from the view) written as the next text.
    """

    def __init__(self, moves: Sequence[str], match_legal: bool = False) -> None:
        self.name = "spy"
        self.moves = list(moves)
        self.match_legal = match_legal
        self.seen: list[tuple[PlayerView, int]] = []
        self.to_move: list[int] = []  # view.current_player() when asked

    def choose(self, view: PlayerView, player: int) -> Any:
        self.seen.append((view, player))
        self.to_move.append(view.current_player())
        text = self.moves.pop(0)
        if self.match_legal:
            return next(m for m in view.legal_moves(player) if str(m) == text)
        return text


# -- Special Cake: normal nodes ---------------------------------------------------------------


@pytest.mark.parametrize("variant", ["mint", "sugar", "poisoned"])
def test_play_reaches_the_end_and_reports_every_turn(variant: str) -> None:
    state = spheria.load_game("special-cake", variant=variant).new_initial_state(seed=11)
    turns: list[Turn] = []
    returns = play(state, [RandomAgent(seed=1), RandomAgent(seed=2)], on_move=lambda s, t: turns.append(t))
    assert state.is_terminal()
    assert returns == state.returns()
    assert sorted(returns) == [-1.0, 1.0]
    assert [t.number for t in turns] == list(range(1, len(state.history) + 1))
    assert [t.entry for t in turns] == state.history_notation()
    assert all(not t.simultaneous and len(t.moves) == 1 for t in turns)


def test_each_agent_is_asked_for_its_own_seat_only() -> None:
    state = spheria.load_game("special-cake", variant="mint").new_initial_state()
    expected = state.clone()
    agents = [SpyAgent(["0a1", "0b1"], match_legal=True), SpyAgent(["0a2", "0b2"], match_legal=True)]
    for _ in range(4):
        step(state, agents)
    assert [p for _, p in agents[0].seen] == [0, 0]
    assert [p for _, p in agents[1].seen] == [1, 1]
    assert agents[0].to_move == [0, 0] and agents[1].to_move == [1, 1]  # asked only on its own turn
    for text in ("0a1", "0a2", "0b1", "0b2"):
        expected.apply(expected.parse_move(text))
    assert state.to_spn() == expected.to_spn()


def test_same_seeds_give_the_same_game() -> None:
    games = []
    for _ in range(2):
        state = spheria.load_game("special-cake", variant="poisoned").new_initial_state()
        play(state, [RandomAgent(seed=5), RandomAgent(seed=6)])
        games.append(state.history_notation())
    assert games[0] == games[1]


def test_wrong_number_of_agents_is_refused() -> None:
    state = spheria.load_game("special-cake").new_initial_state()
    with pytest.raises(ValueError, match="needs 2 agents"):
        play(state, [RandomAgent()])


def test_an_agent_that_cannot_play_the_game_is_refused_before_the_first_move() -> None:
    class TwoSeatSpy(SpyAgent):
        spec_name = "two-seat-spy"
        plays = Plays(seats=(2,), hidden_information=False)

    spinca = spheria.load_game("spinca", players=3).new_initial_state()
    spy = TwoSeatSpy(["0a1"])
    with pytest.raises(ValueError, match=r"two-seat-spy does not play Spinca \(3 seats\): it plays perfect-info"):
        play(spinca, [RandomAgent(seed=1), spy, RandomAgent(seed=2)])
    assert spinca.history == () and spy.seen == []
    hidden = spheria.load_game("spagyric").new_initial_state()
    with pytest.raises(ValueError, match="Agents for Spagyric: fixed, random, spagyric"):
        play(hidden, [TwoSeatSpy([]), RandomAgent()])
    assert hidden.history == ()


def test_an_illegal_agent_move_names_the_seat_and_changes_nothing() -> None:
    state = spheria.load_game("special-cake").new_initial_state()
    bad = SpyAgent(["not a move"])
    with pytest.raises(InvalidMoveError, match=r"seat 0 \(spy\) chose not a move"):  # the same kind of refusal
        play(state, [bad, RandomAgent()])
    assert state.history == ()
    taken = spheria.load_game("spline").new_initial_state()
    first = taken.parse_move("0a1")
    taken.apply(first)

    class Again(SpyAgent):  # plays the move object already played: a move, but not legal now
        def choose(self, view: PlayerView, player: int) -> Any:
            return first

    with pytest.raises(IllegalMoveError, match=r"seat 1 \(spy\) chose 0a1: 0a1 is taken") as refused:
        step(taken, [RandomAgent(), Again([])])
    assert not isinstance(refused.value, InvalidMoveError) and len(taken.history) == 1


def test_choose_moves_refuses_a_finished_game() -> None:
    state = spheria.load_game("special-cake", variant="sugar").new_initial_state(seed=2)
    play(state, [RandomAgent(seed=1), RandomAgent(seed=1)])
    with pytest.raises(ValueError, match="game is over"):
        choose_moves(state, [RandomAgent(), RandomAgent()])


# -- a simultaneous game ----------------------------------------------------------------------


def test_simultaneous_nodes_ask_every_seat_from_its_own_view() -> None:
    state = SecretNumbers().new_initial_state(seed=3)
    assert state.cards[0] != state.cards[1]  # so a view of the wrong seat would show
    north, south = SpyAgent(["2", "double", "3", "next"]), SpyAgent(["1", "3"])
    turns: list[Turn] = []
    returns = play(state, [north, south], on_move=lambda s, t: turns.append(t))

    assert state.history_notation() == ["2/1", "double", "3/3", "next"]
    assert [(t.player, t.moves, t.entry) for t in turns] == [
        (SIMULTANEOUS, ("2", "1"), "2/1"),
        (0, ("double",), "double"),
        (SIMULTANEOUS, ("3", "3"), "3/3"),
        (0, ("next",), "next"),
    ]
    assert turns[0].simultaneous and not turns[1].simultaneous
    # South chose only at the two simultaneous nodes; North at all four nodes.
    assert [p for _, p in south.seen] == [1, 1]
    assert [p for _, p in north.seen] == [0, 0, 0, 0]
    assert north.to_move == [SIMULTANEOUS, 0, SIMULTANEOUS, 0]
    for agent, seat in ((north, 0), (south, 1)):
        for view, player in agent.seen:
            assert not isinstance(view, State), "an agent was handed the full state"
            assert player == seat
            assert view.observation(player)["card"] == state.cards[seat]
    first_view = south.seen[0][0]
    assert first_view.current_player() == SIMULTANEOUS
    assert first_view.legal_moves(1) == list(PICKS)
    # "double" doubles the picks before it: North 2*2 + 3, South 1*2 + 3, plus the cards.
    assert state.totals() == [state.cards[0] + 7, state.cards[1] + 5]
    assert returns == state.returns()


def test_joint_moves_are_applied_in_seat_order() -> None:
    state = SecretNumbers(rounds=1).new_initial_state(seed=1)
    play(state, [SpyAgent(["3", "next"]), SpyAgent(["1"])])
    assert state.history == (("3", "1"), "next")


def test_an_illegal_joint_move_names_every_seat() -> None:
    state = SecretNumbers().new_initial_state(seed=1)
    with pytest.raises(IllegalMoveError, match=r"seat 0 \(spy\) chose 9, seat 1 \(spy\) chose 1"):
        step(state, [SpyAgent(["9"]), SpyAgent(["1"])])
    assert state.history == ()


def test_random_agents_play_a_simultaneous_game_to_the_end() -> None:
    for seed in range(5):
        state = SecretNumbers(rounds=3).new_initial_state(seed=seed)
        returns = play(state, [RandomAgent(seed=seed), RandomAgent(seed=seed + 1)])
        assert state.is_terminal() and len(state.history) == 6
        assert sum(returns) == 0
