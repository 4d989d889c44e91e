"""Queries of bank files and their entries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.kit.clock import Moments
from corridor.models.bank_file import BankFile, BankFileEntry
from corridor.models.organization import Organization
from corridor.rails.files import EntryStatus


@dataclass(frozen=True, slots=True)
class Window:
    organization_id: str
    rail: str
    cutoff_at: datetime


async def due_windows(
    session: AsyncSession, moments: Moments, *, organization_id: str | None, limit: int
) -> list[Window]:
    """Windows whose cutoff has come (by each organization's clock) with entries queued."""
    statement = (
        select(BankFileEntry.organization_id, BankFileEntry.rail, BankFileEntry.window_cutoff_at)
        .where(
            BankFileEntry.status == EntryStatus.QUEUED,
            db.due(BankFileEntry.window_cutoff_at, BankFileEntry.organization_id, moments),
        )
        .group_by(BankFileEntry.organization_id, BankFileEntry.rail, BankFileEntry.window_cutoff_at)
        .order_by(BankFileEntry.window_cutoff_at)
        .limit(limit)
    )
    if organization_id is not None:
        statement = statement.where(BankFileEntry.organization_id == organization_id)
    return [Window(*row) for row in await session.execute(statement)]


async def queued_entries(
    session: AsyncSession, window: Window, *, limit: int
) -> list[BankFileEntry]:
    statement = (
        select(BankFileEntry)
        .where(
            BankFileEntry.organization_id == window.organization_id,
            BankFileEntry.rail == window.rail,
            BankFileEntry.window_cutoff_at == window.cutoff_at,
            BankFileEntry.status == EntryStatus.QUEUED,
        )
        .order_by(BankFileEntry.id)
        .limit(limit)
    )
    statement = db.for_update(session, statement, skip_locked=True)
    return list((await session.execute(statement)).scalars())


async def window_file(session: AsyncSession, window: Window) -> BankFile | None:
    statement = select(BankFile).where(
        BankFile.organization_id == window.organization_id,
        BankFile.rail == window.rail,
        BankFile.window_cutoff_at == window.cutoff_at,
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def organization(session: AsyncSession, organization_id: str) -> Organization:
    found = await db.get_kept(session, Organization, organization_id)
    assert found is not None
    return found


async def organization_or_none(session: AsyncSession, organization_id: str) -> Organization | None:
    return await db.get_kept(session, Organization, organization_id)


# --- Reading files back ---------------------------------------------------------------------


async def incoming_by_sha(
    session: AsyncSession, organization_id: str, sha256: str
) -> BankFile | None:
    statement = select(BankFile).where(
        BankFile.organization_id == organization_id,
        BankFile.direction == "INCOMING",
        BankFile.sha256 == sha256,
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def entries_named(
    session: AsyncSession, organization_id: str, references: Sequence[str]
) -> list[BankFileEntry]:
    """Entries an answer names: by reference (trace, end-to-end id, UETR) or transfer id."""
    if not references:
        return []
    wanted = sorted(set(references))
    statement = (
        select(BankFileEntry)
        .where(
            BankFileEntry.organization_id == organization_id,
            (BankFileEntry.reference.in_(wanted)) | (BankFileEntry.transfer_id.in_(wanted)),
        )
        .order_by(BankFileEntry.id)
    )
    return list((await session.execute(db.for_update(session, statement))).scalars())


async def entries_of_file(session: AsyncSession, bank_file_id: str) -> list[BankFileEntry]:
    statement = (
        select(BankFileEntry)
        .where(BankFileEntry.bank_file_id == bank_file_id)
        .order_by(BankFileEntry.id)
    )
    return list((await session.execute(statement)).scalars())


# --- The API's reads ------------------------------------------------------------------------


def visible_files(caller: Caller) -> Select[BankFile]:
    return select(BankFile).where(BankFile.organization_id == caller.organization_id)


def filtered_files(
    caller: Caller, *, direction: str | None, rail: str | None, status: str | None
) -> Select[BankFile]:
    statement = visible_files(caller)
    for column, value in (
        (BankFile.direction, direction),
        (BankFile.rail, rail),
        (BankFile.status, status),
    ):
        if value is not None:
            statement = statement.where(column == value)
    return statement


async def file_of(session: AsyncSession, caller: Caller, bank_file_id: str) -> BankFile:
    return await db.get_visible(session, visible_files(caller), bank_file_id)


# --- Uploads --------------------------------------------------------------------------------


async def files_to_upload(
    session: AsyncSession, moments: Moments, *, organization_id: str | None, limit: int
) -> list[str]:
    statement = (
        select(BankFile.id)
        .where(
            BankFile.direction == "OUTGOING",
            BankFile.status == "WRITTEN",
            BankFile.next_upload_at.is_not(None),
            db.due(BankFile.next_upload_at, BankFile.organization_id, moments),
        )
        .order_by(BankFile.next_upload_at)
        .limit(limit)
    )
    if organization_id is not None:
        statement = statement.where(BankFile.organization_id == organization_id)
    return list((await session.execute(statement)).scalars())


async def file_for_upload(session: AsyncSession, bank_file_id: str) -> BankFile | None:
    statement = select(BankFile).where(BankFile.id == bank_file_id, BankFile.status == "WRITTEN")
    statement = db.for_update(session, statement, skip_locked=True)
    return (await session.execute(statement)).scalar_one_or_none()


async def organizations_with_files(session: AsyncSession) -> list[str]:
    statement = (
        select(BankFileEntry.organization_id).distinct().order_by(BankFileEntry.organization_id)
    )
    return list((await session.execute(statement)).scalars())


async def files_by_ids(session: AsyncSession, bank_file_ids: Sequence[str]) -> list[BankFile]:
    """The files of `bank_file_ids`, in that order (those that exist)."""
    if not bank_file_ids:
        return []
    found = await session.execute(select(BankFile).where(BankFile.id.in_(bank_file_ids)))
    by_id = {file.id: file for file in found.scalars()}
    return [by_id[file_id] for file_id in bank_file_ids if file_id in by_id]


async def rearm_failed_uploads(
    session: AsyncSession, *, organization_id: str, now: datetime
) -> int:
    """Outgoing files whose automatic upload retries ran out become due again."""
    result = await session.execute(
        update(BankFile)
        .where(
            BankFile.organization_id == organization_id,
            BankFile.direction == "OUTGOING",
            BankFile.status == "WRITTEN",
            BankFile.next_upload_at.is_(None),
        )
        .values(next_upload_at=now, upload_attempts=0)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
