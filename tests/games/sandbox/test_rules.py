"""Rules tests for the Shibumi sandbox (docs/rules.md, "Shibumi Sandbox"), from drawn positions.

Each picture was worked out by hand from the set's physics: a ball on level 1 or above rests on
the four balls below it; a ball holding up two or more balls is pinned; removing a ball that holds
up one lets that ball drop into the hole, and the ball resting on it after it, up the rising
diagonal (the engine's drop rule). The marks drawn after a site are those the next player sees:
``+`` placed, ``>`` moved, ``v`` dropped, ``x`` emptied.
"""

from __future__ import annotations

import contextlib
import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria import IllegalMoveError, InvalidMoveError
from spheria.engine.board import NUM_SITES, SITE_NAMES, is_pinned, parse_diagram, unstable_sites
from spheria.games.sandbox.rules import Sandbox, SandboxMove, SandboxState
from spheria.kernel.game import TERMINAL, ResultReason
from spheria.kernel.record import Record
from tests.conftest import assert_rejected, play


def load(**options: Any) -> Sandbox:
    game = spheria.load_game("sandbox", **options)
    assert isinstance(game, Sandbox)
    return game


GAME = load()


def sandbox(picture: str, seat: int = 1, game: Sandbox = GAME) -> SandboxState:
    """The start of seat ``seat``'s turn (1-based, as in SPN) on the board drawn in ``picture``."""
    board, marks = parse_diagram(textwrap.dedent(picture))
    assert marks == {}
    state = game.state_from_spn(f"{board.spn()} {seat}")
    assert isinstance(state, SandboxState)
    return state


def assert_drawn(state: SandboxState, picture: str) -> None:
    """``state`` shows exactly ``picture``: its balls, and the marks the next player sees."""
    expected = textwrap.dedent(picture).strip("\n")
    assert str(state) == expected
    board, marks = parse_diagram(expected)
    assert state.board == board
    shown = state.shown_marks()
    assert (shown.diagram_marks() if shown else {}) == marks


def rejected(state: SandboxState, text: str, match: str, error: type[spheria.MoveError] = IllegalMoveError) -> None:
    assert_rejected(state, text, match, parse=SandboxMove.parse, error=error)


FULL = """
      level 0       level 1     level 2   level 3
    4 b w b w
    3 w b w b     3 r r r
    2 b w b w     2 r w r     2 r r
    1 w b w b     1 b r r     1 w r     1 r
      a b c d       a b c       a b       a
"""


# -- the start -------------------------------------------------------------------------------------


def test_the_sandbox_starts_empty_with_sixteen_balls_of_each_colour_and_the_first_seat_to_act() -> None:
    state = GAME.new_initial_state()
    assert state.to_spn() == "................/........./..../. 1"
    assert state.current_player() == 0 and state.box() == (16, 16, 16)
    moves = [str(m) for m in state.legal_moves()]
    # three colours on each of the 16 ground sites; nothing to remove, move or take back yet
    places = [f"{c} {SITE_NAMES[s]}" for c in "wbr" for s in range(16)]
    assert moves == [*places, "offer draw", "offer 1", "offer 2", "end"]
    assert GAME.player_names() == ["Player 1", "Player 2"] and GAME.seat_colors() == [None, None]
    assert (load(players=1).num_players, load(players=4).num_players) == (1, 4)


def test_every_legal_action_is_written_as_it_is_read() -> None:
    state = sandbox(FULL)
    play(state, "x 0d4", "w 3a1", "x 0a4")
    assert {m.action for m in state.legal_moves()} == {"place", "remove", "move", "back", "offer", "end"}
    for move in state.legal_moves():
        assert SandboxMove.parse(str(move)) == move
        assert state.parse_move(str(move)) == move


# -- placing ---------------------------------------------------------------------------------------


