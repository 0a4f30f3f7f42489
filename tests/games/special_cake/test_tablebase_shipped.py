"""The set-up table shipped with the package (mint, mixed lines), and what plays from it.

These tests read only the packed file in ``spheria/games/special_cake/solver/data`` (the build takes minutes
and 2 GB, see docs/tablebase.md). The counts they recompute are the build's, as listed in
docs/solver.md; the set-up values are checked against explicit minimax over the placements
left.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import spheria
from spheria.agents.registry import make_agent
from spheria.cli.main import main
from spheria.engine.board import ALL_SITES, NUM_SITES, Board
from spheria.games.special_cake.rules import CakeState
from spheria.games.special_cake.solver import position_value, solve, solve_spn
from spheria.games.special_cake.solver.setup_table import (
    PackedSetupTable,
    PackError,
    check_file,
    default_checksum_path,
    default_pack_path,
    shipped_table,
    stable_shapes,
)
from spheria.games.special_cake.tablebase.verify import setup_minimax
from spheria.match import play

DOCS = Path(__file__).resolve().parents[3] / "docs" / "solver.md"
ROW = re.compile(r"^\| (\d+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|$")


def documented_counts() -> dict[int, tuple[int, int]]:
    """Set-up level -> (positions, won by Mint), from the table in docs/solver.md."""
    text = DOCS.read_text().split("<!-- setup-counts -->")[1]
    rows = {}
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            level, positions, won, _ = (int(group.replace(",", "")) for group in match.groups())
            rows[level] = (positions, won)
    return rows


def random_setup(rng: random.Random, free: int) -> tuple[int, int]:
    k = NUM_SITES - free
    occupied = rng.choice([m for m in stable_shapes(ALL_SITES) if m.bit_count() == k])
    sites = [s for s in range(NUM_SITES) if occupied >> s & 1]
    white = sum(1 << s for s in rng.sample(sites, (k + 1) // 2))
    return white, occupied & ~white


def setup_state(white: int, black: int) -> CakeState:
    board = Board(white, black)
    player = (white | black).bit_count() % 2 + 1
    state = spheria.load_game("special-cake", variant="mint").state_from_spn(f"{board.spn()} {player} place")
    assert isinstance(state, CakeState)
    return state


def test_the_shipped_file_matches_its_checksum() -> None:
    assert check_file(default_pack_path(), default_checksum_path())
    assert default_pack_path().stat().st_size < 50 * 2**20


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    data = bytearray(default_pack_path().read_bytes())
    table = PackedSetupTable(default_pack_path())
    data[table.entries[26].offset - 100] ^= 0xFF  # inside level 25's last chunk
    damaged = tmp_path / "damaged.pack"
    damaged.write_bytes(bytes(data))
    with pytest.raises(PackError, match="level 25 is damaged"):
        PackedSetupTable(damaged).level(25).bits()
    assert not check_file(damaged, default_checksum_path())
    (tmp_path / "short.pack").write_bytes(b"SPHTB")
    with pytest.raises(PackError, match="too short"):
        PackedSetupTable(tmp_path / "short.pack")


def test_mint_wins_from_the_empty_table_with_every_first_placement() -> None:
    assert shipped_table().mint_wins(0, 0)
    game = spheria.load_game("special-cake", variant="mint")
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    result = solve(state)
    assert result.value == 1
    assert len(result.best_moves) == 16  # every site of the bottom level


def test_the_counts_per_level_are_the_documented_ones() -> None:
    documented = documented_counts()
    assert sorted(documented) == list(range(31))
    counts = shipped_table().wins_per_level()
    assert counts == [documented[k][1] for k in range(31)]
    assert sum(counts) == 2_578_455_333
    assert counts[30] == 146_189_700  # the full cakes Mint, eating first, wins


def test_the_table_refuses_what_is_not_a_set_up() -> None:
    table = shipped_table()
    with pytest.raises(ValueError, match="1 mint and 0 liquorice"):
        table.mint_wins(0, 1)
    with pytest.raises(ValueError, match="support"):
        table.mint_wins(1 << 16, 0)  # a ball on level 1 with nothing below


def test_set_up_values_agree_with_minimax_over_the_placements_left() -> None:
    """200 positions with 1-4 free sites; the full cakes read from the table's own last level."""
    table = shipped_table()
    rng = random.Random(18)
    won = 0
    for free in (1, 2, 3, 4):
        for _ in range(50):
            white, black = random_setup(rng, free)
            expected = setup_minimax(white, black, ALL_SITES, table.mint_wins)
            assert table.mint_wins(white, black) == expected, (free, hex(white), hex(black))
            won += expected
    assert 0 < won < 200  # both outcomes occur among the positions drawn


