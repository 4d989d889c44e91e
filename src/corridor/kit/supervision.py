"""A child process of `corridor serve` ends when the server that started it is gone.

`corridor serve --processes N` is a supervisor: it starts the API processes (uvicorn's
multiprocess supervisor) and, with `--workers`, one `corridor worker` process. Killed
with SIGKILL (an OOM kill, `kill -9`, a container runtime signalling only its main
process), it cannot stop them; they would go on listening on its port and claiming work.

So the supervisor names itself to its children (`supervise_children`: the
CORRIDOR_SUPERVISOR_PID variable, inherited by the processes it starts), and each child
follows it (`follow_supervisor`): when the supervisor is gone the child gets SIGTERM and
stops as on any SIGTERM, finishing or releasing what it holds. Two ways, so that one
missing is not fatal:

- Linux's parent-death signal (`prctl(PR_SET_PDEATHSIG, SIGTERM)`, through ctypes): the
  kernel signals the child the moment its parent exits, however it exits.
- Everywhere, a thread that checks every `parent_check_s` whether the process's parent is
  still the supervisor (an orphan is adopted by init or a subreaper, so `getppid()`
  changes) and sends SIGTERM to its own process when not.

A process started otherwise (`corridor worker` from a service manager or a shell) has no
CORRIDOR_SUPERVISOR_PID and follows nothing. A child takes the variable out of its own
environment, so processes it starts in turn are not told to follow a grandparent.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable

SUPERVISOR_VARIABLE = "CORRIDOR_SUPERVISOR_PID"
# How often the portable check looks at the parent (the parent-death signal is at once).
parent_check_s = 1.0
# linux/prctl.h
_PR_SET_PDEATHSIG = 1


def supervise_children() -> None:
    """In the supervisor, before it starts its children: they inherit the variable."""
    os.environ[SUPERVISOR_VARIABLE] = str(os.getpid())


def supervisor_of_this_process() -> int | None:
    """The pid this process was told to follow, taken out of the environment (None when
    it was started by no `corridor serve`)."""
    named = os.environ.pop(SUPERVISOR_VARIABLE, None)
    if named is None or not named.strip().isdigit():
        return None
    return int(named)


def follow_supervisor(*, stop: Callable[[], None] | None = None) -> int | None:
    """When this process was started by a `corridor serve` supervisor, have it stopped
    (SIGTERM to itself, or `stop`) once that supervisor is gone. Call it once the process
    handles SIGTERM gracefully. Returns the supervisor's pid, or None (nothing to follow)."""
    supervisor = supervisor_of_this_process()
    if supervisor is None:
        return None
    stop = stop or _terminate_this_process
    if sys.platform.startswith("linux"):
        _set_parent_death_signal(signal.SIGTERM)
    fired = threading.Event()

    def stop_once() -> None:
        if not fired.is_set():
            fired.set()
            stop()

    # Also after the parent-death signal is set: the supervisor may have died before, and
    # then nothing would signal this process.
    if os.getppid() != supervisor:
        stop_once()
        return supervisor
    watcher = threading.Thread(
        target=_watch_parent,
        args=(supervisor, stop_once, fired),
        name="corridor-supervisor-watch",
        daemon=True,
    )
    watcher.start()
    return supervisor


def _watch_parent(supervisor: int, stop: Callable[[], None], fired: threading.Event) -> None:
    while not fired.wait(parent_check_s):
        if os.getppid() != supervisor:
            stop()
            return


def _terminate_this_process() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def _set_parent_death_signal(signal_number: int) -> bool:
    """prctl(PR_SET_PDEATHSIG): False where it is not available (the thread still checks)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signal_number, 0, 0, 0)) == 0
    return False
