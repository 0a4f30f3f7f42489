"""Rules tests for Spagyric: reveals, stuns, the bag, group outcomes, draws, sudden death, SPN.

Every expected position and result here was worked out by hand from the rules
(docs/rules.md, section Spagyric, and the English rules text); the comment or docstring
of each test gives the reasoning. Nothing expected was copied from the engine's output.
Seats are 0 and 1 in the API, written 1 and 2 in SPN.
"""

from __future__ import annotations

import pytest

import spheria
from spheria import SIMULTANEOUS, TERMINAL, IllegalMoveError, InvalidMoveError
from spheria.engine.board import ALL_SITES, NUM_SITES, TOUCHING, Board, parse_site
from spheria.games.spagyric.rules import (
    PLACE,
    SUDDEN,
    Choice,
    Place,
    Reveal,
    Spagyric,
    SpagyricState,
)
from spheria.kernel.record import Record, RecordError
from tests.conftest import board_of

EMPTY = "................/........./..../."
COLOURS = "wbr"
#: From the rules: white beats black, black beats red, red beats white.
BEATS = {"w": "b", "b": "r", "r": "w"}


def new(supply: int = 8, memory: bool = True) -> SpagyricState:
    state = spheria.load_game("spagyric", supply=supply, memory=memory).new_initial_state()
    assert isinstance(state, SpagyricState)
    return state


def from_spn(text: str, supply: int = 8) -> SpagyricState:
    state = spheria.load_game("spagyric", supply=supply).state_from_spn(text)
    assert isinstance(state, SpagyricState)
    return state


def reveal(state: SpagyricState, first: str, second: str) -> None:
    """Both seats choose, as an interface would: each seat's text parsed for that seat."""
    state.apply_joint([state.parse_move(first, 0), state.parse_move(second, 1)])


def place(state: SpagyricState, site: str) -> None:
    state.apply(state.parse_move(site, state.current_player()))


def choices(state: SpagyricState, seat: int) -> str:
    return "".join(str(m) for m in state.legal_moves(seat))


def placing(picture: str, placer: int, colour: str, supply: int = 8) -> SpagyricState:
    """The drawn board with seat ``placer`` about to place a ``colour`` ball.

    The bookkeeping assumes ``placer`` won every reveal so far, the pending one included:
    each ball in play beat one ball of the other seat's into its bag (the colour it beats).
    """
    board = board_of(picture)
    won = {c: board.count(COLOURS.index(c)) + (c == colour) for c in COLOURS}
    lost = {BEATS[c]: n for c, n in won.items()}
    winner_supply = ",".join(str(supply - won[c]) for c in COLOURS)
    loser_supply = ",".join(str(supply - lost[c]) for c in COLOURS)
    loser_bag = ",".join(str(lost[c]) for c in COLOURS)
    supplies = [winner_supply, loser_supply] if placer == 0 else [loser_supply, winner_supply]
    bags = ["0,0,0", loser_bag] if placer == 0 else [loser_bag, "0,0,0"]
    text = f"{board.spn()} place {placer + 1}{colour} {supplies[0]} {supplies[1]} 0,0,0 {bags[0]} {bags[1]}"
    return from_spn(text, supply)


# -- options and the start ------------------------------------------------------------------


def test_options_and_their_defaults() -> None:
    game = spheria.load_game("spagyric")
    assert game.options == {"supply": 8, "memory": True}
    assert not game.perfect_information
    assert spheria.load_game("spagyric", supply="12", memory="false").options == {"supply": 12, "memory": False}
    with pytest.raises(ValueError, match="at least 1"):
        spheria.load_game("spagyric", supply=0)
    with pytest.raises(ValueError, match="no option 'colours'"):
        spheria.load_game("spagyric", colours=4)


def test_the_start_is_an_empty_pyramid_and_a_reveal() -> None:
    state = new()
    assert state.to_spn() == f"{EMPTY} reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0"
    assert state.current_player() == SIMULTANEOUS
    assert choices(state, 0) == choices(state, 1) == "wbr"
    assert len(state.legal_moves()) == 9  # every pair of colours, as joint reveals
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]
    assert new(supply=3).to_spn() == f"{EMPTY} reveal - 3,3,3 3,3,3 0,0,0 0,0,0 0,0,0"


