"""Real PostgreSQL and Redis servers for the tests, started from Debian's binaries on loopback.

Never a mock: :func:`postgres_server` makes a throwaway cluster under /tmp (``initdb``), starts
``postgres`` on a free loopback port and yields its URL; :func:`redis_server` does the same with
``redis-server`` (no persistence). Both stop their server and remove its files on exit. As root
(CI), PostgreSQL runs as Debian's ``postgres`` user, since it refuses to run as root.
``scripts/test`` installs the Debian packages ``postgresql`` and ``redis-server``.

The session fixtures ``postgres_url`` and ``redis_url`` (tests/conftest.py) share one server of
each for a whole run; a test that kills or stops its server starts its own with these functions.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

POSTGRES_BIN = Path("/usr/lib/postgresql")
POSTGRES_USER = "postgres"  # Debian's system user for the server; also the cluster's superuser


def free_port() -> int:
    """A TCP port nothing listens on now (on 127.0.0.1)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    """Wait until something accepts on ``port``; fail naming the server if ``process`` ends first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} ended with {process.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{process.args!r} did not listen on {port} within {seconds} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a server: SIGTERM, then SIGKILL after 20 s."""
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def postgres_binaries() -> Path:
    """The newest ``/usr/lib/postgresql/<version>/bin`` (Debian's layout)."""
    versions = sorted(POSTGRES_BIN.glob("*/bin/postgres"), key=lambda path: int(path.parts[-3]))
    if not versions:
        raise RuntimeError("PostgreSQL is not installed: run scripts/test as root, or 'apt-get install postgresql'")
    return versions[-1].parent


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", POSTGRES_USER, "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def postgres_server(database: str = "spheria") -> Iterator[str]:
    """A fresh PostgreSQL cluster on a free loopback port, with ``database``; yields its URL."""
    binaries = postgres_binaries()
    home = Path(tempfile.mkdtemp(prefix="spheria-postgres-"))
    data = home / "data"
    user = POSTGRES_USER if os.geteuid() == 0 else os.environ.get("USER", "spheria")
    if os.geteuid() == 0:
        shutil.chown(home, POSTGRES_USER)
    port = free_port()
    process: subprocess.Popen[bytes] | None = None
    try:
        initdb = [str(binaries / "initdb"), "-D", str(data), "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"]
        subprocess.run(_as_server_user(initdb), check=True, capture_output=True)
        server = [
            str(binaries / "postgres"),
            "-D",
            str(data),
            "-p",
            str(port),
            "-h",
            "127.0.0.1",
            "-k",
            str(home),  # its Unix socket beside the data, not in /var/run
            "-c",
            "fsync=off",  # a throwaway cluster: durability is the real server's business
            "-c",
            "max_connections=200",
        ]
        with open(home / "log", "wb") as log:
            process = subprocess.Popen(_as_server_user(server), stdout=subprocess.DEVNULL, stderr=log)
        wait_for_port(port, process)
        createdb = [str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", user, database]
        for _ in range(50):  # the port opens a moment before the server takes connections
            if subprocess.run(createdb, capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"could not create the database {database!r}: {(home / 'log').read_text()}")
        yield f"postgresql://{user}@127.0.0.1:{port}/{database}"
    finally:
        if process is not None:
            stop(process)
        shutil.rmtree(home, ignore_errors=True)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A fresh ``redis-server`` on a free loopback port, keeping nothing on disk; yields its URL."""
    if shutil.which("redis-server") is None:
        raise RuntimeError("redis-server is not installed: run scripts/test as root, or 'apt-get install redis-server'")
    home = Path(tempfile.mkdtemp(prefix="spheria-redis-"))
    port = free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    command += ["--dir", str(home), "--maxclients", "20000"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)
        shutil.rmtree(home, ignore_errors=True)


def fresh_database(server_url: str) -> Iterator[str]:
    """A new empty database on the PostgreSQL server of ``server_url`` (dropped afterwards, even with
    connections still open); yields its URL. A generator: ``yield from`` it in a fixture."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
    try:
        yield server_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
