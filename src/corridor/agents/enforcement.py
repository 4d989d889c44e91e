"""What an agent may spend, checked where every submit goes through: `AgentSpendGuard` is
a submit guard of transfers/plugins.py, run by transfers/actions.py `submit`.

The spend is the agent's counters (transfers/spending.py): read, evaluated, then added to
in one guarded statement each for the day and the month, so concurrent submits in any
number of processes never overspend together (each waits on the window's row from its
add to its commit). Order of the checks: the agent must be ACTIVE (`agent_inactive`), the transfer in the
currency of its limits (`agent_currency_mismatch`), the payee on its allowlist
(`agent_destination_not_allowed`), its mandates (agents/mandates: refused when
one that concerns the payee does not admit it, consumed once the limits admit it), then
the spend limits: over one, the submit is refused
(`agent_limit_exceeded`) or, for REQUEST_APPROVAL agents, the draft is parked for an
owner's decision (`agent_approval_required`). The limits include `dailyPaymentCount`,
counted in the same guarded statement as the day's amount. An agent whose
`newPayeeAction` is REQUEST_APPROVAL has a payment to a payee it never paid (`payee_of`;
no other transfer of it to that payee submitted and not cancelled or failed) parked for
an owner's decision (`denial.code` `new_payee`), whatever its overLimitAction, unless it
rejects over-limit submits and this one is over a limit now (then refused).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents import repository, service, spend
from corridor.agents.errors import (
    NEW_PAYEE_CODE,
    AgentApprovalRequired,
    AgentCurrencyMismatch,
    AgentDestinationNotAllowed,
    AgentInactive,
    AgentLimitExceeded,
    new_payee_body,
)
from corridor.agents.mandates import service as mandates
from corridor.agents.rules import AgentStatus, NewPayeeAction, OverLimitAction, PayeeType
from corridor.audit import service as audit
from corridor.audit.rules import AuditKind, AuditOutcome
from corridor.auth.callers import Caller, CallerKind
from corridor.kit import metrics
from corridor.kit.errors import CorridorError, ServiceUnavailable
from corridor.models.transfer import Agent, Transfer, TransferLeg
from corridor.receipts import service as receipts
from corridor.receipts.rules import ReceiptKind
from corridor.transfers import spending
from corridor.transfers.plugins import HoldForApproval
from corridor.transfers.rules.states import TransferStatus

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


# A transfer in these states does not make its payee known to the agent (newPayeeAction):
# it was declined (cancelled), cancelled or failed. Reversed ones did pay the payee.
PAYEE_UNPAID_STATUSES = (TransferStatus.CANCELLED.value, TransferStatus.FAILED.value)


def payee_of(transfer: Transfer) -> tuple[str, str] | None:
    """The payee for newPayeeAction: the external account or wallet the transfer names,
    else its counterparty (the most precise of `payees_of`)."""
    party_id = transfer.destination_request.get("externalAccountId")
    if party_id:
        kind = (
            PayeeType.EXTERNAL_WALLET if party_id.startswith("ewa_") else PayeeType.EXTERNAL_ACCOUNT
        )
        return kind.value, party_id
    if transfer.counterparty_id:
        return PayeeType.COUNTERPARTY.value, transfer.counterparty_id
    return None


async def is_new_payee(session: AsyncSession, agent: Agent, transfer: Transfer) -> bool:
    """Whether the agent never paid the transfer's payee (see PAYEE_UNPAID_STATUSES)."""
    payee = payee_of(transfer)
    if payee is None:
        return True
    return not await repository.agent_paid_payee(
        session,
        agent_id=agent.id,
        payee_id=payee[1],
        uncounted_statuses=PAYEE_UNPAID_STATUSES,
        other_than=transfer.id,
    )


def destination_allowed(agent: Agent, transfer: Transfer) -> bool:
    allowed = {(entry["type"], entry["id"]) for entry in agent.destination_allowlist}
    return bool(payees_of(transfer) & allowed)


