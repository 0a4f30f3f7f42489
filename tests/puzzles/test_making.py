"""Making, checking and playing out puzzles with the games' oracles (through their kits)."""

from __future__ import annotations

import dataclasses

import pytest

import spheria
from spheria.kernel.record import Record
from spheria.puzzles import (
    Puzzle,
    PuzzleError,
    check_answer,
    examine,
    from_record,
    generate,
    hint_moves,
    maker_for,
    making,
    puzzle_games,
    puzzle_state,
    refutation,
    verify,
)
from spheria.puzzles.making import MOST_SOLVER_MOVES, same_move, seeded

#: Hand-worked (tests/games/special_cake/test_puzzles.py): eating 0a1 (or 0b2: the same cake) wins, alone.
CAKE = Puzzle(
    "special-cake", {"variant": "mint", "line_rule": "mixed"}, "wb..bw........../w......../..../. 1 eat", ("0a1",)
)


def test_the_games_with_puzzles() -> None:
    assert puzzle_games() == ["special-cake", "spline"]
    with pytest.raises(ValueError, match="Spinca has no puzzles"):
        maker_for("spinca")


def test_seeded_spec() -> None:
    assert seeded("random", 7) == "random:seed=7"
    assert seeded("greedy:blunder=0.5", 7) == "greedy:blunder=0.5,seed=7"


def test_examine_makes_the_hand_worked_puzzle() -> None:
    maker = maker_for("special-cake")
    state = puzzle_state(CAKE)
    puzzle = examine(maker, state, "hand-worked")
    assert puzzle is not None
    assert puzzle.solution == ("0a1",)  # the opponent is left a 2x2 of alternating colours: every reply loses,
    assert puzzle.difficulty == 2  # and 0b1 and 0a2 are the plausible moves that lose
    assert puzzle.themes == ("drop",)
    verify(puzzle)


def test_examine_leaves_out_a_position_with_nothing_to_find() -> None:
    maker = maker_for("special-cake")
    state = spheria.load_game("special-cake").state_from_spn("wwb............./........./..../. 1 eat")
    assert [str(m) for m in maker.winning_moves(state, None) or []] == ["0b1+0c1"]
    assert examine(maker, state, "") is None  # every other move loses at once: no puzzle


@pytest.mark.parametrize("game", ["special-cake", "spline"])
def test_generate_is_seeded_and_every_puzzle_verifies(game: str) -> None:
    puzzles = generate(game, 4, 11)
    assert len(puzzles) == 4 and len({p.spn for p in puzzles}) == 4
    assert generate(game, 4, 11) == puzzles
    for puzzle in puzzles:
        assert puzzle.game == game and puzzle.difficulty >= 1 and puzzle.themes
        assert len(puzzle.solution) % 2 == 1 and len(puzzle.solution) <= 2 * MOST_SOLVER_MOVES - 1
        verify(puzzle)


def test_a_maker_that_finds_nothing_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(making, "MOST_GAMES_WITHOUT_A_PUZZLE", 2)
    monkeypatch.setattr(making, "examine", lambda *args: None)
    with pytest.raises(ValueError, match="2 games of Spline gave no puzzle"):
        generate("spline", 1, 0)


def test_verify_finds_a_wrong_move_a_wrong_fact_and_an_illegal_move() -> None:
    with pytest.raises(PuzzleError, match=r"move 1 \(0b1\) of the solution is not the only winning move: 0a1"):
        verify(dataclasses.replace(CAKE, solution=("0b1",)))
    with pytest.raises(PuzzleError, match=r"move 1 \(3a1\) is not legal"):
        verify(dataclasses.replace(CAKE, solution=("3a1",)))
    with pytest.raises(PuzzleError, match=r"difficulty \(0\) is not what its position shows"):
        verify(dataclasses.replace(CAKE, themes=("drop",), difficulty=0))
    with pytest.raises(PuzzleError, match=r"themes \(quiet\) is not what its position shows"):
        verify(dataclasses.replace(CAKE, themes=("quiet",), difficulty=2))
    with pytest.raises(PuzzleError, match="not a position of Special Cake"):
        verify(dataclasses.replace(CAKE, spn="wb 1 eat"))
    with pytest.raises(PuzzleError, match=r"the puzzle's game chess with options .* cannot be loaded"):
        verify(dataclasses.replace(CAKE, game="chess"))
    with pytest.raises(PuzzleError, match=r"the puzzle's game special-cake with options \{\"size\": 3\} cannot be"):
        verify(dataclasses.replace(CAKE, options={"size": 3}))


def test_answer_accepts_the_same_move_written_otherwise() -> None:
    state = puzzle_state(CAKE)
    assert check_answer(CAKE, state, "0a1", 0)
    assert check_answer(CAKE, state, "0b2", 0)  # the same cake is left
    assert not check_answer(CAKE, state, "0b1", 0)


def test_refutation_plays_the_wrong_move_out_to_the_end() -> None:
    maker = maker_for("special-cake")
    state = puzzle_state(CAKE)
    wrong = state.child(state.parse_move("0b1"))
    line = refutation(maker, wrong)
    for move in line:
        wrong.apply_notation(move)
    assert wrong.is_terminal() and wrong.returns()[state.current_player()] < 0


def test_hint_names_the_winning_move_among_plausible_ones() -> None:
    maker = maker_for("special-cake")
    hint = hint_moves(maker, CAKE)
    assert hint == ["0a1", "0a2", "0b1"]
    assert hint_moves(maker, CAKE) == hint
    state = puzzle_state(CAKE)
    assert any(same_move(state, state.parse_move(text), state.parse_move("0a1")) for text in hint)


def test_puzzles_from_a_played_games_record() -> None:
    # A person's game from the hand-worked position: its first position is a puzzle, and the record names it.
    state = puzzle_state(CAKE)
    state.apply_notation("0b1")  # the mistake
    while not state.is_terminal():
        state.apply(state.legal_moves()[0])
    record = Record.from_state(state, ["human", "random"])
    found = from_record(record, "mine.spheria.json")
    assert found[0].spn == CAKE.spn and found[0].solution[0] == "0a1"
    assert found[0].source == "mine.spheria.json: human vs random, ply 1"
    for puzzle in found:
        verify(puzzle)
    made = generate("special-cake", len(found) + 1, 3, records=[("mine", record)])
    assert made[: len(found)] == [dataclasses.replace(p, source=p.source.replace(".spheria.json", "")) for p in found]
