"""Balance accounts: opened when a customer becomes ACTIVE, one per configured currency."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.ids import new_id
from corridor.models.customer import Customer
from corridor.models.ledger import LedgerAccount
from corridor.models.organization import Organization

CUSTOMER_BALANCE = "CUSTOMER_BALANCE"


def customer_balance_purpose(customer_id: str, currency_code: str) -> str:
    return f"{CUSTOMER_BALANCE}:{customer_id}:{currency_code}"


async def open_balance_accounts(session: AsyncSession, *, customer: Customer, now: datetime) -> list[LedgerAccount]:
    """Open the customer's missing balance accounts; returns the ones opened now.

    Called in the transaction that makes the customer ACTIVE. Reactivating a customer
    opens nothing twice: an account exists once per customer and currency.
    """
    organization = await session.get(Organization, customer.organization_id)
    assert organization is not None
    currencies = organization.configuration.get("accountCurrencies") or ["USD", "USDC"]
    existing = set(
        (
            await session.execute(
                select(LedgerAccount.currency).where(
                    LedgerAccount.organization_id == customer.organization_id,
                    LedgerAccount.customer_id == customer.id,
                    LedgerAccount.kind == CUSTOMER_BALANCE,
                )
            )
        ).scalars()
    )
    opened = []
    for currency_code in currencies:
        if currency_code in existing:
            continue
        account = LedgerAccount(
            id=new_id("acc"),
            organization_id=customer.organization_id,
            customer_id=customer.id,
            kind=CUSTOMER_BALANCE,
            purpose=customer_balance_purpose(customer.id, currency_code),
            currency=currency_code,
            status="OPEN",
            allow_negative=False,
            posted_balance=0,
            pending_debits=0,
            pending_credits=0,
            created_at=now,
            updated_at=now,
        )
        session.add(account)
        opened.append(account)
    await session.flush()
    return opened
