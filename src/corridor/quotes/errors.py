"""The quotes domain's refusals (API.md §2)."""

from __future__ import annotations

from corridor.kit.clock import isoformat_z
from corridor.kit.errors import CorridorError, InvalidState
from corridor.models.transfer import Quote
from corridor.quotes.rules import QuoteStatus


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
