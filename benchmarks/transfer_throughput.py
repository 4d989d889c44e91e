"""Transfers end to end: create + submit + settle, through the whole stack, against raw SQL
doing the same inserts and updates.

One operation is a balance → external bank account payout over ACH (legs DEBIT_BALANCE,
PAYOUT_FIAT): `POST /v1/transfers` with `confirm: true` (auth, validation, parties and
accounts reads, planning, hold, events, commit), then the engine's steps for that
transfer, each in its own transaction as the worker runs them (capture the hold, submit
the payout to the sandbox ACH adapter, poll it settled, complete). The baseline runs the
same row writes as hand-written SQL in the same five transactions, on the same engine.
All operations pay from one customer's balance, so they contend on its row and on
CLEARING, as one busy customer would.
"""

from __future__ import annotations

import json
from datetime import datetime

import httpx
from sqlalchemy import text

from benchmarks.harness import Result, measure
from benchmarks.ledger_posting import _customer_account
from corridor.app import create_app
from corridor.config import Settings
from corridor.kit.clock import SystemClock
from corridor.kit.ids import new_id
from corridor.organizations import service as organizations
from corridor.transfers import repository
from corridor.transfers.engine import advance as engine

AMOUNT_MINOR = 100
steps_per_transfer_max = 10

US_ACCOUNT = {
    "currency": "USD",
    "country": "US",
    "accountHolderName": "Bench Mark",
    "accountNumber": "000123456789",
    "routingNumber": "021000021",
}


async def _settle(database, clock, transfer_id: str) -> None:
    """The engine's steps for one transfer, one transaction each, as the worker runs them."""
    for _ in range(steps_per_transfer_max):
        async with database.session() as session, session.begin():
            transfer = await repository.transfer_by_id(session, transfer_id, for_update=True)
            assert transfer is not None
            if transfer.next_step_at is None:
                assert transfer.status == "COMPLETED", transfer.status
                return
            await engine.step(session, transfer, now=clock.now())
    raise AssertionError(f"{transfer_id} did not settle")


async def _run_api(app, client, *, account_id, external_id, customer_id, operations, concurrency):
    database, clock = app.state.database, SystemClock()
    body = {
        "customerId": customer_id,
        "source": {"accountId": account_id},
        "destination": {"externalAccountId": external_id, "paymentRail": "ACH", "currency": "USD"},
        "amount": {"currency": "USD", "value": str(AMOUNT_MINOR)},
        "confirm": True,
    }

    async def transfer(_: int) -> None:
        response = await client.post("/v1/transfers", json=body)
        assert response.status_code == 201, response.text
        await _settle(database, clock, response.json()["id"])

    return await measure(
        "create+submit+settle via API and engine",
        transfer,
        operations=operations,
        concurrency=concurrency,
    )


