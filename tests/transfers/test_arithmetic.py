"""Fee and FX arithmetic: property tests that no value is created or lost and no amount
is ever negative, across fees, conversions and the dust between exponents."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corridor.kit import fx
from corridor.kit.money import MINOR_UNITS_MAX
from corridor.ledger import rules
from corridor.transfers.money import entries
from corridor.transfers.rules.fees import DeveloperFee, FeeProblem, checked_fee, fee_amount
from corridor.transfers.rules.flows import (
    DestinationKind,
    Endpoint,
    LegType,
    SourceKind,
    flow_of,
    plan_legs,
)
from corridor.transfers.rules.pricing import PricingProblem, price

amounts = st.integers(min_value=1, max_value=MINOR_UNITS_MAX)
percents = st.decimals(min_value=0, max_value=1, places=6, allow_nan=False, allow_infinity=False)
fees = st.builds(
    DeveloperFee, fixed_minor=st.integers(min_value=0, max_value=10**6), percent=percents
)
PRICED = ["USD", "EUR", "GBP", "MXN", "JPY", "USDC", "USDT", "EURC"]
currencies = st.sampled_from(PRICED)


@given(amount=amounts, fee=fees)
def test_fee_is_fixed_plus_the_rounded_down_share_and_never_negative(amount, fee):
    charged = fee_amount(amount, fee)
    exact = fee.fixed_minor + Fraction(amount) * Fraction(fee.percent)
    assert 0 <= charged <= exact < charged + 1
    try:
        kept = checked_fee(amount, fee)
    except FeeProblem:
        assert charged >= amount
    else:
        assert kept == charged and amount - kept > 0


def test_fee_examples():
    assert fee_amount(10000, DeveloperFee(fixed_minor=100, percent=Decimal("0.005"))) == 150
    assert fee_amount(199, DeveloperFee(fixed_minor=0, percent=Decimal("0.005"))) == 0
    with pytest.raises(FeeProblem):
        checked_fee(100, DeveloperFee(fixed_minor=100, percent=Decimal(0)))


@given(
    amount=st.integers(min_value=0, max_value=MINOR_UNITS_MAX), source=currencies, target=currencies
)
def test_conversion_rounds_down_and_the_remainder_is_less_than_one_minor_unit(
    amount, source, target
):
    rate = fx.rate_for(source, target)
    conversion = fx.convert(amount, rate)
    exact = amount * rate.minor_units_rate
    assert conversion.output_minor >= 0
    assert conversion.output_minor + conversion.remainder == exact
    assert 0 <= conversion.remainder < 1


def test_stablecoins_convert_one_for_one_with_their_peg_and_dust_stays_behind():
    to_dollars = fx.rate_for("USDC", "USD")
    assert (to_dollars.reference, to_dollars.spread, to_dollars.benchmarked) == (1, 0, False)
    conversion = fx.convert(1_234_567, to_dollars)  # 1.234567 USDC
    assert conversion.output_minor == 123  # 1.23 USD
    assert conversion.remainder == Fraction(4567, 10_000)
    assert fx.convert(123, fx.rate_for("USD", "USDC")).output_minor == 1_230_000


def test_cross_currency_rates_carry_the_spread_and_a_reference():
    rate = fx.rate_for("USD", "EUR")
    assert rate.benchmarked and rate.spread == fx.SPREAD
    assert fx.convert(10_000, rate).output_minor == 9212  # 100 USD / 1.08 × 0.995 = 92.129…
    with pytest.raises(fx.NoRate):
        fx.rate_for("USD", "KRW")


@given(
    source=st.integers(min_value=1, max_value=MINOR_UNITS_MAX),
    destination=st.integers(min_value=0, max_value=MINOR_UNITS_MAX),
)
def test_exchange_rate_reproduces_the_destination_amount_exactly(source, destination):
    rate = fx.exchange_rate(source, destination)
    product = Fraction(source) * Fraction(rate)
    assert product.numerator // product.denominator == destination
    assert "E" not in fx.format_rate(rate)


ENDPOINTS = [
    (Endpoint(SourceKind.BALANCE, "USD"), Endpoint(DestinationKind.BALANCE, "EUR")),
    (
        Endpoint(SourceKind.BALANCE, "USDC"),
        Endpoint(DestinationKind.EXTERNAL_ACCOUNT, "USD", "WIRE"),
    ),
    (Endpoint(SourceKind.DEPOSIT, "EUR", "SEPA"), Endpoint(DestinationKind.WALLET, "USDC", "BASE")),
    (
        Endpoint(SourceKind.BALANCE, "USD"),
        Endpoint(DestinationKind.EXTERNAL_ACCOUNT, "MXN", "SWIFT"),
    ),
    (
        Endpoint(SourceKind.DEPOSIT, "USDC", "ETHEREUM"),
        Endpoint(DestinationKind.WALLET, "EURC", "SOLANA"),
    ),
    (Endpoint(SourceKind.BALANCE, "GBP"), Endpoint(DestinationKind.BALANCE, "GBP")),
]


@given(
    case=st.sampled_from(ENDPOINTS),
    amount=st.integers(min_value=1, max_value=10**15),
    fee=fees,
)
def test_a_priced_transfer_posts_entries_that_create_and_lose_nothing(case, amount, fee):
    source, destination = case
    flow = flow_of(source, destination)
    try:
        fee_minor = checked_fee(amount, fee)
        legs = plan_legs(flow, source, destination, collects_fee=fee_minor > 0)
        pricing = price(legs, source_minor=amount, fee_minor=fee_minor)
    except (FeeProblem, PricingProblem):
        return
    assert pricing.destination_minor > 0
    for leg in pricing.legs:
        assert leg.input_minor > 0 and leg.output_minor > 0 and leg.fee_minor >= 0
    if pricing.exchange_rate is not None:
        product = Fraction(amount) * Fraction(pricing.exchange_rate)
        assert product.numerator // product.denominator == pricing.destination_minor

    totals = _post_every_leg(pricing, source_balance="acc_source", destination_balance="acc_dest")
    # Double entry: every currency nets to zero over all accounts.
    for code in {code for code, _ in totals}:
        assert sum(value for (c, _), value in totals.items() if c == code) == 0
    assert totals[(source.currency, "BALANCE:acc_source")] == -amount
    if destination.kind == DestinationKind.BALANCE:
        assert totals[(destination.currency, "BALANCE:acc_dest")] == pricing.destination_minor
    assert totals.get((source.currency, f"FEES:{source.currency}"), 0) == fee_minor
    # CLEARING ends empty: everything that came in went on.
    assert all(value == 0 for (_, name), value in totals.items() if name.startswith("CLEARING"))
    # FX keeps only what rounding left: never negative, worth less than one unit of each output.
    for leg in pricing.legs:
        if leg.plan.type == LegType.CONVERT:
            assert totals[(leg.plan.input_currency, f"FX:{leg.plan.input_currency}")] >= 0


def _post_every_leg(pricing, *, source_balance, destination_balance):
    totals: dict[tuple[str, str], int] = defaultdict(int)
    movements = []
    for leg in pricing.legs:
        money = entries.LegMoney(
            type=leg.plan.type,
            input_currency=leg.plan.input_currency,
            output_currency=leg.plan.output_currency,
            input_minor=leg.input_minor,
            output_minor=leg.output_minor,
            fee_minor=leg.fee_minor,
        )
        if leg.plan.type == LegType.DEBIT_BALANCE:
            done = entries.funding(
                amount=leg.input_minor,
                currency=money.input_currency,
                from_balance_id=source_balance,
            )
        elif leg.plan.type in (LegType.DEPOSIT_FIAT, LegType.DEPOSIT_CRYPTO):
            # Treat a deposit like a customer's own money, for the source-side check.
            done = entries.funding(
                amount=leg.input_minor,
                currency=money.input_currency,
                from_balance_id=source_balance,
            )
        else:
            done = entries.completion(money, destination_balance_id=destination_balance)
        if done:
            lines = [
                line
                for movement in done
                for line in rules.movement(
                    debit_account_id=f"{movement.debit.kind}:{movement.debit.key}",
                    credit_account_id=f"{movement.credit.kind}:{movement.credit.key}",
                    amount=movement.amount,
                    currency=movement.currency,
                )
            ]
            rules.check_entry(lines)
            movements.extend(lines)
    for line in movements:
        totals[(line.currency, line.account_id)] += line.amount
    return totals


@given(
    case=st.sampled_from(ENDPOINTS),
    amount=st.integers(min_value=1, max_value=10**12),
    cut=st.integers(min_value=0, max_value=5),
)
def test_unwinding_completed_legs_returns_the_whole_source_amount(case, amount, cut):
    source, destination = case
    flow = flow_of(source, destination)
    legs = plan_legs(flow, source, destination, collects_fee=True)
    try:
        pricing = price(legs, source_minor=amount, fee_minor=amount // 100)
    except PricingProblem:
        return
    # The legs that completed before the failure: funding plus some of the middle ones.
    middle = [leg for leg in pricing.legs[1:-1]][:cut]
    money = [
        entries.LegMoney(
            leg.plan.type,
            leg.plan.input_currency,
            leg.plan.output_currency,
            leg.input_minor,
            leg.output_minor,
            leg.fee_minor,
        )
        for leg in middle
    ]
    forward = [m for leg in money for m in entries.completion(leg, destination_balance_id=None)]
    backward = entries.unwind(money, destination_balance_id=None)
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for movement in (*forward, *backward):
        totals[(movement.currency, f"{movement.debit.kind}:{movement.debit.key}")] -= (
            movement.amount
        )
        totals[(movement.currency, f"{movement.credit.kind}:{movement.credit.key}")] += (
            movement.amount
        )
    assert all(value == 0 for value in totals.values())


def test_an_amount_too_large_once_converted_is_refused():
    source, destination = (
        Endpoint(SourceKind.BALANCE, "USD"),
        Endpoint(DestinationKind.WALLET, "USDC", "BASE"),
    )
    legs = plan_legs(flow_of(source, destination), source, destination, collects_fee=False)
    with pytest.raises(PricingProblem):
        price(legs, source_minor=MINOR_UNITS_MAX, fee_minor=0)
