"""Agent mandates: create (owner only), read, revoke, and their consumption by an
agent's payments (called from agents/enforcement.py's guard and agents/approvals.py).

A payment's mandate is the live mandate of its agent whose payees include the
transfer's payee; two ACTIVE mandates of one agent never share a payee in overlapping
windows (409 `mandate_overlap`), so at most one is live for a payee at any time. An
agent with `requireMandate` pays only under a mandate. Without it, a payment to a payee
of an ACTIVE mandate consumes it and is refused when it would break it (per payment,
budget, uses); a payee under no live mandate pays as before. A consumption is one
guarded UPDATE in the submit's own transaction (repository.consume), with its events.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents import repository as agents_repository
from corridor.agents import service as agents
from corridor.agents.errors import AgentApprovalRefused
from corridor.agents.mandates import repository
from corridor.agents.mandates.errors import MandateDenied, MandateOverlap
from corridor.agents.mandates.rules import (
    MandateDenial,
    MandateDenialCode,
    MandatePayeeType,
    MandateStatus,
    MandateTerms,
    Recurrence,
    choose,
    denial_of,
    payee_keys,
    period_start,
    status_now,
    windows_overlap,
)
from corridor.agents.mandates.schemas import MandateCreate, MandateRead
from corridor.agents.rules import AgentStatus, PayeeType
from corridor.agents.schemas import AllowlistEntry
from corridor.audit import rules as audit_rules
from corridor.audit import service as audit
from corridor.audit.rules import AuditKind, AuditOutcome
from corridor.auth.callers import Caller, CallerKind
from corridor.kit.clock import Clock, Moments
from corridor.kit.db import Database, forget_absent, get_visible
from corridor.kit.errors import Forbidden, InvalidState, ServiceUnavailable, ValidationFailed
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models import clock as sandbox_clocks
from corridor.models.event import emit
from corridor.models.mandate import AgentMandate
from corridor.models.transfer import Agent, Transfer

MANDATE_CREATED = "agent.mandate.created"
MANDATE_CONSUMED = "agent.mandate.consumed"
MANDATE_EXHAUSTED = "agent.mandate.exhausted"
MANDATE_EXPIRED = "agent.mandate.expired"
# Mandates the worker's sweep expires in one transaction at most (the rest: next pass).
expire_batch_max = 100
MANDATE_REVOKED = "agent.mandate.revoked"
# A consumption whose guard refused although the read said it fits (another payment
# consumed in between) reads again, this often at most.
consume_attempts_max = 5
_PREFIXES = {
    MandatePayeeType.COUNTERPARTY: "cp",
    MandatePayeeType.EXTERNAL_ACCOUNT: "ext",
    MandatePayeeType.EXTERNAL_WALLET: "ewa",
}
# Without requireMandate, these say only that no live mandate concerns the payee.
_UNBINDING = frozenset(
    {
        MandateDenialCode.REQUIRED,
        MandateDenialCode.PAYEE,
        MandateDenialCode.REVOKED,
        MandateDenialCode.EXPIRED,
        MandateDenialCode.NOT_YET_VALID,
    }
)


def _emit(session: AsyncSession, event_type: str, mandate: AgentMandate, now: datetime) -> None:
    emit(
        session,
        organization_id=mandate.organization_id,
        event_type=event_type,
        data=MandateRead.of(mandate, now).to_json_dict(),
        tags=[mandate.id, mandate.agent_id],
        at=now,
    )


# The mandate events that are also agent decisions of the audit chain (audit/).
_AUDITED = {
    MANDATE_CREATED: (AuditKind.MANDATE_CREATED, AuditOutcome.CREATED),
    MANDATE_CONSUMED: (AuditKind.MANDATE_CONSUMED, AuditOutcome.CONSUMED),
    MANDATE_REVOKED: (AuditKind.MANDATE_REVOKED, AuditOutcome.REVOKED),
}


async def _announce(
    session: AsyncSession,
    event_type: str,
    mandate: AgentMandate,
    *,
    actor: dict[str, str],
    now: datetime,
    transfer_id: str | None = None,
) -> None:
    """The change's event, and its record in the organization's audit chain, both in its
    transaction."""
    _emit(session, event_type, mandate, now)
    kind, outcome = _AUDITED[event_type]
    await audit.append(
        session,
        organization_id=mandate.organization_id,
        kind=kind,
        actor=actor,
        outcome=outcome,
        agent_id=mandate.agent_id,
        transfer_id=transfer_id,
        mandate_id=mandate.id,
        detail={
            "status": mandate.status,
            "used": str(mandate.used),
            "uses": mandate.uses,
            "budget": str(mandate.budget_amount),
            "maxUses": mandate.max_uses,
        },
        at=now,
    )


def _require_owner(caller: Caller, action: str) -> None:
    if caller.kind is CallerKind.AGENT_KEY:
        raise Forbidden(f"An agent key cannot {action}")
    caller.require_unrestricted(action)


# --- Reading ------------------------------------------------------------------------------


async def list_mandates(
    session: AsyncSession, *, caller: Caller, agent_id: str, page: PageRequest
) -> Page[AgentMandate]:
    """The agent's mandates, newest first (an agent key: its own agent only)."""
    agent = await agents.get_agent(session, caller=caller, agent_id=agent_id)
    statement = repository.visible_mandates(caller, agent_id=agent.id)
    return await fetch_page(session, statement, AgentMandate.id, page)


