"""Wire shapes of balance accounts, balances, balance transactions and sandbox funding."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field

from corridor.kit.schemas import Amount, AmountIn, RequestModel, ResponseModel, Timestamp
from corridor.ledger import rules
from corridor.models.ledger import LedgerAccount, Posting

_ACCOUNT_ID = "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"
_USD_AMOUNT = {"currency": "USD", "exponent": 2, "value": "12550", "displayValue": "125.50"}


class AccountRead(ResponseModel):
    """A customer's balance account in one currency."""

    id: str = Field(examples=[_ACCOUNT_ID])
    customer_id: str = Field(examples=["cus_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    type: Literal["BALANCE"] = "BALANCE"
    currency: str = Field(examples=["USD"])
    status: str = Field(examples=["OPEN"])
    created_at: Timestamp

    @classmethod
    def of(cls, account: LedgerAccount) -> AccountRead:
        assert account.customer_id is not None, "only customer accounts are shown"
        return cls(
            id=account.id,
            customer_id=account.customer_id,
            currency=account.currency,
            status=account.status,
            created_at=account.created_at,
        )


class BalanceRead(ResponseModel):
    """available = posted − pending debits; pending = pending credits; total = both."""

    account_id: str = Field(examples=[_ACCOUNT_ID])
    available: Amount = Field(description="What may be spent now", examples=[_USD_AMOUNT])
    pending: Amount = Field(
        description="Incoming money not yet available",
        examples=[{**_USD_AMOUNT, "value": "0", "displayValue": "0.00"}],
    )
    total: Amount = Field(description="available + pending", examples=[_USD_AMOUNT])
    as_of: Timestamp

    @classmethod
    def of(cls, account: LedgerAccount, *, as_of: datetime) -> BalanceRead:
        shown = rules.balances(
            posted=account.posted_balance,
            pending_debits=account.pending_debits,
            pending_credits=account.pending_credits,
        )
        return cls(
            account_id=account.id,
            available=Amount.of(shown.available, account.currency),
            pending=Amount.of(shown.pending, account.currency),
            total=Amount.of(shown.total, account.currency),
            as_of=as_of,
        )


class BalanceTransactionRead(ResponseModel):
    """One posting on a balance account."""

    id: str = Field(examples=["pst_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    account_id: str = Field(examples=[_ACCOUNT_ID])
    direction: Literal["CREDIT", "DEBIT"]
    amount: Amount = Field(description="Always positive; see `direction`", examples=[_USD_AMOUNT])
    balance_after: Amount = Field(
        description="The account's posted balance once this transaction applied",
        examples=[_USD_AMOUNT],
    )
    type: str = Field(examples=[rules.ENTRY_SANDBOX_FUNDING])
    transfer_id: str | None = Field(default=None, examples=[None])
    description: str = Field(examples=["Sandbox funding"])
    created_at: Timestamp

    @classmethod
    def of(cls, posting: Posting, *, description: str) -> BalanceTransactionRead:
        return cls(
            id=posting.id,
            account_id=posting.account_id,
            direction="CREDIT" if posting.amount > 0 else "DEBIT",
            amount=Amount.of(abs(posting.amount), posting.currency),
            balance_after=Amount.of(posting.balance_after, posting.currency),
            type=posting.kind,
            transfer_id=posting.transfer_id,
            description=description,
            created_at=posting.created_at,
        )


class SandboxFund(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"amount": {"currency": "USD", "value": "100000"}}]}
    )

    amount: AmountIn = Field(
        description="Minor units in a string, in the account's currency",
        examples=[{"currency": "USD", "value": "100000"}],
    )
