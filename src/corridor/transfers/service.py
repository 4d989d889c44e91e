"""Transfers: creating and editing drafts, reading and listing them.

State changes after DRAFT (submit, cancel, fund, review, authorize) are in actions.py;
the engine that carries legs out is engine.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.documents import service as documents
from corridor.kit.errors import Forbidden, ValidationFailed
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.pagination import Page, PageRequest
from corridor.models.document import Document
from corridor.models.transfer import Transfer, TransferLeg
from corridor.parties import service as parties
from corridor.transfers import actions, events, lifecycle, repository
from corridor.transfers.errors import TransferNotDraft
from corridor.transfers.planning import plan as planning
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.repository import TransferFilters
from corridor.transfers.rules import drafts
from corridor.transfers.rules.states import TransferStatus
from corridor.transfers.schemas.requests import TransferCreate, TransferUpdate

READ_SCOPE = Scope.TRANSFERS_READ
WRITE_SCOPE = Scope.TRANSFERS_WRITE
volume_days_default = 30
volume_days_max = 366
# Request fields stored as they are, on columns of the same name.
_SIMPLE_FIELDS = ("client_reference_id", "remarks", "internal_remarks", "payment_reason")


def _request_dict(model: Any) -> dict[str, Any]:
    """A source or destination as sent: camelCase names, only the fields sent."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def _attachable_documents(
    session: AsyncSession,
    caller: Caller,
    *,
    customer_id: str,
    transfer_id: str,
    document_ids: list[str] | None,
) -> list[str]:
    """`documentIds`: confirmed documents of the transfer's organization and customer."""
    for index, document_id in enumerate(document_ids or []):
        if not looks_like_id(document_id, "doc"):
            raise ValidationFailed(f"documentIds.{index}", "must be a document id (doc_…)")
    return await documents.attachable(
        session,
        caller=caller,
        customer_id=customer_id,
        transfer_id=transfer_id,
        document_ids=document_ids or [],
    )


def new_draft(
    *,
    caller: Caller,
    data: TransferCreate,
    transfer_id: str,
    customer_id: str,
    fee_request: dict[str, str] | None,
    document_ids: list[str],
    now: datetime,
    make: Callable[..., Transfer] = Transfer,
) -> Transfer:
    """The DRAFT row a create writes, before it is planned (of `make`: the ORM's class, or
    the express path's plain row)."""
    transfer = make(
        id=transfer_id,
        organization_id=caller.organization_id,
        customer_id=customer_id,
        status=TransferStatus.DRAFT.value,
        source_request=_request_dict(data.source),
        destination_request=_request_dict(data.destination),
        source_amount=data.amount.minor_units,
        source_currency=data.amount.currency,
        developer_fee_request=fee_request,
        document_ids=document_ids,
        funding_needed=False,
        metadata_={},
        created_by=caller.actor_id,
        agent_id=caller.agent_id,
        quote_id=None,
        created_at=now,
        updated_at=now,
    )
    for name in _SIMPLE_FIELDS:
        setattr(transfer, name, getattr(data, name))
    return transfer


async def create_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    data: TransferCreate,
    plugins: TransferPlugins,
    now: datetime,
) -> lifecycle.TransferWithLegs | actions.Parked:
    """A DRAFT, or (with `confirm: true`) a submitted transfer, all in one unit of work."""
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    wanted = planning.wanted_customer(caller, data.customer_id)
    # Load: every row the plan reads, in one statement; then only pure decisions on them.
    rows = await planning.load(
        session,
        caller,
        customer_id=wanted,
        source_request=_request_dict(data.source),
        destination_request=_request_dict(data.destination),
        counterparty_id=data.counterparty_id,
    )
    customer = planning.loaded_customer(rows, wanted)
    fee_request = planning.fee_request(
        fields_set=data.model_fields_set,
        developer_fee=data.developer_fee,
        developer_fee_fixed=data.developer_fee_fixed,
        developer_fee_percent=data.developer_fee_percent,
    )
    transfer_id = new_id("tfr")
    document_ids = await _attachable_documents(
        session,
        caller,
        customer_id=customer.id,
        transfer_id=transfer_id,
        document_ids=data.document_ids,
    )
    transfer = new_draft(
        caller=caller,
        data=data,
        transfer_id=transfer_id,
        customer_id=customer.id,
        fee_request=fee_request,
        document_ids=document_ids,
        now=now,
    )
    locks = plugins.rate_locks
    await locks.hold(session, caller=caller, transfer=transfer, quote_id=data.quote_id, now=now)
    legs = planning.replan_from(
        rows,
        caller,
        customer,
        transfer,
        data.counterparty_id,
        lock=await locks.lock_of(session, transfer=transfer),
        now=now,
    )
    # No flush here: with `confirm: true` the transfer is inserted once, already submitted
    # (the submit's flush before its hold writes it), rather than inserted then updated.
    session.add(transfer)
    await locks.settle(session, transfer=transfer, now=now)
    session.add_all(legs)
    events.transfer_event(session, events.CREATED, transfer=transfer, legs=legs, now=now)
    if data.confirm:
        return await actions.submit(
            session,
            caller=caller,
            transfer=transfer,
            legs=legs,
            plugins=plugins,
            now=now,
            planned_with=customer,
        )
    return lifecycle.TransferWithLegs(transfer, legs)


