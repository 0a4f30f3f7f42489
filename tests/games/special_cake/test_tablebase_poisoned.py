"""The poisoned eating table (the cherry on the pyramid), built on the 3x3 corner sub-pyramid.

Eating never leaves the corner sub-pyramid, so its poisoned positions (13 candies and the
cherry, at most 7 of a colour) are real poisoned positions: the table must give the search
solver's value for every one of them. Levels count the candies besides the cherry.
"""

from __future__ import annotations

import functools
import math
import random
import shutil
from pathlib import Path

import pytest

import spheria
from spheria.cli.main import main
from spheria.engine.board import ABOVE, ALL_SITES, BELOW, NUM_SITES, SITE_COORDS
from spheria.games.special_cake.eating_table import EatingTableProbe
from spheria.games.special_cake.rules import MINT, MIXED, POISONED, SAME, CakeState, eating_outcomes
from spheria.games.special_cake.solver.setup_table import stable_shapes
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.games.special_cake.tablebase.build import (
    BuildError,
    TableSpec,
    compile_builder,
    count_reachable,
    merge_level,
    run_builder,
    run_chunk,
)
from spheria.games.special_cake.tablebase.layout import (
    EATING,
    HEADER,
    LEVEL_FILE_VERSION,
    SETUP,
    SUB_PYRAMID_3,
    TIMED_LEVEL_FILE_VERSION,
    TIMES_FILE,
    PoisonedLayout,
    build_times,
    level_path,
    read_level,
    uncovered,
)
from spheria.games.special_cake.tablebase.verify import (
    EatingTable,
    PoisonedEatingTable,
    check_setup,
    poisoned_search_value,
    poisoned_solver_leaf,
)

SUB = TableSpec(universe=SUB_PYRAMID_3, cap=7, variant=POISONED)

# The full poisoned table's positions per level (candies besides the cherry), docs/tablebase.md.
FULL_POSITIONS = [16, 480, 6720, 58240, 349584, 1544448, 5239168, 14195712, 32156416, 64131072]
FULL_POSITIONS += [117823488, 204570624, 338808832, 537296896, 816316416, 1186594816, 1648573304]
FULL_POSITIONS += [2183583904, 2751518000, 3288398400, 3713683456, 3960238400, 3958295232, 3742789632]
FULL_POSITIONS += [3316513612, 2792115360, 1987406080, 1198149120, 460003680, 155117520]


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
def sub_table(cache: Path, program: Path) -> PoisonedEatingTable:
    directory, _ = _build(SUB, cache, program)
    return PoisonedEatingTable(directory, SUB)


# -- layout ----------------------------------------------------------------------------------


def test_full_poisoned_layout_counts() -> None:
    layout = PoisonedLayout()
    # the cherry is on a ball with nothing on it: the full cake's only such ball is the top
    assert layout.level(29).pairs == ((ALL_SITES, 29),)
    assert [layout.level(n).positions for n in range(30)] == FULL_POSITIONS
    assert sum(FULL_POSITIONS) == 38_475_478_628


def test_pairs_are_every_shape_with_the_cherry_on_an_uncovered_ball() -> None:
    layout = PoisonedLayout(SUB_PYRAMID_3, 7)
    for n in range(14):
        expected = sorted(
            (occ, s)
            for occ in stable_shapes(SUB_PYRAMID_3)
            if occ.bit_count() == n + 1
            for s in range(NUM_SITES)
            if occ >> s & 1 and not ABOVE[s] & occ
        )
        assert list(layout.level(n).pairs) == expected
        assert layout.level(n).per_shape == sum(math.comb(n, w) for w in range(n + 1) if max(w, n - w) <= 7)


def test_poisoned_indices_number_each_level_without_gaps(sub_table: PoisonedEatingTable) -> None:
    for n in (0, 4, 9, 13):
        level = sub_table.layout.level(n)
        indices = [level.index(w | b | r, r.bit_length() - 1, w) for w, b, r in sub_table.positions(n)]
        assert indices == list(range(level.positions))


