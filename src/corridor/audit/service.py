"""Appending to the audit chain, linking it, reading it, verifying it.

`append` is the one way a record is written: in the caller's transaction, so a record
exists exactly when its decision committed. It only inserts the record, unlinked (no
sequence, no hashes) and takes no lock: an organization's decisions never wait for each
other on the chain. `link_pending` then links the unlinked records in order, in a short
transaction of its own holding the head's lock: the worker's `link_task` every second,
and every reader before it reads, so no one ever sees an unlinked record. A refusal
raises and rolls its transaction back; its record is written after that, in its own
short transaction (`defer_until_rollback`, then kit/aftermath.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.audit import repository, rules
from corridor.audit.errors import AuditReadForbidden
from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import Scope
from corridor.kit import aftermath
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.ids import new_id
from corridor.kit.logging import get_logger
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.audit import AuditEvent

logger = get_logger(__name__)

READ_SCOPE = Scope.ORGANIZATIONS_READ
_DEFERRED = "_corridor_audit_deferred"


def actor(caller: Caller) -> dict[str, str]:
    """Who acted, as a record names them: the credential's kind and id."""
    return rules.actor_of(caller.credential_kind, caller.actor_id)


def item_of(record: AuditEvent) -> dict[str, Any]:
    """The record as the API shows it, `hash` included: a linked record (`link_pending`
    links it; readers read only linked ones)."""
    if record.sequence is None or record.previous_hash is None:
        raise ValueError(f"audit record {record.id} is not linked yet")
    return {
        **rules.item(
            id=record.id,
            sequence=record.sequence,
            kind=record.kind,
            agent_id=record.agent_id,
            transfer_id=record.transfer_id,
            mandate_id=record.mandate_id,
            actor=record.actor,
            outcome=record.outcome,
            detail=record.detail,
            created_at=record.created_at,
            previous_hash=record.previous_hash,
        ),
        "hash": record.hash,
    }


async def append(
    session: AsyncSession,
    *,
    organization_id: str,
    kind: str,
    actor: Mapping[str, Any],
    outcome: str,
    agent_id: str | None = None,
    transfer_id: str | None = None,
    mandate_id: str | None = None,
    detail: Mapping[str, Any] | None = None,
    at: datetime,
) -> AuditEvent:
    """The organization's next record, in the caller's transaction, unlinked: `sequence`,
    `previous_hash` and `hash` are set by the next `link_pending`. Takes no lock."""
    record = AuditEvent(
        id=new_id("aud"),
        organization_id=organization_id,
        sequence=None,
        kind=str(kind),
        agent_id=agent_id,
        transfer_id=transfer_id,
        mandate_id=mandate_id,
        actor=dict(actor),
        outcome=str(outcome),
        detail=dict(detail or {}),
        created_at=rules.stored_moment(at),
        previous_hash=None,
        hash=None,
    )
    session.add(record)  # written with the caller's unit of work: no round trip of its own
    return record


# --- Linking: in order, one linker per organization at a time -------------------------------

_LINK_BATCH = 500


async def _link_in(session: AsyncSession, organization_id: str) -> int:
    sequence, previous_hash = await repository.lock_head(session, organization_id)
    linked = 0
    while True:
        pending = await repository.unlinked_events(session, organization_id, limit=_LINK_BATCH)
        for record in pending:
            sequence += 1
            record.sequence = sequence
            record.previous_hash = previous_hash
            record.hash = rules.hash_of(item_of(record))
            previous_hash = record.hash
        if pending:
            await session.flush()
            linked += len(pending)
        if len(pending) < _LINK_BATCH:
            break
    if linked:
        await repository.set_head(session, organization_id, sequence, previous_hash)
    return linked


async def link_pending(database_or_session: Database | AsyncSession, organization_id: str) -> int:
    """Link the organization's unlinked records, oldest first (created_at, then id): each
    gets the next sequence, the hash of the one before and its own; the head moves on.
    In its own short transaction (given a Database) or the session's (its caller
    commits); the head stays locked until then, so linkers in any number of processes
    never fork the chain or leave a gap. Returns how many records it linked."""
    if isinstance(database_or_session, AsyncSession):
        return await _link_in(database_or_session, organization_id)
    async with database_or_session.session() as session, session.begin():
        return await _link_in(session, organization_id)


async def link_before_read(database: Database, session: AsyncSession, organization_id: str) -> None:
    """Before a reader reads with `session`: end its transaction (a snapshot taken before
    the link would not show it, and on SQLite it may hold the write lock), then link."""
    if session.in_transaction():
        await session.commit()
    await link_pending(database, organization_id)


