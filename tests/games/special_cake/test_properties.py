"""Property tests for Special Cake: random playouts and random cakes, checked against the rules.

The reference below re-implements eating from the rules text with coordinates and ball
identities (a ball is followed by who it is, not by where it is), so the engine's bitboards,
tables and drop chains are compared with an independent reading rather than with themselves.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

import spheria
from spheria import IllegalMoveError
from spheria.engine.board import ABOVE, NUM_SITES, SITE_NAMES, BaseBoard, Board, iter_sites, unstable_sites
from spheria.games.special_cake.rules import EAT, PLACE, CakeState, SpecialCake
from tests.conftest import child_of

# -- an independent reference ----------------------------------------------------------------

Coord = tuple[int, int, int]  # (level, row, col)
Ball = tuple[str, int]  # (colour char, identity)
Position = dict[Coord, Ball]

# Level by level, row by row, column by column: the site order of the engine (checked below).
COORDS: list[Coord] = [(lv, r, c) for lv in range(4) for r in range(4 - lv) for c in range(4 - lv)]
INDEX = {coord: i for i, coord in enumerate(COORDS)}
# The six touching axes of the rules: along a level (two), and one level up to (l+1, r-a, c-b).
AXES_BY_HAND: list[Coord] = [(0, 0, 1), (0, 1, 0)] + [(1, -a, -b) for a in (0, 1) for b in (0, 1)]


def below(coord: Coord) -> list[Coord]:
    lv, r, c = coord
    return [] if lv == 0 else [(lv - 1, r + a, c + b) for a in (0, 1) for b in (0, 1)]


def resting_on(pos: Position, coord: Coord) -> list[Coord]:
    """The balls of ``pos`` that rest on ``coord``."""
    lv, r, c = coord
    return [t for t in ((lv + 1, r - a, c - b) for a in (0, 1) for b in (0, 1)) if t in pos]


def stable(pos: Position) -> bool:
    return all(all(s in pos for s in below(t)) for t in pos)


def eat(pos: Position, coord: Coord) -> Position:
    """Take the (unpinned) ball on ``coord``; whatever rested on it drops into the hole, and so on up."""
    new = dict(pos)
    del new[coord]
    hole = coord
    while True:
        above = resting_on(new, hole)
        assert len(above) <= 1, "a drop would have to choose between two balls"
        if not above:
            return new
        new[hole] = new.pop(above[0])
        hole = above[0]


def segments() -> Iterator[tuple[Coord, ...]]:
    """Every straight run of two or more sites, once per run."""
    for start in COORDS:
        for dl, dr, dc in AXES_BY_HAND:
            run = [start]
            while True:
                lv, r, c = run[-1]
                nxt = (lv + dl, r + dr, c + dc)
                if nxt not in INDEX:
                    break
                run.append(nxt)
                yield tuple(run)


SEGMENTS_BY_HAND = list(segments())


def colours_allowed(colours: set[str], variant: str, line_rule: str) -> bool:
    if variant == "poisoned" and "r" in colours:
        return False
    if line_rule == "mixed":
        return len(colours) >= 2
    if line_rule == "same":
        return len(colours) == 1
    return True


def eat_in_order(pos: Position, balls: tuple[int, ...]) -> Position | None:
    """Eat the balls with these identities one by one; ``None`` if one is pinned when its turn comes."""
    for ball in balls:
        (coord,) = [c for c, (_, ident) in pos.items() if ident == ball]
        if len(resting_on(pos, coord)) >= 2:
            return None
        pos = eat(pos, coord)
    return pos


def reference_outcomes(pos: Position, variant: str, line_rule: str) -> set[str]:
    """Every position (as a board SPN) one eating move can reach, by the rules text."""
    colours = {colour for colour, _ in pos.values()}
    if not pos or (variant == "poisoned" and colours == {"r"}):
        return set()
    results = set()
    for coord, (colour, _) in pos.items():
        if len(resting_on(pos, coord)) < 2 and not (variant == "poisoned" and colour == "r"):
            results.add(spn_of(eat(pos, coord)))
    for seg in SEGMENTS_BY_HAND:
        if all(c in pos for c in seg) and colours_allowed({pos[c][0] for c in seg}, variant, line_rule):
            for order in itertools.permutations(pos[c][1] for c in seg):
                after = eat_in_order(pos, order)
                if after is not None:
                    results.add(spn_of(after))
    return results


def position_of(board: BaseBoard) -> Position:
    """The balls of ``board``, each named by the site it starts on."""
    spn = board.spn().replace("/", "")
    return {COORDS[i]: (ch, i) for i, ch in enumerate(spn) if ch != "."}


def spn_of(pos: Position) -> str:
    chars = "".join(pos[c][0] if c in pos else "." for c in COORDS)
    return "/".join((chars[0:16], chars[16:25], chars[25:29], chars[29:]))


def test_reference_site_order_is_the_engine_site_order():
    assert [f"{lv}{'abcd'[c]}{r + 1}" for lv, r, c in COORDS] == list(SITE_NAMES)
    assert len(SEGMENTS_BY_HAND) == 150


# -- strategies ------------------------------------------------------------------------------

VARIANTS = ("mint", "poisoned", "sugar")
LINE_RULES = (None, "mixed", "any", "same")


@st.composite
def cakes(draw: st.DrawFn, variant: str) -> Board:
    """A stable cake: random colours on the 30 sites, some holes, unsupported balls taken away.

    Mint and poisoned cakes are white and black (poisoned: one ball turned into the cherry);
    sugar cakes use all three colours. Counts may exceed the variant's sets: the rules of
    eating do not depend on them.
    """
    palette = "wbr" if variant == "sugar" else "wb"
    colours = draw(st.lists(st.sampled_from(palette), min_size=NUM_SITES, max_size=NUM_SITES))
    holes = draw(st.sets(st.integers(0, NUM_SITES - 1), max_size=24))
    pos: Position = {}
    for i, coord in enumerate(COORDS):  # lower levels first
        if i not in holes and all(s in pos for s in below(coord)):
            pos[coord] = (colours[i], i)
    if variant == "poisoned" and pos:
        cherry = draw(st.sampled_from(sorted(pos)))
        pos[cherry] = ("r", pos[cherry][1])
    return Board.from_spn(spn_of(pos))


def eat_state(variant: str, line_rule: str | None, board: Board, player: int = 0) -> CakeState:
    game = spheria.load_game("special-cake", variant=variant, line_rule=line_rule)
    assert isinstance(game, SpecialCake)
    return CakeState(game, board, player, EAT, None)


# -- properties ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS), line_rule=st.sampled_from(LINE_RULES))
def test_legal_moves_are_the_reference_outcomes_each_once(data: st.DataObject, variant: str, line_rule: str | None):
    board = data.draw(cakes(variant))
    state = eat_state(variant, line_rule, board)
    children = [child_of(state, move).board.spn() for move in state.legal_moves()]
    assert len(children) == len(set(children)), "two legal moves lead to the same position"
    expected = reference_outcomes(position_of(board), variant, state.game.line_rule)
    assert set(children) == expected


@settings(max_examples=25, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS), line_rule=st.sampled_from(LINE_RULES))
def test_every_order_of_every_line_is_accepted_exactly_when_legal(
    data: st.DataObject, variant: str, line_rule: str | None
):
    board = data.draw(cakes(variant))
    state = eat_state(variant, line_rule, board)
    before = state.to_spn()
    pos = position_of(board)
    legal = set(state.legal_moves())
    for seg in SEGMENTS_BY_HAND:
        if not all(c in pos for c in seg):
            continue
        allowed = colours_allowed({pos[c][0] for c in seg}, variant, state.game.line_rule)
        for order in itertools.permutations(seg):
            text = "+".join(SITE_NAMES[INDEX[c]] for c in order)
            after = eat_in_order(pos, tuple(pos[c][1] for c in order)) if allowed else None
            if after is None:
                try:
                    state.parse_move(text)
                except IllegalMoveError:
                    pass
                else:
                    raise AssertionError(f"{text} was accepted in {before}")
            else:
                move = state.parse_move(text)
                assert move in legal
                assert child_of(state, move).board.spn() == spn_of(after), text
    assert state.to_spn() == before


@settings(max_examples=20, deadline=None)
@given(
    data=st.data(),
    variant=st.sampled_from(VARIANTS),
    line_rule=st.sampled_from(LINE_RULES),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_playouts(data: st.DataObject, variant: str, line_rule: str | None, seed: int):
    game = spheria.load_game("special-cake", variant=variant, line_rule=line_rule)
    assert isinstance(game, SpecialCake)
    state = game.new_initial_state(seed=seed)
    limits = {"mint": (15, 15, 0), "poisoned": (15, 14, 1), "sugar": (16, 16, 16)}[variant]
    plies = 0
    last_mover = -1
    first_eat = True
    while not state.is_terminal():
        if state.phase == EAT and first_eat:
            assert state.current_player() == 0, "Mint (player 1) eats first, after any set-up"
            assert state.board.count() == 30, "eating starts on a complete cake"
            first_eat = False
        board = state.board
        counts = [board.count(colour) for colour in range(3)]
        assert all(n <= limit for n, limit in zip(counts, limits, strict=True))
        assert unstable_sites(board.occupied) == 0
        assert stable(position_of(board))
        assert state.returns() == [0.0, 0.0]
        before = state.to_spn()
        moves = state.legal_moves()
        assert moves, "a game that is not over has a move"
        children = {}
        for move in moves:
            assert state.parse_move(str(move)) == move
            child = child_of(state, move)
            children[child.to_spn()] = move
            new_counts = [child.board.count(colour) for colour in range(3)]
            if state.phase == PLACE:
                # One candy of the placer's colour, plus the cherry when the poisoned set-up ends.
                (site,) = move.sites
                assert child.board.color_at(site) == state.player
                expected_counts = list(counts)
                expected_counts[state.player] += 1
                if variant == "poisoned" and child.phase == EAT:
                    expected_counts[2] += 1
                assert new_counts == expected_counts
            else:
                assert all(new <= old for new, old in zip(new_counts, counts, strict=True))
                assert sum(new_counts) < sum(counts)
        assert len(children) == len(moves), "two legal moves lead to the same position"
        assert state.to_spn() == before  # child() left the state alone
        move = moves[data.draw(st.integers(0, len(moves) - 1))]
        expected = child_of(state, move).to_spn()
        state.apply(move)
        assert state.to_spn() == expected
        assert state.history[-1] == move
        assert state.undo() == move
        assert state.to_spn() == before
        assert state.legal_moves() == moves
        last_mover = state.current_player()
        state.apply(move)
        plies += 1
    # Mint and sugar: whoever ate the last candy lost. Poisoned: whoever left the cherry alone
    # won, since the other player must eat it.
    loser = 1 - last_mover if variant == "poisoned" else last_mover
    assert state.returns()[loser] == -1.0
    assert state.returns()[1 - loser] == 1.0
    assert state.legal_moves() == []
    assert len(state.history) == plies
    assert plies >= game.placements + 1
    # Undo the whole game back to the start, then replay it from its text.
    replay = game.new_initial_state(seed=seed)
    for move in state.history:
        replay.apply(replay.parse_move(str(move)))
    assert replay.to_spn() == state.to_spn()
    while state.history:
        state.undo()
    assert state.to_spn() == game.new_initial_state(seed=seed).to_spn()


@settings(max_examples=40, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS))
def test_spn_round_trip_of_random_cakes(data: st.DataObject, variant: str):
    board = data.draw(cakes(variant))
    player = data.draw(st.sampled_from((1, 2)))
    spn = f"{board.spn()} {player} eat"
    game = spheria.load_game("special-cake", variant=variant)
    counts = (board.count(0), board.count(1), board.count(2))
    limits = {"mint": (15, 15, 0), "poisoned": (15, 14, 1), "sugar": (16, 16, 16)}[variant]
    needs_cherry = variant == "poisoned" and counts[2] != 1
    # The cherry starts on top and only drops: a poisoned cake with a candy on it is impossible.
    buried_cherry = variant == "poisoned" and any(ABOVE[s] & board.occupied for s in iter_sites(board.masks[2]))
    if all(n <= limit for n, limit in zip(counts, limits, strict=True)) and not needs_cherry and not buried_cherry:
        assert game.state_from_spn(spn).to_spn() == spn
    else:
        try:
            game.state_from_spn(spn)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{spn} breaks the {variant} counts but was accepted")
