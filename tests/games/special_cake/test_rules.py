"""Rules tests for Special Cake, as drawn positions: start from a picture, play, compare with a picture.

Every position was worked out by hand from the rules (docs/rules.md, section Special Cake, and the
English rules text); the comment above each test gives the reasoning. Nothing expected here was copied from
the engine's output.
"""

from __future__ import annotations

import random

import pytest

import spheria
from spheria import IllegalMoveError, InvalidMoveError
from spheria.engine.board import NUM_SITES, SITE_NAMES, TOP, BaseBoard, Board, parse_site, unstable_sites
from spheria.games.special_cake.rules import CakeMove, CakeState
from spheria.kernel.game import TERMINAL
from tests.conftest import assert_rejected, board_of, child_of, play

WHITE, BLACK, RED = 0, 1, 2
MINT_PLAYER, LIQUORICE_PLAYER = 0, 1


def cake(picture: str, to_move: int = 1, phase: str = "eat", variant: str = "mint", **options: str) -> CakeState:
    """A Special Cake state from a drawn board; ``to_move`` is 1 or 2 as in SPN."""
    game = spheria.load_game("special-cake", variant=variant, **options)
    state = game.state_from_spn(f"{board_of(picture).spn()} {to_move} {phase}")
    assert isinstance(state, CakeState)
    return state


def new_state(variant: str, seed: int | None = None) -> CakeState:
    """A new game of the given variant."""
    state = spheria.load_game("special-cake", variant=variant).new_initial_state(seed=seed)
    assert isinstance(state, CakeState)
    return state


def site_sets(state: CakeState) -> set[frozenset[str]]:
    """The legal moves as sets of site names (for positions where the eating order cannot matter)."""
    return {frozenset(SITE_NAMES[s] for s in move.sites) for move in state.legal_moves()}


# The mint cake of the module docstring: 15 mint, 15 liquorice, liquorice on top.
MINT_CAKE = """
      level 0       level 1     level 2   level 3
    4 b w b w
    3 w b w b     3 w b w
    2 b w b w     2 b w b     2 w b
    1 w b w b     1 w b w     1 w b     1 b
      a b c d       a b c       a b       a
    """

# A poisoned cake: 15 mint, 14 liquorice, the cherry on top.
POISONED_CAKE = """
      level 0       level 1     level 2   level 3
    4 b w b w
    3 w b w b     3 w b w
    2 b w b w     2 b w b     2 w b
    1 w b w b     1 w b w     1 w b     1 r
      a b c d       a b c       a b       a
    """

# Level 0 ranks 1-3 and files a-c, the four level-1 sites above them, and 2a1 on top.
# 0a1 holds only 1a1; 0b1 holds 1a1 and 1b1 (pinned); 0c1 holds only 1b1; 1a1 holds only 2a1.
STEPPED = """
      level 0       level 1     level 2   level 3
    4 . . . .
    3 b w b .     3 . . .
    2 w b w .     2 b w .     2 . .
    1 w b w .     1 b w .     1 w .     1 .
      a b c d       a b c       a b       a
    """


# -- single candies ---------------------------------------------------------------------------


def test_eating_a_corner_drops_three_balls():
    # 0d4 (w) holds only 1c3 (w); 1c3 holds 2b2 (b), 2b2 holds the cherry on top. Eating 0d4
    # drops 1c3's w into 0d4, 2b2's b into 1c3 and the cherry into 2b2; the top ends empty.
    state = cake(POISONED_CAKE, variant="poisoned")
    play(state, "0d4")
    assert state.board == board_of(
        """
        4 b w b w
        3 w b w b     3 w b b
        2 b w b w     2 b w b     2 w r
        1 w b w b     1 w b w     1 w b     1 .
        """
    )
    assert state.to_spn().endswith(" 2 eat")


def test_pinned_candy_cannot_be_eaten():
    # 0b1 holds 1a1 and 1b1; 1b2 holds all four of level 2.
    state = cake(MINT_CAKE)
    assert_rejected(state, "0b1", "pinned", CakeMove.parse)
    assert_rejected(state, "1b2", "pinned", CakeMove.parse)
    assert_rejected(state, "0c3", "pinned", CakeMove.parse)


