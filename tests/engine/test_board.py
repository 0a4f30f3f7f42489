"""Rules tests for the 30-site pyramid: site names, tables, support, pins, drops and SPN.

Positions are drawn in the format of ``Board.diagram()`` and read with ``parse_diagram()``.
Every expected value below was worked out by hand from the rules (docs/rules.md, section
The Shibumi board), not
copied from the engine.
"""

from __future__ import annotations

import itertools
import textwrap

import pytest

from spheria.engine.board import (
    ABOVE,
    BB_LEVELS,
    BELOW,
    LINES,
    NUM_SITES,
    SEGMENTS,
    SITE_NAMES,
    TOP,
    TOUCHING,
    Board,
    can_hold,
    drop_chain,
    is_pinned,
    iter_sites,
    parse_diagram,
    parse_site,
    placeable,
    site_index,
    site_name,
    unstable_sites,
)
from tests.conftest import board_of


def sites(names: str) -> set[int]:
    """The sites named in a space-separated list."""
    return {parse_site(name) for name in names.split()}


def mask(names: str) -> int:
    return sum(1 << s for s in sites(names))


FULL_CAKE = """
      level 0       level 1     level 2   level 3
    4 b w b w
    3 w b w b     3 w b w
    2 b w b w     2 b w b     2 w b
    1 w b w b     1 w b w     1 w b     1 r
      a b c d       a b c       a b       a
    """


# -- site names --------------------------------------------------------------------------

# Written out by hand: level by level, rank by rank, file by file.
ALL_NAMES = [
    *("0a1", "0b1", "0c1", "0d1", "0a2", "0b2", "0c2", "0d2", "0a3", "0b3", "0c3", "0d3", "0a4", "0b4", "0c4", "0d4"),
    *("1a1", "1b1", "1c1", "1a2", "1b2", "1c2", "1a3", "1b3", "1c3"),
    *("2a1", "2b1", "2a2", "2b2"),
    "3a1",
]


def test_site_names_are_level_file_rank_in_site_order():
    assert len(ALL_NAMES) == NUM_SITES == 30
    assert [site_name(s) for s in range(NUM_SITES)] == ALL_NAMES
    assert site_name(TOP) == "3a1"


@pytest.mark.parametrize("site", range(NUM_SITES))
def test_site_name_round_trip(site: int):
    assert parse_site(site_name(site)) == site
    assert parse_site(site_name(site).upper()) == site
    assert parse_site(f" {site_name(site)} ") == site


def test_site_index_matches_names():
    assert site_index(0, 0, 0) == parse_site("0a1")
    assert site_index(0, 3, 1) == parse_site("0b4")  # row 3 is rank 4, col 1 is file b
    assert site_index(1, 2, 0) == parse_site("1a3")
    assert site_index(2, 0, 1) == parse_site("2b1")
    assert site_index(3, 0, 0) == TOP


@pytest.mark.parametrize(
    "text",
    ["", "   ", "0", "0a", "a1", "0e1", "0a0", "0a5", "1d1", "1a4", "2c1", "2a3", "3b1", "3a2", "4a1", "-1a1", "0a1x"],
)
def test_bad_site_names_raise(text: str):
    with pytest.raises(ValueError, match="not a site name"):
        parse_site(text)


@pytest.mark.parametrize("coords", [(4, 0, 0), (-1, 0, 0), (0, 4, 0), (0, 0, -1), (1, 3, 0), (2, 0, 2), (3, 1, 0)])
def test_site_index_off_the_pyramid_raises(coords: tuple[int, int, int]):
    with pytest.raises(ValueError):
        site_index(*coords)


# -- tables ------------------------------------------------------------------------------


def test_below_by_hand():
    assert BELOW[parse_site("1a1")] == mask("0a1 0b1 0a2 0b2")
    assert BELOW[parse_site("1c3")] == mask("0c3 0d3 0c4 0d4")
    assert BELOW[parse_site("2b2")] == mask("1b2 1c2 1b3 1c3")
    assert BELOW[TOP] == mask("2a1 2b1 2a2 2b2")
    assert all(BELOW[s] == 0 for s in range(16))


