"""Rules tests for Spinca: relocations, tumbles, locks, pins, placements, SPN and scoring.

Positions are drawn in the format of ``Board.diagram()`` and read with ``parse_diagram()``;
a ``+`` after a marble marks it locked (it moved, tumbled or was placed on the last turn).
Every expected value was worked out by hand from the rules (docs/rules.md, section
Spinca) and the reasoning is written next to it; nothing is copied from the engine.
"""

from __future__ import annotations

import re
import textwrap

import pytest

import spheria
from spheria.engine.board import SITE_NAMES, parse_diagram, parse_site
from spheria.games.spinca.rules import (
    FACE_NAMES,
    INNER,
    Spinca,
    SpincaMove,
    SpincaState,
    decide,
    face_groups,
    score_color,
    seat_quotas,
)
from spheria.kernel.game import TERMINAL, IllegalMoveError
from tests.conftest import names_of, play, refusal

SOUTH, EAST, NORTH, WEST = range(4)
assert FACE_NAMES == ("south", "east", "north", "west")


def position(picture: str, players: int = 2) -> SpincaState:
    """The state drawn in ``picture``; ``+`` marks the locked marbles. The seat to move follows from the count."""
    board, marks = parse_diagram(textwrap.dedent(picture))
    assert set(marks.values()) <= {"+"}
    locks = ",".join(SITE_NAMES[s] for s in sorted(marks)) or "-"
    placed = board.count()
    game = Spinca(players=players)
    return game.state_from_spn(f"{board.spn()} {placed % players + 1} {locks}")


def site_set(text: str) -> set[str]:
    return set(text.split())


def groups_on(mask: int, face: int) -> list[set[str]]:
    return sorted((names_of(g) for g in face_groups(mask, face)), key=lambda g: (len(g), sorted(g)))


def relocations(state: SpincaState) -> set[tuple[str, str]]:
    """The (source, target) pairs of the listed moves that relocate."""
    return {
        (SITE_NAMES[m.source], SITE_NAMES[m.target])
        for m in state.legal_moves()
        if m.source is not None and m.target is not None
    }


# -- seats, colours and marble counts ------------------------------------------------------