def test_eating_from_an_empty_site_is_rejected():
    state = cake(STEPPED)
    assert_rejected(state, "0d1", "no candy on 0d1", CakeMove.parse)
    assert_rejected(state, "3a1", "no candy on 3a1", CakeMove.parse)


def test_two_ways_to_the_same_position_are_one_move():
    # The top (b) rests on 2a1 w, 2b1 b, 2a2 w, 2b2 b. Eating the top, or eating 2b1 or 2b2
    # (the top's b drops into the hole), all leave level 2 as w b / w b and the top empty.
    state = cake(MINT_CAKE)
    target = board_of(
        """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 w b
        1 w b w b     1 w b w     1 w b     1 .
        """
    )
    same = [move for move in state.legal_moves() if child_of(state, move).board == target]
    assert len(same) == 1
    for text in ("3a1", "2b1", "2b2"):
        assert state.parse_move(text) == same[0]
        child = state.clone()
        child.apply(CakeMove.parse(text))  # any way of writing it is playable ...
        assert child.board == target
        assert child.history == (same[0],)  # ... and is recorded as the listed move
    # Eating 2a1 (w) instead lets the top's b into 2a1: a different position.
    play(state, "2a1")
    assert state.board != target
    assert state.board.color_at(parse_site("2a1")) == BLACK


# -- lines ----------------------------------------------------------------------------------