@dataclass(frozen=True, slots=True)
class TransferView:
    """A transfer as GET shows it: with its legs, and its counterparty when expanded."""

    found: lifecycle.TransferWithLegs
    counterparty: dict[str, Any] | None = None


EXPANSIONS = ("counterparty",)


async def read_transfer(
    session: AsyncSession, *, caller: Caller, transfer_id: str, expand: Sequence[str] = ()
) -> TransferView:
    caller.require_scope(READ_SCOPE)
    for part in expand:
        if part not in EXPANSIONS:
            raise ValidationFailed("expand", f"unknown expansion {part!r}; use counterparty")
    found = await lifecycle.read(session, caller=caller, transfer_id=transfer_id)
    transfer = found.transfer
    counterparty = None
    if "counterparty" in expand and transfer.counterparty_id is not None:
        counterparty = parties.counterparty_read(
            await parties.get_counterparty(
                session,
                caller=caller,
                counterparty_id=transfer.counterparty_id,
                include_deleted=True,
            )
        )
    return TransferView(found, counterparty)


async def update_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    data: TransferUpdate,
    plugins: TransferPlugins,
    now: datetime,
) -> lifecycle.TransferWithLegs:
    """PATCH a DRAFT: the fields sent change, and the plan (flow, legs, amounts) is redone."""
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, written = found.transfer, found.legs
    if transfer.status != TransferStatus.DRAFT:
        raise TransferNotDraft(transfer, "updated")
    actions.refuse_if_awaiting_approval(transfer, "updated")
    fields = data.model_fields_set
    locks = plugins.rate_locks
    if "quote_id" in fields:
        await locks.hold(session, caller=caller, transfer=transfer, quote_id=data.quote_id, now=now)
    if "document_ids" in fields:
        transfer.document_ids = await _attachable_documents(
            session,
            caller,
            customer_id=transfer.customer_id,
            transfer_id=transfer.id,
            document_ids=data.document_ids,
        )
    _apply_changes(transfer, data)
    counterparty_id = (
        data.counterparty_id if "counterparty_id" in fields else _sent_counterparty(transfer)
    )
    wanted = planning.wanted_customer(caller, transfer.customer_id)
    # The plan reads the parties, not the draft: its changes go out with the rest, in one
    # UPDATE, instead of being flushed before the read.
    with session.no_autoflush:
        rows = await planning.load_for(session, caller, transfer, counterparty_id)
    customer = planning.loaded_customer(rows, wanted)
    legs = planning.replan_from(
        rows,
        caller,
        customer,
        transfer,
        counterparty_id,
        lock=await locks.lock_of(session, transfer=transfer),
        now=now,
    )
    if [_planned(leg) for leg in legs] == [_planned(leg) for leg in written]:
        legs = written  # the same plan: the legs stay as they are, ids and all
    else:
        await repository.delete_legs(session, transfer.id)
        session.add_all(legs)
    await session.flush()
    await locks.settle(session, transfer=transfer, now=now)
    events.transfer_event(session, events.UPDATED, transfer=transfer, legs=legs, now=now)
    return lifecycle.TransferWithLegs(transfer, legs)


def _planned(leg: TransferLeg) -> tuple[object, ...]:
    """What planning writes on a leg (planning.apply_plan), but its id and times."""
    return (
        leg.sequence,
        leg.type,
        leg.status,
        leg.input_currency,
        leg.output_currency,
        leg.input_rail,
        leg.output_rail,
        leg.input_amount,
        leg.output_amount,
        leg.developer_fee_amount,
        leg.rail_attempts,
    )


