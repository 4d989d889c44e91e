"""Agents: create, read, update (pause and resume), revoke; their keys; their spend; and
the caller an agent key authenticates as."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.agents import repository, spend
from corridor.agents.rules import AgentStatus, PayeeType
from corridor.agents.schemas import AgentCreate, AgentRead, AgentUpdate, AllowlistEntry, LimitsIn
from corridor.audit import service as audit
from corridor.audit.rules import AuditKind, AuditOutcome
from corridor.auth import service as auth
from corridor.auth.callers import Caller, CallerKind, ToolConfirmation
from corridor.auth.scopes import AGENT_KEY_SCOPES, Scope
from corridor.auth.secrets import agent_key_secret, hash_secret, visible_prefix
from corridor.customers import service as customers
from corridor.kit.db import get_visible
from corridor.kit.errors import (
    Forbidden,
    InvalidState,
    SandboxOnly,
    Unauthorized,
    ValidationFailed,
)
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.access import ApiKey
from corridor.models.event import emit
from corridor.models.transfer import Agent
from corridor.parties import service as parties
from corridor.transfers import spending

MANAGE_SCOPE = Scope.AGENTS_MANAGE
ACTIVE_CUSTOMER = "ACTIVE"
AGENT_CREATED = "agent.created"
AGENT_UPDATED = "agent.updated"
AGENT_REVOKED = "agent.revoked"
_PAYEE_PREFIXES = {
    PayeeType.COUNTERPARTY: "cp",
    PayeeType.EXTERNAL_ACCOUNT: "ext",
    PayeeType.EXTERNAL_WALLET: "ewa",
}


# --- Who may do what ----------------------------------------------------------------------


def _require_reader(caller: Caller) -> None:
    """Agent keys read their own agent (the queries confine them); others need the scope."""
    caller.require_customer_binding()
    if caller.kind is not CallerKind.AGENT_KEY:
        caller.require_scope(MANAGE_SCOPE)


def _require_manager(caller: Caller, action: str) -> None:
    if caller.kind is CallerKind.AGENT_KEY:
        raise Forbidden(f"An agent key cannot {action}")
    caller.require_customer_binding()
    caller.require_scope(MANAGE_SCOPE)


# --- Reading ------------------------------------------------------------------------------


async def get_agent(session: AsyncSession, *, caller: Caller, agent_id: str) -> Agent:
    _require_reader(caller)
    return await get_visible(session, repository.visible_agents(caller), agent_id)


async def _agent_to_change(session: AsyncSession, caller: Caller, agent_id: str) -> Agent:
    """The agent, locked: changes of one agent never interleave with its submits."""
    found = await get_agent(session, caller=caller, agent_id=agent_id)
    locked = await repository.lock_agent(session, found.id)
    assert locked is not None
    return locked


async def list_agents(
    session: AsyncSession, *, caller: Caller, customer_id: str | None, page: PageRequest
) -> Page[Agent]:
    _require_reader(caller)
    if customer_id is not None and not looks_like_id(customer_id, "cus"):
        raise ValidationFailed("customerId", "must be a customer id (cus_…)")
    statement = repository.visible_agents(caller, customer_id=customer_id)
    return await fetch_page(session, statement, Agent.id, page)


# --- Creating and changing ----------------------------------------------------------------


def _limit(value: str | None) -> int | None:
    return None if value is None else int(value)


async def _checked_allowlist(
    session: AsyncSession, caller: Caller, customer_id: str, entries: list[AllowlistEntry]
) -> list[dict[str, str]]:
    """Each payee exists, is of its type, and is the customer's or its counterparty's."""
    checked: list[dict[str, str]] = []
    for index, entry in enumerate(entries):
        field = f"destinationAllowlist.{index}.id"
        prefix = _PAYEE_PREFIXES[entry.type]
        if not looks_like_id(entry.id, prefix):
            raise ValidationFailed(field, f"must be an id of a {entry.type.value} ({prefix}_…)")
        if await _payee_customer(session, caller, entry) != customer_id:
            raise ValidationFailed(field, "must be a payee of the agent's customer")
        stored = {"type": entry.type.value, "id": entry.id}
        if stored not in checked:
            checked.append(stored)
    return checked


async def _payee_customer(session: AsyncSession, caller: Caller, entry: AllowlistEntry) -> str:
    if entry.type == PayeeType.COUNTERPARTY:
        counterparty = await parties.get_counterparty(
            session, caller=caller, counterparty_id=entry.id
        )
        return counterparty.customer_id
    if entry.type == PayeeType.EXTERNAL_ACCOUNT:
        party: Any = await parties.get_external_account(
            session, caller=caller, external_account_id=entry.id
        )
    else:
        party = await parties.get_external_wallet(
            session, caller=caller, external_wallet_id=entry.id
        )
    if party.customer_id is not None:
        return party.customer_id
    counterparty = await parties.get_counterparty(
        session, caller=caller, counterparty_id=party.counterparty_id
    )
    return counterparty.customer_id


# Mandates (agents/mandates) check their payees as the allowlist does.
payee_customer = _payee_customer


def _emit(session: AsyncSession, event_type: str, agent: Agent, now: datetime) -> None:
    emit(
        session,
        organization_id=agent.organization_id,
        event_type=event_type,
        data=AgentRead.of(agent).to_json_dict(),
        tags=[agent.id, agent.customer_id],
        at=now,
    )


async def _audit(
    session: AsyncSession,
    caller: Caller,
    agent: Agent,
    kind: AuditKind,
    outcome: AuditOutcome,
    detail: dict[str, Any],
    now: datetime,
) -> None:
    """The change on the audit chain, in its own transaction."""
    await audit.append(
        session,
        organization_id=agent.organization_id,
        kind=kind,
        actor=audit.actor(caller),
        outcome=outcome,
        agent_id=agent.id,
        detail=detail,
        at=now,
    )


async def create_agent(
    session: AsyncSession, *, caller: Caller, data: AgentCreate, now: datetime
) -> Agent:
    """Spec 4.5: a console session or an unrestricted key; the customer ACTIVE, the funding
    account its balance account, the limits in that account's currency."""
    caller.require_unrestricted("create agents")
    customer = await customers.get_customer(session, caller=caller, customer_id=data.customer_id)
    if customer.status != ACTIVE_CUSTOMER:
        raise InvalidState(
            f"Customer {customer.id} is {customer.status}; agents spend for ACTIVE customers only",
            current_status=customer.status,
        )
    account = await accounts.get_account(session, caller=caller, account_id=data.source_account_id)
    if account.customer_id != customer.id:
        raise ValidationFailed("sourceAccountId", "must be a balance account of the customer")
    limits = data.limits or LimitsIn()
    if limits.currency is not None and limits.currency != account.currency:
        raise ValidationFailed(
            "limits.currency", f"must be the funding account's currency, {account.currency}"
        )
    agent = Agent(
        id=new_id("agt"),
        organization_id=caller.organization_id,
        customer_id=customer.id,
        source_account_id=account.id,
        name=data.name,
        description=data.description,
        currency=account.currency,
        per_transfer_limit=_limit(limits.per_transfer),
        daily_limit=_limit(limits.daily),
        monthly_limit=_limit(limits.monthly),
        daily_payment_count=limits.daily_payment_count,
        destination_allowlist=await _checked_allowlist(
            session, caller, customer.id, data.destination_allowlist
        ),
        over_limit_action=data.over_limit_action.value,
        require_mandate=data.require_mandate,
        new_payee_action=data.new_payee_action.value,
        status=AgentStatus.ACTIVE.value,
        created_by=caller.actor_id,
        created_at=now,
        updated_at=now,
        revoked_at=None,
    )
    session.add(agent)
    await session.flush()
    _emit(session, AGENT_CREATED, agent, now)
    await _audit(session, caller, agent, AuditKind.AGENT_CREATED, AuditOutcome.CREATED, {}, now)
    return agent