def test_line_whose_second_candy_is_pinned_until_the_first_is_eaten():
    # Line 0a1 (w) + 0b1 (b), mixed. 0b1 holds 1a1 and 1b1: pinned. 0a1 holds 1a1 only.
    # Eat 0a1 first: 1a1's b drops into 0a1; now 0b1 holds only 1b1, so it can be eaten and
    # 1b1's w drops into 0b1. The other order fails at once: 0b1 is pinned.
    before = """
        4 . . . .
        3 . . . .     3 . . .
        2 b w b .     2 . . .     2 . .
        1 w b w .     1 b w .     1 . .     1 .
        """
    state = cake(before)
    assert_rejected(state, "0b1", "pinned", CakeMove.parse)
    assert_rejected(state, "0b1+0a1", "pinned when its turn comes", CakeMove.parse)
    play(state, "0a1+0b1")
    assert state.board == board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b w b .     2 . . .     2 . .
        1 b w w .     1 . . .     1 . .     1 .
        """
    )
    assert state.current_player() == LIQUORICE_PLAYER


def test_line_candy_that_drops_during_the_move_is_still_eaten():
    # Rising line 0a1 (w) + 1a1 (b), mixed; 2a1 (w) rests on 1a1. Written 0a1 first: eating 0a1
    # drops 1a1's b into 0a1 and 2a1's w into 1a1. The line's second candy is the b now on 0a1:
    # eating it drops the w from 1a1 into 0a1. So 0a1 ends w, 1a1 and 2a1 empty.
    # (Eating whatever stands on 1a1 instead would eat the w and leave the b on 0a1.)
    state = cake(STEPPED)
    after = board_of(
        """
        4 . . . .
        3 b w b .     3 . . .
        2 w b w .     2 b w .     2 . .
        1 w b w .     1 . w .     1 . .     1 .
        """
    )
    first = child_of(state, CakeMove.parse("0a1+1a1"))
    assert first.board == after
    # The other order eats 1a1 (2a1's w drops in), then 0a1 (that w drops again): same position,
    # so both orders are the same legal move.
    assert state.parse_move("0a1+1a1") == state.parse_move("1a1+0a1")
    play(state, "1a1+0a1")
    assert state.board == after


def test_line_that_cannot_be_completed_in_any_order():
    # Line 0a1 (w) + 0b1 (b). 0b1 holds 1a1 and 1b1: pinned. Eating 0a1 first drops 1a1's b
    # into 0a1 but also 2a1's w into 1a1, so 0b1 still holds two balls and stays pinned.
    # Neither order works: the line is not a legal move.
    state = cake(STEPPED)
    assert_rejected(state, "0a1+0b1", "pinned when its turn comes", CakeMove.parse)
    assert_rejected(state, "0b1+0a1", "pinned when its turn comes", CakeMove.parse)
    assert frozenset({"0a1", "0b1"}) not in site_sets(state)


def test_longer_line_frees_its_pinned_candy_only_when_it_goes_last():
    # Line 0a1 (w) + 0b1 (b) + 0c1 (w). 0b1 stays pinned until both 1a1 and 1b1 have left it.
    # 0c1 first: 1b1's w drops into 0c1 and 2a1's w into 1b1 (2a1 rests on 1b1 too).
    # Then 0a1: 1a1's b drops into 0a1 (2a1 is empty now). Then 0b1 holds only 1b1: eaten,
    # and the w on 1b1 drops into 0b1. Result: 0a1 b, 0b1 w, 0c1 w; level 1 keeps 1a2, 1b2.
    # Order 0a1, 0c1, 0b1 ends the same (0a1 gets 1a1's b, 1a1 gets 2a1's w which then drops
    # into 0b1, 0c1 gets 1b1's w): one legal move. With 0b1 anywhere but last, it is pinned.
    state = cake(STEPPED)
    after = board_of(
        """
        4 . . . .
        3 b w b .     3 . . .
        2 w b w .     2 b w .     2 . .
        1 b w w .     1 . . .     1 . .     1 .
        """
    )
    move = state.parse_move("0c1+0a1+0b1")
    assert state.parse_move("0a1+0c1+0b1") == move
    assert move in state.legal_moves()
    for text in ("0b1+0a1+0c1", "0b1+0c1+0a1", "0a1+0b1+0c1", "0c1+0b1+0a1"):
        assert_rejected(state, text, "pinned when its turn comes", CakeMove.parse)
    play(state, "0a1+0c1+0b1")
    assert state.board == after


def test_any_part_of_a_line_is_a_line_and_lines_do_not_bend():
    # Row 1 of level 0: w w b, nothing above. Lines: 0a1+0b1 (one colour), 0b1+0c1 and
    # 0a1+0b1+0c1 (two colours). 0a1+0c1 skips a site: not a line.
    row = """
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 w w b .     1 . . .     1 . .     1 .
        """
    singles = {frozenset({"0a1"}), frozenset({"0b1"}), frozenset({"0c1"})}
    mixed = {frozenset({"0b1", "0c1"}), frozenset({"0a1", "0b1", "0c1"})}
    same = {frozenset({"0a1", "0b1"})}
    assert site_sets(cake(row)) == singles | mixed  # mint default: mixed
    assert site_sets(cake(row, line_rule="mixed")) == singles | mixed
    assert site_sets(cake(row, line_rule="same")) == singles | same
    assert site_sets(cake(row, line_rule="any")) == singles | mixed | same
    assert site_sets(cake(row, variant="sugar")) == singles | mixed | same  # sugar default: any
    assert_rejected(cake(row), "0a1+0b1", "line rule", CakeMove.parse)
    assert_rejected(cake(row, line_rule="same"), "0b1+0c1", "line rule", CakeMove.parse)
    assert_rejected(cake(row, line_rule="any"), "0a1+0c1", "not a line", CakeMove.parse)
    # Eating the whole row in any order leaves the board empty.
    state = cake(row)
    play(state, "0c1+0a1+0b1")
    assert state.board == Board()


def test_line_rules_on_a_rising_line():
    # 1a1 (w) rests on 0a1 (w), 0b1 (b), 0a2 (b), 0b2 (w). Rising lines through 1a1:
    # 0a1+1a1 (w w), 0b1+1a1 (b w, axis (1,0,-1)), 0a2+1a1 (b w), 0b2+1a1 (w w).
    picture = """
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w b . .     1 w . .     1 . .     1 .
        """
    # Either order empties both sites: 1a1 first holds nothing; 0a1 first drops 1a1's w into 0a1.
    same = cake(picture, line_rule="same")
    assert_rejected(same, "0b1+1a1", "line rule", CakeMove.parse)
    play(same, "0a1+1a1")
    assert same.board == board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 . b . .     1 . . .     1 . .     1 .
        """
    )
    mixed = cake(picture)
    assert_rejected(mixed, "1a1+0b2", "line rule", CakeMove.parse)
    play(mixed, "0b1+1a1")
    assert mixed.board == board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w . . .     1 . . .     1 . .     1 .
        """
    )


def test_sugar_red_candies_are_ordinary_line_candies():
    # In sugar the red balls are plain candies: 2a1 (w) + the top (r) is a line under "any".
    # Eat the top, then 2a1, which then holds nothing: both sites end empty.
    state = cake(POISONED_CAKE, variant="sugar")
    play(state, "2a1+3a1")
    assert state.board == board_of(
        """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 w b
        1 w b w b     1 w b w     1 . b     1 .
        """
    )
    assert_rejected(cake(POISONED_CAKE, variant="sugar", line_rule="same"), "2a1+3a1", "line rule", CakeMove.parse)
    # The top may be eaten on its own in sugar.
    play(cake(POISONED_CAKE, variant="sugar"), "3a1")


def test_poisoned_cherry_is_never_part_of_a_line():
    # Even with line_rule=any, no line may hold the cherry, and it cannot be eaten alone.
    state = cake(POISONED_CAKE, variant="poisoned", line_rule="any")
    for text in ("2a1+3a1", "3a1+2b2", "1a1+2a1+3a1", "0a1+1a1+2a1+3a1"):
        assert_rejected(state, text, "never the cherry", CakeMove.parse)
    assert_rejected(state, "3a1", "cherry may be eaten only when it is the last", CakeMove.parse)
    # No legal move eats it (it may drop, though).
    assert state.legal_moves()
    assert all(child_of(state, move).board.count(RED) == 1 for move in state.legal_moves())
    # 1a1 (w) + 2a1 (w) is a line under "any": eat 2a1 (the cherry drops into 2a1), then 1a1
    # (the cherry drops on into 1a1). The cherry ends on 1a1.
    play(state, "2a1+1a1")
    assert state.board == board_of(
        """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 w b
        1 w b w b     1 r b w     1 . b     1 .
        """
    )
    # Under the default (mixed), the same one-colour line is refused.
    assert_rejected(cake(POISONED_CAKE, variant="poisoned"), "1a1+2a1", "line rule", CakeMove.parse)


def test_poisoned_cherry_drops_like_any_ball():
    # 2a1 holds only the top: eating it drops the cherry into 2a1.
    state = cake(POISONED_CAKE, variant="poisoned")
    play(state, "2a1")
    assert state.board == board_of(
        """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 w b
        1 w b w b     1 w b w     1 r b     1 .
        """
    )


# -- the end --------------------------------------------------------------------------------

ONE_MINT = """
    4 . . . .
    3 . . . .     3 . . .
    2 . . . .     2 . . .     2 . .
    1 w . . .     1 . . .     1 . .     1 .
    """

TWO_CANDIES = """
    4 . . . .
    3 . . . .     3 . . .
    2 . . . .     2 . . .     2 . .
    1 w b . .     1 . . .     1 . .     1 .
    """


def test_mint_eating_the_last_candy_loses():
    state = cake(ONE_MINT, to_move=1)
    assert [str(m) for m in state.legal_moves()] == ["0a1"]
    assert state.returns() == [0.0, 0.0]
    play(state, "0a1")
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_moves() == []
    assert state.returns() == [-1.0, 1.0]  # Mint ate the last candy
    assert state.winners() == [LIQUORICE_PLAYER]
    assert_rejected(state, "0a1", "game is over", CakeMove.parse)
    # The same with Liquorice to eat it.
    other = cake(ONE_MINT, to_move=2)
    play(other, "0a1")
    assert other.returns() == [1.0, -1.0]


def test_mint_eating_the_last_candies_by_a_line_loses():
    # Liquorice to move with w b left. Eating the line eats the last candy: Liquorice loses.
    # Eating one leaves one for Mint, who must eat it and lose.
    state = cake(TWO_CANDIES, to_move=2)
    assert site_sets(state) == {frozenset({"0a1"}), frozenset({"0b1"}), frozenset({"0a1", "0b1"})}
    line = state.child(state.parse_move("0b1+0a1"))
    assert line.is_terminal()
    assert line.returns() == [1.0, -1.0]
    single = state.child(state.parse_move("0a1"))
    assert not single.is_terminal()
    assert single.current_player() == MINT_PLAYER
    assert single.returns() == [0.0, 0.0]
    assert [str(m) for m in single.legal_moves()] == ["0b1"]
    single.apply(single.parse_move("0b1"))
    assert single.returns() == [-1.0, 1.0]


def test_sugar_eating_the_last_candy_loses():
    state = cake(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 r r . .     1 . . .     1 . .     1 .
        """,
        variant="sugar",
    )
    assert state.game.player_names() == ["Player 1", "Player 2"]
    play(state, "0a1+0b1")  # a one-colour line is fine under "any"
    assert state.returns() == [-1.0, 1.0]


