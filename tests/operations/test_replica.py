"""Read replicas against a real streaming standby (tests/operations/standby.py): lists and
other reads that decide nothing are served from the standby, a hold reads the primary, and
past the lag bound (or with the standby gone) reads fall back to the primary; the lag shows
in /metrics and readiness."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy import text

from corridor.config import Environment
from corridor.kit.clock import SystemClock
from corridor.kit.db import Database
from corridor.organizations import service as organizations
from corridor.workers.operations import Heartbeat
from tests.conftest import POSTGRES_URL, Tenant, built_app, client_for, migrated_database
from tests.operations.standby import standby_url, streaming_standby
from tests.operations.support import payer, value
from tests.programs import needs

pytestmark = [
    pytest.mark.skipif(POSTGRES_URL is None, reason="a replica of the PostgreSQL test server"),
]
poll_s_max = 120


async def _until(condition, what: str) -> None:
    deadline = time.monotonic() + poll_s_max
    while not await condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.1)


async def _standby_sql(url: str, statement: str) -> None:
    connection = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@pytest.fixture
async def primary_and_standby(tmp_path) -> AsyncIterator[tuple[str, str]]:
    async with streaming_standby() as port:
        async with migrated_database("postgresql", tmp_path) as url:
            yield url, standby_url(url, port)


async def _tenant(application) -> Tenant:
    async with application.state.database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="Replica test", key_environment="sandbox", now=SystemClock().now()
        )
    return Tenant(
        organization_id=made.organization.id,
        secret=made.secret,
        console_email=made.user.email,
        console_password=made.console_password,
        client=client_for(application, {"Authorization": f"Bearer {made.secret}"}),
    )


@needs("pg_basebackup", "pg_ctl")
async def test_lists_read_the_standby_holds_the_primary_and_lag_falls_back(
    primary_and_standby,
):
    primary, standby = primary_and_standby
    async with built_app(
        primary,
        Environment.SANDBOX,
        database_replica_url=standby,
        database_replica_lag_max_s=3600,
    ) as application:
        database: Database = application.state.database
        replica = database.replica
        assert replica is not None
        tenant = await _tenant(application)
        client = tenant.client
        body = await payer(client)
        first = await client.post("/v1/transfers", json=body)
        assert first.status_code == 201, first.text

        async def caught_up() -> bool:
            return await replica.measure(database.engine) == 0.0

        await _until(caught_up, "the standby never caught up")
        listed = await client.get("/v1/transfers")
        assert [item["id"] for item in listed.json()["data"]] == [first.json()["id"]]

        # The standby stops replaying: it keeps answering, with what it had.
        await _standby_sql(standby, "SELECT pg_wal_replay_pause()")
        try:
            # More money, on the primary only; a transfer that needs it.
            account = body["source"]["accountId"]
            funded = await client.post(
                f"/v1/sandbox/accounts/{account}/fund",
                json={"amount": {"currency": "USD", "value": "5000000"}},
            )
            assert funded.status_code == 200, funded.text
            big = {**body, "amount": {"currency": "USD", "value": "5500000"}}
            second = await client.post("/v1/transfers", json=big)
            # The hold read the balance on the primary (the standby has too little).
            assert second.status_code == 201, second.text
            before = value(await _metrics(client), "corridor_db_reads_total", target="replica")

            await replica.measure(database.engine)
            assert replica.fresh  # behind, but within the bound of an hour
            listed = await client.get("/v1/transfers")
            assert listed.status_code == 200
            # Served by the standby: the second transfer is not there yet …
            assert [item["id"] for item in listed.json()["data"]] == [first.json()["id"]]
            # … while a single transfer is read on the primary.
            shown = await client.get(f"/v1/transfers/{second.json()['id']}")
            assert shown.status_code == 200
            after = value(await _metrics(client), "corridor_db_reads_total", target="replica")
            assert after == before + 1
            # Every reading endpoint runs on the standby (which refuses any write).
            messages = (await client.get("/v1/webhooks/messages")).json()["data"]
            for path in _reading_paths(body, first.json(), messages[0]["id"]):
                answer = await client.get(path)
                assert answer.status_code == 200, (path, answer.text)

            # Past the bound, reads fall back to the primary.
            replica.lag_max_s = 1.0

            async def lagging() -> bool:
                await replica.measure(database.engine)
                return not replica.fresh

            await _until(lagging, "the paused standby never fell behind the bound")
            listed = await client.get("/v1/transfers")
            assert {item["id"] for item in listed.json()["data"]} == {
                first.json()["id"],
                second.json()["id"],
            }
            shown_metrics = await _metrics(client)
            assert value(shown_metrics, "corridor_db_reads_total", target="fallback") >= 1
            assert value(shown_metrics, "corridor_db_replica_lag_seconds", database="replica") > 1
            await Heartbeat().beat(database, application.state.clock)
            ready = await client.get("/v1/health/ready")
            # Reads go to the primary meanwhile: the process stays ready.
            assert ready.status_code == 200, ready.text
            assert ready.json()["checks"]["replica"]["status"] == "lagging"
            assert ready.json()["checks"]["replica"]["lagSeconds"] > 1
        finally:
            await _standby_sql(standby, "SELECT pg_wal_replay_resume()")
        replica.lag_max_s = 3600
        await _until(caught_up, "the standby never caught up again")
        listed = await client.get("/v1/transfers")
        assert len(listed.json()["data"]) == 2
        ready = await client.get("/v1/health/ready")
        assert ready.json()["checks"]["replica"] == {
            "status": "ok",
            "lagSeconds": 0.0,
            "lagMaxSeconds": 3600.0,
        }
        await client.aclose()


def _reading_paths(body: dict, transfer: dict, message_id: str) -> list[str]:
    customer, account = body["customerId"], body["source"]["accountId"]
    period = transfer["createdAt"][:7]
    return [
        "/v1/customers",
        "/v1/accounts",
        f"/v1/customers/{customer}/accounts",
        f"/v1/accounts/{account}/balance-transactions",
        f"/v1/customers/{customer}/transfers",
        f"/v1/accounts/{account}/transfers",
        "/v1/counterparties",
        "/v1/external-accounts",
        "/v1/external-wallets",
        "/v1/webhooks/messages",
        f"/v1/webhooks/messages/{message_id}/attempts",
        "/v1/agents",
        "/v1/fixed-routes",
        f"/v1/customers/{customer}/fixed-routes",
        f"/v1/customers/{customer}/unmatched-deposits",
        f"/v1/accounts/{account}/virtual-accounts",
        f"/v1/accounts/{account}/statements/{period}",
        f"/v1/accounts/{account}/statements/{period}?format=csv",
        f"/v1/accounts/{account}/statements/{period}?format=pdf",
    ]


async def _metrics(client) -> str:
    answer = await client.get("/metrics")
    assert answer.status_code == 200
    return answer.text


async def test_a_replica_that_does_not_answer_sends_reads_to_the_primary(tmp_path):
    async with migrated_database("postgresql", tmp_path) as primary:
        nowhere = primary.rsplit("@", 1)[0] + "@127.0.0.1:1/none"
        async with built_app(
            primary, Environment.SANDBOX, database_replica_url=nowhere
        ) as application:
            database: Database = application.state.database
            assert database.replica is not None
            # Not yet measured: the primary, until the replica proves fresh.
            assert not database.reads_from_replica
            assert math.isinf(await database.replica.measure(database.engine))
            assert not database.reads_from_replica
            tenant = await _tenant(application)
            listed = await tenant.client.get("/v1/transfers")
            assert listed.status_code == 200, listed.text
            ready = await tenant.client.get("/v1/health/ready")
            assert ready.json()["checks"]["replica"]["status"] == "unreachable"
            assert ready.json()["checks"]["replica"]["lagSeconds"] is None
            async with database.reading_session() as session:
                assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
            await tenant.client.aclose()
