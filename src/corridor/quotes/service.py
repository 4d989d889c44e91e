"""Quotes: pricing a conversion for a while, quoting an intent, and confirming either a
quote (submit at the locked rate) or an unlocked draft (submit at the rate of execution).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.kit import fx
from corridor.kit.errors import InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import new_id
from corridor.models.transfer import Quote
from corridor.quotes import binding, locks
from corridor.quotes import repository as quotes
from corridor.quotes.errors import QuoteExpired, QuoteUsed
from corridor.quotes.rules import QuoteStatus, price_destination, price_source, status_at
from corridor.quotes.schemas import IntentQuoteCreate, QuoteCreate
from corridor.transfers import actions, lifecycle, repository
from corridor.transfers import service as transfers
from corridor.transfers.actions import Parked
from corridor.transfers.errors import TransferNotDraft, TransferStateRefused
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.planning import plan as planning
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.rules import fees
from corridor.transfers.rules.pricing import Pricing, PricingProblem
from corridor.transfers.rules.states import TransferStatus

READ_SCOPE = Scope.TRANSFERS_READ
WRITE_SCOPE = Scope.TRANSFERS_WRITE


@dataclass(frozen=True, slots=True)
class QuotedTransfer:
    quote: Quote
    found: TransferWithLegs


async def _customer_id(session: AsyncSession, caller: Caller, wanted: str | None) -> str | None:
    """The body's customer (one the caller may see), or the one the caller is bound to."""
    if wanted is None:
        return caller.customer_id
    if caller.customer_id is not None and wanted != caller.customer_id:
        raise NotFound("customer", wanted)
    return (await customers.get_customer(session, caller=caller, customer_id=wanted)).id


def _priced(data: QuoteCreate, fee: fees.DeveloperFee | None) -> Pricing:
    source, destination = data.source.currency, data.destination.currency
    if source == destination:
        raise ValidationFailed(
            "destination.currency",
            "must differ from the source currency: a quote prices a conversion",
        )
    if data.amount.currency not in (source, destination):
        raise ValidationFailed(
            "amount.currency", f"must be the source ({source}) or destination ({destination}) one"
        )
    if data.amount.minor_units <= 0:
        raise ValidationFailed("amount.value", "must be greater than zero")
    try:
        if data.amount.currency == source:
            return price_source(source, destination, source_minor=data.amount.minor_units, fee=fee)
        return price_destination(
            source, destination, destination_minor=data.amount.minor_units, fee=fee
        )
    except fees.FeeProblem as problem:
        raise ValidationFailed("developerFee", str(problem)) from None
    except PricingProblem as problem:
        raise ValidationFailed("amount", str(problem)) from None


def _new_quote(
    caller: Caller,
    *,
    customer_id: str | None,
    source_currency: str,
    destination_currency: str,
    pricing: Pricing,
    request: dict,
    now: datetime,
    lifetime_s: int,
) -> Quote:
    """A quote of what `pricing` says, locking the pair's rate as it is now."""
    rate = fx.rate_for(source_currency, destination_currency)
    lock = fx.lock_of(rate, as_of=pricing.reference_rate_as_of)
    exchange_rate = fx.exchange_rate(pricing.source_minor, pricing.destination_minor)
    return Quote(
        id=new_id("quo"),
        organization_id=caller.organization_id,
        customer_id=customer_id,
        status=QuoteStatus.ACTIVE.value,
        source_currency=source_currency,
        destination_currency=destination_currency,
        source_amount=pricing.source_minor,
        destination_amount=pricing.destination_minor,
        fee_amount=pricing.fee_minor,
        exchange_rate=fx.format_rate(exchange_rate),
        locked_rate=locks.stored_rate(
            lock, source_currency=source_currency, destination_currency=destination_currency
        ),
        reference_rate=(
            fx.format_rate(pricing.reference_rate) if pricing.reference_rate is not None else None
        ),
        reference_rate_as_of=pricing.reference_rate_as_of,
        reference_provider=pricing.reference_provider,
        request=request,
        transfer_id=None,
        expires_at=now + timedelta(seconds=lifetime_s),
        used_at=None,
        created_by=caller.actor_id,
        created_at=now,
        updated_at=now,
    )


def _fee_shown(fee: fees.DeveloperFee | None) -> dict[str, str] | None:
    if fee is None:
        return None
    return {"fixed": str(fee.fixed_minor), "percent": format(fee.percent.normalize(), "f")}


async def create_quote(
    session: AsyncSession, *, caller: Caller, data: QuoteCreate, now: datetime, lifetime_s: int
) -> Quote:
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    customer_id = await _customer_id(session, caller, data.customer_id)
    stored_fee = planning.fee_request(
        fields_set=data.model_fields_set,
        developer_fee=data.developer_fee,
        developer_fee_fixed=None,
        developer_fee_percent=None,
    )
    configuration = await planning.configuration_of(session, caller.organization_id)
    fee = planning.effective_fee(stored_fee, configuration)
    pricing = _priced(data, fee)
    request = {
        "source": data.source.model_dump(mode="json", by_alias=True, exclude_none=True),
        "destination": data.destination.model_dump(mode="json", by_alias=True, exclude_none=True),
        "amount": data.amount.model_dump(mode="json", by_alias=True),
        "developerFee": _fee_shown(fee),
    }
    quote = _new_quote(
        caller,
        customer_id=customer_id,
        source_currency=data.source.currency,
        destination_currency=data.destination.currency,
        pricing=pricing,
        request=request,
        now=now,
        lifetime_s=lifetime_s,
    )
    session.add(quote)
    await session.flush()
    return quote


