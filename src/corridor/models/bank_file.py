"""Bank files (issue 27): the payments a file rail queued for its next window, the files
written for the bank (NACHA, pain.001) and the files the bank sent back (returns, NOCs,
status reports), each read and applied once."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, MinorUnits, id_column


class BankFileEntry(Base):
    """One payment a file rail took: queued for its window, then written into a file,
    then settled, rejected or returned as the bank says."""

    __tablename__ = "bank_file_entries"
    __table_args__ = (
        UniqueConstraint("leg_id", name="uq_bank_file_entries_leg_id"),
        Index(
            "ix_bank_file_entries_window", "organization_id", "rail", "status", "window_cutoff_at"
        ),
        Index("ix_bank_file_entries_reference", "reference"),
        Index("ix_bank_file_entries_bank_file_id", "bank_file_id"),
    )

    # A number, not a ULID: the ACH trace number's sequence is drawn from it.
    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    transfer_id: Mapped[str] = mapped_column(String(40))
    leg_id: Mapped[str] = mapped_column(String(40))
    rail: Mapped[str] = mapped_column(String(20))
    direction: Mapped[str] = mapped_column(String(10))  # CREDIT (pay out) or DEBIT (pull)
    currency: Mapped[str] = mapped_column(String(10))
    amount: Mapped[int] = mapped_column(MinorUnits)
    # ACH trace number, SEPA end-to-end id, or SWIFT UETR: how the bank's answers name it.
    reference: Mapped[str] = mapped_column(String(64))
    # The cutoff of the window whose file carries it, and the business day it settles.
    window_cutoff_at: Mapped[datetime]
    effective_date: Mapped[str] = mapped_column(String(10))  # YYYY-MM-DD
    settles_at: Mapped[datetime]
    beneficiary: Mapped[dict[str, Any]]
    details: Mapped[dict[str, Any]]  # SEC code, transaction code, remittance, correspondent
    # QUEUED → FILED → (ACCEPTED) → SETTLED | REJECTED | RETURNED
    status: Mapped[str] = mapped_column(String(20))
    bank_file_id: Mapped[str | None] = mapped_column(String(40))
    reason_code: Mapped[str | None] = mapped_column(String(10))
    reason: Mapped[str | None] = mapped_column(String(500))
    changes: Mapped[list[Any] | None]  # notifications of change (NOC) received
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class BankFile(Base):
    """A file for the bank (OUTGOING) or from it (INCOMING)."""

    __tablename__ = "bank_files"
    id_prefix, resource_name = "bkf", "bank file"
    __table_args__ = (
        Index("ix_bank_files_organization_id", "organization_id", "id"),
        Index("ix_bank_files_upload", "direction", "status", "next_upload_at"),
        # One file per window and rail (a retried writer never writes a second one), and
        # an incoming file read once, whatever its name.
        UniqueConstraint(
            "organization_id", "rail", "window_cutoff_at", name="uq_bank_files_window"
        ),
        UniqueConstraint("organization_id", "direction", "sha256", name="uq_bank_files_sha256"),
    )

    id: Mapped[str] = id_column()  # bkf_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    direction: Mapped[str] = mapped_column(String(10))  # OUTGOING or INCOMING
    # NACHA, PAIN_001 (outgoing); NACHA_RETURN, PAIN_002, PACS_002, PACS_004, CAMT_054
    format: Mapped[str] = mapped_column(String(20))
    rail: Mapped[str | None] = mapped_column(String(20))
    window_cutoff_at: Mapped[datetime | None]
    name: Mapped[str] = mapped_column(String(200))
    content: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    entry_count: Mapped[int] = mapped_column(Integer)
    credit_total: Mapped[int] = mapped_column(MinorUnits)
    debit_total: Mapped[int] = mapped_column(MinorUnits)
    currency: Mapped[str | None] = mapped_column(String(10))
    # OUTGOING: WRITTEN → UPLOADED; INCOMING: APPLIED or FAILED (unreadable)
    status: Mapped[str] = mapped_column(String(20))
    upload_attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_upload_at: Mapped[datetime | None]
    uploaded_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(String(500))
    summary: Mapped[dict[str, Any] | None]  # what reading an incoming file did
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
