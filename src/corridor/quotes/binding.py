"""A transfer's quote: attaching it on create/PATCH, checking it at submit, using it.

`QuoteLocks` plugs these into a transfer's life (transfers/plugins.py); the locked rate
itself reaches pricing through locks.py. A quote serves one transfer: `quote.transfer_id`
is the draft it is attached to, and it becomes USED when that transfer is submitted.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import fx
from corridor.kit.clock import isoformat_z
from corridor.kit.db import get_visible
from corridor.kit.errors import ValidationFailed
from corridor.models.transfer import Quote, Transfer, TransferLeg
from corridor.quotes import locks, repository
from corridor.quotes.errors import QuoteExpired, QuoteUsed
from corridor.quotes.rules import QuoteStatus, status_at
from corridor.transfers.plugins import HoldForApproval


async def get_quote(
    session: AsyncSession, *, caller: Caller, quote_id: str, for_update: bool = False
) -> Quote:
    """The quote, if this caller may see it; another organization's id is simply unknown."""
    caller.require_customer_binding()
    return await get_visible(
        session, repository.visible_quotes(caller), quote_id, locked=for_update
    )


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


def _settle(transfer: Transfer, quote: Quote, *, now: datetime) -> None:
    """After the draft is priced: it must be what the quote priced; then the quote holds it
    and the transfer shows the quote's rates."""
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


async def _held_quote(session: AsyncSession, transfer: Transfer) -> Quote | None:
    """The quote the transfer names, locked (whatever its state: callers check it)."""
    if transfer.quote_id is None:
        return None
    quote = await repository.quote_of_organization(
        session, transfer.organization_id, transfer.quote_id, for_update=True
    )
    assert quote is not None, transfer.quote_id
    return quote


class QuoteLocks:
    """Quotes in a transfer's life (transfers/plugins.py): the rate lock of a draft
    (RateLocks) and the check at submit that the lock still holds (SubmitGuard)."""

    async def hold(
        self,
        session: AsyncSession,
        *,
        caller: Caller,
        transfer: Transfer,
        quote_id: str | None,
        now: datetime,
    ) -> None:
        """`quoteId` sent on create or PATCH replaces the draft's quote (null drops it);
        a live quote the draft held is freed for another transfer."""
        current = await _held_quote(session, transfer)
        if current is not None and current.transfer_id == transfer.id:
            if current.status == QuoteStatus.ACTIVE:
                current.transfer_id = None
                current.updated_at = now
        await attach(session, caller=caller, transfer=transfer, quote_id=quote_id, now=now)

    async def settle(self, session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
        quote = await _held_quote(session, transfer)
        if quote is not None:
            _settle(transfer, quote, now=now)

    async def lock_of(self, session: AsyncSession, *, transfer: Transfer) -> fx.Lock | None:
        return await locks.lock_of(session, transfer)

    def concerns(self, *, caller: Caller, transfer: Transfer) -> bool:
        return transfer.quote_id is not None

    async def check_submit(
        self,
        session: AsyncSession,
        *,
        caller: Caller,
        transfer: Transfer,
        legs: list[TransferLeg],
        now: datetime,
    ) -> HoldForApproval | None:
        """Before submit: the transfer's quote still holds its rate (409 quote_expired)."""
        quote = await _held_quote(session, transfer)
        if quote is None:
            return None
        status = status_at(quote.status, expires_at=quote.expires_at, now=now)
        if status == QuoteStatus.EXPIRED:
            raise QuoteExpired(quote)
        if status == QuoteStatus.USED or quote.transfer_id != transfer.id:
            raise QuoteUsed(quote)
        return None

    async def submitted(
        self, session: AsyncSession, *, caller: Caller, transfer: Transfer, now: datetime
    ) -> None:
        """The submit went through: the quote is spent on this transfer."""
        quote = await _held_quote(session, transfer)
        if quote is None:
            return
        assert quote.transfer_id == transfer.id and quote.status == QuoteStatus.ACTIVE
        quote.status = QuoteStatus.USED.value
        quote.used_at = now
        quote.updated_at = now