async def read_quote(session: AsyncSession, *, caller: Caller, quote_id: str) -> Quote:
    caller.require_scope(READ_SCOPE)
    return await binding.get_quote(session, caller=caller, quote_id=quote_id)


async def quote_intent(
    session: AsyncSession,
    *,
    caller: Caller,
    data: IntentQuoteCreate,
    plugins: TransferPlugins,
    now: datetime,
    lifetime_s: int,
) -> QuotedTransfer:
    """Price the transfer as it would be made now, lock that in a quote, and make the
    DRAFT with the quote attached (both in this unit of work)."""
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    if data.confirm:
        raise ValidationFailed(
            "confirm", "not taken here: confirm with POST /v1/quotes/{id}/confirm"
        )
    if data.quote_id is not None:
        raise ValidationFailed("quoteId", "not taken here: this call makes the quote")
    customer = await planning.active_customer(session, caller, data.customer_id)
    configuration = await planning.configuration_of(session, caller.organization_id)
    fee = planning.effective_fee(
        planning.fee_request(
            fields_set=data.model_fields_set,
            developer_fee=data.developer_fee,
            developer_fee_fixed=data.developer_fee_fixed,
            developer_fee_percent=data.developer_fee_percent,
        ),
        configuration,
    )
    plan = await planning.make_plan(
        session,
        caller=caller,
        customer=customer,
        source_request=data.source.model_dump(mode="json", by_alias=True, exclude_unset=True),
        destination_request=data.destination.model_dump(
            mode="json", by_alias=True, exclude_unset=True
        ),
        amount_minor=data.amount.minor_units,
        amount_currency=data.amount.currency,
        counterparty_id=data.counterparty_id,
        fee=fee,
    )
    source_currency = plan.source.endpoint.currency
    destination_currency = plan.destination.endpoint.currency
    if source_currency == destination_currency:
        raise ValidationFailed(
            "destination.currency",
            "must differ from the source currency: a quote prices a conversion",
        )
    quote = _new_quote(
        caller,
        customer_id=customer.id,
        source_currency=source_currency,
        destination_currency=destination_currency,
        pricing=plan.pricing,
        request={
            "source": {"currency": source_currency},
            "destination": {"currency": destination_currency},
            "amount": data.amount.model_dump(mode="json", by_alias=True),
            "developerFee": _fee_shown(plan.fee),
        },
        now=now,
        lifetime_s=lifetime_s,
    )
    session.add(quote)
    await session.flush()
    found = await transfers.create_transfer(
        session,
        caller=caller,
        data=data.model_copy(update={"quote_id": quote.id}),
        plugins=plugins,
        now=now,
    )
    assert isinstance(found, TransferWithLegs), "an intent's draft is never submitted here"
    return QuotedTransfer(quote, found)


async def confirm_quote(
    session: AsyncSession,
    *,
    caller: Caller,
    quote_id: str,
    plugins: TransferPlugins,
    now: datetime,
) -> QuotedTransfer | Parked:
    """Submit the DRAFT the quote holds, at the locked rate; the quote becomes USED."""
    caller.require_scope(WRITE_SCOPE)
    # Not locked here: submit locks the transfer, then the quote (always in that order),
    # and checks the quote again under the lock.
    quote = await binding.get_quote(session, caller=caller, quote_id=quote_id)
    status = status_at(quote.status, expires_at=quote.expires_at, now=now)
    if status == QuoteStatus.USED:
        raise QuoteUsed(quote)
    if status == QuoteStatus.EXPIRED:
        raise QuoteExpired(quote)
    if quote.transfer_id is None:
        raise InvalidState(
            f"No transfer uses quote {quote.id} yet: create one with quoteId {quote.id} "
            "(POST /v1/transfers, or PATCH a draft), then confirm the quote",
            current_status=status.value,
        )
    found = await lifecycle.load(session, caller=caller, transfer_id=quote.transfer_id)
    submitted = await actions.submit(
        session,
        caller=caller,
        transfer=found.transfer,
        legs=found.legs,
        plugins=plugins,
        now=now,
    )
    if isinstance(submitted, Parked):
        return submitted
    return QuotedTransfer(quote, submitted)


async def confirm_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    plugins: TransferPlugins,
    now: datetime,
) -> TransferWithLegs | Parked:
    """Submit a DRAFT at the rate of execution: priced again now, an expired quote dropped.
    A draft still holding a live quote is refused (confirm the quote, or drop it)."""
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer = found.transfer
    if transfer.status != TransferStatus.DRAFT:
        raise TransferNotDraft(transfer, "confirmed")
    if transfer.quote_id is not None:
        quote = await quotes.quote_of_organization(
            session, transfer.organization_id, transfer.quote_id, for_update=True
        )
        assert quote is not None, transfer.quote_id
        if status_at(quote.status, expires_at=quote.expires_at, now=now) == QuoteStatus.ACTIVE:
            raise TransferStateRefused(
                transfer,
                f"it holds quote {quote.id}, live until its expiry: confirm the quote "
                f"(POST /v1/quotes/{quote.id}/confirm) or drop it (PATCH quoteId: null)",
            )
        transfer.quote_id = None
    customer = await planning.active_customer(session, caller, transfer.customer_id)
    counterparty_id = (
        transfer.counterparty_id if transfer.destination_request.get("toAddress") else None
    )
    legs = await planning.replan(
        session, caller, customer, transfer, counterparty_id, lock=None, now=now
    )
    await repository.delete_legs(session, transfer.id)
    session.add_all(legs)
    await session.flush()
    return await actions.submit(
        session, caller=caller, transfer=transfer, legs=legs, plugins=plugins, now=now
    )
