"""Queries of statements, their lines, and the payments lines are matched to."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.models.bank_file import BankFileEntry
from corridor.models.reconciliation import BankStatement, StatementLine
from corridor.models.transfer import Deposit

batch_references_max = 500


async def statement_by_sha(
    session: AsyncSession, organization_id: str, sha256: str
) -> BankStatement | None:
    statement = select(BankStatement).where(
        BankStatement.organization_id == organization_id, BankStatement.sha256 == sha256
    )
    return (await session.execute(statement)).scalars().first()


async def entries_named(
    session: AsyncSession, organization_id: str, references: Sequence[str]
) -> list[BankFileEntry]:
    """Bank-file entries by reference (trace, end-to-end id, UETR) or transfer id, in
    batches (a statement of thousands of lines is a few queries)."""
    wanted = sorted(set(references))
    found: list[BankFileEntry] = []
    for start in range(0, len(wanted), batch_references_max):
        chunk = wanted[start : start + batch_references_max]
        statement = select(BankFileEntry).where(
            BankFileEntry.organization_id == organization_id,
            BankFileEntry.reference.in_(chunk) | BankFileEntry.transfer_id.in_(chunk),
        )
        found.extend((await session.execute(statement)).scalars())
    return found


async def matched_keys(
    session: AsyncSession, organization_id: str, references: Sequence[str]
) -> set[tuple[str, str]]:
    """(reference, direction) of lines already matched by earlier statements."""
    wanted = sorted(set(references))
    found: set[tuple[str, str]] = set()
    for start in range(0, len(wanted), batch_references_max):
        chunk = wanted[start : start + batch_references_max]
        statement = select(StatementLine.reference, StatementLine.direction).where(
            StatementLine.organization_id == organization_id,
            StatementLine.status == "MATCHED",
            StatementLine.reference.in_(chunk),
        )
        found.update(
            (str(reference), str(direction))
            for reference, direction in await session.execute(statement)
        )
    return found


async def deposits_named(
    session: AsyncSession, organization_id: str, references: Sequence[str]
) -> list[Deposit]:
    """Deposits quoting these references (a wire or ACH credit to a virtual account), in
    order of arrival, in batches."""
    wanted = sorted(set(references))
    found: list[Deposit] = []
    for start in range(0, len(wanted), batch_references_max):
        chunk = wanted[start : start + batch_references_max]
        statement = (
            select(Deposit)
            .where(Deposit.organization_id == organization_id, Deposit.reference.in_(chunk))
            .order_by(Deposit.received_at, Deposit.id)
        )
        found.extend((await session.execute(statement)).scalars())
    return found


async def matched_deposit_ids(
    session: AsyncSession, organization_id: str, deposit_ids: Sequence[str]
) -> set[str]:
    """The deposits among these that lines of earlier statements matched."""
    wanted = sorted(set(deposit_ids))
    found: set[str] = set()
    for start in range(0, len(wanted), batch_references_max):
        chunk = wanted[start : start + batch_references_max]
        statement = select(StatementLine.deposit_id).where(
            StatementLine.organization_id == organization_id,
            StatementLine.status == "MATCHED",
            StatementLine.deposit_id.in_(chunk),
        )
        found.update(str(deposit_id) for deposit_id in (await session.execute(statement)).scalars())
    return found


def visible_statements(caller: Caller) -> Select[BankStatement]:
    return select(BankStatement).where(BankStatement.organization_id == caller.organization_id)


def visible_lines(caller: Caller) -> Select[StatementLine]:
    return select(StatementLine).where(StatementLine.organization_id == caller.organization_id)


def listed_lines(
    caller: Caller, *, status: str | None, statement_id: str | None
) -> Select[StatementLine]:
    """The caller's statement lines by the list's filters."""
    statement = visible_lines(caller)
    if status is not None:
        statement = statement.where(StatementLine.status == status)
    if statement_id is not None:
        statement = statement.where(StatementLine.statement_id == statement_id)
    return statement


async def line_of(
    session: AsyncSession, caller: Caller, line_id: str, *, locked: bool
) -> StatementLine:
    return await db.get_visible(session, visible_lines(caller), line_id, locked=locked)


async def statement_of(session: AsyncSession, caller: Caller, statement_id: str) -> BankStatement:
    return await db.get_visible(session, visible_statements(caller), statement_id)
