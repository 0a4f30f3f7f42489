"""The solver agent's probe of a built mint eating table, and the agent eating from it."""

from __future__ import annotations

import functools
import logging
import os
import random
from pathlib import Path

import pytest

import spheria
from spheria.games.special_cake import eating_table, solver_agent
from spheria.games.special_cake.eating_table import EatingTableProbe
from spheria.games.special_cake.rules import EAT, MINT, MIXED, CakeState, eating_moves
from spheria.games.special_cake.solver_agent import SolverAgent
from spheria.games.special_cake.tablebase import build
from spheria.games.special_cake.tablebase.build import TableSpec
from spheria.games.special_cake.tablebase.layout import (
    EATING,
    HEADER,
    LEVEL_FILE_VERSION,
    MAGIC,
    MINT_CAP,
    TIMED_LEVEL_FILE_VERSION,
    Layout,
    config_hash,
)
from spheria.games.special_cake.tablebase.verify import EatingTable

LEVELS = (0, 1, 2)


@functools.cache
def _mover_wins(white: int, black: int) -> bool:
    """Mint's eating by plain negamax: the empty cake is won (the opponent ate the last candy)."""
    if not white | black:
        return True
    return any(not _mover_wins(child[0], child[1]) for child in eating_moves((white, black, 0), MINT, MIXED).values())


