"""Developer fee arithmetic (pure).

A developer fee is `fixed` minor units of the source currency plus `percent` (a fraction
from 0 to 1) of the source amount, rounded DOWN to a whole minor unit:

    fee = fixed + floor(amount × percent)

The fee is taken from the source amount before any conversion, so
amount = fee + what continues; it must leave something to send (fee < amount).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

percent_decimal_places_max = 8


class FeeProblem(ValueError):
    """A fee that cannot apply to this amount; the message says why."""


@dataclass(frozen=True, slots=True)
class DeveloperFee:
    fixed_minor: int
    percent: Decimal

    def __post_init__(self) -> None:
        assert self.fixed_minor >= 0
        assert Decimal(0) <= self.percent <= Decimal(1)

    @property
    def is_zero(self) -> bool:
        return self.fixed_minor == 0 and self.percent == 0


NO_FEE = DeveloperFee(fixed_minor=0, percent=Decimal(0))


def percent_from_number(value: float | int | Decimal) -> Decimal:
    """A JSON number as the exact decimal it was written as (0.005 → Decimal('0.005'))."""
    if isinstance(value, Decimal):
        return value
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def percent_problem(percent: Decimal) -> str | None:
    if not percent.is_finite() or not Decimal(0) <= percent <= Decimal(1):
        return "must be a fraction from 0 to 1 (0.005 means 0.5%)"
    if percent.normalize().as_tuple().exponent < -percent_decimal_places_max:  # type: ignore[operator]
        return f"at most {percent_decimal_places_max} decimal places"
    return None


def fee_amount(amount_minor: int, fee: DeveloperFee) -> int:
    """fixed + floor(amount × percent), in the amount's minor units."""
    assert amount_minor >= 0
    share = Fraction(amount_minor) * Fraction(fee.percent)
    return fee.fixed_minor + share.numerator // share.denominator


def checked_fee(amount_minor: int, fee: DeveloperFee) -> int:
    """The fee on this amount; FeeProblem when it would leave nothing to send."""
    charged = fee_amount(amount_minor, fee)
    if charged >= amount_minor:
        raise FeeProblem(
            f"the developer fee ({charged}) must be less than the amount ({amount_minor})"
        )
    return charged