async def link_task(database: Database, _clock: Clock) -> int:
    """The worker's task: link every organization with unlinked records."""
    async with database.session(write=False) as session:
        organizations = await organizations_with_unlinked(session)
    linked = 0
    for organization_id in organizations:
        linked += await link_pending(database, organization_id)
    return linked


# --- Refusals: recorded after their transaction rolled back ---------------------------------


@dataclass(slots=True)
class Deferred:
    organization_id: str
    kind: str
    actor: dict[str, Any]
    outcome: str
    at: datetime
    agent_id: str | None = None
    transfer_id: str | None = None
    mandate_id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


def defer_until_rollback(error: BaseException, entry: Deferred) -> None:
    """A refusal's record, carried by the error that rolls its transaction back: the unit
    of work that rolls back writes it afterwards (kit/aftermath.py)."""

    async def write(session: AsyncSession) -> None:
        await append(
            session,
            organization_id=entry.organization_id,
            kind=entry.kind,
            actor=entry.actor,
            outcome=entry.outcome,
            agent_id=entry.agent_id,
            transfer_id=entry.transfer_id,
            mandate_id=entry.mandate_id,
            detail=entry.detail,
            at=entry.at,
        )

    aftermath.defer(error, write)


# --- Reading -------------------------------------------------------------------------------


def check_reader(caller: Caller) -> None:
    """Refused before anything is read (the export checks first, then streams)."""
    _reader_agent(caller)


def _reader_agent(caller: Caller) -> str | None:
    """Who may read: a caller with `organizations:read` not bound to a customer reads the
    organization's chain; an agent's key reads only its own agent's records."""
    if caller.kind is CallerKind.AGENT_KEY:
        assert caller.agent_id is not None
        return caller.agent_id
    caller.require_scope(READ_SCOPE)
    if caller.customer_id is not None:
        raise AuditReadForbidden()
    return None


async def list_events(
    session: AsyncSession, *, caller: Caller, filters: rules.AuditFilters, page: PageRequest
) -> Page[AuditEvent]:
    agent_id = _reader_agent(caller)
    statement = repository.filtered_events(caller.organization_id, agent_id, filters)
    return await fetch_page(session, statement, AuditEvent.id, page)


async def read_event(session: AsyncSession, *, caller: Caller, event_id: str) -> AuditEvent:
    agent_id = _reader_agent(caller)
    return await repository.get_event(session, caller.organization_id, agent_id, event_id)


async def export_events(
    session: AsyncSession, *, caller: Caller, filters: rules.AuditFilters
) -> AsyncIterator[dict[str, Any]]:
    """Every record the filters select, in sequence order, as API items."""
    agent_id = _reader_agent(caller)
    statement = repository.filtered_events(caller.organization_id, agent_id, filters)
    async for batch in repository.events_in_order(session, statement):
        for record in batch:
            yield item_of(record)


async def verify_chain(session: AsyncSession, organization_id: str) -> rules.Verification:
    """The organization's whole chain recomputed (rules.verify), with its head: the
    linked records (link first: `link_pending`)."""

    async def items() -> AsyncIterator[dict[str, Any]]:
        statement = repository.visible_events(organization_id, None)
        async for batch in repository.events_in_order(session, statement):
            for record in batch:
                yield item_of(record)

    collected = [record async for record in items()]
    head = await repository.head_of(session, organization_id)
    return rules.verify(collected, head)


async def verify_for(session: AsyncSession, *, caller: Caller) -> rules.Verification:
    """The console's check of the caller's organization."""
    if _reader_agent(caller) is not None:
        raise AuditReadForbidden()
    return await verify_chain(session, caller.organization_id)


async def organizations_with_chains(session: AsyncSession) -> list[str]:
    return await repository.organizations_with_chains(session)


async def organizations_with_unlinked(session: AsyncSession) -> list[str]:
    return await repository.organizations_with_unlinked(session)


_ID_KINDS = {
    "usr": "console_user",
    "key": "api_key",
    "oag": "oauth_grant",
    "pss": "platform_session",
}


def actor_of_id(actor_id: str) -> dict[str, str]:
    """Who acted, known only by their id (a decision's `decided_by`): the kind its prefix
    names (`api_key` for a key of either kind), `cli` for the server's operator."""
    return rules.actor_of(_ID_KINDS.get(actor_id.split("_", 1)[0], actor_id), actor_id)
