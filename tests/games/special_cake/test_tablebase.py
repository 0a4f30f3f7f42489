"""The retrograde table builder, on the 3x3 corner sub-pyramid (14 sites, at most 7 of a colour).

Eating never leaves the corner sub-pyramid (balls only drop towards 0a1's corner), so its
positions are real mint positions: the table built over it must give the search solver's value
for every one of them. The build takes well under a second; the full table is far too slow for
a test (see docs/tablebase.md).
"""

from __future__ import annotations

import functools
import json
import random
import shutil
from pathlib import Path

import pytest

from spheria.cli.main import main
from spheria.engine.board import ALL_SITES, BELOW, SYMMETRIES
from spheria.games.special_cake.rules import MINT, MIXED, SAME, eating_outcomes
from spheria.games.special_cake.solver import position_value
from spheria.games.special_cake.solver.setup_table import colex_rank, pext, stable_shapes
from spheria.games.special_cake.tablebase.build import TableSpec, compile_builder, run_builder
from spheria.games.special_cake.tablebase.layout import (
    HEADER,
    SETUP,
    SUB_PYRAMID_3,
    Layout,
    LevelFileError,
    config_hash,
    level_path,
    read_level,
    sub_pyramid,
)
from spheria.games.special_cake.tablebase.verify import (
    EatingTable,
    check_levels,
    check_setup,
    solver_leaf,
    solver_value,
    step_value,
)

SUB = TableSpec(universe=SUB_PYRAMID_3, cap=7)

# The issue's count of stable shapes of the full pyramid by number of balls, 0..30.
SHAPES_BY_SIZE = [1, 16, 120, 560, 1820, 4377, 8116, 12034, 14862, 16023, 15764, 14562, 12780, 10709, 8588, 6592]
SHAPES_BY_SIZE += [4846, 3412, 2302, 1490, 924, 552, 316, 174, 93, 47, 24, 10, 4, 1, 1]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tablebase")


@pytest.fixture(scope="module")
def program(cache: Path) -> Path:
    return compile_builder(cache)


def _build(spec: TableSpec, cache: Path, program: Path, **kwargs: object) -> tuple[Path, list[str]]:
    lines: list[str] = []
    directory = run_builder(spec, cache, output=lines.append, program=program, **kwargs)  # type: ignore[arg-type]
    return directory, lines


@pytest.fixture(scope="module")
def sub_table(cache: Path, program: Path) -> EatingTable:
    directory, _ = _build(SUB, cache, program)
    return EatingTable(directory, SUB)


# -- layout ----------------------------------------------------------------------------------


def test_full_pyramid_has_the_issues_shape_counts() -> None:
    shapes = stable_shapes(ALL_SITES)
    assert len(shapes) == 141_120
    assert [sum(1 for m in shapes if m.bit_count() == n) for n in range(31)] == SHAPES_BY_SIZE


def test_full_layout_has_the_issues_position_count() -> None:
    layout = Layout()
    assert sum(layout.level(n).positions for n in range(31)) == 12_507_810_089
    assert layout.level(30).per_shape == 155_117_520  # C(30, 15): the full cakes


def test_sub_pyramid_is_the_corner() -> None:
    # level 0: a1 b1 c1 a2 b2 c2 a3 b3 c3; level 1: a1 b1 a2 b2; level 2: a1
    assert SUB_PYRAMID_3.bit_count() == 14
    assert sub_pyramid(4) == ALL_SITES
    assert SUB_PYRAMID_3 & 1 and not SUB_PYRAMID_3 >> 3 & 1  # 0a1 in, 0d1 out


def test_colex_rank_numbers_each_popcount_class_in_order() -> None:
    for w in range(5):
        patterns = sorted(p for p in range(1 << 8) if p.bit_count() == w)
        assert [colex_rank(p) for p in patterns] == list(range(len(patterns)))


def test_pext_packs_the_bits_under_the_mask() -> None:
    assert pext(0b1010_0100, 0b1110_0110) == 0b1_0110  # mask bits 1,2,5,6,7 read 0,1,1,0,1, lowest first
    assert pext(0, 0b111) == 0


