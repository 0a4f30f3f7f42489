"""Poisoned's set-up table shipped with the package, and what plays and analyses from it.

These tests read the packed file ``spheria/games/special_cake/solver/data/poisoned-mixed-setup.pack``
(the build behind it takes 20 minutes and 5 GB, see docs/tablebase.md). Poisoned's set-up is 29
placements, Mint first and last; the cherry then goes on top by itself (no one's move) and Mint
eats first, so the table's last level, 29 candies, holds every full cake.
"""

from __future__ import annotations

import fnmatch
import random
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

import spheria
from spheria.agents.levels import levels_for
from spheria.agents.registry import make_agent
from spheria.analysis import EXACT, analyse
from spheria.cli.main import main
from spheria.engine.board import ALL_SITES, NUM_SITES, TOP, Board
from spheria.games.special_cake.rules import EAT, CakeState
from spheria.games.special_cake.solver import SolveResult, solve, solve_spn, solves_set_up
from spheria.games.special_cake.solver.setup_table import (
    PackedSetupTable,
    PackError,
    check_file,
    colourings,
    default_checksum_path,
    default_pack_path,
    pack_name,
    shipped_table,
    stable_shapes,
)
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.games.special_cake.tablebase import cli as tablebase_cli
from spheria.games.special_cake.tablebase.verify import poisoned_search_value, setup_minimax
from spheria.match import play

POISONED_TOP = 29  # placements: 15 mint and 14 liquorice, the cherry then on the 30th site
LOWER_SITES = ALL_SITES & ~(1 << TOP)


def poisoned() -> spheria.Game:
    return spheria.load_game("special-cake", variant="poisoned")