def _write_levels(directory: Path, bit: object) -> None:
    """Level files of the full table's numbering for ``LEVELS``; ``bit(white, black)`` gives each position's bit."""
    layout, spec = Layout(), TableSpec()
    directory.mkdir(parents=True, exist_ok=True)
    for n in LEVELS:
        level = layout.level(n)
        bits = bytearray((level.positions + 63) // 64 * 8)
        for occupied in level.shapes:
            sites = [s for s in range(30) if occupied >> s & 1]
            for pick in range(1 << n):
                white = sum(1 << s for j, s in enumerate(sites) if pick >> j & 1)
                if bit(white, occupied & ~white):  # type: ignore[operator]
                    index = level.index(occupied, white)
                    bits[index >> 3] |= 1 << (index & 7)
        stamp = config_hash(spec.tables_text())
        head = HEADER.pack(MAGIC[EATING], LEVEL_FILE_VERSION, n, len(level.shapes), level.per_shape, stamp, 0, 0, 0)
        (directory / f"level-{n:02d}.bin").write_bytes(head + bytes(bits))


def _positions(n: int) -> list[tuple[int, int]]:
    level = Layout().level(n)
    out = []
    for occupied in level.shapes:
        sites = [s for s in range(30) if occupied >> s & 1]
        for pick in range(1 << n):
            white = sum(1 << s for j, s in enumerate(sites) if pick >> j & 1)
            out.append((white, occupied & ~white))
    return out


def test_header_constants_are_the_tablebases() -> None:
    assert eating_table.HEADER.format == HEADER.format
    restated = (eating_table.LEVEL_MAGIC, eating_table.LEVEL_FILE_VERSIONS, eating_table.MINT_CAP)
    assert restated == (MAGIC[EATING], (LEVEL_FILE_VERSION, TIMED_LEVEL_FILE_VERSION), MINT_CAP)
    assert eating_table.CACHE_VARIABLE == build.CACHE_VARIABLE


def test_the_tests_never_read_the_machines_own_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest points $SPHERIA_TABLEBASE at an empty directory, so a table built on this machine
    cannot change what a test sees (or hide a search's progress); the variable moves the probe."""
    assert not eating_table.shared_probe().available()
    assert eating_table.default_directory().parent == Path(os.environ["SPHERIA_TABLEBASE"])
    monkeypatch.setenv("SPHERIA_TABLEBASE", str(tmp_path))
    assert eating_table.default_directory() == tmp_path / "mint-mixed"


def test_probe_reads_every_bit_where_the_tablebase_reader_does(tmp_path: Path) -> None:
    rng = random.Random(4)
    chosen: dict[tuple[int, int], bool] = {}

    def coin(white: int, black: int) -> bool:
        return chosen.setdefault((white, black), rng.random() < 0.5)

    _write_levels(tmp_path, coin)
    probe, reference = EatingTableProbe(tmp_path), EatingTable(tmp_path, TableSpec())
    for n in LEVELS:
        for white, black in _positions(n):
            assert probe.wins(white, black) is reference.wins(white, black) is chosen[white, black]
    assert len({value for value in chosen.values()}) == 2


def test_probe_says_nothing_without_a_usable_level(tmp_path: Path) -> None:
    assert EatingTableProbe(tmp_path / "nothing").wins(1, 2) is None
    assert not EatingTableProbe(tmp_path / "nothing").available()
    _write_levels(tmp_path, lambda white, black: True)
    probe = EatingTableProbe(tmp_path)
    assert probe.wins(1, 2) is True
    assert probe.wins(1 | 2, 4) is None  # level 3 was not built
    assert probe.wins(1 << 20, 0) is None  # a ball on level 1 over nothing: no stable shape
    assert probe.wins(1, 1) is None  # a site of both colours
    broken = tmp_path / "broken"
    broken.mkdir()
    data = (tmp_path / "level-02.bin").read_bytes()
    (broken / "level-02.bin").write_bytes(data[:-8])  # truncated
    (broken / "level-01.bin").write_bytes(b"SPHTBSET" + (tmp_path / "level-01.bin").read_bytes()[8:])  # set-up magic
    assert EatingTableProbe(broken).wins(1, 2) is None
    assert EatingTableProbe(broken).wins(1, 0) is None


def _eating_state(spn: str) -> CakeState:
    state = spheria.load_game("special-cake", variant="mint").state_from_spn(spn)
    assert isinstance(state, CakeState) and state.phase == EAT
    return state


def test_the_agent_eats_from_the_table_without_searching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_levels(tmp_path, _mover_wins)
    monkeypatch.setattr(solver_agent, "shared_probe", lambda variant: EatingTableProbe(tmp_path))

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("the table answers: no search")

    monkeypatch.setattr("spheria.games.special_cake.solver.solve", no_search)
    # A mint and a liquorice side by side: eating the pair eats the last candy (a loss), either single wins.
    pair = _eating_state("wb............../........./..../. 1 eat")
    for seed in range(6):
        agent = SolverAgent(seed=seed)
        move = agent.choose(pair, 0)
        assert (len(move.sites), agent.last_value) == (1, 1)
        assert move in pair.legal_moves()
    alone = _eating_state("w.............../........./..../. 2 eat")
    agent = SolverAgent(seed=1)
    assert (str(agent.choose(alone, 1)), agent.last_value) == ("0a1", -1)


def test_without_the_table_the_agent_searches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_levels(tmp_path, lambda white, black: False)  # a wrong table: the agent must not read it
    monkeypatch.setattr(solver_agent, "shared_probe", lambda variant: EatingTableProbe(tmp_path))
    pair = _eating_state("wb............../........./..../. 1 eat")
    agent = SolverAgent(seed=1, tablebase=False)
    assert (len(agent.choose(pair, 0).sites), agent.last_value) == (1, 1)
    assert SolverAgent(tablebase=False).name == "solver:tablebase=0"


def test_a_solve_over_its_cap_is_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    rng = random.Random(3)
    state = spheria.load_game("special-cake", variant="mint").new_initial_state()
    assert isinstance(state, CakeState)
    while state.phase != EAT:
        state.apply(rng.choice(state.legal_moves()))
    agent = SolverAgent(seed=1, tablebase=False, time=0.01)
    with caplog.at_level(logging.INFO, logger="spheria.games.special_cake.solver_agent"):
        move = agent.choose(state, 0)
    assert move in state.legal_moves()
    assert (agent.fallbacks, agent.last_value) == (1, None)
    assert "ran over its 0.01 s cap; greedy:seed=1 eats at " + state.to_spn() in caplog.text
