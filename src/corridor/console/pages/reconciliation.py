"""Reconciliation exceptions (issue 27 item 5): the statement lines that matched no
payment, each with its reason, the line as the bank booked it and the transfer it may be,
and a form to resolve one with a note. The same services as `GET /v1/reconciliation/lines`
and `POST /v1/reconciliation/lines/{id}/resolve`."""

from __future__ import annotations

from fastapi import Response
from pydantic import ValidationError

from corridor.console.layout import notice, page
from corridor.console.listing import listing_of
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import NotFound, ValidationFailed
from corridor.reconciliation import service
from corridor.reconciliation.schemas import BankStatementLineRead, BankStatementLineResolve
from corridor.transfers import service as transfers
from corridor.transfers.schemas.transfer import TransferRead

router = console_router()

RESOLVED = notice("exception-resolved", "Resolved: the line left the exceptions list.")

# The list's tabs: the status asked of the list service, and its label.
STATUSES = {"EXCEPTION": "Open", "RESOLVED": "Resolved", "MATCHED": "Matched"}
# What each exception reason means to the person resolving it.
REASONS = {
    "NO_REFERENCE": "The line names no reference Corridor can look up.",
    "UNKNOWN_REFERENCE": "The reference is not one of a payment Corridor sent or pulled.",
    "AMOUNT_MISMATCH": "The reference is a payment's, but the amount or currency differs.",
    "DUPLICATE": "A line for this payment was already matched (here or in an earlier statement).",
}


async def _statement_names(console: Console, lines: list[BankStatementLineRead]) -> dict[str, str]:
    names: dict[str, str] = {}
    for statement_id in {line.statement_id for line in lines}:
        statement = await service.get_statement(
            console.session, caller=console.caller, statement_id=statement_id
        )
        names[statement_id] = statement.name
    return names


async def _transfers(
    console: Console, lines: list[BankStatementLineRead]
) -> dict[str, TransferRead]:
    """The candidate transfers of the lines that name one (a transfer no longer visible is
    left out: the page shows its id alone)."""
    found: dict[str, TransferRead] = {}
    for transfer_id in {line.transfer_id for line in lines if line.transfer_id}:
        try:
            view = await transfers.read_transfer(
                console.session, caller=console.caller, transfer_id=transfer_id
            )
        except NotFound:
            continue
        found[transfer_id] = TransferRead.of(view.found.transfer, view.found.legs)
    return found


@router.get("/reconciliation")
async def exception_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=("status", "statementId"))
    chosen = listing.get("status") or "EXCEPTION"
    if chosen not in STATUSES:
        raise ValidationFailed("status", f"must be one of {', '.join(STATUSES)}")
    found = await service.list_lines(
        console.session,
        caller=console.caller,
        page=listing.page,
        status=chosen,
        statement_id=listing.get("statementId"),
    )
    lines = [BankStatementLineRead.of(line) for line in found.items]
    return page(
        console,
        "reconciliation/list.html",
        listing=listing,
        found=found,
        lines=lines,
        statements=await _statement_names(console, lines),
        candidates=await _transfers(console, lines),
        statuses=STATUSES,
        chosen=chosen,
        reasons=REASONS,
    )


@router.get("/reconciliation/{line_id}")
async def exception_detail(line_id: str, console: ConsolePage) -> Response:
    line = BankStatementLineRead.of(
        await service.get_line(console.session, caller=console.caller, line_id=line_id)
    )
    return page(
        console,
        "reconciliation/detail.html",
        line=line,
        statements=await _statement_names(console, [line]),
        candidates=await _transfers(console, [line]),
        reasons=REASONS,
    )


@router.post("/reconciliation/{line_id}/resolve")
async def resolve(line_id: str, console: ConsolePage) -> Response:
    try:
        body = BankStatementLineResolve.model_validate(
            {
                "resolution": console.form.get("resolution", "").strip(),
                "transferId": console.form.get("transferId", "").strip() or None,
            }
        )
    except ValidationError as error:
        if error.errors()[0]["loc"][:1] == ("transferId",):
            raise ValidationFailed("transferId", "must be a transfer id (tfr_…)") from None
        raise ValidationFailed(
            "resolution", "a note of what was done is needed (at most 500 characters)"
        ) from None
    await service.resolve_exception(
        console.session,
        caller=console.caller,
        line_id=line_id,
        resolution=body.resolution,
        transfer_id=body.transfer_id,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/reconciliation/{line_id}?done={RESOLVED}")
