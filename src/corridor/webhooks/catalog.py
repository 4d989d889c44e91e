"""The event types Corridor emits (API.md 7): what a webhook endpoint can subscribe to and
what a sandbox test event may be. Pure: the names only. `tests/webhooks/test_catalog.py`
fails when the code emits a type that is missing here."""

from __future__ import annotations

# transfer.<status in lower case> on every status change (transfers/events.status_event);
# a transfer is created as a DRAFT with `transfer.created`, never `transfer.draft`.
TRANSFER_STATUS_EVENTS = (
    "transfer.pending_authorization",
    "transfer.in_review",
    "transfer.pending",
    "transfer.processing",
    "transfer.completed",
    "transfer.failed",
    "transfer.cancelled",
    "transfer.reversed",
)

EVENT_TYPES: tuple[str, ...] = (
    "transfer.created",
    "transfer.updated",
    "transfer.approval_requested",
    *TRANSFER_STATUS_EVENTS,
    "transfer.leg.updated",
    "transfer.refund.updated",
    "deposit.received",
    "deposit.unmatched",
    "account.funded",
    "customer.created",
    "customer.updated",
    "customer.status_changed",
    "customer.rfi.requested",
    "tos.accepted",
    "document.created",
    "document.confirmed",
    "document.rejected",
    "document.archived",
    "agent.created",
    "agent.updated",
    "agent.revoked",
    "fixed_route.created",
    "fixed_route.updated",
    "reconciliation.exception",
    "reconciliation.resolved",
    "bank_file.written",
    "bank_file.uploaded",
    "bank_file.received",
    "bank_file.change_notified",
    "organization.created",
    "organization.updated",
    "organization.configuration_updated",
)