def _refuse_fixed_fields(agent: Agent, data: AgentUpdate) -> None:
    fixed = (
        ("customerId", data.customer_id, agent.customer_id),
        ("sourceAccountId", data.source_account_id, agent.source_account_id),
        ("limits.currency", data.limits.currency if data.limits else None, agent.currency),
    )
    for field, sent, current in fixed:
        if sent is not None and sent != current:
            raise ValidationFailed(field, "cannot be changed after the agent is created")
    for name in ("customer_id", "source_account_id"):
        if name in data.model_fields_set and getattr(data, name) is None:
            raise ValidationFailed(to_camel(name), "cannot be changed after the agent is created")


_NOT_NULLABLE = (
    "name",
    "limits",
    "destination_allowlist",
    "over_limit_action",
    "require_mandate",
    "new_payee_action",
    "status",
)


def _refuse_nulls(data: AgentUpdate) -> None:
    """Null clears `description` and single limits; the other fields cannot be null."""
    for name in _NOT_NULLABLE:
        if name in data.model_fields_set and getattr(data, name) is None:
            hint = " (send [] to admit no payee)" if name == "destination_allowlist" else ""
            raise ValidationFailed(to_camel(name), f"cannot be null{hint}")


def _limit_changes(limits: LimitsIn) -> dict[str, int | None]:
    names = {
        "per_transfer": "per_transfer_limit",
        "daily": "daily_limit",
        "monthly": "monthly_limit",
    }
    changes = {
        column: _limit(getattr(limits, name))
        for name, column in names.items()
        if name in limits.model_fields_set
    }
    if "daily_payment_count" in limits.model_fields_set:
        changes["daily_payment_count"] = limits.daily_payment_count
    return changes


