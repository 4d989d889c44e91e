"""Request and response models of reconciliation."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from corridor.kit.clock import isoformat_z
from corridor.kit.schemas import RequestModel, ResponseModel
from corridor.models.reconciliation import BankStatement, StatementLine

content_chars_max = 20_000_000


class BankStatementImport(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"name": "camt053-20261119.xml", "content": "<?xml version=…"}]
        }
    )

    name: str = Field(min_length=1, max_length=200)
    content: str = Field(
        min_length=1,
        max_length=content_chars_max,
        description="A camt.053 statement (XML) or a BAI2 file (text starting with `01,`)",
    )


class BankStatementLineResolve(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"resolution": "Bank fee, booked by hand", "transferId": None}]
        }
    )

    resolution: str = Field(min_length=1, max_length=500, description="What was done, and why")
    transfer_id: str | None = Field(
        default=None, max_length=40, description="The transfer the line turned out to be"
    )


class BankStatementRead(ResponseModel):
    id: str
    format: str = Field(description="CAMT_053 or BAI2")
    statement_id: str | None = Field(description="The bank's id of the statement")
    account: str | None
    name: str
    line_count: int
    matched_count: int
    exception_count: int
    created_at: str

    @classmethod
    def of(cls, statement: BankStatement) -> BankStatementRead:
        return cls(
            id=statement.id,
            format=statement.format,
            statement_id=statement.statement_id,
            account=statement.account,
            name=statement.name,
            line_count=statement.line_count,
            matched_count=statement.matched_count,
            exception_count=statement.exception_count,
            created_at=isoformat_z(statement.created_at),
        )


class BankStatementLineRead(ResponseModel):
    id: str
    statement_id: str
    line_number: int
    direction: str = Field(description="CREDIT (money in) or DEBIT (money out)")
    amount: str = Field(description="Minor units")
    currency: str
    booked_on: str | None
    reference: str | None
    description: str | None
    status: str = Field(description="MATCHED, EXCEPTION or RESOLVED")
    transfer_id: str | None
    exception_reason: str | None = Field(
        description="NO_REFERENCE, UNKNOWN_REFERENCE, AMOUNT_MISMATCH or DUPLICATE"
    )
    resolution: str | None
    resolved_by: str | None
    resolved_at: str | None
    created_at: str

    @classmethod
    def of(cls, line: StatementLine) -> BankStatementLineRead:
        return cls(
            id=line.id,
            statement_id=line.statement_id,
            line_number=line.line_number,
            direction=line.direction,
            amount=str(line.amount),
            currency=line.currency,
            booked_on=line.booked_on,
            reference=line.reference,
            description=line.description,
            status=line.status,
            transfer_id=line.transfer_id,
            exception_reason=line.exception_reason,
            resolution=line.resolution,
            resolved_by=line.resolved_by,
            resolved_at=isoformat_z(line.resolved_at) if line.resolved_at else None,
            created_at=isoformat_z(line.created_at),
        )
