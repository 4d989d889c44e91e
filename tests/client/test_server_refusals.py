"""429 and 503 answered by the server itself (issue 30 item 1) arrive as the SDK's typed
errors, with the wait the server asked for: RateLimitError on both databases, and
ServiceUnavailableError where a pool can run out (PostgreSQL)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from corridor.config import Environment
from corridor_client import AsyncCorridor, RateLimitError, RetryPolicy
from corridor_client.errors import ServiceUnavailableError
from tests.conftest import POSTGRES_URL, built_app, migrated_database

# Raised at once: the SDK retries 429 and 503 by default.
NO_RETRY = RetryPolicy(attempts_max=1)


def _in_process(application, secret: str) -> AsyncCorridor:
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=application), base_url="http://testserver"
    )
    return AsyncCorridor(
        api_key=secret, base_url="http://testserver", http_client=http, retry_policy=NO_RETRY
    )


async def test_a_rate_limited_request_raises_rate_limit_error(database_url, make_tenant):
    async with built_app(
        database_url, Environment.SANDBOX, rate_limits_enabled=True, rate_limit_requests_per_key=1
    ) as application:
        tenant = await make_tenant(application)
        async with _in_process(application, tenant.secret) as corridor:
            with pytest.raises(RateLimitError) as raised:
                for _ in range(3):
                    await corridor.organizations.current()
    error = raised.value
    assert (error.status, error.code) == (429, "rate_limited")
    assert error.retry_after_s is not None and error.retry_after_s >= 1
    assert error.headers["ratelimit-remaining"] == "0"
    assert error.request_id.startswith("req_")


@pytest.mark.skipif(
    POSTGRES_URL is None,
    reason="SQLite's writers queue for its one connection: no pool to run out of",
)
async def test_a_request_that_finds_no_connection_raises_service_unavailable(tmp_path, make_tenant):
    async with (
        migrated_database("postgresql", tmp_path) as url,
        built_app(
            url,
            Environment.SANDBOX,
            database_pool_size=1,
            database_pool_overflow=0,
            database_pool_timeout_s=0.2,
        ) as application,
    ):
        tenant = await make_tenant(application)
        async with _in_process(application, tenant.secret) as corridor:
            async with application.state.database.session() as holder:
                await holder.execute(select(1))  # the pool's only connection, held
                with pytest.raises(ServiceUnavailableError) as raised:
                    await corridor.organizations.current()
            served = await corridor.organizations.current()  # free again: served
    error = raised.value
    assert (error.status, error.code) == (503, "service_unavailable")
    assert error.headers["retry-after"] == "1"
    assert served.id == tenant.organization_id
