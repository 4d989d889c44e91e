"""Tool confirmations (API.md 9): write tool calls of MCP clients and the assistant's
confirmation cards waiting for a person. The list, one confirmation with its exact
arguments and effect, and Approve / Refuse: the same service as
`POST /v1/tool-confirmations/{id}/decision` (`confirmations.service.decide_as_owner`).
An MCP client that could ask nobody points its person here; once approved, the same call
with the same arguments runs once."""

from __future__ import annotations

from fastapi import Response

from corridor.confirmations import service
from corridor.confirmations.rules import ConfirmationStatus, DecidedVia
from corridor.confirmations.schemas import ToolConfirmationRead
from corridor.console.layout import notice, page
from corridor.console.listing import listing_of
from corridor.console.routing import console_router, redirect
from corridor.console.session import ConsolePage

router = console_router()

APPROVED = notice(
    "confirmation-approved",
    "Approved: the same call with the same arguments now runs once (an assistant card ran).",
)
REFUSED = notice("confirmation-refused", "Refused: the call will not run.")


@router.get("/tool-confirmations")
async def confirmation_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request)
    chosen = console.request.query_params.get("status", ConfirmationStatus.PENDING.value)
    status = ConfirmationStatus(chosen) if chosen in ConfirmationStatus.__members__ else None
    found = await service.list_confirmations(
        console.session, caller=console.caller, status=status, page=listing.page
    )
    now = console.now()
    return page(
        console,
        "confirmations/list.html",
        listing=listing,
        found=found,
        rows=[ToolConfirmationRead.of(record, now) for record in found.items],
        statuses=list(ConfirmationStatus),
        chosen=status,
    )


@router.get("/tool-confirmations/{confirmation_id}")
async def confirmation_detail(confirmation_id: str, console: ConsolePage) -> Response:
    record = await service.read_confirmation(
        console.session, caller=console.caller, confirmation_id=confirmation_id
    )
    shown = ToolConfirmationRead.of(record, console.now())
    return page(
        console,
        "confirmations/detail.html",
        confirmation=shown,
        pending=shown.status is ConfirmationStatus.PENDING,
    )


@router.post("/tool-confirmations/{confirmation_id}/decision")
async def decide(confirmation_id: str, console: ConsolePage) -> Response:
    approved = console.form.get("decision") == "approve"
    await service.decide_as_owner(
        console.session,
        caller=console.caller,
        confirmation_id=confirmation_id,
        approved=approved,
        via=DecidedVia.CONSOLE,
        now=console.now(),
        cards=console.request.app.state.confirmation_cards,
    )
    await console.commit()
    done = APPROVED if approved else REFUSED
    return redirect(console.request, f"/console/tool-confirmations/{confirmation_id}?done={done}")
