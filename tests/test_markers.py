"""The quick loop, ``pytest -m "not browser"``, runs no browser: every test that uses the fixture
launching Chromium is marked ``browser`` (tests/conftest.py marks it as it is collected), and
nothing else under tests/ launches a browser.

Run as a plugin (``-p tests.test_markers``), this module also reports, after a collection, which
tests it selected and deselected and whether each uses the browser fixture.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BROWSER_FIXTURE

ROOT = Path(__file__).resolve().parents[1]
#: The folder of the tests that drive Chromium.
BROWSER_TESTS = "tests/web/e2e"
#: Where the plugin writes its report (set only in the collection this test starts).
REPORT = "SPHERIA_MARKER_REPORT"
#: The calls that start Playwright, and so a browser.
PLAYWRIGHT_STARTS = {"sync_playwright", "async_playwright"}


def uses_browser(item: pytest.Item) -> bool:
    return BROWSER_FIXTURE in getattr(item, "fixturenames", ())


_deselected: list[pytest.Item] = []


def pytest_deselected(items: list[pytest.Item]) -> None:
    _deselected.extend(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    path = os.environ.get(REPORT)
    if path is None:
        return
    report = {
        kind: [
            {"id": item.nodeid, "browser": uses_browser(item), "marked": item.get_closest_marker("browser") is not None}
            for item in items
        ]
        for kind, items in (("selected", session.items), ("deselected", _deselected))
    }
    Path(path).write_text(json.dumps(report), encoding="utf-8")


def test_the_quick_loop_selects_no_test_that_uses_the_browser(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    plugin = ["-p", "no:cacheprovider", "-p", "tests.test_markers"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            *plugin,
            "-m",
            "not browser",
            "tests/web/e2e",
            __file__,
        ],
        cwd=ROOT,
        env={**os.environ, REPORT: str(report)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(report.read_text(encoding="utf-8"))
    selected = {entry["id"]: entry for entry in found["selected"]}
    assert [name for name, entry in selected.items() if entry["browser"]] == []
    assert "tests/test_markers.py::test_the_quick_loop_selects_no_test_that_uses_the_browser" in selected
    # Not vacuous: the browser tests were collected, each marked and left out.
    deselected = found["deselected"]
    assert len(deselected) >= 30, deselected
    assert all(entry["browser"] and entry["marked"] for entry in deselected), deselected


def playwright_starts(path: Path) -> list[tuple[str, str]]:
    """Where ``path`` calls one of :data:`PLAYWRIGHT_STARTS`: (the file, the innermost function around
    the call, ``<module>`` outside any) for each call."""
    starts: list[tuple[str, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call):
                called = child.func
                name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", None)
                if name in PLAYWRIGHT_STARTS:
                    starts.append((path.relative_to(ROOT).as_posix(), function))
            visit(child, child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return starts


def test_only_the_browser_fixture_starts_a_browser() -> None:
    """So marking the users of that fixture marks every browser test."""
    starts = [start for path in sorted((ROOT / "tests").rglob("*.py")) for start in playwright_starts(path)]
    assert starts == [("tests/web/e2e/test_browser.py", BROWSER_FIXTURE)]
