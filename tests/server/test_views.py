"""Clicks never dead-end: the click tree the server sends each seat (``frame["clicks"]``).

The page offers only the clicks of the tree node it has reached and plays the node's move, so
these properties are what a player meets on the page:

* every path of clicks the page may offer ends in a legal move (no dead end);
* every legal move is reached by clicking its sites — in its written order, and for games whose
  sites may be picked in any order (Special Cake's lines) in *every* order;
* a click order that is itself a legal eating order plays exactly that order's outcome;
* Spinca: the marbles offered as a first click are the free ones (locks and pins included);
* every frame says which colour each seat places now and the game's phase, so the page draws
  the ball under a target without knowing the rules.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria.kernel.game import SIMULTANEOUS, State
from spheria.server.views import (
    ANY_ORDER,
    click_tree,
    clicks_of,
    open_as,
    picking_kind,
    picking_order,
    public_frame,
    seat_frame,
)

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("special-cake", {"variant": "mint"}),
    ("special-cake", {"variant": "poisoned"}),
    ("special-cake", {"variant": "sugar"}),
    ("special-cake", {"variant": "mint", "line_rule": "any"}),
    ("special-cake", {"variant": "sugar", "line_rule": "same"}),
    ("spinca", {"players": 2}),
    ("spinca", {"players": 3}),
    ("spinca", {"players": 4}),
    ("spline", {}),
    ("spagyric", {}),
]


def random_position(name: str, options: dict[str, Any], seed: int, plies: int) -> State[Any]:
    """The position after ``plies`` random moves (fewer if the game ends first)."""
    game = spheria.load_game(name, **options)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == SIMULTANEOUS:
            choices = [state.legal_moves(seat) for seat in range(game.num_players)]
            state.apply_joint([rng.choice(moves) if moves else None for moves in choices])
        else:
            state.apply(rng.choice(state.legal_moves()))
    return state


def paths(node: dict[str, Any], clicks: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    yield clicks, node
    for click, child in node.get("next", {}).items():
        yield from paths(child, (*clicks, click))


def follow(tree: dict[str, Any], clicks: tuple[str, ...] | list[str]) -> dict[str, Any] | None:
    node = tree
    for click in clicks:
        node = node.get("next", {}).get(click)
        if node is None:
            return None
    return node


def seats_to_pick(state: State[Any]) -> list[int]:
    if state.is_terminal():
        return []
    if state.current_player() == SIMULTANEOUS:
        return [seat for seat in range(state.game.num_players) if state.legal_moves(seat)]
    return [state.current_player()]


def check_tree(state: State[Any], seat: int) -> None:
    moves = [str(m) for m in state.legal_moves(seat)]
    tree = click_tree(state, seat, moves)
    any_order = picking_order(state) == ANY_ORDER
    # No dead end: every node the page can reach makes a move or leads on; every move is legal.
    for clicks, node in paths(tree):
        assert "move" in node or node.get("next"), f"dead end after {clicks} in {state.to_spn()}"
        if clicks and "move" in node:
            move = node.get("order", moves[node["move"]])  # the text the page sends
            if any_order:
                assert sorted(clicks) == sorted(clicks_of(move)), (clicks, move)
            else:
                assert list(clicks) == clicks_of(move), (clicks, move)
    assert "move" not in tree, "no move is made without a click"
    # Every legal move is reached by its clicks: as written, and in any order for sets.
    for index, move in enumerate(moves):
        written = clicks_of(move)
        reached = follow(tree, written)
        assert reached is not None and reached.get("move") == index, (move, state.to_spn())
        if any_order:
            for order in itertools.permutations(written):
                reached = follow(tree, order)
                assert reached is not None and "move" in reached, (order, state.to_spn())
                sent = reached.get("order", moves[reached["move"]])
                assert str(state.parse_move(sent, seat)) == moves[reached["move"]]
                try:
                    expected = str(state.parse_move(" ".join(order), seat))
                except ValueError:
                    # An order that is not legal plays the first listed move of its set.
                    assert sorted(clicks_of(sent)) == sorted(written) and "order" not in reached
                    continue
                assert clicks_of(sent) == list(order) and moves[reached["move"]] == expected


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**31), st.integers(0, 70))
def test_every_highlighted_path_completes_and_every_move_is_reachable(
    variant: tuple[str, dict[str, Any]], seed: int, plies: int
) -> None:
    name, options = variant
    state = random_position(name, options, seed, plies)
    for seat in seats_to_pick(state):
        check_tree(state, seat)


def test_a_full_cake_lines_are_clicked_in_any_order() -> None:
    """The issue's full cake: the pinned middle candy 1b1 leads on to the line it is in, and
    clicking 1b1, 1a1, 1c1 (or any order) plays the line in its legal order 1a1+1c1+1b1."""
    game = spheria.load_game("special-cake", variant="mint")
    state = game.state_from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat")
    frame = seat_frame(state, 0, {}, 0)
    tree, moves = frame["clicks"], frame["legal_moves"]
    assert frame["picking"] == "set"
    assert "1b1" not in moves  # pinned: it cannot be eaten alone ...
    for order in itertools.permutations(["1a1", "1b1", "1c1"]):
        node = follow(tree, order)  # ... but every order of its line reaches the line
        assert node is not None and moves[node["move"]] == "1a1+1c1+1b1"
    # 1b1 alone makes no move; it leads on only to the sites of its lines.
    after = follow(tree, ["1b1"])
    assert after is not None and "move" not in after
    assert set(after["next"]) <= {"1a1", "1c1", "0b1", "0b2", "2a1", "2b1", "1b2", "1b3", "0a1", "0c2", "0a2", "0c1"}
    # 2a1 then 0a1 is the start of a line (0a1, 1a1, 2a1 ...), never "not a line".
    node = follow(tree, ["2a1", "0a1"])
    assert node is not None and node.get("next")
    for _, leaf in paths(node, ("2a1", "0a1")):
        if "move" in leaf:
            assert state.parse_move("+".join(clicks_of(moves[leaf["move"]])), 0)


def test_spinca_offers_only_free_marbles_and_only_their_legal_targets() -> None:
    """Locked and pinned marbles are never a first click; a relocation leads only to placements."""
    game = spheria.load_game("spinca", players=2)
    # Black to move. White moved a marble to 0c1 and placed on 1a1: both are locked, and the
    # four marbles under 1a1 may not move (1a1 would tumble), so only 0d1 is free.
    #   level 0 (rank 1 at the bottom)   level 1
    #   . . . .                          . . .
    #   . . . .                          . . .
    #   w b . .                          w . .
    #   w b w b
    state = game.state_from_spn("wbwbwb........../w......../..../. 2 0c1,1a1")
    tree = click_tree(state, 1, [str(m) for m in state.legal_moves(1)])
    board = state.to_spn().split()[0].replace("/", "")
    from spheria.engine.board import SITE_NAMES

    marbles = {click for click in tree["next"] if board[SITE_NAMES.index(click)] != "."}
    assert "0a1" not in marbles and "0b1" not in marbles
    assert marbles == {"0d1"}
    for marble in marbles:
        node = follow(tree, [marble])
        assert node is not None and "move" not in node  # a relocation alone is not a turn
        for target, after in node["next"].items():
            assert board[SITE_NAMES.index(target)] == "."
            assert after.get("next") and "move" not in after
    assert picking_kind(state, tree) == "sequence"


def test_spagyric_choices_are_words_then_the_winner_places() -> None:
    game = spheria.load_game("spagyric")
    state = game.new_initial_state(3)
    frame = seat_frame(state, 0, {}, 0)
    assert frame["picking"] == "choose" and set(frame["clicks"]["next"]) == {"w", "b", "r"}
    assert frame["code"] == {"code": "choose", "waiting": [0, 1], "chosen": False, "phase": "reveal"}
    assert frame["placing"] == [None, None]  # nobody places at a reveal
    state.apply_joint([state.parse_move("w", 0), state.parse_move("b", 1)])  # white beats black
    placer = seat_frame(state, 0, {}, 1)
    other = seat_frame(state, 1, {}, 1)
    assert placer["reveal"] == {"colors": ["w", "b"], "winner": 0, "stunned": False} == other["reveal"]
    assert placer["picking"] == "place" and other["picking"] == "none"
    assert placer["code"] == {"code": "turn", "seat": 0, "phase": "place"}
    assert placer["placing"] == ["w", None] == other["placing"]  # the winner places the ball that won
    state.apply(state.legal_moves(0)[0])
    state.apply_joint([state.parse_move("r", 0), state.parse_move("r", 1)])
    assert seat_frame(state, 1, {}, 3)["reveal"] == {"colors": ["r", "r"], "winner": None, "stunned": True}


def test_the_result_names_the_sites_that_decided_it() -> None:
    """Spagyric's end shows the group that decided it; Spline's its winning line."""
    spagyric = spheria.load_game("spagyric")
    state = spagyric.new_initial_state(1)
    # Player 1 wins four reveals with red against white and places them in a row on level 0,
    # the last one joining a pair and a single ball into a group of exactly four.
    for site in ("0a1", "0b1", "0d1", "0c1"):
        state.apply_joint([state.parse_move("r", 0), state.parse_move("w", 1)])
        state.apply(state.parse_move(site, 0))
    frame = seat_frame(state, 1, {}, 8)
    assert frame["code"] == {"code": "over", "winners": [0]}
    assert frame["result"]["winners"] == [0]
    assert frame["result"]["sites"] == ["0a1", "0b1", "0c1", "0d1"]
    spline = spheria.load_game("spline")
    line = spline.new_initial_state()
    for site in ("0a1", "0a2", "0b1", "0b2", "0c1", "0c2", "0d1"):
        line.apply(line.parse_move(site))
    assert seat_frame(line, 0, {}, 7)["result"]["sites"] == ["0a1", "0b1", "0c1", "0d1"]
    assert seat_frame(spline.new_initial_state(), 0, {}, 0)["result"] is None


def test_every_frame_says_the_colour_each_seat_places_now_and_the_phase() -> None:
    """The page draws the ball a placement would put down from ``placing``, not from rules."""
    spinca = spheria.load_game("spinca", players=3).new_initial_state(0)
    for seat in range(3):
        frame = seat_frame(spinca, seat, {}, 0)
        assert frame["placing"] == ["w", "b", "r"] and frame["code"] == {"code": "turn", "seat": 0, "phase": None}
    assert public_frame(spinca, {}, 0)["placing"] == ["w", "b", "r"]
    cake = spheria.load_game("special-cake", variant="mint").new_initial_state(0)
    frame = seat_frame(cake, 0, {}, 0)
    assert frame["placing"] == ["w", "b"] and frame["code"]["phase"] == "place"
    while cake.phase_name() == "place":
        cake.apply(cake.legal_moves()[0])
    frame = seat_frame(cake, cake.current_player(), {}, len(cake.history))
    assert frame["placing"] == [None, None] and frame["code"]["phase"] == "eat"  # eating places nothing
    while not cake.is_terminal():
        cake.apply(cake.legal_moves()[0])
    assert public_frame(cake, {}, len(cake.history))["placing"] == [None, None]
    spline = spheria.load_game("spline").new_initial_state()
    spline.apply(spline.parse_move("0a1"))
    assert seat_frame(spline, 0, {}, 1)["placing"] == ["w", "b"]


def test_each_offer_of_a_turn_of_words_is_its_own_choice_and_no_secret() -> None:
    """A word with an argument (``offer 2``) is the word's click, then the argument's: every
    legal move is its own leaf of the click tree, and a turn that is not simultaneous is not a
    secret choice (the page's hint is worded from ``picking``)."""
    state = spheria.load_game("sandbox", players=3).new_initial_state()
    state.apply(state.parse_move("w 0a1"))
    frame = seat_frame(state, 0, {}, 0)
    moves = frame["legal_moves"]
    assert frame["picking"] == "words"
    assert set(frame["clicks"]["next"]["offer"]["next"]) == {"1", "2", "3", "draw"}
    reached = set()
    for index, move in enumerate(moves):
        node = frame["clicks"]
        for click in clicks_of(move):
            node = node["next"][click]
        assert node["move"] == index, move
        reached.add(node["move"])
    assert reached == set(range(len(moves)))
    state.apply(state.parse_move("offer 2"))
    answer = seat_frame(state, 1, {}, 1)
    assert answer["picking"] == "words" and set(answer["clicks"]["next"]) == {"accept", "decline"}


def test_a_free_board_opens_as_each_game_whose_position_it_is() -> None:
    """``open_as``: the games whose rules read the board as one of their positions (each game's
    ``read_board``), with a position each accepts; a board none of a game's positions has is not
    offered to it, and a game is never offered its own board."""
    state = spheria.load_game("sandbox").new_initial_state()
    for text in ("w 0a1", "b 0b1", "end"):
        state.apply(state.parse_move(text))
    offered = {entry["game"]: entry["spn"] for entry in seat_frame(state, 1, {}, 3)["open_as"]}
    assert set(offered) == {"spinca", "special-cake", "spline"}
    for game, spn in offered.items():
        read = spheria.load_game(game).state_from_spn(spn)
        assert read.to_spn().split()[0] == state.to_spn().split()[0]
    for text in ("w 0c1", "w 0d1", "end"):  # three white, one black: no Spinca or Spline position
        state.apply(state.parse_move(text))
    assert {entry["game"] for entry in open_as(state)} == {"special-cake"}
    spline = spheria.load_game("spline").new_initial_state()
    assert open_as(spline) == []  # a game with rules of its own: its pages offer no other game
    assert spheria.load_game("spagyric").read_board(state.to_spn().split()[0]) is None  # hidden supplies
