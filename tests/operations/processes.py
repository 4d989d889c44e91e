"""The processes of a live `corridor serve`, read from /proc (Linux), for the tests that
signal them."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from tests.live_server import LiveServer

# Bounds, so a broken server fails the test instead of hanging it.
wait_s_max = 60


def processes() -> dict[int, tuple[int, str]]:
    """Every process of this machine: pid → (parent pid, command line)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        found[int(entry)] = (parent, command)
    return found


def server_processes(live: LiveServer) -> tuple[int, list[int], list[int]]:
    """The `corridor serve` process of `live`, its API processes and its worker."""
    port = live.base_url.rsplit(":", 1)[1]
    everything = processes()
    server = next(
        pid for pid, (_, command) in everything.items() if f"serve --port {port} " in command
    )
    children = [pid for pid, (parent, _) in everything.items() if parent == server]
    workers = [pid for pid in children if "corridor worker" in everything[pid][1]]
    api = [pid for pid in children if "multiprocessing.spawn" in everything[pid][1]]
    return server, api, workers


def descendants(pid: int) -> list[int]:
    """Every process started by `pid`, by its children, and so on."""
    everything = processes()
    found: list[int] = []
    parents = [pid]
    while parents:
        children = [child for child, (parent, _) in everything.items() if parent in parents]
        found += children
        parents = children
    return found


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return status == "Z"


def wait_until(condition: Callable[[], bool], what: str, bound_s: float = wait_s_max) -> None:
    deadline = time.monotonic() + bound_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
