"""Ledger posting through the whole API stack, against raw SQL doing the same writes.

The API side funds a balance account with POST /v1/sandbox/accounts/{id}/fund (auth,
validation, row lock, journal entry, two postings, two balance updates, outbox event,
commit). The baseline runs the same inserts and updates as hand-written SQL on the same
engine, so the ratio shows what the service layers cost over the bare database work.
"""

from __future__ import annotations

import httpx
from sqlalchemy import text

from benchmarks.harness import Result, measure
from corridor.app import create_app
from corridor.config import Settings
from corridor.kit.clock import SystemClock
from corridor.kit.ids import new_id
from corridor.organizations import service as organizations


async def _customer_account(client: httpx.AsyncClient) -> str:
    tos = (await client.post("/v1/terms-of-service/acceptances", json={})).json()["id"]
    await client.post(f"/v1/terms-of-service/acceptances/{tos}/accept", json={})
    customer = await client.post(
        "/v1/customers/individual",
        json={
            "firstName": "Bench",
            "lastName": "Mark",
            "email": "bench@example.com",
            "dateOfBirth": "1990-01-01",
            "taxIdentificationNumber": "123-45-6789",
            "address": {
                "addressLine1": "1 Main St",
                "city": "Austin",
                "state": "TX",
                "postalCode": "78701",
                "country": "US",
            },
            "tosAcceptanceId": tos,
        },
    )
    customer.raise_for_status()
    customer_id = customer.json()["id"]
    (await client.post(f"/v1/customers/{customer_id}/submit-verification")).raise_for_status()
    (
        await client.post(
            f"/v1/sandbox/customers/{customer_id}/verification-status", json={"status": "ACTIVE"}
        )
    ).raise_for_status()
    accounts = (await client.get(f"/v1/customers/{customer_id}/accounts")).json()["data"]
    return next(account["id"] for account in accounts if account["currency"] == "USD")


async def run(database_url: str, *, operations: int, concurrency: int) -> tuple[Result, Result]:
    app = create_app(
        Settings(
            database_url=database_url,
            log_level="WARNING",
            # One key drives the whole load: keep the per-key limit (and its cost) above it.
            rate_limit_requests_per_key=1_000_000,
        ),
        run_workers_in_process=False,
    )
    database = app.state.database
    async with database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="Benchmark", key_environment="sandbox", now=SystemClock().now()
        )
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {made.secret}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://bench", headers=headers
    ) as client:
        account_id = await _customer_account(client)

        async def fund(_: int) -> None:
            response = await client.post(
                f"/v1/sandbox/accounts/{account_id}/fund",
                json={"amount": {"currency": "USD", "value": "100"}},
            )
            assert response.status_code == 200, response.text

        api = await measure(
            "sandbox fund via API", fund, operations=operations, concurrency=concurrency
        )

    async with database.session(write=False) as session:
        funding_account_id = (
            await session.execute(
                text(
                    "SELECT id FROM ledger_accounts WHERE organization_id = :org AND kind = 'SANDBOX_FUNDING'"
                ),
                {"org": made.organization.id},
            )
        ).scalar_one()
    lock = "" if database.is_sqlite else " FOR UPDATE"

    async def raw_posting(_: int) -> None:
        now = SystemClock().now()
        entry_id = new_id("jnl")
        async with database.session() as session, session.begin():
            balances = dict(
                (
                    await session.execute(
                        text(
                            f"SELECT id, posted_balance FROM ledger_accounts WHERE id IN (:a, :b) ORDER BY id{lock}"
                        ),
                        {"a": account_id, "b": funding_account_id},
                    )
                ).all()
            )
            await session.execute(
                text(
                    "INSERT INTO journal_entries (id, organization_id, kind, description, transfer_id, created_at) "
                    "VALUES (:id, :org, 'SANDBOX_FUNDING', 'baseline', NULL, :now)"
                ),
                {"id": entry_id, "org": made.organization.id, "now": now},
            )
            for ledger_account, amount in ((funding_account_id, -100), (account_id, 100)):
                await session.execute(
                    text(
                        "INSERT INTO postings (id, organization_id, journal_entry_id, account_id, currency, amount, "
                        "balance_after, kind, transfer_id, created_at) VALUES (:id, :org, :entry, :account, 'USD', "
                        ":amount, :after, 'SANDBOX_FUNDING', NULL, :now)"
                    ),
                    {
                        "id": new_id("pst"),
                        "org": made.organization.id,
                        "entry": entry_id,
                        "account": ledger_account,
                        "amount": amount,
                        "after": balances[ledger_account] + amount,
                        "now": now,
                    },
                )
                await session.execute(
                    text(
                        "UPDATE ledger_accounts SET posted_balance = posted_balance + :amount, updated_at = :now "
                        "WHERE id = :id"
                    ),
                    {"amount": amount, "now": now, "id": ledger_account},
                )

    baseline = await measure(
        "raw SQL posting", raw_posting, operations=operations, concurrency=concurrency
    )
    await database.dispose()
    return baseline, api