def test_poisoned_cherry_only_when_last_and_whoever_must_eat_it_loses():
    # Cherry on 0a1, one mint on 0b1, Liquorice to move. The cherry may not be eaten (another
    # candy is left) nor join a line, so Liquorice must eat 0b1. Then only the cherry is left:
    # Mint must eat it, so the game is over and Mint has lost.
    state = cake(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 r w . .     1 . . .     1 . .     1 .
        """,
        to_move=2,
        variant="poisoned",
    )
    assert [str(m) for m in state.legal_moves()] == ["0b1"]
    assert_rejected(state, "0a1", "cherry", CakeMove.parse)
    assert_rejected(state, "0a1+0b1", "cherry", CakeMove.parse)
    play(state, "0b1")
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_moves() == []
    assert state.returns() == [-1.0, 1.0]
    assert state.winners() == [LIQUORICE_PLAYER]


def test_poisoned_line_that_leaves_the_cherry_alone_wins():
    # w b r on row 1, Mint to move. The line 0a1+0b1 leaves the cherry alone: Liquorice must
    # eat it and loses. Eating just one candy lets Liquorice eat the other and win.
    state = cake(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 . . . .     2 . . .     2 . .
        1 w b r .     1 . . .     1 . .     1 .
        """,
        variant="poisoned",
    )
    assert site_sets(state) == {frozenset({"0a1"}), frozenset({"0b1"}), frozenset({"0a1", "0b1"})}
    assert state.child(state.parse_move("0a1+0b1")).returns() == [1.0, -1.0]
    after_one = state.child(state.parse_move("0a1"))
    assert [str(m) for m in after_one.legal_moves()] == ["0b1"]
    after_one.apply(after_one.parse_move("0b1"))
    assert after_one.returns() == [-1.0, 1.0]


