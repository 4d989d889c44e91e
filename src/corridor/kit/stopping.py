"""Whether the worker running this code has been asked to stop (SIGTERM, or the server
it runs inside shutting down). A task checks `stopping()` between pieces of work: it
claims nothing more and finishes, or releases, what it holds (workers/runner.py)."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar, Token

_stop: ContextVar[asyncio.Event | None] = ContextVar("corridor_worker_stop", default=None)


def stopping() -> bool:
    event = _stop.get()
    return event is not None and event.is_set()


def watch(stop: asyncio.Event) -> Token[asyncio.Event | None]:
    """Tasks started from here on (they copy the context) see `stop`."""
    return _stop.set(stop)


def unwatch(token: Token[asyncio.Event | None]) -> None:
    _stop.reset(token)
