"""The bank files' events: `bank_file.written`, `bank_file.uploaded`, `bank_file.received`,
and `bank_file.change_notified` (a NOC: the bank corrected a receiver's details)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.bankfiles.schemas import BankFileRead
from corridor.models.bank_file import BankFile
from corridor.models.event import emit

WRITTEN = "bank_file.written"
UPLOADED = "bank_file.uploaded"
RECEIVED = "bank_file.received"
CHANGE_NOTIFIED = "bank_file.change_notified"


def file_event(session: AsyncSession, event_type: str, file: BankFile, *, now: datetime) -> None:
    emit(
        session,
        organization_id=file.organization_id,
        event_type=event_type,
        data=BankFileRead.of(file).model_dump(mode="json", by_alias=True),
        tags=[file.id],
        at=now,
    )


def change_event(
    session: AsyncSession, *, organization_id: str, data: dict[str, Any], now: datetime
) -> None:
    emit(
        session,
        organization_id=organization_id,
        event_type=CHANGE_NOTIFIED,
        data=data,
        tags=[data["bankFileId"], data["transferId"]],
        at=now,
    )