def test_positions_of_a_level_are_numbered_without_gaps() -> None:
    layout = Layout(SUB_PYRAMID_3, 7)
    for n in (3, 9, 14):
        level = layout.level(n)
        indices = sorted(level.index(occ, white) for white, occ in _colourings(level.shapes, 7))
        assert indices == list(range(level.positions))


def _colourings(shapes: tuple[int, ...], cap: int) -> list[tuple[int, int]]:
    out = []
    for occ in shapes:
        sites = [s for s in range(30) if occ >> s & 1]
        for bits in range(1 << len(sites)):
            white = sum(1 << s for i, s in enumerate(sites) if bits >> i & 1)
            if white.bit_count() <= cap and (occ & ~white).bit_count() <= cap:
                out.append((white, occ))
    return out


def test_sub_pyramid_keeps_only_the_diagonal_reflection() -> None:
    assert SUB.symmetries() == [SYMMETRIES[0], SYMMETRIES[6]]
    assert len(TableSpec().symmetries()) == 8


# -- values against the search solver and a plain negamax -----------------------------------


def test_small_levels_agree_with_the_solver_everywhere(sub_table: EatingTable) -> None:
    results = check_levels(sub_table, range(8), 10**6, random.Random(0), solver_value(MIXED))
    assert sum(r.checked for r in results) == sum(sub_table.layout.level(n).positions for n in range(8))
    assert all(not r.mismatches for r in results)
    # both outcomes occur: a lone candy is lost, two candies are won
    assert results[1].won == 0 and results[2].won == results[2].checked


def test_large_levels_agree_with_the_solver_on_random_positions(sub_table: EatingTable) -> None:
    results = check_levels(sub_table, range(8, 15), 400, random.Random(1), solver_value(MIXED))
    assert all(not r.mismatches for r in results)
    assert all(0 < r.won < r.checked for r in results)


@functools.cache
def _negamax(white: int, black: int, line_rule: str) -> bool:
    if not white | black:
        return True  # the opponent ate the last candy
    return any(not _negamax(w, b, line_rule) for w, b, _ in eating_outcomes((white, black, 0), MINT, line_rule))


def test_table_agrees_with_a_plain_negamax(sub_table: EatingTable) -> None:
    rng = random.Random(2)
    layout = sub_table.layout
    for n in range(1, 8):
        for _ in range(40):
            occ = rng.choice(layout.level(n).shapes)
            white = occ & rng.getrandbits(30)
            if max(white.bit_count(), (occ & ~white).bit_count()) > 7:
                continue
            assert sub_table.wins(white, occ & ~white) == _negamax(white, occ & ~white, MIXED)


def test_every_level_is_one_move_from_the_level_below(sub_table: EatingTable) -> None:
    results = check_levels(sub_table, range(15), 300, random.Random(3), step_value(sub_table))
    assert all(not r.mismatches for r in results)
    assert sum(r.checked for r in results) > 3000


def test_same_lines_build_their_own_table(cache: Path, program: Path) -> None:
    spec = TableSpec(universe=SUB_PYRAMID_3, cap=7, line_rule=SAME)
    directory, _ = _build(spec, cache, program, upto=9)
    table = EatingTable(directory, spec)
    results = check_levels(table, range(10), 300, random.Random(3), solver_value(SAME))
    assert all(not r.mismatches for r in results)
    # the rules differ: some position changes value between mixed and same lines
    mixed = EatingTable(directory.parent / SUB.name, SUB)
    level = table.layout.level(5)
    assert any(table.level_file(5).won(i) != mixed.level_file(5).won(i) for i in range(level.positions))


# -- the set-up table -----------------------------------------------------------------------


def _placeable(occupied: int, universe: int) -> list[int]:
    return [s for s in range(30) if universe >> s & 1 and not occupied >> s & 1 and occupied & BELOW[s] == BELOW[s]]


