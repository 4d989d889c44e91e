"""The transfer as the API answers it: spec 2.2 with its source (2.3), destination (2.4),
legs (2.5) and deposit instructions (2.7).

A field whose note says "present when …" is left out of the answer when it does not
apply (`Sparse`); fields typed "or null" (agentId, developerFee, currentLegIndex, …) are
always there.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pydantic import Field

from corridor.kit.clock import isoformat_z
from corridor.kit.money import amount_object
from corridor.kit.schemas import Amount, ResponseModel, Sparse, Timestamp
from corridor.models.transfer import Transfer, TransferLeg
from corridor.transfers.schemas.parts import (
    CancellationRead,
    DecisionRead,
    DepositInstructionsRead,
    DestinationRead,
    DeveloperFeeRead,
    LegRead,
    Originator,
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


# --- The same resource, built straight as JSON -------------------------------------------
#
# Every transfer event carries the transfer (events.transfer_event_row), and a create+submit
# writes two; pydantic's way (validate the parts, build the models, serialise them) cost
# ~70 µs a transfer, the dict below ~12. TransferRead stays the definition (OpenAPI, the
# answers of GET): `transfer_json` follows its fields in order, and a field it does not
# know fails at import; tests/transfers/test_transfer_json.py holds the two equal, byte for
# byte, over generated transfers. Rare parts (refund, deposit instructions, decisions) are
# built by their own models.


def _moment(value: Any) -> str | None:
    return isoformat_z(value) if value is not None else None


def _leg_json(leg: TransferLeg) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": leg.id,
        "sequence": leg.sequence,
        "type": leg.type,
        "inputCurrency": leg.input_currency,
        "outputCurrency": leg.output_currency,
        "inputRail": leg.input_rail,
        "outputRail": leg.output_rail,
        "inputAmount": amount_object(leg.input_amount, leg.input_currency),
        "outputAmount": amount_object(leg.output_amount, leg.output_currency),
        "status": leg.status,
        "startedAt": _moment(leg.started_at),
        "completedAt": _moment(leg.completed_at),
    }
    optional = {
        "uetr": leg.uetr,
        "imad": leg.imad,
        "omad": leg.omad,
        "achTraceNumber": leg.ach_trace_number,
        "txHash": leg.tx_hash,
        "feeTxHash": leg.fee_tx_hash,
        "developerFee": (
            amount_object(leg.developer_fee_amount, leg.input_currency)
            if leg.developer_fee_amount is not None
            else None
        ),
        "failureReason": leg.failure_reason,
    }
    data.update((key, value) for key, value in optional.items() if value is not None)
    return data


def _part(model: type[ResponseModel], stored: dict[str, Any] | None) -> Any:
    return model.model_validate(stored).to_json_dict() if stored else None


def _text_fields(model: type[Sparse], nested: str | None = None) -> tuple[tuple[str, bool], ...]:
    """A part made of text fields (but `nested`): each field's wire name, and whether it is
    left out while None."""
    fields = []
    for name, field in model.model_fields.items():
        if name != nested:
            assert field.annotation in (str, str | None), f"{model.__name__}.{name}: not text"
        fields.append((field.alias or name, name in model.optional))
    return tuple(fields)


_SOURCE = _text_fields(SourceRead, nested="originator")
_ORIGINATOR = _text_fields(Originator)
_DESTINATION = _text_fields(DestinationRead)


def _text_part(fields: tuple[tuple[str, bool], ...], stored: dict[str, Any]) -> dict[str, Any]:
    data = {}
    for key, optional in fields:
        value = stored.get(key)
        if value is not None or not optional:
            data[key] = value
    return data


def _source_json(stored: dict[str, Any]) -> dict[str, Any]:
    data = _text_part(_SOURCE, stored)
    if data.get("originator") is not None:
        data["originator"] = _text_part(_ORIGINATOR, stored["originator"])
    return data


_Getter = Callable[[Transfer, list[TransferLeg], Any, dict[str, Any] | None], Any]
_GETTERS: dict[str, _Getter] = {
    "id": lambda t, legs, fee, cp: t.id,
    "organization_id": lambda t, legs, fee, cp: t.organization_id,
    "source_customer_id": lambda t, legs, fee, cp: t.customer_id,
    "flow": lambda t, legs, fee, cp: t.flow,
    "status": lambda t, legs, fee, cp: t.status,
    "source": lambda t, legs, fee, cp: _source_json(t.source),
    "destination": lambda t, legs, fee, cp: _text_part(_DESTINATION, t.destination),
    "source_amount": lambda t, legs, fee, cp: amount_object(t.source_amount, t.source_currency),
    "destination_amount": lambda t, legs, fee, cp: amount_object(
        t.destination_amount, t.destination_currency
    ),
    "created_at": lambda t, legs, fee, cp: _moment(t.created_at),
    "updated_at": lambda t, legs, fee, cp: _moment(t.updated_at),
    "legs": lambda t, legs, fee, cp: [_leg_json(leg) for leg in legs],
    "funding_needed": lambda t, legs, fee, cp: t.funding_needed,
    "client_reference_id": lambda t, legs, fee, cp: t.client_reference_id,
    "counterparty_id": lambda t, legs, fee, cp: t.counterparty_id,
    "agent_id": lambda t, legs, fee, cp: t.agent_id,
    "agent_approval_status": lambda t, legs, fee, cp: t.agent_approval_status,
    "refund": lambda t, legs, fee, cp: RefundRead.of(t.refund).to_json_dict() if t.refund else None,
    "quote_id": lambda t, legs, fee, cp: t.quote_id,
    "exchange_rate": lambda t, legs, fee, cp: t.exchange_rate,
    "reference_rate": lambda t, legs, fee, cp: t.reference_rate,
    "reference_rate_as_of": lambda t, legs, fee, cp: _moment(t.reference_rate_as_of),
    "reference_provider": lambda t, legs, fee, cp: t.reference_provider,
    "developer_fee_fixed": lambda t, legs, fee, cp: fee.fixed if fee else None,
    "developer_fee_percent": lambda t, legs, fee, cp: fee.percent if fee else None,
    "developer_fee": lambda t, legs, fee, cp: fee.to_json_dict() if fee else None,
    "deposit_instructions": lambda t, legs, fee, cp: _part(
        DepositInstructionsRead, t.deposit_instructions
    ),
    "returned_to_account_id": lambda t, legs, fee, cp: t.returned_to_account_id,
    "returned_at": lambda t, legs, fee, cp: _moment(t.returned_at),
    "current_leg_index": lambda t, legs, fee, cp: t.current_leg_index,
    "is_third_party": lambda t, legs, fee, cp: t.is_third_party,
    "remarks": lambda t, legs, fee, cp: t.remarks,
    "internal_remarks": lambda t, legs, fee, cp: t.internal_remarks,
    "payment_reason": lambda t, legs, fee, cp: t.payment_reason,
    "document_ids": lambda t, legs, fee, cp: list(t.document_ids or []),
    "uetr": lambda t, legs, fee, cp: t.uetr,
    "imad": lambda t, legs, fee, cp: t.imad,
    "omad": lambda t, legs, fee, cp: t.omad,
    "ach_trace_number": lambda t, legs, fee, cp: t.ach_trace_number,
    "originating_account": lambda t, legs, fee, cp: t.originating_account,
    "tx_hash": lambda t, legs, fee, cp: t.tx_hash,
    "system_remark": lambda t, legs, fee, cp: t.system_remark,
    "metadata": lambda t, legs, fee, cp: t.metadata_ or None,
    "estimated_settlement_at": lambda t, legs, fee, cp: _moment(t.estimated_settlement_at),
    "next_cutoff_at": lambda t, legs, fee, cp: _moment(t.next_cutoff_at),
    "cutoff_timezone": lambda t, legs, fee, cp: t.cutoff_timezone,
    "cancellation": lambda t, legs, fee, cp: _part(CancellationRead, t.cancellation),
    "review": lambda t, legs, fee, cp: _part(DecisionRead, t.review),
    "authorization": lambda t, legs, fee, cp: _part(DecisionRead, t.authorization),
    "parent_transfer_id": lambda t, legs, fee, cp: t.parent_transfer_id,
    "fixed_route_id": lambda t, legs, fee, cp: t.fixed_route_id,
    "counterparty": lambda t, legs, fee, cp: cp,
}
# TransferRead's fields in order: (wire name, getter, left out while None).
_FIELDS = tuple(
    (field.alias or name, _GETTERS[name], name in TransferRead.optional)
    for name, field in TransferRead.model_fields.items()
)


def transfer_json(
    transfer: Transfer,
    legs: list[TransferLeg],
    *,
    counterparty: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`TransferRead.of(transfer, legs, counterparty=…).to_json_dict()`, built directly."""
    fee = _developer_fee(transfer)
    data: dict[str, Any] = {}
    for key, getter, optional in _FIELDS:
        value = getter(transfer, legs, fee, counterparty)
        if value is not None or not optional:
            data[key] = value
    return data
