"""`transfer_json` builds the transfer resource straight as JSON (every transfer event and
the express create+submit's answer); it must be TransferRead's, byte for byte, whatever the
transfer holds: every field set or not, parts with keys of their own, legs with and without
fees, refunds, decisions, deposit instructions, an expanded counterparty."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from corridor.kit.clock import isoformat_z
from corridor.kit.money import CURRENCIES
from corridor.models.transfer import Transfer, TransferLeg
from corridor.transfers.schemas.parts import DestinationRead, Originator, SourceRead
from corridor.transfers.schemas.transfer import TransferRead, transfer_json

currencies = st.sampled_from(sorted(CURRENCIES))
moments = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
texts = st.text(max_size=20)
minor_units = st.integers(min_value=0, max_value=10**15)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


def wire_names(model: Any) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


@st.composite
def part(draw, model: Any, *, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A stored source or destination: some of the model's keys (text or null), the
    required ones, and keys the model does not know (an older or newer writer's)."""
    names = [name for name in wire_names(model) if name != "originator"]
    stored = {name: draw(maybe(texts)) for name in draw(st.lists(st.sampled_from(names)))}
    stored.update({name: draw(texts) for name in required})
    stored.update(draw(st.dictionaries(st.sampled_from(["legacyField", "x"]), texts, max_size=2)))
    return stored


@st.composite
def sources(draw) -> dict[str, Any]:
    stored = draw(part(SourceRead, required=("currency",)))
    if draw(st.booleans()):
        stored["originator"] = draw(part(Originator))
    return stored


@st.composite
def legs(draw, transfer_id: str) -> TransferLeg:
    currency = draw(currencies)
    return TransferLeg(
        id=f"tleg_{draw(st.integers(0, 10**6))}",
        organization_id="org_x",
        transfer_id=transfer_id,
        sequence=draw(st.integers(0, 5)),
        type=draw(st.sampled_from(["DEBIT_BALANCE", "CONVERT", "PAYOUT_FIAT"])),
        status=draw(st.sampled_from(["PENDING", "PROCESSING", "COMPLETED", "FAILED"])),
        input_currency=currency,
        output_currency=draw(currencies),
        input_rail=draw(maybe(st.sampled_from(["BOOK", "ACH"]))),
        output_rail=draw(maybe(st.sampled_from(["BOOK", "WIRE", "BASE"]))),
        input_amount=draw(minor_units),
        output_amount=draw(minor_units),
        developer_fee_amount=draw(maybe(minor_units)),
        started_at=draw(maybe(moments)),
        completed_at=draw(maybe(moments)),
        uetr=draw(maybe(texts)),
        imad=draw(maybe(texts)),
        omad=draw(maybe(texts)),
        ach_trace_number=draw(maybe(texts)),
        tx_hash=draw(maybe(texts)),
        fee_tx_hash=draw(maybe(texts)),
        failure_reason=draw(maybe(texts)),
        rail_attempts=0,
        created_at=draw(moments),
        updated_at=draw(moments),
    )


def decisions(name: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "decision": st.sampled_from(["APPROVE", "DECLINE"]),
            "reason": maybe(texts),
            "actor": texts,
            name: moments.map(isoformat_z),
        }
    )


refunds = st.fixed_dictionaries(
    {
        "status": st.sampled_from(["PENDING", "COMPLETED"]),
        "reason": texts,
        "amount": st.fixed_dictionaries({"currency": currencies, "value": minor_units.map(str)}),
        "address": texts,
        "initiatedAt": moments.map(isoformat_z),
    },
    optional={"transferId": texts, "txHash": texts, "completedAt": moments.map(isoformat_z)},
)
deposit_instructions = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["crypto", "fiat"]),
        "paymentRail": texts,
        "amount": st.builds(
            lambda value, code: {
                "currency": code,
                "exponent": CURRENCIES[code].exponent,
                "value": str(value),
                "displayValue": "1",
            },
            minor_units,
            currencies,
        ),
        "accountId": texts,
    },
    optional={"toAddress": texts, "reference": texts, "iban": texts},
)


