"""Spline's own alpha-beta (``alphabeta:engine=game``): exact where the generic search is exact,
deeper through forced replies, and keeping its table between the moves of a game.

Every search here is bounded by depth, never by time, so nothing depends on the machine's speed.
"""

from __future__ import annotations

import random
import textwrap

import pytest

import spheria
from spheria.agents.alphabeta import PROVEN, WIN, AlphaBetaAgent
from spheria.agents.registry import make_agent
from spheria.engine.board import SYMMETRIES, parse_diagram, site_index
from spheria.games.spline.rules import MOVES, SplineMove, SplineState, lines_of
from spheria.games.spline.search import SplineSearch, canonical_key, threat_sites
from tests.agents.test_agents import DO_NOT_OPEN  # White to move: every move but 0d2 is safe

GAME = spheria.load_game("spline")


def spline(picture: str, to_move: int) -> SplineState:
    board, _ = parse_diagram(textwrap.dedent(picture))
    state = GAME.state_from_spn(f"{board.spn()} {to_move}")
    assert isinstance(state, SplineState) and not state.is_terminal()
    return state


def no_clock() -> float:
    return 0.0


def deepen(search: SplineSearch, state: SplineState, depth: int) -> tuple[int, str, bool]:
    """Iterate to ``depth`` like the agent does (each depth seeds the next one's ordering)."""
    result = (0, "", False)
    for d in range(1, depth + 1):
        score, move, exact = search.best_move(state, d, None, no_clock)
        result = (score, str(move), exact)
        if exact or abs(score) > PROVEN:
            break
    return result