async def update_agent(
    session: AsyncSession, *, caller: Caller, agent_id: str, data: AgentUpdate, now: datetime
) -> Agent:
    """Only the fields sent change; a limit change applies from the next submit. An update
    that changes nothing emits no event."""
    _require_manager(caller, "manage agents")
    agent = await _agent_to_change(session, caller, agent_id)
    if agent.status == AgentStatus.REVOKED:
        raise InvalidState(
            f"Agent {agent.id} is REVOKED; it cannot change", current_status="REVOKED"
        )
    _refuse_fixed_fields(agent, data)
    _refuse_nulls(data)
    fields = data.model_fields_set
    changes: dict[str, Any] = {}
    if data.name is not None:
        changes["name"] = data.name
    if "description" in fields:
        changes["description"] = data.description
    if data.limits is not None:
        changes.update(_limit_changes(data.limits))
    if data.destination_allowlist is not None:
        changes["destination_allowlist"] = await _checked_allowlist(
            session, caller, agent.customer_id, data.destination_allowlist
        )
    if data.over_limit_action is not None:
        changes["over_limit_action"] = data.over_limit_action.value
    if data.require_mandate is not None:
        changes["require_mandate"] = data.require_mandate
    if data.new_payee_action is not None:
        changes["new_payee_action"] = data.new_payee_action.value
    if data.status is not None:
        changes["status"] = data.status
    changed = {name: value for name, value in changes.items() if getattr(agent, name) != value}
    if changed:
        for name, value in changed.items():
            setattr(agent, name, value)
        agent.updated_at = now
        _emit(session, AGENT_UPDATED, agent, now)
        await _audit(
            session,
            caller,
            agent,
            AuditKind.AGENT_UPDATED,
            AuditOutcome.UPDATED,
            {"changed": sorted(to_camel(name) for name in changed)},
            now,
        )
    return agent


async def revoke_agent(
    session: AsyncSession, *, caller: Caller, agent_id: str, now: datetime
) -> Agent:
    """Irreversible: REVOKED, and every key of the agent revoked in the same transaction.
    Revoking a revoked agent changes nothing."""
    _require_manager(caller, "revoke agents")
    agent = await _agent_to_change(session, caller, agent_id)
    if agent.status == AgentStatus.REVOKED:
        return agent
    agent.status = AgentStatus.REVOKED.value
    agent.revoked_at = now
    agent.updated_at = now
    for key in await repository.live_keys_of(session, agent.id):
        key.revoked_at = now
    _emit(session, AGENT_REVOKED, agent, now)
    await _audit(session, caller, agent, AuditKind.AGENT_REVOKED, AuditOutcome.REVOKED, {}, now)
    return agent


# --- Keys ---------------------------------------------------------------------------------


