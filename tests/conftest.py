"""Test harness: every test runs on SQLite and, when CORRIDOR_TEST_DATABASE_URL is set,
on PostgreSQL too. The schema is always made by the real migrations.

Tests are isolated by tenant: each test bootstraps its own organization, so nothing needs
truncating between tests and lists are naturally scoped.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from cryptography.fernet import Fernet
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from corridor.app import create_app
from corridor.config import Environment, Settings
from corridor.kit.clock import SystemClock
from corridor.kit.migrate import upgrade_to_head_async
from corridor.organizations import service as organizations
from tests import programs

POSTGRES_URL = os.environ.get("CORRIDOR_TEST_DATABASE_URL")
# The server key of the apps the tests build in this process (a Fernet key made per run).
TEST_SECRET_KEY = Fernet.generate_key().decode()
BACKENDS = ["sqlite", *(["postgresql"] if POSTGRES_URL else [])]


class TestClock:
    """System time, unless a test fixes it with `set`; reset after every test."""

    __test__ = False

    def __init__(self) -> None:
        self._fixed: datetime | None = None

    def now(self) -> datetime:
        return self._fixed if self._fixed is not None else SystemClock().now()

    def set(self, at: datetime) -> None:
        assert at.tzinfo is not None
        self._fixed = at

    def reset(self) -> None:
        self._fixed = None


async def _create_postgres_database(base_url: str) -> tuple[str, Callable[[], Awaitable[None]]]:
    """A fresh database for this run, so concurrent runs never share tables."""
    url = make_url(base_url)
    name = f"corridor_test_{uuid.uuid4().hex[:12]}"
    admin_dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(admin_dsn)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()

    async def drop() -> None:
        connection = await asyncpg.connect(admin_dsn)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()

    return url.set(database=name).render_as_string(hide_password=False), drop


@contextlib.asynccontextmanager
async def migrated_database(backend: str, directory: Path) -> AsyncIterator[str]:
    """A database made by the migrations: a SQLite file in `directory`, or a PostgreSQL
    database created for this run and dropped after it."""
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{directory / 'corridor.db'}"
        await upgrade_to_head_async(url)
        yield url
        return
    assert POSTGRES_URL is not None
    url, drop = await _create_postgres_database(POSTGRES_URL)
    try:
        await upgrade_to_head_async(url)
        yield url
    finally:
        await drop()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs_program(*names): programs outside Python the test runs (tests/programs.py)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before any fixture: a live server is not started for a test that will be skipped.
    programs.check_marks(item)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """One line per program outside Python that was missing, with the tests it skipped
    and how to install it (on the controller of a pytest-xdist run too)."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        if isinstance(longrepr, tuple) and len(longrepr) == 3:
            reasons.append(str(longrepr[2]))
    for line in programs.summary_lines(reasons):
        terminalreporter.write_line(line, yellow=True, bold=True)


def backend_of(database_url: str) -> str:
    return "sqlite" if database_url.startswith("sqlite") else "postgresql"


@contextlib.asynccontextmanager
async def built_app(
    database_url: str, env: Environment, **setting_overrides: Any
) -> AsyncIterator[FastAPI]:
    """The app on that database, with a TestClock and no in-process workers. Every app of
    the test process shares one server key (the process holds one: kit/secretbox.py), so
    apps on one database read each other's encrypted secrets."""
    setting_overrides.setdefault("secret_key", TEST_SECRET_KEY)
    # The suite makes thousands of requests from one address, many of them with wrong
    # credentials on purpose: rate limits are off unless a test turns them on.
    setting_overrides.setdefault("rate_limits_enabled", False)
    # Documents are stored (and the upload signing key kept) in a folder of this app's own.
    setting_overrides.setdefault(
        "documents_directory", Path(tempfile.mkdtemp(prefix="corridor-documents-"))
    )
    setting_overrides.setdefault("signing_key", "test-signing-key-" + uuid.uuid4().hex)
    settings = Settings(
        database_url=database_url,
        env=env,
        log_level="WARNING",
        log_format="console",
        **setting_overrides,
    )
    application = create_app(settings, clock=TestClock(), run_workers_in_process=False)
    try:
        yield application
    finally:
        await application.state.database.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
async def database_url(request, tmp_path_factory) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("database")) as url:
        yield url


@pytest.fixture(scope="session")
def backend(database_url: str) -> str:
    return backend_of(database_url)


@pytest.fixture(scope="session")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.SANDBOX) as application:
        yield application


@pytest.fixture(scope="session")
async def production_app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.PRODUCTION) as application:
        yield application


@pytest.fixture
def clock(app) -> TestClock:
    test_clock: TestClock = app.state.clock
    yield test_clock
    test_clock.reset()


def client_for(application, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
    return httpx.AsyncClient(
        transport=transport, base_url="http://testserver", headers=headers or {}
    )


@dataclass
class Tenant:
    """An organization of its own, with an unrestricted key and a console user."""

    organization_id: str
    secret: str
    console_email: str
    console_password: str
    client: httpx.AsyncClient  # sends the unrestricted key as a bearer token

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secret}"}


@pytest.fixture
async def make_tenant(app) -> AsyncIterator[Callable[..., Awaitable[Tenant]]]:
    clients: list[httpx.AsyncClient] = []

    async def make(application=None, *, kind: str = "STANDARD") -> Tenant:
        application = application or app
        settings: Settings = application.state.settings
        async with application.state.database.session() as session, session.begin():
            made = await organizations.bootstrap_organization(
                session,
                name="Test organization",
                key_environment=settings.key_environment,
                now=SystemClock().now(),
            )
            made.organization.kind = kind
        client = client_for(application, {"Authorization": f"Bearer {made.secret}"})
        clients.append(client)
        return Tenant(
            organization_id=made.organization.id,
            secret=made.secret,
            console_email=made.user.email,
            console_password=made.console_password,
            client=client,
        )

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture
async def tenant(make_tenant) -> Tenant:
    return await make_tenant()


@pytest.fixture
async def anonymous(app) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app) as client:
        yield client


def assert_error(response: httpx.Response, status: int, code: str) -> dict:
    """The answer is an error of API.md section 2 with this status and code."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    assert body["requestId"].startswith("req_")
    assert response.headers["x-request-id"] == body["requestId"]
    return body
