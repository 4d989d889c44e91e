"""Queries of the file rails (rails/files.py): a leg's bank-file entry, and what an ACH
entry needs to know of its receiver. They run in the transfer step's own transaction
(kit.db.unit_of_work)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.bank_file import BankFile, BankFileEntry
from corridor.models.customer import Customer
from corridor.models.party import Counterparty, ExternalAccount
from corridor.models.transfer import Transfer


async def entry_of_leg(session: AsyncSession, leg_id: str) -> BankFileEntry | None:
    found = await session.execute(select(BankFileEntry).where(BankFileEntry.leg_id == leg_id))
    return found.scalar_one_or_none()


async def entry(session: AsyncSession, entry_id: int) -> BankFileEntry | None:
    return await session.get(BankFileEntry, entry_id)


async def transfer(session: AsyncSession, transfer_id: str) -> Transfer | None:
    return await session.get(Transfer, transfer_id)


async def file_uploaded(session: AsyncSession, bank_file_id: str) -> bool:
    file = await session.get(BankFile, bank_file_id)
    return file is not None and file.uploaded_at is not None


async def receiver_of(
    session: AsyncSession, external_account_id: str
) -> tuple[str | None, str | None]:
    """The owner's kind of an external account (INDIVIDUAL or BUSINESS: a customer's type, a
    counterparty's beneficiary type) and the account's type; (None, None) when unknown."""
    account = await session.get(ExternalAccount, external_account_id)
    if account is None:
        return None, None
    kind: str | None = None
    if account.customer_id:
        customer = await session.get(Customer, account.customer_id)
        kind = customer.type if customer else None
    elif account.counterparty_id:
        counterparty = await session.get(Counterparty, account.counterparty_id)
        kind = counterparty.beneficiary_type if counterparty else None
    return kind, account.account_type
