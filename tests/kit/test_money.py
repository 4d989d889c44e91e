"""Properties of money conversions: no value is created or lost between forms."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corridor.kit import money
from corridor.kit.schemas import Amount

currency_codes = st.sampled_from(sorted(money.CURRENCIES))
minor_units = st.integers(min_value=-(10**20), max_value=10**20)
request_minor_units = st.integers(min_value=0, max_value=money.MINOR_UNITS_MAX)


@given(currency_codes, minor_units)
def test_minor_units_round_trip_through_decimal_strings(code, units):
    exponent = money.currency(code).exponent
    text = money.to_decimal_string(units, exponent)
    assert money.from_decimal_string(text, exponent) == units


@given(currency_codes, minor_units)
def test_display_value_is_the_exact_decimal_with_exponent_digits(code, units):
    exponent = money.currency(code).exponent
    text = money.to_decimal_string(units, exponent)
    assert Decimal(text) == money.decimal_of(units, exponent) == Decimal(units) / 10**exponent
    whole, _, fraction = text.lstrip("-").partition(".")
    assert len(fraction) == exponent
    assert whole == "0" or not whole.startswith("0")
    assert text.startswith("-") == (units < 0)


@given(currency_codes, request_minor_units)
def test_amount_objects_carry_the_currency_exponent_and_both_forms(code, units):
    amount = Amount.of(units, code).to_json_dict()
    exponent = money.currency(code).exponent
    assert amount == {
        "currency": code,
        "exponent": exponent,
        "value": str(units),
        "displayValue": money.to_decimal_string(units, exponent),
    }
    assert money.from_decimal_string(amount["displayValue"], exponent) == int(amount["value"])


@given(currency_codes, st.data())
def test_decimal_strings_with_fewer_digits_are_padded_never_rounded(code, data):
    exponent = money.currency(code).exponent
    whole = data.draw(st.integers(0, 10**12))
    digits = data.draw(st.integers(0, exponent))
    fraction = data.draw(st.text("0123456789", min_size=digits, max_size=digits))
    text = f"{whole}.{fraction}" if fraction else str(whole)
    expected = int(str(whole) + fraction.ljust(exponent, "0"))
    assert money.from_decimal_string(text, exponent) == expected


@given(currency_codes, st.integers(0, 10**12), st.text("0123456789", min_size=1, max_size=4))
def test_more_decimal_places_than_the_exponent_are_refused(code, whole, extra):
    exponent = money.currency(code).exponent
    text = f"{whole}." + "5" * exponent + extra
    with pytest.raises(money.MoneyError):
        money.from_decimal_string(text, exponent)


@given(request_minor_units)
def test_minor_unit_strings_parse_to_the_same_int(units):
    assert money.parse_minor_units(str(units)) == units


@given(st.integers(min_value=1, max_value=10**30))
def test_negative_minor_units_are_refused(units):
    with pytest.raises(money.MoneyError):
        money.parse_minor_units(str(-units))


@given(st.integers(min_value=money.MINOR_UNITS_MAX + 1, max_value=10**40))
def test_minor_units_over_the_maximum_are_refused(units):
    with pytest.raises(money.MoneyError):
        money.parse_minor_units(str(units))


@given(
    st.text(min_size=1, max_size=30).filter(lambda text: not text.isascii() or not text.isdigit())
)
def test_minor_units_with_anything_but_ascii_digits_are_refused(text):
    with pytest.raises(money.MoneyError):
        money.parse_minor_units(text)


@pytest.mark.parametrize(
    "value", ["", "01", "1.5", "1e3", " 1", "1 ", "+1", "١٢", "0x10", "1_000", 100, None, 1.5]
)
def test_malformed_minor_units_are_refused(value):
    with pytest.raises(money.MoneyError):
        money.parse_minor_units(value)


@pytest.mark.parametrize(
    ("code", "exponent"),
    [
        ("USD", 2),
        ("EUR", 2),
        ("GBP", 2),
        ("MXN", 2),
        ("JPY", 0),
        ("KWD", 3),
        ("USDC", 6),
        ("USDT", 6),
        ("EURC", 6),
    ],
)
def test_exponents_follow_iso_4217_and_six_for_stablecoins(code, exponent):
    assert money.currency(code).exponent == exponent


def test_unknown_currencies_are_refused():
    for code in ("usd", "XXX", "", "US"):
        with pytest.raises(money.MoneyError):
            money.currency(code)
