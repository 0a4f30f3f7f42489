"""Spline's puzzle maker on hand-worked diagrams: the only winning move, and the themes.

Diagrams are SPN: level 0 rank by rank from a1 to d4 (``ww......`` is 0a1 and 0b1), then level 1 ...
"""

from __future__ import annotations

import spheria
from spheria.games.spline.puzzles import BLOCK, DOUBLE_THREAT, QUIET, THREAT, WIN_NOW, SplinePuzzles
from spheria.games.spline.rules import SplineState
from spheria.puzzles import examine


def position(spn: str) -> SplineState:
    state = spheria.load_game("spline").state_from_spn(spn)
    assert isinstance(state, SplineState)
    return state


def winners(maker: SplinePuzzles, state: SplineState) -> list[str]:
    return [str(move) for move in maker.winning_moves(state, None) or []]


def test_win_now_against_two_threats_is_the_only_win() -> None:
    # White: 0a1 0b1 0c1 (0d1 completes rank 1), 0a2 0c2 0d2, and 1a1. Black: 0b2, ranks 3 and 4 but
    # their d-file sites: two threat sites, 0d3 and 0d4. White completes rank 1 now, or Black
    # completes a rank next: any other move blocks at most one of them.
    maker = SplinePuzzles()
    state = position("www.wbwwbbb.bbb./w......../..../. 1")
    assert winners(maker, state) == ["0d1"]
    assert maker.themes(state, state.parse_move("0d1")) == (WIN_NOW,)
    assert [str(m) for m in maker.plausible(state)] == ["0d1"]
    assert examine(maker, state, "") is None  # nothing else to try: no puzzle


def test_threat_themes() -> None:
    # White 0a1 0b1 0d3 0d4, Black 0a3 0b3 0b4 0c4, White to move. 0d1 makes two threats (0c1 on
    # rank 1, 0d2 on the d-file): Black blocks one. 0b2 makes one: the diagonal 0a1 0b2 0c3 0d4 then
    # misses only 0c3 (the b-file and rank 2 give nothing). 0c2's rank, file and diagonal are empty
    # or Black's: a quiet move.
    maker = SplinePuzzles()
    state = position("ww......bb.w.bbw/........./..../. 1")
    assert maker.themes(state, state.parse_move("0d1")) == (DOUBLE_THREAT,)
    assert maker.themes(state, state.parse_move("0b2")) == (THREAT,)
    assert maker.themes(state, state.parse_move("0c2")) == (QUIET,)


def test_block() -> None:
    # Black threatens 0d1 (0a1 0b1 0c1); White (0a2 0b2 0b4) must fill it, and then threatens nothing.
    maker = SplinePuzzles()
    state = position("bbb.ww.......w../........./..../. 1")
    assert maker.themes(state, state.parse_move("0d1")) == (BLOCK,)
    plausible = [str(m) for m in maker.plausible(state)]
    assert plausible == ["0d1"]  # every other move lets Black complete rank 1


def test_early_positions_are_left_out() -> None:
    assert not SplinePuzzles().wanted(position("ww..bbb.ww....../........./..../. 2"))  # 7 balls
    assert SplinePuzzles().wanted(position("ww..bbb.ww.....b/........./..../. 1"))  # 8, set up by hand
