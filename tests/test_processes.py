"""Several API processes and a worker on one PostgreSQL database (issue 12): under a burst
bigger than their connection pools, every answer is a success or a 503 to retry, never a
500, and the books still balance."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import httpx
import pytest
from sqlalchemy import func, select, text

from corridor.config import Environment
from corridor.kit.db import Database
from corridor.models.transfer import Transfer
from tests.conftest import POSTGRES_URL, built_app, migrated_database
from tests.live_server import live_corridor
from tests.support import active_customer
from tests.transfers.conftest import assert_books_balance

pytestmark = pytest.mark.skipif(
    POSTGRES_URL is None, reason="several processes share a PostgreSQL database"
)

BURST = 200


async def _payer(client: httpx.AsyncClient) -> dict:
    customer = await active_customer(client)
    accounts = (await client.get(f"/v1/customers/{customer['id']}/accounts")).json()["data"]
    account = next(item for item in accounts if item["currency"] == "USD")
    funded = await client.post(
        f"/v1/sandbox/accounts/{account['id']}/fund",
        json={"amount": {"currency": "USD", "value": "1000000"}},
    )
    assert funded.status_code == 200, funded.text
    external = await client.post(
        "/v1/external-accounts",
        json={
            "customerId": customer["id"],
            "currency": "USD",
            "country": "US",
            "accountHolderName": "Burst Payee",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
    )
    assert external.status_code == 201, external.text
    return {
        "customerId": customer["id"],
        "source": {"accountId": account["id"]},
        "destination": {
            "externalAccountId": external.json()["id"],
            "paymentRail": "ACH",
            "currency": "USD",
        },
        "amount": {"currency": "USD", "value": "100"},
        "confirm": True,
    }


def test_a_burst_over_two_processes_gets_successes_or_503_never_500(tmp_path):
    small_pools = {
        "CORRIDOR_DATABASE_POOL_SIZE": "2",
        "CORRIDOR_DATABASE_POOL_OVERFLOW": "1",
        "CORRIDOR_DATABASE_POOL_TIMEOUT_S": "0.5",
    }
    with live_corridor(
        "postgresql", tmp_path, workers=True, processes=2, settings=small_pools
    ) as live:
        answers = asyncio.run(_burst(live))
        assert "unhandled_error" not in live.log.read_text()
        created = asyncio.run(_books_balance(live.database_url, live.organization_id))
    statuses = sorted({answer.status_code for answer in answers})
    assert set(statuses) <= {201, 503}, [
        a.text for a in answers if a.status_code not in (201, 503)
    ][:3]
    for answer in answers:
        if answer.status_code == 503:
            assert answer.headers["Retry-After"] == "1"
            assert answer.json()["code"] == "service_unavailable"
    succeeded = sum(answer.status_code == 201 for answer in answers)
    assert succeeded > 0
    # Nothing half-done: exactly the answered transfers exist.
    assert created == succeeded


async def _burst(live) -> list[httpx.Response]:
    headers = {"Authorization": f"Bearer {live.api_key}"}
    async with httpx.AsyncClient(base_url=live.base_url, headers=headers, timeout=60) as client:
        body = await _payer(client)
    limits = httpx.Limits(max_connections=BURST, max_keepalive_connections=BURST)
    async with httpx.AsyncClient(
        base_url=live.base_url, headers=headers, timeout=60, limits=limits
    ) as client:
        return list(
            await asyncio.gather(*(client.post("/v1/transfers", json=body) for _ in range(BURST)))
        )


async def _books_balance(database_url: str, organization_id: str) -> int:
    """Check the books and count the organization's transfers."""
    database = Database(database_url)
    try:
        await assert_books_balance(
            SimpleNamespace(state=SimpleNamespace(database=database)), organization_id
        )
        async with database.session(write=False) as session:
            return (
                await session.execute(
                    select(func.count())
                    .select_from(Transfer)
                    .where(Transfer.organization_id == organization_id)
                )
            ).scalar_one()
    finally:
        await database.dispose()


async def test_a_request_that_finds_no_free_connection_is_answered_503_to_retry(
    tmp_path, make_tenant
):
    """Pool exhausted: the request waits `database_pool_timeout_s`, then 503
    `service_unavailable` with Retry-After, and changes nothing."""
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
        database = application.state.database
        async with database.session() as holder:
            await holder.execute(select(1))  # the pool's only connection, held
            refused = await tenant.client.post(
                "/v1/terms-of-service/acceptances", headers={"Idempotency-Key": "held-pool"}
            )
        assert refused.status_code == 503, refused.text
        assert refused.headers["Retry-After"] == "1"
        assert refused.json()["code"] == "service_unavailable"
        # The key was not spent on the refusal: the retry runs afresh.
        retried = await tenant.client.post(
            "/v1/terms-of-service/acceptances", headers={"Idempotency-Key": "held-pool"}
        )
        assert retried.status_code == 201, retried.text
        assert "Idempotent-Replayed" not in retried.headers


async def test_a_connection_the_database_dropped_is_answered_503_and_the_retry_succeeds(
    tmp_path, make_tenant
):
    """The pool does not ping a connection before lending it: one the server closed (a
    restart, an idle timeout) fails its request with 503 to retry, changes nothing, and the
    pool is renewed, so the retry with the same Idempotency-Key succeeds."""
    async with (
        migrated_database("postgresql", tmp_path) as url,
        built_app(url, Environment.SANDBOX) as application,
    ):
        tenant = await make_tenant(application)
        warm = await tenant.client.get("/v1/organizations/current")
        assert warm.status_code == 200, warm.text
        admin = Database(url)
        try:
            async with admin.session() as session:
                killed = await session.scalar(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                )
        finally:
            await admin.dispose()
        assert killed >= 1  # the app's pooled connection(s)
        before = await _acceptance_count(url)
        refused = await tenant.client.post(
            "/v1/terms-of-service/acceptances", headers={"Idempotency-Key": "dropped"}
        )
        assert refused.status_code == 503, refused.text
        assert refused.headers["Retry-After"] == "1"
        assert refused.json()["code"] == "service_unavailable"
        assert await _acceptance_count(url) == before
        retried = await tenant.client.post(
            "/v1/terms-of-service/acceptances", headers={"Idempotency-Key": "dropped"}
        )
        assert retried.status_code == 201, retried.text
        assert "Idempotent-Replayed" not in retried.headers
        assert await _acceptance_count(url) == before + 1


async def _acceptance_count(url: str) -> int:
    database = Database(url)
    try:
        async with database.session() as session:
            return int(await session.scalar(text("SELECT count(*) FROM tos_acceptances")) or 0)
    finally:
        await database.dispose()
