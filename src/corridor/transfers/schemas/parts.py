"""The nested objects of the transfer resource: source (spec 2.3), destination (2.4), legs
(2.5), deposit instructions (2.7), refund (2.6), developer fee, cancellation and decisions."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from corridor.kit.schemas import Amount, ResponseModel, Sparse, Timestamp
from corridor.models.transfer import TransferLeg


class Originator(Sparse):
    optional = frozenset(
        {"name", "bank_name", "routing_number", "account_number", "swift_bic", "bank_country"}
    )
    name: str | None = None
    bank_name: str | None = None
    routing_number: str | None = None
    account_number: str | None = None
    swift_bic: str | None = None
    bank_country: str | None = None


class SourceRead(Sparse):
    """Spec 2.3."""

    optional = frozenset(
        {
            "payment_rail",
            "funding_currency",
            "direction",
            "account_id",
            "account_type",
            "external_account_id",
            "from_address",
            "refund_account_id",
            "account_name",
            "originator",
        }
    )
    currency: str = Field(examples=["USD"])
    payment_rail: str | None = Field(default=None, examples=["BOOK"])
    funding_currency: str | None = None
    direction: str | None = None
    account_id: str | None = Field(default=None, examples=["acc_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    account_type: str | None = Field(default=None, examples=["BALANCE"])
    external_account_id: str | None = None
    from_address: str | None = None
    refund_account_id: str | None = None
    account_name: str | None = None
    originator: Originator | None = None


class DestinationRead(Sparse):
    """Spec 2.4, with the update-only fields once set."""

    optional = frozenset(
        {
            "payment_rail",
            "account_id",
            "account_type",
            "external_account_id",
            "to_address",
            "account_name",
            "bank_name",
            "bank_country_code",
            "wire_message",
            "ach_reference",
            "swift_reference",
            "rtp_reference",
            "payout_reference",
            "sepa_reference",
            "blockchain_memo",
            "correspondent_bank_name",
            "correspondent_bank_swift_code",
            "correspondent_account_number",
        }
    )
    currency: str = Field(examples=["USD"])
    payment_rail: str | None = Field(default=None, examples=["ACH"])
    account_id: str | None = None
    account_type: str | None = Field(default=None, examples=["EXTERNAL_BANK"])
    external_account_id: str | None = Field(
        default=None, examples=["ext_01jd3x0p6x9e3k2v1m8q4r7s5t"]
    )
    to_address: str | None = None
    account_name: str | None = None
    bank_name: str | None = None
    bank_country_code: str | None = None
    wire_message: str | None = None
    ach_reference: str | None = None
    swift_reference: str | None = None
    rtp_reference: str | None = None
    payout_reference: str | None = None
    sepa_reference: str | None = None
    blockchain_memo: str | None = None
    correspondent_bank_name: str | None = None
    correspondent_bank_swift_code: str | None = None
    correspondent_account_number: str | None = None


class LegRead(Sparse):
    """Spec 2.5; `developerFee` only on the leg that collects it."""

    optional = frozenset(
        {
            "uetr",
            "imad",
            "omad",
            "ach_trace_number",
            "tx_hash",
            "fee_tx_hash",
            "developer_fee",
            "failure_reason",
        }
    )
    id: str = Field(examples=["tleg_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    sequence: int = Field(examples=[0])
    type: str = Field(examples=["DEBIT_BALANCE"])
    input_currency: str
    output_currency: str
    input_rail: str | None
    output_rail: str | None
    input_amount: Amount
    output_amount: Amount
    status: str = Field(examples=["PENDING"])
    started_at: Timestamp | None
    completed_at: Timestamp | None
    uetr: str | None = None
    imad: str | None = None
    omad: str | None = None
    ach_trace_number: str | None = None
    tx_hash: str | None = None
    fee_tx_hash: str | None = None
    developer_fee: Amount | None = None
    failure_reason: str | None = None

    @classmethod
    def of(cls, leg: TransferLeg) -> LegRead:
        return cls(
            id=leg.id,
            sequence=leg.sequence,
            type=leg.type,
            input_currency=leg.input_currency,
            output_currency=leg.output_currency,
            input_rail=leg.input_rail,
            output_rail=leg.output_rail,
            input_amount=Amount.of(leg.input_amount, leg.input_currency),
            output_amount=Amount.of(leg.output_amount, leg.output_currency),
            status=leg.status,
            started_at=leg.started_at,
            completed_at=leg.completed_at,
            uetr=leg.uetr,
            imad=leg.imad,
            omad=leg.omad,
            ach_trace_number=leg.ach_trace_number,
            tx_hash=leg.tx_hash,
            fee_tx_hash=leg.fee_tx_hash,
            developer_fee=(
                Amount.of(leg.developer_fee_amount, leg.input_currency)
                if leg.developer_fee_amount is not None
                else None
            ),
            failure_reason=leg.failure_reason,
        )


class DeveloperFeeRead(ResponseModel):
    amount: Amount
    fixed: str = Field(examples=["100"])
    percent: float = Field(examples=[0.005])
    tx_hash: str | None = Field(default=None, description="The on-chain fee payout (crypto flows)")


class DepositInstructionsRead(Sparse):
    """Spec 2.7: the crypto variant (`type` "crypto") or the fiat variant (`type` "fiat")."""

    optional = frozenset(
        {
            "to_address",
            "blockchain_memo",
            "bank_name",
            "account_number",
            "routing_number",
            "iban",
            "bic",
            "account_holder_name",
            "reference",
        }
    )
    type: Literal["crypto", "fiat"]
    payment_rail: str
    amount: Amount
    account_id: str = Field(description="The deposit wallet (vwa_) or virtual bank account (vba_)")
    to_address: str | None = None
    blockchain_memo: str | None = None
    bank_name: str | None = None
    account_number: str | None = None
    routing_number: str | None = None
    iban: str | None = None
    bic: str | None = None
    account_holder_name: str | None = None
    reference: str | None = None


class RefundRead(Sparse):
    """Spec 2.6: the refund of money that came in, carried out by a REFUND_CRYPTO or
    REFUND_FIAT transfer (`transferId`)."""

    optional = frozenset({"tx_hash", "completed_at", "transfer_id"})
    status: str = Field(
        examples=["COMPLETED"], description="PENDING, PROCESSING, COMPLETED, FAILED"
    )
    reason: str = Field(examples=["WITHDRAW_CRYPTO failed: the rail reported FAILED"])
    amount: Amount
    address: str = Field(
        examples=["0x52908400098527886E0F7030069857D2E4169EE7"],
        description="The on-chain address, or the external account (`ext_`) refunded",
    )
    tx_hash: str | None = None
    initiated_at: Timestamp
    completed_at: Timestamp | None = None
    transfer_id: str | None = Field(default=None, examples=["tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"])

    @classmethod
    def of(cls, stored: dict[str, Any]) -> RefundRead:
        amount = stored["amount"]
        return cls.model_validate(
            {**stored, "amount": Amount.of(int(amount["value"]), amount["currency"])}
        )


class CancellationRead(ResponseModel):
    reason: str | None
    cancelled_at: Timestamp
    actor: str


class DecisionRead(ResponseModel):
    decision: str
    reason: str | None
    actor: str
    decided_at: Timestamp