def test_above_by_hand():
    assert ABOVE[parse_site("0a1")] == mask("1a1")  # a corner holds one ball
    assert ABOVE[parse_site("0b1")] == mask("1a1 1b1")  # an edge holds two
    assert ABOVE[parse_site("0b2")] == mask("1a1 1b1 1a2 1b2")  # an inner site holds four
    assert ABOVE[parse_site("0d3")] == mask("1c2 1c3")
    assert ABOVE[parse_site("1b2")] == mask("2a1 2b1 2a2 2b2")
    assert ABOVE[parse_site("2b1")] == mask("3a1")
    assert ABOVE[TOP] == 0
    # Sites holding four balls: the 2x2 centre of level 0 and the centre of level 1.
    assert {s for s in range(NUM_SITES) if ABOVE[s].bit_count() == 4} == sites("0b2 0c2 0b3 0c3 1b2")


def test_below_and_above_are_inverse():
    for s in range(NUM_SITES):
        for t in range(NUM_SITES):
            assert bool(ABOVE[s] >> t & 1) == bool(BELOW[t] >> s & 1), (SITE_NAMES[s], SITE_NAMES[t])
    # Every ball above level 0 rests on exactly four.
    assert all(BELOW[s].bit_count() == 4 for s in range(16, NUM_SITES))


def test_touching_by_hand():
    assert TOUCHING[parse_site("0a1")] == mask("0b1 0a2 1a1")
    # Same-level diagonal neighbours do not touch.
    assert not TOUCHING[parse_site("0a1")] >> parse_site("0b2") & 1
    assert TOUCHING[parse_site("0b2")] == mask("0a2 0c2 0b1 0b3 1a1 1b1 1a2 1b2")
    assert TOUCHING[parse_site("1b2")] == mask("1b1 1a2 1c2 1b3 0b2 0c2 0b3 0c3 2a1 2b1 2a2 2b2")
    assert TOUCHING[TOP] == mask("2a1 2b1 2a2 2b2")


def test_touching_is_symmetric_and_irreflexive():
    for s in range(NUM_SITES):
        assert not TOUCHING[s] >> s & 1
        for t in iter_sites(TOUCHING[s]):
            assert TOUCHING[t] >> s & 1, (SITE_NAMES[s], SITE_NAMES[t])


def test_line_count_and_long_diagonals():
    # Same level: 4+4 rows/columns on level 0, 3+3 on level 1, 2+2 on level 2 = 18.
    # Each of the 4 rising axes: one line from each level-0 site whose next step stays on level 1 = 9.
    assert len(LINES) == 18 + 4 * 9 == 54
    # Length 4: the 8 rows and columns of level 0, and the 4 rising diagonals, which all meet at the top.
    assert sum(len(line) == 4 for line in LINES) == 8 + 4
    long_lines = {frozenset(SITE_NAMES[s] for s in line) for line in LINES if TOP in line}
    assert long_lines == {
        frozenset({"0a1", "1a1", "2a1", "3a1"}),
        frozenset({"0d1", "1c1", "2b1", "3a1"}),
        frozenset({"0a4", "1a3", "2a2", "3a1"}),
        frozenset({"0d4", "1c3", "2b2", "3a1"}),
    }
    # No line is longer than 4, and none bends: consecutive sites touch.
    for line in LINES:
        assert 2 <= len(line) <= 4
        for a, b in itertools.pairwise(line):
            assert TOUCHING[a] >> b & 1