# -- reveals -----------------------------------------------------------------------------------

# (seat 1's colour, seat 2's colour, the SPN after the reveal), each worked out by hand: the
# stronger ball's owner is to place it; the weaker ball leaves its owner's supply for their bag.
REVEALS = [
    ("w", "b", f"{EMPTY} place 1w 7,8,8 8,7,8 0,0,0 0,0,0 0,1,0"),
    ("b", "w", f"{EMPTY} place 2w 8,7,8 7,8,8 0,0,0 0,1,0 0,0,0"),
    ("b", "r", f"{EMPTY} place 1b 8,7,8 8,8,7 0,0,0 0,0,0 0,0,1"),
    ("r", "b", f"{EMPTY} place 2b 8,8,7 8,7,8 0,0,0 0,0,1 0,0,0"),
    ("r", "w", f"{EMPTY} place 1r 8,8,7 7,8,8 0,0,0 0,0,0 1,0,0"),
    ("w", "r", f"{EMPTY} place 2r 7,8,8 8,8,7 0,0,0 1,0,0 0,0,0"),
]


@pytest.mark.parametrize(("first", "second", "after"), REVEALS)
def test_the_stronger_ball_is_placed_by_its_owner_and_the_weaker_goes_to_the_bag(
    first: str, second: str, after: str
) -> None:
    state = new()
    reveal(state, first, second)
    assert state.to_spn() == after
    winner = int(after.split()[2][0]) - 1
    assert state.current_player() == winner
    assert state.legal_moves(winner) == [Place(s) for s in range(16)]  # any empty level-0 site
    assert state.legal_moves(1 - winner) == []
    assert state.history_notation() == [f"{first}:{second}"]


def test_only_the_winner_of_the_reveal_places() -> None:
    state = new()
    reveal(state, "w", "b")
    with pytest.raises(IllegalMoveError, match="Player 1's placement"):
        state.parse_move("0a1", 1)
    with pytest.raises(IllegalMoveError, match="place the white ball first"):
        state.apply(Reveal(0, 2))
    with pytest.raises(IllegalMoveError, match="cannot take a ball"):
        state.apply(Place(parse_site("1a1")))  # level 1 needs four balls under it
    assert state.move_hint(1) == "Player 1 is placing; nothing to choose now"


def test_a_same_colour_reveal_stuns_both_balls_and_the_turn_goes_on() -> None:
    state = new()
    reveal(state, "w", "w")
    assert state.to_spn() == f"{EMPTY} reveal - 7,8,8 7,8,8 1,0,0 0,0,0 0,0,0"
    assert state.current_player() == SIMULTANEOUS
    assert choices(state, 0) == "wbr"  # seven whites are still in each supply
    assert state.history_notation() == ["w:w"]


def test_a_stun_chain_then_the_placement_returns_every_stunned_ball() -> None:
    """w:w, w:w, b:b set aside two white pairs and a black pair (supplies 6,7,8 each);
    r:b then lets seat 2 place its black (black beats red) and sends seat 1's red to the bag.
    The placement ends the turn: each seat gets back two whites and a black."""
    state = new()
    reveal(state, "w", "w")
    reveal(state, "w", "w")
    reveal(state, "b", "b")
    assert state.to_spn() == f"{EMPTY} reveal - 6,7,8 6,7,8 2,1,0 0,0,0 0,0,0"
    reveal(state, "r", "b")
    assert state.to_spn() == f"{EMPTY} place 2b 6,7,7 6,6,8 2,1,0 0,0,1 0,0,0"
    place(state, "0a1")
    assert state.to_spn() == "b.............../........./..../. reveal - 8,8,7 8,7,8 0,0,0 0,0,1 0,0,0"
    assert state.history_notation() == ["w:w", "w:w", "b:b", "r:b", "0a1"]