async def get_mandate(session: AsyncSession, *, caller: Caller, mandate_id: str) -> AgentMandate:
    caller.require_customer_binding()
    if caller.kind is not CallerKind.AGENT_KEY:
        caller.require_scope(agents.MANAGE_SCOPE)
    return await get_visible(session, repository.visible_mandates(caller), mandate_id)


# --- Creating and revoking ----------------------------------------------------------------


async def _checked_payees(
    session: AsyncSession, caller: Caller, agent: Agent, data: MandateCreate
) -> list[dict[str, str]]:
    checked: list[dict[str, str]] = []
    for index, payee in enumerate(data.payees):
        if payee.type == MandatePayeeType.ADDRESS:
            if payee.address is None or payee.id is not None:
                raise ValidationFailed(
                    f"payees.{index}.address", "an address payee has only an address"
                )
            stored = {"type": payee.type.value, "address": payee.address}
        else:
            field = f"payees.{index}.id"
            prefix = _PREFIXES[payee.type]
            if payee.id is None or payee.address is not None:
                raise ValidationFailed(field, f"a {payee.type.value} payee has only an id")
            if not looks_like_id(payee.id, prefix):
                raise ValidationFailed(field, f"must be an id of a {payee.type.value} ({prefix}_…)")
            entry = AllowlistEntry(type=PayeeType(payee.type.value), id=payee.id)
            if await agents.payee_customer(session, caller, entry) != agent.customer_id:
                raise ValidationFailed(field, "must be a payee of the agent's customer")
            stored = {"type": payee.type.value, "id": payee.id}
        if stored not in checked:
            checked.append(stored)
    return checked


def _check_amounts(data: MandateCreate) -> tuple[int, int]:
    per_payment, budget = int(data.max_per_payment), int(data.budget.amount)
    if per_payment > budget:
        raise ValidationFailed("maxPerPayment", "must be at most the budget amount")
    return per_payment, budget


def _check_window(data: MandateCreate, now: datetime) -> tuple[datetime, datetime]:
    not_before = data.not_before or now
    if data.not_after <= now:
        raise ValidationFailed("notAfter", "must be in the future")
    if not_before >= data.not_after:
        raise ValidationFailed("notBefore", "must be before notAfter")
    return not_before, data.not_after


async def _expire_due(session: AsyncSession, mandates: list[AgentMandate], now: datetime) -> int:
    """Persist EXPIRED (with its event) on the mandates past notAfter that still say
    ACTIVE, in the caller's transaction, once each whoever gets there first (the worker's
    sweep, or the next write to the agent's mandates); how many this call expired."""
    expired = 0
    for mandate in mandates:
        if status_now(mandate.status, mandate.not_after, now) != MandateStatus.EXPIRED:
            continue
        if mandate.status == MandateStatus.ACTIVE and await repository.expire(
            session, mandate_id=mandate.id, now=now
        ):
            await session.refresh(mandate)
            _emit(session, MANDATE_EXPIRED, mandate, now)
            expired += 1
    return expired


async def expire_task(database: Database, clock: Clock) -> int:
    """The worker's sweep: ACTIVE mandates whose notAfter passed (by their organization's
    clock, the sandbox clock when moved) become EXPIRED with `agent.mandate.expired`, soon
    after the moment rather than at the agent's next payment. Workers in several processes
    each take the mandates the others do not hold (SKIP LOCKED), and the guarded UPDATE
    expires each once."""
    async with database.session(write=False) as session:
        moments = Moments.at(clock.now(), await sandbox_clocks.shifts(session))
        if not await repository.any_past_their_window(session, now=moments):
            return 0  # no write transaction (nor SQLite's write lock) for an idle pass
    async with database.session() as session, session.begin():
        found = await repository.claim_past_their_window(
            session, now=moments, limit=expire_batch_max
        )
        expired = 0
        for mandate in found:
            expired += await _expire_due(session, [mandate], moments.of(mandate.organization_id))
        return expired


