"""What happens to a transfer after DRAFT: submit, cancel, fund, review, authorize.

Each action locks the transfer row, checks the state machine, and writes the status,
the ledger entries and the events in the caller's one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import Scope
from corridor.kit.clock import isoformat_z
from corridor.kit.errors import CorridorError, Forbidden, ValidationFailed
from corridor.models.customer import Customer
from corridor.models.event import Event
from corridor.models.transfer import Transfer, TransferLeg
from corridor.organizations.configuration import Configuration
from corridor.transfers import events, lifecycle
from corridor.transfers.deposits import instructions, receiving
from corridor.transfers.errors import AwaitingApproval, TransferNotDraft, TransferStateRefused
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.money import postings
from corridor.transfers.planning import plan as planning
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.returns import refunds
from corridor.transfers.rules import states
from corridor.transfers.rules.flows import SourceKind
from corridor.transfers.rules.states import AgentApprovalStatus, Decision, TransferStatus

WRITE_SCOPE = Scope.TRANSFERS_WRITE
S = TransferStatus


def _source_kind(transfer: Transfer) -> SourceKind:
    request = transfer.source_request
    if request.get("accountId"):
        return SourceKind.BALANCE
    if request.get("externalAccountId"):
        return SourceKind.EXTERNAL_ACCOUNT
    return SourceKind.DEPOSIT


def _signature(legs: list[TransferLeg]) -> list[tuple]:
    return [
        (leg.type, leg.input_currency, leg.output_currency, leg.input_amount, leg.output_amount)
        for leg in legs
    ]


def _funds_received(transfer: Transfer) -> bool:
    return transfer.funds_received_at is not None


def schedule_next_step(transfer: Transfer, *, now: datetime) -> None:
    """PENDING with nothing to wait for, or PROCESSING: the engine's turn."""
    ready = transfer.status == S.PROCESSING or (
        transfer.status == S.PENDING and not transfer.funding_needed
    )
    transfer.next_step_at = now if ready else None


# --- Submit -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Parked:
    """A submit held for an owner's decision (spec 3.1): the draft is kept, with
    agentApprovalStatus PENDING, and the caller is answered with `refusal` (403
    agent_approval_required) once that is committed."""

    found: TransferWithLegs
    refusal: CorridorError


def refuse_if_awaiting_approval(transfer: Transfer, action: str) -> None:
    """A draft parked for approval cannot be edited, resubmitted or cancelled (409): an
    approval always covers exactly what was asked, and only a decision moves it."""
    if transfer.agent_approval_status == AgentApprovalStatus.PENDING:
        raise AwaitingApproval(transfer.id, action)


def _park(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    refusal: CorridorError,
    *,
    now: datetime,
) -> None:
    """The event says why it waits: the refusal's `denial` (its code among them)."""
    transfer.agent_approval_status = AgentApprovalStatus.PENDING.value
    transfer.updated_at = now
    row = events.transfer_event_row(
        events.APPROVAL_REQUESTED, transfer=transfer, legs=legs, now=now
    )
    denial = refusal.extra.get("denial")
    if isinstance(denial, dict):
        row.data = {**row.data, "denial": denial}
    session.add(row)


async def submit(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer: Transfer,
    legs: list[TransferLeg],
    plugins: TransferPlugins,
    now: datetime,
    planned_with: Customer | None = None,
) -> TransferWithLegs | Parked:
    """DRAFT → IN_REVIEW, PENDING_AUTHORIZATION or PENDING (spec 3.1, API.md §6).

    The guards (agents' spend limits, quotes' locks) look first and may refuse or park
    it. The plan is made again, so a party closed since the draft was written is caught
    here, unless the draft was planned in this very unit of work for `planned_with`, its
    ACTIVE customer (create with `confirm: true`: nothing can have changed since). A
    balance-funded transfer places its hold (409 insufficient_funds leaves the DRAFT as it
    was); a deposit flow gets its deposit instructions.
    """
    if transfer.status != S.DRAFT:
        raise TransferNotDraft(transfer, "submitted")
    refuse_if_awaiting_approval(transfer, "submitted")
    for guard in plugins.submit_guards:
        held = await guard.check_submit(
            session, caller=caller, transfer=transfer, legs=legs, now=now
        )
        if held is not None:
            _park(session, transfer, legs, held.refusal, now=now)
            return Parked(TransferWithLegs(transfer, legs), held.refusal)
    customer = planned_with or await _replanned_customer(
        session, caller, transfer, legs, plugins, now
    )
    kind = _source_kind(transfer)
    if kind == SourceKind.DEPOSIT:
        await instructions.prepare_instructions(
            session, transfer=transfer, customer=customer, now=now
        )
    configuration = await planning.configuration_of(session, transfer.organization_id)
    session.add(mark_submitted(caller, transfer, legs, configuration, now=now))
    for guard in plugins.submit_guards:
        await guard.submitted(session, caller=caller, transfer=transfer, now=now)
    schedule_next_step(transfer, now=now)
    if kind == SourceKind.BALANCE:
        # The hold comes last: everything else is written first, so the source account's
        # row lock is held from this UPDATE to the commit only. Concurrent submits from
        # one account (a platform's treasury) queue on that lock, and each one's share
        # of the queue is what it does while holding it. Refused, it raises and the
        # whole unit of work rolls back, the status and events written above with it.
        postings.mark_hold(transfer)
        await session.flush()
        await postings.place_hold(session, transfer=transfer, now=now)
    return TransferWithLegs(transfer, legs)


