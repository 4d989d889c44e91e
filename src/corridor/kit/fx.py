"""Exchange rates and conversions (pure): sandbox reference rates, the spread, rounding.

Reference rates are destination major units per source major unit, from one sandbox
publisher (`REFERENCE_PROVIDER`). A stablecoin converts to the fiat it is pegged to (and
back) one for one in major units, with no spread; any other pair is priced at the
reference rate less `SPREAD`.

The one rounding rule: a conversion's output is rounded DOWN to a whole minor unit of the
destination currency. What is cut off stays with Corridor's FX account, which takes in
the whole input and pays out only the rounded output; the ledger entry records both, so
no value is created or lost. This also covers dust between exponents: 1.234567 USDC
becomes 1.23 USD and the 0.004567 USDC stays in the FX book.

Rates move when the publisher publishes (in the sandbox: when `_USD_PER_UNIT` and
`REFERENCE_RATES_AS_OF` are replaced, as tests do); a quote's `Lock` keeps the rate it
was priced at, and `locked` applies it to a conversion until the quote is used or expires.

`exchange_rate` is the all-in rate a transfer shows: inclusive of fees, applied to minor
units, such that destinationAmount = floor(sourceAmount × exchangeRate) exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from corridor.kit.money import currency, peg_of

REFERENCE_PROVIDER = "CORRIDOR_SANDBOX_REFERENCE"
# The sandbox table is fixed; this is the time it claims to be published at.
REFERENCE_RATES_AS_OF = datetime(2026, 1, 2, 16, 0, tzinfo=UTC)
SPREAD = Decimal("0.005")  # 0.5% below the reference rate, on cross-currency conversions
reference_rate_decimal_places = 10

# US dollars per one major unit of each fiat currency the sandbox prices.
_USD_PER_UNIT = {
    "USD": Decimal("1"),
    "EUR": Decimal("1.08"),
    "GBP": Decimal("1.27"),
    "MXN": Decimal("0.0585"),
    "CAD": Decimal("0.73"),
    "CHF": Decimal("1.12"),
    "JPY": Decimal("0.0067"),
    "BRL": Decimal("0.18"),
    "AUD": Decimal("0.66"),
    "SGD": Decimal("0.74"),
    "INR": Decimal("0.012"),
    "NGN": Decimal("0.00065"),
}


class NoRate(ValueError):
    """No rate is published for this pair."""


@dataclass(frozen=True, slots=True)
class Rate:
    """How one currency converts to another."""

    source_currency: str
    destination_currency: str
    # Destination major units per source major unit, before the spread.
    reference: Decimal
    spread: Decimal
    # True when priced from the reference table (not a one-for-one peg).
    benchmarked: bool
    # Set when a quote locked the rate: destination major units per source major unit
    # after the spread, exactly; it replaces reference × (1 - spread).
    locked_major_units_rate: Fraction | None = None

    @property
    def minor_units_rate(self) -> Fraction:
        """Destination minor units per source minor unit, after the spread, exactly."""
        shift = (
            currency(self.destination_currency).exponent - currency(self.source_currency).exponent
        )
        major = self.locked_major_units_rate
        if major is None:
            major = Fraction(self.reference) * (1 - Fraction(self.spread))
        return major * Fraction(10) ** shift


@dataclass(frozen=True, slots=True)
class Lock:
    """A rate a quote fixed between two fiat currencies (or their stablecoins)."""

    source_fiat: str
    destination_fiat: str
    major_units_rate: Fraction  # destination major units per source major unit, after spread
    reference: Decimal | None  # the benchmark it was priced from; None for a peg
    reference_as_of: datetime | None


@dataclass(frozen=True, slots=True)
class Conversion:
    input_minor: int
    output_minor: int
    # What rounding down left with the FX book, in destination minor units (0 ≤ it < 1).
    remainder: Fraction


def has_rate(source_currency: str, destination_currency: str) -> bool:
    try:
        rate_for(source_currency, destination_currency)
    except NoRate:
        return False
    return True


def rate_for(source_currency: str, destination_currency: str) -> Rate:
    source_fiat, destination_fiat = peg_of(source_currency), peg_of(destination_currency)
    if source_fiat == destination_fiat:
        return Rate(source_currency, destination_currency, Decimal(1), Decimal(0), False)
    if source_fiat not in _USD_PER_UNIT or destination_fiat not in _USD_PER_UNIT:
        raise NoRate(f"no rate from {source_currency} to {destination_currency}")
    reference = (_USD_PER_UNIT[source_fiat] / _USD_PER_UNIT[destination_fiat]).quantize(
        Decimal(1).scaleb(-reference_rate_decimal_places), rounding=ROUND_HALF_EVEN
    )
    return Rate(source_currency, destination_currency, reference.normalize(), SPREAD, True)


def locked(rate: Rate, lock: Lock | None) -> Rate:
    """The rate a conversion uses under a lock: a benchmarked pair the lock covers converts
    at the locked rate; pegs and other pairs are left as they are."""
    if lock is None or not rate.benchmarked:
        return rate
    pair = (peg_of(rate.source_currency), peg_of(rate.destination_currency))
    if pair != (lock.source_fiat, lock.destination_fiat):
        return rate  # another pair: the quote does not apply (its user checks the match)
    reference = lock.reference if lock.reference is not None else rate.reference
    return replace(rate, reference=reference, locked_major_units_rate=lock.major_units_rate)


def lock_of(rate: Rate, *, as_of: datetime | None) -> Lock:
    """Fix a rate as it is now (what a quote stores)."""
    shift = currency(rate.source_currency).exponent - currency(rate.destination_currency).exponent
    return Lock(
        source_fiat=peg_of(rate.source_currency),
        destination_fiat=peg_of(rate.destination_currency),
        major_units_rate=rate.minor_units_rate * Fraction(10) ** shift,
        reference=rate.reference if rate.benchmarked else None,
        reference_as_of=as_of if rate.benchmarked else None,
    )


def convert(amount_minor: int, rate: Rate) -> Conversion:
    """Convert minor units at a rate, rounding down (the module's one rounding rule)."""
    assert amount_minor >= 0, amount_minor
    exact = amount_minor * rate.minor_units_rate
    output = exact.numerator // exact.denominator
    return Conversion(input_minor=amount_minor, output_minor=output, remainder=exact - output)


def exchange_rate(source_minor: int, destination_minor: int) -> Decimal:
    """A short decimal E with floor(source × E) == destination, exactly.

    E is destination/source rounded UP at a precision finer than 1/source, so
    source × E lands in [destination, destination + 1): its floor is destination.
    """
    assert source_minor > 0 and destination_minor >= 0
    places = len(str(source_minor)) + 1
    scaled = -((-destination_minor * 10**places) // source_minor)  # ceiling division
    rate = Decimal(scaled).scaleb(-places)
    return rate.normalize() if scaled else Decimal(0)


def format_rate(rate: Decimal) -> str:
    """A rate as a plain decimal string (never exponent notation)."""
    return f"{rate:f}"