async def create_mandate(
    session: AsyncSession, *, caller: Caller, agent_id: str, data: MandateCreate, now: datetime
) -> AgentMandate:
    """Owner only. The agent locked: overlap checks of one agent's mandates run one at a
    time."""
    _require_owner(caller, "create agent mandates")
    found = await agents.get_agent(session, caller=caller, agent_id=agent_id)
    agent = await agents_repository.lock_agent(session, found.id)
    assert agent is not None
    if agent.status == AgentStatus.REVOKED:
        raise InvalidState(f"Agent {agent.id} is REVOKED", current_status=agent.status)
    if data.currency != agent.currency:
        raise ValidationFailed("currency", f"must be the agent's currency, {agent.currency}")
    per_payment, budget = _check_amounts(data)
    window = _check_window(data, now)
    payees = await _checked_payees(session, caller, agent, data)
    existing = await repository.mandates_of(session, agent.id)
    await _expire_due(session, existing, now)
    keys = payee_keys(payees)
    for other in existing:
        if (
            status_now(other.status, other.not_after, now) == MandateStatus.ACTIVE
            and payee_keys(other.payees) & keys
            and windows_overlap(window, (other.not_before, other.not_after))
        ):
            raise MandateOverlap(other.id)
    recurrence = data.budget.recurrence.value
    mandate = AgentMandate(
        id=new_id("mdt"),
        organization_id=agent.organization_id,
        agent_id=agent.id,
        currency=agent.currency,
        payees=payees,
        max_per_payment=per_payment,
        budget_amount=budget,
        budget_recurrence=recurrence,
        max_uses=data.max_uses,
        uses=0,
        used=0,
        period_start=period_start(recurrence, window[0], created=window[0]),
        not_before=window[0],
        not_after=window[1],
        purpose=data.purpose,
        status=MandateStatus.ACTIVE.value,
        deactivated_reason=None,
        created_by=caller.actor_id,
        created_at=now,
        updated_at=now,
        version=1,
    )
    session.add(mandate)
    forget_absent(session, AgentMandate.__tablename__, mandate.agent_id)
    await session.flush()
    await _announce(session, MANDATE_CREATED, mandate, actor=audit.actor(caller), now=now)
    return mandate


async def revoke_mandate(
    session: AsyncSession, *, caller: Caller, mandate_id: str, now: datetime, reason: str | None
) -> AgentMandate:
    """Owner only; final. Revoking a REVOKED mandate changes nothing; an EXHAUSTED or
    EXPIRED one cannot be revoked (409)."""
    _require_owner(caller, "revoke agent mandates")
    found = await get_visible(session, repository.visible_mandates(caller), mandate_id)
    agent = await agents_repository.lock_agent(session, found.agent_id)
    assert agent is not None
    mandate = await repository.mandate_by_id(session, found.id)
    assert mandate is not None
    await _expire_due(session, [mandate], now)
    if mandate.status == MandateStatus.REVOKED:
        return mandate
    if mandate.status != MandateStatus.ACTIVE:
        raise InvalidState(
            f"Mandate {mandate.id} is {mandate.status}; it admits no payment already",
            current_status=mandate.status,
        )
    mandate.status = MandateStatus.REVOKED.value
    mandate.deactivated_reason = reason or "revoked by an owner"
    mandate.version += 1
    mandate.updated_at = now
    await session.flush()
    await _announce(session, MANDATE_REVOKED, mandate, actor=audit.actor(caller), now=now)
    return mandate


# --- Consumption --------------------------------------------------------------------------


def _terms(mandate: AgentMandate) -> MandateTerms:
    return MandateTerms(
        id=mandate.id,
        status=mandate.status,
        payees=list(mandate.payees),
        max_per_payment=mandate.max_per_payment,
        budget_amount=mandate.budget_amount,
        recurrence=mandate.budget_recurrence,
        max_uses=mandate.max_uses,
        uses=mandate.uses,
        used=mandate.used,
        period_start=mandate.period_start,
        not_before=mandate.not_before,
        not_after=mandate.not_after,
    )


