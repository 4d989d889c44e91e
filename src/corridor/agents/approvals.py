"""An owner's decision on an agent draft parked for approval (spec 3.1, 3.2, 4.1).

APPROVE submits the draft as a submit would, skipping only the spend limits (the
payment then counts toward the agent's spend); DECLINE cancels it with the reason on
its cancellation. Both lock the agent's row, so an owner's decisions on one agent run one
at a time; an approved payment is added to the agent's spend counters past its limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents import repository, service, spend
from corridor.agents.enforcement import destination_allowed, is_new_payee, limits_of, payees_of
from corridor.agents.errors import AgentApprovalRefused, NotAwaitingApproval
from corridor.agents.mandates import service as mandates
from corridor.agents.rules import AgentStatus, ApprovalDecision, NewPayeeAction
from corridor.audit import service as audit
from corridor.audit.rules import AuditKind, AuditOutcome
from corridor.auth.callers import Caller
from corridor.kit import metrics
from corridor.kit.clock import isoformat_z
from corridor.kit.pagination import Page, PageRequest
from corridor.models.transfer import Agent, Transfer
from corridor.receipts import service as receipts
from corridor.receipts.rules import ReceiptKind
from corridor.transfers import actions, lifecycle
from corridor.transfers import service as transfers
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.repository import TransferFilters
from corridor.transfers.rules.states import AgentApprovalStatus, TransferStatus


def approval_refusal(agent: Agent, transfer: Transfer) -> AgentApprovalRefused | None:
    """What the spend-limit skip does not cover (spec 7), checked again at approval. A
    payee the agent never paid is no reason: approving is how it becomes known."""
    if agent.status != AgentStatus.ACTIVE:
        return AgentApprovalRefused(
            f"agent_{agent.status.lower()}",
            f"Agent {agent.id} is {agent.status}; resume it before approving its payments",
        )
    if transfer.source_currency != agent.currency:
        return AgentApprovalRefused(
            "currency_mismatch",
            f"The transfer is in {transfer.source_currency}; agent {agent.id} spends "
            f"{agent.currency}",
        )
    if not destination_allowed(agent, transfer):
        return AgentApprovalRefused(
            "destination_not_allowed",
            f"The payee is no longer on agent {agent.id}'s destination allowlist",
        )
    return None


async def _audit(
    session: AsyncSession,
    caller: Caller,
    transfer: Transfer,
    outcome: AuditOutcome,
    reason: str | None,
    now: datetime,
) -> None:
    """The owner's decision on the audit chain, in the decision's transaction."""
    await audit.append(
        session,
        organization_id=caller.organization_id,
        kind=AuditKind.APPROVAL_APPROVED
        if outcome is AuditOutcome.APPROVED
        else AuditKind.APPROVAL_DECLINED,
        actor=audit.actor(caller),
        outcome=outcome,
        agent_id=transfer.agent_id,
        transfer_id=transfer.id,
        detail={
            "amount": str(transfer.source_amount),
            "currency": transfer.source_currency,
            "reason": reason,
        },
        at=now,
    )


async def decide(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    decision: ApprovalDecision,
    reason: str | None,
    plugins: TransferPlugins,
    now: datetime,
) -> TransferWithLegs:
    caller.require_unrestricted("approve or decline agent payments")
    found = await lifecycle.load(session, caller=caller, transfer_id=transfer_id)
    transfer, legs = found.transfer, found.legs
    if (
        transfer.status != TransferStatus.DRAFT
        or transfer.agent_approval_status != AgentApprovalStatus.PENDING
    ):
        raise NotAwaitingApproval(transfer.id, transfer.status, transfer.agent_approval_status)
    assert transfer.agent_id is not None, "only an agent's submit parks a draft"
    agent = await repository.lock_agent(session, transfer.agent_id)
    assert agent is not None
    if decision == ApprovalDecision.DECLINE:
        metrics.after_commit(session, metrics.AGENT_DECISIONS.labels("declined", "").inc)
        transfer.agent_approval_status = AgentApprovalStatus.DECLINED.value
        transfer.cancellation = {
            "reason": reason,
            "cancelledAt": isoformat_z(now),
            "actor": caller.actor_id,
        }
        await actions.stop_before_payout(
            session, transfer=transfer, legs=legs, target=TransferStatus.CANCELLED, now=now
        )
        await receipts.issue(session, transfer=transfer, kind=ReceiptKind.DECLINED, now=now)
        # The chain's head last: it is the organization's one row every agent decision
        # locks, so it is taken after the agent's and the account's rows, as a submit does.
        await _audit(session, caller, transfer, AuditOutcome.DECLINED, reason, now)
        return TransferWithLegs(transfer, legs)
    refusal = approval_refusal(agent, transfer)
    if refusal is not None:
        raise refusal
    transfer.agent_approval_status = AgentApprovalStatus.APPROVED.value
    metrics.after_commit(session, metrics.AGENT_DECISIONS.labels("approved", "").inc)
    submitted = await actions.submit(
        session, caller=caller, transfer=transfer, legs=legs, plugins=plugins, now=now
    )
    assert isinstance(submitted, TransferWithLegs), "an owner's approval is never held again"
    # The mandate the draft named, consumed now (refused, all rolled back, when it no
    # longer admits the payment).
    await mandates.consume_on_approval(
        session, agent=agent, transfer=transfer, payees=payees_of(transfer), now=now
    )
    await receipts.issue(session, transfer=transfer, kind=ReceiptKind.APPROVED, now=now)
    await _audit(session, caller, transfer, AuditOutcome.APPROVED, reason, now)  # head last
    return submitted


@dataclass(frozen=True, slots=True)
class PendingApproval:
    """A parked agent payment as an owner sees it before deciding: the agent, what it has
    spent in the windows of now, and the limit the payment breaks (None when it would fit
    now, e.g. a new day began since it was parked); `new_payee` when it pays a payee the
    agent never paid and the agent's newPayeeAction asks for approval."""

    found: TransferWithLegs
    agent: Agent
    usage: spend.Usage
    denial: spend.Denial | None
    new_payee: bool = False

    @property
    def over_minor(self) -> int | None:
        """By how much the payment goes over the broken limit, in minor units (None for
        the daily payment count, which is no amount)."""
        denial = self.denial
        if denial is None or denial.counts_payments:
            return None
        return (denial.used_minor or 0) + denial.attempted_minor - denial.limit_minor


