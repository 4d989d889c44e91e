"""Request shapes of quotes and intents (API.md §5 "Quotes and intents")."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from corridor.kit.schemas import AmountIn, CurrencyCode, RequestModel
from corridor.rails.base import RailName
from corridor.transfers.schemas import DeveloperFeeIn, Identifier, TransferCreate


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
