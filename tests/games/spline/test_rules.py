"""Rules tests for Spline, as drawn positions worked out by hand from the rules.

Each picture below was drawn and checked by hand: ball counts (White has as many balls as
Black when White is to move, one more when Black is), support of every upper ball, and that
neither colour already has a line. The comment above each test says what the rules predict.
"""

from __future__ import annotations

import itertools
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria import IllegalMoveError, InvalidMoveError
from spheria.engine.board import NUM_SITES, SITE_NAMES, SPAN_LINES, TOP, iter_sites, parse_diagram, placeable
from spheria.games.spline.rules import MOVES, Spline, SplineMove, SplineState
from spheria.kernel.game import TERMINAL
from tests.conftest import assert_rejected, play


def load_spline() -> Spline:
    game = spheria.load_game("spline")
    assert isinstance(game, Spline)
    return game


GAME = load_spline()


def spline(picture: str, to_move: int) -> SplineState:
    """A live Spline state from a drawn board; ``to_move`` is 1 (White) or 2 (Black) as in SPN."""
    board, marks = parse_diagram(textwrap.dedent(picture))
    assert marks == {}
    state = GAME.state_from_spn(f"{board.spn()} {to_move}")
    assert isinstance(state, SplineState)
    assert not state.is_terminal(), "a drawn test position must be a game in progress"
    return state


def names(moves: list[SplineMove]) -> set[str]:
    return {str(m) for m in moves}


def assert_won_by(state: SplineState, seat: int) -> None:
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_moves() == []
    assert state.winners() == [seat]
    assert state.returns() == ([1.0, -1.0] if seat == 0 else [-1.0, 1.0])


# -- the empty board ------------------------------------------------------------------------


def test_the_game_starts_empty_with_white_and_the_sixteen_ground_sites() -> None:
    state = GAME.new_initial_state()
    assert GAME.num_players == 2 and GAME.player_names() == ["White", "Black"]
    assert state.to_spn() == "................/........./..../. 1"
    assert state.current_player() == 0
    assert [str(m) for m in state.legal_moves()] == [SITE_NAMES[s] for s in range(16)]
    assert state.returns() == [0.0, 0.0]


def test_balls_take_the_colour_of_the_mover_and_turns_alternate() -> None:
    state = GAME.new_initial_state()
    play(state, "0b2", "0c3")
    assert state.to_spn() == ".....w....b...../........./..../. 1"
    assert state.current_player() == 0


def test_an_upper_site_opens_when_its_four_supports_are_full() -> None:
    # 1a1 rests on 0a1 0b1 0a2 0b2: it joins the legal moves with the fourth of them.
    state = GAME.new_initial_state()
    play(state, "0a1", "0b1", "0a2")
    assert "1a1" not in names(state.legal_moves())
    play(state, "0b2")
    assert "1a1" in names(state.legal_moves())
    assert len(state.legal_moves()) == 12 + 1


# -- wins on level 0 ------------------------------------------------------------------------


def test_white_wins_with_a_row_on_level_0() -> None:
    # White holds 0a1 0b1 0c1; 0d1 completes rank 1. 0d2 would not.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 b b b .     2 . . .     2 . .
        1 w w w .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    other = state.clone()
    play(other, "0d2")
    assert not other.is_terminal() and other.current_player() == 1
    play(state, "0d1")
    assert_won_by(state, 0)
    assert state.to_spn() == "wwwwbbb........./........./..../. 2"
    assert state.status_lines()[0] == "White wins with 0a1 0b1 0c1 0d1 on level 0."


def test_black_wins_with_a_column_on_level_0() -> None:
    # Black holds 0d2 0d3 0d4 and fills 0d1: file d. White's 0a1 0b2 0c3 diagonal is cut by 0d4.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 w . . b
        3 . . w b     3 . . .
        2 . w . b     2 . . .     2 . .
        1 w . . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=2,
    )
    play(state, "0d1")
    assert_won_by(state, 1)


