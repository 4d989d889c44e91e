"""Tool confirmations: opening one for a write tool call, the one decision function, using
an approval once, and the owners' list.

`decide` is the only place a decision is written (who decided, how, when): the MCP form and
elicitation answers, the console and REST decisions and the assistant's cards all go
through it (issue 25 appends the audit record there).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_object_session

from corridor.audit import service as audit
from corridor.audit.rules import AuditKind, AuditOutcome
from corridor.auth.callers import Caller
from corridor.confirmations import repository
from corridor.confirmations.errors import ConfirmationUsed
from corridor.confirmations.rules import (
    ConfirmationStatus,
    DecidedVia,
    Origin,
    arguments_sha256,
    current_status,
    usable_approval,
)
from corridor.kit.db import get_visible
from corridor.kit.errors import Forbidden
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.confirmation import ToolConfirmationRecord


def open_confirmation(
    session: AsyncSession,
    *,
    caller: Caller,
    origin: Origin,
    tool: str,
    arguments: dict[str, Any],
    summary: str,
    effect: str,
    now: datetime,
    ttl_s: float | None,
    assistant_tool_call_id: str | None = None,
) -> ToolConfirmationRecord:
    """A PENDING confirmation of `caller`'s call of `tool` with exactly `arguments`."""
    record = ToolConfirmationRecord(
        id=new_id("tcf"),
        organization_id=caller.organization_id,
        origin=origin.value,
        tool=tool,
        arguments=arguments,
        arguments_sha256=arguments_sha256(tool, arguments),
        summary=summary,
        effect=effect,
        credential_kind=caller.credential_kind,
        actor_id=caller.actor_id,
        agent_id=caller.agent_id,
        customer_id=caller.customer_id,
        status=ConfirmationStatus.PENDING.value,
        decided_by=None,
        decided_via=None,
        decided_at=None,
        executed_at=None,
        outcome=None,
        assistant_tool_call_id=assistant_tool_call_id,
        expires_at=None if ttl_s is None else now + timedelta(seconds=ttl_s),
        created_at=now,
    )
    session.add(record)
    return record


async def decide(
    record: ToolConfirmationRecord,
    *,
    approved: bool,
    decided_by: str,
    via: DecidedVia,
    now: datetime,
) -> ToolConfirmationRecord:
    """THE decision: a PENDING confirmation becomes APPROVED or REFUSED, recording who
    decided, where and when. Anything but a live PENDING one is refused (a replay, a second
    decision, one past its expiry), so no call runs twice on one confirmation. The caller
    holds the record locked (repository.locked)."""
    status = current_status(record.status, record.expires_at, now)
    if status is ConfirmationStatus.EXPIRED and record.status == ConfirmationStatus.PENDING:
        record.status = ConfirmationStatus.EXPIRED.value
    if status is not ConfirmationStatus.PENDING:
        raise ConfirmationUsed(record.id, status.value)
    record.status = (ConfirmationStatus.APPROVED if approved else ConfirmationStatus.REFUSED).value
    record.decided_by = decided_by
    record.decided_via = via.value
    record.decided_at = now
    session = async_object_session(record)
    assert session is not None, "a confirmation is decided in its loading session"
    await audit.append(
        session,
        organization_id=record.organization_id,
        kind=AuditKind.TOOL_CONFIRMED if approved else AuditKind.TOOL_REFUSED,
        actor=audit.actor_of_id(decided_by),
        outcome=AuditOutcome.CONFIRMED if approved else AuditOutcome.REFUSED,
        agent_id=record.agent_id,
        detail={
            "confirmationId": record.id,
            "tool": record.tool,
            "origin": record.origin,
            "via": via.value,
            "caller": {"type": record.credential_kind, "id": record.actor_id},
        },
        at=now,
    )
    return record


def mark_executed(record: ToolConfirmationRecord, outcome: dict[str, Any], now: datetime) -> None:
    """The approved call ran (once): its result or error, for the owner's list."""
    record.executed_at = now
    record.outcome = outcome


