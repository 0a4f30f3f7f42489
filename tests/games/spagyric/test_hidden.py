"""Spagyric's hidden information, and properties of whole random games.

What a seat may know: the pyramid, its own supply, the opponent's number of balls, the stunned
balls (both saw them revealed), the ball being placed, and — only with ``memory=False`` — the
reveals so far. Never a choice in progress (the state cannot even hold one), nor a bag, nor
the opponent's supply by colour. The strongest check is non-interference: positions that
differ only in hidden data must look exactly alike, through every channel an interface or an
agent uses (observation, view, status lines, hint, board drawing).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria import SIMULTANEOUS, IllegalMoveError
from spheria.agents.random_agent import RandomAgent
from spheria.games.spagyric.rules import OVER, PLACE, REVEAL, SUDDEN, Choice, SpagyricState, SpagyricView
from spheria.match import play

COLOURS = "wbr"
#: From the rules: white beats black, black beats red, red beats white.
BEATS = {"w": "b", "b": "r", "r": "w"}
BEATEN_BY = {loser: winner for winner, loser in BEATS.items()}

PUBLIC_KEYS = {
    "game",
    "player",
    "supply_per_color",
    "memory",
    "board",
    "phase",
    "current_player",
    "to_decide",
    "placer",
    "placing",
    "stunned",
    "supplies",
    "returns",
}
SEAT_KEYS = (PUBLIC_KEYS - {"supplies"}) | {"supply", "opponent_supply", "legal_moves"}


def new(supply: int, memory: bool) -> SpagyricState:
    state = spheria.load_game("spagyric", supply=supply, memory=memory).new_initial_state()
    assert isinstance(state, SpagyricState)
    return state


def random_game(seed: int, supply: int, memory: bool) -> Iterator[SpagyricState]:
    """Every node of a random game, the state moved on in place after each yield.

    The seats choose from their own views, as agents do.
    """
    rng = random.Random(seed)
    state = new(supply, memory)
    while True:
        yield state
        if state.is_terminal():
            return
        if state.current_player() == SIMULTANEOUS:
            state.apply_joint([rng.choice(state.view(p).legal_moves(p)) for p in (0, 1)])
        else:
            mover = state.current_player()
            state.apply(rng.choice(state.view(mover).legal_moves(mover)))


def reload(state: SpagyricState) -> SpagyricState:
    twin = state.game.state_from_spn(state.to_spn())
    assert isinstance(twin, SpagyricState)
    return twin


def bag_twins(state: SpagyricState) -> list[SpagyricState]:
    """Legal positions that differ from ``state`` only in who lost which balls.

    One more ball of each colour in one seat's bag and one fewer in the other's: every colour's
    count in the bags, every supply and the pyramid stay the same. (The counts that do not
    change are worked out in the module docs; SPN checking refuses any twin that is not a
    possible position, and those are skipped.)
    """
    fields = state.to_spn().split()
    bags = [[int(n) for n in fields[6].split(",")], [int(n) for n in fields[7].split(",")]]
    twins = []
    for gainer in (0, 1):
        moved = [[n + (1 if seat == gainer else -1) for n in bags[seat]] for seat in (0, 1)]
        if min(moved[0] + moved[1]) < 0:
            continue
        text = " ".join([*fields[:6], *(",".join(map(str, bag)) for bag in moved)])
        try:
            twin = state.game.state_from_spn(text)
        except ValueError:
            continue
        assert isinstance(twin, SpagyricState)
        twins.append(twin)
    return twins


def seen_by(state: SpagyricState, seat: int | None) -> str:
    """Everything an interface or an agent in ``seat`` gets (``None``: a spectator), as text."""
    if seat is None:
        shown: dict[str, Any] = {
            "observation": state.public_observation(),
            "status": state.status_lines(None),
            "hint": state.move_hint(None),
        }
    else:
        view = state.view(seat)
        shown = {
            "observation": state.observation(seat),
            "status": state.status_lines(seat),
            "hint": state.move_hint(seat),
            "view_moves": [str(m) for m in view.legal_moves(seat)],
            "view_player": view.current_player(),
            "view_observation": view.observation(seat),
        }
    shown["board"] = str(state)
    return json.dumps(shown, sort_keys=True)


def regular(state: SpagyricState) -> bool:
    return state.phase in (REVEAL, PLACE) or (state.phase == OVER and state.board.count() < 30)


# -- every node of many random games -------------------------------------------------------

CASES = [(seed, supply, memory) for seed in range(40) for supply in (1, 2, 8, 12) for memory in (True, False)]


def test_observations_follow_the_schema_at_every_node() -> None:
    nodes = 0
    for seed, supply, memory in CASES:
        for state in random_game(seed, supply, memory):
            nodes += 1
            for seat in (0, 1):
                obs = state.observation(seat)
                assert json.loads(json.dumps(obs)) == obs  # JSON-ready: no tuples, sets or objects
                assert set(obs) == SEAT_KEYS | (set() if memory else {"history"})
                assert obs["player"] == seat
                assert obs["supply"] == dict(zip(COLOURS, state.hand(seat), strict=True))
                assert obs["opponent_supply"] == sum(state.hand(1 - seat))
                assert obs["legal_moves"] == [str(m) for m in state.legal_moves(seat)]
                assert obs["current_player"] == state.current_player()
                assert "bag" not in json.dumps(obs)
                if not memory:
                    assert obs["history"] == state.history_notation()
            public = state.public_observation()
            assert set(public) == PUBLIC_KEYS | (set() if memory else {"history"})
            assert public["supplies"] == [sum(state.hand(0)), sum(state.hand(1))]
    assert nodes > 2000


def test_an_observation_depends_on_the_position_only_not_on_how_it_was_reached() -> None:
    """With ``memory`` on, nothing of the game's history is shown: a position read back from
    SPN (no history at all) looks exactly like the position reached by play."""
    for seed, supply, memory in CASES:
        if not memory:
            continue
        for state in random_game(seed, supply, memory):
            fresh = reload(state)
            for seat in (0, 1, None):
                assert seen_by(fresh, seat) == seen_by(state, seat)


def test_who_lost_which_balls_is_never_shown() -> None:
    """Twins that differ only in the bags look alike to both seats and to spectators."""
    twins_checked = 0
    for seed, supply, memory in CASES:
        for state in random_game(seed, supply, memory):
            base = reload(state)  # no history, like the twins
            for twin in bag_twins(base):
                assert twin.to_spn() != base.to_spn()
                for seat in (0, 1, None):
                    assert seen_by(twin, seat) == seen_by(base, seat)
                twins_checked += 1
    assert twins_checked > 500


def test_a_choice_in_progress_has_nowhere_to_go() -> None:
    """At every reveal one seat's choice cannot be lodged in the state, and choosing from a
    view changes nothing the other seat is shown."""
    for seed, supply, memory in CASES[:40]:
        for state in random_game(seed, supply, memory):
            if state.current_player() != SIMULTANEOUS:
                continue
            before = [seen_by(state, seat) for seat in (0, 1, None)]
            for choice in state.legal_moves(0):
                assert isinstance(choice, Choice)
                with pytest.raises(IllegalMoveError):
                    state.apply(choice)
                state.view(0).legal_moves(0)  # an agent in seat 0 choosing
            assert [seen_by(state, seat) for seat in (0, 1, None)] == before


def test_views_are_built_from_the_observation_alone() -> None:
    state = new(8, True)
    state.apply_notation("w:b")
    view = state.view(1)
    assert isinstance(view, SpagyricView)
    assert set(view.__slots__) == {"_observation", "player"}  # no way back to the state
    assert view.observation(1) == SpagyricView(state.observation(1)).observation(1) == state.observation(1)
    assert view.legal_moves(1) == [] and view.current_player() == 0
    with pytest.raises(ValueError, match="seat 1's"):
        view.legal_moves(0)
    with pytest.raises(ValueError, match="seat 1's"):
        view.observation(0)
    shown = view.observation(1)
    shown["supply"]["w"] = 99  # a copy: changing it changes nothing
    assert view.observation(1)["supply"]["w"] == 8
    assert [str(m) for m in state.view(0).legal_moves(0)] == [str(m) for m in state.legal_moves(0)]


def test_status_lines_show_a_seat_its_own_supply_and_spectators_only_counts() -> None:
    state = new(8, True)
    state.apply_notation("w:b")
    assert state.status_lines(0)[1:3] == ["Your supply: 7 white, 8 black, 8 red.", "Player 2 holds 23 balls."]
    assert state.status_lines(1)[1:3] == ["Your supply: 8 white, 7 black, 8 red.", "Player 1 holds 23 balls."]
    spectator = state.status_lines(None)
    assert spectator[1] == "Player 1 holds 23 balls, Player 2 23."
    assert not any("white," in line for line in spectator)


def test_counting_gives_the_opponents_supply_by_colour_as_the_rules_allow() -> None:
    """Not a leak but a property of the rules, stated in the docs: every ball in play beat one
    ball of the colour it beats into the bag, so the bag's colours, and with one's own supply
    the opponent's, follow from the pyramid. What stays hidden is who lost which balls."""
    for seed, supply, memory in CASES[:80]:
        for state in random_game(seed, supply, memory):
            if not regular(state):
                continue
            for seat in (0, 1):
                obs = state.observation(seat)
                in_play = {c: obs["board"].count(c) + (obs["placing"] == c) for c in COLOURS}
                used_by_both = {c: in_play[c] + in_play[BEATEN_BY[c]] for c in COLOURS}
                mine = {c: supply - obs["stunned"][c] - obs["supply"][c] for c in COLOURS}
                theirs = {c: supply - obs["stunned"][c] - (used_by_both[c] - mine[c]) for c in COLOURS}
                assert [theirs[c] for c in COLOURS] == state.supply[1 - seat]