def test_a_colour_whose_balls_are_all_stunned_cannot_be_chosen() -> None:
    state = new(supply=1)
    reveal(state, "w", "w")
    assert choices(state, 0) == choices(state, 1) == "br"
    before = state.to_spn()
    with pytest.raises(IllegalMoveError, match=r"you have no white ball to choose.*stunned"):
        state.parse_move("w", 0)
    with pytest.raises(IllegalMoveError, match="Player 2 has no white ball"):
        state.apply_joint([Choice(1), Choice(0)])
    assert state.to_spn() == before and len(state.history) == 1


def test_a_turn_that_ends_by_stun_exhaustion_is_a_draw() -> None:
    """With one ball of each colour, w:w, b:b and r:r stun everything: nobody has a ball to choose."""
    state = new(supply=1)
    reveal(state, "w", "w")
    reveal(state, "b", "b")
    assert state.current_player() == SIMULTANEOUS and choices(state, 0) == "r"
    reveal(state, "r", "r")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [0.0, 0.0] and state.winners() == []
    assert state.legal_moves() == [] and state.legal_moves(0) == []
    assert state.to_spn() == f"{EMPTY} over - 0,0,0 0,0,0 1,1,1 0,0,0 0,0,0"
    assert state.status_lines(None)[0] == "Draw: a player has no ball left to choose."
    with pytest.raises(IllegalMoveError, match="over"):
        state.parse_move("w", 0)


def test_supplies_that_run_out_after_a_placement_give_a_draw() -> None:
    """One ball of each colour: seat 1 wins three reveals (w:b, r:w, b:r) and places them apart;
    then both supplies are empty and the next reveal cannot happen."""
    state = new(supply=1)
    reveal(state, "w", "b")
    place(state, "0a1")
    reveal(state, "r", "w")
    place(state, "0d4")
    reveal(state, "b", "r")
    assert state.phase == PLACE  # the last ball is placed before the game ends
    place(state, "0a4")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.to_spn() == "w...........b..r/........./..../. over - 0,0,0 0,0,0 0,0,0 0,0,0 1,1,1"


def test_both_seats_always_hold_the_same_number_of_balls() -> None:
    """Each reveal takes one ball from each seat (stun, or one placed and one bagged), so a
    draw by exhaustion always finds both seats empty together."""
    state = new(supply=2)
    for first, second, site in (("w", "w", None), ("b", "r", "0a1"), ("r", "r", None), ("w", "b", "0d1")):
        reveal(state, first, second)
        assert sum(state.supply[0]) == sum(state.supply[1])
        if site:
            place(state, site)
            assert sum(state.supply[0]) == sum(state.supply[1])


# -- group outcomes, drawn --------------------------------------------------------------------

ROW_OF_THREE_GAPPED = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 . . . .     2 . . .     2 . .
    1 w . w w     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
"""


@pytest.mark.parametrize("placer", [0, 1])
def test_exactly_four_by_joining_a_single_and_a_pair_wins(placer: int) -> None:
    """0a1 stands alone and 0c1-0d1 are a pair; a white on 0b1 touches 0a1 and 0c1: 1 + 1 + 2 = 4."""
    state = placing(ROW_OF_THREE_GAPPED, placer, "w")
    elsewhere = state.clone()
    place(state, "0b1")
    assert state.is_terminal()
    assert state.winners() == [placer]
    assert state.returns()[placer] == 1.0 and state.returns()[1 - placer] == -1.0
    name = f"Player {placer + 1}"
    assert state.status_lines(None)[0] == f"{name} wins: {name} made a group of 4 white balls."
    # The same ball on 0a2 touches only 0a1: a pair, and play goes on.
    place(elsewhere, "0a2")
    assert elsewhere.current_player() == SIMULTANEOUS and not elsewhere.is_terminal()


PAIR = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 . . . .     2 . . .     2 . .
    1 w w . .     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
"""