def test_setup_table_is_the_minimax_of_the_placements(sub_table: EatingTable) -> None:
    # Every set-up position of the corner: Mint and Liquorice place in turn (Mint first) on the
    # corner's free sites until it is full; the full cake is eaten, Mint first, as the solver says.
    universe = SUB_PYRAMID_3

    @functools.cache
    def mint_wins(white: int, black: int) -> bool:
        occupied = white | black
        if occupied == universe:
            return position_value((white, black, 0), MINT, MIXED) > 0
        children = [
            (white | 1 << s, black) if occupied.bit_count() % 2 == 0 else (white, black | 1 << s)
            for s in _placeable(occupied, universe)
        ]
        results = (mint_wins(w, b) for w, b in children)
        return any(results) if occupied.bit_count() % 2 == 0 else all(results)

    layout = sub_table.layout
    checked = won = 0
    for k in range(15):
        level = layout.setup_level(k)
        for occupied in level.shapes:
            for white, _ in _colourings((occupied,), 7):
                if white.bit_count() != (k + 1) // 2:
                    continue
                expected = mint_wins(white, occupied & ~white)
                assert sub_table.mint_wins_setup(white, occupied & ~white) == expected, (k, hex(white), hex(occupied))
                checked += 1
                won += expected
    assert checked == sum(layout.setup_level(k).positions for k in range(15))
    assert 0 < won < checked
    # the full cakes are the eating table's: Mint eats first
    assert sub_table.level_file(14, SETUP).wins == sub_table.level_file(14).wins


def test_setup_check_against_explicit_minimax(sub_table: EatingTable) -> None:
    results = check_setup(sub_table, range(1, 5), 30, random.Random(4), solver_leaf(MIXED))
    assert [r.level for r in results] == [13, 12, 11, 10]
    assert all(not r.mismatches for r in results)
    assert 0 < sum(r.won for r in results) < 120


def test_setup_check_finds_a_wrong_leaf(sub_table: EatingTable) -> None:
    def wrong(white: int, black: int) -> bool:
        return position_value((white, black, 0), MINT, MIXED) < 0  # every full cake the other way

    [result] = check_setup(sub_table, [1], 30, random.Random(5), wrong)
    assert len(result.mismatches) == 30  # one free site: the value is the leaf's, flipped


def test_setup_reader_refuses_wrong_counts(sub_table: EatingTable) -> None:
    with pytest.raises(ValueError, match="2 mint and 1 liquorice"):
        sub_table.mint_wins_setup(0b1, 0b110)
    with pytest.raises(ValueError, match="not a stable shape"):
        sub_table.mint_wins_setup(1 << 16, 0)  # 1a1 with nothing under it


# -- symmetry, checkpoints and resume --------------------------------------------------------


def _bits(directory: Path, n: int) -> bytes:
    return read_level(directory, n).bits


def test_symmetry_changes_nothing_but_the_work(sub_table: EatingTable, tmp_path: Path, program: Path) -> None:
    plain, lines = _build(SUB, tmp_path, program, symmetry=False)
    for n in range(15):
        assert _bits(plain, n) == _bits(sub_table.directory, n)
        assert read_level(plain, n, SETUP).bits == read_level(sub_table.directory, n, SETUP).bits
    searched = [
        int(line.split(" searched")[0].split()[-1]) for line in lines if line.startswith("level") and " done " in line
    ]
    _, sym_lines = _build(SUB, tmp_path / "again", program)
    sym_searched = [
        int(line.split(" searched")[0].split()[-1])
        for line in sym_lines
        if line.startswith("level") and " done " in line
    ]
    assert sum(sym_searched) * 3 < sum(searched)  # reflection x colour swap: close to 4 times fewer


def test_resume_continues_from_the_finished_levels(sub_table: EatingTable, tmp_path: Path, program: Path) -> None:
    directory, lines = _build(SUB, tmp_path, program, upto=6)
    assert sorted(p.name for p in directory.glob("level-*.bin")) == [f"level-{n:02d}.bin" for n in range(7)]
    before = level_path(directory, 3).stat().st_mtime_ns
    _, lines = _build(SUB, tmp_path, program)
    assert "resuming: levels 0..6" in "\n".join(lines)
    assert level_path(directory, 3).stat().st_mtime_ns == before  # not recomputed
    for n in range(15):
        assert _bits(directory, n) == _bits(sub_table.directory, n)