def test_games_between_agents_run_through_the_match_runner() -> None:
    for seed in range(20):
        state = new(8, True)
        returns = play(state, [RandomAgent(seed=seed), RandomAgent(seed=seed + 100)])
        assert state.is_terminal() and returns in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])


# -- property tests ------------------------------------------------------------------------


def conservation(state: SpagyricState) -> None:
    """Each colour has 2 x supply balls: on the pyramid, about to be placed, in the supplies,
    stunned (one from each seat per stun) or in the bags."""
    s = state.game.supply
    for c, char in enumerate(COLOURS):
        on_board = str(state.board.spn()).count(char)
        pending = 1 if state.phase == PLACE and state.placing == c else 0
        stunned = 2 * state.stunned[c] if state.phase != SUDDEN else 0
        total = (
            on_board + pending + state.supply[0][c] + state.supply[1][c] + stunned + state.bag[0][c] + state.bag[1][c]
        )
        assert total == 2 * s, (char, state.to_spn())


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), supply=st.integers(1, 12), memory=st.booleans())
def test_random_games_end_conserve_balls_and_round_trip(seed: int, supply: int, memory: bool) -> None:
    spns = []
    for steps, state in enumerate(random_game(seed, supply, memory)):
        assert steps < 3 * supply * 31 + 31  # each reveal uses one ball of each seat's, or places one
        conservation(state)
        spn = state.to_spn()
        assert reload(state).to_spn() == spn
        spns.append(spn)
        for twin in bag_twins(reload(state)):
            for seat in (0, 1, None):
                assert seen_by(twin, seat) == seen_by(reload(state), seat)
    assert state.is_terminal()
    assert state.returns() in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])
    assert state.board.count() <= 27  # never a full pyramid: a group of 3+ always comes first
    while state.history:
        state.undo()
        spns.pop()
        assert state.to_spn() == spns[-1]
