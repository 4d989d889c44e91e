"""The quote tool: the price and rate of a conversion, locked for a short while."""

from __future__ import annotations

from pydantic import Field

from corridor.auth.scopes import Scope
from corridor.kit.schemas import CurrencyCode
from corridor.quotes import service as quotes
from corridor.quotes.schemas import QuoteCreate, QuoteRead, QuoteSide
from corridor.tools.amounts import DecimalString, minor_units_of
from corridor.tools.base import Tool, ToolContext, ToolInput, ToolKind
from corridor.tools.catalog.common import CustomerId
from corridor.tools.results import QuoteResult


class CreateQuote(ToolInput):
    customer_id: CustomerId | None = None
    source: QuoteSide = Field(description="{currency, paymentRail?} paid in")
    destination: QuoteSide = Field(description="{currency, paymentRail?} paid out")
    amount: DecimalString
    currency: CurrencyCode = Field(
        description="The source currency (fixes what is paid) or the destination currency "
        "(fixes what arrives)"
    )


async def create_quote(context: ToolContext, args: CreateQuote) -> QuoteResult:
    minor = minor_units_of(args.amount, args.currency, field="amount")
    sent = args.model_dump(mode="json", by_alias=True, exclude_unset=True)
    data = QuoteCreate.model_validate(
        {
            **{key: sent[key] for key in ("customerId", "source", "destination") if key in sent},
            "amount": {"currency": args.currency, "value": str(minor)},
        }
    )
    quote = await quotes.create_quote(
        context.session,
        caller=context.caller,
        data=data,
        now=context.now,
        lifetime_s=context.settings.quote_lifetime_s,
    )
    return QuoteResult.of(QuoteRead.of(quote, now=context.now))


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="create_quote",
        title="Quote a conversion",
        description=(
            "Price a conversion between two currencies: fees, the all-in exchange rate and "
            "both amounts as decimals. The rate is locked until expiresAt; pass the quote's "
            "id as quoteId to create_transfer to use it. Moves no money."
        ),
        input=CreateQuote,
        result=QuoteResult,
        kind=ToolKind.WRITE,
        scope=Scope.TRANSFERS_WRITE,
        handler=create_quote,
        summarize=lambda args, _result: (
            f"Quote {args.amount} {args.currency} from {args.source.currency} to "
            f"{args.destination.currency}"
        ),
    ),
)
