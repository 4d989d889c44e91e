"""The event types Corridor emits (API.md 7), the one list of them: what a webhook endpoint
can subscribe to, what a sandbox test event may be (console test mode, `POST
/v1/webhooks/endpoints/{id}/test`, `corridor trigger`), and the guide's event catalog
(docs_catalog.py writes docs/reference/events.md from it). Pure: names, when each is
emitted, and which schema its data is, named as "module:Class" (read by the docs only, so
nothing heavy is imported here). `python -m corridor.docs_catalog --check` fails when the
code emits a type missing here, or an entry here names nothing the code emits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class EventType:
    name: str
    # When it is emitted: one or two sentences, shown in the guide and the console.
    when: str
    # The schema of the event's data ("module:Class"), or None with `data` given by hand.
    schema: str | None
    data: dict[str, Any] | None = None


_TRANSFER = "corridor.transfers.schemas.transfer:TransferRead"


def _status(name: str, when: str) -> EventType:
    """transfer.<status in lower case>, sent on every status change
    (transfers/events.status_event); a transfer is created as a DRAFT with
    `transfer.created`, never `transfer.draft`."""
    return EventType(name, when, _TRANSFER)


CATALOG: tuple[EventType, ...] = (
    EventType(
        "account.funded",
        "Money arrived on a balance account outside a transfer (sandbox funding, a deposit "
        "credited to the balance). The data is the balance transaction.",
        "corridor.accounts.schemas:BalanceTransactionRead",
    ),
    EventType("agent.created", "An agent was created.", "corridor.agents.schemas:AgentRead"),
    EventType(
        "agent.updated",
        "An agent's limits, payees, status (paused, resumed) or name changed.",
        "corridor.agents.schemas:AgentRead",
    ),
    EventType(
        "agent.revoked",
        "An agent was revoked (final: its keys stop working).",
        "corridor.agents.schemas:AgentRead",
    ),
    EventType(
        "agent.mandate.created",
        "An owner gave an agent a mandate (payees, amounts, window).",
        "corridor.agents.mandates.schemas:MandateRead",
    ),
    EventType(
        "agent.mandate.consumed",
        "An agent's payment consumed a mandate (`used` and `uses` after it).",
        "corridor.agents.mandates.schemas:MandateRead",
    ),
    EventType(
        "agent.mandate.exhausted",
        "A mandate's uses, or its budget that never resets, are all taken (EXHAUSTED).",
        "corridor.agents.mandates.schemas:MandateRead",
    ),
    EventType(
        "agent.mandate.expired",
        "A mandate passed its notAfter (EXPIRED): sent by the worker within seconds of it.",
        "corridor.agents.mandates.schemas:MandateRead",
    ),
    EventType(
        "agent.mandate.revoked",
        "An owner revoked a mandate (final).",
        "corridor.agents.mandates.schemas:MandateRead",
    ),
    EventType(
        "bank_file.written",
        "A bank file (ACH, SEPA or SWIFT payments) was written for a file rail.",
        "corridor.bankfiles.schemas:BankFileRead",
    ),
    EventType(
        "bank_file.uploaded",
        "A written bank file was delivered to the bank's connection.",
        "corridor.bankfiles.schemas:BankFileRead",
    ),
    EventType(
        "bank_file.received",
        "A file from the bank (acknowledgement, returns) was read.",
        "corridor.bankfiles.schemas:BankFileRead",
    ),
    EventType(
        "bank_file.change_notified",
        "The bank answered a payment with a notification of change (corrected account "
        "details to use next time); the payment itself went through.",
        None,
        {
            "bankFileId": "bkf_01m87py1c4a4r5fk6q7s3x9v2e",
            "transferId": "tfr_01m87py17w42f876w56avbebe1",
            "reference": "CORRIDOR0001",
            "code": "C01",
            "description": "Incorrect DFI account number",
            "correctedData": "123456789",
        },
    ),
    EventType(
        "counterparty.created",
        "A counterparty (a payee) was created.",
        "corridor.parties.schemas:CounterpartyRead",
    ),
    EventType(
        "counterparty.updated",
        "A counterparty's details changed.",
        "corridor.parties.schemas:CounterpartyRead",
    ),
    EventType(
        "counterparty.deleted",
        "A counterparty was deleted (its accounts and wallets are closed with it).",
        "corridor.parties.schemas:CounterpartyRead",
    ),
    EventType(
        "customer.created",
        "A customer was created.",
        "corridor.customers.schemas.customer:CustomerRead",
    ),
    EventType(
        "customer.updated",
        "A customer's details, owners or requirements changed (also on the hosted "
        "verification page).",
        "corridor.customers.schemas.customer:CustomerRead",
    ),
    EventType(
        "customer.status_changed",
        "A customer's verification status changed (for example to ACTIVE or REJECTED).",
        "corridor.customers.schemas.customer:CustomerRead",
    ),
    EventType(
        "customer.rfi.requested",
        "A request for information was opened on a customer: more documents or answers are "
        "needed before it can go on.",
        "corridor.customers.schemas.customer:RfiRead",
    ),
    EventType(
        "deposit.received",
        "An incoming payment matched a transfer's deposit instructions or a fixed route.",
        "corridor.transfers.schemas.deposits:DepositRead",
    ),
    EventType(
        "deposit.unmatched",
        "An incoming payment matched nothing (wrong amount, reference or currency); it "
        "waits in the customer's unmatched deposits.",
        "corridor.transfers.schemas.deposits:DepositRead",
    ),
    EventType(
        "document.created",
        "An upload was requested: the document is PENDING_UPLOAD.",
        "corridor.documents.schemas:DocumentRead",
    ),
    EventType(
        "document.confirmed",
        "An uploaded document was confirmed (size, type and SHA-256 recorded): UPLOADED.",
        "corridor.documents.schemas:DocumentRead",
    ),
    EventType(
        "document.rejected",
        "A confirmed upload was refused (the file was not what was declared).",
        "corridor.documents.schemas:DocumentRead",
    ),
    EventType(
        "document.archived",
        "A document was archived (kept, never attached again).",
        "corridor.documents.schemas:DocumentRead",
    ),
    EventType(
        "external_account.created",
        "An external bank account was added to a customer or counterparty.",
        "corridor.parties.schemas:ExternalAccountRead",
    ),
    EventType(
        "external_account.updated",
        "An external bank account's details changed.",
        "corridor.parties.schemas:ExternalAccountRead",
    ),
    EventType(
        "external_account.closed",
        "An external bank account was closed (or its counterparty deleted).",
        "corridor.parties.schemas:ExternalAccountRead",
    ),
    EventType(
        "external_wallet.created",
        "An external wallet was added.",
        "corridor.parties.schemas:ExternalWalletRead",
    ),
    EventType(
        "external_wallet.updated",
        "An external wallet changed (or was closed with its counterparty).",
        "corridor.parties.schemas:ExternalWalletRead",
    ),
    EventType(
        "fixed_route.created",
        "A fixed route was created.",
        "corridor.fixedroutes.schemas:FixedRouteRead",
    ),
    EventType(
        "fixed_route.updated",
        "A fixed route changed: paused, resumed, closed, or its destination, fee or "
        "references edited.",
        "corridor.fixedroutes.schemas:FixedRouteRead",
    ),
    EventType(
        "organization.created",
        "An organization was created (a child organization of a platform, to the parent).",
        "corridor.organizations.schemas:OrganizationRead",
    ),
    EventType(
        "organization.updated",
        "An organization's name or settings changed.",
        "corridor.organizations.schemas:OrganizationRead",
    ),
    EventType(
        "organization.configuration_updated",
        "An organization's configuration (currencies, rails, fees, review rules) changed.",
        "corridor.organizations.schemas:ConfigurationRead",
    ),
    EventType(
        "reconciliation.exception",
        "A bank statement line could not be matched to a transfer or deposit: a person "
        "must look at it.",
        "corridor.reconciliation.schemas:BankStatementLineRead",
    ),
    EventType(
        "reconciliation.resolved",
        "A reconciliation exception was resolved.",
        "corridor.reconciliation.schemas:BankStatementLineRead",
    ),
    EventType(
        "tos.accepted",
        "A customer accepted the terms of service.",
        "corridor.customers.schemas.customer:TermsOfServiceRead",
    ),
    EventType(
        "transfer.created",
        "A transfer was created (as a DRAFT, or created and submitted at once with "
        "`confirm: true`: then its status event follows).",
        _TRANSFER,
    ),
    EventType(
        "transfer.updated",
        "A transfer changed without changing status (a draft edited, rail references or "
        "deposit instructions added).",
        _TRANSFER,
    ),
    EventType(
        "transfer.approval_requested",
        "An agent's transfer was over one of its limits, or to a payee it never paid: the "
        "draft waits for an owner's approval (`agentApprovalStatus` PENDING). Beside the "
        "transfer's fields, `denial` says why: the denial object of the 403 "
        "`agent_approval_required` answer (`code`: a limit's code, `daily_count_exceeded` "
        "or `new_payee`).",
        _TRANSFER,
    ),
    EventType(
        "transfer.leg.updated",
        "One leg of a transfer moved (the leg's id is among the message's tags).",
        _TRANSFER,
    ),
    EventType(
        "transfer.refund.updated",
        "A refund of a transfer moved; sent after the refund transfer's own status event.",
        _TRANSFER,
    ),
    _status(
        "transfer.pending_authorization",
        "A submitted transfer is above the organization's authorization threshold and waits "
        "for a second person.",
    ),
    _status("transfer.in_review", "A submitted transfer waits for compliance review."),
    _status(
        "transfer.pending",
        "A transfer was submitted (or approved, reviewed, authorized) and is funded or "
        "waiting for its deposit; the engine takes it from here.",
    ),
    _status("transfer.processing", "The engine started moving the transfer's money."),
    _status("transfer.completed", "Every leg of the transfer settled."),
    _status("transfer.failed", "A leg failed; held money was released."),
    _status(
        "transfer.cancelled",
        "The transfer was cancelled (by a person, a declined approval or review, or an "
        "expired deposit).",
    ),
    _status(
        "transfer.reversed",
        "A completed payout was returned: the money is back on the source balance.",
    ),
)


EVENTS: dict[str, EventType] = {event.name: event for event in CATALOG}
EVENT_TYPES: tuple[str, ...] = tuple(EVENTS)
