"""A quote's locked rate as transfer pricing uses it (the seam planning.replan reads)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit import fx
from corridor.kit.money import currency, peg_of
from corridor.models.transfer import Quote, Transfer
from corridor.quotes import repository


def stored_rate(lock: fx.Lock, *, source_currency: str, destination_currency: str) -> str:
    """`quotes.locked_rate`: destination minor units per source minor unit, "n/d" exactly."""
    shift = currency(destination_currency).exponent - currency(source_currency).exponent
    return str(lock.major_units_rate * Fraction(10) ** shift)


def lock_from(quote: Quote) -> fx.Lock:
    assert quote.locked_rate is not None, quote.id
    shift = currency(quote.source_currency).exponent - currency(quote.destination_currency).exponent
    return fx.Lock(
        source_fiat=peg_of(quote.source_currency),
        destination_fiat=peg_of(quote.destination_currency),
        major_units_rate=Fraction(quote.locked_rate) * Fraction(10) ** shift,
        reference=Decimal(quote.reference_rate) if quote.reference_rate is not None else None,
        reference_as_of=quote.reference_rate_as_of,
    )


async def lock_of(session: AsyncSession, transfer: Transfer) -> fx.Lock | None:
    """The rate the transfer's quote locked, whatever the quote's state (callers check it)."""
    if transfer.quote_id is None:
        return None
    quote = await repository.quote_of_organization(
        session, transfer.organization_id, transfer.quote_id
    )
    return lock_from(quote) if quote is not None and quote.locked_rate is not None else None