def test_poisoned_lone_cherry_position_is_over():
    state = spheria.load_game("special-cake", variant="poisoned").state_from_spn(
        "r.............../........./..../. 2 eat"
    )
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]  # Liquorice must eat the cherry


# -- set-up ---------------------------------------------------------------------------------


def supported_empty_sites(board: BaseBoard) -> set[str]:
    """Empty sites that can take a ball, worked out from coordinates (not from the engine's tables)."""
    full = {SITE_NAMES[s] for s in range(NUM_SITES) if board.color_at(s) is not None}
    result = set()
    for level, n in enumerate((4, 3, 2, 1)):
        for row in range(n):
            for col in range(n):
                name = f"{level}{'abcd'[col]}{row + 1}"
                below = {f"{level - 1}{'abcd'[col + b]}{row + a + 1}" for a in (0, 1) for b in (0, 1) if level}
                if name not in full and below <= full:
                    result.add(name)
    return result


def test_mint_set_up_alternates_and_ends_with_mint_to_eat():
    state = new_state("mint")
    assert state.to_spn() == "................/........./..../. 1 place"
    assert state.game.player_names() == ["Mint", "Liquorice"]
    rng = random.Random(2024)
    for i in range(30):
        assert state.current_player() == i % 2
        assert not state.is_terminal()
        moves = state.legal_moves()
        assert {str(m) for m in moves} == supported_empty_sites(state.board)
        move = rng.choice(moves)
        state.apply(move)
        assert state.board.color_at(move.sites[0]) == (WHITE if i % 2 == 0 else BLACK)
        assert state.board.count() == i + 1
    assert state.board.count(WHITE) == state.board.count(BLACK) == 15
    assert state.to_spn().endswith(" 1 eat")
    assert state.current_player() == MINT_PLAYER


