"""Smoke tests of the load benchmark's attacks (benchmarks/load.py): each runs for a few seconds
at a tiny size against a real ``spheria serve`` and reports what it measures. The figures
themselves are the benchmark's (docs/server.md, "Tests and benchmark"), not asserted here."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks import load

TINY = ["--games", "1", "--seconds", "2.5"]


def run_attack(capsys: pytest.CaptureFixture[str], kind: str, size: int) -> dict[str, Any]:
    status = load.main(["--abuse", kind, *TINY, "--attack-size", str(size)])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert status == 0 and report["errors"] == 0, report
    assert report["abuse"] == kind and report["moves"] > 0
    notes: dict[str, Any] = report["notes"]
    return notes


def test_a_hint_flood_reports_the_servers_memory_before_at_its_peak_and_after(
    capsys: pytest.CaptureFixture[str],
) -> None:
    notes = run_attack(capsys, "hints", 2)
    assert notes["hint_sockets"] == 2 and notes["hint_frames_sent"] > 0
    assert set(notes["answers"]) & {"hints_off", "hint_busy", "hint_thinking", "hint"}, notes
    assert 0 < notes["server_rss_mb_before"] <= notes["peak"] and 0 < notes["after"] <= notes["peak"]
    assert notes["server_cpu_share"] > 0  # the server worked while the games were played


def test_an_analysis_flood_reports_the_honest_clients_waits_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    notes = run_attack(capsys, "analysis", 2)
    assert notes["analysis_sockets"] == 2 and notes["heavy_jobs_asked"] >= 4
    assert notes["honest_analyses_asked"] >= 1 and notes["server_busy"] == 0
    assert {"answered", "first_frame_s_p50/max", "answer_s_p50/max", "unanswered_at_end_s"} <= set(notes)


def test_half_open_requests_report_the_honest_gets_statuses_and_latency(capsys: pytest.CaptureFixture[str]) -> None:
    notes = run_attack(capsys, "halfopen", 50)
    assert notes["half_open_requests_opened"] >= 50
    assert notes["honest_gets"] >= 1 and set(notes["statuses"]) == {"200"}, notes  # never a 503
    assert 0 < notes["get_ms_p50"] <= notes["p95"] <= notes["max"]


def test_compare_runs_the_kinds_asked_each_after_a_quiet_run_with_the_same_probe(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load.main(["--abuse", "compare", "--kinds", "halfopen", *TINY, "--attack-size", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("| none") or line.startswith("| halfopen")]
    assert [row.split(" | ")[0] for row in rows] == ["| none", "| halfopen"], lines
    assert all("honest_gets" in row for row in rows) and "half_open_requests_opened" in rows[1]


def test_an_unknown_kind_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load.main(["--abuse", "compare", "--kinds", "hints,floods"])
    assert "unknown attack 'floods'" in capsys.readouterr().err


def notes_of(row: str) -> dict[str, str]:
    """The notes cell of a table row (``key value, key value``) as a mapping."""
    cell = row.rstrip(" |").rsplit(" | ", 1)[1]
    return dict(note.split(" ", 1) for note in cell.split(", "))


def test_the_lobby_mode_reports_a_quiet_run_then_the_lobbys_fan_out_accepts_lists_and_moves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert load.main(["--lobby", "20", "--games", "4", "--seconds", "3", "--lobby-rate", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("| none") or line.startswith("| lobby")]
    assert [row.split(" | ")[0] for row in rows] == ["| none", "| lobby"], lines
    quiet, lobby = (row.split(" | ") for row in rows)
    assert float(quiet[1]) > 0 and float(lobby[1]) > 0 and lobby[8] == "0"  # moves/s both, no error
    assert float(lobby[4]) > 0  # the ratio of the p95 move latencies
    notes = notes_of(rows[1])
    assert notes["people"] == "20" and notes["lobbies_open_at_end"] == "20"
    assert int(notes["challenges_posted"]) >= 10 and notes["not_reaching_every_lobby"] == "0", notes
    for spread in (
        "reached_every_lobby_ms_p50/p95/max",
        "from_post_sent",
        "first_to_last_lobby",
        "accept_ms",
        "list_ms",
    ):
        p50, p95, most = (float(ms) for ms in notes[spread].split("/"))
        assert 0 <= p50 <= p95 <= most, (spread, notes)
    assert float(notes["from_post_sent"].split("/")[0]) > 0  # a challenge takes time to reach every lobby
    assert int(notes["accepts"]) >= 5 and int(notes["lists"]) >= 10
    assert int(notes["challenge_games_played"]) >= 1  # games started by accepts were played on the people's seats
    assert notes["refusals"] == "none" and notes["lobby_closes"] == "none", notes
    assert "server_cpu_share" in notes_of(rows[0]) and "people" not in notes_of(rows[0])


def test_clients_spread_over_enough_loopback_addresses_for_the_servers_per_address_limits() -> None:
    # 128 games: 256 sockets, over 200 a single address may hold
    assert load.addresses_needed(128, 0, 10, 30, []) >= 2
    # 1,000 guests: 20 signups an address; 300 challenges: 30 an address
    assert load.addresses_needed(100, 1000, 10, 30, []) * 20 >= 1000
    assert load.addresses_needed(1, 10, 10, 300, ["--challenges-per-address", "30"]) * 30 >= 3000
    assert load.addresses_needed(128, 0, 10, 30, ["--connections-per-address=1000"]) == 1
    assert load.client_addresses(3) == ["127.0.0.3", "127.0.0.4", "127.0.0.5"]
    assert load.client_addresses(300)[-1] == "127.0.1.46"  # past 127.0.0.255 into the rest of 127/8


def test_games_from_one_address_beyond_its_socket_cap_are_refused_and_spread_ones_are_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The benchmark measures the server, not the per-address cap: with the cap at 4 websockets, 4
    games (8 sockets) from one address are refused, and spread over the default addresses play."""
    cap = ["--serve-option=--connections-per-address", "--serve-option=4"]
    assert load.main(["--games", "4", "--seconds", "2", "--addresses", "1", *cap]) == 1
    assert json.loads(capsys.readouterr().out)["errors"] > 0
    assert load.main(["--games", "4", "--seconds", "2", *cap]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 0 and report["notes"]["addresses"] >= 4, report


def test_two_processes_on_postgresql_and_redis_fail_over_and_lose_no_acknowledged_move(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--processes 2 --failover``: one of the two server processes is killed with -9 halfway; every
    interrupted game goes on on the other, and what the drivers saw acknowledged is what PostgreSQL
    holds. With idle lobby sockets held meanwhile on both."""
    # 20 s: the kill at 10 s, then the lease's 5 s; a game interrupted has 30 s from the kill to come
    # back (processes.RECOVERY), past the end if the machine is slow, so only a game lost fails here
    argv = ["--processes", "2", "--games", "4", "--seconds", "20", "--failover", "--idle-websockets", "40"]
    status = load.main(argv)
    out, err = capsys.readouterr()
    assert status == 0, out[-2000:] + err[-2000:]  # the table's errors and notes, and what the drivers said
    table = [line for line in out.splitlines() if line.startswith("| 2 |")]
    assert len(table) == 1, out  # the table after the runs' JSON
    (run,) = json.loads(out[: out.index("\n| processes")])
    assert run["processes"] == 2 and run["moves_per_second"] > 0 and run["errors"] == 0, run
    notes = run["notes"]
    assert notes["games_interrupted"] >= 1 and notes["unrecovered"] == 0, json.dumps(notes) + err[-2000:]
    assert notes["acknowledged_lost"] == 0 and notes["applied_twice"] == 0, notes
    median, most = (float(s) for s in notes["failover_s"].split(" ", 1)[0].split("/"))
    assert 0 < median <= most < 30, notes  # the lease lapses (5 s) and the survivor takes the games
    # The idle sockets alternate between the processes: those of the killed one are gone, the rest stay.
    assert notes["idle_websockets_opened"] == 40 and notes["idle_websockets_open_at_end"] == 20, notes
