"""`corridor serve` in a subprocess on a free port and a fresh database, for tests that
talk to the server over real HTTP (the fuzz test, the Python SDK's tests)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import POSTGRES_URL, _create_postgres_database

# Bounds, not timings: a loaded machine imports the app slowly in every process.
server_start_s_max = 300
# Longer than the drain on SIGTERM (CORRIDOR_SHUTDOWN_GRACE_S, 30 s).
server_stop_s_max = 90


@dataclass(frozen=True)
class LiveServer:
    base_url: str
    # The credentials `corridor init --json` printed for the first organization.
    organization_id: str
    api_key: str
    console_email: str
    console_password: str
    log: Path
    database_url: str

    def log_tail(self, characters: int = 4000) -> str:
        return self.log.read_text()[-characters:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _corridor(environment: dict[str, str], *arguments: str) -> str:
    command = [sys.executable, "-m", "corridor.cli", *arguments]
    return subprocess.run(
        command, env=environment, check=True, capture_output=True, text=True
    ).stdout


@contextlib.contextmanager
def _database(backend: str, directory: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{directory / 'corridor.db'}"
        return
    assert POSTGRES_URL is not None
    database_url, drop = asyncio.run(_create_postgres_database(POSTGRES_URL))
    try:
        yield database_url
    finally:
        asyncio.run(drop())


@contextlib.contextmanager
def live_corridor(
    backend: str,
    directory: Path,
    *,
    workers: bool = False,
    processes: int = 1,
    settings: dict[str, str] | None = None,
) -> Iterator[LiveServer]:
    """Migrate and init a new database of `backend` (sqlite or postgresql), serve it until
    the block ends. `workers` runs the background workers (webhook delivery, the transfer
    engine) inside the server process (in one more process when `processes` > 1, the API
    processes sharing the port); `settings` adds CORRIDOR_* variables."""
    with _database(backend, directory) as database_url:
        environment = {
            **os.environ,
            "CORRIDOR_DATABASE_URL": database_url,
            "CORRIDOR_LOG_LEVEL": "WARNING",
            # Tests send many requests from one address; a test may turn limits back on.
            "CORRIDOR_RATE_LIMITS_ENABLED": "false",
            **(settings or {}),
        }
        _corridor(environment, "migrate")
        credentials = json.loads(_corridor(environment, "init", "--json"))
        port = free_port()
        log = directory / "server.log"
        command = [sys.executable, "-m", "corridor", "serve", "--port", str(port)]
        command += ["--workers" if workers else "--no-workers", "--processes", str(processes)]
        with log.open("w") as output:
            server = subprocess.Popen(
                command,
                env=environment,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        live = LiveServer(
            base_url=f"http://127.0.0.1:{port}",
            organization_id=credentials["organizationId"],
            api_key=credentials["apiKey"],
            console_email=credentials["consoleEmail"],
            console_password=credentials["consolePassword"],
            log=log,
            database_url=database_url,
        )
        try:
            _wait_until_healthy(live, server)
            yield live
        finally:
            server.terminate()
            server.wait(timeout=server_stop_s_max)


@contextlib.contextmanager
def another_server(
    live: LiveServer,
    directory: Path,
    *,
    port: int | None = None,
    workers: bool = False,
    processes: int = 1,
    settings: dict[str, str] | None = None,
) -> Iterator[LiveServer]:
    """One more `corridor serve` process on `live`'s database (a second API replica, or the
    server after a restart): same credentials, its own port (or `port`) and log."""
    environment = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": live.database_url,
        "CORRIDOR_LOG_LEVEL": "WARNING",
        "CORRIDOR_RATE_LIMITS_ENABLED": "false",
        **(settings or {}),
    }
    port = port or free_port()
    log = directory / f"server-{port}-{time.monotonic_ns()}.log"
    command = [sys.executable, "-m", "corridor", "serve", "--port", str(port)]
    command += ["--workers" if workers else "--no-workers", "--processes", str(processes)]
    with log.open("w") as output:
        server = subprocess.Popen(command, env=environment, stdout=output, stderr=subprocess.STDOUT)
    other = dataclasses.replace(live, base_url=f"http://127.0.0.1:{port}", log=log)
    try:
        _wait_until_healthy(other, server)
        yield other
    finally:
        server.terminate()
        server.wait(timeout=server_stop_s_max)


def _wait_until_healthy(live: LiveServer, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + server_start_s_max
    while True:
        try:
            if httpx.get(f"{live.base_url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert server.poll() is None, live.log.read_text()
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.2)
