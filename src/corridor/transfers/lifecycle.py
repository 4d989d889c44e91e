"""Moving a transfer and its legs between states, with the event each move emits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import get_visible
from corridor.kit.errors import NotFound
from corridor.kit.ids import looks_like_id
from corridor.models.event import Event
from corridor.models.transfer import Transfer, TransferLeg
from corridor.rails.base import RailName
from corridor.transfers import events, repository, spending
from corridor.transfers.errors import TransferStateRefused
from corridor.transfers.plugins import StatusWatcher
from corridor.transfers.rules import states, swift_routing
from corridor.transfers.rules.states import LegStatus, TransferStatus

# Told of each move to a final status (transfers/plugins.py StatusWatcher); set by the
# composition root (corridor.app), as the server key is.
_status_watchers: tuple[StatusWatcher, ...] = ()


def install_status_watchers(*watchers: StatusWatcher) -> None:
    global _status_watchers
    _status_watchers = watchers


@dataclass(frozen=True, slots=True)
class TransferWithLegs:
    transfer: Transfer
    legs: list[TransferLeg]


async def get_transfer(
    session: AsyncSession, *, caller: Caller, transfer_id: str, for_update: bool = False
) -> Transfer:
    """The transfer, if this caller may see it; another organization's id is simply unknown."""
    caller.require_customer_binding()
    return await get_visible(
        session, repository.visible_transfers(caller), transfer_id, locked=for_update
    )


async def load(
    session: AsyncSession, *, caller: Caller, transfer_id: str, for_update: bool = True
) -> TransferWithLegs:
    """The transfer and its legs, if this caller may see it (404 as `get_transfer`), in one
    statement; `for_update`: the transfer's row locked until the unit of work ends."""
    caller.require_customer_binding()
    if not looks_like_id(transfer_id, Transfer.id_prefix):
        raise NotFound(Transfer.resource_name, transfer_id)
    found = await repository.visible_with_legs(session, caller, transfer_id, locked=for_update)
    if found is None:
        raise NotFound(Transfer.resource_name, transfer_id)
    return TransferWithLegs(*found)


async def read(session: AsyncSession, *, caller: Caller, transfer_id: str) -> TransferWithLegs:
    """`load` for a read that changes nothing: no lock."""
    return await load(session, caller=caller, transfer_id=transfer_id, for_update=False)


def require_status(transfer: Transfer, allowed: set[TransferStatus], action: str) -> None:
    if transfer.status not in allowed:
        names = ", ".join(sorted(allowed))
        raise TransferStateRefused(transfer, f"only a transfer in {names} can be {action}")


def refresh_leg_index(transfer: Transfer, legs: list[TransferLeg]) -> None:
    transfer.current_leg_index = states.current_leg_index(
        transfer.status, [leg.status for leg in legs]
    )


def move(
    transfer: Transfer,
    legs: list[TransferLeg],
    target: TransferStatus,
    *,
    now: datetime,
    make_event: Callable[..., Event] = Event,
) -> Event:
    """Move the transfer (the state machine must allow it); its transfer.<status> event,
    for the caller to write in the same transaction (`make_event`: the row's class)."""
    try:
        states.check_move(transfer.status, target)
    except states.IllegalMove as refused:
        raise TransferStateRefused(transfer, str(refused)) from None
    transfer.status = target.value
    transfer.updated_at = now
    if states.is_terminal(target):
        transfer.next_step_at = None
        transfer.funding_needed = False
        transfer.deposit_instructions = None
    _route_follows(transfer, swift_routing.outcome_of_transfer(target), now=now)
    refresh_leg_index(transfer, legs)
    return events.transfer_event_row(
        events.status_event(target), transfer=transfer, legs=legs, now=now, make=make_event
    )


def _route_follows(
    transfer: Transfer, outcome: swift_routing.StepStatus | None, *, now: datetime
) -> None:
    """metadata.swiftRouting's steps move with the payment (rules/swift_routing.py)."""
    moved = swift_routing.metadata_after(transfer.metadata_, outcome, now=now)
    if moved is not None:
        transfer.metadata_ = moved


async def set_status(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    target: TransferStatus,
    *,
    now: datetime,
) -> None:
    """Move the transfer (the state machine must allow it) and emit transfer.<status>. A
    submitted agent transfer that stops counting toward its agent's spend (cancelled,
    failed, reversed) takes its amount back off the agent's windows in the same write."""
    counted = spending.counts(transfer.status)
    previous = transfer.status
    session.add(move(transfer, legs, target, now=now))
    if states.is_terminal(target):
        for watcher in _status_watchers:
            await watcher.status_changed(session, transfer=transfer, previous=previous, now=now)
    if (
        counted
        and not spending.counts(transfer.status)
        and transfer.agent_id is not None
        and transfer.submitted_at is not None
    ):
        await spending.take_back(session, transfer=transfer, now=now)


def set_leg_status(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    target: LegStatus,
    *,
    now: datetime,
    reason: str | None = None,
) -> None:
    """Move a leg and emit transfer.leg.updated (the transfer as it is now)."""
    states.check_leg_move(leg.status, target)
    leg.status = target.value
    leg.updated_at = now
    if target in (LegStatus.PROCESSING, LegStatus.COMPLETED) and leg.started_at is None:
        leg.started_at = now
    if target == LegStatus.COMPLETED:
        leg.completed_at = now
    if reason is not None:
        leg.failure_reason = reason[:500]
    transfer.updated_at = now
    if leg.output_rail == RailName.SWIFT:
        _route_follows(transfer, swift_routing.outcome_of_leg(target), now=now)
    refresh_leg_index(transfer, legs)
    events.transfer_event(
        session, events.LEG_UPDATED, transfer=transfer, legs=legs, now=now, leg=leg
    )


def cancel_open_legs(legs: list[TransferLeg], *, now: datetime) -> None:
    """Legs that will never run now (no event each: the transfer's status event says it)."""
    for leg in legs:
        if leg.status == LegStatus.PENDING:
            leg.status = LegStatus.CANCELLED.value
            leg.updated_at = now


def current_leg(legs: list[TransferLeg]) -> TransferLeg | None:
    return next((leg for leg in legs if leg.status != LegStatus.COMPLETED), None)
