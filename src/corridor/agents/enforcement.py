"""What an agent may spend, checked where every submit goes through (transfers/actions.py
`submit`), under a lock on the agent row so parallel submits never overspend together.

Order of the checks: the agent must be ACTIVE (`agent_inactive`), the transfer in the
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
    AwaitingApproval,
)
from corridor.agents.schemas import AgentStatus, OverLimitAction, PayeeType
from corridor.auth.callers import Caller, CallerKind
from corridor.models.transfer import Agent, Transfer, TransferLeg
from corridor.transfers import events

PENDING = "PENDING"
APPROVED = "APPROVED"
DECLINED = "DECLINED"


def refuse_if_awaiting_approval(transfer: Transfer, action: str) -> None:
    """A draft parked for approval cannot be edited, resubmitted or cancelled (409): an
    approval always covers exactly what was asked, and only a decision moves it."""
    if transfer.agent_approval_status == PENDING:
        raise AwaitingApproval(transfer.id, action)


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


async def check_submit(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer: Transfer,
    legs: list[TransferLeg],
    now: datetime,
) -> None:
    """Called first thing by every submit. Any caller: a draft awaiting approval is frozen.
    An agent key: the checks of the module docstring, under the agent's row lock (held
    until the submit's transaction ends)."""
    refuse_if_awaiting_approval(transfer, "submitted")
    if caller.kind is not CallerKind.AGENT_KEY:
        return
    assert caller.agent_id is not None
    agent = await repository.lock_agent(session, caller.agent_id)
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
    usage = await service.usage_of(session, agent, now=now)
    denial = spend.evaluate(
        limits_of(agent), usage, attempted_minor=transfer.source_amount, now=now
    )
    if denial is None:
        return
    if agent.over_limit_action == OverLimitAction.REQUEST_APPROVAL:
        _park_for_approval(session, transfer, legs, now=now)
        raise AgentApprovalRequired(denial, agent.currency, transfer_id=transfer.id)
    raise AgentLimitExceeded(denial, agent.currency)


def _park_for_approval(
    session: AsyncSession, transfer: Transfer, legs: list[TransferLeg], *, now: datetime
) -> None:
    transfer.agent_approval_status = PENDING
    transfer.updated_at = now
    events.transfer_event(session, events.APPROVAL_REQUESTED, transfer=transfer, legs=legs, now=now)