def test_a_ball_goes_on_the_ground_or_on_four_balls_and_never_on_a_taken_site() -> None:
    # 1a1 rests on 0a1 0b1 0a2 0b2, of which 0b2 is empty; 1b1 on 0b1 0c1 0b2 0c2, two empty.
    state = sandbox(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 w . . .     2 . . .     2 . .
        1 b r . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    rejected(state, "w 1a1", "1a1 cannot hold a ball: it rests on four balls, and 0b2 is empty")
    rejected(state, "w 1b1", "1b1 cannot hold a ball: it rests on four balls, and 0c1 0b2 0c2 are empty")
    rejected(state, "r 0b1", "0b1 is taken")
    play(state, "b 0b2", "r 1a1")
    assert_drawn(
        state,
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 w b+. .     2 . . .     2 . .
        1 b r . .     1 r+. .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
    )
    assert state.box() == (15, 14, 14) and state.current_player() == 0


def test_a_colour_whose_balls_are_all_on_the_board_cannot_be_placed() -> None:
    state = load(white=1, red=0).new_initial_state()
    rejected(state, "r 0a1", "no red ball is left in the box: all 0 are on the board")
    play(state, "w 0a1")
    rejected(state, "w 0b1", "no white ball is left in the box: all 1 are on the board")
    assert not any(str(m).startswith(("w ", "r ")) for m in state.legal_moves())
    play(state, "x 0a1", "w 0b1")  # a removed ball goes back to the box
    assert state.box() == (0, 16, 0)


# -- removing and the drop rule -----------------------------------------------------------------


def test_removing_a_corner_of_the_full_pyramid_drops_the_diagonal_above_it_one_step() -> None:
    # 0a1 holds up only 1a1, which holds up only 2a1, which holds up 3a1: each drops one site
    # down the diagonal, and the top is left empty.
    state = sandbox(FULL)
    play(state, "x 0a1")
    assert_drawn(
        state,
        """
          level 0       level 1     level 2   level 3
        4 b w b w
        3 w b w b     3 r r r
        2 b w b w     2 r w r     2 r r
        1 bvb w b     1 wvr r     1 rvr     1 .x
          a b c d       a b c       a b       a
        """,
    )
    assert state.box() == (7, 7, 5)


def test_a_pinned_ball_cannot_be_removed_or_moved() -> None:
    # 0b1 holds up 1a1 and 1b1: pinned. 0a1 holds up 1a1 only, and 1a1 nothing: both free.
    state = sandbox(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 w b w .     2 . . .     2 . .
        1 b w b .     1 r r .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    rejected(state, "x 0b1", "the ball on 0b1 is pinned: it holds up the balls on 1a1 1b1")
    rejected(state, "0b1-0d4", "the ball on 0b1 is pinned")
    removable = {str(m) for m in state.legal_moves() if m.action == "remove"}
    assert removable == {"x 0a1", "x 0c1", "x 0a2", "x 0c2", "x 1a1", "x 1b1"}
    play(state, "x 0a1")  # 1a1 drops into 0a1; 0b1 now holds up 1b1 alone
    assert_drawn(
        state,
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 w b w .     2 . . .     2 . .
        1 rvw b .     1 .xr .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
    )
    play(state, "x 0b1")  # now free: 1b1 drops into it
    assert state.board.spn() == "rrb.wbw........./........./..../."


def test_there_is_nothing_to_remove_from_an_empty_site() -> None:
    rejected(GAME.new_initial_state(), "x 0c3", "there is no ball on 0c3")


# -- moving ----------------------------------------------------------------------------------------


def test_a_move_is_a_removal_and_a_placement_with_the_drop_in_between() -> None:
    # The ball on 0a1 goes to 0d4; the red 1a1 it held drops into 0a1.
    state = sandbox(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w b . .     1 r . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    play(state, "0a1-0d4")
    assert_drawn(
        state,
        """
          level 0       level 1     level 2   level 3
        4 . . . w>
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 rvb . .     1 .x. .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
    )


def test_a_move_cannot_land_where_the_ball_leaving_held_the_target_up() -> None:
    # 1a1 rests on 0a1: once that ball leaves, 1a1 lacks a support. 0b1 is where the ball is.
    state = sandbox(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w b . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    rejected(
        state, "0a1-1a1", "once the ball leaves 0a1, 1a1 cannot hold a ball: it rests on four balls, and 0a1 is empty"
    )
    rejected(state, "0a1-0b1", "once the ball leaves 0a1, 0b1 is taken")
    rejected(state, "0a1-0a1", "a move takes the ball to another site, not back to 0a1")
    rejected(state, "0c4-0d4", "there is no ball on 0c4")
    assert "0b2-1a1" not in {str(m) for m in state.legal_moves()}


# -- a turn, back and the marks --------------------------------------------------------------------


def test_a_turn_holds_actions_until_end_and_back_takes_them_back_one_by_one() -> None:
    state = GAME.new_initial_state()
    play(state, "w 0a1", "b 0b1", "0a1-0c1")
    assert state.current_player() == 0 and state.turn_actions() == 3
    play(state, "back")
    assert state.board.spn() == "wb............../........./..../." and state.turn_actions() == 2
    assert_drawn(
        state,
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 w+b+. .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
    )
    play(state, "back", "back")
    assert state.board.spn() == "................/........./..../."
    rejected(state, "back", "there is nothing to take back: no ball was placed, removed or moved this turn")
    play(state, "r 0d4", "end")
    assert state.current_player() == 1 and state.turn_actions() == 0
    rejected(state, "back", "there is nothing to take back")  # the other seat's turn is over


def test_the_next_player_sees_what_the_last_turn_placed_moved_dropped_and_emptied() -> None:
    # Player 1 removes 0a1 (the red 1a1 drops into it), moves 0b2 to 0d1 and places black on
    # 0c1. A ball placed then moved in the same turn stays marked placed.
    state = sandbox(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w b . .     1 r . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    play(state, "x 0a1", "0b2-0d1", "b 0c1", "0c1-0a4", "end")
    assert state.current_player() == 1
    marks = state.last_turn_marks()
    assert marks is not None and marks.seat == 0
    assert marks.to_json() == {
        "seat": 0,
        "placed": ["0a4"],
        "moved": ["0d1"],
        "dropped": ["0a1"],
        "removed": ["0b2", "1a1"],
    }
    assert_drawn(
        state,
        """
          level 0       level 1     level 2   level 3
        4 b+. . .
        3 . . . .     3 . . .
        2 b .x. .     2 . . .     2 . .
        1 rvb . w>    1 .x. .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
    )
    assert state.observation(1)["last_turn"] == marks.to_json()
    assert "Marked, Player 1's last turn" in state.status_lines(1)[2]
    play(state, "w 0c1")  # the seat acting now sees its own turn's marks
    assert state.shown_marks() == state.this_turn_marks() and state.this_turn_marks().placed == 1 << 2


def test_a_turn_may_end_without_an_action_and_one_seat_plays_on_alone() -> None:
    state = load(players=1).new_initial_state()
    play(state, "w 0a1", "end", "end")
    assert state.current_player() == 0 and state.last_turn_marks() is not None
    assert not state.last_turn_marks()  # the second turn changed nothing


# -- offers ----------------------------------------------------------------------------------------


def test_a_result_offered_ends_the_game_when_every_other_seat_accepts() -> None:
    state = load(players=3).new_initial_state()
    play(state, "w 0a1", "end", "b 0b1", "offer 3")
    assert state.current_player() == 2  # Player 3 answers first, then Player 1
    rejected(state, "w 0c1", "Player 2 offered a win for Player 3: Player 3 accepts or declines before anything else")
    assert [str(m) for m in state.legal_moves()] == ["accept", "decline"]
    with pytest.raises(IllegalMoveError, match="Player 3 answers Player 2's offer first, not Player 1"):
        state.parse_move("accept", 0)
    play(state, "accept")
    assert state.current_player() == 0 and not state.is_terminal()
    play(state, "accept")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [-1.0, -1.0, 1.0] and state.winners() == [2]
    assert state.result_reason() == ResultReason("agreed_win", {"seat": 2})
    assert state.status_lines()[0] == "Agreed result: Player 3 wins."
    assert state.legal_moves() == []
    rejected(state, "end", "the game is over")


def test_a_declined_offer_hands_the_turn_back_to_the_seat_that_offered() -> None:
    state = GAME.new_initial_state()
    play(state, "w 0a1", "offer draw")
    assert state.current_player() == 1 and state.offer is not None
    play(state, "decline")
    assert state.current_player() == 0 and state.offer is None and state.turn_actions() == 1
    play(state, "back")  # still the same turn
    assert state.board.occupied == 0
    rejected(state, "accept", "no result is offered, so there is nothing to accept")
    play(state, "offer draw", "accept")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.result_reason() == ResultReason("agreed_draw", {})


def test_a_lone_player_ends_the_game_by_offering_the_result() -> None:
    state = load(players=1).new_initial_state()
    play(state, "offer 1")
    assert state.is_terminal() and state.returns() == [1.0]


def test_an_offer_names_a_seat_of_the_game() -> None:
    state = GAME.new_initial_state()
    rejected(state, "offer 3", "offer 3 names no seat: the seats are 1 to 2", error=InvalidMoveError)
    with pytest.raises(InvalidMoveError, match="offer 0 is not an offer"):
        state.parse_move("offer 0")


# -- owned colours ---------------------------------------------------------------------------------


def test_seats_that_own_colours_place_and_move_only_their_own_but_remove_any() -> None:
    game = load(own_colors=True, players=3)
    assert game.player_names() == ["White", "Black", "Red"] and game.seat_colors() == ["w", "b", "r"]
    state = game.new_initial_state()
    rejected(state, "b 0a1", "White places and moves white balls only, and this ball is black")
    play(state, "w 0a1", "end", "b 0b1", "end")
    rejected(state, "0a1-0c1", "Red places and moves red balls only, and this ball is white")
    play(state, "x 0a1")
    assert {m.color for m in state.legal_moves() if m.action == "place"} == {2}
    with pytest.raises(
        ValueError, match="own_colors=true each seat owns one of the three colours, so 1 to 3 seats, not 4"
    ):
        load(own_colors=True, players=4)


# -- bad input, notation, records ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("g 0a1", "'g' is not a colour: w \\(white\\), b \\(black\\) or r \\(red\\)"),
        ("w 4a1", "'4a1' is not a site name"),
        ("0a1-9z9", "'9z9' is not a site name"),
        ("place", "'place' is not a sandbox action"),
        ("x", "'x' is not a sandbox action"),
        ("offer me", "offer me is not an offer"),
        ("", "'' is not a sandbox action"),
    ],
)
def test_text_that_is_no_action_is_refused_naming_the_problem(text: str, match: str) -> None:
    rejected(GAME.new_initial_state(), text, match, error=InvalidMoveError)


def test_a_move_object_built_by_hand_must_name_real_sites_and_colours() -> None:
    with pytest.raises(InvalidMoveError):
        SandboxMove("place", site=3)
    with pytest.raises(InvalidMoveError):
        SandboxMove("move", site=3, target=30)
    with pytest.raises(InvalidMoveError):
        SandboxMove("jump")
    with pytest.raises(InvalidMoveError):
        GAME.new_initial_state().apply("w 0a1")  # type: ignore[arg-type]


def test_position_notation_is_the_board_and_the_seat_to_act() -> None:
    state = sandbox(FULL, seat=2)
    assert state.to_spn() == "wbwbbwbwwbwbbwbw/brrrwrrrr/wrrr/r 2" and state.current_player() == 1
    with pytest.raises(ValueError, match="the seat to move must be 1 to 2, not '3'"):
        GAME.state_from_spn("................/........./..../. 3")
    with pytest.raises(ValueError, match="3 white balls are on the board, but the box holds 2"):
        load(white=2).state_from_spn("www............./........./..../. 1")
    with pytest.raises(ValueError, match="ball on 1a1 floats"):
        GAME.state_from_spn("w.............../w......../..../. 1")


def test_a_record_replays_every_action_and_undo_restores_each_position() -> None:
    state = sandbox(FULL)
    texts = ("x 0a1", "w 3a1", "back", "0d4-2b2", "end", "x 2a1", "offer draw", "decline", "offer 2", "accept")
    positions = []
    for text in texts:
        positions.append((state.to_spn(), str(state), state.current_player(), state.status_lines()))
        play(state, text)
    assert state.is_terminal() and state.winners() == [1]
    record = Record.from_state(state, ["human", "human"])
    replayed = record.replay()
    assert replayed.history_notation() == list(texts) and str(replayed) == str(state)
    for before in reversed(positions):
        state.undo()
        assert (state.to_spn(), str(state), state.current_player(), state.status_lines()) == before


# -- the physics hold whatever the players do --------------------------------------------------------


@st.composite
def sandboxes(draw: st.DrawFn) -> Sandbox:
    players = draw(st.integers(1, 4))
    own = players <= 3 and draw(st.booleans())
    white, black, red = (draw(st.integers(0, 16)) for _color in range(3))
    return load(players=players, own_colors=own, white=white, black=black, red=red)


@settings(max_examples=120, deadline=None)
@given(game=sandboxes(), data=st.data())
def test_no_action_sequence_leaves_a_floating_ball_or_removes_a_pinned_one(game: Sandbox, data: st.DataObject) -> None:
    state = game.new_initial_state()
    for _step in range(data.draw(st.integers(0, 120), label="actions")):
        if state.is_terminal():
            break
        occupied = state.board.occupied
        for site in range(NUM_SITES):  # every pinned ball is refused, whatever the seat tries
            if is_pinned(occupied, site):
                with pytest.raises(IllegalMoveError, match="pinned"):
                    state.parse_move(f"x {SITE_NAMES[site]}")
        moves = state.legal_moves()
        board_moves = [m for m in moves if m.action in ("place", "remove", "move", "back", "end")]
        move = data.draw(st.sampled_from(board_moves or moves), label="action")
        if move.action in ("remove", "move"):
            assert move.site is not None and not is_pinned(occupied, move.site)
        before = state.board.count()
        state.apply(move)
        after = state.board
        assert unstable_sites(after.occupied) == 0, f"{move} left a ball floating: {after.spn()}"
        assert all(after.count(color) <= most for color, most in enumerate(game.box()))
        change = {"place": 1, "remove": -1, "move": 0}.get(move.action)
        if change is not None:
            assert after.count() == before + change
    replayed = Record.from_state(state, ["human"] * game.num_players).replay()
    assert replayed.to_spn() == state.to_spn() and str(replayed) == str(state)


#: Every action that can be written, on any site: what a seat might type.
EVERY_TEXT = (
    [f"{c} {SITE_NAMES[s]}" for c in "wbr" for s in range(NUM_SITES)]
    + [f"x {SITE_NAMES[s]}" for s in range(NUM_SITES)]
    + [f"{SITE_NAMES[s]}-{SITE_NAMES[t]}" for s in range(NUM_SITES) for t in range(NUM_SITES)]
    + ["back", "end", "accept", "decline", "offer draw", "offer 1", "offer 2", "offer 3", "offer 4", "offer 5"]
)


@settings(max_examples=6, deadline=None)
@given(game=sandboxes(), data=st.data())
def test_the_legal_actions_are_exactly_those_the_state_accepts(game: Sandbox, data: st.DataObject) -> None:
    state = game.new_initial_state()
    for _step in range(data.draw(st.integers(8, 15), label="actions")):
        if state.is_terminal():
            break
        listed = {str(m) for m in state.legal_moves()}
        accepted = set()
        for text in EVERY_TEXT:
            with contextlib.suppress(spheria.MoveError):
                accepted.add(str(state.parse_move(text)))
        assert accepted == listed
        state.apply(data.draw(st.sampled_from(state.legal_moves()), label="action"))