async def approval_to_use(
    session: AsyncSession, *, caller: Caller, tool: str, arguments: dict[str, Any], now: datetime
) -> ToolConfirmationRecord | None:
    """An owner's approval of exactly this call by this credential, not yet used (locked):
    the call runs once on it (the console path of a client that cannot ask a person)."""
    record = await repository.latest_for_call(
        session,
        actor_id=caller.actor_id,
        tool=tool,
        arguments_sha256=arguments_sha256(tool, arguments),
        status=ConfirmationStatus.APPROVED.value,
    )
    if record is None or record.organization_id != caller.organization_id:
        return None
    return record if usable_approval(record.status, record.expires_at, None, now) else None


async def pending_call(
    session: AsyncSession, *, caller: Caller, tool: str, arguments: dict[str, Any], now: datetime
) -> ToolConfirmationRecord | None:
    """The live PENDING confirmation of exactly this call, when one waits already."""
    record = await repository.latest_for_call(
        session,
        actor_id=caller.actor_id,
        tool=tool,
        arguments_sha256=arguments_sha256(tool, arguments),
        status=ConfirmationStatus.PENDING.value,
    )
    if record is None or record.organization_id != caller.organization_id:
        return None
    if current_status(record.status, record.expires_at, now) is not ConfirmationStatus.PENDING:
        return None
    return record


async def locked_confirmation(
    session: AsyncSession, *, caller: Caller, confirmation_id: str
) -> ToolConfirmationRecord:
    """A confirmation of the caller's organization, locked; 404 otherwise."""
    visible = repository.visible_confirmations(caller.organization_id)
    return await get_visible(session, visible, confirmation_id, locked=True)


async def list_confirmations(
    session: AsyncSession, *, caller: Caller, status: ConfirmationStatus | None, page: PageRequest
) -> Page[ToolConfirmationRecord]:
    """GET /v1/tool-confirmations (owners: console session or unrestricted key)."""
    caller.require_unrestricted("list tool confirmations")
    statement = repository.listed_confirmations(
        caller.organization_id, status.value if status is not None else None
    )
    return await fetch_page(session, statement, ToolConfirmationRecord.id, page)


async def read_confirmation(
    session: AsyncSession, *, caller: Caller, confirmation_id: str
) -> ToolConfirmationRecord:
    caller.require_unrestricted("read tool confirmations")
    visible = repository.visible_confirmations(caller.organization_id)
    return await get_visible(session, visible, confirmation_id)


class CardDecision(Protocol):
    """How a decision on an assistant's confirmation card is carried out (the assistant's
    `decided_as_confirmation`, installed by create_app): the assistant decides it through
    `decide` and runs the call in the caller's unit of work."""

    async def __call__(
        self,
        session: AsyncSession,
        *,
        caller: Caller,
        record: ToolConfirmationRecord,
        approved: bool,
        now: datetime,
    ) -> None: ...


async def decide_as_owner(
    session: AsyncSession,
    *,
    caller: Caller,
    confirmation_id: str,
    approved: bool,
    via: DecidedVia,
    now: datetime,
    cards: CardDecision,
) -> ToolConfirmationRecord:
    """POST /v1/tool-confirmations/{id}/decision and the console page: an owner (console
    session or unrestricted key) approves or refuses a pending call. An MCP call approved
    here runs when its client makes the same call again (once); an assistant card's runs
    now, as when its thread's user answers it."""
    caller.require_unrestricted("decide tool confirmations")
    record = await locked_confirmation(session, caller=caller, confirmation_id=confirmation_id)
    if record.origin == Origin.ASSISTANT:
        await cards(session, caller=caller, record=record, approved=approved, now=now)
        return record
    if record.actor_id == caller.actor_id:
        raise Forbidden("A credential cannot decide its own call: another owner decides")
    return await decide(record, approved=approved, decided_by=caller.actor_id, via=via, now=now)