def mark_submitted(
    caller: Caller,
    transfer: Transfer,
    legs: list[TransferLeg],
    configuration: Configuration,
    *,
    now: datetime,
    make_event: Callable[..., Event] = Event,
) -> Event:
    """The DRAFT moved to where a submit takes it (review for a platform session,
    authorization over the organization's threshold, else PENDING); its event."""
    threshold = configuration.transfer_authorization_threshold
    target = states.submitted_status(
        by_platform_session=caller.kind is CallerKind.PLATFORM_SESSION,
        over_threshold=states.over_threshold(
            amount_minor=transfer.source_amount,
            currency=transfer.source_currency,
            threshold_minor=threshold.minor_units if threshold else None,
            threshold_currency=threshold.currency if threshold else None,
        ),
    )
    transfer.submitted_by = caller.actor_id
    transfer.submitted_at = now
    return lifecycle.move(transfer, legs, target, now=now, make_event=make_event)


async def _replanned_customer(
    session: AsyncSession,
    caller: Caller,
    transfer: Transfer,
    legs: list[TransferLeg],
    plugins: TransferPlugins,
    now: datetime,
) -> Customer:
    """Plan the draft again from what it stores; it must come out as written."""
    wanted = planning.wanted_customer(caller, transfer.customer_id)
    counterparty_id = (
        transfer.counterparty_id if transfer.destination_request.get("toAddress") else None
    )
    rows = await planning.load_for(session, caller, transfer, counterparty_id)
    customer = planning.loaded_customer(rows, wanted)
    lock = await plugins.rate_locks.lock_of(session, transfer=transfer)
    fresh = planning.replan_from(
        rows, caller, customer, transfer, counterparty_id, lock=lock, now=now
    )
    if _signature(fresh) != _signature(legs):
        raise TransferStateRefused(
            transfer, "its plan changed since it was written; read it again and resubmit"
        )
    return customer


async def submit_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    plugins: TransferPlugins,
    now: datetime,
) -> TransferWithLegs | Parked:
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    return await submit(
        session,
        caller=caller,
        transfer=found.transfer,
        legs=found.legs,
        plugins=plugins,
        now=now,
    )


# --- Stopping before the payout -----------------------------------------------------------


async def stop_before_payout(
    session: AsyncSession,
    *,
    transfer: Transfer,
    legs: list[TransferLeg],
    target: TransferStatus,
    now: datetime,
) -> None:
    """End a transfer whose payout never started: release the hold, send back or credit
    what came in (refunds.py), cancel the legs that will not run, and move it."""
    await postings.release_hold(session, transfer=transfer, now=now)
    if _funds_received(transfer):
        await postings.unwind(session, transfer=transfer, legs=legs, now=now)
        await refunds.return_received_funds(
            session, transfer=transfer, send_back=target == S.REVERSED, now=now
        )
    lifecycle.cancel_open_legs(legs, now=now)
    transfer.next_step_at = None
    await lifecycle.set_status(session, transfer, legs, target, now=now)
    refunds.announce_refund(session, transfer=transfer, legs=legs, now=now)


