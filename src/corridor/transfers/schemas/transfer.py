"""The transfer as the API answers it: spec 2.2 with its source (2.3), destination (2.4),
legs (2.5) and deposit instructions (2.7).

A field whose note says "present when …" is left out of the answer when it does not
apply (`Sparse`); fields typed "or null" (agentId, developerFee, currentLegIndex, …) are
always there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import Field

from corridor.kit.schemas import Amount, Sparse, Timestamp
from corridor.models.transfer import Transfer, TransferLeg
from corridor.transfers.schemas.parts import (
    CancellationRead,
    DecisionRead,
    DepositInstructionsRead,
    DestinationRead,
    DeveloperFeeRead,
    LegRead,
    RefundRead,
    SourceRead,
)


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
