"""Pricing a quote and reading its state (pure).

A quote converts `source` to `destination`: the developer fee comes off the source amount
first, the rest converts at the current rate with fx.py's one rounding rule (down to a
whole destination minor unit). With a fixed destination the source amount is the
smallest one whose destination amount reaches the one asked for.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from corridor.kit import fx
from corridor.kit.money import MINOR_UNITS_MAX
from corridor.transfers.rules import fees
from corridor.transfers.rules.flows import LegType, PlannedLeg
from corridor.transfers.rules.pricing import Pricing, PricingProblem, price

# The bisection halves [1, MINOR_UNITS_MAX] each step: 57 steps reach any amount.
source_search_steps_max = 64


class QuoteStatus(StrEnum):
    ACTIVE = "ACTIVE"
    USED = "USED"
    EXPIRED = "EXPIRED"


def status_at(stored: str, *, expires_at: datetime, now: datetime) -> QuoteStatus:
    """An ACTIVE quote reads EXPIRED from `expires_at` on (the row is not rewritten)."""
    if stored == QuoteStatus.ACTIVE and now >= expires_at:
        return QuoteStatus.EXPIRED
    return QuoteStatus(stored)


def quote_legs(source_currency: str, destination_currency: str, *, fee_minor: int) -> list:
    legs = [PlannedLeg(LegType.CONVERT, source_currency, destination_currency, None, None)]
    if fee_minor > 0:
        legs.insert(
            0, PlannedLeg(LegType.COLLECT_FEE, source_currency, source_currency, None, None)
        )
    return legs


def price_source(
    source_currency: str,
    destination_currency: str,
    *,
    source_minor: int,
    fee: fees.DeveloperFee | None,
) -> Pricing:
    """Fixed source. Raises FeeProblem or PricingProblem (with the reason) when it cannot."""
    fee_minor = fees.checked_fee(source_minor, fee) if fee is not None else 0
    legs = quote_legs(source_currency, destination_currency, fee_minor=fee_minor)
    return price(legs, source_minor=source_minor, fee_minor=fee_minor)


def _destination_of(rate: fx.Rate, source_minor: int, fee: fees.DeveloperFee | None) -> int:
    """What `source_minor` yields (0 when the fee leaves nothing): monotone in the source."""
    fee_minor = fees.fee_amount(source_minor, fee) if fee is not None else 0
    if fee_minor >= source_minor:
        return 0
    return fx.convert(source_minor - fee_minor, rate).output_minor


def price_destination(
    source_currency: str,
    destination_currency: str,
    *,
    destination_minor: int,
    fee: fees.DeveloperFee | None,
) -> Pricing:
    """Fixed destination: the smallest source amount that yields at least
    `destination_minor` (the rounding rule may make it a little more)."""
    assert destination_minor > 0
    try:
        rate = fx.rate_for(source_currency, destination_currency)
    except fx.NoRate as error:
        raise PricingProblem(str(error)) from None
    if _destination_of(rate, MINOR_UNITS_MAX, fee) < destination_minor:
        raise PricingProblem("no source amount within limits yields this destination amount")
    low, high = 1, MINOR_UNITS_MAX  # high always yields enough
    for _ in range(source_search_steps_max):
        if low >= high:
            break
        middle = (low + high) // 2
        if _destination_of(rate, middle, fee) >= destination_minor:
            high = middle
        else:
            low = middle + 1
    assert low == high
    return price_source(source_currency, destination_currency, source_minor=high, fee=fee)