def random_setup(rng: random.Random, free: int) -> tuple[int, int]:
    """A poisoned set-up position with ``free`` placements left (random shape, random colouring)."""
    k = POISONED_TOP - free
    occupied = rng.choice([m for m in stable_shapes(LOWER_SITES) if m.bit_count() == k])
    sites = [s for s in range(NUM_SITES) if occupied >> s & 1]
    white = sum(1 << s for s in rng.sample(sites, (k + 1) // 2))
    return white, occupied & ~white


def setup_state(white: int, black: int) -> CakeState:
    player = (white | black).bit_count() % 2 + 1
    state = poisoned().state_from_spn(f"{Board(white, black).spn()} {player} place")
    assert isinstance(state, CakeState)
    return state


def placement_values(state: CakeState) -> dict[str, bool]:
    """Each legal placement and whether Mint wins after it, read from the table."""
    table = shipped_table("poisoned")
    white, black, _ = state.masks()
    values = {}
    for move in state.legal_moves():
        bit = 1 << move.sites[0]
        mint = state.player == 0
        values[str(move)] = table.mint_wins(white | bit, black) if mint else table.mint_wins(white, black | bit)
    return values


def liquorice_win(k: int) -> tuple[int, int]:
    """A set-up position with ``k`` candies placed that Liquorice wins."""
    level = shipped_table("poisoned").level(k)
    shape = next(s for s, won in level.wins_per_shape() if won < level.per_shape)
    sites = [s for s in range(NUM_SITES) if shape >> s & 1]
    for bits in range(1 << k):
        if bits.bit_count() == (k + 1) // 2:
            white = sum(1 << s for i, s in enumerate(sites) if bits >> i & 1)
            if not shipped_table("poisoned").mint_wins(white, shape & ~white):
                return white, shape & ~white
    raise AssertionError(f"no Liquorice win at {k} candies")


# -- item 1: the shipped pack ------------------------------------------------------------------


def test_each_variant_ships_its_own_pack_within_the_wheel_budget() -> None:
    assert pack_name("poisoned") == "poisoned-mixed-setup.pack"
    assert default_pack_path("poisoned").name == "poisoned-mixed-setup.pack"
    assert default_checksum_path("poisoned").name == "poisoned-mixed-setup.sha256"
    assert check_file(default_pack_path("poisoned"), default_checksum_path("poisoned"))
    assert not check_file(default_pack_path("poisoned"), default_checksum_path("mint"))
    sizes = [default_pack_path(variant).stat().st_size for variant in ("mint", "poisoned")]
    assert sum(sizes) <= 50 * 10**6  # the tables of the wheel: 50 MB at most
    with pytest.raises(ValueError, match="only mint and poisoned have a shipped set-up table, not 'sugar'"):
        pack_name("sugar")


def test_the_package_data_ships_both_packs_and_their_checksums() -> None:
    """pyproject's package-data globs take each shipped pack into the wheel (tests/test_packaging.py builds one)."""
    root = Path(__file__).resolve().parents[3]
    package = root / "src" / "spheria"
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["spheria"]
    for variant in ("mint", "poisoned"):
        for path in (default_pack_path(variant), default_checksum_path(variant)):
            inside = path.resolve().relative_to(package.resolve()).as_posix()
            assert any(fnmatch.fnmatchcase(inside, glob) for glob in globs), inside


def test_poisoned_pack_holds_the_29_placements_and_the_built_counts() -> None:
    """The counts of the build (docs/tablebase.md, *Poisoned*), recomputed from the packed bits."""
    table = shipped_table("poisoned")
    assert table.top == POISONED_TOP and shipped_table("mint").top == 30
    counts = table.wins_per_level()
    assert len(counts) == 30
    assert sum(counts) == 2_364_746_651  # set-up positions Mint wins
    assert counts[29] == 69_648_300  # the full cakes Mint wins, eating first
    assert counts[:13] == [
        len([m for m in stable_shapes(LOWER_SITES) if m.bit_count() == k]) * colourings(k) for k in range(13)
    ]  # every position up to 12 candies is a Mint win
    with pytest.raises(ValueError, match="ends at 29 candies, not 30"):
        table.mint_wins(0x5555_5555 & ALL_SITES, 0xAAAA_AAAA & ALL_SITES)


def test_a_pack_of_the_wrong_variant_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mint pack (31 levels) in poisoned's place is not read as poisoned's set-up."""
    from spheria.games.special_cake.solver import setup_table

    monkeypatch.setattr(setup_table, "_shipped", {})
    monkeypatch.setattr(setup_table, "default_pack_path", lambda variant="mint": default_pack_path("mint"))
    with pytest.raises(PackError, match="31 set-up levels, but poisoned's set-up has 30"):
        shipped_table("poisoned")


def _all_mint_reader(directory: Path, spec: object) -> Callable[[int], bytes]:
    """A stand-in for a finished build whose every set-up position is a Mint win."""

    def bits(k: int) -> bytes:
        positions = sum(1 for m in stable_shapes(ALL_SITES) if m.bit_count() == k) * colourings(k)
        return ((1 << positions) - 1).to_bytes(-(-positions // 8), "little")

    return bits


def test_pack_writes_and_checks_each_variants_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tablebase_cli, "_setup_reader", _all_mint_reader)
    out = tmp_path / "poisoned.pack"
    argv = ["tablebase", "pack", "--variant", "poisoned", "--cache", str(tmp_path), "--output", str(out)]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "set-up 29: 0 canonical shapes" in said and "set-up 30" not in said
    packed = PackedSetupTable(out)
    assert packed.top == POISONED_TOP and all(entry.all_mint for entry in packed.entries)
    assert check_file(out, out.with_suffix(".sha256"))
    # --check compares the shipped poisoned pack: the stand-in agrees below 13 candies only
    assert main(["tablebase", "pack", "--variant", "poisoned", "--cache", str(tmp_path), "--check"]) == 1
    said, err = capsys.readouterr()
    assert "set-up 12: the shipped table agrees with the build" in said
    assert "set-up 13: the shipped table DIFFERS with the build" in said
    assert "differs from the build at levels " + ", ".join(map(str, range(13, 30))) in err
    assert main(["tablebase", "pack", "--variant", "poisoned", "--line-rule", "same", "--cache", str(tmp_path)]) == 1
    assert "only mint and poisoned with mixed lines have a shipped set-up table" in capsys.readouterr().err


# -- item 2: solve and spheria solve -------------------------------------------------------------


def test_poisoned_is_a_mint_win_from_the_empty_table_with_every_first_placement() -> None:
    game = poisoned()
    assert solves_set_up(game)
    assert not solves_set_up(spheria.load_game("special-cake", variant="poisoned", line_rule="same"))
    state = game.new_initial_state()
    assert isinstance(state, CakeState)
    result = solve(state)
    assert (result.value, len(result.best_moves)) == (1, 16)


def test_solve_lists_every_best_placement_of_poisoned_set_ups() -> None:
    rng = random.Random(41)
    for free in (2, 5, 9, 14, 17):
        white, black = random_setup(rng, free)
        state = setup_state(white, black)
        values = placement_values(state)
        mint = state.player == 0
        winning = [move for move, mint_wins in values.items() if mint_wins == mint]
        result = solve(state)
        assert result.value == (1 if winning else -1), free
        assert [str(m) for m in result.best_moves] == (winning or list(values))
        assert (result.value > 0) == (shipped_table("poisoned").mint_wins(white, black) == mint)
        first = solve(state, stop_at_first=True)
        assert first.value == result.value
        assert first.best_moves == (result.best_moves[:1] if winning else result.best_moves)


def test_a_liquorice_win_is_found_and_kept() -> None:
    white, black = liquorice_win(13)
    state = setup_state(white, black)
    assert state.player == 1
    result = solve(state)
    assert result.value == 1 and result.best_moves
    table = shipped_table("poisoned")
    assert all(not table.mint_wins(white, black | 1 << m.sites[0]) for m in result.best_moves)


def test_set_up_values_agree_with_minimax_over_the_placements_left() -> None:
    """1-4 free sites; the full cakes (the cherry on top) read from the table's own last level."""
    table = shipped_table("poisoned")
    rng = random.Random(29)
    won = 0
    for free in (1, 2, 3, 4):
        for _ in range(40):
            white, black = random_setup(rng, free)
            expected = setup_minimax(white, black, ALL_SITES, table.mint_wins, placements=POISONED_TOP)
            assert table.mint_wins(white, black) == expected, (free, hex(white), hex(black))
            won += expected
    assert 0 < won < 160


@pytest.mark.compiled_speed  # a full poisoned cake: seconds of search
def test_the_last_placement_is_valued_by_the_eating_search_with_the_cherry_on_top() -> None:
    """Mint's 15th candy ends the set-up; the cherry goes on top and Mint eats: the table's
    answer at that placement is the search solver's value of the full cake."""
    rng = random.Random(5)
    white, black = random_setup(rng, 1)
    state = setup_state(white, black)
    assert state.player == 0
    [move] = state.legal_moves()
    result = solve(state)
    cake = state.child(move)
    assert isinstance(cake, CakeState) and cake.phase == EAT and cake.masks()[2] == 1 << TOP
    searched = poisoned_search_value("mixed", *cake.masks())
    assert result.value == searched
    assert shipped_table("poisoned").mint_wins(*cake.masks()[:2]) == (searched > 0)


def test_spheria_solve_answers_a_poisoned_set_up(capsys: pytest.CaptureFixture[str]) -> None:
    spn = "................/........./..../. 1 place"
    assert main(["solve", spn, "--option", "variant=poisoned", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "Mint to place: won with perfect play." in out and "Winning moves (16)" in out
    white, black = liquorice_win(13)
    state = setup_state(white, black)
    expected = solve(state)
    assert main(["solve", state.to_spn(), "--option", "variant=poisoned", "--json"]) == 0
    data = __import__("json").loads(capsys.readouterr().out)
    assert data["value"] == 1 and data["player_to_move"] == 2
    assert data["best_moves"] == [str(m) for m in expected.best_moves]
    assert isinstance(solve_spn("poisoned", spn), SolveResult)
    assert main(["solve", spn, "--option", "variant=poisoned", "--option", "line_rule=same"]) == 1
    assert "only for mint and poisoned with mixed lines" in capsys.readouterr().err


# -- item 3: level 5 ------------------------------------------------------------------------------


def test_level_5_of_poisoned_sets_up_from_the_table() -> None:
    game = poisoned()
    levels = levels_for(game)
    assert levels[4].spec == "solver:setup=table,time=5"
    assert all("setup=greedy" in entry.spec for entry in levels[:4])  # as they were measured
    agent = make_agent("level:5,seed=3")
    rng = random.Random(8)
    for free in (4, 11, 20):
        state = setup_state(*random_setup(rng, free))
        values = placement_values(state)
        mint = state.player == 0
        best = {move for move, mint_wins in values.items() if mint_wins == mint} or set(values)
        assert str(agent.choose(state.view(state.player), state.player)) in best


def test_the_solver_as_liquorice_keeps_a_set_up_win() -> None:
    """From a 13-placement position Liquorice wins, the table's set-up never gives the win away:
    every position it leaves itself on its turn is still a Liquorice win."""
    white, black = liquorice_win(13)
    table = shipped_table("poisoned")
    for seed in range(2):
        state = setup_state(white, black)
        agents = [make_agent(f"greedy:seed={seed}"), SolverAgent(seed=seed, tablebase=False)]
        while state.phase != EAT:
            move = agents[state.player].choose(state.view(state.player), state.player)
            state.apply(move)
            if state.phase != EAT and state.player == 1:
                assert not table.mint_wins(*state.masks()[:2])
        assert not table.mint_wins(*state.masks()[:2])  # the full cake: Mint, eating first, loses


@pytest.mark.compiled_speed  # the eating phase starts from a full poisoned cake
def test_the_solver_as_mint_wins_a_poisoned_game() -> None:
    state = poisoned().new_initial_state()
    returns = play(state, [make_agent("solver:seed=1"), make_agent("random:seed=1")])
    assert returns[0] == 1.0, state.history_notation()


# -- item 4: the analysis board -------------------------------------------------------------------


def test_the_analysis_of_a_poisoned_set_up_is_exact_with_every_winning_placement() -> None:
    rng = random.Random(12)
    for free in (3, 8, 16):
        state = setup_state(*random_setup(rng, free))
        result = analyse(state, time=5)
        values = placement_values(state)
        mint = state.player == 0
        winning = [move for move, mint_wins in values.items() if mint_wins == mint]
        assert (result.status, result.method) == (EXACT, "solver")
        assert result.verdict == (1 if winning else -1)
        assert result.best_moves == (winning or list(values))
        assert {m.move: m.value for m in result.moves} == {
            move: 1.0 if mint_wins == mint else -1.0 for move, mint_wins in values.items()
        }


def test_the_analysis_of_a_liquorice_win_names_liquorice_winning_placements() -> None:
    white, black = liquorice_win(15)
    state = setup_state(white, black)
    result = analyse(state, time=5)
    assert (result.status, result.verdict) == (EXACT, 1)  # the player to move, Liquorice, wins
    assert result.values == [-1.0, 1.0]
    table = shipped_table("poisoned")
    assert result.best_moves and all(
        not table.mint_wins(white, black | 1 << state.parse_move(move).sites[0]) for move in result.best_moves
    )


def test_the_analysis_of_a_full_poisoned_cake_knows_its_verdict_from_the_table() -> None:
    """A full cake Mint loses: every eating move is lost, with no search (the table's last level)."""
    table = shipped_table("poisoned")
    level = table.level(POISONED_TOP)
    [shape] = level.shapes
    sites = [s for s in range(NUM_SITES) if shape >> s & 1]
    rng = random.Random(2)
    while True:
        white = sum(1 << s for s in rng.sample(sites, 15))
        if not table.mint_wins(white, shape & ~white):
            break
    cake = poisoned().state_from_spn(f"{Board(white, shape & ~white, 1 << TOP).spn()} 1 eat")
    result = analyse(cake, time=5)
    assert (result.status, result.verdict, result.positions) == (EXACT, -1, None)
    assert all(m.value == -1.0 for m in result.moves) and len(result.moves) == len(cake.legal_moves())