@pytest.mark.parametrize("placer", [0, 1])
def test_exactly_three_loses(placer: int) -> None:
    """A white on 0c1 extends the pair 0a1-0b1 to three."""
    state = placing(PAIR, placer, "w")
    place(state, "0c1")
    assert state.is_terminal()
    assert state.winners() == [1 - placer]
    assert state.returns()[placer] == -1.0
    assert state.status_lines(0)[0] == f"Player {2 - placer} wins: Player {placer + 1} made a group of 3 white balls."


TWO_PAIRS = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 . . . b     2 . . .     2 . .
    1 b b . b     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
"""


def test_five_by_merging_two_pairs_loses() -> None:
    """Pairs 0a1-0b1 and 0d1-0d2; a black on 0c1 touches 0b1 and 0d1: 2 + 1 + 2 = 5."""
    state = placing(TWO_PAIRS, 0, "b")
    place(state, "0c1")
    assert state.is_terminal() and state.winners() == [1]
    assert "made a group of 5 black balls" in state.status_lines(None)[0]


# 0a1 and 0b2 are white but only diagonal neighbours on level 0: two groups of one.
DIAGONAL_WHITES = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 r w . .     2 . . .     2 . .
    1 w b . .     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
"""


def test_a_ball_above_joins_the_balls_it_rests_on() -> None:
    """A white on 1a1 rests on 0a1 and 0b2 (and on 0b1, 0a2): it touches both whites: 3, a loss."""
    state = placing(DIAGONAL_WHITES, 1, "w")
    place(state, "1a1")
    assert state.is_terminal() and state.winners() == [0]


def test_same_level_diagonals_do_not_touch() -> None:
    """A white on 0c1 is diagonal to 0b2 and touches only 0b1 (black), 0d1 and 0c2: a group of one."""
    state = placing(DIAGONAL_WHITES, 1, "w")
    place(state, "0c1")
    assert not state.is_terminal() and state.phase == "reveal"


ACROSS_LEVELS = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 . . . .     3 . . .
    2 r w b .     2 . . .     2 . .
    1 w b r .     1 . w .     1 . .     1 .
      a b c d       a b c       a b       a
"""


def test_four_across_levels_wins() -> None:
    """1b1 rests on 0b2, so 0b2-1b1 are a white pair; 0a1 is a single white. A white on 1a1
    rests on 0a1 and 0b2 and is beside 1b1 on level 1: 1 + 1 + 2 = 4, a win.
    (Blacks 0b1 and 0c2 are diagonal, reds 0c1 and 0a2 apart: every other group is one ball.)"""
    state = placing(ACROSS_LEVELS, 0, "w")
    place(state, "1a1")
    assert state.is_terminal() and state.winners() == [0]


BLACK_AND_RED_PAIRS = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 r . . .     3 . . .
    2 r . . .     2 . . .     2 . .
    1 . b b .     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
"""


def test_only_balls_of_the_placed_colour_count() -> None:
    """A white on 0a1 touches the black pair (0b1) and the red pair (0a2): its white group is
    one ball. Counting every colour would make 5, a loss."""
    state = placing(BLACK_AND_RED_PAIRS, 0, "w")
    place(state, "0a1")
    assert not state.is_terminal() and state.phase == "reveal"


# -- sudden death -----------------------------------------------------------------------------


def test_no_full_pyramid_is_free_of_groups_of_three() -> None:
    """Why sudden death never happens in play: the game is decided when a group of 3 or more
    appears, and every colouring of all 30 sites has one. Exhaustive search, top site first,
    written independently of the engine's group code (the touching table only)."""
    neighbours = [[t for t in range(NUM_SITES) if TOUCHING[s] >> t & 1] for s in range(NUM_SITES)]
    colour: dict[int, int] = {}

    def small(site: int) -> bool:  # the group holding ``site`` among coloured sites has <= 2 balls
        seen, todo = {site}, [site]
        while todo:
            for t in neighbours[todo.pop()]:
                if colour.get(t) == colour[site] and t not in seen:
                    seen.add(t)
                    todo.append(t)
        return len(seen) <= 2

    def extend(site: int) -> bool:
        if site < 0:
            return True
        for c in range(3):
            colour[site] = c
            if small(site) and extend(site - 1):
                return True
        del colour[site]
        return False

    assert not extend(NUM_SITES - 1)


