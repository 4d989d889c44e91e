"""Money as integer minor units with a currency; decimal strings only at the edges.

Rounding rule for decimal input: a decimal string with more fractional digits than the
currency's exponent is refused, never rounded, so no value is created or lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


class CurrencyKind(StrEnum):
    FIAT = "FIAT"
    STABLECOIN = "STABLECOIN"


@dataclass(frozen=True, slots=True)
class Currency:
    code: str
    exponent: int
    kind: CurrencyKind


# Fiat exponents are the minor units of ISO 4217; stablecoins carry 6 decimals.
_FIAT_EXPONENTS = {
    "AED": 2,
    "ARS": 2,
    "AUD": 2,
    "BHD": 3,
    "BRL": 2,
    "CAD": 2,
    "CHF": 2,
    "CLP": 0,
    "CNY": 2,
    "COP": 2,
    "CZK": 2,
    "DKK": 2,
    "EUR": 2,
    "GBP": 2,
    "HKD": 2,
    "HUF": 2,
    "IDR": 2,
    "ILS": 2,
    "INR": 2,
    "ISK": 0,
    "JOD": 3,
    "JPY": 0,
    "KES": 2,
    "KRW": 0,
    "KWD": 3,
    "MXN": 2,
    "MYR": 2,
    "NGN": 2,
    "NOK": 2,
    "NZD": 2,
    "OMR": 3,
    "PEN": 2,
    "PHP": 2,
    "PLN": 2,
    "RON": 2,
    "SAR": 2,
    "SEK": 2,
    "SGD": 2,
    "THB": 2,
    "TND": 3,
    "TRY": 2,
    "TWD": 2,
    "UGX": 0,
    "USD": 2,
    "VND": 0,
    "XAF": 0,
    "XOF": 0,
    "ZAR": 2,
}
_STABLECOINS = ("USDC", "USDT", "EURC", "PYUSD", "USDB")

CURRENCIES: dict[str, Currency] = {
    **{
        code: Currency(code, exponent, CurrencyKind.FIAT)
        for code, exponent in _FIAT_EXPONENTS.items()
    },
    **{code: Currency(code, 6, CurrencyKind.STABLECOIN) for code in _STABLECOINS},
}

MINOR_UNITS_MAX = 10**17  # bounds what one request can carry; balances stay inside int64
# Up to 17 digits: below MINOR_UNITS_MAX (10**17, itself allowed but not stated).
minor_units_pattern = r"^(0|[1-9][0-9]{0,16})$"
_MINOR_UNITS_PATTERN = re.compile(r"^(0|[1-9][0-9]*)$")
_DECIMAL_PATTERN = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$")


class MoneyError(ValueError):
    """A malformed amount or an unknown currency."""


def currency(code: str) -> Currency:
    try:
        return CURRENCIES[code]
    except KeyError:
        raise MoneyError(f"unsupported currency {code!r}") from None


def is_supported_currency(code: str) -> bool:
    return code in CURRENCIES


def parse_minor_units(value: str) -> int:
    """A non-negative integer in a string, as REST amounts carry it."""
    if not isinstance(value, str) or not _MINOR_UNITS_PATTERN.match(value):
        raise MoneyError('must be a non-negative integer of minor units in a string, e.g. "12550"')
    units = int(value)
    if units > MINOR_UNITS_MAX:
        raise MoneyError("is too large")
    return units


def to_decimal_string(minor_units: int, exponent: int) -> str:
    """12550, 2 → '125.50'; exactly exponent fractional digits; negative amounts keep their sign."""
    sign = "-" if minor_units < 0 else ""
    digits = str(abs(minor_units))
    if exponent == 0:
        return sign + digits
    digits = digits.rjust(exponent + 1, "0")
    return f"{sign}{digits[:-exponent]}.{digits[-exponent:]}"


def from_decimal_string(text: str, exponent: int) -> int:
    """'125.5', 2 → 12550. Refuses more fractional digits than the exponent (no rounding)."""
    if not isinstance(text, str) or not _DECIMAL_PATTERN.match(text):
        raise MoneyError(f"{text!r} is not a decimal number")
    whole, _, fraction = text.lstrip("-").partition(".")
    if len(fraction) > exponent:
        raise MoneyError(f"{text!r} has more than {exponent} decimal places")
    units = int(whole + fraction.ljust(exponent, "0"))
    return -units if text.startswith("-") else units


def decimal_of(minor_units: int, exponent: int) -> Decimal:
    return Decimal(minor_units).scaleb(-exponent)


@dataclass(frozen=True, slots=True)
class Money:
    minor_units: int
    currency_code: str

    @property
    def exponent(self) -> int:
        return currency(self.currency_code).exponent

    def display(self) -> str:
        return to_decimal_string(self.minor_units, self.exponent)

    def as_amount(self) -> dict[str, object]:
        """The Amount object of spec 2.1."""
        return amount_object(self.minor_units, self.currency_code)


def amount_object(minor_units: int, currency_code: str) -> dict[str, object]:
    exponent = currency(currency_code).exponent
    return {
        "currency": currency_code,
        "exponent": exponent,
        "value": str(minor_units),
        "displayValue": to_decimal_string(minor_units, exponent),
    }


# The fiat currency each stablecoin is pegged to.
PEGS = {"USDC": "USD", "USDT": "USD", "PYUSD": "USD", "USDB": "USD", "EURC": "EUR"}


def peg_of(code: str) -> str:
    """The fiat currency a stablecoin is pegged to; a fiat currency is its own."""
    return PEGS.get(code, code)