def test_segments():
    # A line of n sites has n(n-1)/2 runs of two or more. Same level: 8 lines of 4, 6 of 3,
    # 4 of 2 -> 48 + 18 + 4. Each rising axis: 1 line of 4, 3 of 3, 5 of 2 -> 6 + 9 + 5 = 20.
    assert len(SEGMENTS) == 48 + 18 + 4 + 4 * 20 == 150
    assert len(set(SEGMENTS)) == 150
    # Every touching pair lies on exactly one axis, so the two-site segments are the touching
    # pairs: 40 same-level orthogonal pairs plus 4 supports for each of the 14 upper sites.
    pairs = {frozenset(seg) for seg in SEGMENTS if len(seg) == 2}
    touching_pairs = {frozenset((s, t)) for s in range(NUM_SITES) for t in iter_sites(TOUCHING[s])}
    assert pairs == touching_pairs
    assert len(pairs) == 40 + 14 * 4 == 96
    # Not lines: a same-level diagonal, a bent run, a run with a gap.
    segment_sets = {frozenset(SITE_NAMES[s] for s in seg) for seg in SEGMENTS}
    assert frozenset({"0a1", "0b2"}) not in segment_sets
    assert frozenset({"0a1", "0b1", "0b2"}) not in segment_sets
    assert frozenset({"0a1", "0c1"}) not in segment_sets
    assert frozenset({"0a1", "1a1", "1b1"}) not in segment_sets
    assert frozenset({"0a1", "0b1", "0c1", "0d1"}) in segment_sets
    assert frozenset({"0b2", "1b2", "2b2"}) in segment_sets


# -- support and pins ----------------------------------------------------------------------


