"""Webhook tests: a database of their own, and real HTTP receivers on 127.0.0.1.

The package gets its own database (made by the migrations, on every backend) so the
worker the tests drive (they call its run function directly) sees only these tests'
messages, never the rest of the suite's events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from corridor.config import Environment
from tests.conftest import BACKENDS, backend_of, built_app, migrated_database
from tests.webhooks.support import Receiver


@pytest.fixture(scope="package", params=BACKENDS)
async def database_url(request, tmp_path_factory) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("webhooks")) as url:
        yield url


@pytest.fixture(scope="package")
def backend(database_url: str) -> str:
    return backend_of(database_url)


@pytest.fixture(scope="package")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.SANDBOX) as application:
        yield application


@pytest.fixture(scope="package")
async def production_app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.PRODUCTION) as application:
        yield application


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
