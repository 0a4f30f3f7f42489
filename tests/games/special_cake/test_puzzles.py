"""Special Cake's puzzle maker on hand-worked diagrams: the only winning move, and the themes.

Diagrams are SPN (mint, mixed lines): level 0 rank by rank from a1 to d4, then level 1 ...
"""

from __future__ import annotations

import pytest

import spheria
from spheria.games.special_cake.puzzles import (
    DROP,
    LINE,
    LINE_ORDER,
    OPENS_LINE,
    QUIET,
    SETUP,
    SpecialCakePuzzles,
)
from spheria.games.special_cake.rules import CakeState


def position(spn: str) -> CakeState:
    state = spheria.load_game("special-cake").state_from_spn(spn)
    assert isinstance(state, CakeState)
    return state


def winners(maker: SpecialCakePuzzles, state: CakeState) -> list[str]:
    return [str(move) for move in maker.winning_moves(state, None) or []]


def test_a_drop_onto_a_checkerboard_is_the_only_win() -> None:
    # 0a1 w, 0b1 b, 0a2 b, 0b2 w and 1a1 w on them. Eating 0a1 (or 0b2: the same cake) drops 1a1 into
    # the hole: a 2x2 of alternating colours, whose rows and columns are lines and diagonals not. The
    # opponent eats one (I eat a line of two of the three: one left) or a line (two left: I eat one).
    # Eating 0b1 (or 0a2) leaves three whites and a black: the opponent eats the black and I face
    # three whites, no line: I eat one, two are left, I lose. Every line leaves the opponent a line.
    maker = SpecialCakePuzzles()
    state = position("wb..bw........../w......../..../. 1 eat")
    assert winners(maker, state) == ["0a1"]
    assert maker.themes(state, state.parse_move("0a1")) == (DROP,)
    assert [str(m) for m in maker.plausible(state)] == ["0a1", "0b1", "0a2"]


def test_the_one_mixed_line_that_leaves_one_candy() -> None:
    # w w b on 0a1..0c1: 0b1+0c1 leaves one candy (the opponent must eat it); 0a1+0b1 is one colour,
    # not a line; a single candy leaves two (the opponent eats one); all three eats the last.
    maker = SpecialCakePuzzles()
    state = position("wwb............./........./..../. 1 eat")
    assert winners(maker, state) == ["0b1+0c1"]
    assert maker.themes(state, state.parse_move("0b1+0c1")) == (LINE,)
    assert [str(m) for m in maker.plausible(state)] == ["0b1+0c1"]  # nothing else to try: no puzzle


def test_a_line_eaten_in_the_right_order() -> None:
    # As the checkerboard, with 0a3 b. The line 0a2+0a1 drops 1a1 into 0a2 (eaten first): 0a2 w then
    # stands under 0a3 b, a new line of two colours the opponent may eat (0a2+0a3 was b b before).
    # 0a1 first drops it into 0a1 instead: another cake.
    maker = SpecialCakePuzzles()
    state = position("wb..bw..b......./w......../..../. 1 eat")
    assert winners(maker, state) == ["0a2+0a1"]
    move = state.parse_move("0a2+0a1")
    assert maker.themes(state, move) == (LINE, LINE_ORDER, DROP, OPENS_LINE)
    other = state.child(state.parse_move("0a1+0a2"))
    assert other.to_spn() != state.child(move).to_spn()
    assert state.child(move).to_spn() == ".b..ww..b......./........./..../. 2 eat"


def test_a_quiet_move() -> None:
    # 0c1 w alone at the side: eating it drops nothing and opens no line.
    maker = SpecialCakePuzzles()
    state = position("wbb.bw..w......./w......../..../. 1 eat")
    assert maker.themes(state, state.parse_move("0c1")) == (QUIET,)
    assert maker.themes(state, state.parse_move("0a1")) == (DROP,)


def test_set_up_puzzles_from_the_table() -> None:
    maker = SpecialCakePuzzles()
    state = position("bbwwbbwwbbwbbwww/bbwbbwwww/..../. 2 place")
    assert maker.wanted(state)
    assert winners(maker, state) == ["2b1"]
    assert maker.themes(state, state.parse_move("2b1")) == (SETUP,)
    assert len(maker.plausible(state)) == len(state.legal_moves())


@pytest.mark.parametrize(
    ("options", "wanted"),
    [
        ({"variant": "poisoned"}, True),  # its set-up table ships too
        ({"variant": "poisoned", "line_rule": "same"}, False),
        ({"variant": "mint", "line_rule": "any"}, False),
    ],
)
def test_set_ups_only_where_the_table_answers(options: dict[str, str], wanted: bool) -> None:
    state = spheria.load_game("special-cake", **options).new_initial_state()
    assert SpecialCakePuzzles().wanted(state) is wanted


def test_big_cakes_are_left_out() -> None:
    state = position("wbbbbbwwwwwbwbww/bwwbbwbbb/wbww/b 1 eat")
    assert not SpecialCakePuzzles().wanted(state)
