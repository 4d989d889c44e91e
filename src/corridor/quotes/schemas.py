"""Request and response shapes of quotes and intents (API.md §5 "Quotes and intents")."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import ClassVar

from pydantic import ConfigDict, Field

from corridor.kit.schemas import (
    Amount,
    AmountIn,
    CurrencyCode,
    RequestModel,
    ResponseModel,
    Sparse,
    Timestamp,
)
from corridor.models.transfer import Quote
from corridor.quotes.rules import status_at
from corridor.rails.base import RailName
from corridor.transfers.schemas.requests import DeveloperFeeIn, Identifier, TransferCreate
from corridor.transfers.schemas.transfer import TransferRead


class QuoteSide(RequestModel):
    currency: CurrencyCode = Field(examples=["USD"])
    payment_rail: RailName | None = None


class QuoteCreate(RequestModel):
    """`amount` in the source currency fixes the source (the destination is computed); in
    the destination currency it fixes the destination (the smallest source amount that
    yields at least it is computed). `developerFee` as on a transfer: left out, the
    organization's default applies; null, none."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "source": {"currency": "USD", "paymentRail": "WIRE"},
                    "destination": {"currency": "EUR", "paymentRail": "SEPA"},
                    "amount": {"currency": "USD", "value": "100000"},
                    "developerFee": {"fixed": "0", "percent": 0.001},
                },
                {
                    "source": {"currency": "USDC"},
                    "destination": {"currency": "MXN"},
                    "amount": {"currency": "MXN", "value": "500000"},
                },
            ]
        }
    )

    customer_id: Identifier | None = None
    source: QuoteSide
    destination: QuoteSide
    amount: AmountIn
    developer_fee: DeveloperFeeIn | None = None


class IntentQuoteCreate(TransferCreate):
    """A transfer as `POST /v1/transfers` takes it, without `confirm` or `quoteId`: a DRAFT
    is made and priced, and a quote locks its rate."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "source": {"accountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"},
                    "destination": {
                        "externalAccountId": "ext_01jd3x0p6x9e3k2v1m8q4r7s5t",
                        "paymentRail": "SEPA",
                        "currency": "EUR",
                    },
                    "amount": {"currency": "USD", "value": "100000"},
                    "clientReferenceId": "inv-42",
                }
            ]
        }
    )


class QuoteSideRead(Sparse):
    optional: ClassVar[frozenset[str]] = frozenset({"payment_rail"})

    currency: str = Field(examples=["USD"])
    payment_rail: str | None = None


class QuoteFeeRead(ResponseModel):
    amount: Amount
    fixed: str = Field(examples=["0"])
    percent: float = Field(examples=[0.001])


class QuoteRead(Sparse):
    """A quote (`quo_`). `status` is ACTIVE until `expiresAt`, then EXPIRED; USED once a
    transfer was submitted with it (`transferId`). `exchangeRate` is all-in (fees
    included) on minor units: destinationAmount = floor(sourceAmount × exchangeRate)."""

    optional: ClassVar[frozenset[str]] = frozenset(
        {"reference_rate", "reference_rate_as_of", "reference_provider"}
    )

    id: str = Field(examples=["quo_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    organization_id: str
    customer_id: str | None
    status: str = Field(examples=["ACTIVE"])
    source: QuoteSideRead
    destination: QuoteSideRead
    source_amount: Amount
    destination_amount: Amount
    developer_fee: QuoteFeeRead | None
    exchange_rate: str | None = Field(examples=["0.8500342"])
    reference_rate: str | None = None
    reference_rate_as_of: Timestamp | None = None
    reference_provider: str | None = None
    expires_at: Timestamp
    transfer_id: str | None
    used_at: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, quote: Quote, *, now: datetime) -> QuoteRead:
        request = quote.request or {}
        fee = request.get("developerFee")
        return cls(
            id=quote.id,
            organization_id=quote.organization_id,
            customer_id=quote.customer_id,
            status=status_at(quote.status, expires_at=quote.expires_at, now=now).value,
            source=QuoteSideRead(
                currency=quote.source_currency,
                payment_rail=(request.get("source") or {}).get("paymentRail"),
            ),
            destination=QuoteSideRead(
                currency=quote.destination_currency,
                payment_rail=(request.get("destination") or {}).get("paymentRail"),
            ),
            source_amount=Amount.of(quote.source_amount, quote.source_currency),
            destination_amount=Amount.of(quote.destination_amount, quote.destination_currency),
            developer_fee=(
                QuoteFeeRead(
                    amount=Amount.of(quote.fee_amount, quote.source_currency),
                    fixed=fee["fixed"],
                    percent=float(Decimal(fee["percent"])),
                )
                if fee is not None
                else None
            ),
            exchange_rate=quote.exchange_rate,
            reference_rate=quote.reference_rate,
            reference_rate_as_of=quote.reference_rate_as_of,
            reference_provider=quote.reference_provider,
            expires_at=quote.expires_at,
            transfer_id=quote.transfer_id,
            used_at=quote.used_at,
            created_at=quote.created_at,
            updated_at=quote.updated_at,
        )


class QuoteWithTransfer(ResponseModel):
    quote: QuoteRead
    transfer: TransferRead
