"""Sandbox helpers: complete a transfer now, or force its current leg's outcome.

They stand in for time passing and for rails deciding; they run the engine's own steps
in the request's transaction, so every effect (ledger, events) is the real one.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.kit.errors import NotFound
from corridor.transfers import lifecycle, repository
from corridor.transfers.deposits import receiving as deposits
from corridor.transfers.engine import advance as engine
from corridor.transfers.errors import TransferStateRefused
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.returns import returns
from corridor.transfers.rules.states import LegStatus, TransferStatus, is_terminal

WRITE_SCOPE = Scope.SANDBOX_WRITE
steps_per_leg_max = 4
S = TransferStatus


async def complete_transfer(
    session: AsyncSession, *, caller: Caller, transfer_id: str, now: datetime
) -> TransferWithLegs:
    """Fund a deposit flow with exactly the amount it asks for, if it still waits for it,
    then run every remaining leg (a leg the rail fails fails the transfer)."""
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    lifecycle.require_status(transfer, {S.PENDING, S.PROCESSING}, "completed in the sandbox")
    if transfer.funding_needed:
        await deposits.simulate_matching_deposit(session, transfer=transfer, legs=legs, now=now)
    for _ in range(steps_per_leg_max * (len(legs) + 1)):
        if is_terminal(transfer.status):
            break
        await engine.step(session, transfer, now=now)
    return TransferWithLegs(transfer, await repository.legs_of(session, transfer.id))


async def set_leg_status(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    leg_id: str,
    status: str,
    reason: str | None,
    now: datetime,
) -> TransferWithLegs:
    """Force the current leg to COMPLETED or FAILED (the engine carries on from there),
    or a payout or pull leg to RETURNED: a COMPLETED transfer is REVERSED with the money
    credited back, or for a pull taken back (returns.py); one not yet settled fails as
    with FAILED."""
    caller.require_scope(WRITE_SCOPE)
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    leg = next((leg for leg in legs if leg.id == leg_id), None)
    if leg is None:
        raise NotFound("leg", leg_id)
    if status == "RETURNED":
        problem = returns.returnable_problem(transfer, leg)
        if problem is not None:
            raise TransferStateRefused(transfer, problem)
        if transfer.status == S.COMPLETED:
            await engine.leg_returned(
                session, transfer, legs, leg, reason=reason or "returned in the sandbox", now=now
            )
            return TransferWithLegs(transfer, await repository.legs_of(session, transfer.id))
    lifecycle.require_status(transfer, {S.PENDING, S.PROCESSING}, "moved by its legs")
    if leg is not lifecycle.current_leg(legs):
        raise TransferStateRefused(
            transfer, f"only its current leg (index {transfer.current_leg_index}) can be set"
        )
    if status == "FAILED":
        await engine.fail(
            session, transfer, legs, leg, reason=reason or "failed in the sandbox", now=now
        )
    elif status == "RETURNED":
        await engine.leg_returned(
            session, transfer, legs, leg, reason=reason or "returned in the sandbox", now=now
        )
    elif transfer.funding_needed:
        await deposits.simulate_matching_deposit(session, transfer=transfer, legs=legs, now=now)
    else:
        await _complete_leg(session, transfer, legs, leg, now=now)
    return TransferWithLegs(transfer, await repository.legs_of(session, transfer.id))


async def _complete_leg(session, transfer, legs, leg, *, now: datetime) -> None:
    if leg.status == LegStatus.PENDING:
        await engine.step(session, transfer, now=now)  # book legs complete, rail legs submit
    if leg.status == LegStatus.PROCESSING:
        await engine.settle_leg(session, transfer, legs, leg, now=now)
