"""The transfer as the API answers it: spec 2.2 with its source (2.3), destination (2.4),
legs (2.5) and deposit instructions (2.7).

A field whose note says "present when …" is left out of the answer when it does not
apply (`Sparse`); fields typed "or null" (agentId, developerFee, currentLegIndex, …) are
always there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from corridor.kit.schemas import Amount, ResponseModel, Sparse, Timestamp
from corridor.models.transfer import Transfer, TransferLeg


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


class TransferRead(Sparse):
    """The transfer of spec 2.2."""

    optional = frozenset(
        {
            "client_reference_id",
            "counterparty_id",
            "refund",
            "quote_id",
            "exchange_rate",
            "reference_rate",
            "reference_rate_as_of",
            "reference_provider",
            "developer_fee_fixed",
            "developer_fee_percent",
            "deposit_instructions",
            "returned_at",
            "remarks",
            "internal_remarks",
            "payment_reason",
            "uetr",
            "imad",
            "omad",
            "ach_trace_number",
            "originating_account",
            "tx_hash",
            "system_remark",
            "metadata",
            "estimated_settlement_at",
            "next_cutoff_at",
            "cutoff_timezone",
            "counterparty",
            "cancellation",
            "review",
            "authorization",
            "parent_transfer_id",
            "fixed_route_id",
        }
    )
    id: str = Field(examples=["tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    organization_id: str
    source_customer_id: str
    flow: str = Field(examples=["FIAT_TO_FIAT"])
    status: str = Field(examples=["DRAFT"])
    source: SourceRead
    destination: DestinationRead
    source_amount: Amount
    destination_amount: Amount
    created_at: Timestamp
    updated_at: Timestamp
    legs: list[LegRead]
    funding_needed: bool
    client_reference_id: str | None = None
    counterparty_id: str | None = None
    agent_id: str | None = None
    agent_approval_status: str | None = None
    refund: RefundRead | None = None
    quote_id: str | None = None
    exchange_rate: str | None = None
    reference_rate: str | None = None
    reference_rate_as_of: Timestamp | None = None
    reference_provider: str | None = None
    developer_fee_fixed: str | None = None
    developer_fee_percent: float | None = None
    developer_fee: DeveloperFeeRead | None = None
    deposit_instructions: DepositInstructionsRead | None = None
    returned_to_account_id: str | None = None
    returned_at: Timestamp | None = None
    current_leg_index: int | None = None
    is_third_party: bool
    remarks: str | None = None
    internal_remarks: str | None = None
    payment_reason: str | None = None
    document_ids: list[str]
    uetr: str | None = None
    imad: str | None = None
    omad: str | None = None
    ach_trace_number: str | None = None
    originating_account: dict[str, str] | None = None
    tx_hash: str | None = None
    system_remark: str | None = None
    metadata: dict[str, Any] | None = None
    estimated_settlement_at: Timestamp | None = None
    next_cutoff_at: Timestamp | None = None
    cutoff_timezone: str | None = None
    cancellation: CancellationRead | None = None
    review: DecisionRead | None = None
    authorization: DecisionRead | None = None
    parent_transfer_id: str | None = None
    fixed_route_id: str | None = Field(
        default=None, description="The fixed route whose deposit made this transfer"
    )
    counterparty: dict[str, Any] | None = Field(
        default=None, description="Only with `expand=counterparty` (spec 2.8)"
    )

    @classmethod
    def of(
        cls,
        transfer: Transfer,
        legs: list[TransferLeg],
        *,
        counterparty: dict[str, Any] | None = None,
    ) -> TransferRead:
        fee = _developer_fee(transfer)
        return cls(
            id=transfer.id,
            organization_id=transfer.organization_id,
            source_customer_id=transfer.customer_id,
            flow=transfer.flow,
            status=transfer.status,
            source=SourceRead.model_validate(transfer.source),
            destination=DestinationRead.model_validate(transfer.destination),
            source_amount=Amount.of(transfer.source_amount, transfer.source_currency),
            destination_amount=Amount.of(
                transfer.destination_amount, transfer.destination_currency
            ),
            created_at=transfer.created_at,
            updated_at=transfer.updated_at,
            legs=[LegRead.of(leg) for leg in legs],
            funding_needed=transfer.funding_needed,
            client_reference_id=transfer.client_reference_id,
            counterparty_id=transfer.counterparty_id,
            agent_id=transfer.agent_id,
            agent_approval_status=transfer.agent_approval_status,
            refund=RefundRead.of(transfer.refund) if transfer.refund else None,
            quote_id=transfer.quote_id,
            exchange_rate=transfer.exchange_rate,
            reference_rate=transfer.reference_rate,
            reference_rate_as_of=transfer.reference_rate_as_of,
            reference_provider=transfer.reference_provider,
            developer_fee_fixed=fee.fixed if fee else None,
            developer_fee_percent=fee.percent if fee else None,
            developer_fee=fee,
            deposit_instructions=(
                DepositInstructionsRead.model_validate(transfer.deposit_instructions)
                if transfer.deposit_instructions
                else None
            ),
            returned_to_account_id=transfer.returned_to_account_id,
            returned_at=transfer.returned_at,
            current_leg_index=transfer.current_leg_index,
            is_third_party=transfer.is_third_party,
            remarks=transfer.remarks,
            internal_remarks=transfer.internal_remarks,
            payment_reason=transfer.payment_reason,
            document_ids=list(transfer.document_ids or []),
            uetr=transfer.uetr,
            imad=transfer.imad,
            omad=transfer.omad,
            ach_trace_number=transfer.ach_trace_number,
            originating_account=transfer.originating_account,
            tx_hash=transfer.tx_hash,
            system_remark=transfer.system_remark,
            metadata=transfer.metadata_ or None,
            estimated_settlement_at=transfer.estimated_settlement_at,
            next_cutoff_at=transfer.next_cutoff_at,
            cutoff_timezone=transfer.cutoff_timezone,
            cancellation=(
                CancellationRead.model_validate(transfer.cancellation)
                if transfer.cancellation
                else None
            ),
            review=DecisionRead.model_validate(transfer.review) if transfer.review else None,
            authorization=(
                DecisionRead.model_validate(transfer.authorization)
                if transfer.authorization
                else None
            ),
            parent_transfer_id=transfer.parent_transfer_id,
            fixed_route_id=transfer.fixed_route_id,
            counterparty=counterparty,
        )


def _developer_fee(transfer: Transfer) -> DeveloperFeeRead | None:
    """Null when no fee applies: none was named and the organization has no default."""
    if transfer.developer_fee_amount is None or transfer.developer_fee_fixed is None:
        return None
    return DeveloperFeeRead(
        amount=Amount.of(transfer.developer_fee_amount, transfer.source_currency),
        fixed=str(transfer.developer_fee_fixed),
        percent=float(Decimal(transfer.developer_fee_percent or "0")),
        tx_hash=transfer.developer_fee_tx_hash,
    )


class DocumentList(ResponseModel):
    """The transfer's supporting document ids (document resources are a later issue)."""

    data: list[str] = Field(examples=[["doc_01jd3x0p6x9e3k2v1m8q4r7s5t"]])
