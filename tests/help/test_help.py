"""The how-to-play texts: every drawn example is a legal position of its game, every shown
move is legal and does what the text says, and the text reads back as the engine draws it."""

from __future__ import annotations

import re
from typing import Any

import pytest

import spheria
from spheria.engine.board import SITE_NAMES, Board, parse_diagram, parse_site
from spheria.games.spinca.rules import FACE_NAMES
from spheria.help import HelpBlock, help_games, howto, howto_blocks
from spheria.kernel.registry import game_class, game_classes, game_names


def positions(game: str) -> list[HelpBlock]:
    return [b for b in howto_blocks(game) if b.kind == "position"]


def drawn_boards(block: HelpBlock) -> list[str]:
    """The board pictures inside a position block (one, or before and after a move)."""
    pictures: list[str] = []
    current: list[str] = []
    for line in block.text.splitlines():
        if line.startswith("  level 0") and current:
            pictures.append("\n".join(current))
            current = []
        current.append(line)
    pictures.append("\n".join(current))
    return pictures


def state_of(game: str, spn: str) -> spheria.State[Any]:
    return spheria.load_game(game).state_from_spn(spn)


def test_every_game_has_a_text() -> None:
    assert sorted(help_games()) == sorted(game_names())
    for game in help_games():
        assert positions(game), f"{game} has no drawn example"


@pytest.mark.parametrize("game", help_games())
def test_every_drawn_example_is_a_legal_position_and_a_legal_move(game: str) -> None:
    for block in positions(game):
        assert block.spn is not None
        state = state_of(game, block.spn)  # a position the game refuses raises here
        pictures = drawn_boards(block)
        board, _ = parse_diagram(pictures[0])
        assert board.spn() == block.spn.split()[0]
        if block.move is None:
            assert len(pictures) == 1
            continue
        move = state.parse_move(block.move)
        assert move in state.legal_moves()
        state.apply(move)
        assert block.after_spn == state.to_spn()
        after, _ = parse_diagram(pictures[1])
        assert after.spn() == state.to_spn().split()[0]


@pytest.mark.parametrize("game", help_games())
def test_no_directive_is_left_as_prose(game: str) -> None:
    for block in howto_blocks(game):
        if block.kind != "position":
            assert "[[" not in block.text and "]]" not in block.text


def example(game: str, move: str) -> HelpBlock:
    return next(b for b in positions(game) if b.move == move)


def test_special_cake_drop_chain_moves_each_candy_down_one_site() -> None:
    block = example("special-cake", "0a1")
    assert block.spn is not None and block.after_spn is not None
    before = Board.from_spn(block.spn.split()[0])
    after = Board.from_spn(block.after_spn.split()[0])
    site = parse_site
    # The liquorice candy of 1a1 now stands on 0a1, the mint candy of 2a1 on 1a1; 2a1 is empty.
    assert after.color_at(site("0a1")) == before.color_at(site("1a1")) == 1
    assert after.color_at(site("1a1")) == before.color_at(site("2a1")) == 0
    assert after.color_at(site("2a1")) is None


def test_special_cake_line_with_a_pinned_candy() -> None:
    block = example("special-cake", "1a1+1c1+1b1")
    state = state_of("special-cake", block.spn or "")
    with pytest.raises(ValueError, match="pinned"):
        state.parse_move("1b1")  # pinned alone, as the text says, yet eaten within the line


def test_special_cake_end_example_leaves_the_last_candy_to_the_opponent() -> None:
    block = example("special-cake", "0a1")
    end = next(b for b in positions("special-cake") if b.spn and b.spn.startswith("wb......"))
    assert end is not block
    state = state_of("special-cake", end.spn or "")
    state.apply_notation("0a1+0b1")  # the line the text warns about: Mint eats the last candy
    assert state.returns() == [-1.0, 1.0]
    state = state_of("special-cake", end.after_spn or "")
    state.apply_notation("0b1")
    assert state.returns() == [1.0, -1.0]


def test_spagyric_group_of_four_wins_and_three_loses() -> None:
    block = example("spagyric", "0c1")
    assert state_of("spagyric", block.after_spn or "").returns() == [1.0, -1.0]
    three = state_of("spagyric", block.spn or "")
    three.apply_notation("0a2")
    assert three.returns() == [-1.0, 1.0]


def test_spagyric_reveal_table_matches_the_rules() -> None:
    start = spheria.load_game("spagyric").new_initial_state()
    start.apply_notation("w:b")
    assert start.current_player() == 0  # Player 1 places the white ball
    assert start.to_spn().split()[1:3] == ["place", "1w"]
    stun = spheria.load_game("spagyric").new_initial_state()
    stun.apply_notation("r:r")
    assert stun.to_spn().split()[5] == "0,0,1"  # one red from each stunned; the turn goes on
    assert "w    :    b" in howto("spagyric") and "r    :    r" in howto("spagyric")


def test_spinca_lock_example_locks_what_moved_tumbled_and_was_placed() -> None:
    block = example("spinca", "0b2-0a1 1b2")
    assert (block.spn or "").split()[2] == "0b3"
    assert (block.after_spn or "").split()[2] == "0a1,0b2,1b2"
    _, marks = parse_diagram(drawn_boards(block)[1])
    assert sorted(SITE_NAMES[s] for s, m in marks.items() if m == "+") == ["0a1", "0b2", "1b2"]


def test_spinca_face_example_scores_as_the_text_says() -> None:
    (block,) = [b for b in positions("spinca") if b.move is None]
    state = state_of("spinca", block.spn or "")
    white = state.side_scores()[0]  # type: ignore[attr-defined]
    assert FACE_NAMES[0] == "south" and sorted(white.groups[0]) == [1, 2] and white.faces[0] == 1
    assert FACE_NAMES[2] == "north" and white.faces[2] == 0


def test_spline_example_wins_with_a_row() -> None:
    block = example("spline", "0d1")
    assert state_of("spline", block.after_spn or "").returns() == [1.0, -1.0]


def test_names_are_read_as_the_cli_reads_them() -> None:
    assert howto("Special Cake") == howto("special_cake") == howto("special-cake")
    with pytest.raises(ValueError, match="no how-to for 'chess'"):
        howto("chess")


@pytest.mark.parametrize("game", help_games())
def test_prose_is_wrapped_and_pictures_are_not(game: str) -> None:
    text = howto(game, width=60)
    pictures = [b.text for b in howto_blocks(game) if b.kind in ("position", "pre")]
    picture_lines = {line for picture in pictures for line in picture.splitlines()}
    for line in text.splitlines():
        assert len(line) <= 60 or line in picture_lines
    for picture in pictures:
        assert picture in text  # drawn exactly, never re-wrapped


def test_texts_are_data_in_each_games_kit() -> None:
    assert {cls.name for cls in game_classes() if cls.kit().howto} == set(help_games())
    for sections in (game_class(game).kit().howto for game in help_games()):
        assert all(section.startswith("# ") for section in sections)  # one catalogue entry per section
        text = "\n".join(sections)
        words = set(re.findall(r"[a-z]+", text.lower()))
        assert not words & {"type", "click", "tap", "press"}  # read in the terminal and on the page alike