def test_setup_resumes_from_its_finished_levels(sub_table: EatingTable, tmp_path: Path, program: Path) -> None:
    directory, _ = _build(SUB, tmp_path, program)
    for k in range(4):
        level_path(directory, k, SETUP).unlink()
    kept = level_path(directory, 9, SETUP).stat().st_mtime_ns
    _, lines = _build(SUB, tmp_path, program)
    text = "\n".join(lines)
    assert "resuming: levels 0..14" in text and "setup: levels 4..14 are in" in text
    assert "setup  3  done" in text and "setup  4  done" not in text
    assert level_path(directory, 9, SETUP).stat().st_mtime_ns == kept
    for k in range(15):
        assert read_level(directory, k, SETUP).bits == read_level(sub_table.directory, k, SETUP).bits
    assert "from the empty table Liquorice wins" in text  # the corner's set-up game
    assert sub_table.mint_wins_setup(0, 0) is False


def test_a_damaged_level_is_computed_again(sub_table: EatingTable, tmp_path: Path, program: Path) -> None:
    directory, _ = _build(SUB, tmp_path, program, upto=9)
    path = level_path(directory, 7)
    data = bytearray(path.read_bytes())
    data[HEADER.size + 5] ^= 0x10  # flip one value
    path.write_bytes(bytes(data))
    level_path(directory, 9).unlink()
    _, lines = _build(SUB, tmp_path, program)
    text = "\n".join(lines)
    assert "level  7" in text and "damaged" in text
    assert "resuming: levels 0..6" in text
    for n in range(15):
        assert _bits(directory, n) == _bits(sub_table.directory, n)


def test_levels_of_other_tables_are_not_reused(cache: Path, tmp_path: Path, program: Path) -> None:
    source = cache / SUB.name
    other = TableSpec(universe=SUB_PYRAMID_3, cap=6)
    target = tmp_path / other.name
    shutil.copytree(source, target)
    (target / "tables.txt").unlink()
    _, lines = _build(other, tmp_path, program, upto=4)
    assert not any("resuming" in line for line in lines)
    table = EatingTable(target, other)
    assert table.level_file(4).config_hash == config_hash(other.tables_text())
    assert config_hash(other.tables_text()) != config_hash(SUB.tables_text())


# -- reading: bad input ----------------------------------------------------------------------


def test_reader_refuses_positions_outside_the_table(sub_table: EatingTable) -> None:
    with pytest.raises(ValueError, match="outside"):
        sub_table.wins(1 << 3, 0)  # 0d1 is not in the corner sub-pyramid
    with pytest.raises(ValueError, match="more than 7"):
        sub_table.wins(0x777, 0)  # nine whites: the corner's level 0


def test_reader_refuses_truncated_and_foreign_files(sub_table: EatingTable, tmp_path: Path) -> None:
    path = level_path(tmp_path, 5)
    data = level_path(sub_table.directory, 5).read_bytes()
    path.write_bytes(data[:-8])
    with pytest.raises(LevelFileError, match="bytes of bits"):
        read_level(tmp_path, 5)
    path.write_bytes(data)
    with pytest.raises(LevelFileError, match=r"level-06\.bin: No such file"):
        read_level(tmp_path, 6)  # missing
    path.rename(level_path(tmp_path, 6))
    with pytest.raises(LevelFileError, match="not a level-6"):
        read_level(tmp_path, 6)
    foreign = EatingTable(sub_table.directory, TableSpec(universe=SUB_PYRAMID_3, cap=7, line_rule=SAME))
    with pytest.raises(LevelFileError, match="other tables"):
        foreign.level_file(5)


# -- the command -----------------------------------------------------------------------------


