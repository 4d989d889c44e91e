"""Transfers: the list with the list API's filters, and one transfer in full (legs as a
timeline, rail references, fees, FX, its events and their webhook deliveries)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from fastapi import Response

from corridor.console.actors import actor_names
from corridor.console.layout import page
from corridor.console.listing import Listing, listing_of
from corridor.console.routing import console_router
from corridor.console.session import Console, ConsolePage
from corridor.customers import service as customers
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import Page
from corridor.transfers import service as transfers
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.rules.flows import Flow
from corridor.transfers.rules.states import AgentApprovalStatus, TransferStatus
from corridor.transfers.schemas.transfer import TransferRead
from corridor.webhooks import history

router = console_router()

FILTERS = (
    "status",
    "agentApprovalStatus",
    "customerId",
    "flow",
    "clientReferenceId",
    "createdFrom",
    "createdTo",
)
# The events shown on a transfer's page, newest first (a transfer has a handful).
transfer_events_max = 50


def _choice(listing: Listing, name: str, allowed: list[str]) -> str | None:
    value = listing.get(name)
    if value is not None and value not in allowed:
        raise ValidationFailed(name, f"must be one of {', '.join(allowed)}")
    return value


def _day(listing: Listing, name: str) -> date | None:
    value = listing.get(name)
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValidationFailed(name, "must be a date, YYYY-MM-DD") from None


def transfer_filters(listing: Listing) -> transfers.TransferFilters:
    """The query string of the transfers page as the list API's filters; the dates are
    whole UTC days, both ends included."""
    created_from = _day(listing, "createdFrom")
    created_to = _day(listing, "createdTo")
    return transfers.TransferFilters(
        status=_choice(listing, "status", [status.value for status in TransferStatus]),
        agent_approval_status=_choice(
            listing, "agentApprovalStatus", [status.value for status in AgentApprovalStatus]
        ),
        customer_id=listing.get("customerId"),
        flow=_choice(listing, "flow", [flow.value for flow in Flow]),
        client_reference_id=listing.get("clientReferenceId"),
        created_after=(
            datetime.combine(created_from, time(), tzinfo=UTC) if created_from else None
        ),
        created_before=(
            datetime.combine(created_to + timedelta(days=1), time(), tzinfo=UTC)
            if created_to
            else None
        ),
    )


async def transfer_rows(
    console: Console, found: Page[TransferWithLegs]
) -> tuple[list[TransferRead], dict[str, str]]:
    """The page's transfers as the API shows them, and their customers' names."""
    rows = [TransferRead.of(item.transfer, item.legs) for item in found.items]
    names = await customers.names_of(
        console.session,
        caller=console.caller,
        customer_ids=[row.source_customer_id for row in rows],
    )
    return rows, names


@router.get("/transfers")
async def transfer_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=FILTERS)
    found = await transfers.list_transfers(
        console.session,
        caller=console.caller,
        filters=transfer_filters(listing),
        page=listing.page,
    )
    rows, names = await transfer_rows(console, found)
    return page(
        console,
        "transfers/list.html",
        listing=listing,
        found=found,
        rows=rows,
        names=names,
        statuses=[status.value for status in TransferStatus],
        approval_statuses=[status.value for status in AgentApprovalStatus],
        flows=[flow.value for flow in Flow],
    )


@router.get("/transfers/{transfer_id}")
async def transfer_detail(transfer_id: str, console: ConsolePage) -> Response:
    view = await transfers.read_transfer(
        console.session, caller=console.caller, transfer_id=transfer_id, expand=["counterparty"]
    )
    transfer = TransferRead.of(view.found.transfer, view.found.legs, counterparty=view.counterparty)
    names = await customers.names_of(
        console.session, caller=console.caller, customer_ids=[transfer.source_customer_id]
    )
    messages = await history.list_messages(
        console.session,
        caller=console.caller,
        query=history.MessageFilter(
            organization_id="",
            endpoint_id=None,
            status=None,
            event_types=(),
            after=None,
            before=None,
            tag=transfer.id,
            iterator=None,
            limit=transfer_events_max,
        ),
        settings=console.settings,
    )
    deliveries = {
        item.event.id: (
            await history.get_message(
                console.session, caller=console.caller, message_id=item.event.id
            )
        ).deliveries
        for item in messages.items
    }
    return page(
        console,
        "transfers/detail.html",
        transfer=transfer,
        customer_name=names.get(transfer.source_customer_id),
        messages=messages,
        deliveries=deliveries,
        submitted_by=view.found.transfer.submitted_by,
        actors=(
            await actor_names(console)
            if _names_anyone(transfer, view.found.transfer.submitted_by)
            else {}
        ),
        settled_at=_settled_at(transfer),
    )


def _names_anyone(transfer: TransferRead, submitted_by: str | None) -> bool:
    """Whether the page names anyone (so the names are read only when needed)."""
    return bool(submitted_by or transfer.cancellation or transfer.review or transfer.authorization)


def _settled_at(transfer: TransferRead) -> datetime | None:
    """When a completed transfer settled: its last leg's completion (else its last update)."""
    if transfer.status != TransferStatus.COMPLETED:
        return None
    done = [leg.completed_at for leg in transfer.legs if leg.completed_at is not None]
    return max(done) if done else transfer.updated_at