async def cancel_transfer(
    session: AsyncSession, *, caller: Caller, transfer_id: str, reason: str | None, now: datetime
) -> TransferWithLegs:
    """Before funds arrive: CANCELLED. In review (or awaiting authorization) with funds in:
    REVERSED when a refund address is known, else CANCELLED with the funds credited to the
    customer's balance (refunds.py). Once processing: 409."""
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    refuse_if_awaiting_approval(transfer, "cancelled")
    target = states.cancelled_status(
        transfer.status,
        funds_received=_funds_received(transfer),
        refund_address_known=refunds.refund_address(transfer) is not None,
    )
    if target is None:
        raise TransferStateRefused(transfer, "it can no longer be cancelled")
    transfer.cancellation = {
        "reason": reason,
        "cancelledAt": isoformat_z(now),
        "actor": caller.actor_id,
    }
    await stop_before_payout(session, transfer=transfer, legs=legs, target=target, now=now)
    return TransferWithLegs(transfer, legs)


# --- Funding ------------------------------------------------------------------------------


async def fund_transfer(
    session: AsyncSession, *, caller: Caller, transfer_id: str, account_id: str, now: datetime
) -> TransferWithLegs:
    """Fund a PENDING deposit-flow transfer from one of the customer's balances instead."""
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    if transfer.status != S.PENDING or not transfer.funding_needed:
        raise TransferStateRefused(transfer, "only a PENDING transfer awaiting funds can be funded")
    account = await accounts.get_account(session, caller=caller, account_id=account_id)
    if account.customer_id != transfer.customer_id:
        raise ValidationFailed("accountId", "must be a balance account of the transfer's customer")
    if account.currency != transfer.source_currency:
        raise ValidationFailed(
            "accountId", f"must be the customer's {transfer.source_currency} account"
        )
    await receiving.funds_arrived(
        session, transfer=transfer, legs=legs, from_balance_id=account.id, now=now
    )
    return TransferWithLegs(transfer, legs)


# --- Review and authorization -------------------------------------------------------------


def _decision(caller: Caller, decision: Decision, reason: str | None, now: datetime) -> dict:
    return {
        "decision": decision.value,
        "reason": reason,
        "actor": caller.actor_id,
        "decidedAt": isoformat_z(now),
    }


async def review_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    decision: Decision,
    reason: str | None,
    now: datetime,
) -> TransferWithLegs:
    """An operator decides on an IN_REVIEW transfer: APPROVE → PENDING (PROCESSING when the
    funds are already in); REJECT → FAILED with the funds returned."""
    caller.require_console("review transfers")
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    lifecycle.require_status(transfer, {S.IN_REVIEW}, "reviewed")
    transfer.review = _decision(caller, decision, reason, now)
    target = states.reviewed_status(decision, funds_received=_funds_received(transfer))
    if target == S.FAILED:
        transfer.system_remark = f"Rejected in review{': ' + reason if reason else ''}"
        await stop_before_payout(session, transfer=transfer, legs=legs, target=target, now=now)
        return TransferWithLegs(transfer, legs)
    await lifecycle.set_status(session, transfer, legs, target, now=now)
    schedule_next_step(transfer, now=now)
    return TransferWithLegs(transfer, legs)


async def authorize_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    decision: Decision,
    reason: str | None,
    now: datetime,
) -> TransferWithLegs:
    """A second console user decides on a PENDING_AUTHORIZATION transfer: APPROVE →
    PENDING (PROCESSING when funds are in); REJECT cancels it as a cancellation would."""
    caller.require_console("authorize transfers")
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    lifecycle.require_status(transfer, {S.PENDING_AUTHORIZATION}, "authorized")
    if caller.actor_id == transfer.submitted_by:
        raise Forbidden("The console user who submitted a transfer cannot also authorize it")
    transfer.authorization = _decision(caller, decision, reason, now)
    if decision == Decision.REJECT:
        target = states.cancelled_status(
            transfer.status,
            funds_received=_funds_received(transfer),
            refund_address_known=refunds.refund_address(transfer) is not None,
        )
        assert target is not None
        transfer.cancellation = {
            "reason": reason,
            "cancelledAt": isoformat_z(now),
            "actor": caller.actor_id,
        }
        await stop_before_payout(session, transfer=transfer, legs=legs, target=target, now=now)
        return TransferWithLegs(transfer, legs)
    target = states.approved_status(funds_received=_funds_received(transfer))
    await lifecycle.set_status(session, transfer, legs, target, now=now)
    schedule_next_step(transfer, now=now)
    return TransferWithLegs(transfer, legs)
