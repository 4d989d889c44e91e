"""The express create+submit worked out in memory, from the rows the express read found.

Each step is the general path's own function, called in the general path's order
(service.create_transfer, planning.replan, actions.submit), so the rules live in one
place; only the lookups differ (done beforehand, in one statement). A request outside
the express case raises `NotExpress`; a request the rules refuse raises the rule's
CorridorError. Either way nothing was written, and the request goes the general way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import orjson

from corridor.auth.callers import Caller
from corridor.kit.ids import new_id
from corridor.models.customer import Customer
from corridor.models.event import Event
from corridor.models.ledger import LedgerAccount
from corridor.models.party import ExternalAccount
from corridor.models.transfer import Transfer, TransferLeg
from corridor.organizations.configuration import Configuration
from corridor.transfers import actions, events, service
from corridor.transfers.express import rows
from corridor.transfers.money import postings
from corridor.transfers.planning import destinations, sources
from corridor.transfers.planning import plan as planning
from corridor.transfers.planning.resolution import ResolvedDestination, problem
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.schemas.requests import TransferCreate

EXTERNAL_ACCOUNT_PREFIX = "ext_"


class NotExpress(Exception):
    """The request is not the express case; it goes the general way."""


@dataclass(frozen=True, slots=True)
class Wanted:
    """The rows an express request names, for the express read to look up."""

    customer_id: str
    account_id: str
    external_account_id: str


@dataclass(frozen=True, slots=True)
class Found:
    """What the express read found of them (None: not visible to the caller)."""

    customer: Customer | None
    account: LedgerAccount | None
    external: ExternalAccount | None
    configuration: Configuration


@dataclass(frozen=True, slots=True)
class Submitted:
    """The submitted transfer as the write stores it, and the answer to send."""

    transfer: Transfer
    legs: list[TransferLeg]
    events: list[Event]
    # The 201 body: TransferRead of the submitted transfer, as JSON.
    answer: str


def wanted(data: TransferCreate) -> Wanted:
    """The express case, as far as the body tells: a create submitted at once, naming its
    customer, from a balance account to an external bank account, with no quote and no
    documents (those take locks and lookups of their own)."""
    if not data.confirm:
        raise NotExpress("a draft")
    if data.quote_id is not None or data.document_ids:
        raise NotExpress("a quote or documents")
    source, destination = data.source, data.destination
    external_account_id = destination.external_account_id
    if (
        data.customer_id is None
        or source.account_id is None
        or external_account_id is None
        or not external_account_id.startswith(EXTERNAL_ACCOUNT_PREFIX)
        or destination.account_id is not None
    ):
        raise NotExpress("not from a balance to a bank account")
    return Wanted(data.customer_id, source.account_id, external_account_id)


def create_and_submit(
    *,
    caller: Caller,
    data: TransferCreate,
    found: Found,
    plugins: TransferPlugins,
    now: datetime,
) -> Submitted:
    """service.create_transfer with `confirm: true`, then actions.submit, on `found`."""
    if found.external is not None and found.external.counterparty_id is not None:
        # Known from the read alone, before anything is built: a refusal and this both
        # hand the request on, so which comes first does not matter.
        raise NotExpress("a counterparty's account")
    caller.require_scope(service.WRITE_SCOPE)
    caller.require_customer_binding()
    customer = _customer(caller, data, found)
    fee_request = planning.fee_request(
        fields_set=data.model_fields_set,
        developer_fee=data.developer_fee,
        developer_fee_fixed=data.developer_fee_fixed,
        developer_fee_percent=data.developer_fee_percent,
    )
    # Plain rows, not ORM instances: they are only built, read and written here.
    transfer = service.new_draft(
        caller=caller,
        data=data,
        transfer_id=new_id("tfr"),
        customer_id=customer.id,
        fee_request=fee_request,
        document_ids=[],
        now=now,
        make=rows.TRANSFER.plain,
    )
    legs = _plan(customer, transfer, found, counterparty_id=data.counterparty_id, now=now)
    created = events.transfer_event_row(
        events.CREATED, transfer=transfer, legs=legs, now=now, make=rows.EVENT.plain
    )
    if any(guard.concerns(caller=caller, transfer=transfer) for guard in plugins.submit_guards):
        raise NotExpress("a submit guard's business (an agent, a quote)")
    submitted = actions.mark_submitted(
        caller, transfer, legs, found.configuration, now=now, make_event=rows.EVENT.plain
    )
    actions.schedule_next_step(transfer, now=now)
    postings.mark_hold(transfer)
    # The answer is the transfer as its submitted event shows it (TransferRead, as JSON):
    # nothing the API shows changes after the move (next step, hold: internal columns).
    answer = orjson.dumps(submitted.data).decode()
    return Submitted(transfer, legs, [created, submitted], answer)


def _customer(caller: Caller, data: TransferCreate, found: Found) -> Customer:
    """planning.active_customer on the row found."""
    wanted_id = planning.wanted_customer(caller, data.customer_id)
    customer = found.customer
    if customer is None or customer.id != wanted_id:
        raise NotExpress("the customer is not visible")
    planning.check_active(customer)
    return customer


def _plan(
    customer: Customer,
    transfer: Transfer,
    found: Found,
    *,
    counterparty_id: str | None,
    now: datetime,
) -> list[TransferLeg]:
    """planning.replan (without a quote, so no locked rate) on the rows found."""
    fee = planning.effective_fee(transfer.developer_fee_request, found.configuration)
    planning.check_positive(transfer.source_amount)
    source_request = transfer.source_request
    sources.check_balance_request(source_request)
    if found.account is None:
        raise NotExpress("the source account is not visible")
    source = sources.balance_source(customer, found.account, source_request)
    planning.check_currency(transfer.source_currency, source)
    destination = _bank_destination(customer, transfer, found, counterparty_id)
    plan = planning.plan_of(
        source, destination, amount_minor=transfer.source_amount, fee=fee, lock=None
    )
    return planning.apply_plan(transfer, plan, now=now, make_leg=rows.LEG.plain)


def _bank_destination(
    customer: Customer, transfer: Transfer, found: Found, counterparty_id: str | None
) -> ResolvedDestination:
    """planning.resolve_destination for the customer's own external bank account (a
    counterparty's was handed on by `create_and_submit` before anything was built)."""
    request = transfer.destination_request
    if request.get("toAddress"):
        raise problem("destination.toAddress", "name one destination only")
    external = found.external
    if external is None:
        raise NotExpress("the destination account is not visible")
    destinations.check_own_party(customer, external, counterparty_id)
    resolved = destinations.bank_destination(request, external, None)
    return destinations.with_references(resolved, request)