def limits_of(agent: Agent) -> spend.Limits:
    return spend.Limits(
        per_transfer_minor=agent.per_transfer_limit,
        daily_minor=agent.daily_limit,
        monthly_minor=agent.monthly_limit,
        daily_payment_count=agent.daily_payment_count,
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
    """Amounts in minor-unit strings, as every REST amount (API.md 2)."""
    return {"amount": str(transfer.source_amount), "currency": transfer.source_currency}


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
        # Without autoflush: the guard's reads and guarded writes touch no row of the
        # transfer's own, so what it sets on the transfer goes out with the rest at the
        # submit's flush before the hold (a transfer made in this request is inserted
        # once, as submitted, not inserted and then updated).
        with session.no_autoflush:
            return await self._decided(session, caller=caller, transfer=transfer, now=now)

    async def _decided(
        self, session: AsyncSession, *, caller: Caller, transfer: Transfer, now: datetime
    ) -> HoldForApproval | None:
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
            mandate_id=transfer.mandate_id,
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
        payees = payees_of(transfer)
        admitted = await mandates.admitting(
            session, agent=agent, transfer=transfer, payees=payees, now=now
        )
        mandate_id = admitted.mandate_id
        payee = payee_of(transfer)
        transfer.agent_payee_id = payee[1] if payee else None
        limits = limits_of(agent)
        if agent.new_payee_action == NewPayeeAction.REQUEST_APPROVAL and await is_new_payee(
            session, agent, transfer
        ):
            transfer.mandate_id = mandate_id  # consumed by the owner's approval
            return await self._new_payee(session, agent, transfer, payee, now=now)
        attempted = transfer.source_amount
        for _ in range(spend_attempts_max):
            # Counted first, guarded by the limits in the statement itself (a payment that
            # breaks a limit on its own, with nothing spent yet, is not tried): the spend
            # is read only when the add is refused, to tell which limit and by how much.
            if spend.evaluate(
                limits, spend.NOTHING_SPENT, attempted_minor=attempted, now=now
            ) is None and await spending.add(
                session,
                agent_id=agent.id,
                currency=agent.currency,
                amount=attempted,
                at=now,
                now=now,
                day_limit=limits.daily_minor,
                month_limit=limits.monthly_minor,
                day_payments_limit=limits.daily_payment_count,
            ):
                if mandate_id is not None or agent.require_mandate:
                    await mandates.consume(
                        session,
                        agent=agent,
                        transfer=transfer,
                        payees=payees,
                        now=now,
                        admitted=admitted,
                    )
                return None
            usage = await service.usage_of(session, agent, now=now)
            denial = spend.evaluate(limits, usage, attempted_minor=attempted, now=now)
            if denial is not None:
                break
            # Refused, yet it fits what is spent now: a payment given back in between.
        else:  # spend taken back as often as added in between: never, in practice
            raise ServiceUnavailable("The agent's spend changed too often to decide; retry")
        if agent.over_limit_action == OverLimitAction.REQUEST_APPROVAL:
            transfer.mandate_id = mandate_id  # consumed by the owner's approval
            refusal = AgentApprovalRequired(denial, agent.currency, transfer_id=transfer.id)
            return HoldForApproval(refusal)
        raise AgentLimitExceeded(denial, agent.currency)

    async def _new_payee(
        self,
        session: AsyncSession,
        agent: Agent,
        transfer: Transfer,
        payee: tuple[str, str] | None,
        *,
        now: datetime,
    ) -> HoldForApproval:
        """Parked for an owner's approval (nothing added to the spend: the approval's
        submit counts it); refused instead when the agent rejects over-limit submits and
        this one is over a limit now."""
        if agent.over_limit_action != OverLimitAction.REQUEST_APPROVAL:
            usage = await service.usage_of(session, agent, now=now)
            denial = spend.evaluate(
                limits_of(agent), usage, attempted_minor=transfer.source_amount, now=now
            )
            if denial is not None:
                raise AgentLimitExceeded(denial, agent.currency)
        assert payee is not None, "an allowed destination always names a payee"
        body = new_payee_body(
            payee,
            attempted_minor=transfer.source_amount,
            currency=agent.currency,
        )
        assert body["code"] == NEW_PAYEE_CODE
        refusal = AgentApprovalRequired(
            None, agent.currency, transfer_id=transfer.id, body=body, title="New payee"
        )
        return HoldForApproval(refusal)

    async def submitted(
        self, session: AsyncSession, *, caller: Caller, transfer: Transfer, now: datetime
    ) -> None:
        """An agent's transfer submitted by someone else (its owner's approval, or its
        organization submitting its draft) counts toward its spend all the same, past the
        limits (the organization's own submit also gets an APPROVED receipt and its audit
        record here); the agent's own submit was counted by `check_submit`, and gets its
        AUTHORIZED receipt here (receipts/), in the submit's transaction."""
        if caller.kind is CallerKind.AGENT_KEY and transfer.agent_id is not None:
            with session.no_autoflush:  # as check_submit
                await receipts.issue(
                    session, transfer=transfer, kind=ReceiptKind.AUTHORIZED, now=now
                )
            return
        if transfer.agent_id is None or caller.kind is CallerKind.AGENT_KEY:
            return
        payee = payee_of(transfer)
        transfer.agent_payee_id = payee[1] if payee else None
        assert transfer.submitted_at is not None
        await spending.add(
            session,
            agent_id=transfer.agent_id,
            currency=transfer.source_currency,
            amount=transfer.source_amount,
            at=transfer.submitted_at,
            now=now,
        )
        if transfer.agent_approval_status is None:
            # Its organization submitted the agent's draft itself (not through an approval,
            # which signs and records its own): the owner authorised the agent's payment.
            await receipts.issue(session, transfer=transfer, kind=ReceiptKind.APPROVED, now=now)
            await audit.append(
                session,
                organization_id=caller.organization_id,
                kind=AuditKind.APPROVAL_APPROVED,
                actor=audit.actor(caller),
                outcome=AuditOutcome.APPROVED,
                agent_id=transfer.agent_id,
                transfer_id=transfer.id,
                detail={**_payment_detail(transfer), "reason": None, "via": "submit"},
                at=now,
            )
