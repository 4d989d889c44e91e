"""What an agent may spend, checked where every submit goes through: `AgentSpendGuard` is
a submit guard of transfers/plugins.py, run by transfers/actions.py `submit`.

The spend is the agent's counters (transfers/spending.py): read, evaluated, then added to
in one guarded statement each for the day and the month, so concurrent submits in any
number of processes never overspend together (each waits on the window's row from its
add to its commit). Order of the checks: the agent must be ACTIVE (`agent_inactive`), the transfer in the
currency of its limits (`agent_currency_mismatch`), the payee on its allowlist
(`agent_destination_not_allowed`), then the spend limits: over one, the submit is refused
(`agent_limit_exceeded`) or, for REQUEST_APPROVAL agents, the draft is parked for an
owner's decision (`agent_approval_required`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents import repository, service, spend
from corridor.agents.errors import (
    AgentApprovalRequired,
    AgentCurrencyMismatch,
    AgentDestinationNotAllowed,
    AgentInactive,
    AgentLimitExceeded,
)
from corridor.agents.rules import AgentStatus, OverLimitAction, PayeeType
from corridor.audit import service as audit
from corridor.audit.rules import AuditKind, AuditOutcome
from corridor.auth.callers import Caller, CallerKind
from corridor.kit import metrics
from corridor.kit.errors import CorridorError, ServiceUnavailable
from corridor.models.transfer import Agent, Transfer, TransferLeg
from corridor.transfers import spending
from corridor.transfers.plugins import HoldForApproval

# A submit reads the spend and adds to it guarded; an add refused although the read said
# it fits (spend taken back in between) reads and tries again, this often at most.
spend_attempts_max = 5


def payees_of(transfer: Transfer) -> set[tuple[str, str]]:
    """The allowlist entries that would admit the transfer's destination: the external
    account or wallet it names, and the counterparty it pays."""
    payees: set[tuple[str, str]] = set()
    party_id = transfer.destination_request.get("externalAccountId")
    if party_id:
        kind = (
            PayeeType.EXTERNAL_WALLET if party_id.startswith("ewa_") else PayeeType.EXTERNAL_ACCOUNT
        )
        payees.add((kind.value, party_id))
    if transfer.counterparty_id:
        payees.add((PayeeType.COUNTERPARTY.value, transfer.counterparty_id))
    return payees


def destination_allowed(agent: Agent, transfer: Transfer) -> bool:
    allowed = {(entry["type"], entry["id"]) for entry in agent.destination_allowlist}
    return bool(payees_of(transfer) & allowed)


def limits_of(agent: Agent) -> spend.Limits:
    return spend.Limits(
        per_transfer_minor=agent.per_transfer_limit,
        daily_minor=agent.daily_limit,
        monthly_minor=agent.monthly_limit,
    )


def decision_code(error: CorridorError) -> str:
    """The refusal's code as a metric label: the limit's own code when it carries one."""
    denial = error.extra.get("denial")
    code = denial.get("code") if isinstance(denial, dict) else None
    return metrics.bounded(code or error.code)


def _denial_code(error: CorridorError) -> str:
    """The refusal's code for the audit chain: the broken limit's own when it has one."""
    denial = error.extra.get("denial")
    code = denial.get("code") if isinstance(denial, dict) else None
    return str(code or error.code)


def _payment_detail(transfer: Transfer) -> dict[str, object]:
    return {"amount": transfer.source_amount, "currency": transfer.source_currency}


class AgentSpendGuard:
    """Spec 5.4 and 7 on every submit by an agent key; other callers pass untouched."""

    def concerns(self, *, caller: Caller, transfer: Transfer) -> bool:
        return caller.kind is CallerKind.AGENT_KEY

    async def check_submit(
        self,
        session: AsyncSession,
        *,
        caller: Caller,
        transfer: Transfer,
        legs: list[TransferLeg],
        now: datetime,
    ) -> HoldForApproval | None:
        """The checks of the module docstring; the spend is added to the agent's counters
        here, guarded by its limits (the window rows stay locked until the submit's
        transaction ends). Over a limit: refused, or for REQUEST_APPROVAL agents
        held for an owner's approval (the draft is kept, parked). Each decision is counted
        (`corridor_agent_decisions_total`): a refusal at once, the others once committed."""
        if caller.kind is not CallerKind.AGENT_KEY:
            return None
        try:
            held = await self._check(session, caller=caller, transfer=transfer, now=now)
        except CorridorError as refused:
            metrics.AGENT_DECISIONS.labels("denied", decision_code(refused)).inc()
            # Rolled back with the submit: recorded after, in its own transaction.
            audit.defer_until_rollback(
                refused,
                audit.Deferred(
                    organization_id=caller.organization_id,
                    kind=AuditKind.PAYMENT_DENIED,
                    actor=audit.actor(caller),
                    outcome=AuditOutcome.DENIED,
                    at=now,
                    agent_id=caller.agent_id,
                    transfer_id=transfer.id,
                    detail={**_payment_detail(transfer), "code": _denial_code(refused)},
                ),
            )
            raise
        await audit.append(
            session,
            organization_id=caller.organization_id,
            kind=AuditKind.PAYMENT_ALLOWED if held is None else AuditKind.PAYMENT_PARKED,
            actor=audit.actor(caller),
            outcome=AuditOutcome.ALLOWED if held is None else AuditOutcome.PARKED,
            agent_id=caller.agent_id,
            transfer_id=transfer.id,
            detail=_payment_detail(transfer)
            if held is None
            else {**_payment_detail(transfer), "code": _denial_code(held.refusal)},
            at=now,
        )
        counted = (
            metrics.AGENT_DECISIONS.labels("allowed", "")
            if held is None
            else metrics.AGENT_DECISIONS.labels("parked", decision_code(held.refusal))
        )
        metrics.after_commit(session, counted.inc)
        return held

    async def _check(
        self, session: AsyncSession, *, caller: Caller, transfer: Transfer, now: datetime
    ) -> HoldForApproval | None:
        assert caller.agent_id is not None
        agent = await repository.agent_by_id(session, caller.agent_id)
        assert agent is not None, "an agent key always speaks for an existing agent"
        if agent.status != AgentStatus.ACTIVE:
            raise AgentInactive(agent.id, agent.status)
        if transfer.source_currency != agent.currency:
            raise AgentCurrencyMismatch(
                transfer_currency=transfer.source_currency, agent_currency=agent.currency
            )
        if not destination_allowed(agent, transfer):
            raise AgentDestinationNotAllowed(agent.id)
        transfer.agent_id = agent.id
        limits = limits_of(agent)
        for _ in range(spend_attempts_max):
            usage = await service.usage_of(session, agent, now=now)
            denial = spend.evaluate(limits, usage, attempted_minor=transfer.source_amount, now=now)
            if denial is not None:
                break
            # Counted now, guarded by the limits in the statement itself: a submit that
            # committed since the read above makes it add nothing, and the read again
            # tells by how much the limit is broken.
            if await spending.add(
                session,
                agent_id=agent.id,
                currency=agent.currency,
                amount=transfer.source_amount,
                at=now,
                now=now,
                day_limit=limits.daily_minor,
                month_limit=limits.monthly_minor,
            ):
                return None
        else:  # spend taken back as often as added in between: never, in practice
            raise ServiceUnavailable("The agent's spend changed too often to decide; retry")
        if agent.over_limit_action == OverLimitAction.REQUEST_APPROVAL:
            refusal = AgentApprovalRequired(denial, agent.currency, transfer_id=transfer.id)
            return HoldForApproval(refusal)
        raise AgentLimitExceeded(denial, agent.currency)

    async def submitted(
        self, session: AsyncSession, *, caller: Caller, transfer: Transfer, now: datetime
    ) -> None:
        """An agent's transfer submitted by someone else (its owner's approval, or its
        organization submitting its draft) counts toward its spend all the same, past the
        limits; the agent's own submit was counted by `check_submit`."""
        if transfer.agent_id is None or caller.kind is CallerKind.AGENT_KEY:
            return
        assert transfer.submitted_at is not None
        await spending.add(
            session,
            agent_id=transfer.agent_id,
            currency=transfer.source_currency,
            amount=transfer.source_amount,
            at=transfer.submitted_at,
            now=now,
        )