@st.composite
def transfers(draw) -> tuple[Transfer, list[TransferLeg], dict[str, Any] | None]:
    transfer_id = f"tfr_{draw(st.integers(0, 10**6))}"
    source_currency = draw(currencies)
    fee_fixed = draw(maybe(minor_units))
    transfer = Transfer(
        id=transfer_id,
        organization_id="org_x",
        customer_id="cus_x",
        flow=draw(st.sampled_from(["FIAT_TO_FIAT", "CRYPTO_TO_FIAT"])),
        status=draw(st.sampled_from(["DRAFT", "PENDING", "COMPLETED", "CANCELLED"])),
        source_request={},
        destination_request={},
        source=draw(sources()),
        destination=draw(part(DestinationRead, required=("currency",))),
        source_currency=source_currency,
        source_amount=draw(minor_units),
        destination_currency=draw(currencies),
        destination_amount=draw(minor_units),
        counterparty_id=draw(maybe(texts)),
        is_third_party=draw(st.booleans()),
        quote_id=draw(maybe(texts)),
        client_reference_id=draw(maybe(texts)),
        remarks=draw(maybe(texts)),
        internal_remarks=draw(maybe(texts)),
        payment_reason=draw(maybe(texts)),
        document_ids=draw(st.lists(texts, max_size=2)),
        developer_fee_fixed=fee_fixed,
        developer_fee_percent=draw(maybe(st.sampled_from(["0", "0.005", "0.0125", "1"]))),
        developer_fee_amount=draw(maybe(minor_units)) if fee_fixed is not None else None,
        developer_fee_tx_hash=draw(maybe(texts)),
        exchange_rate=draw(maybe(texts)),
        reference_rate=draw(maybe(texts)),
        reference_rate_as_of=draw(maybe(moments)),
        reference_provider=draw(maybe(texts)),
        funding_needed=draw(st.booleans()),
        deposit_instructions=draw(maybe(deposit_instructions)),
        current_leg_index=draw(maybe(st.integers(0, 5))),
        refund=draw(maybe(refunds)),
        returned_to_account_id=draw(maybe(texts)),
        returned_at=draw(maybe(moments)),
        uetr=draw(maybe(texts)),
        imad=draw(maybe(texts)),
        omad=draw(maybe(texts)),
        ach_trace_number=draw(maybe(texts)),
        tx_hash=draw(maybe(texts)),
        originating_account=draw(maybe(st.dictionaries(texts, texts, max_size=2))),
        system_remark=draw(maybe(texts)),
        metadata_=draw(st.dictionaries(texts, texts, max_size=2)),
        estimated_settlement_at=draw(maybe(moments)),
        next_cutoff_at=draw(maybe(moments)),
        cutoff_timezone=draw(maybe(texts)),
        agent_id=draw(maybe(texts)),
        agent_approval_status=draw(maybe(st.sampled_from(["PENDING", "APPROVED"]))),
        cancellation=draw(
            maybe(
                st.fixed_dictionaries(
                    {
                        "reason": maybe(texts),
                        "cancelledAt": moments.map(isoformat_z),
                        "actor": texts,
                    }
                )
            )
        ),
        review=draw(maybe(decisions("decidedAt"))),
        authorization=draw(maybe(decisions("decidedAt"))),
        parent_transfer_id=draw(maybe(texts)),
        fixed_route_id=draw(maybe(texts)),
        created_by="key_x",
        created_at=draw(moments),
        updated_at=draw(moments),
    )
    drawn_legs = draw(st.lists(legs(transfer_id), max_size=3))
    counterparty = draw(maybe(st.dictionaries(texts, texts, max_size=2)))
    return transfer, drawn_legs, counterparty


@settings(max_examples=300, deadline=None)
@given(drawn=transfers())
def test_transfer_json_is_transfer_read_byte_for_byte(drawn):
    transfer, transfer_legs, counterparty = drawn
    expected = TransferRead.of(transfer, transfer_legs, counterparty=counterparty).to_json_dict()
    built = transfer_json(transfer, transfer_legs, counterparty=counterparty)
    assert orjson.dumps(built) == orjson.dumps(expected)