async def create_agent_key(
    session: AsyncSession,
    *,
    caller: Caller,
    agent_id: str,
    name: str | None,
    key_environment: str,
    now: datetime,
) -> tuple[ApiKey, str]:
    """`sk_<env>_agent_…`, hashed like organization keys; the secret is returned once."""
    _require_manager(caller, "manage agent keys")
    if not all(caller.has_scope(scope) for scope in AGENT_KEY_SCOPES):
        raise Forbidden("A key cannot grant scopes its creator does not have")
    agent = await _agent_to_change(session, caller, agent_id)
    if agent.status == AgentStatus.REVOKED:
        raise InvalidState(
            f"Agent {agent.id} is REVOKED; it gets no new keys", current_status="REVOKED"
        )
    secret = agent_key_secret(key_environment)
    key = ApiKey(
        id=new_id("key"),
        organization_id=agent.organization_id,
        kind=repository.AGENT_KEY_KIND,
        agent_id=agent.id,
        name=name or agent.name,
        scopes=sorted(AGENT_KEY_SCOPES),
        environment=key_environment,
        prefix=visible_prefix(secret),
        secret_hash=hash_secret(secret),
        created_by=caller.actor_id,
        created_at=now,
        revoked_at=None,
        last_used_at=None,
        # Bounded by its limits and mandates: its writes run at once unless an owner says.
        tool_confirmation=ToolConfirmation.NEVER.value,
    )
    session.add(key)
    await session.flush()
    await _audit(
        session,
        caller,
        agent,
        AuditKind.KEY_ISSUED,
        AuditOutcome.ISSUED,
        {"keyId": key.id, "prefix": key.prefix, "environment": key_environment},
        now,
    )
    return key, secret


async def sandbox_agent_caller(
    session: AsyncSession, *, caller: Caller, agent_id: str, sandbox: bool
) -> Caller:
    """The agent's caller (`agent_caller`) for a test payment in the sandbox (the console's
    test mode). Sandbox only."""
    if not sandbox:
        raise SandboxOnly()
    return await agent_caller(session, caller=caller, agent_id=agent_id)


async def agent_caller(session: AsyncSession, *, caller: Caller, agent_id: str) -> Caller:
    """The agent as its program calls the API: the caller its newest live key
    authenticates as, so what an owner does as the agent (a test payment, an assistant
    thread that acts as the agent) meets the agent's own checks (status, allowlist,
    limits, mandates, approval). Console sessions and unrestricted keys; 404 for an agent
    the caller cannot see; 409 when the agent has no live key or cannot pay."""
    caller.require_unrestricted("act as an agent")
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    keys = sorted(await repository.live_keys_of(session, agent.id), key=lambda key: key.id)
    if not keys:
        raise InvalidState(
            f"Agent {agent.id} has no live key: issue it one, then try again",
            current_status=agent.status,
        )
    try:
        return await auth.agent_key_caller(session, keys[-1])
    except Unauthorized:
        raise InvalidState(
            f"Agent {agent.id} is {agent.status}: it cannot pay", current_status=agent.status
        ) from None


async def list_agent_keys(
    session: AsyncSession, *, caller: Caller, agent_id: str, page: PageRequest
) -> Page[ApiKey]:
    _require_manager(caller, "manage agent keys")
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    return await fetch_page(session, repository.keys_of(agent.id), ApiKey.id, page)


async def agent_key_names(session: AsyncSession, *, caller: Caller, limit: int) -> dict[str, str]:
    """Key id → "Agent “<agent's name>” · key “<key's name>”" for the keys of the agents
    the caller may read (the console's names of who did something)."""
    _require_reader(caller)
    return {
        key_id: f"Agent “{agent_name}” · key “{key_name or prefix}”"
        for key_id, key_name, prefix, agent_name in await repository.agent_key_names(
            session, caller, limit=limit
        )
    }


async def revoke_agent_key(
    session: AsyncSession, *, caller: Caller, agent_id: str, key_id: str, now: datetime
) -> ApiKey:
    """Immediate and final; revoking a revoked key changes nothing."""
    _require_manager(caller, "manage agent keys")
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    key = await get_visible(session, repository.keys_of(agent.id), key_id, locked=True)
    if key.revoked_at is None:
        key.revoked_at = now
        await _audit(
            session,
            caller,
            agent,
            AuditKind.KEY_REVOKED,
            AuditOutcome.REVOKED,
            {"keyId": key.id, "prefix": key.prefix},
            now,
        )
    return key


# --- Spend --------------------------------------------------------------------------------


async def usage_of(session: AsyncSession, agent: Agent, *, now: datetime) -> spend.Usage:
    """What the agent spent in its currency in the UTC day and month of `now` (its
    counters, transfers/spending.py)."""
    day_minor, month_minor, day_payments = await spending.spent(
        session, agent_id=agent.id, currency=agent.currency, at=now
    )
    return spend.Usage(day_minor=day_minor, month_minor=month_minor, day_payments=day_payments)


async def spend_of(
    session: AsyncSession, *, caller: Caller, agent_id: str, now: datetime
) -> tuple[Agent, spend.Usage]:
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    return agent, await usage_of(session, agent, now=now)