class RawTransfers:
    """The same rows the service writes for one payout, as bare SQL."""

    def __init__(self, database, *, organization_id, customer_id, account_id, payload) -> None:
        self.database = database
        self.organization_id = organization_id
        self.customer_id = customer_id
        self.account_id = account_id
        self.payload = payload
        self.lock = "" if database.is_sqlite else " FOR UPDATE"

    async def accounts(self, session, kind: str) -> str:
        row = await session.execute(
            text(
                "SELECT id FROM ledger_accounts WHERE organization_id = :org AND purpose = :purpose"
            ),
            {"org": self.organization_id, "purpose": f"SYSTEM:{kind}:USD"},
        )
        return row.scalar_one()

    async def event(self, session, event_type: str, transfer_id: str, now: datetime) -> None:
        await session.execute(
            text(
                "INSERT INTO events (id, organization_id, type, data, tags, created_at, dispatched_at) "
                "VALUES (:id, :org, :type, :data, :tags, :now, NULL)"
            ),
            {
                "id": new_id("msg"),
                "org": self.organization_id,
                "type": event_type,
                "data": self.payload,
                "tags": json.dumps([transfer_id, self.customer_id]),
                "now": now,
            },
        )

    async def lock_transfer(self, session, transfer_id: str) -> None:
        await session.execute(
            text(f"SELECT id, status FROM transfers WHERE id = :id{self.lock}"), {"id": transfer_id}
        )

    async def update(self, session, table: str, row_id: str, now: datetime, **values) -> None:
        assignments = ", ".join(f"{column} = :{column}" for column in values)
        await session.execute(
            text(f"UPDATE {table} SET {assignments}, updated_at = :now WHERE id = :id"),
            {**values, "now": now, "id": row_id},
        )

    async def post(
        self, session, debit: str, credit: str, kind: str, transfer_id: str, now
    ) -> None:
        balances = dict(
            (
                await session.execute(
                    text(
                        "SELECT id, posted_balance FROM ledger_accounts WHERE id IN (:a, :b) "
                        f"ORDER BY id{self.lock}"
                    ),
                    {"a": debit, "b": credit},
                )
            ).all()
        )
        entry_id = new_id("jnl")
        await session.execute(
            text(
                "INSERT INTO journal_entries (id, organization_id, kind, description, transfer_id, "
                "created_at) VALUES (:id, :org, :kind, 'baseline', :transfer, :now)"
            ),
            {
                "id": entry_id,
                "org": self.organization_id,
                "kind": kind,
                "transfer": transfer_id,
                "now": now,
            },
        )
        for account_id, amount in ((debit, -AMOUNT_MINOR), (credit, AMOUNT_MINOR)):
            await session.execute(
                text(
                    "INSERT INTO postings (id, organization_id, journal_entry_id, account_id, currency, "
                    "amount, balance_after, kind, transfer_id, created_at) VALUES (:id, :org, :entry, "
                    ":account, 'USD', :amount, :after, :kind, :transfer, :now)"
                ),
                {
                    "id": new_id("pst"),
                    "org": self.organization_id,
                    "entry": entry_id,
                    "account": account_id,
                    "amount": amount,
                    "after": balances[account_id] + amount,
                    "kind": kind,
                    "transfer": transfer_id,
                    "now": now,
                },
            )
            await session.execute(
                text(
                    "UPDATE ledger_accounts SET posted_balance = posted_balance + :amount, "
                    "updated_at = :now WHERE id = :id"
                ),
                {"amount": amount, "now": now, "id": account_id},
            )

    async def create_and_submit(self, transfer_id: str, legs: list[str]) -> None:
        now = SystemClock().now()
        async with self.database.session() as session, session.begin():
            await session.execute(
                text(f"SELECT id FROM ledger_accounts WHERE id = :id{self.lock}"),
                {"id": self.account_id},
            )
            document = json.dumps({"accountId": self.account_id})
            await session.execute(
                text(
                    "INSERT INTO transfers (id, organization_id, customer_id, flow, status, "
                    "source_request, destination_request, source, destination, source_account_id, "
                    "source_currency, source_amount, destination_currency, destination_amount, "
                    "is_third_party, document_ids, funding_needed, metadata, created_by, "
                    "current_leg_index, created_at, updated_at) VALUES (:id, :org, :customer, "
                    "'FIAT_TO_FIAT', 'DRAFT', :doc, :doc, :doc, :doc, :account, 'USD', :amount, "
                    "'USD', :amount, false, '[]', false, '{}', 'bench', 0, :now, :now)"
                ),
                {
                    "id": transfer_id,
                    "org": self.organization_id,
                    "customer": self.customer_id,
                    "doc": document,
                    "account": self.account_id,
                    "amount": AMOUNT_MINOR,
                    "now": now,
                },
            )
            for sequence, (leg_id, leg_type) in enumerate(
                zip(legs, ("DEBIT_BALANCE", "PAYOUT_FIAT"), strict=True)
            ):
                await session.execute(
                    text(
                        "INSERT INTO transfer_legs (id, organization_id, transfer_id, sequence, type, "
                        "status, input_currency, output_currency, input_rail, output_rail, "
                        "input_amount, output_amount, rail_attempts, created_at, updated_at) VALUES "
                        "(:id, :org, :transfer, :sequence, :type, 'PENDING', 'USD', 'USD', 'BOOK', "
                        "'ACH', :amount, :amount, 0, :now, :now)"
                    ),
                    {
                        "id": leg_id,
                        "org": self.organization_id,
                        "transfer": transfer_id,
                        "sequence": sequence,
                        "type": leg_type,
                        "amount": AMOUNT_MINOR,
                        "now": now,
                    },
                )
            await self.event(session, "transfer.created", transfer_id, now)
            await session.execute(
                text(
                    "UPDATE ledger_accounts SET pending_debits = pending_debits + :amount, "
                    "updated_at = :now WHERE id = :id"
                ),
                {"amount": AMOUNT_MINOR, "now": now, "id": self.account_id},
            )
            await self.update(
                session, "transfers", transfer_id, now, status="PENDING", next_step_at=now
            )
            await self.event(session, "transfer.pending", transfer_id, now)

    async def settle(self, transfer_id: str, legs: list[str], clearing: str, rail: str) -> None:
        debit, payout = legs
        async with self.database.session() as session, session.begin():
            now = SystemClock().now()
            await self.lock_transfer(session, transfer_id)
            await session.execute(
                text(
                    "UPDATE ledger_accounts SET pending_debits = pending_debits - :amount WHERE id = :id"
                ),
                {"amount": AMOUNT_MINOR, "id": self.account_id},
            )
            await self.post(
                session, self.account_id, clearing, "TRANSFER_FUNDING", transfer_id, now
            )
            await self.update(
                session, "transfer_legs", debit, now, status="COMPLETED", completed_at=now
            )
            await self.event(session, "transfer.leg.updated", transfer_id, now)
            await self.update(
                session, "transfers", transfer_id, now, status="PROCESSING", current_leg_index=1
            )
            await self.event(session, "transfer.processing", transfer_id, now)
        async with self.database.session() as session, session.begin():
            now = SystemClock().now()
            await self.lock_transfer(session, transfer_id)
            await self.update(
                session,
                "transfer_legs",
                payout,
                now,
                status="PROCESSING",
                ach_trace_number="123456780000001",
            )
            await self.update(
                session, "transfers", transfer_id, now, ach_trace_number="123456780000001"
            )
            await self.event(session, "transfer.leg.updated", transfer_id, now)
        async with self.database.session() as session, session.begin():
            now = SystemClock().now()
            await self.lock_transfer(session, transfer_id)
            await self.post(session, clearing, rail, "TRANSFER_PAYOUT", transfer_id, now)
            await self.update(
                session, "transfer_legs", payout, now, status="COMPLETED", completed_at=now
            )
            await self.event(session, "transfer.leg.updated", transfer_id, now)
        async with self.database.session() as session, session.begin():
            now = SystemClock().now()
            await self.lock_transfer(session, transfer_id)
            await self.update(
                session,
                "transfers",
                transfer_id,
                now,
                status="COMPLETED",
                next_step_at=None,
                current_leg_index=None,
            )
            await self.event(session, "transfer.completed", transfer_id, now)


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
        customer_id = (await client.get(f"/v1/accounts/{account_id}")).json()["customerId"]
        funded = await client.post(
            f"/v1/sandbox/accounts/{account_id}/fund",
            json={"amount": {"currency": "USD", "value": str(AMOUNT_MINOR * operations * 3)}},
        )
        funded.raise_for_status()
        external = await client.post(
            "/v1/external-accounts", json={**US_ACCOUNT, "customerId": customer_id}
        )
        external.raise_for_status()
        api = await _run_api(
            app,
            client,
            account_id=account_id,
            external_id=external.json()["id"],
            customer_id=customer_id,
            operations=operations,
            concurrency=concurrency,
        )
        sample = (await client.get("/v1/transfers", params={"limit": 1})).json()["data"][0]

    raw = RawTransfers(
        database,
        organization_id=made.organization.id,
        customer_id=customer_id,
        account_id=account_id,
        payload=json.dumps(sample),
    )
    async with database.session(write=False) as session:
        clearing = await raw.accounts(session, "CLEARING")
        rail = await raw.accounts(session, "RAIL_SETTLEMENT")

    async def raw_transfer(_: int) -> None:
        transfer_id, legs = new_id("tfr"), [new_id("tleg"), new_id("tleg")]
        await raw.create_and_submit(transfer_id, legs)
        await raw.settle(transfer_id, legs, clearing, rail)

    baseline = await measure(
        "raw SQL, same rows", raw_transfer, operations=operations, concurrency=concurrency
    )
    await database.dispose()
    return baseline, api