def test_seats_colours_and_marbles_per_seat() -> None:
    # 29 placements dealt round the table: 2 seats 15/14, 3 seats 10/10/9, 4 seats 8/7/7/7.
    assert seat_quotas(2) == (15, 14)
    assert seat_quotas(3) == (10, 10, 9)
    assert seat_quotas(4) == (8, 7, 7, 7)
    four = Spinca(players=4)
    assert four.player_names() == ["White-A", "Black-A", "White-B", "Black-B"]
    assert [four.seat_color(s) for s in range(4)] == [0, 1, 0, 1]  # a team shares a colour
    assert spheria.load_game("spinca", players="3").player_names() == ["White", "Black", "Red"]
    assert spheria.load_game("spinca").num_players == 2
    with pytest.raises(ValueError, match="one of 2, 3, 4"):
        spheria.load_game("spinca", players=5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_turns_go_round_and_each_seat_places_its_quota(players: int) -> None:
    # Always placing on the lowest open site, without relocating: each seat in turn places once.
    state = Spinca(players=players).new_initial_state()
    placed_by = [0] * players
    colors_by_seat: list[set[int | None]] = [set() for _ in range(players)]
    while not state.is_terminal():
        seat = state.current_player()
        assert seat == len(state.history) % players
        move = next(m for m in state.legal_moves() if m.source is None)
        state.apply(move)
        placed_by[seat] += 1
        colors_by_seat[seat].add(state.board.color_at(move.place))
    assert tuple(placed_by) == seat_quotas(players)
    assert all(len(c) == 1 for c in colors_by_seat)
    assert [c.pop() for c in colors_by_seat] == [[0, 1], [0, 1, 2], [0, 1, 0, 1]][players - 2]
    assert state.current_player() == TERMINAL
    assert state.board.count() == 29 and state.board.color_at(parse_site("3a1")) is None


# -- relocation: tumbles, freedom, pins -------------------------------------------------------

# A 3x3 block in the north-east of level 0 carries a 2x2 block on level 1 and 2b2 on level 2.
# 0b2 is the corner of the block: of the four level-1 sites on it (1a1, 1b1, 1a2, 1b2) only 1b2
# is taken, so 0b2 holds up one marble and is not pinned. 1b2 holds up only 2b2 (2a1, 2b1, 2a2
# are empty). Leaving 0b2 starts the chain 0b2 <- 1b2 <- 2b2 along the rising diagonal.
# 14 marbles placed (7 white, 7 black): White to move; Black's last marble, 0d3, is locked.
TUMBLE = """
      level 0       level 1     level 2   level 3
    4 . w b w
    3 . b w b+    3 . w b
    2 . w b w     2 . b w     2 . b
    1 . . . .     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
"""


def test_relocation_tumbles_a_two_ball_chain() -> None:
    state = position(TUMBLE)
    assert state.current_player() == 0
    # White moves 0b2 diagonally to 0a1: black 1b2 tumbles into 0b2, black 2b2 into 1b2, and
    # 2b2 is left empty on its four full supports, so White may place there in the same turn.
    play(state, "0b2-0a1 2b2")
    # Locked now: 0a1 (moved), 0b2 and 1b2 (the tumbled marbles' new sites), 2b2 (placed).
    # Black's 0d3 is free again.
    expected = position(
        """
          level 0       level 1     level 2   level 3
        4 . w b w
        3 . b w b     3 . w b
        2 . b+b w     2 . b+w     2 . w+
        1 w+. . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    assert state.to_spn() == expected.to_spn()
    assert names_of(state.locked) == site_set("0a1 0b2 1b2 2b2")
    assert state.current_player() == 1


def test_relocation_targets_are_the_empty_neighbours_on_the_same_level() -> None:
    state = position(TUMBLE)
    # The eight neighbours of 0b2: 0a1 0b1 0c1 0a2 0c2 0a3 0b3 0c3; 0c2 0b3 0c3 are full.
    targets = {target for source, target in relocations(state) if source == "0b2"}
    assert targets == site_set("0a1 0b1 0c1 0a2 0a3")
    # The only site the move empties is 2b2, the top of the chain: never on 0b2's level.
    assert refusal(state, "0b2-2b2 0a1") == "2b2 is not adjacent to 0b2: a marble moves on its own level"
    assert refusal(state, "0b2-0b2 0a1").startswith("0b2-0b2 does not move the marble")
    assert refusal(state, "0b2-0d1 0a1") == "0d1 is not adjacent to 0b2"
    assert refusal(state, "0b2-0c2 0a1") == "0c2 cannot take a marble: it is taken"
    # 1b2 is refilled by the tumble, so it cannot take the placement.
    assert refusal(state, "0b2-0a1 1b2") == "1b2 cannot take a marble: it is taken after 0b2-0a1"
    # Before any move 2b2 is taken.
    assert refusal(state, "2b2") == "2b2 cannot take a marble: it is taken"


def test_a_marble_is_not_free_when_its_move_would_drop_a_locked_marble() -> None:
    # As TUMBLE, but Black's last turn left 2b2 locked.
    state = position(
        """
          level 0       level 1     level 2   level 3
        4 . w b w
        3 . b w b     3 . w b
        2 . w b w     2 . b w     2 . b+
        1 . . . .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    assert refusal(state, "0b2-0a1 2b2") == "moving 0b2 would drop the locked marble on 2b2"
    # 0d2 holds up only 1c2 (1c1 is empty); its chain runs 0d2 <- 1c2 <- 2b2, two levels up to the lock.
    assert refusal(state, "0d2-0d1 0a1") == "moving 0d2 would drop the locked marble on 2b2"
    # 1c2 and 1b3 hold up only 2b2: not free either (checked before their targets).
    assert refusal(state, "1c2-1c1 0a1") == "moving 1c2 would drop the locked marble on 2b2"
    sources = {source for source, _ in relocations(state)}
    assert not sources & site_set("0b2 0d2 1b2 1c2 1b3 1c3 2b2")
    assert not state.is_free(parse_site("0b2")) and not state.is_free(parse_site("0d2"))
    # A lock one step up (1b2) blocks 0b2 the same way.
    state = position(TUMBLE.replace("2 . b w     2", "2 . b+w     2").replace("b+    3", "b     3"))
    assert names_of(state.locked) == {"1b2"}
    assert refusal(state, "0b2-0a1 2b2") == "moving 0b2 would drop the locked marble on 1b2"
    # 0d2's chain (0d2, 1c2, 2b2) does not meet 1b2, so 0d2 is free: 0d1 and 0c1 are open to it.
    assert state.is_free(parse_site("0d2"))
    play(state, "0d2-0c1 2b2")


# 0b1 and 0b2 each hold up 1a1 and 1b1: pinned. 0c2 and 0c1 hold up only 1b1, 0a1 only 1a1.
# 8 marbles (4 white, 4 black): White to move; Black's 0a2 is locked.
PINNED = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 b+w b .     2 . . .     2 . .
    1 w b w .     1 w b .     1 . .     1 .
      a b c d       a b c       a b       a
"""


def test_a_pinned_marble_cannot_move() -> None:
    state = position(PINNED)
    assert refusal(state, "0b2-0b3 0d4") == "0b2 is pinned: it holds up two or more marbles"
    assert refusal(state, "0b1-0d1 0d4") == "0b1 is pinned: it holds up two or more marbles"
    assert refusal(state, "0a2-0a3 0d4") == "0a2 is locked: it moved or was placed on the last turn"
    assert refusal(state, "0d4-0d3 0a4") == "there is no marble on 0d4 to move"
    # The relocations (source, target): 0a1 has no empty neighbour (0b1 0a2 0b2 full); 1a1 and
    # 1b1 have no neighbour on four marbles; 0c1 may go to 0d1 or 0d2; 0c2 to its five empty
    # neighbours 0d1 0d2 0b3 0c3 0d3.
    assert relocations(state) == {
        ("0c1", "0d1"),
        ("0c1", "0d2"),
        ("0c2", "0d1"),
        ("0c2", "0d2"),
        ("0c2", "0b3"),
        ("0c2", "0c3"),
        ("0c2", "0d3"),
    }
    # 0c2 moves to 0d3: black 1b1 tumbles into 0c2; White then places on 0d4.
    play(state, "0c2-0d3 0d4")
    expected = position(
        """
          level 0       level 1     level 2   level 3
        4 . . . w+
        3 . . . b+    3 . . .
        2 b w b+.     2 . . .     2 . .
        1 w b w .     1 w . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    assert state.to_spn() == expected.to_spn()


def test_a_relocation_can_complete_a_platform_for_the_placement() -> None:
    # 1a1 lacks only 0b2. White moves 0c3 diagonally to 0b2, then places on 1a1.
    state = position(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . w .     3 . . .
        2 b . . .     2 . . .     2 . .
        1 w b+. .     1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    assert refusal(state, "1a1") == "1a1 cannot take a marble: it needs four marbles under it"
    assert refusal(state, "0c3-1b2 1a1") == "1b2 is not adjacent to 0c3: a marble moves on its own level"
    play(state, "0c3-0b2 1a1")
    assert state.board.spn() == "wb..bw........../w......../..../."
    assert names_of(state.locked) == site_set("0b2 1a1")


def test_relocation_then_placement_on_the_vacated_site() -> None:
    state = position(
        """
          level 0       level 1     level 2   level 3
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 w . . b+    1 . . .     1 . .     1 .
          a b c d       a b c       a b       a
        """
    )
    play(state, "0a1-0b1 0a1")
    assert state.board.spn() == "ww.b............/........./..../."
    assert names_of(state.locked) == site_set("0a1 0b1")


# -- locks ---------------------------------------------------------------------------------------


def test_locks_last_exactly_one_turn() -> None:
    state = Spinca().new_initial_state()
    play(state, "0a1")  # White
    assert names_of(state.locked) == {"0a1"}
    assert "w+" in str(state)
    # Black's turn: 0a1 is locked.
    assert refusal(state, "0a1-0b1 0d4") == "0a1 is locked: it moved or was placed on the last turn"
    play(state, "0d4")  # Black
    # White's turn: 0a1 is free again, only Black's 0d4 is locked.
    assert names_of(state.locked) == {"0d4"}
    assert refusal(state, "0d4-0c4 0a4") == "0d4 is locked: it moved or was placed on the last turn"
    play(state, "0a1-0b1 0c1")
    assert names_of(state.locked) == site_set("0b1 0c1")
    # Black's turn: 0d4 is free again; White's moved and placed marbles are locked.
    assert refusal(state, "0b1-0b2 0a1") == "0b1 is locked: it moved or was placed on the last turn"
    play(state, "0d4-0c4 0a4")
    assert names_of(state.locked) == site_set("0c4 0a4")
    assert state.to_spn() == ".ww.........b.b./........./..../. 1 0a4,0c4"


def test_tumbled_marbles_are_locked_for_one_turn_only() -> None:
    state = position(TUMBLE)
    play(state, "0b2-0a1 2b2")
    # Black may move none of 0a1, 0b2, 1b2 (locked), nor 2b2's supports' chains through 2b2.
    assert refusal(state, "0b2-0a2 0b1").startswith("0b2 is locked")
    assert refusal(state, "0a1-0b1 0c1").startswith("0a1 is locked")
    assert refusal(state, "0d2-0d1 0c1") == "moving 0d2 would drop the locked marble on 2b2"
    play(state, "0d1")  # Black
    # White again: the tumbled black marble on 0b2 holds up only 1b2, whose chain 0b2 <- 1b2 <- 2b2
    # has no lock any more, so it is free.
    assert names_of(state.locked) == {"0d1"}
    play(state, "0b2-0a2 0b1")


def test_with_three_players_a_lock_binds_only_the_next_player() -> None:
    state = Spinca(players=3).new_initial_state()
    play(state, "0a1", "0d4")  # White, Black
    # Red: White's 0a1 is free, Black's 0d4 is locked.
    assert state.current_player() == 2
    assert refusal(state, "0d4-0c4 0a4").startswith("0d4 is locked")
    play(state, "0a1-0b1 0c1")
    assert state.board.spn() == ".wr............b/........./..../."


# -- move listing and notation ---------------------------------------------------------------


def test_turns_with_the_same_outcome_are_one_move() -> None:
    # White 0a1 (free), Black 0d4 (locked); White to move.
    state = play(Spinca().new_initial_state(), "0a1", "0d4")
    # Placements alone: the 14 empty sites. Relocations: 0a1 to 0b1, 0a2 or 0b2, then a
    # placement on one of the 14 sites then empty (0a1 included): 42 turns. Moving White's
    # marble to x and placing on y leaves the same board and locks {x, y} as moving it to y and
    # placing on x, for the 3 pairs in {0b1, 0a2, 0b2}: 42 - 3 = 39 outcomes. In all 14 + 39.
    moves = state.legal_moves()
    assert len(moves) == 53
    assert len(set(moves)) == 53
    one = state.parse_move("0a1-0b1 0a2")
    other = state.parse_move("0a1-0a2 0b1")
    assert one == other and one in moves
    assert state.child(SpincaMove.parse("0a1-0a2 0b1")).to_spn() == state.child(one).to_spn()
    # Placing on 0b1 alone is a different outcome (only 0b1 locked, 0a1 stays).
    assert state.parse_move("0b1") != state.parse_move("0a1-0b1 0a1")


def test_move_notation() -> None:
    assert str(SpincaMove(parse_site("1b2"))) == "1b2"
    assert str(SpincaMove(parse_site("1b2"), parse_site("0a1"), parse_site("0b2"))) == "0a1-0b2 1b2"
    assert SpincaMove.parse(" 0a1-0b2,  1b2 ") == SpincaMove.parse("0A1-0B2 1B2")
    state = Spinca().new_initial_state()
    assert len(state.legal_moves()) == 16
    assert refusal(state, "").startswith("empty move")
    assert refusal(state, "0a1-0b2").startswith("0a1-0b2 moves a marble but places none")
    assert refusal(state, "0a1 0b2").startswith("'0a1' is not a relocation")
    assert refusal(state, "0a1-0b2 1b2 0c3").startswith("'0a1-0b2 1b2 0c3' has 3 parts")
    assert refusal(state, "0e1").startswith("'0e1' is not a site name")
    assert refusal(state, "3a1") == "3a1 cannot take a marble: the top is never used in Spinca"
    assert refusal(state, "1a1") == "1a1 cannot take a marble: it needs four marbles under it"
    with pytest.raises(IllegalMoveError, match="not Black's turn"):
        state.parse_move("0a1", player=1)
    assert state.legal_moves(1) == []
    with pytest.raises(IllegalMoveError):
        state.apply(SpincaMove(parse_site("0a1"), parse_site("0a2"), parse_site("0a3")))
    assert state.to_spn() == "................/........./..../. 1 -"


def test_undo_restores_board_locks_and_player() -> None:
    state = position(TUMBLE)
    before, moves = state.to_spn(), state.legal_moves()
    play(state, "0b2-0a1 2b2")
    assert str(state.undo()) == "0b2-0a1 2b2"
    assert state.to_spn() == before
    assert state.legal_moves() == moves
    at_start = state.to_spn()
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        state.undo()
    assert (state.to_spn(), state.history) == (at_start, ())


# -- position notation ------------------------------------------------------------------------


def test_spn_fields_and_errors() -> None:
    game = Spinca(players=3)
    state = game.state_from_spn("wbr............./........./..../. 1 0c1")
    assert state.current_player() == 0 and names_of(state.locked) == {"0c1"}
    assert game.state_from_spn(state.to_spn()).to_spn() == state.to_spn()
    errors = {
        "wbr............./........./..../. 1": "3 fields",
        "wbb............./........./..../. 1 0c1": "3 marbles placed means 1 white, 1 black, 1 red",
        "wbr............./........./..../. 2 0c1": "player 1 (White) is to move, not '2'",
        "wbr............./........./..../. 1 0d1": "0d1 is locked but holds no marble",
        "wbr............./........./..../. 1 0a1": "some locked site must hold red",
        "wbr............./........./..../. 1 0c1,0c1": "twice",
        "wbr............./........./..../. 1 0z9": "locked sites",
        "................/........./..../. 1 0a1": "holds no marble",
        "w................/........./..../. 1 -": "level 0 of the board must have 16 sites",
        "wbrwbr........../........./..../. 1 0a1,0b1,0c1,0d1,0a2": "at most 4 marbles are locked",
    }
    for text, message in errors.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            game.state_from_spn(text)
    with pytest.raises(ValueError, match="the top site 3a1 is never used"):
        Spinca().state_from_spn("wbwbwbwbwbwbwbwb/wbwbwbwbw/wbwb/w 1 0a1")
    two = Spinca()
    with pytest.raises(ValueError, match="must hold white"):
        two.state_from_spn("w.............../........./..../. 2 -")


# -- scoring --------------------------------------------------------------------------------------

# Two players, temple A. 29 marbles: 15 white, 14 black; White placed last (2a2 locked).
TEMPLE_A = """
      level 0       level 1     level 2   level 3
    4 w b b w
    3 b w b w     3 b w b
    2 w b w b     2 w b w     2 w+b
    1 w w b b     1 b w w     1 b w     1 .
      a b c d       a b c       a b       a
"""


def test_two_player_temple_scored_by_hand() -> None:
    state = position(TEMPLE_A)
    white, black = state.board.masks[0], state.board.masks[1]
    # Each face drawn as seen from outside, level 2 on top, with the touching pattern of a
    # triangle: a marble touches its row neighbours and the two face marbles it rests on.
    #
    # south (rank 1)      b   w            2a1 2b1
    #                   b   w   w        1a1 1b1 1c1
    #                 w   w   b   b    0a1 0b1 0c1 0d1
    assert groups_on(white, SOUTH) == [site_set("0a1 0b1 1b1 1c1 2b1")]
    assert groups_on(black, SOUTH) == [site_set("0c1 0d1"), site_set("1a1 2a1")]
    # east (last file)    w   b            2b1 2b2
    #                   w   w   b        1c1 1c2 1c3
    #                 b   b   w   w    0d1 0d2 0d3 0d4
    assert groups_on(white, EAST) == [site_set("0d3 0d4 1c1 1c2 2b1")]
    assert groups_on(black, EAST) == [site_set("0d1 0d2"), site_set("1c3 2b2")]
    # north (last rank)   w   b            2a2 2b2
    #                   b   w   b        1a3 1b3 1c3
    #                 w   b   b   w    0a4 0b4 0c4 0d4
    assert groups_on(white, NORTH) == [{"0a4"}, {"0d4"}, site_set("1b3 2a2")]
    assert groups_on(black, NORTH) == [site_set("0b4 0c4 1a3 1c3 2b2")]
    # west (file a)       b   w            2a1 2a2
    #                   b   w   b        1a1 1a2 1a3
    #                 w   w   b   w    0a1 0a2 0a3 0a4
    assert groups_on(white, WEST) == [{"0a4"}, site_set("0a1 0a2 1a2 2a2")]
    assert groups_on(black, WEST) == [site_set("0a3 1a3"), site_set("1a1 2a1")]
    # Smallest group per face: White 5 + 5 + 1 + 1 = 12, Black 2 + 2 + 5 + 2 = 11.
    # Inner pyramid 0b2 0c2 0b3 0c3 1b2: b w w b b.
    scores = state.scores()
    assert scores[0].faces == (5, 5, 1, 1) and scores[0].total == 12 and scores[0].inner == 2
    assert scores[1].faces == (2, 2, 5, 2) and scores[1].total == 11 and scores[1].inner == 3
    assert scores[0].groups[NORTH] == (1, 1, 2)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [1.0, -1.0]
    assert state.winners() == [0]
    assert state.status_lines()[0] == "White wins (highest face sum)."
    assert state.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        state.parse_move("0a1")


def test_team_returns() -> None:
    # Temple A with four seats: the white team (White-A, White-B) wins 12 to 11.
    state = position(TEMPLE_A, players=4)
    assert state.returns() == [1.0, -1.0, 1.0, -1.0]
    assert [s.total for s in state.scores()] == [12, 11, 12, 11]
    assert state.status_lines()[0] == "White team wins (highest face sum)."


# Two players, temple B: each side has two isolated corners covering all four faces.
# White's 0a4 touches 0b4, 0a3, 1a3 on its faces and 0d1 touches 0c1, 0d2, 1c1: all black.
# Black's 0a1 touches 0b1, 0a2, 1a1 and 0d4 touches 0c4, 0d3, 1c3: all white.
# So both smallest groups are 1 on every face: 4 to 4. Inner pyramid 0b2 0c2 0b3 0c3 1b2 =
# b b w w b: Black 3, White 2. 28 marbles with 2a2 empty: White places the last one.
TEMPLE_B_BUT_ONE = """
      level 0       level 1     level 2   level 3
    4 w b w b
    3 b w w w     3 b w w
    2 w b b b     2 w b b     2 . b+
    1 b w b w     1 w w b     1 w b     1 .
      a b c d       a b c       a b       a
"""


@pytest.mark.parametrize(("players", "expected"), [(2, [-1.0, 1.0]), (4, [-1.0, 1.0, -1.0, 1.0])])
def test_tied_faces_are_decided_by_the_inner_pyramid(players: int, expected: list[float]) -> None:
    state = position(TEMPLE_B_BUT_ONE, players=players)
    assert state.current_player() == 0  # White (White-A)
    # Only 2a2 is open. 2a1 (white) and 2b1 (black) are free and may move there first; 2b2 is
    # locked. So: place 2a2; 2a1-2a2 then 2a1 (same board, other locks); 2b1-2a2 then 2b1.
    assert sorted(str(m) for m in state.legal_moves()) == ["2a1-2a2 2a1", "2a2", "2b1-2a2 2b1"]
    play(state, "2a2")
    assert state.is_terminal()
    white, black = state.board.masks[0], state.board.masks[1]
    for face in range(4):
        assert min(len(g) for g in groups_on(white, face)) == 1
        assert min(len(g) for g in groups_on(black, face)) == 1
    assert {"0a4"} in groups_on(white, NORTH) and {"0a4"} in groups_on(white, WEST)
    assert {"0d1"} in groups_on(white, SOUTH) and {"0d1"} in groups_on(white, EAST)
    assert {"0a1"} in groups_on(black, SOUTH) and {"0a1"} in groups_on(black, WEST)
    assert {"0d4"} in groups_on(black, NORTH) and {"0d4"} in groups_on(black, EAST)
    sides = state.side_scores()
    assert [s.total for s in sides] == [4, 4]
    assert [s.inner for s in sides] == [2, 3]
    assert names_of(white & INNER) == site_set("0b3 0c3") and names_of(black & INNER) == site_set("0b2 0c2 1b2")
    assert state.returns() == expected


# Three players, temple C. 29 marbles: 10 white, 10 black, 9 red; Black placed last (0d2 locked).
TEMPLE_C = """
      level 0       level 1     level 2   level 3
    4 w b r w
    3 b r w r     3 b w r
    2 r b w b+    2 w r b     2 w b
    1 w w b r     1 r b w     1 b r     1 .
      a b c d       a b c       a b       a
"""


def test_three_player_temple_scored_by_hand() -> None:
    state = position(TEMPLE_C, players=3)
    white, black, red = state.board.masks
    # south    b   r            2a1 2b1
    #        r   b   w        1a1 1b1 1c1
    #      w   w   b   r    0a1 0b1 0c1 0d1
    assert groups_on(white, SOUTH) == [{"1c1"}, site_set("0a1 0b1")]
    assert groups_on(black, SOUTH) == [site_set("0c1 1b1 2a1")]
    assert groups_on(red, SOUTH) == [{"0d1"}, {"1a1"}, {"2b1"}]
    # east     r   b            2b1 2b2
    #        w   b   r        1c1 1c2 1c3
    #      r   b   r   w    0d1 0d2 0d3 0d4
    assert groups_on(white, EAST) == [{"0d4"}, {"1c1"}]
    assert groups_on(black, EAST) == [site_set("0d2 1c2 2b2")]
    assert groups_on(red, EAST) == [{"0d1"}, {"2b1"}, site_set("0d3 1c3")]
    # north    w   b            2a2 2b2
    #        b   w   r        1a3 1b3 1c3
    #      w   b   r   w    0a4 0b4 0c4 0d4
    assert groups_on(white, NORTH) == [{"0a4"}, {"0d4"}, site_set("1b3 2a2")]
    assert groups_on(black, NORTH) == [{"2b2"}, site_set("0b4 1a3")]
    assert groups_on(red, NORTH) == [site_set("0c4 1c3")]
    # west     b   w            2a1 2a2
    #        r   w   b        1a1 1a2 1a3
    #      w   r   b   w    0a1 0a2 0a3 0a4
    assert groups_on(white, WEST) == [{"0a1"}, {"0a4"}, site_set("1a2 2a2")]
    assert groups_on(black, WEST) == [{"2a1"}, site_set("0a3 1a3")]
    assert groups_on(red, WEST) == [site_set("0a2 1a1")]
    # White 1+1+1+1 = 4, Black 3+3+1+1 = 8, Red 1+1+2+2 = 6: Black wins outright.
    assert [s.faces for s in state.scores()] == [(1, 1, 1, 1), (3, 3, 1, 1), (1, 1, 2, 2)]
    assert [s.total for s in state.scores()] == [4, 8, 6]
    assert state.returns() == [-1.0, 1.0, -1.0]


# Three players, temple D: every side has an isolated marble on every face, so all score 4.
# White: 0d1 (south, east; touches 0c1 r, 0d2 b, 1c1 b) and 0a4 (north, west; 0b4 r, 0a3 b, 1a3 r).
# Black: 0a1 (south, west; 0b1 w, 0a2 r, 1a1 w) and 0d4 (north, east; 0c4 w, 0d3 r, 1c3 w).
# Red: 2a1 (south: 2b1 b, 1a1 w, 1b1 b; west: 2a2 w, 1a1 w, 1a2 b) and
#      2b2 (north: 2a2 w, 1b3 b, 1c3 w; east: 2b1 b, 1c2 w, 1c3 w).
# Inner 0b2 0c2 0b3 0c3 1b2 = r w w r b: White 2, Red 2, Black 1. White and Red tie for the most
# inner marbles, so Black, the third player, wins. Black placed last (2b1 locked).
TEMPLE_D = """
      level 0       level 1     level 2   level 3
    4 w r w b
    3 b w r r     3 r b w
    2 r r w b     2 b b w     2 w r
    1 b w r w     1 w b b     1 r b+    1 .
      a b c d       a b c       a b       a
"""


def test_three_way_tie_then_two_way_inner_tie_gives_the_third_player() -> None:
    state = position(TEMPLE_D, players=3)
    masks = state.board.masks
    for color, corners in ((0, ("0d1", "0a4")), (1, ("0a1", "0d4")), (2, ("2a1", "2b2"))):
        for corner in corners:
            faces = [f for f in range(4) if {corner} in groups_on(masks[color], f)]
            assert len(faces) == 2, (color, corner)
    sides = state.side_scores()
    assert [s.total for s in sides] == [4, 4, 4]
    assert [s.inner for s in sides] == [2, 1, 2]
    assert state.returns() == [-1.0, 1.0, -1.0]
    assert "the third player wins" in state.status_lines()[0]


def test_every_tie_break() -> None:
    # Two sides (players or teams).
    assert decide([12, 11], [2, 3])[0] == [0]
    assert decide([9, 10], [5, 0])[0] == [1]
    assert decide([8, 8], [2, 3])[0] == [1]  # tie: most inner marbles
    assert decide([8, 8], [4, 1])[0] == [0]
    assert decide([8, 8], [2, 2])[0] == []  # still tied: draw (not reachable on a full temple)
    # Three players.
    assert decide([9, 7, 4], [0, 0, 5])[0] == [0]  # highest sum
    assert decide([5, 5, 9], [3, 1, 1])[0] == [2]
    assert decide([7, 7, 5], [0, 0, 5])[0] == [2]  # two tie for the highest: the third wins
    assert decide([4, 6, 6], [5, 0, 0])[0] == [0]
    assert decide([8, 3, 8], [1, 4, 0])[0] == [1]
    assert decide([6, 5, 5], [0, 2, 3])[0] == [0]  # a tie below the top changes nothing
    assert decide([4, 4, 4], [1, 3, 1])[0] == [1]  # three-way tie: most inner marbles
    assert decide([4, 4, 4], [2, 1, 2])[0] == [1]  # ... two tie for the most: the third wins
    assert decide([4, 4, 4], [2, 2, 1])[0] == [2]
    assert decide([4, 4, 4], [2, 2, 2])[0] == []  # all three tie again: draw (unreachable with 5 inner sites)


def test_draw_returns_zero_for_everyone(monkeypatch: pytest.MonkeyPatch) -> None:
    # A draw cannot happen on a complete temple (5 inner sites never split evenly), so fake the rule.
    state = position(TEMPLE_A, players=4)
    monkeypatch.setattr("spheria.games.spinca.rules.decide", lambda totals, inner: ([], "tie"))
    assert state.returns() == [0.0, 0.0, 0.0, 0.0]
    assert state.winners() == []
    assert state.status_lines()[0] == "Draw (tie on the faces and in the inner pyramid: a draw)."


def test_scores_during_the_game_and_display() -> None:
    state = play(Spinca().new_initial_state(), "0a1", "0c1", "0b1")
    # White 0a1 0b1: one group of 2 on the south face, 0a1 alone on the west face.
    # Black 0c1: 1 on the south face only.
    assert state.scores()[0].faces == (2, 0, 0, 1)
    assert state.scores()[1].faces == (1, 0, 0, 0)
    assert score_color(state.board.masks[0]).total == 3
    lines = state.status_lines()
    assert lines[0].startswith("Black to play")
    assert lines[1] == "Locked (+): 0b1."
    assert any("White" in line and "= 3" in line for line in lines)
    assert "1 w w+b ." in str(state)
    assert "0a1-0b2 1b2" in state.move_hint()
    observation = state.observation(1)
    assert observation["locked"] == ["0b1"] and observation["scores"][0]["total"] == 3