async def pending_approvals(
    session: AsyncSession, *, caller: Caller, page: PageRequest, now: datetime
) -> Page[PendingApproval]:
    """Agent payments parked for approval (DRAFT, agentApprovalStatus PENDING), newest
    first, each with the limit it breaks as of `now`."""
    caller.require_unrestricted("approve or decline agent payments")
    parked = await transfers.list_transfers(
        session,
        caller=caller,
        filters=TransferFilters(
            status=TransferStatus.DRAFT.value,
            agent_approval_status=AgentApprovalStatus.PENDING.value,
        ),
        page=page,
    )
    agents: dict[str, tuple[Agent, spend.Usage]] = {}
    items = []
    for found in parked.items:
        agent_id = found.transfer.agent_id
        assert agent_id is not None, "only an agent's submit parks a draft"
        if agent_id not in agents:
            agent = await service.get_agent(session, caller=caller, agent_id=agent_id)
            agents[agent_id] = (agent, await service.usage_of(session, agent, now=now))
        agent, usage = agents[agent_id]
        denial = spend.evaluate(
            limits_of(agent), usage, attempted_minor=found.transfer.source_amount, now=now
        )
        new_payee = agent.new_payee_action == NewPayeeAction.REQUEST_APPROVAL and (
            await is_new_payee(session, agent, found.transfer)
        )
        items.append(PendingApproval(found, agent, usage, denial, new_payee))
    return Page(items=items, next_cursor=parked.next_cursor, has_more=parked.has_more)
