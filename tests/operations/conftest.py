"""Operations tests (issue 29): a database of their own, so the workers these tests drive
(they call the run functions directly) see only these tests' work."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from fastapi import FastAPI

from corridor.config import Environment
from tests.conftest import BACKENDS, backend_of, built_app, migrated_database
from tests.webhooks.support import Receiver


@pytest.fixture(scope="package", params=BACKENDS)
async def database_url(request, tmp_path_factory) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("operations")) as url:
        yield url


@pytest.fixture(scope="package")
def backend(database_url: str) -> str:
    return backend_of(database_url)


@pytest.fixture(scope="package")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.SANDBOX) as application:
        yield application


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()
