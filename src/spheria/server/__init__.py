"""Play in the browser: a real-time multiplayer server with agent seats and persistence.

``spheria serve`` (or ``python -m spheria.server``) runs :func:`serve`; :func:`create_app`
builds the ASGI app for tests and other servers. See ``docs/server.md``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The ASGI app (imported lazily, so ``import spheria.server`` stays light; Starlette and uvicorn
    are core dependencies)."""
    from spheria.server.app import create_app as build

    return build(*args, **kwargs)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str = "spheria.sqlite3",
    *,
    agent_pool: str = "process",
    agent_workers: int | None = None,
    agent_delay: float = 0.3,
    redis: str | None = None,
    limits: Any = None,
    max_connections: int = 4096,
    header_timeout: float = 10.0,
    http_per_address: int = 64,
    certfile: str | None = None,
    keyfile: str | None = None,
    log_level: str = "info",
) -> None:
    """Run the server until interrupted. ``db`` keeps the games: a SQLite file or a ``postgresql://`` URL;
    ``limits`` a :class:`spheria.server.limits.Limits`; ``redis`` a Redis URL (agents in
    ``spheria agents`` workers, presence shared; games owned by one process each, :mod:`.cluster`)."""
    import uvicorn

    from spheria.i18n import gettext
    from spheria.server.app import create_app as build
    from spheria.server.guards import guarded_http_protocol
    from spheria.server.messages import OPEN_IN_BROWSER
    from spheria.server.storage import shown_target

    app = build(
        db, agent_pool=agent_pool, agent_workers=agent_workers, agent_delay=agent_delay, limits=limits, redis=redis
    )
    scheme = "https" if certfile else "http"
    print(gettext(OPEN_IN_BROWSER).format(url=f"{scheme}://{host}:{port}/", db=shown_target(db)), flush=True)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=guarded_http_protocol(header_timeout, max_connections, http_per_address),
        ws="websockets-sansio",
        ws_max_size=1 << 20,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        timeout_keep_alive=5,
        limit_concurrency=max_connections,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        server_header=False,
    )
