"""The SDK's tests: the sync and async clients against `corridor serve` over real HTTP,
on a fresh SQLite database and, when configured, PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from corridor_client import AsyncCorridor, Corridor
from tests.conftest import BACKENDS
from tests.live_server import LiveServer, live_corridor


@pytest.fixture(scope="package", params=BACKENDS)
def live(request, tmp_path_factory) -> Iterator[LiveServer]:
    """A server without background workers: transfers move only when a test moves them."""
    with live_corridor(request.param, tmp_path_factory.mktemp("sdk")) as server:
        yield server


@pytest.fixture
def corridor(live: LiveServer) -> Iterator[Corridor]:
    with Corridor(api_key=live.api_key, base_url=live.base_url) as client:
        yield client


@pytest.fixture
async def async_corridor(live: LiveServer) -> AsyncIterator[AsyncCorridor]:
    async with AsyncCorridor(api_key=live.api_key, base_url=live.base_url) as client:
        yield client
