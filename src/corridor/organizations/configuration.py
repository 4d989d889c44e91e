"""An organization's configuration: its fields, defaults and rules (pure: no web, no database).

Stored in `Organization.configuration` as a JSON document with the API's camelCase names;
documents written by older code may lack fields, which then take their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corridor.kit.money import CURRENCIES, CurrencyKind, is_supported_currency

DEFAULT_ACCOUNT_CURRENCIES = ("USD", "USDC")
# What treasury totals are converted to (GET /v1/customers/{id}/treasury-balances).
DEFAULT_REPORTING_CURRENCY = "USD"
account_currencies_max = len(CURRENCIES)


@dataclass(frozen=True, slots=True)
class Threshold:
    """Submits of a larger amount in this currency need a second console user's authorization."""

    currency: str
    minor_units: int


@dataclass(frozen=True, slots=True)
class DeveloperFee:
    """Charged on a transfer that names no fee: fixed minor units plus a fraction (0..1)."""

    fixed_minor_units: int
    percent: float


@dataclass(frozen=True, slots=True)
class Configuration:
    account_currencies: tuple[str, ...] = DEFAULT_ACCOUNT_CURRENCIES
    transfer_authorization_threshold: Threshold | None = None
    default_developer_fee: DeveloperFee | None = None
    webhook_history_enabled: bool = True
    reporting_currency: str = DEFAULT_REPORTING_CURRENCY
    # Requests per second each key (or console user) may make; None: the server's default.
    requests_per_second_per_key: int | None = None


def reporting_currency_problem(code: str) -> str | None:
    if not is_supported_currency(code):
        return f"unsupported currency {code!r}"
    if CURRENCIES[code].kind is not CurrencyKind.FIAT:
        return "must be a fiat currency (a stablecoin reports in the currency it is pegged to)"
    return None


def account_currencies_problem(codes: Sequence[str]) -> str | None:
    """Why this list cannot be the currencies balance accounts open in, or None when it can."""
    if not codes:
        return "name at least one currency"
    unsupported = [code for code in codes if not is_supported_currency(code)]
    if unsupported:
        return f"unsupported currency {unsupported[0]!r}"
    duplicates = sorted({code for code in codes if codes.count(code) > 1})
    if duplicates:
        return f"{duplicates[0]} is listed more than once"
    return None


def from_document(document: Mapping[str, Any]) -> Configuration:
    """The configuration a stored document describes; missing fields take their defaults."""
    threshold = document.get("transferAuthorizationThreshold")
    fee = document.get("defaultDeveloperFee")
    return Configuration(
        account_currencies=tuple(document.get("accountCurrencies") or DEFAULT_ACCOUNT_CURRENCIES),
        transfer_authorization_threshold=(
            Threshold(currency=threshold["currency"], minor_units=int(threshold["value"]))
            if threshold
            else None
        ),
        default_developer_fee=(
            DeveloperFee(fixed_minor_units=int(fee["fixed"]), percent=float(fee["percent"]))
            if fee
            else None
        ),
        webhook_history_enabled=bool(document.get("webhookHistoryEnabled", True)),
        reporting_currency=str(document.get("reportingCurrency") or DEFAULT_REPORTING_CURRENCY),
        requests_per_second_per_key=document.get("requestsPerSecondPerKey"),
    )


def to_document(configuration: Configuration) -> dict[str, Any]:
    threshold = configuration.transfer_authorization_threshold
    fee = configuration.default_developer_fee
    return {
        "accountCurrencies": list(configuration.account_currencies),
        "transferAuthorizationThreshold": (
            {"currency": threshold.currency, "value": str(threshold.minor_units)}
            if threshold
            else None
        ),
        "defaultDeveloperFee": (
            {"fixed": str(fee.fixed_minor_units), "percent": fee.percent} if fee else None
        ),
        "webhookHistoryEnabled": configuration.webhook_history_enabled,
        "reportingCurrency": configuration.reporting_currency,
        "requestsPerSecondPerKey": configuration.requests_per_second_per_key,
    }


DEFAULT_DOCUMENT: Mapping[str, Any] = to_document(Configuration())
