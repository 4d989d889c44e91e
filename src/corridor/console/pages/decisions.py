"""The queues of transfers waiting for a person, and the decisions on them:

- approvals: agent payments parked with agentApprovalStatus PENDING (approve, or decline
  with a reason; `agents.approvals.decide`, as `POST /v1/transfers/{id}/agent-approval`);
- reviews: IN_REVIEW transfers (approve or reject; `actions.review_transfer`);
- authorizations: PENDING_AUTHORIZATION transfers above the organization's threshold
  (approve or reject; `actions.authorize_transfer`, which refuses the user who submitted).

Each queue's table is a partial that htmx reloads every few seconds, so a transfer that
arrives while the page is open appears without a reload.
"""

from __future__ import annotations

from fastapi import Response

from corridor.agents import approvals
from corridor.agents.schemas import AgentApproval
from corridor.console.forms import parse_form
from corridor.console.layout import notice, page
from corridor.console.listing import listing_of
from corridor.console.pages.transfers import transfer_rows
from corridor.console.routing import console_router, local_path, redirect
from corridor.console.session import Console, ConsolePage
from corridor.customers import service as customers
from corridor.transfers import actions
from corridor.transfers import service as transfers
from corridor.transfers.rules.states import TransferStatus
from corridor.transfers.schemas.requests import TransferDecision
from corridor.transfers.schemas.transfer import TransferRead

router = console_router()

# How often the queues reload themselves (htmx polling), in seconds.
queue_refresh_s = 5

APPROVED = notice("approved", "Approved: the payment was submitted.")
DECLINED = notice("declined", "Declined: the payment was cancelled.")
REVIEW_APPROVED = notice("review-approved", "Review approved.")
REVIEW_REJECTED = notice("review-rejected", "Review rejected: the transfer failed.")
AUTHORIZED = notice("authorized", "Authorized.")
AUTHORIZATION_REJECTED = notice("authorization-rejected", "Authorization refused: cancelled.")


def _back(console: Console, transfer_id: str, done: str) -> Response:
    back = local_path(console.form.get("back") or f"/console/transfers/{transfer_id}")
    separator = "&" if "?" in back else "?"
    return redirect(console.request, f"{back}{separator}done={done}")


# --- Approvals -----------------------------------------------------------------------------


async def _approvals(console: Console, template: str) -> Response:
    listing = listing_of(console.request)
    found = await approvals.pending_approvals(
        console.session, caller=console.caller, page=listing.page, now=console.now()
    )
    names = await _names(console, [item.found.transfer.customer_id for item in found.items])
    rows = [(TransferRead.of(item.found.transfer, item.found.legs), item) for item in found.items]
    return page(
        console,
        template,
        listing=listing,
        found=found,
        rows=rows,
        names=names,
        refresh_s=queue_refresh_s,
        partial_url="/console/approvals/rows",
        here="/console/approvals",
    )


@router.get("/approvals")
async def approvals_page(console: ConsolePage) -> Response:
    return await _approvals(console, "decisions/approvals.html")


@router.get("/approvals/rows")
async def approvals_rows(console: ConsolePage) -> Response:
    return await _approvals(console, "decisions/approval_rows.html")


@router.post("/transfers/{transfer_id}/agent-approval")
async def decide_agent_approval(transfer_id: str, console: ConsolePage) -> Response:
    body = parse_form(
        AgentApproval,
        {"decision": console.form.get("decision"), "reason": console.form.get("reason")},
    )
    await approvals.decide(
        console.session,
        caller=console.caller,
        transfer_id=transfer_id,
        decision=body.decision,
        reason=body.reason,
        plugins=console.plugins,
        now=console.now(),
    )
    await console.commit()
    return _back(console, transfer_id, APPROVED if body.decision == "APPROVE" else DECLINED)


# --- Reviews and authorizations --------------------------------------------------------------


async def _names(console: Console, customer_ids: list[str]) -> dict[str, str]:
    return await customers.names_of(
        console.session, caller=console.caller, customer_ids=customer_ids
    )


async def _queue(
    console: Console, template: str, *, status: TransferStatus, action: str, partial_url: str
) -> Response:
    listing = listing_of(console.request)
    found = await transfers.list_transfers(
        console.session,
        caller=console.caller,
        filters=transfers.TransferFilters(status=status.value),
        page=listing.page,
    )
    rows, names = await transfer_rows(console, found)
    return page(
        console,
        template,
        listing=listing,
        found=found,
        rows=rows,
        names=names,
        action=action,
        refresh_s=queue_refresh_s,
        partial_url=partial_url,
        here=partial_url.removesuffix("/rows"),
    )


@router.get("/reviews")
async def reviews_page(console: ConsolePage) -> Response:
    return await _queue(
        console,
        "decisions/queue.html",
        status=TransferStatus.IN_REVIEW,
        action="review",
        partial_url="/console/reviews/rows",
    )


@router.get("/reviews/rows")
async def reviews_rows(console: ConsolePage) -> Response:
    return await _queue(
        console,
        "decisions/queue_rows.html",
        status=TransferStatus.IN_REVIEW,
        action="review",
        partial_url="/console/reviews/rows",
    )


@router.get("/authorizations")
async def authorizations_page(console: ConsolePage) -> Response:
    return await _queue(
        console,
        "decisions/queue.html",
        status=TransferStatus.PENDING_AUTHORIZATION,
        action="authorize",
        partial_url="/console/authorizations/rows",
    )


@router.get("/authorizations/rows")
async def authorizations_rows(console: ConsolePage) -> Response:
    return await _queue(
        console,
        "decisions/queue_rows.html",
        status=TransferStatus.PENDING_AUTHORIZATION,
        action="authorize",
        partial_url="/console/authorizations/rows",
    )


def _decision(console: Console) -> TransferDecision:
    return parse_form(
        TransferDecision,
        {"decision": console.form.get("decision"), "reason": console.form.get("reason")},
    )


@router.post("/transfers/{transfer_id}/review")
async def review(transfer_id: str, console: ConsolePage) -> Response:
    body = _decision(console)
    await actions.review_transfer(
        console.session,
        caller=console.caller,
        transfer_id=transfer_id,
        decision=body.decision,
        reason=body.reason,
        now=console.now(),
    )
    await console.commit()
    done = REVIEW_APPROVED if body.decision == "APPROVE" else REVIEW_REJECTED
    return _back(console, transfer_id, done)


@router.post("/transfers/{transfer_id}/authorize")
async def authorize(transfer_id: str, console: ConsolePage) -> Response:
    body = _decision(console)
    await actions.authorize_transfer(
        console.session,
        caller=console.caller,
        transfer_id=transfer_id,
        decision=body.decision,
        reason=body.reason,
        now=console.now(),
    )
    await console.commit()
    done = AUTHORIZED if body.decision == "APPROVE" else AUTHORIZATION_REJECTED
    return _back(console, transfer_id, done)
