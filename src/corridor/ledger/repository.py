"""Queries of the ledger: accounts, journal entries and postings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Select, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import lock_rows
from corridor.models.ledger import JournalEntry, LedgerAccount, Posting


async def lock_accounts(session: AsyncSession, account_ids: Iterable[str]) -> list[LedgerAccount]:
    """The accounts, freshly read and locked for update in id order."""
    return await lock_rows(session, LedgerAccount, sorted(set(account_ids)))


async def hold_if_available(
    session: AsyncSession,
    *,
    organization_id: str,
    account_id: str,
    amount: int,
    open_status: str,
    now: datetime,
) -> LedgerAccount | None:
    """Raise the account's pending debits by `amount` in one guarded UPDATE … RETURNING
    (the row lock, the check and the write in one round trip), if it is open and has that
    much available; None, changing nothing, when it is not."""
    statement = (
        update(LedgerAccount)
        .where(
            LedgerAccount.id == account_id,
            LedgerAccount.organization_id == organization_id,
            LedgerAccount.status == open_status,
            or_(
                LedgerAccount.allow_negative,
                LedgerAccount.posted_balance - LedgerAccount.pending_debits >= amount,
            ),
        )
        .values(pending_debits=LedgerAccount.pending_debits + amount, updated_at=now)
        .returning(LedgerAccount)
        .execution_options(populate_existing=True, synchronize_session=False)
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def account_by_purpose(
    session: AsyncSession, *, organization_id: str, purpose: str
) -> LedgerAccount | None:
    statement = select(LedgerAccount).where(
        LedgerAccount.organization_id == organization_id, LedgerAccount.purpose == purpose
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def sum_of_postings(session: AsyncSession, account_id: str) -> int:
    statement = select(func.coalesce(func.sum(Posting.amount), 0)).where(
        Posting.account_id == account_id
    )
    return int((await session.execute(statement)).scalar_one())


def postings_of_account(account_id: str) -> Select[Posting]:
    """An account's postings, for `fetch_page` (which orders them newest first)."""
    return select(Posting).where(Posting.account_id == account_id)


async def entry_descriptions(
    session: AsyncSession, journal_entry_ids: Sequence[str]
) -> dict[str, str]:
    if not journal_entry_ids:
        return {}
    statement = select(JournalEntry.id, JournalEntry.description).where(
        JournalEntry.id.in_(set(journal_entry_ids))
    )
    return {row.id: row.description for row in await session.execute(statement)}


async def postings_of_entry(session: AsyncSession, journal_entry_id: str) -> list[Posting]:
    statement = (
        select(Posting).where(Posting.journal_entry_id == journal_entry_id).order_by(Posting.id)
    )
    return list((await session.execute(statement)).scalars())