# 27 balls with no group larger than two (found by a search; every group can be checked by eye).
LARGEST_LIVE = """
      level 0       level 1     level 2   level 3
    4 r b r w
    3 w r b w     3 b w r
    2 b b w r     2 w r b     2 . w
    1 w r b w     1 r w r     1 b .     1 .
      a b c d       a b c       a b       a
"""


def test_twenty_seven_balls_can_stand_without_a_result() -> None:
    board = board_of(LARGEST_LIVE)
    assert board.count() == 27
    counts = [board.count(c) for c in range(3)]
    assert counts == [10, 8, 9]
    # Seat 1 won every reveal: its supply lost 10 white, 8 black, 9 red; each beat one ball of
    # seat 2's into the bag: 10 black (beaten by white), 8 red, 9 white.
    state = from_spn(f"{board.spn()} reveal - 0,2,1 1,0,2 0,0,0 0,0,0 9,10,8", supply=10)
    assert state.current_player() == SIMULTANEOUS


def sudden_state() -> SpagyricState:
    """A sudden-death position built directly: it cannot arise in play (see above)."""
    game = spheria.load_game("spagyric")
    assert isinstance(game, Spagyric)
    board = Board.from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b")
    return SpagyricState(game, board, [[0, 0, 0], [0, 0, 0]], phase=SUDDEN)


def test_sudden_death_stuns_restarts_and_the_stronger_ball_wins() -> None:
    state = sudden_state()
    assert state.current_player() == SIMULTANEOUS
    assert choices(state, 0) == choices(state, 1) == "wbr"  # a fresh white, black and red each
    reveal(state, "w", "w")
    assert choices(state, 0) == choices(state, 1) == "br" and state.stunned == [1, 0, 0]
    reveal(state, "b", "b")
    assert choices(state, 0) == "r"
    reveal(state, "r", "r")  # all three stunned: the sudden death starts again
    assert state.stunned == [0, 0, 0] and choices(state, 1) == "wbr"
    assert state.current_player() == SIMULTANEOUS
    reveal(state, "w", "r")  # red beats white: seat 2 wins the game
    assert state.is_terminal() and state.winners() == [1]
    assert state.status_lines(None)[0] == "Player 2 wins the sudden death."
    for _ in range(4):
        state.undo()
    assert state.phase == SUDDEN and state.stunned == [0, 0, 0] and not state.history


def test_the_ball_that_fills_the_pyramid_without_a_result_starts_sudden_death() -> None:
    """Built directly (impossible in play): levels 0-2 full, a red to place on top of four
    blacks. The red touches no red, a group of one, and the pyramid is full."""
    game = spheria.load_game("spagyric")
    assert isinstance(game, Spagyric)
    board = Board.from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/bbbb/.")
    state = SpagyricState(game, board, [[1, 2, 3], [3, 2, 1]], phase=PLACE, placer=0, placing=2)
    assert state.legal_moves() == [Place(parse_site("3a1"))]
    place(state, "3a1")
    assert state.board.occupied == ALL_SITES
    assert state.phase == SUDDEN and state.current_player() == SIMULTANEOUS
    assert state.supply == [[1, 2, 3], [3, 2, 1]]  # the supplies play no part in sudden death
    assert choices(state, 0) == "wbr"


# -- moves, undo, clone ---------------------------------------------------------------------


