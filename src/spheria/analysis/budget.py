"""What an analysis may spend: :class:`Budget`, the time, the iterations, the seed and the
progress callback of one :func:`spheria.analysis.analyse`, handed to whichever method answers."""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass, field

from spheria.analysis import messages as msg
from spheria.analysis.result import Progress, ProgressCallback
from spheria.i18n import gettext as _

#: The time an estimate takes when ``analyse`` is given no time.
DEFAULT_TIME = 1.0


@dataclass
class Budget:
    """``time`` in seconds from ``start`` (``None``: an exact search runs to its end),
    ``iterations`` for a search that counts them, ``seed`` for a search that draws, and
    ``progress`` to report to. ``dataclasses.replace(budget, time=...)`` keeps the start."""

    time: float | None
    iterations: int | None
    seed: int | None
    progress: ProgressCallback | None
    start: float = field(default_factory=_time.perf_counter)

    @classmethod
    def checked(
        cls, time: float | None, iterations: int | None, seed: int | None, progress: ProgressCallback | None
    ) -> Budget:
        """A budget from a caller's arguments, starting now; ``ValueError`` names a bad ``time``
        (not a number of seconds above 0) or bad ``iterations`` (not a whole number of at least 1)."""
        if time is not None and (
            isinstance(time, bool) or not isinstance(time, int | float) or not 0 < time < math.inf
        ):
            raise ValueError(_(msg.BAD_TIME).format(time=time))
        if iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
        ):
            raise ValueError(_(msg.BAD_ITERATIONS).format(iterations=iterations))
        return cls(None if time is None else float(time), iterations, seed, progress)

    def left(self) -> float | None:
        """Seconds left, ``None`` for no limit."""
        return None if self.time is None else max(self.start + self.time - _time.perf_counter(), 0.0)

    def estimate_time(self) -> float:
        """The time a search that only estimates may take."""
        return DEFAULT_TIME if self.time is None else self.time

    def spent(self) -> bool:
        left = self.left()
        return left is not None and left <= 0

    def elapsed(self) -> float:
        return _time.perf_counter() - self.start

    def report(self, report: Progress) -> None:
        if self.progress is not None:
            self.progress(report)