def test_a_level_1_site_needs_all_four_below():
    three = board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 w . . .     2 . . .     2 . .
        1 w b . .     1 . . .     1 . .     1 .
        """
    )
    one_a_one = parse_site("1a1")
    assert not three.can_hold(one_a_one)  # 0b2 is missing
    assert three.placeable() == BB_LEVELS[0] & ~mask("0a1 0b1 0a2")
    four = three.copy()
    four.place(parse_site("0b2"), 1)
    assert four.can_hold(one_a_one)
    assert four.placeable() == (BB_LEVELS[0] & ~mask("0a1 0b1 0a2 0b2")) | mask("1a1")
    four.place(one_a_one, 0)
    assert not four.can_hold(one_a_one)  # taken
    assert not four.can_hold(parse_site("0a1"))
    assert not can_hold(four.occupied, parse_site("2a1"))
    assert placeable(0) == BB_LEVELS[0]
    assert placeable((1 << NUM_SITES) - 1 - (1 << TOP)) == 1 << TOP


def test_pinned_means_holding_two_or_more():
    # 0b1 holds only 1a1 here: free. 0c1 holds 1b1 alone as well.
    one = board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 w b w .     2 . . .     2 . .
        1 b w b .     1 w . .     1 . .     1 .
        """
    )
    assert not one.is_pinned(parse_site("0b1"))
    assert not one.is_pinned(parse_site("0a1"))
    # With 1b1 too, 0b1 holds 1a1 and 1b1: pinned. 0c1 holds 1b1 only: free.
    two = board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 w b w .     2 . . .     2 . .
        1 b w b .     1 w b .     1 . .     1 .
        """
    )
    assert two.is_pinned(parse_site("0b1"))
    assert two.is_pinned(parse_site("0b2"))
    assert not two.is_pinned(parse_site("0c1"))
    assert not two.is_pinned(parse_site("1a1"))


def test_pinned_balls_of_the_full_cake():
    # Level 0: the corners hold one ball, the edges two, the inner four -> 12 pinned.
    # Level 1: the corners hold one, the edges two, the centre four -> 5 pinned.
    # Level 2 holds only the top ball; the top holds nothing.
    cake = board_of(FULL_CAKE)
    pinned = {s for s in range(NUM_SITES) if is_pinned(cake.occupied, s)}
    assert pinned == sites("0b1 0c1 0a2 0b2 0c2 0d2 0a3 0b3 0c3 0d3 0b4 0c4 1b1 1a2 1b2 1c2 1b3")


# -- drops ---------------------------------------------------------------------------------


def test_three_ball_drop_chain():
    # Eat the corner 0d4 of a full cake: it holds only 1c3. 1c3 drops into 0d4, 2b2 (which
    # rested on 1c3) into 1c3, and the top ball (on 2b2) into 2b2: three balls drop along the
    # long diagonal 0d4-1c3-2b2-3a1, and the top site ends empty.
    before = board_of(
        """
          level 0       level 1     level 2   level 3
        4 b w b r
        3 w b w b     3 w b b
        2 b w b w     2 b w b     2 w r
        1 w b w b     1 w b w     1 w b     1 w
          a b c d       a b c       a b       a
        """
    )
    after = board_of(
        """
          level 0       level 1     level 2   level 3
        4 b w b b
        3 w b w b     3 w b r
        2 b w b w     2 b w b     2 w w
        1 w b w b     1 w b w     1 w b     1 .
          a b c d       a b c       a b       a
        """
    )
    d4 = parse_site("0d4")
    assert [SITE_NAMES[s] for s in drop_chain(before.occupied, d4)] == ["0d4", "1c3", "2b2", "3a1"]
    board = before.copy()
    chain = board.remove(d4)
    assert [SITE_NAMES[s] for s in chain] == ["0d4", "1c3", "2b2", "3a1"]
    assert board == after
    assert unstable_sites(board.occupied) == 0


def test_drop_chain_from_level_1_follows_its_diagonal():
    # 1c1 (w) holds only 2b1 (b), which holds the top (r): 2b1's b drops into 1c1 and the top's
    # r into 2b1; 2a1, 2a2, 2b2 do not move.
    board = board_of(FULL_CAKE)
    after = board_of(
        """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 w b
        1 w b w b     1 w b b     1 w r     1 .
        """
    )
    assert [SITE_NAMES[s] for s in board.remove(parse_site("1c1"))] == ["1c1", "2b1", "3a1"]
    assert board == after


def test_drop_chain_stops_at_the_first_empty_site():
    # 0b2 holds only 1b2 (1a1, 1b1, 1a2 cannot stand: file a and rank 1 are empty); 1b2 holds
    # 2b2; the top is empty. Eating 0b2: 1b2 drops into 0b2, 2b2 into 1b2.
    before = board_of(
        """
        4 . w b w
        3 . b w b     3 . w b
        2 . r b w     2 . b r     2 . w
        1 . . . .     1 . . .     1 . .     1 .
        """
    )
    after = board_of(
        """
        4 . w b w
        3 . b w b     3 . w b
        2 . b b w     2 . w r     2 . .
        1 . . . .     1 . . .     1 . .     1 .
        """
    )
    board = before.copy()
    assert [SITE_NAMES[s] for s in board.remove(parse_site("0b2"))] == ["0b2", "1b2", "2b2"]
    assert board == after
    # A ball holding nothing just leaves: 1c3 held 2b2, which is now empty.
    assert drop_chain(after.occupied, parse_site("1c3")) == (parse_site("1c3"),)
    # 0d2 holds only 1c2 (1c1 is empty); the chain would go on to 2b2, which is empty now.
    assert [SITE_NAMES[s] for s in drop_chain(after.occupied, parse_site("0d2"))] == ["0d2", "1c2"]


def test_drop_moves_every_colour():
    # A two-ball chain of different colours: the red ball must land where the white one was.
    before = board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b b . .     2 . . .     2 . .
        1 w b . .     1 r . .     1 . .     1 .
        """
    )
    board = before.copy()
    board.remove(parse_site("0a1"))
    assert board == board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b b . .     2 . . .     2 . .
        1 r b . .     1 . . .     1 . .     1 .
        """
    )


# -- SPN and diagrams ------------------------------------------------------------------------


def test_diagram_reads_as_spn():
    # Level strings are ranks 1..4, files a..d: rank 1 of level 0 is "w b w b" -> "wbwb".
    board = board_of(FULL_CAKE)
    assert board.spn() == "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/r"
    assert Board.from_spn(board.spn()) == board
    assert board.diagram() == textwrap.dedent(FULL_CAKE).strip("\n").rstrip()


def test_diagram_marks_round_trip():
    board = board_of(FULL_CAKE)
    marks = {parse_site("0a1"): "+", parse_site("2b2"): "*"}
    assert parse_diagram(board.diagram(marks)) == (board, marks)


@pytest.mark.parametrize(
    "spn",
    [
        "................/........./..../.",
        "w.............../........./..../.",
        "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/r",
        "rrrrrrrrrrrrrrrr/bbbbbbbbb/wwww/.",
        ".bwr.bwr.bwr..../.r......./..../.",
    ],
)
def test_spn_round_trip(spn: str):
    board = Board.from_spn(spn)
    assert board.spn() == spn
    assert parse_diagram(board.diagram()) == (board, {})


def test_spn_colours_and_counts():
    board = Board.from_spn(".bwr.bwr.bwr..../.r......./..../.")
    assert board.color_at(parse_site("0b1")) == 1
    assert board.color_at(parse_site("0c2")) == 0
    assert board.color_at(parse_site("0d3")) == 2
    assert board.color_at(parse_site("1b1")) == 2
    assert board.color_at(parse_site("0a1")) is None
    assert (board.count(0), board.count(1), board.count(2), board.count()) == (3, 3, 4, 10)


@pytest.mark.parametrize(
    ("spn", "problem"),
    [
        ("................/........./....", "4 levels"),
        ("................/........./..../././.", "4 levels"),
        ("...............//........./..../.", "4 levels"),
        (".............../........./..../.", "level 0 .* 16 sites, found 15"),
        ("................/......../..../.", "level 1 .* 9 sites, found 8"),
        ("................/........./.../.", "level 2 .* 4 sites, found 3"),
        ("................/........./..../..", "level 3 .* 1 sites, found 2"),
        ("x.............../........./..../.", "'x'"),
        ("W.............../........./..../.", "'W'"),  # SPN is lower case only
        ("................/w......../..../.", "1a1 floats"),
        ("wwwwwwwwwwww..../wwwwww.../..../r", "3a1 floats"),
        ("www.www.www...../ww.w...../w.../.", "2a1 floats"),
    ],
)
def test_bad_spn_names_the_problem(spn: str, problem: str):
    with pytest.raises(ValueError, match=problem):
        Board.from_spn(spn)


def test_bad_diagrams_raise():
    with pytest.raises(ValueError, match="ranks"):
        parse_diagram("1 w . . .")
    with pytest.raises(ValueError, match="floats"):
        board_of(
            """
            4 . . . .
            3 . . . .     3 . . .
            2 . . . .     2 . . .     2 . .
            1 w b . .     1 w . .     1 . .     1 .
            """
        )
    with pytest.raises(ValueError, match="'x' on 0b1"):
        board_of(
            """
            4 . . . .
            3 . . . .     3 . . .
            2 . . . .     2 . . .     2 . .
            1 w x . .     1 . . .     1 . .     1 .
            """
        )


# -- boards are not hashable; views are read-only ------------------------------------------------


def test_a_board_is_not_hashable_but_its_key_is() -> None:
    board = Board.from_spn("wb............../........./..../.")
    with pytest.raises(TypeError):
        hash(board)
    seen = {board.key()}
    board.place(parse_site("0c1"), 2)
    assert board.key() not in seen and board.key() == (0b1, 0b10, 0b100)
    assert Board.from_spn(board.spn()).key() == board.key()


def test_boards_compare_by_their_balls_and_only_with_boards() -> None:
    board = Board.from_spn("wb............../........./..../.")
    assert board == board.view() and board.view() == board.copy()
    assert board.__eq__("wb............../........./..../.") is NotImplemented
    assert board != board.spn() and board != board.key()


def test_a_view_answers_like_its_board_and_cannot_change() -> None:
    board = Board.from_spn("wwbb............/........./..../.")
    view = board.view()
    assert (view.masks, view.occupied, view.count(), view.spn()) == (board.key(), 0b1111, 4, board.spn())
    assert view.color_at(parse_site("0c1")) == 1 and view.group(0) == 0b11 and not view.can_hold(16)
    with pytest.raises(AttributeError):
        view.place(0, 0)  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="read-only"):
        view.masks = (0, 0, 0)
    board.place(parse_site("0d1"), 0)
    assert view.count() == 4  # a snapshot: later changes to the board do not reach it
    mutable = view.copy()
    mutable.place(parse_site("0a2"), 2)
    assert view.count() == 4 and mutable.count() == 5
