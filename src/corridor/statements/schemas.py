"""Wire shapes of monthly statements and of the month's non-balance transfers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corridor.kit.schemas import Amount, ResponseModel, Timestamp

_ACCOUNT_ID = "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"


class PartyRead(ResponseModel):
    id: str
    name: str


class StatementLineRead(ResponseModel):
    """A balance transaction of the month, with the balance after it."""

    id: str = Field(examples=["pst_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    created_at: Timestamp
    direction: Literal["CREDIT", "DEBIT"]
    amount: Amount = Field(description="Always positive; see `direction`")
    balance_after: Amount = Field(description="The running balance once this line applied")
    type: str = Field(examples=["SANDBOX_FUNDING"])
    transfer_id: str | None
    description: str


class StatementRead(ResponseModel):
    """The account's month: opening balance + total in − total out = closing balance."""

    account_id: str = Field(examples=[_ACCOUNT_ID])
    currency: str = Field(examples=["USD"])
    period: str = Field(description="YYYY-MM (UTC)", examples=["2026-11"])
    period_start: Timestamp
    period_end: Timestamp = Field(description="Exclusive; the time of the request while open")
    complete: bool = Field(description="False while the month is still running")
    organization: PartyRead
    customer: PartyRead
    opening_balance: Amount
    total_in: Amount
    total_out: Amount
    closing_balance: Amount
    transactions: list[StatementLineRead] = Field(description="Oldest first")
    generated_at: Timestamp


class NonBalanceItemRead(ResponseModel):
    """A deposit to one of the account's virtual accounts that went on without touching the
    balance (a fixed route, or a deposit-funded transfer paid out elsewhere)."""

    transfer_id: str
    deposit_id: str
    received_at: Timestamp
    virtual_account_id: str
    virtual_account_type: str = Field(examples=["VIRTUAL_BANK"])
    fixed_route_id: str | None
    amount_received: Amount
    destination_amount: Amount
    flow: str = Field(examples=["FIAT_TO_CRYPTO"])
    status: str = Field(examples=["COMPLETED"])


class NonBalanceStatementRead(ResponseModel):
    account_id: str
    currency: str
    period: str
    period_start: Timestamp
    period_end: Timestamp
    complete: bool
    transfers: list[NonBalanceItemRead] = Field(description="Oldest first")
    generated_at: Timestamp