def test_moves_are_written_and_read_back() -> None:
    state = new()
    assert [str(m) for m in state.legal_moves(0)] == ["w", "b", "r"]
    assert state.parse_move(" White ", 1) == Choice(0)
    assert state.parse_move("r:b") == Reveal(2, 1)
    with pytest.raises(InvalidMoveError, match="not a colour"):
        state.parse_move("g", 0)
    with pytest.raises(IllegalMoveError, match="both players' colours"):
        state.parse_move("w")
    with pytest.raises(IllegalMoveError, match="only your own colour"):
        state.parse_move("w:b", 0)
    with pytest.raises(IllegalMoveError, match="both players' choices"):
        state.apply(Choice(0))  # one seat's half of a reveal is never held by the state
    with pytest.raises(InvalidMoveError, match="exactly two choices"):
        state.apply_joint([Choice(0)])
    assert state.move_hint(0) == "a colour you hold: w (white), b (black), r (red)"
    assert state.move_hint(None) == "both colours, Player 1's first, such as w:b"
    reveal(state, "b", "r")
    assert state.parse_move("0c3", 0) == Place(parse_site("0c3"))
    with pytest.raises(IllegalMoveError, match="must place the black ball first"):
        state.parse_move("w", 0)
    with pytest.raises(InvalidMoveError, match="not a site"):
        state.parse_move("0e1", 0)


GAME = ("w:w", "b:r", "0a1", "r:r", "r:w", "0b2")


def test_undo_restores_every_field() -> None:
    """Each entry changes a different field (stunned, bags, board, supplies, phase); undoing
    them one by one must give back each earlier SPN exactly."""
    state = new(supply=2)
    seen = [state.to_spn()]
    for text in GAME:
        state.apply_notation(text)
        seen.append(state.to_spn())
    # Worked out by hand: 2,1,1 and 1,2,1 after the last turn's stunned red came back.
    assert seen[-1] == "b....r........../........./..../. reveal - 2,1,1 1,2,1 0,0,0 0,0,0 1,0,1"
    for text in reversed(GAME):
        assert str(state.undo()) == text
        seen.pop()
        assert state.to_spn() == seen[-1]
    assert state.history == ()
    at_start = state.to_spn()
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        state.undo()
    assert (state.to_spn(), state.history) == (at_start, ())


def test_clone_and_child_leave_the_original_alone() -> None:
    state = new(supply=2)
    for text in GAME:
        state.apply_notation(text)
    before = state.to_spn()
    copy = state.clone()
    child = state.child(Reveal(1, 1))
    copy.apply_notation("w:b")
    assert state.to_spn() == before and state.history_notation() == list(GAME)
    assert child.to_spn() == "b....r........../........./..../. reveal - 2,0,1 1,1,1 0,1,0 0,0,0 1,0,1"
    assert copy.phase == PLACE and child.history_notation() == [*GAME, "b:b"]
    assert str(copy.undo()) == "w:b" and copy.to_spn() == before


# -- position notation ----------------------------------------------------------------------

# Seat 1 won a reveal with white over seat 2's black and placed it on 0a1.
AFTER_ONE_TURN = "w.............../........./..../. reveal - 7,8,8 8,7,8 0,0,0 0,0,0 0,1,0"
THREE_WHITES = "www............./........./..../."