def test_cli_status_and_verify(tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(program.parent, tmp_path / "bin")  # the compiled builder, found by its key
    assert main(["tablebase", "status", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0 of 31 levels finished" in out and "level 30  not built" in out
    assert main(["tablebase", "verify", "--cache", str(tmp_path)]) == 1
    assert "no finished level" in capsys.readouterr().err
    assert main(["tablebase", "build", "--variant", "sugar", "--cache", str(tmp_path)]) == 1
    assert "only mint and poisoned have a table, not sugar" in capsys.readouterr().err
    assert main(["tablebase", "build", "--upto", "5", "--cache", str(tmp_path)]) == 0
    assert "level  5  done" in capsys.readouterr().out
    assert main(["tablebase", "verify", "--levels", "0-5", "--per-level", "50", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "level  5      50 checked" in out and "agree with the search solver" in out
    assert main(["tablebase", "verify", "--levels", "x", "--cache", str(tmp_path)]) == 1
    assert "--levels wants" in capsys.readouterr().err
    assert main(["tablebase", "verify", "--setup", "1-4", "--cache", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "set-up table of" in err and "not finished for 1 free sites" in err
    assert main(["tablebase", "verify", "--setup", "1-x", "--cache", str(tmp_path)]) == 1
    assert "--setup wants" in capsys.readouterr().err


def test_cli_verify_reports_a_wrong_table(tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(program.parent, tmp_path / "bin")
    assert main(["tablebase", "build", "--upto", "3", "--cache", str(tmp_path)]) == 0
    directory = tmp_path / TableSpec().name
    path = level_path(directory, 2)
    data = bytearray(path.read_bytes())
    for i in range(HEADER.size, len(data)):
        data[i] = 0  # every two-candy position "lost": wrong, all are won
    path.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["tablebase", "verify", "--levels", "2", "--per-level", "1000", "--cache", str(tmp_path)]) == 1
    assert "disagrees with the solver on 480 positions" in capsys.readouterr().err
    # The step check needs no solver: it sees level 2 is wrong, and level 3 (computed from the
    # right level 2) no longer follows from the damaged one.
    step = ["tablebase", "verify", "--against", "step", "--cache", str(tmp_path)]
    assert main([*step, "--levels", "2", "--per-level", "1000"]) == 1
    assert "disagrees with its level below on 480 positions" in capsys.readouterr().err
    assert main([*step, "--levels", "3"]) == 1
    assert "disagrees with its level below" in capsys.readouterr().err
    assert main([*step, "--levels", "0-1"]) == 0
    assert "agree with one move into the level below" in capsys.readouterr().out


def test_cli_verify_journal_resumes_a_stopped_run(
    tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(program.parent, tmp_path / "bin")
    assert main(["tablebase", "build", "--upto", "5", "--cache", str(tmp_path)]) == 0
    journal = tmp_path / "runs" / "verify.jsonl"
    verify = ["tablebase", "verify", "--levels", "4-5", "--per-level", "30", "--cache", str(tmp_path)]
    assert main([*verify, "--journal", str(journal)]) == 0
    header, *entries = journal.read_text().splitlines()
    assert len(entries) == 60 and json.loads(header)["levels"] == [4, 5]
    # Stop the run "mid-way" (a line cut short), and forge one kept outcome: a resumed run must
    # take the kept outcomes as they are and check only the positions after the cut.
    forged = json.loads(entries[3])
    forged["got"] = not forged["expected"]
    journal.write_text("\n".join([header, *entries[:3], json.dumps(forged), *entries[4:40], entries[40][:9]]) + "\n")
    capsys.readouterr()
    assert main([*verify, "--journal", str(journal)]) == 1
    assert "disagrees with the solver on 1 positions" in capsys.readouterr().err
    resumed = [json.loads(line) for line in journal.read_text().splitlines()[1:] if line.endswith("}")]
    assert [(e["level"], e["index"]) for e in resumed] == [(e["level"], e["index"]) for e in map(json.loads, entries)]
    lines = journal.read_text().count("\n")
    assert main([*verify, "--journal", str(journal)]) == 1  # past the cut line too: nothing checked again
    assert "on 1 positions" in capsys.readouterr().err and journal.read_text().count("\n") == lines
    # Another run's options would draw other positions: its journal is refused, not mixed in.
    assert main([*verify, "--seed", "2", "--journal", str(journal)]) == 1
    assert "journal of another run" in capsys.readouterr().err
    # Two processes check the same positions with the same outcomes.
    pooled = tmp_path / "pooled.jsonl"
    assert main([*verify, "--workers", "2", "--journal", str(pooled)]) == 0
    assert pooled.read_text().splitlines()[1:] == entries
    assert main([*verify, "--against", "step", "--workers", "2"]) == 1
    assert "--workers is for --against search" in capsys.readouterr().err


def test_position_value_is_the_solvers() -> None:
    # guard: the oracle itself distinguishes the outcomes the tests rely on
    assert position_value((1, 0, 0), MINT, MIXED) == -1
    assert position_value((1, 2, 0), MINT, MIXED) == 1
