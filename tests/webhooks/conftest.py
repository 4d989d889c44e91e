"""Webhook tests: a database of their own, and real HTTP receivers on 127.0.0.1.

The package gets its own database (made by the migrations, on every backend) so the
worker the tests drive (they call its run function directly) sees only these tests'
messages, never the rest of the suite's events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from corridor.app import create_app
from corridor.config import Environment
from corridor.kit.migrate import upgrade_to_head_async
from tests.conftest import BACKENDS, POSTGRES_URL, TestClock, _create_postgres_database, _settings
from tests.webhooks.support import Receiver


@pytest.fixture(scope="package", params=BACKENDS)
async def database_url(request, tmp_path_factory) -> AsyncIterator[str]:
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('webhooks') / 'corridor.db'}"
        await upgrade_to_head_async(url)
        yield url
        return
    assert POSTGRES_URL is not None
    url, drop = await _create_postgres_database(POSTGRES_URL)
    await upgrade_to_head_async(url)
    try:
        yield url
    finally:
        await drop()


@pytest.fixture(scope="package")
def backend(database_url: str) -> str:
    return "sqlite" if database_url.startswith("sqlite") else "postgresql"


@pytest.fixture(scope="package")
async def app(database_url: str):
    application = create_app(
        _settings(database_url, Environment.SANDBOX),
        clock=TestClock(),
        run_workers_in_process=False,
    )
    yield application
    await application.state.database.dispose()


@pytest.fixture(scope="package")
async def production_app(database_url: str):
    application = create_app(
        _settings(database_url, Environment.PRODUCTION),
        clock=TestClock(),
        run_workers_in_process=False,
    )
    yield application
    await application.state.database.dispose()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


@pytest.fixture
def make_receiver() -> Iterator[Any]:
    made: list[Receiver] = []

    def make() -> Receiver:
        made.append(Receiver())
        return made[-1]

    yield make
    for item in made:
        item.close()
