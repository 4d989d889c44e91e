"""Pure bank-code rules: ABA, IBAN, BIC and sort code checks, account shapes and rails."""

from __future__ import annotations

import pytest

from corridor.parties.bank_codes import (
    AccountDetails,
    BankCodeKind,
    check_account,
    check_bic,
    check_iban,
    check_routing_number,
    check_sort_code,
    validate_bank_code,
)


@pytest.mark.parametrize("number", ["021000021", "011000015", "026009593", "0210-0002-1"])
def test_real_routing_numbers_are_valid(number):
    assert check_routing_number(number).valid


@pytest.mark.parametrize(
    "number",
    ["021000022", "011000016", "000000000", "991000015", "02100002", "O21000021", "٠٢١٠٠٠٠٢١"],
)
def test_routing_numbers_with_wrong_digits_or_shape_are_invalid(number):
    verdict = check_routing_number(number)
    assert not verdict.valid and verdict.reason


def test_every_single_digit_change_of_a_routing_number_is_caught():
    number = "021000021"
    for index in range(9):
        for digit in "0123456789":
            if digit == number[index]:
                continue
            changed = number[:index] + digit + number[index + 1 :]
            assert not check_routing_number(changed).valid, changed


@pytest.mark.parametrize(
    "iban", ["DE89370400440532013000", "GB82WEST12345698765432", "FR1420041010050500013M02606"]
)
def test_real_ibans_are_valid_and_every_single_digit_change_is_caught(iban):
    assert check_iban(iban).valid
    for index in range(2, len(iban)):
        if not iban[index].isdigit():
            continue
        changed = iban[:index] + str((int(iban[index]) + 1) % 10) + iban[index + 1 :]
        assert not check_iban(changed).valid, changed


def test_iban_tells_its_country_and_bank_when_known():
    verdict = check_iban("de89 3704 0044 0532 0130 00")
    assert verdict.normalized == "DE89370400440532013000"
    assert verdict.country == "DE"
    assert verdict.bank_name == "Commerzbank"


def test_bic_checks_shape_and_country_and_names_the_bank():
    verdict = check_bic("DEUTDEFF")
    assert verdict.valid and verdict.country == "DE" and verdict.bank_name == "Deutsche Bank"
    assert check_bic("deutdeff500").normalized == "DEUTDEFF500"
    for bad in ("DEUTXXFF", "DEUT", "DEUTDEFF5", "DEUT DEFF", "DEUTDEFF_00"):
        assert not check_bic(bad).valid, bad


def test_sort_codes_are_six_digits():
    assert check_sort_code("40-47-84").normalized == "404784"
    assert check_sort_code("404784").valid
    assert not check_sort_code("40-47-8").valid


def test_validate_bank_code_compares_the_country_except_for_bics():
    assert validate_bank_code(BankCodeKind.IBAN, "DE89370400440532013000", country="DE").valid
    assert not validate_bank_code(BankCodeKind.IBAN, "DE89370400440532013000", country="AT").valid
    assert not validate_bank_code(BankCodeKind.SORT_CODE, "404784", country="IE").valid
    # A bank's BIC may carry another country than the account (Jersey, overseas France).
    assert validate_bank_code(BankCodeKind.BIC, "DEUTDEFF", country="JE").valid


@pytest.mark.parametrize(
    ("details", "rails"),
    [
        (
            AccountDetails(
                country="US", currency="USD", account_number="1234", routing_number="021000021"
            ),
            ["ACH", "ACH_SAME_DAY", "WIRE", "RTP"],
        ),
        (
            AccountDetails(country="DE", currency="EUR", iban="DE89370400440532013000"),
            ["SEPA", "SEPA_INSTANT"],
        ),
        (
            AccountDetails(
                country="DE", currency="EUR", iban="DE89370400440532013000", bic="COBADEFF"
            ),
            ["SEPA", "SEPA_INSTANT", "SWIFT"],
        ),
        (
            AccountDetails(
                country="DE", currency="USD", iban="DE89370400440532013000", bic="COBADEFF"
            ),
            ["SWIFT"],
        ),
        (
            AccountDetails(country="GB", currency="EUR", iban="GB82WEST12345698765432"),
            ["SEPA", "SEPA_INSTANT"],
        ),
        (
            AccountDetails(
                country="GB",
                currency="GBP",
                account_number="31926819",
                sort_code="60-16-13",
                bic="NWBKGB2L",
            ),
            ["SWIFT"],
        ),
        (
            AccountDetails(
                country="MX", currency="MXN", account_number="002180700123456789", bic="BNMXMXMM"
            ),
            ["SWIFT"],
        ),
    ],
)
def test_rails_follow_from_the_numbers(details, rails):
    checked = check_account(details)
    assert checked.problems == []
    assert checked.supported_rails == rails


def test_an_account_with_problems_has_no_rails():
    checked = check_account(
        AccountDetails(
            country="US", currency="USD", account_number="1234", routing_number="021000022"
        )
    )
    assert checked.problems == [("routingNumber", "invalid check digit")]
    assert checked.supported_rails == []
