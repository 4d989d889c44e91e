"""Deposits (money that arrived from outside) and virtual accounts as the API answers them."""

from __future__ import annotations

from pydantic import Field

from corridor.kit.schemas import Amount, ResponseModel, Sparse, Timestamp
from corridor.models.transfer import Deposit, VirtualAccount


class DepositRead(ResponseModel):
    """Money that arrived from outside: MATCHED to a transfer, or UNMATCHED."""

    id: str = Field(examples=["inw_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    status: str = Field(examples=["MATCHED"])
    transfer_id: str | None
    virtual_account_id: str | None
    payment_rail: str
    amount: Amount
    to_address: str | None
    from_address: str | None
    reference: str | None
    unmatched_reason: str | None
    received_at: Timestamp

    @classmethod
    def of(cls, deposit: Deposit) -> DepositRead:
        return cls(
            id=deposit.id,
            customer_id=deposit.customer_id,
            status=deposit.status,
            transfer_id=deposit.transfer_id,
            virtual_account_id=deposit.virtual_account_id,
            payment_rail=deposit.payment_rail,
            amount=Amount.of(deposit.amount, deposit.currency),
            to_address=deposit.to_address,
            from_address=deposit.from_address,
            reference=deposit.reference,
            unmatched_reason=deposit.unmatched_reason,
            received_at=deposit.received_at,
        )


class VirtualAccountRead(Sparse):
    """A virtual bank account (`vba_`) or deposit wallet (`vwa_`) of a balance account."""

    optional = frozenset(
        {
            "payment_rail",
            "bank_name",
            "account_holder_name",
            "account_number",
            "routing_number",
            "iban",
            "bic",
            "address",
            "blockchain_memo",
            "transfer_id",
        }
    )
    id: str = Field(examples=["vba_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    type: str = Field(examples=["VIRTUAL_BANK"])
    account_id: str | None
    customer_id: str
    currency: str
    status: str
    payment_rail: str | None = None
    bank_name: str | None = None
    account_holder_name: str | None = None
    account_number: str | None = None
    routing_number: str | None = None
    iban: str | None = None
    bic: str | None = None
    address: str | None = None
    blockchain_memo: str | None = None
    transfer_id: str | None = None
    created_at: Timestamp

    @classmethod
    def of(cls, account: VirtualAccount) -> VirtualAccountRead:
        return cls(
            id=account.id,
            type=account.type,
            account_id=account.balance_account_id,
            customer_id=account.customer_id,
            currency=account.currency,
            status=account.status,
            payment_rail=account.payment_rail,
            bank_name=account.bank_name,
            account_holder_name=account.account_holder_name,
            account_number=account.account_number,
            routing_number=account.routing_number,
            iban=account.iban,
            bic=account.bic,
            address=account.address,
            blockchain_memo=account.blockchain_memo,
            transfer_id=account.transfer_id,
            created_at=account.created_at,
        )
