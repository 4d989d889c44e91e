"""Ledger fixtures: customers with balance accounts made straight in the database, so the
ledger is tested without the HTTP layer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pytest

from corridor.accounts.service import open_balance_accounts
from corridor.kit.clock import SystemClock
from corridor.kit.ids import new_id
from corridor.ledger import rules, service
from corridor.models.customer import Customer
from corridor.models.ledger import LedgerAccount


@dataclass
class LedgerBooks:
    """One organization's ledger, reached through sessions of the app's database."""

    app: object
    organization_id: str

    @property
    def database(self):
        return self.app.state.database

    def now(self) -> datetime:
        return SystemClock().now()

    async def customer_accounts(self, currencies=("USD", "USDC")) -> dict[str, str]:
        """A new ACTIVE customer's balance accounts: currency → account id."""
        async with self.database.session() as session, session.begin():
            now = self.now()
            customer = Customer(
                id=new_id("cus"),
                organization_id=self.organization_id,
                type="INDIVIDUAL",
                status="ACTIVE",
                email="ledger@example.com",
                name="Ledger Test",
                verification={},
                metadata_={},
                created_at=now,
                updated_at=now,
            )
            session.add(customer)
            await session.flush()
            opened = await open_balance_accounts(session, customer=customer, now=now)
            return {
                account.currency: account.id for account in opened if account.currency in currencies
            }

    async def system_account(self, kind: str, currency: str) -> str:
        async with self.database.session() as session, session.begin():
            account = await service.system_account(
                session,
                organization_id=self.organization_id,
                kind=kind,
                currency=currency,
                now=self.now(),
            )
            return account.id

    async def move(
        self, *, debit: str, credit: str, amount: int, currency: str, kind: str = "TEST"
    ) -> service.PostedEntry:
        async with self.database.session() as session, session.begin():
            return await service.post_entry(
                session,
                organization_id=self.organization_id,
                kind=kind,
                description=f"{kind} of {amount}",
                lines=rules.movement(
                    debit_account_id=debit,
                    credit_account_id=credit,
                    amount=amount,
                    currency=currency,
                ),
                now=self.now(),
            )

    async def fund(self, account_id: str, amount: int, currency: str) -> None:
        source = await self.system_account(rules.SANDBOX_FUNDING, currency)
        await self.move(debit=source, credit=account_id, amount=amount, currency=currency)

    async def account(self, account_id: str) -> LedgerAccount:
        async with self.database.session(write=False) as session:
            account = await session.get(LedgerAccount, account_id)
            assert account is not None
            return account

    async def assert_balance_is_sum_of_postings(self, account_id: str) -> int:
        async with self.database.session(write=False) as session:
            account = await session.get(LedgerAccount, account_id)
            assert account is not None
            assert await service.recompute_balance(session, account_id) == account.posted_balance
            return account.posted_balance


@pytest.fixture
async def books(app, tenant) -> LedgerBooks:
    return LedgerBooks(app=app, organization_id=tenant.organization_id)
