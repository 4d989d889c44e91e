"""Transfers Corridor makes itself, as the system actor: a FEE_CRYPTO payout of a collected
developer fee and a REFUND_* transfer of received money. Each is a child of the transfer it serves
(`parent_transfer_id`), has exactly one leg, moves one amount in one currency, and starts
PROCESSING: its money is already inside Corridor (in FEES or CLEARING), so the engine
only has to send it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import UNRESTRICTED
from corridor.kit.ids import new_id
from corridor.models.transfer import Transfer, TransferLeg
from corridor.transfers import events
from corridor.transfers.rules.flows import Flow, LegType
from corridor.transfers.rules.states import LegStatus, TransferStatus

SYSTEM_ACTOR = "system"


def system_caller(organization_id: str) -> Caller:
    """The engine acts for the organization, with no customer or account confinement."""
    return Caller(
        kind=CallerKind.ORGANIZATION_KEY,
        organization_id=organization_id,
        actor_id=SYSTEM_ACTOR,
        scopes=frozenset({UNRESTRICTED}),
    )


async def start_system_transfer(
    session: AsyncSession,
    *,
    parent: Transfer,
    flow: Flow,
    leg_type: LegType,
    input_rail: str | None,
    output_rail: str | None,
    source: dict[str, Any],
    destination: dict[str, Any],
    now: datetime,
    **columns: Any,
) -> tuple[Transfer, TransferLeg]:
    """Add the child and its leg in the parent's currency and amount (the caller names the
    amount through `source_amount` in `columns` when it is not the parent's source amount),
    and write `transfer.created` and `transfer.processing` in the same transaction."""
    code = parent.source_currency
    amount = columns.pop("source_amount", parent.source_amount)
    child = Transfer(
        id=new_id("tfr"),
        organization_id=parent.organization_id,
        customer_id=parent.customer_id,
        flow=flow.value,
        status=TransferStatus.PROCESSING.value,
        source_request={},
        destination_request={},
        source=source,
        destination=destination,
        source_currency=code,
        source_amount=amount,
        destination_currency=code,
        destination_amount=amount,
        is_third_party=False,
        document_ids=[],
        funding_needed=False,
        metadata_={},
        created_by=SYSTEM_ACTOR,
        submitted_by=SYSTEM_ACTOR,
        submitted_at=now,
        parent_transfer_id=parent.id,
        current_leg_index=0,
        next_step_at=now,
        created_at=now,
        updated_at=now,
        **columns,
    )
    leg = TransferLeg(
        id=new_id("tleg"),
        organization_id=parent.organization_id,
        transfer_id=child.id,
        sequence=0,
        type=leg_type.value,
        status=LegStatus.PENDING.value,
        input_currency=code,
        output_currency=code,
        input_rail=input_rail,
        output_rail=output_rail,
        input_amount=amount,
        output_amount=amount,
        rail_attempts=0,
        created_at=now,
        updated_at=now,
    )
    session.add(child)
    await session.flush()
    session.add(leg)
    await session.flush()
    events.transfer_event(session, events.CREATED, transfer=child, legs=[leg], now=now)
    processing = events.status_event(TransferStatus.PROCESSING)
    events.transfer_event(session, processing, transfer=child, legs=[leg], now=now)
    return child, leg