def test_index_refuses_a_covered_cherry() -> None:
    level = PoisonedLayout(SUB_PYRAMID_3, 7).level(4)
    occ = 0b11 | 0b11 << 4 | 1 << 16  # 0a1 0b1 0a2 0b2 and 1a1 on them
    assert uncovered(occ) == 1 << 16
    with pytest.raises(ValueError, match="nothing on it"):
        level.index(occ, 0, 0)


def test_no_eating_move_puts_a_ball_on_the_cherry() -> None:
    # the invariant the layout rests on, checked on the engine's own moves from random positions
    rng = random.Random(4)
    layout = PoisonedLayout()
    for n in (3, 8, 15, 22, 29):
        for _ in range(30):
            occ, cherry = rng.choice(layout.level(n).pairs)
            rest = occ & ~(1 << cherry)
            white = rest & rng.getrandbits(30)
            for w, b, r in eating_outcomes((white, rest & ~white, 1 << cherry), POISONED, MIXED):
                assert r & uncovered(w | b | r) == r


# -- values against the search solver --------------------------------------------------------


def test_small_levels_agree_with_the_solver_everywhere(sub_table: PoisonedEatingTable) -> None:
    checked = 0
    for n in range(7):
        for w, b, r in sub_table.positions(n):
            assert sub_table.wins(w, b, r) == (poisoned_search_value(MIXED, w, b, r) > 0), (n, w, b, r)
            checked += 1
    assert checked == sum(sub_table.layout.level(n).positions for n in range(7)) == 56_553
    # the cherry alone is lost; one candy beside it is won (eat it); level 2 holds both
    assert read_level(sub_table.directory, 0).wins == 0
    assert read_level(sub_table.directory, 1).wins == sub_table.layout.level(1).positions
    assert 0 < read_level(sub_table.directory, 2).wins < sub_table.layout.level(2).positions


def test_large_levels_agree_with_the_solver_on_random_positions(sub_table: PoisonedEatingTable) -> None:
    rng = random.Random(1)
    for n in range(7, 14):
        won = 0
        for _ in range(120):
            w, b, r = sub_table.random_position(n, rng)
            got = sub_table.wins(w, b, r)
            assert got == (poisoned_search_value(MIXED, w, b, r) > 0), (n, w, b, r)
            won += got
        assert 0 < won < 120


def test_same_lines_build_their_own_poisoned_table(cache: Path, program: Path) -> None:
    spec = TableSpec(universe=SUB_PYRAMID_3, cap=7, line_rule=SAME, variant=POISONED)
    directory, _ = _build(spec, cache, program, upto=8)
    table = PoisonedEatingTable(directory, spec)
    rng = random.Random(2)
    for n in range(9):
        for _ in range(60):
            w, b, r = table.random_position(n, rng)
            assert table.wins(w, b, r) == (poisoned_search_value(SAME, w, b, r) > 0), (n, w, b, r)


def test_symmetry_changes_nothing_but_the_work(sub_table: PoisonedEatingTable, tmp_path: Path, program: Path) -> None:
    directory, lines = _build(SUB, tmp_path, program, symmetry=False)
    for n in range(14):
        assert read_level(directory, n).bits == read_level(sub_table.directory, n).bits, n
    done = [line for line in lines if line.startswith("level") and " done " in line]
    searched = [int(line.split(" searched")[0].split()[-1]) for line in done]
    assert sum(searched) == sum(PoisonedLayout(SUB_PYRAMID_3, 7).level(n).positions for n in range(1, 14)) + 1


def test_mint_tables_are_unchanged_by_the_cherry() -> None:
    # mint's finished levels carry the hash of its tables text: the poisoned line must not enter it
    assert "cherry" not in TableSpec().tables_text()
    assert "cherry 1" in SUB.tables_text()
    assert TableSpec(variant=POISONED).name == "poisoned-mixed"
    with pytest.raises(ValueError, match="unknown variant"):
        TableSpec(variant="sugar").tables_text()


def test_reader_refuses_a_mint_spec_and_positions_outside(sub_table: PoisonedEatingTable) -> None:
    with pytest.raises(ValueError, match="not a poisoned table"):
        PoisonedEatingTable(sub_table.directory, TableSpec(universe=SUB_PYRAMID_3, cap=7))
    with pytest.raises(ValueError, match="outside"):
        sub_table.wins(0b1, 0b10, 0)  # no cherry
    with pytest.raises(ValueError, match="outside"):
        sub_table.wins(0b1, 0b10, 1 << 3)  # 0d1 is not in the corner


