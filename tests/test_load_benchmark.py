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
