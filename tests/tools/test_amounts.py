"""Decimal amounts of the tool interfaces: exact, in major units, never rounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corridor.kit.errors import ValidationFailed
from corridor.kit.money import MINOR_UNITS_MAX
from corridor.tools.amounts import decimal_of, minor_units_of
from corridor.tools.catalog.transfers import CreateTransfer
from tests.tools.support import tool_error_of_arguments

CURRENCY_OF_EXPONENT = {0: "JPY", 2: "USD", 6: "USDC"}


@pytest.mark.parametrize("exponent", [0, 2, 6])
@given(minor=st.integers(min_value=1, max_value=MINOR_UNITS_MAX))
def test_decimal_and_minor_units_round_trip(exponent: int, minor: int) -> None:
    currency = CURRENCY_OF_EXPONENT[exponent]
    text = decimal_of(minor, currency)
    assert minor_units_of(text, currency, field="amount") == minor
    fraction = text.partition(".")[2]
    assert len(fraction) == exponent


@pytest.mark.parametrize("exponent", [2, 6])
@given(whole=st.integers(min_value=0, max_value=10**9), digits=st.integers(1, 6))
def test_shorter_fractions_mean_trailing_zeros(exponent: int, whole: int, digits: int) -> None:
    currency = CURRENCY_OF_EXPONENT[exponent]
    fraction = "1".rjust(min(digits, exponent), "0")
    text = f"{whole}.{fraction}"
    expected = whole * 10**exponent + int(fraction.ljust(exponent, "0"))
    assert minor_units_of(text, currency, field="amount") == expected


@pytest.mark.parametrize(
    ("text", "currency", "words"),
    [
        ("25.505", "USD", "more digits than USD allows"),
        ("100.0000001", "USDC", "more digits than USDC allows"),
        ("5.5", "JPY", "no decimal places"),
        ("0", "USD", "greater than zero"),
        ("0.00", "USD", "greater than zero"),
    ],
)
def test_amounts_that_do_not_fit_the_currency_are_refused(
    text: str, currency: str, words: str
) -> None:
    with pytest.raises(ValidationFailed) as refused:
        minor_units_of(text, currency, field="amount")
    assert refused.value.errors == [
        {"field": "amount", "message": refused.value.errors[0]["message"]}
    ]
    assert words in refused.value.message


_TRANSFER = {
    "source": {"accountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"},
    "destination": {"accountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5v"},
    "currency": "USD",
}


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        (25.5, "not a JSON number"),
        (25, "not a JSON number"),
        ({"currency": "USD", "value": "2550"}, "the REST API's"),
        (True, "not a boolean"),
        (["25.50"], "not an array"),
        ("2.5e1", "scientific notation"),
        ("1E2", "scientific notation"),
        ("-25.00", "greater than zero"),
        ("twenty", "decimal number"),
        ("25,50", "decimal number"),
        (" 25.50", "decimal number"),
        ("+25", "decimal number"),
        ("0x19", "decimal number"),
        ("NaN", "decimal number"),
        ("", "decimal number"),
    ],
)
def test_malformed_amounts_are_tool_errors_naming_the_field(amount: object, words: str) -> None:
    error = tool_error_of_arguments(CreateTransfer, {**_TRANSFER, "amount": amount})
    assert error.code == "validation_error"
    assert error.body["errors"][0]["field"] == "amount"
    assert words in error.body["errors"][0]["message"]