def test_white_wins_with_the_anti_diagonal_on_level_0() -> None:
    # 0d1 0c2 0b3 0a4: White holds three, Black's rank 1 is cut by White's 0d1.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . w . .     3 . . .
        2 . . w .     2 . . .     2 . .
        1 b b b w     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    play(state, "0a4")
    assert_won_by(state, 0)


# -- wins on level 1 ------------------------------------------------------------------------


def test_white_wins_with_a_row_on_level_1() -> None:
    # 1c1 rests on 0c1 0d1 0c2 0d2, all full: White's 1a1 1b1 1c1 is a row of three.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . b
        3 b . . .     3 . . .
        2 b w b w     2 . . .     2 . .
        1 w b w b     1 w w .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    assert names(state.legal_moves()) >= {"1c1"}
    play(state, "1c1")
    assert_won_by(state, 0)
    assert state.status_lines()[0] == "White wins with 1a1 1b1 1c1 on level 1."


def test_black_wins_with_a_column_on_level_1() -> None:
    # Files b and c of level 0 are full, so 1b3 is open; Black holds 1b1 1b2.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 w w b .
        3 . b w .     3 . . .
        2 . w b .     2 . b .     2 . .
        1 w b w w     1 . b .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=2,
    )
    play(state, "1b3")
    assert_won_by(state, 1)


def test_white_wins_with_the_anti_diagonal_on_level_1() -> None:
    # 1c1 1b2 1a3; 1a3 rests on 0a3 0b3 0a4 0b4. Black's 0b3 0c3 0d3 is cut by White's 0a3.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 b w . .
        3 w b b b     3 . . .
        2 . b w w     2 . w .     2 . .
        1 b . w b     1 . . w     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    play(state, "1a3")
    assert_won_by(state, 0)


# -- wins on level 2: any two balls of a colour there ------------------------------------------


def test_white_wins_with_a_row_on_level_2() -> None:
    # 2b1 rests on 1b1 1c1 1b2 1c2; White's 2a1 and 2b1 make rank 1 of level 2.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . b
        3 w b w b     3 . . .
        2 b w b w     2 b w b     2 . .
        1 w b w b     1 w b w     1 w .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    assert "2b1" in names(state.legal_moves()) and "2a2" not in names(state.legal_moves())
    play(state, "2b1")
    assert_won_by(state, 0)


def test_black_wins_with_a_column_on_level_2() -> None:
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 w b w w
        3 b w b .     3 b w .
        2 w b w w     2 w b .     2 . .
        1 b w b .     1 b w .     1 b .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=2,
    )
    play(state, "2a2")
    assert_won_by(state, 1)


def test_white_wins_with_a_diagonal_on_level_2() -> None:
    # Only 0d1 and 0a4 are empty on level 0, so 1c1 and 1a3 cannot be filled: 2b2 is the one open level-2 site.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . b w w
        3 w w b b     3 . b b
        2 b b w w     2 b w b     2 . .
        1 w b w .     1 w b .     1 w .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    assert {"2b2"} == names(state.legal_moves()) & {"2a2", "2b1", "2b2"}
    play(state, "2b2")
    assert_won_by(state, 0)


# -- lines that do not win ----------------------------------------------------------------------


def test_a_full_line_of_mixed_colours_wins_for_nobody() -> None:
    # White fills 0d1 beside Black's 0a1 0b1 0c1: rank 1 is full, but not of one colour.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 . w w w     2 . . .     2 . .
        1 b b b .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    play(state, "0d1")
    assert not state.is_terminal() and state.current_player() == 1 and state.returns() == [0.0, 0.0]


def test_completing_the_opponents_line_does_not_win_for_the_mover() -> None:
    # Level 2: White owns 2a1. Black places 2b1: the level-2 rank 2a1-2b1 is full, but mixed,
    # so neither side wins, though every pair of level-2 sites is a line.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . b
        3 w b w b     3 . . .
        2 b w b w     2 b w b     2 . .
        1 w b w b     1 w b w     1 w .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    play(state, "0a4", "2b1")
    assert not state.is_terminal() and state.winners() == [] and state.current_player() == 0