def _apply_changes(transfer: Transfer, data: TransferUpdate) -> None:
    """The fields a PATCH sent, onto the draft (a field sent as null clears it; naming
    another kind of source or destination replaces the old one, and a new rail drops the
    old rail's references: rules/drafts.py)."""
    fields = data.model_fields_set
    if data.source is not None:
        sent = _request_dict(data.source)
        transfer.source_request = drafts.source_after_patch(transfer.source_request, sent)
    if data.destination is not None:
        sent = _request_dict(data.destination)
        transfer.destination_request = drafts.destination_after_patch(
            transfer.destination_request, sent
        )
    if data.amount is not None:
        transfer.source_amount = data.amount.minor_units
        transfer.source_currency = data.amount.currency
    for name in _SIMPLE_FIELDS:
        if name in fields:
            setattr(transfer, name, getattr(data, name))
    if {"developer_fee", "developer_fee_fixed", "developer_fee_percent"} & fields:
        transfer.developer_fee_request = planning.fee_request(
            fields_set=fields,
            developer_fee=data.developer_fee,
            developer_fee_fixed=data.developer_fee_fixed,
            developer_fee_percent=data.developer_fee_percent,
        )


def _sent_counterparty(transfer: Transfer) -> str | None:
    """A counterparty named with a bare address stays named across PATCHes."""
    if transfer.destination_request.get("toAddress"):
        return transfer.counterparty_id
    return None


async def list_transfers(
    session: AsyncSession, *, caller: Caller, filters: TransferFilters, page: PageRequest
) -> Page[lifecycle.TransferWithLegs]:
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    if filters.include_child_organizations:
        caller.require_unrestricted("list transfers across child organizations")
        if caller.customer_id is not None:
            raise Forbidden("A caller bound to a customer sees only that customer's transfers")
    found = await repository.transfer_page(session, caller, filters, page)
    return found.map(lambda item: lifecycle.TransferWithLegs(*item))


async def count_transfers(
    session: AsyncSession, *, caller: Caller, filters: TransferFilters, cap: int
) -> int:
    """How many transfers match, counting no further than `cap` (a queue's badge: "100+"
    reads as well as an exact figure and never scans a whole table)."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    assert cap > 0
    return await repository.count_filtered(session, caller, filters, cap=cap)


@dataclass(frozen=True, slots=True)
class VolumeDay:
    day: date
    count: int  # every currency
    amounts: dict[str, int]  # minor units per source currency


async def daily_volume(
    session: AsyncSession, *, caller: Caller, now: datetime, days: int = volume_days_default
) -> list[VolumeDay]:
    """Transfers created on each of the last `days` UTC days (today: now), oldest first:
    how many, and their source amounts per currency. Drafts never submitted and cancelled
    transfers moved no money and are left out (the console's chart)."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    assert 1 <= days <= volume_days_max
    today = now.astimezone(UTC).date()
    calendar = [today - timedelta(days=back) for back in range(days - 1, -1, -1)]
    found = await repository.volume_per_day(
        session,
        caller,
        since=datetime.combine(calendar[0], time(), tzinfo=UTC),
        excluded_statuses=[TransferStatus.DRAFT.value, TransferStatus.CANCELLED.value],
    )
    counts: dict[date, int] = defaultdict(int)
    amounts: dict[date, dict[str, int]] = defaultdict(dict)
    for row in found:
        day = date.fromisoformat(row.day)
        counts[day] += row.count
        amounts[day][row.currency] = amounts[day].get(row.currency, 0) + row.amount
    return [VolumeDay(day, counts[day], dict(sorted(amounts[day].items()))) for day in calendar]


async def list_customer_transfers(
    session: AsyncSession, *, caller: Caller, customer_id: str, page: PageRequest
) -> Page[lifecycle.TransferWithLegs]:
    caller.require_scope(READ_SCOPE)
    customer = await customers.get_customer(session, caller=caller, customer_id=customer_id)
    return await list_transfers(
        session, caller=caller, filters=TransferFilters(customer_id=customer.id), page=page
    )


async def list_account_transfers(
    session: AsyncSession, *, caller: Caller, account_id: str, page: PageRequest
) -> Page[lifecycle.TransferWithLegs]:
    caller.require_scope(READ_SCOPE)
    account = await accounts.get_account(session, caller=caller, account_id=account_id)
    return await list_transfers(
        session, caller=caller, filters=TransferFilters(account_id=account.id), page=page
    )


async def documents_of(
    session: AsyncSession, *, caller: Caller, transfer_id: str, page: PageRequest
) -> Page[Document]:
    """Document resources uploaded for the transfer or attached with `documentIds`."""
    caller.require_scope(READ_SCOPE)
    transfer = await lifecycle.get_transfer(session, caller=caller, transfer_id=transfer_id)
    return await documents.documents_of_transfer(
        session,
        caller=caller,
        transfer_id=transfer.id,
        attached_ids=list(transfer.document_ids or []),
        page=page,
    )
