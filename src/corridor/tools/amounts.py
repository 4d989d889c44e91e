"""Exact decimal amounts of the tool interfaces (spec 1): major units in a string.

`"25.50"` USD is 2550 minor units. More digits than the currency's exponent, scientific
notation, signs, zero and anything not a plain decimal are refused naming the field,
never rounded. Results show amounts the same way, with exactly `exponent` digits.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from corridor.kit.errors import ValidationFailed
from corridor.kit.money import (
    MINOR_UNITS_MAX,
    MoneyError,
    currency,
    from_decimal_string,
    to_decimal_string,
)
from corridor.kit.schemas import json_kind

decimal_chars_max = 40
_PLAIN_DECIMAL = re.compile(r"^(0|[1-9][0-9]*)(\.[0-9]+)?$")
_SCIENTIFIC = re.compile(r"^[-+]?[0-9]*\.?[0-9]+[eE][-+]?[0-9]+$")
_EXAMPLE = '"25.50"'


def _decimal_text(value: Any) -> str:
    """The shape every decimal amount has, whatever its currency."""
    if isinstance(value, dict):
        raise ValueError(
            f"must be a decimal string in major units such as {_EXAMPLE}, with the currency "
            "in its own field, not an object: the REST API's "
            '{"currency": …, "value": …} form in minor units is not the tools\' form'
        )
    if not isinstance(value, str):
        kind = json_kind(value)
        if kind == "a JSON number":
            kind += " (amounts are never floats)"
        raise ValueError(f"must be a decimal string in major units such as {_EXAMPLE}, not {kind}")
    text = value
    if len(text) > decimal_chars_max:
        raise ValueError(f"must be at most {decimal_chars_max} characters")
    if _SCIENTIFIC.match(text):
        raise ValueError("must be written out in digits; scientific notation is not accepted")
    if text.startswith("-"):
        raise ValueError("must be greater than zero")
    if not _PLAIN_DECIMAL.match(text):
        raise ValueError(f"must be a decimal number in major units such as {_EXAMPLE}")
    return text


DecimalString = Annotated[
    str,
    BeforeValidator(_decimal_text),
    Field(
        description="Exact decimal in major units, as a string: '25.50' USD, '100.000001' USDC",
        examples=["25.50"],
    ),
]


def minor_units_of(text: str, currency_code: str, *, field: str) -> int:
    """`text` (already shaped as DecimalString) in minor units of `currency_code`; more
    fractional digits than the currency has are refused, never rounded."""
    try:
        exponent = currency(currency_code).exponent
    except MoneyError as error:
        raise ValidationFailed("currency", str(error)) from None
    text = _checked(text, field)
    _, _, fraction = text.partition(".")
    if len(fraction) > exponent:
        places = "no decimal places" if exponent == 0 else f"at most {exponent} decimal places"
        raise ValidationFailed(
            field,
            f"{text} has more digits than {currency_code} allows ({places}); "
            "amounts are never rounded",
        )
    units = from_decimal_string(text, exponent)
    if units <= 0:
        raise ValidationFailed(field, "must be greater than zero")
    if units > MINOR_UNITS_MAX:
        raise ValidationFailed(field, "is too large")
    return units


def _checked(text: str, field: str) -> str:
    try:
        return _decimal_text(text)
    except ValueError as error:
        raise ValidationFailed(field, str(error)) from None


def decimal_of(minor_units: int, currency_code: str) -> str:
    """2550, USD → '25.50': exactly the currency's number of decimal places."""
    return to_decimal_string(minor_units, currency(currency_code).exponent)
