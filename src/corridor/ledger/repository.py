"""Queries of the ledger: accounts, journal entries and postings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Select, Table, Update, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import lock_rows, set_loaded
from corridor.kit.prepared import PreparedRead
from corridor.models.ledger import JournalEntry, LedgerAccount, Posting


async def lock_accounts(session: AsyncSession, account_ids: Iterable[str]) -> list[LedgerAccount]:
    """The accounts, freshly read and locked for update in id order."""
    return await lock_rows(session, LedgerAccount, sorted(set(account_ids)))


_ACCOUNTS = cast("Table", LedgerAccount.__table__)


def _hold() -> Update:
    accounts = _ACCOUNTS.c
    return (
        update(_ACCOUNTS)
        .where(
            accounts.id == bindparam("hold_account_id"),
            accounts.organization_id == bindparam("hold_organization_id"),
            accounts.status == bindparam("open_status"),
            or_(
                accounts.allow_negative,
                accounts.posted_balance - accounts.pending_debits >= bindparam("amount"),
            ),
        )
        .values(
            pending_debits=accounts.pending_debits + bindparam("amount"),
            updated_at=bindparam("held_at"),
        )
        .returning(accounts.pending_debits, accounts.updated_at)
    )


# Built once and sent on the driver: a statement built for every hold, and the ORM's
# UPDATE … RETURNING of the whole account, cost three times the round trip's CPU.
_HOLD = PreparedRead(_hold())


async def hold_if_available(
    session: AsyncSession,
    *,
    organization_id: str,
    account_id: str,
    amount: int,
    open_status: str,
    now: datetime,
) -> bool:
    """Raise the account's pending debits by `amount` in one guarded UPDATE … RETURNING
    (the row lock, the check and the write in one round trip), if it is open and has that
    much available; False, changing nothing, when it is not. An account this unit of work
    holds already is given what the statement wrote, as a fresh read would give it."""
    written = await _HOLD.rows(
        session,
        {
            "hold_account_id": account_id,
            "hold_organization_id": organization_id,
            "open_status": open_status,
            "amount": amount,
            "held_at": now,
        },
    )
    if not written:
        return False
    pending_debits, updated_at = written[0]
    set_loaded(
        session, LedgerAccount, account_id, pending_debits=pending_debits, updated_at=updated_at
    )
    return True


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