def test_placing_needs_four_candies_below():
    state = cake(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b . . .     2 . . .     2 . .
        1 w b w .     1 . . .     1 . .     1 .
        """,
        to_move=1,
        phase="place",
    )
    assert_rejected(state, "1a1", "cannot take a candy", CakeMove.parse)  # 0b2 is missing under it
    assert_rejected(state, "0a1", "cannot take a candy", CakeMove.parse)  # taken
    assert_rejected(state, "0b2+0c2", "one site", CakeMove.parse)
    play(state, "0b2")  # Mint completes the 2x2 square under 1a1
    play(state, "1a1")  # and Liquorice can stack on it
    assert state.board == board_of(
        """
        4 . . . .
        3 . . . .     3 . . .
        2 b w . .     2 . . .     2 . .
        1 w b w .     1 b . .     1 . .     1 .
        """
    )
    assert state.to_spn().endswith(" 1 place")


def test_mint_last_placement_is_liquorice_on_top():
    # 15 mint and 14 liquorice placed: Liquorice places the 30th candy, on the only site left.
    picture = """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 w b
        1 w b w b     1 w b w     1 w b     1 .
        """
    state = cake(picture, to_move=2, phase="place")
    assert [str(m) for m in state.legal_moves()] == ["3a1"]
    play(state, "3a1")
    assert state.board == board_of(MINT_CAKE)
    assert state.to_spn().endswith(" 1 eat")


def test_poisoned_set_up_places_the_cherry_and_mint_eats_first():
    # 14 + 14 placed, 2a2 and the top empty: Mint places the 29th candy on 2a2, the cherry goes
    # on top by itself, and Mint (who just placed) eats first.
    picture = """
        4 b w b w
        3 w b w b     3 w b w
        2 b w b w     2 b w b     2 . b
        1 w b w b     1 w b w     1 w b     1 .
        """
    state = cake(picture, to_move=1, phase="place", variant="poisoned")
    assert [str(m) for m in state.legal_moves()] == ["2a2"]
    play(state, "2a2")
    assert state.board == board_of(POISONED_CAKE)
    assert state.to_spn().endswith(" 1 eat")
    assert state.current_player() == MINT_PLAYER
    # Taking the placement back takes the cherry too.
    state.undo()
    assert state.board == board_of(picture)
    assert state.to_spn().endswith(" 1 place")


def test_poisoned_set_up_from_the_start():
    state = new_state("poisoned")
    rng = random.Random(7)
    for i in range(29):
        assert state.current_player() == i % 2
        assert state.board.color_at(TOP) is None
        move = rng.choice(state.legal_moves())
        assert move.sites != (TOP,)
        state.apply(move)
        assert state.board.color_at(move.sites[0]) == (WHITE if i % 2 == 0 else BLACK)
    assert (state.board.count(WHITE), state.board.count(BLACK), state.board.count(RED)) == (15, 14, 1)
    assert state.board.color_at(TOP) == RED
    assert state.to_spn().endswith(" 1 eat")
    assert len(state.history) == 29


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**31])
def test_sugar_cake_is_random_and_reproducible(seed: int):
    state = new_state("sugar", seed)
    again = new_state("sugar", seed)
    assert state.to_spn() == again.to_spn()
    assert state.seed == seed
    assert state.to_spn().endswith(" 1 eat")
    board = state.board
    assert board.count() == 30
    assert unstable_sites(board.occupied) == 0
    assert all(board.count(color) <= 16 for color in (WHITE, BLACK, RED))


def test_sugar_cakes_differ_and_an_unseeded_cake_records_its_seed():
    cakes = {new_state("sugar", seed).to_spn() for seed in range(20)}
    assert len(cakes) == 20
    state = new_state("sugar")
    assert state.seed is not None
    assert new_state("sugar", state.seed).to_spn() == state.to_spn()
    # Over many cakes the number of red candies varies, and is never more than 16.
    counts = [new_state("sugar", seed).board.count(RED) for seed in range(200)]
    assert max(counts) <= 16
    assert min(counts) < max(counts)


def test_options():
    assert spheria.load_game("special-cake").options == {"variant": "mint", "line_rule": "mixed"}
    assert spheria.load_game("special-cake", variant="poisoned").options["line_rule"] == "mixed"
    assert spheria.load_game("special-cake", variant="sugar").options["line_rule"] == "any"
    assert spheria.load_game("special-cake", variant="sugar", line_rule="same").options["line_rule"] == "same"
    with pytest.raises(ValueError, match="line_rule"):
        spheria.load_game("special-cake", line_rule="diagonal")
    with pytest.raises(ValueError, match="variant"):
        spheria.load_game("special-cake", variant="chocolate")
    with pytest.raises(ValueError, match="no option"):
        spheria.load_game("special-cake", flavour="mint")


# -- SPN ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "spn"),
    [
        ("mint", "................/........./..../. 1 place"),
        ("mint", "wb.............w/........./..../. 2 place"),
        ("mint", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 eat"),
        ("mint", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/. 2 eat"),
        ("mint", "................/........./..../. 2 eat"),
        ("poisoned", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/r 1 eat"),
        ("poisoned", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wb.b/. 1 place"),
        ("sugar", "rrrrrrrrrrrrrrrr/bbbbbbbbb/wwww/w 2 eat"),
    ],
)
def test_spn_round_trip(variant: str, spn: str):
    state = spheria.load_game("special-cake", variant=variant).state_from_spn(spn)
    assert state.to_spn() == spn


@pytest.mark.parametrize(
    ("variant", "spn", "problem"),
    [
        ("mint", "................/w......../..../. 1 eat", "1a1 floats"),
        ("mint", "................/........./..../. 1", "3 fields"),
        ("mint", "................/........./..../. 1 eat now", "3 fields"),
        ("mint", "................/........./.... 1 eat", "4 levels"),
        ("mint", "wwwwwwwwwwwwwwww/........./..../. 1 eat", "16 'w' balls; the mint variant has at most 15"),
        ("mint", "bbbbbbbbbbbbbbbb/........./..../. 1 eat", "16 'b' balls"),
        ("mint", "r.............../........./..../. 1 eat", "1 'r' balls; the mint variant has at most 0"),
        ("poisoned", "bbbbbbbbbbbbbbb./........./..../. 1 eat", "15 'b' balls; the poisoned variant has at most 14"),
        ("poisoned", "rr............../........./..../. 1 eat", "2 'r' balls"),
        ("sugar", "rrrrrrrrrrrrrrrr/r......../..../. 1 eat", "17 'r' balls"),
        ("mint", "................/........./..../. 0 eat", "player to move must be 1 or 2"),
        ("mint", "................/........./..../. 3 eat", "player to move must be 1 or 2"),
        ("mint", "................/........./..../. w eat", "player to move must be 1 or 2"),
        ("mint", "................/........./..../. 1 play", "phase must be 'place' or 'eat'"),
        ("mint", "................/........./..../. 1 EAT", "phase must be"),
        ("sugar", "................/........./..../. 1 place", "sugar variant has no place phase"),
        ("poisoned", "wb.............w/........./..../. 2 eat", "exactly one cherry"),
        ("poisoned", "wb.............r/........./..../. 2 place", "cherry is placed only when"),
        ("mint", "ww............../........./..../. 1 place", "2 mint and 0 liquorice placed: Mint places first"),
        ("mint", "ww............../........./..../. 2 place", "2 mint and 0 liquorice placed: Mint places first"),
        ("mint", "b.............../........./..../. 2 place", "0 mint and 1 liquorice placed: Mint places first"),
        # The cherry starts on top and only drops, so nothing ever rests on it.
        ("poisoned", "rw..bb........../w......../..../. 1 eat", "a candy rests on the cherry"),
        ("mint", "wb............../........./..../. 2 place", "so Mint is to place"),
        ("mint", "w.............../........./..../. 1 place", "so Liquorice is to place"),
        ("mint", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/b 1 place", "30 candies placed; the set-up ends at 30"),
        ("poisoned", "wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/. 2 place", "29 candies placed; the set-up ends at 29"),
    ],
)
def test_bad_spn_names_the_problem(variant: str, spn: str, problem: str):
    game = spheria.load_game("special-cake", variant=variant)
    with pytest.raises(ValueError, match=problem):
        game.state_from_spn(spn)


# -- move text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("0d1", "no candy on 0d1"),
        ("0a1+0d1", "no candy on 0d1"),
        ("0a1+0c1", "not a line"),  # a gap
        ("0a1+0b2", "not a line"),  # a same-level diagonal
        ("0a1+0b1+0b2", "not a line"),  # a bend
        ("0a1+1b1", "not a line"),  # 1b1 does not rest on 0a1
        ("0a1+0a2", "line rule"),  # w w under mixed
        ("0b1", "pinned"),
        ("1a1+1b2", "not a line"),  # a level-1 diagonal
        ("1b2+2a1", "line rule"),  # 2a1 rests on 1b2: a rising line, but w w
    ],
)
def test_illegal_move_text_is_rejected_and_changes_nothing(text: str, problem: str):
    assert_rejected(cake(STEPPED), text, problem, CakeMove.parse)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty move"),
        ("   ", "empty move"),
        ("+", "empty move"),
        ("0e1", "not a site name"),
        ("eat 0a1", "not a site name"),
        ("0a1+0a1", "names a site twice"),
        ("0a1 0a1", "names a site twice"),
    ],
)
def test_text_not_written_as_a_move_is_invalid_and_changes_nothing(text: str, problem: str):
    assert_rejected(cake(STEPPED), text, problem, CakeMove.parse, error=InvalidMoveError)


def test_move_text_forms():
    state = cake(STEPPED)
    move = state.parse_move("0a1+1a1")
    assert state.parse_move(" 0A1 + 1A1 ") == move
    assert state.parse_move("0a1,1a1") == move
    assert state.parse_move("0a1 1a1") == move
    assert str(CakeMove.parse("0a1+1a1")) == "0a1+1a1"


def test_a_move_that_is_not_a_cake_move_is_rejected():
    state = cake(STEPPED)
    before = state.to_spn()
    with pytest.raises(InvalidMoveError, match="'0a1' is not a Special Cake move"):
        state.apply("0a1")  # type: ignore[arg-type]
    assert state.to_spn() == before


@pytest.mark.parametrize("picture", [MINT_CAKE, STEPPED, TWO_CANDIES])
def test_every_legal_move_round_trips_as_text(picture: str):
    state = cake(picture)
    for move in state.legal_moves():
        assert state.parse_move(str(move)) == move
        assert CakeMove.parse(str(move)) == move


def test_legal_moves_of_the_other_seat_are_empty():
    state = cake(STEPPED)
    assert state.legal_moves(player=MINT_PLAYER) == state.legal_moves()
    assert state.legal_moves(player=LIQUORICE_PLAYER) == []


# -- undo, child ----------------------------------------------------------------------------


def test_undo_restores_exactly():
    state = cake(MINT_CAKE)
    start_moves = state.legal_moves()
    rng = random.Random(3)
    spns = [state.to_spn()]
    played = []
    while not state.is_terminal():
        move = rng.choice(state.legal_moves())
        state.apply(move)
        played.append(move)
        spns.append(state.to_spn())
    assert state.returns() != [0.0, 0.0]
    while played:
        assert state.undo() == played.pop()
        spns.pop()
        assert state.to_spn() == spns[-1]
        assert state.history == tuple(played)
    assert state.legal_moves() == start_moves
    at_start = state.to_spn()
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        state.undo()
    assert (state.to_spn(), state.history) == (at_start, ())


def test_child_leaves_the_parent_alone():
    state = cake(STEPPED)
    before = state.to_spn()
    move = state.parse_move("0a1")
    child = state.child(move)
    assert state.to_spn() == before
    assert state.history == ()
    assert child.history == (move,)
    assert child.to_spn() != before


def test_status_lines_say_who_eats_first_and_how_the_game_ended():
    poisoned = spheria.load_game("special-cake", variant="poisoned")
    full = poisoned.state_from_spn("wbwbbwbwwbwbbwbw/wbwbwbwbw/wbwb/r 1 eat")
    assert full.status_lines()[0] == "The cake is complete. The cherry is on top. Mint eats first."
    alone = poisoned.state_from_spn("r.............../........./..../. 2 eat")
    assert alone.status_lines() == ["Only the cherry is left: Liquorice must eat it. Mint wins."]
    empty = spheria.load_game("special-cake").state_from_spn("................/........./..../. 1 eat")
    assert empty.status_lines() == ["Liquorice ate the last candy. Mint wins."]
