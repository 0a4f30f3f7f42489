"""The arena's games on a Ray cluster (``pip install 'spheria[ray]'``).

``spheria arena GAME --agents A,B --backend ray`` plays every game as a Ray task. With
``--address ADDR`` the arena joins that cluster (whose nodes must have Spheria installed);
without it, it starts a local Ray with ``--workers`` CPUs and stops it afterwards. A Ray
already started in the calling process (``ray.init(...)`` before ``run_arena``) is used as
it is and left running.

Each task runs :func:`spheria.arena.play_job`, exactly as the local process backend does, so
the same arena seed gives the same games, move for move, on either backend. Results arrive
as games finish; the report sorts them by game number.

Importing this module registers the backend as ``"ray"`` in :data:`spheria.arena.BACKENDS`;
``spheria.arena`` imports it the first time that name is asked for.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import ray

from spheria.arena import BACKENDS, GameJob, GameResult, play_job


def ray_backend(
    jobs: list[GameJob], workers: int, keep_records: bool, address: str | None = None
) -> Iterator[GameResult]:
    """Play ``jobs`` as Ray tasks, yielding results as they finish (a :data:`spheria.arena.Backend`).

    ``address``: the cluster to join; ``None`` joins the cluster ``RAY_ADDRESS`` names, or else
    starts a local Ray with ``workers`` CPUs. At most twice as many games as there are CPUs
    (or ``workers``, if more) are in flight at once.
    """
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=max(1, workers), **options)
        started = True
    pending: dict[Any, int] = {}
    try:
        play: Any = ray.remote(num_cpus=1, max_retries=0)(play_job)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = int(resources.get("CPU", 1))
        in_flight = 2 * max(1, workers, cpus)
        queue = iter(jobs)
        for job in itertools.islice(queue, in_flight):
            pending[play.remote(job, keep_records)] = job.index
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                del pending[ref]
                yield ray.get(ref)
                next_job = next(queue, None)
                if next_job is not None:
                    pending[play.remote(next_job, keep_records)] = next_job.index
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


BACKENDS["ray"] = ray_backend

__all__ = ["ray_backend"]