def mandate_payees(transfer: Transfer, payees: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The allowlist's payee pairs (enforcement.payees_of) plus the destination address."""
    address = transfer.destination_request.get("toAddress")
    if isinstance(address, str) and address:
        return payees | {(MandatePayeeType.ADDRESS.value, address.lower())}
    return payees


async def _decide(
    session: AsyncSession,
    agent: Agent,
    payees: set[tuple[str, str]],
    *,
    amount: int,
    named: str | None,
    now: datetime,
) -> tuple[MandateTerms | None, MandateDenial | None, list[AgentMandate]]:
    mandates = await repository.mandates_of(session, agent.id)
    if named is not None:
        named_terms = next(_terms(mandate) for mandate in mandates if mandate.id == named)
        denial = denial_of(named_terms, amount=amount, now=now)
        return (None, denial, mandates) if denial else (named_terms, None, mandates)
    terms, denial = choose(
        [_terms(mandate) for mandate in mandates], payees, amount=amount, now=now
    )
    return terms, denial, mandates


def _binding(agent: Agent, denial: MandateDenial | None, named: str | None) -> bool:
    if denial is None:
        return False
    return named is not None or agent.require_mandate or denial.code not in _UNBINDING


@dataclass(frozen=True, slots=True)
class Admission:
    """What `admitting` decided from the agent's mandates as it read them: the mandate
    that would admit the payment (None: none concerns it), and the rows, which `consume`
    decides from first instead of reading them again (its guarded UPDATE re-checks)."""

    terms: MandateTerms | None
    denial: MandateDenial | None
    mandates: list[AgentMandate]

    @property
    def mandate_id(self) -> str | None:
        return None if self.terms is None else self.terms.id


async def admitting(
    session: AsyncSession,
    *,
    agent: Agent,
    transfer: Transfer,
    payees: set[tuple[str, str]],
    now: datetime,
) -> Admission:
    """The mandate that would admit the agent's payment (nothing consumed; none when
    none concerns it); MandateDenied when the payment is refused (spec 7 body)."""
    terms, denial, mandates = await _decide(
        session,
        agent,
        mandate_payees(transfer, payees),
        amount=transfer.source_amount,
        named=None,
        now=now,
    )
    if denial is not None and _binding(agent, denial, None):
        raise MandateDenied(denial, agent.currency)
    return Admission(terms, denial, mandates)


async def consume(
    session: AsyncSession,
    *,
    agent: Agent,
    transfer: Transfer,
    payees: set[tuple[str, str]],
    now: datetime,
    named: str | None = None,
    admitted: Admission | None = None,
) -> str | None:
    """Consume the mandate that admits the payment (only `named` when given: a parked
    draft's), in the caller's transaction, with its events; records it on the transfer.
    None when no mandate concerns the payment and the agent needs none; MandateDenied
    otherwise (the caller's transaction then rolls back). `admitted` (this submit's
    `admitting`) is decided from first; a mandate changed since makes the guarded UPDATE
    consume nothing, and the next attempt reads the mandates again."""
    all_payees = mandate_payees(transfer, payees)
    amount = transfer.source_amount
    for _ in range(consume_attempts_max):
        if admitted is not None and named is None:
            terms, denial, mandates = admitted.terms, admitted.denial, admitted.mandates
            admitted = None
        else:
            terms, denial, mandates = await _decide(
                session, agent, all_payees, amount=amount, named=named, now=now
            )
        if terms is None:
            assert denial is not None
            if not _binding(agent, denial, named):
                transfer.mandate_id = None
                return None
            raise MandateDenied(denial, agent.currency)
        start = (
            terms.period_start
            if terms.recurrence == Recurrence.NONE
            else max(terms.period_start, period_start(terms.recurrence, now, created=now))
        )
        consumed = await repository.consume(
            session, mandate_id=terms.id, amount=amount, period_start=start, now=now
        )
        if consumed is None:
            continue
        mandate = await repository.mandate_by_id(session, terms.id)
        assert mandate is not None
        transfer.mandate_id = mandate.id
        await _announce(
            session,
            MANDATE_CONSUMED,
            mandate,
            actor=audit_rules.actor_of("agent", agent.id),
            now=now,
            transfer_id=transfer.id,
        )
        if consumed[2] == MandateStatus.EXHAUSTED:
            _emit(session, MANDATE_EXHAUSTED, mandate, now)
        await _expire_due(session, [other for other in mandates if other.id != mandate.id], now)
        return mandate.id
    raise ServiceUnavailable("The mandate changed too often to decide; retry")


async def consume_on_approval(
    session: AsyncSession,
    *,
    agent: Agent,
    transfer: Transfer,
    payees: set[tuple[str, str]],
    now: datetime,
) -> None:
    """An owner's approval of a parked draft consumes the mandate it named (refused,
    409 agent_approval_refused, when that mandate is now expired, revoked or used up);
    a draft parked without one is checked as an agent's submit would be."""
    try:
        await consume(
            session,
            agent=agent,
            transfer=transfer,
            payees=payees,
            now=now,
            named=transfer.mandate_id,
        )
    except MandateDenied as denied:
        body: dict[str, Any] = denied.extra["denial"]
        raise AgentApprovalRefused(body["code"], body["message"]) from None
