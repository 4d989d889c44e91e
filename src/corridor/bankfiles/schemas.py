"""Request and response models of bank files."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from corridor.kit.clock import isoformat_z
from corridor.kit.schemas import RequestModel, ResponseModel
from corridor.models.bank_file import BankFile, BankFileEntry

content_chars_max = 5_000_000


class BankFileRead(ResponseModel):
    id: str
    direction: str = Field(description="OUTGOING (for the bank) or INCOMING (from it)")
    format: str = Field(
        description="NACHA or PAIN_001 (outgoing); NACHA_RETURN, PAIN_002, PACS_002, "
        "PACS_004 or CAMT_054 (incoming)"
    )
    rail: str | None
    window_cutoff_at: str | None = Field(description="The cutoff of the window it carries")
    name: str
    sha256: str
    entry_count: int
    credit_total: str = Field(description="Minor units")
    debit_total: str = Field(description="Minor units")
    currency: str | None
    status: str = Field(description="WRITTEN or UPLOADED (outgoing); APPLIED or FAILED (incoming)")
    upload_attempts: int
    uploaded_at: str | None
    last_error: str | None
    summary: dict | None = Field(
        description="What reading an incoming file did: answers applied, entries unknown"
    )
    created_at: str

    @classmethod
    def of(cls, file: BankFile) -> BankFileRead:
        return cls(
            id=file.id,
            direction=file.direction,
            format=file.format,
            rail=file.rail,
            window_cutoff_at=isoformat_z(file.window_cutoff_at) if file.window_cutoff_at else None,
            name=file.name,
            sha256=file.sha256,
            entry_count=file.entry_count,
            credit_total=str(file.credit_total),
            debit_total=str(file.debit_total),
            currency=file.currency,
            status=file.status,
            upload_attempts=file.upload_attempts,
            uploaded_at=isoformat_z(file.uploaded_at) if file.uploaded_at else None,
            last_error=file.last_error,
            summary=file.summary,
            created_at=isoformat_z(file.created_at),
        )


class BankFileEntryRead(ResponseModel):
    transfer_id: str
    leg_id: str
    rail: str
    direction: str
    amount: str = Field(description="Minor units")
    currency: str
    reference: str = Field(description="ACH trace number, SEPA end-to-end id or SWIFT UETR")
    status: str = Field(description="QUEUED, FILED, ACCEPTED, SETTLED, REJECTED or RETURNED")
    effective_date: str
    window_cutoff_at: str
    reason_code: str | None
    reason: str | None
    changes: list | None = Field(description="Notifications of change the bank sent")

    @classmethod
    def of(cls, entry: BankFileEntry) -> BankFileEntryRead:
        return cls(
            transfer_id=entry.transfer_id,
            leg_id=entry.leg_id,
            rail=entry.rail,
            direction=entry.direction,
            amount=str(entry.amount),
            currency=entry.currency,
            reference=entry.reference,
            status=entry.status,
            effective_date=entry.effective_date,
            window_cutoff_at=isoformat_z(entry.window_cutoff_at),
            reason_code=entry.reason_code,
            reason=entry.reason,
            changes=entry.changes,
        )


class BankFileEntries(ResponseModel):
    data: list[BankFileEntryRead]


class BankFileImport(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "name": "returns-20261119.ach",
                    "content": "101 123456780 12345678902611191200A094101…",
                }
            ]
        }
    )

    name: str = Field(min_length=1, max_length=200, description="The file's name")
    content: str = Field(
        min_length=1,
        max_length=content_chars_max,
        description="The file as the bank sent it: a NACHA return/NOC file, or an ISO "
        "20022 pain.002, pacs.002, pacs.004 or camt.054 message",
    )
