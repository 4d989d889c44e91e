"""`corridor logs tail` (issue 28 item 5), run as a user runs it: a subprocess printing the
request log's new rows as the server writes them, filtered by key and status; Ctrl-C ends
it cleanly."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

from corridor.auth.callers import Caller, CallerKind
from corridor.kit.clock import SystemClock
from corridor.kit.db import Database
from corridor.kit.ids import new_id
from corridor.requestlogs.recorder import RequestLogBuffer

line_wait_s = 30


def _caller(organization_id: str, key_id: str) -> Caller:
    return Caller(CallerKind.ORGANIZATION_KEY, organization_id, key_id, frozenset({"*"}))


async def _write(url: str, entries: list[tuple[Caller, str, int, bytes]]) -> list[str]:
    """Rows as the server's recorder writes them; their ids."""
    database = Database(url)
    buffer = RequestLogBuffer(database, SystemClock())
    ids = []
    try:
        for caller, path, status, body in entries:
            request_id = new_id("req")
            ids.append(request_id)
            buffer.record(request_id, caller, "GET", path, status, 12.5, None, body)
        assert await buffer.flush() == len(entries)
    finally:
        await database.dispose()
    return ids


def _line(process: subprocess.Popen) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + line_wait_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line:
            return line
    raise AssertionError("no line from corridor logs tail")


def test_tail_prints_new_requests_of_the_key_and_status_until_ctrl_c(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'tail.db'}"
    environment = {**os.environ, "CORRIDOR_DATABASE_URL": url}
    made = subprocess.run(
        [sys.executable, "-m", "corridor.cli", "init", "--json"],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    organization_id = json.loads(made.stdout)["organizationId"]
    key, other_key = new_id("key"), new_id("key")
    error = b'{"code":"not_found","message":"No customer","requestId":"req_x"}'
    (before,) = asyncio.run(
        _write(url, [(_caller(organization_id, key), "/v1/customers/cus_1", 404, error)])
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "corridor.cli",
            "logs",
            "tail",
            "--key",
            key,
            "--status",
            "4xx",
            "--interval",
            "0.2",
            "--json",
        ],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = json.loads(_line(process))
        assert first["id"] == before and first["errorBody"]["code"] == "not_found"
        _, _, wanted = asyncio.run(
            _write(
                url,
                [
                    (_caller(organization_id, key), "/v1/customers", 200, b""),
                    (_caller(organization_id, other_key), "/v1/transfers/x", 404, error),
                    (_caller(organization_id, key), "/v1/transfers/y", 409, error),
                ],
            )
        )
        second = json.loads(_line(process))
        assert second["id"] == wanted and second["path"] == "/v1/transfers/y"
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=line_wait_s)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr


def test_tail_refuses_a_status_it_cannot_read(tmp_path):
    environment = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'tail.db'}",
    }
    refused = subprocess.run(
        [sys.executable, "-m", "corridor.cli", "logs", "tail", "--status", "4x"],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2
    assert "4xx" in refused.stderr
