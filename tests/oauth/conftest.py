"""Fixtures of the OAuth tests: the test app's MCP endpoint running (its SDK session
manager), so /mcp answers in-process too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest


@pytest.fixture(scope="session")
async def mcp_running(app) -> AsyncIterator[None]:
    """The manager runs in a task of its own: its task group is entered and left there."""
    started, stop = asyncio.Event(), asyncio.Event()

    async def run() -> None:
        async with app.state.mcp_endpoint.running():
            started.set()
            await stop.wait()

    task = asyncio.create_task(run())
    await started.wait()
    yield
    stop.set()
    await task
