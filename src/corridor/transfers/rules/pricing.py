"""Pricing a transfer (pure): the amount each leg takes in and gives out, the destination
amount, and the rates shown on the transfer.

The source amount enters the first leg whole. COLLECT_FEE keeps the developer fee;
CONVERT converts what is left (rounding down, fx.py); every other leg passes its input on
unchanged. The last leg's output is the destination amount.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from corridor.kit import fx
from corridor.kit.money import MINOR_UNITS_MAX
from corridor.transfers.rules.flows import LegType, PlannedLeg


class PricingProblem(ValueError):
    """The amount cannot be carried through these legs; the message says why."""


@dataclass(frozen=True, slots=True)
class PricedLeg:
    plan: PlannedLeg
    input_minor: int
    output_minor: int
    fee_minor: int  # the developer fee this leg collects (COLLECT_FEE only)


@dataclass(frozen=True, slots=True)
class Pricing:
    legs: tuple[PricedLeg, ...]
    source_minor: int
    destination_minor: int
    fee_minor: int
    # All-in, on minor units; None when the currency does not change.
    exchange_rate: Decimal | None
    # The benchmark behind a cross-currency conversion; None for pegs and no conversion.
    reference_rate: Decimal | None
    reference_rate_as_of: datetime | None
    reference_provider: str | None


def price(
    legs: Sequence[PlannedLeg], *, source_minor: int, fee_minor: int, lock: fx.Lock | None = None
) -> Pricing:
    """With a quote's `lock`, its benchmarked conversion uses the locked rate."""
    assert source_minor > 0 and 0 <= fee_minor < source_minor
    priced: list[PricedLeg] = []
    carried = source_minor
    references: list[fx.Rate] = []
    for plan in legs:
        fee = 0
        if plan.type == LegType.COLLECT_FEE:
            fee, output = fee_minor, carried - fee_minor
        elif plan.type == LegType.CONVERT:
            rate = fx.locked(_rate(plan), lock)
            output = fx.convert(carried, rate).output_minor
            if rate.benchmarked:
                references.append(rate)
        else:
            output = carried
        if output <= 0:
            raise PricingProblem(
                f"the amount is too small: nothing is left to send after {plan.type.lower()}"
            )
        if output > MINOR_UNITS_MAX:
            raise PricingProblem(
                f"the amount is too large once converted to {plan.output_currency}"
            )
        priced.append(PricedLeg(plan=plan, input_minor=carried, output_minor=output, fee_minor=fee))
        carried = output
    as_of = lock.reference_as_of if lock is not None and lock.reference is not None else None
    return _pricing(
        priced,
        source_minor=source_minor,
        fee_minor=fee_minor,
        references=references,
        as_of=as_of or fx.REFERENCE_RATES_AS_OF,
    )


def _rate(plan: PlannedLeg) -> fx.Rate:
    try:
        return fx.rate_for(plan.input_currency, plan.output_currency)
    except fx.NoRate as error:
        raise PricingProblem(str(error)) from None


def _pricing(
    priced: list[PricedLeg],
    *,
    source_minor: int,
    fee_minor: int,
    references: list[fx.Rate],
    as_of: datetime,
) -> Pricing:
    destination_minor = priced[-1].output_minor
    converts = priced[0].plan.input_currency != priced[-1].plan.output_currency
    reference = _combined_reference(references)
    return Pricing(
        legs=tuple(priced),
        source_minor=source_minor,
        destination_minor=destination_minor,
        fee_minor=fee_minor,
        exchange_rate=fx.exchange_rate(source_minor, destination_minor) if converts else None,
        reference_rate=reference,
        reference_rate_as_of=as_of if reference is not None else None,
        reference_provider=fx.REFERENCE_PROVIDER if reference is not None else None,
    )


def _combined_reference(references: list[fx.Rate]) -> Decimal | None:
    """Through two conversions (USD → USDC → EUR) only one is benchmarked; the peg is 1."""
    if not references:
        return None
    combined = Decimal(1)
    for rate in references:
        combined *= rate.reference
    return combined.normalize()
