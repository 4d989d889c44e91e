"""Reconciliation (issue 27 item 5): bank statements imported, each line matched to a
payment Corridor sent or an exception an operator resolves."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, MinorUnits, id_column


class BankStatement(Base):
    __tablename__ = "bank_statements"
    id_prefix, resource_name = "stm", "bank statement"
    __table_args__ = (Index("ix_bank_statements_organization_id", "organization_id", "sha256"),)

    id: Mapped[str] = id_column()  # stm_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    format: Mapped[str] = mapped_column(String(20))  # CAMT_053 or BAI2
    statement_id: Mapped[str | None] = mapped_column(String(64))  # the bank's Stmt/Id
    account: Mapped[str | None] = mapped_column(String(64))  # IBAN or account number
    name: Mapped[str] = mapped_column(String(200))
    sha256: Mapped[str] = mapped_column(String(64))
    line_count: Mapped[int] = mapped_column(Integer)
    matched_count: Mapped[int] = mapped_column(Integer)
    exception_count: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime]


class StatementLine(Base):
    """One entry of a statement: MATCHED to a transfer, or an EXCEPTION until RESOLVED."""

    __tablename__ = "statement_lines"
    id_prefix, resource_name = "stl", "statement line"
    __table_args__ = (
        Index("ix_statement_lines_statement_id", "statement_id"),
        Index("ix_statement_lines_exceptions", "organization_id", "status", "id"),
        Index("ix_statement_lines_reference", "organization_id", "reference"),
    )

    id: Mapped[str] = id_column()  # stl_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    statement_id: Mapped[str] = mapped_column(String(40))
    line_number: Mapped[int] = mapped_column(Integer)
    direction: Mapped[str] = mapped_column(String(10))  # CREDIT or DEBIT
    amount: Mapped[int] = mapped_column(MinorUnits)
    currency: Mapped[str] = mapped_column(String(10))
    booked_on: Mapped[str | None] = mapped_column(String(10))  # YYYY-MM-DD
    reference: Mapped[str | None] = mapped_column(String(64))
    description: Mapped[str | None] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20))  # MATCHED, EXCEPTION, RESOLVED
    transfer_id: Mapped[str | None] = mapped_column(String(40))
    # UNKNOWN_REFERENCE, AMOUNT_MISMATCH, DUPLICATE, NO_REFERENCE
    exception_reason: Mapped[str | None] = mapped_column(String(30))
    resolution: Mapped[str | None] = mapped_column(String(500))
    resolved_by: Mapped[str | None] = mapped_column(String(40))
    resolved_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