# -- the set-up table: 13 placements on the corner, then the cherry on its top ---------------


@functools.cache
def _setup_minimax(white: int, black: int, line_rule: str) -> bool:
    """Whether Mint wins, by explicit minimax over the placements left and the search solver at the end."""
    occupied = white | black
    if occupied.bit_count() == SUB_PYRAMID_3.bit_count() - 1:
        cherry = SUB_PYRAMID_3 & ~occupied  # the one site left: the corner's top
        return poisoned_search_value(line_rule, white, black, cherry) > 0  # Mint eats first
    sites = [s for s in range(NUM_SITES) if SUB_PYRAMID_3 >> s & 1 and not occupied >> s & 1]
    sites = [s for s in sites if occupied & BELOW[s] == BELOW[s]]
    if occupied.bit_count() % 2 == 0:
        return any(_setup_minimax(white | 1 << s, black, line_rule) for s in sites)
    return all(_setup_minimax(white, black | 1 << s, line_rule) for s in sites)


def test_setup_table_agrees_with_explicit_minimax(sub_table: PoisonedEatingTable) -> None:
    rng = random.Random(3)
    won = checked = 0
    for k in range(9, 14):  # 4 .. 0 placements left before the cherry
        level = sub_table.layout.setup_level(k)
        for _ in range(40):
            occ = rng.choice(level.shapes)
            white = sum(1 << s for s in rng.sample([s for s in range(NUM_SITES) if occ >> s & 1], (k + 1) // 2))
            got = sub_table.mint_wins_setup(white, occ & ~white)
            assert got == _setup_minimax(white, occ & ~white, MIXED), (k, white, occ)
            won += got
            checked += 1
    assert 0 < won < checked
    # the empty corner: its value is the minimax of the whole corner game
    assert sub_table.mint_wins_setup(0, 0) == any(
        sub_table.mint_wins_setup(1 << s, 0) for s in range(NUM_SITES) if SUB_PYRAMID_3 >> s & 1 and not BELOW[s]
    )


def test_the_commands_set_up_check_covers_one_to_four_free_sites(sub_table: PoisonedEatingTable) -> None:
    """``verify --variant poisoned --setup 1-4``'s check: minimax over the placements left, the
    cherry on the site left and the search solver at the end; a flipped leaf is caught."""
    leaf = poisoned_solver_leaf(MIXED, SUB_PYRAMID_3)
    results = check_setup(sub_table, range(1, 5), 25, random.Random(44), leaf)
    assert [r.level for r in results] == [12, 11, 10, 9]
    assert all(not r.mismatches for r in results)
    assert 0 < sum(r.won for r in results) < 100
    [flipped] = check_setup(sub_table, [1], 25, random.Random(45), lambda white, black: not leaf(white, black))
    assert len(flipped.mismatches) == 25  # one free site: the value is the leaf's, flipped


def test_setup_top_level_is_the_eating_table_with_the_cherry_on_top(sub_table: PoisonedEatingTable) -> None:
    top = SUB_PYRAMID_3.bit_count() - 1
    cherry = 1 << 25  # 2a1, the corner's top
    level = sub_table.layout.setup_level(top)
    assert level.shapes == (SUB_PYRAMID_3 & ~cherry,)
    for white, black, red in sub_table.positions(top):
        if red == cherry and white.bit_count() == (top + 1) // 2:
            assert sub_table.mint_wins_setup(white, black) == sub_table.wins(white, black, red)


def test_setup_reader_refuses_wrong_counts(sub_table: PoisonedEatingTable) -> None:
    with pytest.raises(ValueError, match="1 mint and 0 liquorice"):
        sub_table.mint_wins_setup(0, 1)
    with pytest.raises(ValueError, match="outside"):
        sub_table.mint_wins_setup(0, 1 << 3)


# -- the command -----------------------------------------------------------------------------


def test_cli_builds_lists_and_verifies_poisoned(
    tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(program.parent, tmp_path / "bin")  # the compiled builder, found by its key
    cache = ["--variant", "poisoned", "--cache", str(tmp_path)]
    assert main(["tablebase", "status", *cache]) == 0
    out = capsys.readouterr().out
    assert "0 of 30 levels finished" in out and "level 29  not built" in out
    assert main(["tablebase", "build", "--upto", "6", *cache]) == 0
    assert "level  6  done  81862 shapes  5239168 positions" in capsys.readouterr().out
    assert main(["tablebase", "status", *cache]) == 0
    out = capsys.readouterr().out
    assert "level  0              16 positions               0 won" in out and "7 of 30 levels finished" in out
    assert main(["tablebase", "verify", "--levels", "0-6", "--per-level", "60", *cache]) == 0
    out = capsys.readouterr().out
    assert "level  6      60 checked" in out and "all 376 positions agree with the search solver" in out
    assert main(["tablebase", "verify", "--against", "step", *cache]) == 1
    assert "--against step checks mint tables" in capsys.readouterr().err
    assert main(["tablebase", "status", "--reachable", *cache]) == 1  # needs the set-up table
    assert "the set-up table of" in capsys.readouterr().err
    # a damaged level: every two-candy position "won" (some are lost)
    path = level_path(tmp_path / TableSpec(variant=POISONED).name, 2)
    data = bytearray(path.read_bytes())
    for i in range(HEADER.size, len(data)):
        data[i] = 0xFF
    path.write_bytes(bytes(data))
    assert main(["tablebase", "verify", "--levels", "2", "--per-level", "10000", *cache]) == 1
    assert "disagrees with the solver on 6048 positions" in capsys.readouterr().err


def _report(out: str) -> list[str]:
    """A verify run's report without its timing line (the only line two runs may differ in)."""
    return [line for line in out.splitlines() if " checked (" not in line or "earlier run" not in line]


def test_a_killed_poisoned_verify_resumes_to_the_same_report(
    tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(program.parent, tmp_path / "bin")
    cache = ["--variant", "poisoned", "--cache", str(tmp_path)]
    assert main(["tablebase", "build", "--upto", "6", *cache]) == 0
    # A damaged level, so that the report has disagreements to list.
    path = level_path(tmp_path / TableSpec(variant=POISONED).name, 5)
    data = bytearray(path.read_bytes())
    for i in range(HEADER.size, len(data), 7):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    verify = ["tablebase", "verify", "--levels", "3-6", "--per-level", "40", "--seed", "5", *cache]
    whole = tmp_path / "whole.jsonl"
    capsys.readouterr()
    assert main([*verify, "--journal", str(whole)]) == 1
    captured = capsys.readouterr()
    expected = _report(captured.out)
    mismatches = [line for line in expected if "the table says" in line]
    assert len(mismatches) > 0 and all(
        line.startswith("level  5  white 0x") and "cherry 0x" in line for line in mismatches
    )
    assert f"disagrees with the solver on {len(mismatches)} positions" in captured.err
    assert "160 positions checked (0 of them by an earlier run of this journal)" in captured.out

    # The same run killed after 70 positions (the test's hook: the 71st solve is interrupted) ...
    real = poisoned_search_value
    calls = 0

    def killed_after_70(*args: object) -> int:
        nonlocal calls
        calls += 1
        if calls > 70:
            raise KeyboardInterrupt
        return real(*args)  # type: ignore[arg-type]

    stopped = tmp_path / "stopped.jsonl"
    monkeypatch.setattr("spheria.games.special_cake.tablebase.verify.poisoned_search_value", killed_after_70)
    assert main([*verify, "--journal", str(stopped)]) == 130
    capsys.readouterr()
    assert len(stopped.read_text().splitlines()) == 1 + 70
    # ... and run again with the same arguments: it checks only the 90 left and ends as the whole run.
    monkeypatch.setattr("spheria.games.special_cake.tablebase.verify.poisoned_search_value", real)
    assert main([*verify, "--journal", str(stopped)]) == 1
    captured = capsys.readouterr()
    assert _report(captured.out) == expected
    assert "160 positions checked (70 of them by an earlier run of this journal)" in captured.out
    assert stopped.read_text().splitlines() == whole.read_text().splitlines()
    # Another seed would draw other positions: that journal is refused.
    assert main([*verify, "--seed", "6", "--journal", str(stopped)]) == 1
    assert "journal of another run" in capsys.readouterr().err


# -- chunks: a level computed in parts, anywhere, merged to the same bits ---------------------


def _chunk_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".chunk-" in p.name)


@pytest.mark.parametrize("variant", [MINT, POISONED])
def test_a_chunked_build_gives_the_same_files(
    variant: str, sub_table: PoisonedEatingTable, cache: Path, tmp_path: Path, program: Path
) -> None:
    spec = TableSpec(universe=SUB_PYRAMID_3, cap=7, variant=variant)
    whole, _ = _build(spec, cache, program)  # the poisoned one is sub_table's
    chunked, lines = _build(spec, tmp_path, program, chunks=3)
    assert sum("chunk 2 of 3  done" in line for line in lines) == spec.universe.bit_count() - spec.cherry
    top = spec.universe.bit_count() - spec.cherry
    for kind in (EATING, SETUP):
        for n in range(top + 1):  # the same bytes, header included: no file records how it was made
            assert level_path(chunked, n, kind).read_bytes() == level_path(whole, n, kind).read_bytes(), (kind, n)
    assert _chunk_files(chunked) == []  # merged and removed


def test_level_files_keep_no_time_and_the_times_go_beside_them(
    sub_table: PoisonedEatingTable, tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = sub_table.directory
    top = SUB.universe.bit_count() - 1
    for kind in (EATING, SETUP):
        for n in range(top + 1):
            fields = HEADER.unpack(level_path(directory, n, kind).read_bytes()[: HEADER.size])
            assert fields[1] == LEVEL_FILE_VERSION and fields[-1] == 0, (kind, n)
            assert read_level(directory, n, kind).seconds is None
    times = build_times(directory)
    assert sorted(times) == sorted((kind, n) for kind in (EATING, SETUP) for n in range(top + 1))
    assert all(seconds >= 0 for seconds in times.values())
    # One build's files, built again with other threads: the same bytes, and a line more per level.
    again, _ = _build(SUB, tmp_path, program, threads=1)
    for n in range(top + 1):
        assert level_path(again, n).read_bytes() == level_path(directory, n).read_bytes(), n
    assert len((again / TIMES_FILE).read_text().splitlines()) == 2 * (top + 1)


def _as_version_1(path: Path, seconds: float) -> None:
    """Rewrite a level file's header as the builder wrote it before version 2: the time inside."""
    data = bytearray(path.read_bytes())
    fields = list(HEADER.unpack(data[: HEADER.size]))
    fields[1], fields[-1] = TIMED_LEVEL_FILE_VERSION, round(seconds * 1000)
    data[: HEADER.size] = HEADER.pack(*fields)
    path.write_bytes(bytes(data))


def test_version_1_level_files_are_still_read(
    sub_table: PoisonedEatingTable, tmp_path: Path, program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(program.parent, tmp_path / "bin")
    spec = TableSpec(variant=POISONED)
    directory, _ = _build(spec, tmp_path, program, upto=6)
    (directory / TIMES_FILE).unlink()  # as a build of version 1 left it: no times beside the levels
    for n in range(7):
        _as_version_1(level_path(directory, n), 12.5 + n)
    kept = {n: level_path(directory, n).read_bytes() for n in range(7)}
    table = PoisonedEatingTable(directory, spec)
    assert all(table.has_level(n) for n in range(7)) and table.header(3).seconds == 15.5
    probe = EatingTableProbe(directory, cherry=True)
    rng = random.Random(8)
    for n in range(7):
        for _ in range(20):
            w, b, r = table.random_position(n, rng)
            assert probe.wins(w, b, r) == table.wins(w, b, r) == (poisoned_search_value(MIXED, w, b, r) > 0)
    probe.close()
    cache = ["--variant", "poisoned", "--cache", str(tmp_path)]
    capsys.readouterr()
    assert main(["tablebase", "status", *cache]) == 0
    out = capsys.readouterr().out
    assert "7 of 30 levels finished" in out and "level  3          58,240 positions" in out and "15.5 s" in out
    # The builder resumes after them (nothing computed again) and writes the next level in version 2.
    _, lines = _build(spec, tmp_path, program, upto=7)
    assert "resuming: levels 0..6" in "\n".join(lines)
    assert {n: level_path(directory, n).read_bytes() for n in range(7)} == kept
    assert read_level(directory, 7).seconds is None and build_times(directory)[EATING, 7] >= 0
    # A version the reader does not know is refused, not guessed at: the builder computes it again.
    data = bytearray(kept[6])
    data[8:12] = (3).to_bytes(4, "little")
    level_path(directory, 6).write_bytes(bytes(data))
    assert not PoisonedEatingTable(directory, spec).has_level(6)
    assert EatingTableProbe(directory, cherry=True).wins(*table.random_position(6, rng)) is None
    level_path(directory, 7).unlink()
    _, lines = _build(spec, tmp_path, program, upto=7)
    assert "resuming: levels 0..5" in "\n".join(lines)
    assert read_level(directory, 6).bits == kept[6][HEADER.size :]


def test_chunks_computed_apart_merge_to_the_level(
    sub_table: PoisonedEatingTable, tmp_path: Path, program: Path
) -> None:
    directory, _ = _build(SUB, tmp_path, program, upto=7)
    (directory / "level-08.bin").unlink(missing_ok=True)
    for chunk in (3, 0, 2, 1):  # any order, as workers finish
        run_chunk(SUB, tmp_path, 8, chunk, 4, threads=1, output=lambda line: None, program=program)
    assert len(_chunk_files(directory)) == 4
    lines: list[str] = []
    run_chunk(SUB, tmp_path, 8, 2, 4, output=lines.append, program=program)
    assert lines == [f"level  8  chunk 2 of 4 is in {directory}"]  # a finished chunk is kept
    merge_level(SUB, tmp_path, 8, 4, output=lambda line: None, program=program)
    assert read_level(directory, 8).bits == read_level(sub_table.directory, 8).bits
    assert _chunk_files(directory) == []


def test_a_chunk_needs_the_levels_below_and_a_merge_every_chunk(tmp_path: Path, program: Path) -> None:
    _build(SUB, tmp_path, program, upto=3)
    with pytest.raises(BuildError):
        run_chunk(SUB, tmp_path, 6, 0, 2, output=lambda line: None, program=program)  # level 5 is missing
    run_chunk(SUB, tmp_path, 4, 0, 2, output=lambda line: None, program=program)
    with pytest.raises(BuildError):
        merge_level(SUB, tmp_path, 4, 2, output=lambda line: None, program=program)  # chunk 1 is missing


def test_a_chunked_build_resumes_from_its_chunks(sub_table: PoisonedEatingTable, tmp_path: Path, program: Path) -> None:
    directory, _ = _build(SUB, tmp_path, program, upto=8)
    for chunk in (0, 1):  # a build stopped during level 9, two chunks of three done
        run_chunk(SUB, tmp_path, 9, chunk, 3, threads=1, output=lambda line: None, program=program)
    damaged = directory / "level-09.chunk-001-of-003.bin"
    data = bytearray(damaged.read_bytes())
    data[-1] ^= 0x10
    damaged.write_bytes(bytes(data))
    _, lines = _build(SUB, tmp_path, program, upto=9, chunks=3)
    assert f"level  9  chunk 0 of 3 is in {directory}" in lines
    assert any(line.startswith("level  9  chunk 1 of 3  done") for line in lines)  # damaged: computed again
    assert read_level(directory, 9).bits == read_level(sub_table.directory, 9).bits


# -- the cakes a set-up can finish -----------------------------------------------------------


def _reachable_by_search(universe: int, placements: int) -> list[set[tuple[int, int]]]:
    """Every set-up position an alternating order of placements reaches, level by level (forward search)."""
    levels = [{(0, 0)}]
    for k in range(placements):
        mint_places = k % 2 == 0
        step = set()
        for white, black in levels[-1]:
            occupied = white | black
            for s in range(NUM_SITES):
                bit = 1 << s
                if universe & bit and not occupied & bit and occupied & BELOW[s] == BELOW[s]:
                    step.add((white | bit, black) if mint_places else (white, black | bit))
        levels.append(step)
    return levels


@pytest.mark.parametrize("variant", [MINT, POISONED])
def test_reachable_cakes_are_counted_as_a_forward_search_finds_them(
    variant: str, sub_table: PoisonedEatingTable, cache: Path, program: Path
) -> None:
    spec = TableSpec(universe=SUB_PYRAMID_3, cap=7, variant=variant)
    directory, _ = _build(spec, cache, program)
    lines: list[str] = []
    count_reachable(spec, cache, output=lines.append, program=program)
    top = SUB_PYRAMID_3.bit_count() - spec.cherry
    levels = _reachable_by_search(SUB_PYRAMID_3, top)
    table = sub_table if spec.cherry else EatingTable(directory, spec)
    for k in range(1, top + 1):
        positions = table.layout.setup_level(k).positions
        assert f"reachable {k:2d}  {len(levels[k])} of {positions} set-up positions" in lines
    won = sum(table.mint_wins_setup(white, black) for white, black in levels[top])
    cakes = table.layout.setup_level(top).positions
    assert lines[-1] == (
        f"reachable: {len(levels[top])} of {cakes} full cakes have an alternating order of placements, "
        f"{won} of them won by Mint"
    )
    assert 0 < len(levels[top]) < cakes  # some colourings have no alternating order


# -- the solver agent eats poisoned from the table --------------------------------------------


def test_probe_reads_the_poisoned_table_as_the_reader_does(sub_table: PoisonedEatingTable) -> None:
    probe = EatingTableProbe(sub_table.directory, SUB_PYRAMID_3, 7, cherry=True)
    rng = random.Random(6)
    for n in range(14):
        for _ in range(60):
            w, b, r = sub_table.random_position(n, rng)
            assert probe.wins(w, b, r) == sub_table.wins(w, b, r), (n, w, b, r)
    assert probe.available()
    assert probe.wins(0b1, 0b10, 0) is None  # no cherry
    assert probe.wins(0b10, 0, 0b1 | 1 << 16) is None  # two cherries
    covered = 0b11 | 0b11 << 4  # 0a1 0b1 0a2 0b2, and 1a1 on them: the cherry under a ball
    assert probe.wins(1 << 1, 1 << 16 | 1 << 4 | 1 << 5, 1) is None
    assert uncovered(covered | 1 << 16) == 1 << 16
    probe.close()


def _spn(white: int, black: int, red: int, player: int) -> str:
    levels = []
    for level in range(4):
        sites = sorted((row, col, s) for s, (lv, row, col) in enumerate(SITE_COORDS) if lv == level)
        chars = ["w" if white >> s & 1 else "b" if black >> s & 1 else "r" if red >> s & 1 else "." for *_, s in sites]
        levels.append("".join(chars))
    return f"{'/'.join(levels)} {player + 1} eat"


def test_the_agent_eats_poisoned_from_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program: Path) -> None:
    spec = TableSpec(variant=POISONED)
    _build(spec, tmp_path, program, upto=7)
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("the table answers: no search")

    monkeypatch.setattr("spheria.games.special_cake.solver.solve", no_search)
    game = spheria.load_game("special-cake", variant=POISONED)
    table = PoisonedEatingTable(tmp_path / spec.name, spec)
    rng = random.Random(7)
    won = 0
    for n in (3, 5, 7):
        for _ in range(8):
            w, b, r = table.random_position(n, rng)
            state = game.state_from_spn(_spn(w, b, r, 0))
            assert isinstance(state, CakeState)
            agent = SolverAgent(seed=n)
            move = agent.choose(state, 0)
            value = poisoned_search_value(MIXED, w, b, r)
            assert agent.last_value == value
            if value > 0:  # the move leaves a position the search solver says the opponent loses
                child = state.clone()
                child.apply(move)
                assert poisoned_search_value(MIXED, *child.masks()) < 0
                won += 1
    assert won > 0