VALID = [
    (f"{EMPTY} reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8),
    (AFTER_ONE_TURN, 8),
    # Seat 2's white beat seat 1's black, and seat 2 is to place it.
    (f"{EMPTY} place 2w 8,7,8 7,8,8 0,0,0 0,1,0 0,0,0", 8),
    # Seat 1 made three whites in a row (each beat one of seat 2's blacks) and lost.
    (f"{THREE_WHITES} over 2 5,8,8 8,5,8 0,0,0 0,0,0 0,3,0", 8),
    (f"{EMPTY} over - 0,0,0 0,0,0 1,1,1 0,0,0 0,0,0", 1),
]


@pytest.mark.parametrize(("text", "supply"), VALID)
def test_valid_positions_round_trip(text: str, supply: int) -> None:
    assert from_spn(text, supply).to_spn() == text


INVALID = [
    (f"{EMPTY} reveal - 8,8,8 8,8,8 0,0,0 0,0,0", 8, "8 fields"),
    ("w......../........./..../. reveal - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "must have 16 sites"),
    (f"{EMPTY} play - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "phase must be one of"),
    (f"{EMPTY} reveal 1 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "seat field is '-'"),
    (f"{EMPTY} place 1 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "names the placer and the ball"),
    (f"{EMPTY} over 3 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "winner 1 or 2"),
    (f"{EMPTY} reveal - 8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "three counts"),
    (f"{EMPTY} reveal - 8,8,8 8,8,x 0,0,0 0,0,0 0,0,0", 8, "three counts"),
    (f"{EMPTY} reveal - 9,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "only 8 of each"),
    # Seat 1's white that beat a black is still counted in its supply: 8 + 1 = 9 whites.
    ("w.............../........./..../. reveal - 8,8,8 8,7,8 0,0,0 0,0,0 0,1,0", 8, "white balls add up to 9, not 8"),
    # The bag holds a black that no white on the pyramid beat.
    (f"{EMPTY} reveal - 7,8,8 8,7,8 0,0,0 0,0,0 0,1,0", 8, "0 white balls are in play .* bags hold 1 black"),
    (f"{THREE_WHITES} reveal - 5,8,8 8,5,8 0,0,0 0,0,0 0,3,0", 8, r"group of 3 white balls \(0a1 0b1 0c1\)"),
    (f"{EMPTY} reveal - 0,0,0 0,0,0 1,1,1 0,0,0 0,0,0", 1, "no ball to choose.*draw"),
    (f"{EMPTY} over - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "a draw needs a player with no ball left"),
    (f"{THREE_WHITES} over - 5,8,8 8,5,8 0,0,0 0,0,0 0,3,0", 8, "with a winner, not a draw"),
    (f"{AFTER_ONE_TURN.replace('reveal -', 'over 1')}", 8, "cannot have won"),
    (f"{THREE_WHITES} over 2 4,8,8 7,5,8 1,0,0 0,0,0 0,3,0", 8, "no stunned balls"),
    # Three whites mean the last placer lost; seat 2 never won with white, so seat 1 cannot have won.
    (f"{THREE_WHITES} over 1 5,8,8 8,5,8 0,0,0 0,0,0 0,3,0", 8, "Player 2 has won no reveal with white"),
    # Whites 0a1-0c1 and reds 0d1-0d3: the game ended at the first of them.
    ("wwwr...r...r..../........./..../. over 2 5,8,5 5,5,8 0,0,0 0,0,0 3,3,0", 8, "two groups of 3 or more"),
    # Six whites 0a1 0b1 0c1 0d1 0d2 0d3: taking any one away leaves a group of 3 or more.
    ("wwww...w...w..../........./..../. over 2 2,8,8 8,2,8 0,0,0 0,0,0 0,6,0", 8, "no single last ball"),
    # The only black in a bag is seat 1's: the white that beat it is seat 2's.
    (f"{EMPTY} place 1w 8,7,8 7,8,8 0,0,0 0,1,0 0,0,0", 8, "Player 1 cannot be placing a white ball"),
    (f"{EMPTY} sudden - 8,8,8 8,8,8 0,0,0 0,0,0 0,0,0", 8, "only on a full pyramid"),
    (f"{EMPTY} sudden - 8,8,8 8,8,8 1,1,1 0,0,0 0,0,0", 8, "never all three"),
]


@pytest.mark.parametrize(("text", "supply", "match"), INVALID)
def test_impossible_positions_are_refused_with_the_reason(text: str, supply: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_spn(text, supply)


# -- records -------------------------------------------------------------------------------


def test_records_hold_every_reveal_stun_and_placement_and_replay_checks_them() -> None:
    state = new(supply=2)
    for text in GAME:
        state.apply_notation(text)
    record = Record.from_state(state, ["human", "random"])
    assert record.moves == list(GAME)
    assert Record.loads(record.dumps()).replay().to_spn() == state.to_spn()
    # supply 2: two white stuns use up both whites, so seat 1 cannot reveal white next.
    for moves, match in (
        (["w:w", "w:w", "w:b"], "move 3 .*Player 1 has no white ball"),
        (["w:b", "w:b"], "move 2 .*place the white ball first"),
        (["0a1"], "move 1 .*both players' colours"),
        (["w:b", "1a1"], "move 2 .*cannot take a ball"),
    ):
        bad = Record.from_json({**record.to_json(), "moves": moves, "result": None})
        with pytest.raises(RecordError, match=match):
            bad.replay()
