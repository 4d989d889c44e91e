"""HTTP endpoints of quotes and intents (API.md §5 "Quotes and intents")."""

from __future__ import annotations

from enum import Enum

from fastapi import APIRouter, Response

from corridor.quotes import service
from corridor.quotes.schemas import IntentQuoteCreate, QuoteCreate, QuoteRead, QuoteWithTransfer
from corridor.transfers.actions import Parked
from corridor.transfers.endpoints import Plugins, answer_submit
from corridor.transfers.schemas.transfer import TransferRead
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Quotes"]


def _with_transfer(quoted: service.QuotedTransfer, context: Context) -> QuoteWithTransfer:
    return QuoteWithTransfer(
        quote=QuoteRead.of(quoted.quote, now=context.now()),
        transfer=TransferRead.of(quoted.found.transfer, quoted.found.legs),
    )


@router.post(
    "/quotes", status_code=201, response_model=QuoteRead, tags=TAGS, summary="Create a quote"
)
async def create_quote(body: QuoteCreate, context: Context) -> Response:
    """Prices a conversion now and holds the rate until `expiresAt`. `amount` in the source
    currency fixes the source; in the destination currency, the destination. Use it with
    `quoteId` on a transfer, then confirm it. Takes `Idempotency-Key`."""
    now = context.now()
    quote = await service.create_quote(
        context.session,
        caller=context.caller,
        data=body,
        now=now,
        lifetime_s=context.settings.quote_lifetime_s,
    )
    return await context.respond(QuoteRead.of(quote, now=now), status=201)


@router.get("/quotes/{quote_id}", response_model=QuoteRead, tags=TAGS, summary="Get a quote")
async def get_quote(quote_id: str, context: Context) -> QuoteRead:
    """`status` reads EXPIRED once `expiresAt` has passed (unless it was USED before)."""
    quote = await service.read_quote(context.session, caller=context.caller, quote_id=quote_id)
    return QuoteRead.of(quote, now=context.now())


@router.post(
    "/quotes/{quote_id}/confirm",
    response_model=QuoteWithTransfer,
    tags=TAGS,
    summary="Confirm a quote (submit at the locked rate)",
)
async def confirm_quote(quote_id: str, context: Context, plugins: Plugins) -> Response:
    """Submits the DRAFT that holds the quote, at the quote's rate; the quote becomes USED.
    409 `quote_expired` after `expiresAt`; 409 `invalid_state` when no transfer holds
    the quote yet or it was already used."""
    quoted = await service.confirm_quote(
        context.session,
        caller=context.caller,
        quote_id=quote_id,
        plugins=plugins,
        now=context.now(),
    )
    if isinstance(quoted, Parked):
        return await context.refuse(quoted.refusal)
    return await context.respond(_with_transfer(quoted, context))


@router.post(
    "/transfers/intents/quote",
    status_code=201,
    response_model=QuoteWithTransfer,
    tags=TAGS,
    summary="Quote an intent",
)
async def quote_intent(body: IntentQuoteCreate, context: Context, plugins: Plugins) -> Response:
    """Makes a DRAFT transfer priced now and a quote locking that price (`quoteId` on the
    transfer, `transferId` on the quote). Confirm the quote to submit at that rate. Takes
    `Idempotency-Key`."""
    quoted = await service.quote_intent(
        context.session,
        caller=context.caller,
        data=body,
        plugins=plugins,
        now=context.now(),
        lifetime_s=context.settings.quote_lifetime_s,
    )
    return await context.respond(_with_transfer(quoted, context), status=201)


@router.post(
    "/transfers/{transfer_id}/confirm",
    response_model=TransferRead,
    tags=TAGS,
    summary="Confirm an unlocked intent (submit at the rate of execution)",
)
async def confirm_transfer(transfer_id: str, context: Context, plugins: Plugins) -> Response:
    """Prices the DRAFT again at the current rate and submits it; an expired quote is
    dropped. A draft holding a live quote answers 409 (confirm the quote instead)."""
    outcome = await service.confirm_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        plugins=plugins,
        now=context.now(),
    )
    return await answer_submit(context, outcome)
