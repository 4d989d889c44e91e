"""Flows are derived from source and destination; each flow gets its ordered legs."""

from __future__ import annotations

import itertools

import pytest

from corridor.transfers.rules.flows import (
    DestinationKind,
    Endpoint,
    Flow,
    LegType,
    SourceKind,
    flow_of,
    plan_legs,
)

BALANCE = SourceKind.BALANCE
DEPOSIT = SourceKind.DEPOSIT
PULL = SourceKind.EXTERNAL_ACCOUNT
TO_BALANCE = DestinationKind.BALANCE
TO_BANK = DestinationKind.EXTERNAL_ACCOUNT
TO_WALLET = DestinationKind.WALLET

CASES = [
    # source, destination, flow, leg types (without a fee)
    (
        Endpoint(BALANCE, "USD"),
        Endpoint(TO_BALANCE, "USD"),
        Flow.INTERNAL,
        ["DEBIT_BALANCE", "CREDIT_BALANCE"],
    ),
    (
        Endpoint(BALANCE, "USDC"),
        Endpoint(TO_BALANCE, "USDC"),
        Flow.INTERNAL,
        ["DEBIT_BALANCE", "CREDIT_BALANCE"],
    ),
    (
        Endpoint(BALANCE, "USD"),
        Endpoint(TO_BALANCE, "EUR"),
        Flow.FX,
        ["DEBIT_BALANCE", "CONVERT", "CREDIT_BALANCE"],
    ),
    (
        Endpoint(DEPOSIT, "USD", "WIRE"),
        Endpoint(TO_BALANCE, "EUR"),
        Flow.FX,
        ["DEPOSIT_FIAT", "CONVERT", "CREDIT_BALANCE"],
    ),
    (
        Endpoint(BALANCE, "USD"),
        Endpoint(TO_BANK, "USD", "ACH"),
        Flow.FIAT_TO_FIAT,
        ["DEBIT_BALANCE", "PAYOUT_FIAT"],
    ),
    (
        Endpoint(PULL, "USD", "ACH"),
        Endpoint(TO_BALANCE, "USD"),
        Flow.FIAT_TO_FIAT,
        ["DEPOSIT_FIAT", "CREDIT_BALANCE"],
    ),
    (
        Endpoint(BALANCE, "USDC"),
        Endpoint(TO_BANK, "USD", "WIRE"),
        Flow.CRYPTO_TO_FIAT,
        ["DEBIT_BALANCE", "CONVERT", "PAYOUT_FIAT"],
    ),
    (
        Endpoint(BALANCE, "USDC"),
        Endpoint(TO_BALANCE, "USD"),
        Flow.CRYPTO_TO_FIAT,
        ["DEBIT_BALANCE", "CONVERT", "CREDIT_BALANCE"],
    ),
    (
        Endpoint(DEPOSIT, "USD", "WIRE"),
        Endpoint(TO_WALLET, "USDC", "BASE"),
        Flow.FIAT_TO_CRYPTO,
        ["DEPOSIT_FIAT", "CONVERT", "WITHDRAW_CRYPTO"],
    ),
    (
        Endpoint(DEPOSIT, "USDC", "ETHEREUM"),
        Endpoint(TO_WALLET, "USDC", "SOLANA"),
        Flow.CRYPTO_TO_CRYPTO,
        ["DEPOSIT_CRYPTO", "BRIDGE", "WITHDRAW_CRYPTO"],
    ),
    (
        Endpoint(DEPOSIT, "USDC", "BASE"),
        Endpoint(TO_WALLET, "USDC", "BASE"),
        Flow.CRYPTO_TO_CRYPTO,
        ["DEPOSIT_CRYPTO", "WITHDRAW_CRYPTO"],
    ),
    (
        Endpoint(BALANCE, "USDC"),
        Endpoint(TO_WALLET, "EURC", "SOLANA"),
        Flow.CRYPTO_TO_CRYPTO,
        ["DEBIT_BALANCE", "CONVERT", "WITHDRAW_CRYPTO"],
    ),
    (
        Endpoint(BALANCE, "USD"),
        Endpoint(TO_BANK, "EUR", "SEPA"),
        Flow.FIAT_TO_CRYPTO_TO_FIAT,
        ["DEBIT_BALANCE", "CONVERT", "CONVERT", "PAYOUT_FIAT"],
    ),
]


@pytest.mark.parametrize(("source", "destination", "flow", "leg_types"), CASES)
def test_flow_and_legs_follow_the_flow_table(source, destination, flow, leg_types):
    assert flow_of(source, destination) == flow
    legs = plan_legs(flow, source, destination, collects_fee=False)
    assert [leg.type.value for leg in legs] == leg_types
    assert legs[0].input_currency == source.currency
    assert legs[-1].output_currency == destination.currency
    for earlier, later in itertools.pairwise(legs):
        assert earlier.output_currency == later.input_currency


def test_a_fee_is_collected_right_after_funding_in_the_source_currency():
    source, destination = Endpoint(BALANCE, "USD"), Endpoint(TO_BANK, "EUR", "SEPA")
    legs = plan_legs(Flow.FIAT_TO_CRYPTO_TO_FIAT, source, destination, collects_fee=True)
    assert legs[1].type == LegType.COLLECT_FEE
    assert (legs[1].input_currency, legs[1].output_currency) == ("USD", "USD")
    assert [(leg.input_currency, leg.output_currency) for leg in legs[2:4]] == [
        ("USD", "USDC"),
        ("USDC", "EUR"),
    ]


def test_rails_of_each_leg():
    source, destination = Endpoint(DEPOSIT, "USDC", "ETHEREUM"), Endpoint(TO_WALLET, "USDC", "TRON")
    legs = plan_legs(Flow.CRYPTO_TO_CRYPTO, source, destination, collects_fee=False)
    assert [(leg.input_rail, leg.output_rail) for leg in legs] == [
        ("ETHEREUM", "BOOK"),
        ("ETHEREUM", "TRON"),
        ("BOOK", "TRON"),
    ]


def test_system_flows_are_never_planned_from_a_request():
    with pytest.raises(AssertionError):
        plan_legs(
            Flow.FEE_CRYPTO,
            Endpoint(BALANCE, "USDC"),
            Endpoint(TO_WALLET, "USDC", "BASE"),
            collects_fee=False,
        )
