"""Functions run as Ray tasks, on this machine or a cluster (``pip install 'spheria[ray]'``).

:func:`ray_tasks` starts (or joins) a Ray and yields ``run(function, calls)``: every call of
``function`` (a module-level function, which each node imports by name) with one tuple of
arguments, as one task of one CPU; a task whose worker dies is run again, up to ``retries``
times. ``spheria tablebase build --backend ray`` computes a level's chunks this way; the
module knows nothing of any game (the functions it runs are the callers').
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import ray

T = TypeVar("T")

#: ``run(function, calls)``: the results of ``function(*call)`` for each call, in order.
Run = Callable[[Callable[..., Any], Sequence[tuple[Any, ...]]], list[Any]]


@contextlib.contextmanager
def ray_tasks(workers: int = 2, address: str | None = None, retries: int = 3) -> Iterator[Run]:
    """A Ray to run tasks on: ``address`` joins that cluster; ``None`` joins the one
    ``RAY_ADDRESS`` names, or else starts a local Ray with ``workers`` CPUs, stopped on leaving.
    A Ray already started in this process is used and left running."""
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=max(1, workers), **options)
        started = True

    def run(function: Callable[..., T], calls: Sequence[tuple[Any, ...]]) -> list[T]:
        task: Any = ray.remote(num_cpus=1, max_retries=retries)(function)
        return list(ray.get([task.remote(*call) for call in calls]))

    try:
        yield run
    finally:
        if started:
            ray.shutdown()


__all__ = ["Run", "ray_tasks"]
