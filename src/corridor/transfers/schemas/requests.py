"""Request shapes of transfers, deposits and the sandbox helpers (API.md §5, §8)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    WithJsonSchema,
)

from corridor.kit.schemas import (
    AmountIn,
    CurrencyCode,
    MultiLineText,
    RequestModel,
    SingleLineText,
)
from corridor.rails.base import RailName
from corridor.transfers.rules.reasons import PaymentReason
from corridor.transfers.rules.states import Decision

client_reference_chars_max = 256
remarks_chars_max = 1000
reason_chars_max = 500
reference_chars_max = 140
ach_reference_chars_max = 80
memo_chars_max = 64
address_chars_max = 128
document_ids_max = 50

Identifier = Annotated[StrictStr, Field(min_length=1, max_length=64)]
ReferenceText = Annotated[SingleLineText, Field(min_length=1, max_length=reference_chars_max)]
Remarks = Annotated[MultiLineText, Field(max_length=remarks_chars_max)]
# JSON's one number type (an integer is a number): stated once, not as integer|number.
Percent = Annotated[
    StrictFloat | StrictInt,
    Field(ge=0, le=1, allow_inf_nan=False),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1}),
]

_TRANSFER_ID = "tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"


class SourceIn(RequestModel):
    """A balance account (`accountId`), an external bank account to pull from
    (`externalAccountId` + `paymentRail`), or a deposit to make (`currency` +
    `paymentRail`, optional `fromAddress`)."""

    account_id: Identifier | None = Field(default=None, examples=["acc_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    external_account_id: Identifier | None = None
    currency: CurrencyCode | None = None
    payment_rail: RailName | None = None
    from_address: Annotated[StrictStr, Field(min_length=1, max_length=address_chars_max)] | None = (
        None
    )
    refund_account_id: Identifier | None = None


class DestinationIn(RequestModel):
    """A balance account (`accountId`), an external account or wallet (`externalAccountId`
    + `paymentRail` + `currency`), or an address (`toAddress` + `paymentRail` +
    `currency`); plus the references to send along."""

    account_id: Identifier | None = None
    external_account_id: Identifier | None = Field(
        default=None, examples=["ext_01jd3x0p6x9e3k2v1m8q4r7s5t"]
    )
    to_address: Annotated[StrictStr, Field(min_length=1, max_length=address_chars_max)] | None = (
        None
    )
    currency: CurrencyCode | None = None
    payment_rail: RailName | None = None
    wire_message: ReferenceText | None = None
    ach_reference: (
        Annotated[SingleLineText, Field(min_length=1, max_length=ach_reference_chars_max)] | None
    ) = None
    swift_reference: ReferenceText | None = None
    rtp_reference: ReferenceText | None = None
    payout_reference: ReferenceText | None = None
    sepa_reference: ReferenceText | None = None
    blockchain_memo: (
        Annotated[SingleLineText, Field(min_length=1, max_length=memo_chars_max)] | None
    ) = None
    correspondent_bank_name: ReferenceText | None = None
    correspondent_bank_swift_code: (
        Annotated[StrictStr, Field(min_length=8, max_length=11)] | None
    ) = None
    correspondent_account_number: (
        Annotated[StrictStr, Field(min_length=1, max_length=34)] | None
    ) = None


class DeveloperFeeIn(RequestModel):
    """`fixed` minor units of the source currency plus `percent` (0..1) of the amount."""

    fixed: StrictStr = Field(default="0", examples=["100"])
    percent: Percent = Field(default=0, examples=[0.005])


class PaymentDetailsIn(RequestModel):
    """What a payment carries besides its money and ends: a transfer's, or a fixed route's
    for every transfer it makes."""

    counterparty_id: Identifier | None = None
    developer_fee: DeveloperFeeIn | None = None
    client_reference_id: (
        Annotated[SingleLineText, Field(max_length=client_reference_chars_max)] | None
    ) = None
    remarks: Remarks | None = None
    internal_remarks: Remarks | None = None
    payment_reason: PaymentReason | None = None


class _TransferFields(PaymentDetailsIn):
    quote_id: Identifier | None = None
    developer_fee_fixed: StrictStr | None = None
    developer_fee_percent: Percent | None = None
    document_ids: Annotated[list[Identifier], Field(max_length=document_ids_max)] | None = None


class TransferCreate(_TransferFields):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "source": {"accountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"},
                    "destination": {
                        "externalAccountId": "ext_01jd3x0p6x9e3k2v1m8q4r7s5t",
                        "paymentRail": "ACH",
                        "currency": "USD",
                    },
                    "amount": {"currency": "USD", "value": "10000"},
                    "developerFee": {"fixed": "100", "percent": 0.005},
                    "clientReferenceId": "inv-42",
                    "paymentReason": "PAYMENT_FOR_GOODS_AND_SERVICES",
                    "confirm": False,
                }
            ]
        }
    )

    customer_id: Identifier | None = None
    source: SourceIn
    destination: DestinationIn
    amount: AmountIn
    confirm: StrictBool = False


class TransferUpdate(_TransferFields):
    """Every field optional; `source` and `destination` are merged into the draft's (a
    field sent as null is removed), except that naming another kind of end (`accountId`,
    `externalAccountId`, `toAddress`) replaces the old one with its `currency` and
    `paymentRail`, and a new `paymentRail` drops the references of the old rail
    (`achReference`, `wireMessage`, …) unless they are sent again. Only a DRAFT can be
    updated."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "amount": {"currency": "USD", "value": "12550"},
                    "destination": {"achReference": "INV 42"},
                    "paymentReason": "PAYMENT_FOR_GOODS_AND_SERVICES",
                    "remarks": "April invoice",
                }
            ]
        }
    )

    source: SourceIn | None = None
    destination: DestinationIn | None = None
    amount: AmountIn | None = None


class TransferCancel(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"reason": "Customer changed mind"}]})

    reason: Annotated[MultiLineText, Field(max_length=reason_chars_max)] | None = None


class TransferFund(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"accountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"}]}
    )

    account_id: Identifier


class TransferDecision(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"decision": "APPROVE", "reason": "Checked invoice"}]}
    )

    decision: Decision
    reason: Annotated[MultiLineText, Field(max_length=reason_chars_max)] | None = None


class SandboxDeposit(RequestModel):
    """Money arriving at a deposit address or virtual wallet (`toAddress`), or at a
    virtual bank account (`virtualAccountId`, with the `reference` the payer quoted)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "paymentRail": "BASE",
                    "amount": {"currency": "USDC", "value": "100000000"},
                    "toAddress": "0x8ba1f109551bd432803012645ac136ddd64dba72",
                },
                {
                    "paymentRail": "WIRE",
                    "amount": {"currency": "USD", "value": "10000"},
                    "virtualAccountId": "vba_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "reference": "CRD7K2M9Q4XW",
                },
            ]
        }
    )

    payment_rail: RailName
    amount: AmountIn
    to_address: Annotated[StrictStr, Field(min_length=1, max_length=address_chars_max)] | None = (
        None
    )
    virtual_account_id: Identifier | None = None
    from_address: Annotated[StrictStr, Field(min_length=1, max_length=address_chars_max)] | None = (
        None
    )
    reference: ReferenceText | None = None


class SandboxLegStatus(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"status": "FAILED", "reason": "Account closed"},
                {"status": "RETURNED", "reason": "R01 insufficient funds"},
            ]
        }
    )

    status: Literal["COMPLETED", "FAILED", "RETURNED"]
    reason: Annotated[MultiLineText, Field(max_length=reason_chars_max)] | None = None


TRANSFER_ID_EXAMPLE = _TRANSFER_ID
