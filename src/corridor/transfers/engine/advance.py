"""The transfer engine: a worker task that advances due transfers one leg step at a time.

A transfer is due when `next_step_at` has come: PENDING with nothing to wait for, or
PROCESSING. Each step runs in its own transaction: claim the transfer (FOR UPDATE SKIP
LOCKED on PostgreSQL, so workers never share one), do one thing to its current leg —
complete a book leg, submit a rail leg, or poll a submitted one — and commit the leg's
status, the ledger entry and the events together. Legs run strictly in sequence.

A rail that raises is retried `rail_attempts_max` times, `rail_retry_s` apart, before
the leg fails; a leg that fails fails the transfer, and the money goes back (the
completed legs are unwound, then refunds.py returns the source amount).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit import db, metrics, stopping
from corridor.kit.clock import Clock, Moments
from corridor.kit.db import Database
from corridor.kit.logging import get_logger
from corridor.models import clock as sandbox_clocks
from corridor.models.transfer import Transfer, TransferLeg
from corridor.rails.base import RailName, RailStatus, Submission, rails_for_currency
from corridor.rails.registry import adapter_for
from corridor.transfers import events, lifecycle, repository, system
from corridor.transfers.deposits import instructions
from corridor.transfers.engine import rail_io
from corridor.transfers.money import postings
from corridor.transfers.returns import refunds, returns
from corridor.transfers.rules.flows import Flow, LegType, fee_payout_legs, is_chain, is_stablecoin
from corridor.transfers.rules.states import LegStatus, TransferStatus

logger = get_logger(__name__)

steps_per_pass_max = 500
rail_poll_interval_s = 30
rail_retry_s = 60
rail_attempts_max = 5
BOOK_LEGS = frozenset(
    {LegType.COLLECT_FEE, LegType.CONVERT, LegType.BRIDGE, LegType.CREDIT_BALANCE}
)
RAIL_LEGS = frozenset({LegType.PAYOUT_FIAT, LegType.WITHDRAW_CRYPTO, LegType.REFUND})
S = TransferStatus


async def advance_transfers(
    database: Database, clock: Clock, *, organization_id: str | None = None
) -> int:
    """One pass: step due transfers until none is due (at most `steps_per_pass_max`)."""
    async with database.session(write=False) as session:
        # Organizations whose sandbox clock was advanced step by their own time.
        shifts = await sandbox_clocks.shifts(session, organization_id=organization_id)
        moments = Moments.at(clock.now(), shifts)
        due = await repository.any_due(session, now=moments, organization_id=organization_id)
    if not due:  # no write transaction (nor SQLite's write lock) for an idle pass
        return 0
    steps = 0
    while steps < steps_per_pass_max and not stopping.stopping():
        claimed: str | None = None
        moments = Moments.at(clock.now(), shifts)
        now = moments.default
        try:
            async with database.session() as session, session.begin():
                transfer = await repository.claim_due_transfer(
                    session, now=moments, organization_id=organization_id
                )
                if transfer is None:
                    break
                claimed = transfer.id
                now = moments.of(transfer.organization_id)
                _note_claim_delay(session, transfer, now)
                await step(session, transfer, now=now)
        except Exception:
            if claimed is None:
                raise
            logger.exception("transfer_step_failed", transfer_id=claimed)
            await _defer(database, claimed, until=now + timedelta(seconds=rail_retry_s))
        steps += 1
    return steps


def _note_claim_delay(session: AsyncSession, transfer: Transfer, now: datetime) -> None:
    """How late the step was taken (corridor_worker_claim_delay_seconds), once committed."""
    if transfer.next_step_at is not None:
        delay = max(0.0, (now - transfer.next_step_at).total_seconds())
        waited = metrics.WORKER_CLAIM_DELAY.labels("transfer_engine")
        metrics.after_commit(session, lambda: waited.observe(delay))


async def _defer(database: Database, transfer_id: str, *, until: datetime) -> None:
    """A step that broke is retried later, so one bad transfer never blocks the rest."""
    async with database.session() as session, session.begin():
        transfer = await repository.transfer_by_id(session, transfer_id, for_update=True)
        if transfer is not None and transfer.next_step_at is not None:
            transfer.next_step_at = until


async def step(session: AsyncSession, transfer: Transfer, *, now: datetime) -> None:
    """Do the next thing the transfer needs; leaves `next_step_at` set for the next one.
    A rail that keeps rows of its own (bank files) writes them in this transaction."""
    with db.unit_of_work(session):
        await _step(session, transfer, now=now)


async def _step(session: AsyncSession, transfer: Transfer, *, now: datetime) -> None:
    legs = await repository.legs_of(session, transfer.id)
    if transfer.status not in (S.PENDING, S.PROCESSING) or transfer.funding_needed:
        transfer.next_step_at = None
        return
    leg = lifecycle.current_leg(legs)
    if leg is None:
        await _complete(session, transfer, legs, now=now)
    elif leg.status == LegStatus.PENDING:
        await _start(session, transfer, legs, leg, now=now)
    elif leg.status == LegStatus.PROCESSING:
        await _poll(session, transfer, legs, leg, now=now)
    else:  # a FAILED or CANCELLED leg on a live transfer: nothing the engine can do
        logger.error("transfer_leg_stuck", transfer_id=transfer.id, leg_id=leg.id)
        transfer.next_step_at = None


async def _moving(
    session: AsyncSession, transfer: Transfer, legs: list[TransferLeg], now: datetime
) -> None:
    """The first step that moves money takes a PENDING transfer to PROCESSING."""
    if transfer.status == S.PENDING:
        await lifecycle.set_status(session, transfer, legs, S.PROCESSING, now=now)
    transfer.next_step_at = now


async def _start(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    now: datetime,
) -> None:
    leg_type = LegType(leg.type)
    if leg_type == LegType.DEBIT_BALANCE:
        await postings.capture_hold(session, transfer=transfer, now=now)
        transfer.funds_received_at = now
        lifecycle.set_leg_status(session, transfer, legs, leg, LegStatus.COMPLETED, now=now)
    elif leg_type in BOOK_LEGS:
        await postings.complete_leg(session, transfer=transfer, leg=leg, now=now)
        lifecycle.set_leg_status(session, transfer, legs, leg, LegStatus.COMPLETED, now=now)
    elif leg_type in RAIL_LEGS or transfer.source.get("direction") == "DEBIT":
        if not await _submit(session, transfer, legs, leg, now=now):
            return
    else:  # a deposit not yet arrived: the deposit, not the engine, moves it on
        transfer.next_step_at = None
        return
    await _moving(session, transfer, legs, now)
    await _complete_after_last_leg(session, transfer, legs, now=now)


async def _submit(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    now: datetime,
) -> bool:
    instruction = await rail_io.instruction_for(session, transfer=transfer, leg=leg, now=now)
    try:
        submission = await adapter_for(instruction.rail).submit(instruction, now=now)
    except Exception as error:
        await _rail_trouble(session, transfer, legs, leg, error, now=now)
        return False
    rail_io.record_submission(transfer, leg, submission)
    leg.rail_attempts = 0
    lifecycle.set_leg_status(session, transfer, legs, leg, LegStatus.PROCESSING, now=now)
    if refunds.is_refund(transfer):
        await refunds.follow_refund(session, child=transfer, legs=legs, now=now)
    return True


async def _poll(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    now: datetime,
) -> None:
    assert leg.submission is not None
    submission = rail_io.submission_of(leg.submission)
    adapter = adapter_for(rail_io.rail_of(leg))
    try:
        status = await adapter.status(submission, now=now)
    except Exception as error:
        await _rail_trouble(session, transfer, legs, leg, error, now=now)
        return
    if status == RailStatus.SETTLED:
        await settle_leg(session, transfer, legs, leg, now=now)
    elif status == RailStatus.RETURNED:
        await leg_returned(
            session, transfer, legs, leg, reason="the rail reported RETURNED", now=now
        )
    elif status == RailStatus.FAILED:
        reason = await _failure_reason(adapter, submission) or f"the rail reported {status}"
        await fail(session, transfer, legs, leg, reason=reason, now=now)
    else:
        transfer.next_step_at = now + timedelta(seconds=rail_poll_interval_s)


async def _failure_reason(adapter: object, submission: Submission) -> str | None:
    """The rail's own words for a failure, where it keeps them (a chain's revert reason)."""
    explain = getattr(adapter, "failure_reason", None)
    return await explain(submission) if explain is not None else None


async def _rail_trouble(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    error: Exception,
    *,
    now: datetime,
) -> None:
    leg.rail_attempts += 1
    logger.warning("rail_call_failed", leg_id=leg.id, attempt=leg.rail_attempts, error=repr(error))
    if leg.rail_attempts >= rail_attempts_max:
        await fail(session, transfer, legs, leg, reason=f"the rail refused: {error}", now=now)
        return
    transfer.next_step_at = now + timedelta(seconds=rail_retry_s)


async def settle_leg(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    now: datetime,
) -> None:
    """A submitted rail leg has settled: post its money and complete it."""
    if leg.type == LegType.DEPOSIT_FIAT:  # a pull arrived
        await postings.receive_funds(session, transfer=transfer, from_balance_id=None, now=now)
        transfer.funds_received_at = now
    else:
        await postings.complete_leg(session, transfer=transfer, leg=leg, now=now)
    lifecycle.set_leg_status(session, transfer, legs, leg, LegStatus.COMPLETED, now=now)
    await _moving(session, transfer, legs, now)
    await _complete_after_last_leg(session, transfer, legs, now=now)


async def _complete_after_last_leg(
    session: AsyncSession, transfer: Transfer, legs: list[TransferLeg], *, now: datetime
) -> None:
    """Every leg COMPLETED → the transfer is COMPLETED in the same transaction (API.md §6),
    so no reader ever sees a PROCESSING transfer with nothing left to do."""
    if lifecycle.current_leg(legs) is None:
        await _complete(session, transfer, legs, now=now)


async def fail(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    reason: str,
    now: datetime,
) -> None:
    """The leg failed: the transfer fails and its money goes back where it came from."""
    lifecycle.set_leg_status(session, transfer, legs, leg, LegStatus.FAILED, now=now, reason=reason)
    await postings.release_hold(session, transfer=transfer, now=now)
    if refunds.is_refund(transfer):  # a refund that fails is not refunded again
        await refunds.refund_failed(session, child=transfer, now=now)
    elif transfer.funds_received_at is not None and transfer.flow != Flow.FEE_CRYPTO:
        await postings.unwind(session, transfer=transfer, legs=legs, now=now)
        await refunds.return_received_funds(
            session,
            transfer=transfer,
            send_back=refunds.refund_address(transfer) is not None,
            reason=f"{leg.type} failed: {reason}",
            now=now,
        )
    transfer.system_remark = (f"Failed at {leg.type}: {reason}. " + (transfer.system_remark or ""))[
        :500
    ].strip()
    lifecycle.cancel_open_legs(legs, now=now)
    await lifecycle.set_status(session, transfer, legs, S.FAILED, now=now)
    if refunds.is_refund(transfer):
        await refunds.follow_refund(session, child=transfer, legs=legs, now=now)
    else:
        refunds.announce_refund(session, transfer=transfer, legs=legs, now=now)


async def leg_returned(
    session: AsyncSession,
    transfer: Transfer,
    legs: list[TransferLeg],
    leg: TransferLeg,
    *,
    reason: str,
    now: datetime,
) -> None:
    """The receiving side sent a payout back (or the payer's bank a pull): a settled one
    reverses its COMPLETED transfer (returns.py); one not yet settled is a failure of that
    leg."""
    if leg.status == LegStatus.COMPLETED and leg.type == LegType.DEPOSIT_FIAT:
        await returns.reverse_pull(session, transfer, legs, leg, reason=reason, now=now)
    elif leg.status == LegStatus.COMPLETED:
        await returns.reverse_completed(session, transfer, legs, leg, reason=reason, now=now)
    else:
        await fail(session, transfer, legs, leg, reason=reason, now=now)


async def _complete(
    session: AsyncSession, transfer: Transfer, legs: list[TransferLeg], *, now: datetime
) -> None:
    if transfer.status == S.PENDING:
        await lifecycle.set_status(session, transfer, legs, S.PROCESSING, now=now)
    await lifecycle.set_status(session, transfer, legs, S.COMPLETED, now=now)
    if refunds.is_refund(transfer):
        await refunds.follow_refund(session, child=transfer, legs=legs, now=now)
    elif transfer.flow == Flow.FEE_CRYPTO:
        await _fee_paid(session, transfer, legs, now=now)
    elif transfer.developer_fee_amount and is_stablecoin(transfer.source_currency):
        await _start_fee_payout(session, transfer, now=now)


# --- FEE_CRYPTO ---------------------------------------------------------------------------


def _fee_chain(transfer: Transfer) -> str:
    """The chain the fee leaves on: the transfer's own chain when it carries the coin."""
    carriers = [
        rail.value for rail in rails_for_currency(transfer.source_currency) if is_chain(rail)
    ]
    for rail in (transfer.source.get("paymentRail"), transfer.destination.get("paymentRail")):
        if rail in carriers:
            return rail
    preferred = RailName.BASE.value
    return preferred if preferred in carriers else carriers[0]


async def _start_fee_payout(session: AsyncSession, parent: Transfer, *, now: datetime) -> None:
    """On a crypto flow the collected developer fee is paid out on-chain by a system-made
    FEE_CRYPTO transfer (FEES → RAIL_SETTLEMENT when its WITHDRAW_CRYPTO leg settles)."""
    code, amount = parent.source_currency, parent.developer_fee_amount
    assert amount
    chain = _fee_chain(parent)
    address = instructions.sandbox_address(f"developer-fees:{parent.organization_id}", chain)
    (plan,) = fee_payout_legs(code, chain)
    await system.start_system_transfer(
        session,
        parent=parent,
        flow=Flow.FEE_CRYPTO,
        leg_type=plan.type,
        input_rail=plan.input_rail,
        output_rail=plan.output_rail,
        source={
            "currency": code,
            "fundingCurrency": code,
            "paymentRail": chain,
            "accountType": "FEES",
        },
        destination={
            "currency": code,
            "paymentRail": chain,
            "accountType": "EXTERNAL_WALLET",
            "toAddress": address,
            "accountName": "Developer fee wallet",
        },
        source_amount=amount,
        now=now,
    )


async def _fee_paid(
    session: AsyncSession, child: Transfer, legs: list[TransferLeg], *, now: datetime
) -> None:
    """The fee payout's hash shows on the transfer that collected the fee."""
    assert child.parent_transfer_id is not None
    parent = await repository.transfer_by_id(session, child.parent_transfer_id, for_update=True)
    if parent is None:
        return
    parent_legs = await repository.legs_of(session, parent.id)
    parent.developer_fee_tx_hash = child.tx_hash
    for leg in parent_legs:
        if leg.type == LegType.COLLECT_FEE:
            leg.fee_tx_hash = child.tx_hash
            leg.updated_at = now
    parent.updated_at = now
    events.transfer_event(session, events.UPDATED, transfer=parent, legs=parent_legs, now=now)
