"""A streaming standby of the local PostgreSQL, made by the tests: `pg_basebackup` of the
server CORRIDOR_TEST_DATABASE_URL names into a cluster of its own, on a free port, started
with `pg_ctl` and stopped and removed afterwards.

The server must accept replication connections from 127.0.0.1: a `host replication all
127.0.0.1/32 trust` line in its pg_hba.conf (.ci/run adds it and reloads the server; a
line in pg_hba.conf is the one setting SQL cannot make). The standby runs as the `postgres`
user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import POSTGRES_URL
from tests.live_server import free_port
from tests.programs import REQUIRE_ALL_SETTING, require, require_all

start_s_max = 120
HBA_FIX = (
    "the local PostgreSQL refuses replication connections: add 'host replication all "
    "127.0.0.1/32 trust' to its pg_hba.conf and reload it (.ci/run does)"
)


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_as_postgres(), *command], capture_output=True, text=True, timeout=start_s_max
    )


# A hot standby refuses to start with less of these than its primary has.
PRIMARY_SETTINGS = (
    "max_connections",
    "max_worker_processes",
    "max_wal_senders",
    "max_prepared_transactions",
    "max_locks_per_transaction",
)


async def _primary_settings() -> str:
    assert POSTGRES_URL is not None
    url = make_url(POSTGRES_URL).set(drivername="postgresql")
    connection = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        lines = [
            f"{name} = {await connection.fetchval(f'SHOW {name}')}\n" for name in PRIMARY_SETTINGS
        ]
    finally:
        await connection.close()
    return "".join(lines)


@contextlib.asynccontextmanager
async def streaming_standby() -> AsyncIterator[int]:
    """A hot standby streaming from the test server; yields its port (same host, user)."""
    inherited = await _primary_settings()
    with _standby(inherited) as port:
        yield port


@contextlib.contextmanager
def _standby(inherited: str) -> Iterator[int]:
    assert POSTGRES_URL is not None
    paths = require("pg_basebackup", "pg_ctl")
    primary = make_url(POSTGRES_URL)
    root = Path(tempfile.mkdtemp(prefix="corridor-standby-", dir="/tmp"))
    root.chmod(0o755)
    data = root / "data"
    port = free_port()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    try:
        made = _run(
            [
                paths["pg_basebackup"],
                f"--host={primary.host or '127.0.0.1'}",
                f"--port={primary.port or 5432}",
                f"--username={primary.username or 'postgres'}",
                f"--pgdata={data}",
                "--wal-method=stream",
                "--write-recovery-conf",
                "--checkpoint=fast",
                "--no-sync",
            ]
        )
        if made.returncode != 0:
            if "pg_hba.conf" in made.stderr:
                if require_all():
                    pytest.fail(f"{HBA_FIX} [{REQUIRE_ALL_SETTING}=1]", pytrace=False)
                pytest.skip(HBA_FIX)
            raise AssertionError(f"pg_basebackup failed: {made.stderr}")
        # The copy has the primary's data and postgresql.auto.conf; Debian keeps the rest of
        # the configuration elsewhere, so the standby gets its own.
        config = data / "postgresql.conf"
        config.write_text(
            f"port = {port}\nlisten_addresses = '127.0.0.1'\n"
            f"unix_socket_directories = '{root}'\nhot_standby = on\n"
            "shared_buffers = 32MB\nfsync = off\n" + inherited
        )
        (data / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
        (data / "pg_ident.conf").write_text("")
        for written in (config, data / "pg_hba.conf", data / "pg_ident.conf"):
            if os.geteuid() == 0:
                shutil.chown(written, "postgres", "postgres")
        started = _run(
            [paths["pg_ctl"], "-D", str(data), "-l", str(root / "log"), "-w", "-t", "60", "start"]
        )
        assert started.returncode == 0, started.stderr + _log(root)
        yield port
    finally:
        if (data / "postmaster.pid").exists():
            _run([paths["pg_ctl"], "-D", str(data), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


def _log(root: Path) -> str:
    log = root / "log"
    return log.read_text()[-2000:] if log.exists() else ""


def standby_url(database_url: str, port: int) -> str:
    """The same database on the standby."""
    return make_url(database_url).set(port=port).render_as_string(hide_password=False)
