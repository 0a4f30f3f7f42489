"""The library API refuses bad input cleanly, in every game.

Random junk goes into every public call of the game API — move text, move objects with sites
off the pyramid or named twice, seats that do not exist or are not on turn, values of the wrong
type, broken position notation, bad options. Each call either works or raises ``ValueError``
or ``TypeError`` with a message (never ``IndexError``, ``AssertionError``, ``AttributeError``,
``KeyError``) — a refused move always a ``MoveError`` — and a refused call leaves the state as
it was: same SPN, same history, same legal moves.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spheria
from spheria.engine.board import SITE_NAMES
from spheria.games.spagyric.rules import Choice, Place, Reveal
from spheria.games.special_cake.rules import CakeMove
from spheria.games.spinca.rules import SpincaMove
from spheria.games.spline.rules import SplineMove
from spheria.kernel.game import SIMULTANEOUS, IllegalMoveError, InvalidMoveError, MoveError, State
from tests.conftest import EVERY_GAME

ALLOWED = (ValueError, TypeError)
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Values of every kind a careless caller might pass.
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-40, 70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(-3, 33), max_size=4),
    st.tuples(st.integers(-3, 33), st.integers(-3, 33)),
    st.builds(object),
)
#: Seats: mostly numbers near the real ones, sometimes junk.
seats = st.one_of(st.none(), st.integers(-2, 6), junk)
site_numbers = st.one_of(st.integers(-3, 33), junk)
#: Move text: site names and near-names joined by the separators of every game's syntax.
pieces = st.one_of(
    st.sampled_from(SITE_NAMES), st.sampled_from(["", "4a1", "0e1", "0a5", "1a12a2", "w", "b", "r", "x"])
)
move_texts = st.one_of(
    st.lists(pieces, max_size=4).flatmap(
        lambda parts: st.sampled_from([" ", "+", "-", ",", ":", "--", " - "]).map(lambda sep: sep.join(parts))
    ),
    st.text(alphabet="0123abcdwbrx+-:, \t\n", max_size=14),
    st.text(max_size=10),
)
#: Move objects of every game, well-formed or not (building one may itself refuse).
move_objects = st.one_of(
    st.builds(
        lambda sites: lambda: CakeMove(sites),
        st.one_of(st.tuples(site_numbers), st.lists(site_numbers, max_size=4).map(tuple), junk),
    ),
    st.builds(
        lambda a, b, c: lambda: SpincaMove(a, b, c),
        site_numbers,
        st.one_of(st.none(), site_numbers),
        st.one_of(st.none(), site_numbers),
    ),
    st.builds(lambda site: lambda: SplineMove(site), site_numbers),
    st.builds(lambda site: lambda: Place(site), site_numbers),
    st.builds(
        lambda a, b: lambda: Reveal(a, b), st.one_of(st.integers(-1, 3), junk), st.one_of(st.integers(-1, 3), junk)
    ),
    st.builds(lambda color: lambda: Choice(color), st.one_of(st.integers(-1, 3), junk)),
    st.builds(lambda value: lambda: value, junk),
)


def reached(name: str, options: dict[str, Any], seed: int, plies: int) -> State[Any]:
    """A position ``plies`` random moves into a game (fewer if it ends first)."""
    rng = random.Random(seed)
    state = spheria.load_game(name, **options).new_initial_state(seed=seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == SIMULTANEOUS:
            state.apply_joint([rng.choice(state.legal_moves(seat)) for seat in range(state.game.num_players)])
        else:
            state.apply(rng.choice(state.legal_moves()))
    return state


def snapshot(state: State[Any]) -> tuple[str, list[str], list[str]]:
    return state.to_spn(), state.history_notation(), [str(m) for m in state.legal_moves()]


def refused_cleanly(call: Callable[[], object]) -> Exception | None:
    """Run ``call``; the exception it raised (one of the allowed kinds, with a message), or ``None``."""
    try:
        call()
    except ALLOWED as error:
        assert str(error).strip(), f"{type(error).__name__} without a message"
        return error
    return None


def move_refused_cleanly(call: Callable[[], object]) -> MoveError | None:
    """Run a call that plays or reads a move; the :class:`MoveError` it raised (with a message), or ``None``."""
    error = refused_cleanly(call)
    assert error is None or isinstance(error, MoveError), f"{type(error).__name__} is not a MoveError: {error}"
    return error


@st.composite
def any_position(draw: st.DrawFn) -> State[Any]:
    name, options = draw(st.sampled_from(EVERY_GAME))
    return reached(name, options, draw(st.integers(0, 2**16)), draw(st.integers(0, 40)))


@FUZZ
@given(any_position(), seats, st.data())
def test_parse_move_refuses_junk_text_and_seats_without_change(
    state: State[Any], seat: Any, data: st.DataObject
) -> None:
    legal = [str(m) for m in state.legal_moves()] or ["0a1"]
    text = data.draw(st.one_of(move_texts, st.sampled_from(legal)), label="text")
    before = snapshot(state)
    error = move_refused_cleanly(lambda: state.parse_move(text, seat))
    if error is None:  # it parsed: then the move is legal for that seat here
        move = state.parse_move(text, seat)
        assert str(move) in {str(m) for m in state.legal_moves(seat)} or state.current_player() == SIMULTANEOUS
    assert snapshot(state) == before


@FUZZ
@given(any_position(), move_objects)
def test_apply_and_child_refuse_bad_move_objects_without_change(state: State[Any], build: Callable[[], Any]) -> None:
    before = snapshot(state)
    moves: list[Any] = []
    if refused_cleanly(lambda: moves.append(build())) is not None:
        return  # the move object itself could not be built, with a clear error
    (move,) = moves
    if move_refused_cleanly(lambda: state.child(move)) is None:
        assert snapshot(state) == before  # child never touches its parent
    assert snapshot(state) == before
    written = move_refused_cleanly(lambda: state.notation(move))  # never an IndexError off the pyramid
    assert written is None or (isinstance(written, InvalidMoveError) and repr(move) in str(written))
    if move_refused_cleanly(lambda: state.apply(move)) is None:
        assert len(state.history) == len(before[1]) + 1
        state.undo()
    assert snapshot(state) == before


@FUZZ
@given(any_position(), st.lists(move_objects, max_size=3), seats, move_texts)
def test_the_other_calls_refuse_junk_without_change(
    state: State[Any], builds: list[Callable[[], Any]], seat: Any, text: str
) -> None:
    before = snapshot(state)
    joint: list[Any] = []
    for build in builds:
        refused_cleanly(lambda build=build: joint.append(build()))  # type: ignore[misc]
    calls: list[Callable[[], object]] = [
        lambda: state.legal_moves(seat),
        lambda: state.observation(seat),
        lambda: state.view(seat),
        lambda: state.status_lines(seat),
        lambda: state.move_hint(seat),
        lambda: state.placing_color(seat),
    ]
    for call in calls:
        refused_cleanly(call)
        assert snapshot(state) == before
    if move_refused_cleanly(lambda: state.apply_notation(text)) is None:
        state.undo()
    assert snapshot(state) == before
    if move_refused_cleanly(lambda: state.apply_joint(joint)) is None:
        state.undo()
    assert snapshot(state) == before


@FUZZ
@given(any_position(), st.integers(1, 3), st.booleans())
def test_undo_past_the_start_is_refused_without_change(state: State[Any], extra: int, from_spn: bool) -> None:
    if from_spn:  # a position read from notation has no history to take back either
        state = state.game.state_from_spn(state.to_spn())
    while state.history:
        state.undo()
    at_start = snapshot(state)
    for _ in range(extra):
        error = refused_cleanly(state.undo)
        assert isinstance(error, IllegalMoveError) and "no move to take back" in str(error)
        assert snapshot(state) == at_start


@FUZZ
@given(any_position(), st.data())
def test_state_from_spn_refuses_broken_notation(state: State[Any], data: st.DataObject) -> None:
    spn = state.to_spn()
    fields = spn.split()
    broken = data.draw(
        st.one_of(
            junk,
            st.text(max_size=40),
            st.integers(0, len(fields) - 1).flatmap(
                lambda i: st.text(alphabet="wbr.12/-,0abcd", max_size=12).map(
                    lambda field: " ".join([*fields[:i], field, *fields[i + 1 :]])
                )
            ),
            st.integers(0, len(spn)).map(lambda cut: spn[:cut]),
        )
    )
    error = refused_cleanly(lambda: state.game.state_from_spn(broken))
    if error is None:
        assert state.game.state_from_spn(broken).to_spn().split()[0] == broken.split()[0]


@FUZZ
@given(
    st.sampled_from([*spheria.game_names(), "chess", ""]),
    st.dictionaries(
        st.sampled_from(["variant", "line_rule", "players", "supply", "memory", "colour"]), junk, max_size=3
    ),
)
def test_load_game_refuses_bad_options(name: str, options: dict[str, Any]) -> None:
    if refused_cleanly(lambda: spheria.load_game(name, **options)) is None:
        game = spheria.load_game(name, **options)  # every value in force is of its declared type
        for spec in game.option_specs:
            value = game.options[spec.name]
            assert isinstance(value, spec.kind) and (not spec.choices or value in spec.choices)


# -- the cases found by hand, each named --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "options", "call", "problem"),
    [
        ("special-cake", {}, lambda s: s.parse_move("0a1", 1), "Mint's turn, not Liquorice's"),
        ("special-cake", {}, lambda s: s.parse_move("0a1", 5), "there is no seat 5"),
        ("special-cake", {"variant": "sugar"}, lambda s: s.apply(CakeMove((0, 0))), "names a site twice"),
        ("special-cake", {}, lambda s: s.apply(CakeMove((30,))), "site 30 is not 0..29"),
        ("special-cake", {}, lambda s: s.apply(CakeMove(())), "non-empty tuple"),
        ("spinca", {}, lambda s: s.apply(SpincaMove(31)), "site 31 is not 0..29"),
        ("spinca", {}, lambda s: s.apply(SpincaMove(0, -1, 4)), "site -1 is not 0..29"),
        ("spinca", {}, lambda s: s.parse_move("0a1", 5), "there is no seat 5"),
        ("spinca", {}, lambda s: s.parse_move("1b1-1a12a2"), "'1a12a2' is not a site name"),
        ("spinca", {}, lambda s: s.parse_move(None), "a move is written as text"),
        ("spline", {}, lambda s: s.parse_move("0a1", 5), "there is no seat 5"),
        ("spline", {}, lambda s: s.legal_moves("0"), "there is no seat '0'"),
        ("spagyric", {}, lambda s: s.apply(Place(99)), "no ball to place"),
        ("spagyric", {}, lambda s: s.apply_joint([Choice(7), Choice(0)]), "7 is not a colour"),
        ("spagyric", {}, lambda s: s.move_hint(2), "there is no seat 2"),
        ("spagyric", {}, lambda s: s.apply_joint(None), "exactly two choices"),
    ],
)
def test_known_bad_calls_are_refused_by_name(
    name: str, options: dict[str, Any], call: Callable[[State[Any]], object], problem: str
) -> None:
    state = spheria.load_game(name, **options).new_initial_state(seed=1)
    before = snapshot(state)
    with pytest.raises(ALLOWED, match=problem):
        call(state)
    assert snapshot(state) == before


def test_syntax_errors_are_invalid_moves_and_illegal_moves_are_not() -> None:
    state = spheria.load_game("spline").new_initial_state()
    with pytest.raises(InvalidMoveError) as syntax:
        state.parse_move("9z9")
    assert not isinstance(syntax.value, IllegalMoveError)  # catching "illegal" does not catch bad syntax
    state.apply(state.parse_move("0a1"))
    with pytest.raises(IllegalMoveError) as taken:
        state.parse_move("0a1")
    assert not isinstance(taken.value, InvalidMoveError) and "taken" in str(taken.value)
    # Siblings under one MoveError, a ValueError (as python-chess's are under ValueError).
    assert InvalidMoveError.__bases__ == IllegalMoveError.__bases__ == (MoveError,)
    assert issubclass(MoveError, ValueError) and spheria.MoveError is MoveError
    assert {"MoveError", "IllegalMoveError", "InvalidMoveError"} <= set(spheria.__all__)


@pytest.mark.parametrize(
    ("name", "move"),
    [
        ("special-cake", CakeMove((99,))),
        ("special-cake", CakeMove("0a1")),  # type: ignore[arg-type]
        ("spinca", SpincaMove(0, 99, 1)),
        ("spagyric", Place(99)),
        ("spagyric", Choice(7)),
        ("spagyric", Reveal(5, 9)),
    ],
)
def test_the_notation_of_a_move_off_the_pyramid_is_refused_by_name(name: str, move: object) -> None:
    state = spheria.load_game(name).new_initial_state(seed=1)
    before = snapshot(state)
    with pytest.raises(InvalidMoveError) as refused:
        state.notation(move)
    assert repr(move) in str(refused.value) and "cannot be written" in str(refused.value)
    assert snapshot(state) == before


@pytest.mark.parametrize("name", spheria.game_names())
def test_state_from_spn_of_no_text_is_a_type_error(name: str) -> None:
    with pytest.raises(TypeError, match="position notation is text"):
        spheria.load_game(name).state_from_spn(None)  # type: ignore[arg-type]


def test_whole_number_options_refuse_fractions() -> None:
    with pytest.raises(ValueError, match=r"option 'players' takes a whole number, not 2\.5"):
        spheria.load_game("spinca", players=2.5)
    with pytest.raises(TypeError, match="a game name is text"):
        spheria.load_game(None)  # type: ignore[arg-type]
