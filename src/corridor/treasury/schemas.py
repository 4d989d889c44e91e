"""Wire shape of a customer's treasury balances."""

from __future__ import annotations

from pydantic import Field

from corridor.kit.schemas import Amount, ResponseModel, Timestamp


class CurrencyBalanceRead(ResponseModel):
    """One currency across the customer's balance accounts."""

    currency: str = Field(examples=["EUR"])
    available: Amount = Field(description="May be spent now")
    held: Amount = Field(
        description="Reserved by transfers in flight (already left out of `available`)"
    )
    pending: Amount = Field(description="Incoming, not yet available")
    total: Amount = Field(description="available + pending, as an account's balance")
    accounts: int = Field(description="How many balance accounts hold this currency")
    rate: str | None = Field(
        description="Reporting-currency units per unit of this currency (reference rate, no "
        "spread); null when no rate is published",
        examples=["1.08"],
    )
    available_in_reporting_currency: Amount | None
    total_in_reporting_currency: Amount | None


class TreasuryBalancesRead(ResponseModel):
    customer_id: str
    reporting_currency: str = Field(
        description="The organization's `reportingCurrency`", examples=["USD"]
    )
    balances: list[CurrencyBalanceRead]
    available: Amount = Field(description="Every priced currency's available, converted")
    total: Amount = Field(description="Every priced currency's total, converted")
    unpriced_currencies: list[str] = Field(
        description="Currencies with no published rate, left out of the converted totals"
    )
    rate_provider: str = Field(examples=["CORRIDOR_SANDBOX_REFERENCE"])
    rates_as_of: Timestamp
    as_of: Timestamp