@pytest.mark.compiled_speed  # full mint cakes: seconds of search each
def test_set_up_values_agree_with_minimax_on_searched_cakes() -> None:
    table = shipped_table()
    rng = random.Random(7)
    leaf = lambda white, black: position_value((white, black, 0), "mint", "mixed") > 0  # noqa: E731
    for free in (1, 1, 2):
        white, black = random_setup(rng, free)
        assert table.mint_wins(white, black) == setup_minimax(white, black, ALL_SITES, leaf)


def test_solve_lists_every_best_placement() -> None:
    rng = random.Random(3)
    table = shipped_table()
    for free in (3, 6, 9, 14):
        white, black = random_setup(rng, free)
        state = setup_state(white, black)
        result = solve(state)
        mint = state.player == 0
        children = {}
        for move in state.legal_moves():
            bit = 1 << move.sites[0]
            children[move] = table.mint_wins(white | bit, black) if mint else table.mint_wins(white, black | bit)
        winning = [move for move, mint_wins in children.items() if mint_wins == mint]
        assert result.value == (1 if winning else -1)
        assert result.best_moves == (winning or list(children))
        assert (result.value > 0) == (table.mint_wins(white, black) == mint)


def test_a_liquorice_win_is_found() -> None:
    """A position at 13 placements (the first level with Liquorice wins) that Liquorice wins."""
    table = shipped_table()
    level = table.level(13)
    shape = next(s for s, won in level.wins_per_shape() if won < level.per_shape)
    sites = [s for s in range(NUM_SITES) if shape >> s & 1]
    for bits in range(1 << 13):
        if bits.bit_count() == 7:
            white = sum(1 << s for i, s in enumerate(sites) if bits >> i & 1)
            if not table.mint_wins(white, shape & ~white):
                break
    state = setup_state(white, shape & ~white)
    assert state.player == 1  # Liquorice to place
    result = solve(state)
    assert result.value == 1
    assert all(not table.mint_wins(white, shape & ~white | 1 << m.sites[0]) for m in result.best_moves)


@pytest.mark.parametrize(
    ("variant", "options"),
    [("poisoned", ["line_rule=same"]), ("mint", ["line_rule=same"]), ("mint", ["line_rule=any"])],
)
def test_other_set_ups_are_refused_clearly(variant: str, options: list[str]) -> None:
    game = spheria.load_game("special-cake", variant=variant, **dict(option.split("=") for option in options))
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    with pytest.raises(ValueError, match="only for mint and poisoned with mixed lines"):
        solve(state)


def test_spheria_solve_answers_the_empty_table(capsys: pytest.CaptureFixture[str]) -> None:
    spn = "................/........./..../. 1 place"
    assert main(["solve", spn, "--option", "variant=mint", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "Mint to place: won with perfect play." in out
    assert "Winning moves (16)" in out
    assert main(["solve", spn, "--option", "variant=mint", "--json"]) == 0
    data = __import__("json").loads(capsys.readouterr().out)
    assert data["value"] == 1 and len(data["best_moves"]) == 16
    assert solve_spn("mint", spn).value == 1


@pytest.mark.compiled_speed  # each game's eating phase starts from a full mint cake
@pytest.mark.parametrize("opponent", ["solver:setup=planner,seed={seed}", "random:seed={seed}"])
def test_the_solver_as_mint_wins_every_game(opponent: str) -> None:
    game = spheria.load_game("special-cake", variant="mint")
    for seed in range(2):
        state = game.new_initial_state()
        returns = play(state, [make_agent(f"solver:seed={seed}"), make_agent(opponent.format(seed=seed))])
        assert returns[0] == 1.0, (opponent, seed, state.history_notation())


@pytest.mark.compiled_speed  # the eating phase starts from a full mint cake
def test_the_solver_as_liquorice_keeps_a_table_win() -> None:
    """From a 13-placement position Liquorice wins, the solver as Liquorice wins against the planner."""
    table = shipped_table()
    level = table.level(13)
    shape = next(s for s, won in level.wins_per_shape() if won < level.per_shape)
    sites = [s for s in range(NUM_SITES) if shape >> s & 1]
    white = next(
        w
        for bits in range(1 << 13)
        if bits.bit_count() == 7
        and not table.mint_wins(w := sum(1 << s for i, s in enumerate(sites) if bits >> i & 1), shape & ~w)
    )
    for seed in range(2):
        state = setup_state(white, shape & ~white)
        agents = [make_agent(f"solver:setup=planner,seed={seed}"), make_agent(f"solver:seed={seed}")]
        assert play(state, agents)[1] == 1.0