def random_positions(count: int, plies: range, seed: int) -> list[SplineState]:
    rng = random.Random(seed)
    out: list[SplineState] = []
    while len(out) < count:
        state = GAME.new_initial_state()
        for _ in range(rng.choice(plies)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            assert isinstance(state, SplineState)
            out.append(state)
    return out


# White to move wins in 5 plies (1c1 or 1b2), but only through Black's forced blocks: a depth-3
# search that extends forced replies proves it, the generic depth-3 search does not.
WIN_THROUGH_BLOCKS = """
      level 0       level 1     level 2   level 3
    4 w w b b
    3 w b b w     3 . . .
    2 b w b b     2 . . w     2 . .
    1 b . w w     1 . . .     1 . .     1 .
      a b c d       a b c       a b       a
    """


def test_a_win_through_forced_blocks_is_proven_at_depth_three() -> None:
    state = spline(WIN_THROUGH_BLOCKS, 1)
    score, move, _ = SplineSearch().best_move(state, 3, None, no_clock)
    assert score == WIN - 5 and str(move) in {"1c1", "1b2"}
    assert AlphaBetaAgent(depth=3).value(state, 3) < PROVEN  # the generic search needs depth 5
    assert AlphaBetaAgent(depth=5).value(state, 5) == WIN - 5


@pytest.mark.parametrize("seed", [1, 2])
def test_proven_results_agree_with_the_generic_search_and_the_move_keeps_them(seed: int) -> None:
    # Late positions, searched to the end by both: the same winner. (Not always at the same
    # distance: a search that stops at its first proven win need not have found the quickest.)
    for state in random_positions(12, range(14, 20), seed):
        score, move, exact = deepen(SplineSearch(), state, 30)
        assert exact or abs(score) > PROVEN
        generic = AlphaBetaAgent(depth=30).value(state, 30)
        assert abs(generic) > PROVEN and (score > 0) == (generic > 0), state.to_spn()
        mover = state.current_player()
        state.apply(state.parse_move(move))
        if score > 0:  # the chosen move keeps the win
            assert state.winner == mover or AlphaBetaAgent(depth=30).value(state, 30) < -PROVEN


def test_threat_sites_are_the_empty_sites_completing_a_line_placeable_or_not() -> None:
    state = spline(DO_NOT_OPEN, 1)
    white, black = state.masks()
    occupied = white | black
    for mine in (white, black):
        empty = [s for s in range(30) if not occupied >> s & 1]
        assert threat_sites(mine, occupied) == sum(1 << s for s in empty if lines_of(mine | 1 << s))
    assert threat_sites(black, occupied) == 1 << site_index(1, 0, 2)  # 1c1, not yet placeable
    assert not state.placeable_mask() >> site_index(1, 0, 2) & 1


def test_a_move_that_opens_the_opponents_threat_site_is_avoided() -> None:
    state = spline(DO_NOT_OPEN, 1)
    for depth in (1, 2, 3):
        score, move, _ = SplineSearch().best_move(state, depth, None, no_clock)
        assert str(move) != "0d2" and score > -PROVEN


def test_the_agent_keeps_its_table_between_moves_and_forgets_it_for_a_new_game() -> None:
    agent = AlphaBetaAgent(depth=4, engine="game")
    state = GAME.new_initial_state()
    state.apply(agent.choose(state, 0))
    state.apply(state.legal_moves()[0])
    search = agent._game_search
    assert isinstance(search, SplineSearch) and search.table
    state.apply(agent.choose(state, 0))
    assert agent._game_search is search
    agent.reset()
    assert agent._game_search is None


def test_the_engine_option_is_checked_and_named_in_the_spec() -> None:
    assert make_agent("alphabeta:depth=3,engine=game").name == "alphabeta:depth=3,engine=game"
    with pytest.raises(ValueError, match="engine"):
        make_agent("alphabeta:engine=fast")


def test_a_game_without_its_own_search_falls_back_to_the_generic_one() -> None:
    cake = spheria.load_game("special-cake", variant="mint").new_initial_state(seed=1)
    agent = AlphaBetaAgent(depth=1, engine="game")
    move = agent.choose(cake, cake.current_player())
    assert move in cake.legal_moves() and agent._game_search is None


def winning_share(state: SplineState, move: str) -> float:
    """After ``move``: the share of the opponent's plausible replies that keep a win (brute force)."""
    state = state.clone()
    mover = state.current_player()
    state.apply(state.parse_move(move))
    kept = plausible = 0
    for reply in state.legal_moves():
        state.apply(reply)
        if state.is_terminal():  # the opponent wins at once: the share is 1
            state.undo()
            return 1.0
        if not any(state.child(m).winners() == [mover] for m in state.legal_moves()):  # not a blunder
            plausible += 1
            kept += AlphaBetaAgent(depth=30).value(state, 30) < -PROVEN
        state.undo()
    return kept / plausible if plausible else 0.0


def test_a_lost_mover_leaves_the_opponent_the_fewest_winning_replies() -> None:
    checked = 0
    for state in random_positions(40, range(14, 18), 4):
        search = SplineSearch()
        score, _, _ = deepen(search, state, 30)
        if score >= -PROVEN:
            continue
        move = search.swindle(state, None, no_clock)
        shares = {str(m): winning_share(state, str(m)) for m in state.legal_moves()}
        if move is None:
            assert min(shares.values()) == 1.0
            continue
        assert shares[str(move)] == min(shares.values()), state.to_spn()
        checked += min(shares.values()) < max(shares.values())  # a choice that mattered
    assert checked >= 3


def test_an_opponent_model_weights_the_replies() -> None:
    # A model that always answers on the lowest site it may take: the swindle plays a move where
    # that answer throws the win away, whenever there is one.
    def lowest_reply(child: SplineState) -> dict[int, float]:
        return {min(m.site for m in child.legal_moves()): 1.0}

    checked = 0
    for state in random_positions(40, range(14, 18), 5):
        search = SplineSearch()
        score, _, _ = deepen(search, state, 30)
        if score >= -PROVEN:
            continue
        mover = state.current_player()

        def answer_loses(move: SplineMove, state: SplineState = state, mover: int = mover) -> bool:
            child = state.child(move)
            if child.is_terminal() or any(child.child(m).is_terminal() for m in child.legal_moves()):
                return False  # the opponent wins at once: no model is asked there
            reply = min(m.site for m in child.legal_moves())
            after = child.child(MOVES[reply])
            return after.winners() == [mover] or (
                not after.is_terminal() and AlphaBetaAgent(depth=30).value(after, 30) > PROVEN
            )

        good = [m for m in state.legal_moves() if answer_loses(m)]
        move = search.swindle(state, None, no_clock, lowest_reply)
        if good:
            assert move in good, state.to_spn()
            checked += 1
    assert checked >= 2


def test_the_swindle_option_is_checked_and_named_in_the_spec() -> None:
    assert make_agent("alphabeta:depth=3,engine=game,swindle=mcts").name == "alphabeta:depth=3,engine=game,swindle=mcts"
    with pytest.raises(ValueError, match="swindle"):
        make_agent("alphabeta:swindle=luck")


# -- the prover: searched to the end, exact ---------------------------------------------------

# Black to move has lost: White threatens both 0d2 and 0d3 (rows 2 and 3), Black has no line
# of its own to finish, and whichever site Black blocks, White fills the other.
TWO_THREATS = """
      level 0       level 1     level 2   level 3
    4 . . b b
    3 w w w .     3 . . .
    2 w w w .     2 . . .     2 . .
    1 b b . .     1 b . .     1 . .     1 .
      a b c d       a b c       a b       a
    """


def generic_winning_moves(state: SplineState) -> set[str]:
    """The moves after which the opponent has lost, by the generic search to the end."""
    winning = set()
    for move in state.legal_moves():
        child = state.child(move)
        if child.is_terminal() or AlphaBetaAgent(depth=30).value(child, 30) < -PROVEN:
            winning.add(str(move))
    return winning


def test_a_mover_facing_two_threat_sites_has_no_winning_move() -> None:
    state = spline(TWO_THREATS, 2)
    search = SplineSearch()
    assert search.winning_move(state) is None and search.winning_moves(state) == []


def test_the_win_through_forced_blocks_is_proven_and_every_winning_move_named() -> None:
    state = spline(WIN_THROUGH_BLOCKS, 1)
    moves = {str(m) for m in SplineSearch().winning_moves(state)}
    assert {"1c1", "1b2"} <= moves and moves == generic_winning_moves(state)
    assert str(SplineSearch().winning_move(state)) in moves


@pytest.mark.parametrize("seed", [3, 4])
def test_proofs_agree_with_the_generic_search_to_the_end(seed: int) -> None:
    for state in random_positions(10, range(13, 19), seed):
        search = SplineSearch()
        expected = generic_winning_moves(state)
        assert {str(m) for m in search.winning_moves(state)} == expected, state.to_spn()
        move = search.winning_move(state)
        assert (move is None) == (not expected) and (move is None or str(move) in expected)


def mirrored(state: SplineState, symmetry: tuple[int, ...]) -> SplineState:
    """``state`` moved by one of the pyramid's symmetries (a site permutation)."""
    white, black = state.masks()
    image = GAME.new_initial_state()
    assert isinstance(image, SplineState)
    board = "".join("w" if white >> s & 1 else "b" if black >> s & 1 else "." for s in range(30))
    board = "".join(board[symmetry.index(s)] for s in range(30))
    levels = [board[0:16], board[16:25], board[25:29], board[29]]
    image = GAME.state_from_spn(f"{'/'.join(levels)} {state.current_player() + 1}")
    assert isinstance(image, SplineState)
    return image


def test_alike_positions_share_a_key_and_a_proof() -> None:
    for state in random_positions(6, range(10, 16), 6):
        white, black = state.masks()
        search = SplineSearch()
        won = search.winning_move(state) is not None
        for symmetry in SYMMETRIES:
            image = mirrored(state, symmetry)
            mine, theirs = image.masks()
            assert canonical_key(mine, theirs) == canonical_key(white, black)
            assert (SplineSearch().winning_move(image) is not None) == won


def test_the_timed_agent_plays_a_proven_win_and_swindles_a_proven_loss() -> None:
    agent = AlphaBetaAgent(time=5, engine="game", clock="cpu")
    won = spline(WIN_THROUGH_BLOCKS, 1)
    assert str(agent.choose(won, 0)) in generic_winning_moves(won)
    lost = spline(TWO_THREATS, 2)
    assert str(AlphaBetaAgent(time=5, engine="game", clock="cpu").choose(lost, 1)) in {"0d2", "0d3"}