# -- the top and the full pyramid ------------------------------------------------------------


def test_every_two_colouring_of_level_2_holds_a_line() -> None:
    # Why Spline has no draws: the six level-2 lines are all six pairs of its four sites, so any
    # three level-2 balls hold two of one colour, which is a line.
    level2 = {frozenset(line) for line in SPAN_LINES if len(line) == 2}
    assert level2 == {frozenset(pair) for pair in itertools.combinations(range(25, 29), 2)}
    for three in itertools.combinations(range(25, 29), 3):
        for colours in itertools.product("wb", repeat=3):
            balls = list(zip(three, colours, strict=True))
            same = [frozenset((a, b)) for (a, ca), (b, cb) in itertools.combinations(balls, 2) if ca == cb]
            assert any(pair in level2 for pair in same)


def test_the_top_site_is_never_open_in_a_live_game() -> None:
    # With three level-2 balls two share a colour: a line, so the game is over before 3a1 opens.
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . b w w
        3 w w b b     3 . b b
        2 b b w w     2 b w b     2 . .
        1 w b w .     1 w b .     1 w .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    assert_rejected(state, "3a1", r"3a1 cannot take a ball yet: .* 2b1 2a2 2b2 are empty", SplineMove.parse)
    with pytest.raises(ValueError, match="cannot all have been made by the last ball"):
        GAME.state_from_spn("wbwbwbwbbwbwbwbw/wwbbbwwwb/wbbb/w 1")


def test_a_full_pyramid_cannot_be_a_position_so_no_game_is_drawn() -> None:
    # Levels 0 and 1 below hold no line. Of the five upper balls (level 2 and the top) two are
    # white and three black (15 each). Whatever their places, level 2 holds a line, and its balls
    # all hold up the top, so it was made before the last ball: no full pyramid is a position.
    for whites in itertools.combinations(range(5), 2):
        upper = "".join("w" if i in whites else "b" for i in range(5))
        with pytest.raises(ValueError, match="at the first line"):
            GAME.state_from_spn(f"wbwbwbwbbwbwbwbw/wwbbbwwwb/{upper[:4]}/{upper[4]} 1")


# -- illegal moves --------------------------------------------------------------------------


