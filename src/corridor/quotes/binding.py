"""A transfer's quote: attaching it on create/PATCH, checking it at submit, using it.

transfers/service.py and transfers/actions.py call these; the locked rate itself reaches
pricing through locks.py. A quote serves one transfer: `quote.transfer_id` is the draft
it is attached to, and it becomes USED when that transfer is submitted.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.clock import isoformat_z
from corridor.kit.errors import CorridorError, InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import looks_like_id
from corridor.models.transfer import Quote, Transfer
from corridor.quotes import repository
from corridor.quotes.rules import QuoteStatus, status_at


class QuoteExpired(CorridorError):
    status, code = 409, "quote_expired"

    def __init__(self, quote: Quote) -> None:
        super().__init__(
            f"Quote {quote.id} expired at {isoformat_z(quote.expires_at)}; its rate is no "
            "longer held. Quote again, or confirm the transfer at the current rate "
            "(POST /v1/transfers/{id}/confirm)",
            extra={
                "currentStatus": QuoteStatus.EXPIRED.value,
                "quoteId": quote.id,
                "expiresAt": isoformat_z(quote.expires_at),
            },
        )


class QuoteUsed(InvalidState):
    def __init__(self, quote: Quote) -> None:
        super().__init__(
            f"Quote {quote.id} was already used by transfer {quote.transfer_id}",
            current_status=QuoteStatus.USED.value,
        )


async def get_quote(
    session: AsyncSession, *, caller: Caller, quote_id: str, for_update: bool = False
) -> Quote:
    """The quote, if this caller may see it; another organization's id is simply unknown."""
    caller.require_customer_binding()
    found = None
    if looks_like_id(quote_id, "quo"):
        found = await repository.quote(session, caller, quote_id, for_update=for_update)
    if found is None:
        raise NotFound("quote", quote_id)
    return found


async def attach(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer: Transfer,
    quote_id: str | None,
    now: datetime,
) -> Quote | None:
    """Before the draft is priced: the quote named by `quoteId` must be live and free."""
    transfer.quote_id = None
    if quote_id is None:
        return None
    quote = await get_quote(session, caller=caller, quote_id=quote_id, for_update=True)
    status = status_at(quote.status, expires_at=quote.expires_at, now=now)
    if status == QuoteStatus.EXPIRED:
        raise ValidationFailed(
            "quoteId", f"quote {quote.id} expired at {isoformat_z(quote.expires_at)}; quote again"
        )
    if status == QuoteStatus.USED:
        raise ValidationFailed("quoteId", f"quote {quote.id} was used by {quote.transfer_id}")
    if quote.transfer_id not in (None, transfer.id):
        raise ValidationFailed(
            "quoteId", f"quote {quote.id} is already held by transfer {quote.transfer_id}"
        )
    if quote.customer_id not in (None, transfer.customer_id):
        raise ValidationFailed("quoteId", f"quote {quote.id} was made for another customer")
    transfer.quote_id = quote.id
    return quote


async def attach_on_update(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer: Transfer,
    sent: bool,
    quote_id: str | None,
    now: datetime,
) -> Quote | None:
    """PATCH: `quoteId` sent replaces the draft's quote (null drops it); else it stays."""
    current = None
    if transfer.quote_id is not None:
        current = await repository.quote_of_organization(
            session, transfer.organization_id, transfer.quote_id, for_update=True
        )
    if not sent:
        return current
    if current is not None and current.transfer_id == transfer.id:
        if current.status == QuoteStatus.ACTIVE:
            current.transfer_id = None
            current.updated_at = now
    return await attach(session, caller=caller, transfer=transfer, quote_id=quote_id, now=now)


def _mismatch(transfer: Transfer, quote: Quote) -> str | None:
    wanted = (quote.source_currency, quote.destination_currency)
    if (transfer.source_currency, transfer.destination_currency) != wanted:
        return (
            f"quote {quote.id} converts {wanted[0]} to {wanted[1]}, this transfer "
            f"{transfer.source_currency} to {transfer.destination_currency}"
        )
    if transfer.source_amount != quote.source_amount:
        return (
            f"quote {quote.id} is for a source amount of {quote.source_amount}, "
            f"this transfer's is {transfer.source_amount}"
        )
    fee_minor = transfer.developer_fee_amount or 0
    if fee_minor != quote.fee_amount:
        return (
            f"quote {quote.id} was priced with a developer fee of {quote.fee_amount}, "
            f"this transfer's is {fee_minor}"
        )
    if transfer.destination_amount != quote.destination_amount:
        return (
            f"quote {quote.id} yields {quote.destination_amount}, "
            f"this transfer {transfer.destination_amount}"
        )
    return None


def settle(transfer: Transfer, quote: Quote | None, *, now: datetime) -> None:
    """After the draft is priced: it must be what the quote priced; then the quote holds it
    and the transfer shows the quote's rates."""
    if quote is None:
        return
    problem = _mismatch(transfer, quote)
    if problem is not None:
        raise ValidationFailed("quoteId", f"{problem} (send quoteId: null to drop the quote)")
    if quote.transfer_id != transfer.id:
        quote.transfer_id = transfer.id
        quote.updated_at = now
    transfer.exchange_rate = quote.exchange_rate
    transfer.reference_rate = quote.reference_rate
    transfer.reference_rate_as_of = quote.reference_rate_as_of
    transfer.reference_provider = quote.reference_provider


async def check_submit(session: AsyncSession, *, transfer: Transfer, now: datetime) -> Quote | None:
    """Before submit: the transfer's quote still holds its rate (409 quote_expired)."""
    if transfer.quote_id is None:
        return None
    quote = await repository.quote_of_organization(
        session, transfer.organization_id, transfer.quote_id, for_update=True
    )
    assert quote is not None, transfer.quote_id
    status = status_at(quote.status, expires_at=quote.expires_at, now=now)
    if status == QuoteStatus.EXPIRED:
        raise QuoteExpired(quote)
    if status == QuoteStatus.USED or quote.transfer_id != transfer.id:
        raise QuoteUsed(quote)
    return quote


def use(quote: Quote | None, *, transfer: Transfer, now: datetime) -> None:
    """The submit went through: the quote is spent on this transfer."""
    if quote is None:
        return
    assert quote.transfer_id == transfer.id and quote.status == QuoteStatus.ACTIVE
    quote.status = QuoteStatus.USED.value
    quote.used_at = now
    quote.updated_at = now
