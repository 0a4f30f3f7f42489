"""A journal of finished games, so that a measurement longer than a session resumes where it stopped.

A journal is a JSON-lines file: its first line is the run's header (the game, its options, the
agents, the seed: everything that decides which games are played), every further line one
finished game, by its index in the run's schedule. Opening a journal with another header is
refused, so two different runs never mix their games; a line cut off by a killed process is
dropped (that game is played again).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> journal = Journal(path, {"game": "spline", "seed": 1})
>>> journal.record(3, LadderResult(("a", "b"), (1.0, -1.0), ([0.5], [0.25])))
>>> Journal(path, {"game": "spline", "seed": 1}).done[3].returns
(1.0, -1.0)
>>> Journal(path, {"game": "spline", "seed": 2})
Traceback (most recent call last):
...
ValueError: the journal ... belongs to another run: {'game': 'spline', 'seed': 1}, not {'game': 'spline', 'seed': 2}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.results import LadderResult


class Journal:
    """The games of one run already played (``done``, by schedule index) and a way to add one."""

    def __init__(self, path: Path | str, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = json.loads(json.dumps(header))  # as it reads back: tuples become lists
        self.done: dict[int, LadderResult] = {}
        if self.path.exists() and self.path.stat().st_size:
            self._read()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.header) + "\n")

    @staticmethod
    def recorded_header(path: Path | str) -> dict[str, Any] | None:
        """The header a journal file starts with, or None if there is no such file yet."""
        path = Path(path)
        if not path.exists() or not path.stat().st_size:
            return None
        with path.open() as lines:
            header: dict[str, Any] = json.loads(lines.readline())
        return header

    def _read(self) -> None:
        text = self.path.read_text()
        lines = text.splitlines()
        found = json.loads(lines[0])
        if found != self.header:
            raise ValueError(f"the journal {self.path} belongs to another run: {found}, not {self.header}")
        for line in lines[1:]:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # the last line of a killed run
                continue
            self.done[entry["i"]] = LadderResult(
                tuple(entry["seats"]),
                tuple(entry["returns"]),
                tuple(entry["seconds"]),
                tuple(entry.get("cpu", [[] for _ in entry["seats"]])),
            )
        if not text.endswith("\n"):  # the next game starts on a line of its own
            with self.path.open("a") as out:
                out.write("\n")

    def record(self, index: int, result: LadderResult) -> None:
        """Append one finished game (flushed at once: a kill loses at most the game in play)."""
        self.done[index] = result
        entry = {
            "i": index,
            "seats": list(result.seats),
            "returns": list(result.returns),
            "seconds": [list(s) for s in result.seconds],
            "cpu": [list(s) for s in result.cpu_seconds],
        }
        with self.path.open("a") as out:
            out.write(json.dumps(entry) + "\n")
