"""`corridor worker` processes for tests that need several: started on a database with the
suite's server key, their output appended to a log, stopped without hanging the test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import TEST_SECRET_KEY


def start_worker(database_url: str, log: Path, environment: dict[str, str]) -> subprocess.Popen:
    """A `corridor worker` on `database_url`, with `environment` over the suite's (the
    server key of the test's apps, which wrote the encrypted secrets, and quiet logs)."""
    variables = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": database_url,
        "CORRIDOR_LOG_LEVEL": "WARNING",
        "CORRIDOR_SECRET_KEY": TEST_SECRET_KEY,
        **environment,
    }
    with log.open("a") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "corridor.cli", "worker"],
            env=variables,
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def stop_worker(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 30 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
