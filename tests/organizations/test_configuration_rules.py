"""The pure configuration rules: currency lists, defaults, and the stored document."""

from __future__ import annotations

from dataclasses import replace

import pytest

from corridor.organizations.configuration import (
    DEFAULT_DOCUMENT,
    Configuration,
    DeveloperFee,
    Threshold,
    account_currencies_problem,
    from_document,
    to_document,
)


@pytest.mark.parametrize("codes", [["USD"], ["USD", "USDC"], ["EUR", "GBP", "MXN", "EURC"]])
def test_supported_distinct_currencies_are_accepted(codes):
    assert account_currencies_problem(codes) is None


@pytest.mark.parametrize(
    ("codes", "problem"),
    [
        ([], "name at least one currency"),
        (["USD", "XYZ"], "unsupported currency 'XYZ'"),
        (["usd"], "unsupported currency 'usd'"),
        (["USD", "EUR", "USD"], "USD is listed more than once"),
    ],
)
def test_empty_unknown_or_repeated_currencies_are_refused(codes, problem):
    assert account_currencies_problem(codes) == problem


def test_defaults_are_usd_and_usdc_with_history_on():
    assert DEFAULT_DOCUMENT == {
        "accountCurrencies": ["USD", "USDC"],
        "transferAuthorizationThreshold": None,
        "defaultDeveloperFee": None,
        "webhookHistoryEnabled": True,
        "reportingCurrency": "USD",
        "requestsPerSecondPerKey": None,
    }
    assert from_document(DEFAULT_DOCUMENT) == Configuration()


def test_document_written_before_a_field_existed_reads_with_its_default():
    assert from_document({"accountCurrencies": ["EUR"]}) == Configuration(
        account_currencies=("EUR",)
    )
    assert from_document({}) == Configuration()


def test_document_round_trips_every_field():
    configuration = replace(
        Configuration(),
        account_currencies=("GBP", "USDT"),
        transfer_authorization_threshold=Threshold(currency="GBP", minor_units=250_000),
        default_developer_fee=DeveloperFee(fixed_minor_units=30, percent=0.0125),
        webhook_history_enabled=False,
        reporting_currency="EUR",
    )
    document = to_document(configuration)
    assert document["transferAuthorizationThreshold"] == {"currency": "GBP", "value": "250000"}
    assert document["defaultDeveloperFee"] == {"fixed": "30", "percent": 0.0125}
    assert from_document(document) == configuration