def test_illegal_placements_are_refused_and_change_nothing() -> None:
    state = spline(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w b . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """,
        to_move=1,
    )
    assert_rejected(state, "0b2", "0b2 is taken", SplineMove.parse)
    assert_rejected(state, "1b1", r"1b1 cannot take a ball yet: .* 0c1 0c2 are empty", SplineMove.parse)
    assert_rejected(state, "2a1", r"2a1 cannot take a ball yet", SplineMove.parse)
    with pytest.raises(InvalidMoveError, match="not a site name"):
        state.parse_move("0e1")
    with pytest.raises(InvalidMoveError, match="not a Spline move"):
        state.apply("1a1")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="White's turn, not Black's"):
        state.parse_move("1a1", player=1)
    assert state.legal_moves(player=1) == []
    play(state, "1a1")
    assert state.to_spn() == "wb..bw........../w......../..../. 2"


def test_no_move_is_legal_after_a_win() -> None:
    state = GAME.state_from_spn("wwwwbbb........./........./..../. 2")
    assert_won_by(state, 0)
    assert_rejected(state, "0d4", "the game is over", SplineMove.parse)


def test_a_move_names_one_site() -> None:
    with pytest.raises(ValueError, match=r"not 0\.\.29"):
        SplineMove(30)
    assert SplineMove.parse(" 2B2 ") is MOVES[28]
    assert SplineMove(28) == MOVES[28] and str(MOVES[TOP]) == "3a1"


# -- undo and copies -----------------------------------------------------------------------


def test_undo_takes_back_moves_and_wins() -> None:
    state = GAME.new_initial_state()
    seen = [(state.to_spn(), names(state.legal_moves()))]
    for text in ("0a1", "0a2", "0b1", "0b2", "1a1", "0c2", "0c1", "0d3", "0d1"):
        play(state, text)
        seen.append((state.to_spn(), names(state.legal_moves())))
    assert_won_by(state, 0)  # rank 1 of level 0
    for spn, legal in reversed(seen[:-1]):
        state.undo()
        assert (state.to_spn(), names(state.legal_moves()), state.returns()) == (spn, legal, [0.0, 0.0])
    at_start = state.to_spn()
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        state.undo()
    assert (state.to_spn(), state.history) == (at_start, ())


def test_a_clone_is_independent() -> None:
    state = GAME.new_initial_state()
    play(state, "0a1")
    copy = state.clone()
    play(copy, "0b1")
    assert state.to_spn() == "w.............../........./..../. 2"
    assert copy.history == (MOVES[0], MOVES[1]) and state.history == (MOVES[0],)


# -- position notation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spn", "problem"),
    [
        ("wb............../........./..../.", "2 fields"),
        ("wr............../........./..../. 1", "white and black balls only; found red on 0b1"),
        ("wb............../........./..../. 3", "player to move must be 1 or 2"),
        ("ww............../........./..../. 2", "2 white and 0 black balls: White moves first"),
        ("bb............../........./..../. 1", "0 white and 2 black"),
        ("wb............../........./..../. 2", "so White is to move, not Black"),
        ("w.............../........./..../. 1", "so Black is to move, not White"),
        ("wwb.bb.........../........./..../. 1", "must have 16 sites"),
        ("wwbbb.........../w......../..../. 1", "1a1 floats"),
        ("wwwwbbbb.......w/........./..../. 2", "both colours have a line"),
        ("wwwwbbb.b......./........./..../. 1", "White has the line 0a1 0b1 0c1 0d1 but did not place the last ball"),
        ("wwwwbbb.wwwwbbb./b......../..../. 2", "cannot all have been made by the last ball"),
        ("wwwwbbwb......../bwb....../..../. 2", "cannot all have been made by the last ball"),
    ],
)
def test_impossible_positions_are_refused_naming_the_problem(spn: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        GAME.state_from_spn(spn)


def test_a_finished_game_round_trips_through_spn() -> None:
    # White's last ball may be any ball of the line that holds nothing up: here 0d1 (1c1 is empty).
    spn = "wwwwbbwbb......./bw......./..../. 2"
    state = GAME.state_from_spn(spn)
    assert_won_by(state, 0)
    assert state.to_spn() == spn


# -- random games against a plain reading of the rules ------------------------------------------


def plain_winner(masks: tuple[int, int]) -> int | None:
    for seat, mask in enumerate(masks):
        if any(all(mask >> s & 1 for s in line) for line in SPAN_LINES):
            return seat
    return None


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_random_games_follow_the_rules(data: st.DataObject) -> None:
    state = GAME.new_initial_state()
    spns = [state.to_spn()]
    while not state.is_terminal():
        white, black = state.masks()
        occupied = white | black
        assert names(state.legal_moves()) == {SITE_NAMES[s] for s in iter_sites(placeable(occupied))}
        assert TOP not in {m.site for m in state.legal_moves()}
        mover = state.current_player()
        move = data.draw(st.sampled_from(state.legal_moves()))
        state.apply(move)
        spns.append(state.to_spn())
        winner = plain_winner(state.masks())
        assert winner in (None, mover)
        assert state.is_terminal() == (winner is not None)
        copy = GAME.state_from_spn(state.to_spn())
        assert copy.to_spn() == state.to_spn()
        assert (copy.is_terminal(), copy.returns(), names(copy.legal_moves())) == (
            state.is_terminal(),
            state.returns(),
            names(state.legal_moves()),
        )
    assert len(state.winners()) == 1  # no draws
    assert sum(state.masks()).bit_count() < NUM_SITES
    for spn in reversed(spns[:-1]):
        state.undo()
        assert state.to_spn() == spn
