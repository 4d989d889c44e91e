"""GET /v1/audit-events and its JSON-lines export: the organization's audit chain."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from corridor.audit import rules, service
from corridor.audit.rules import AuditFilters
from corridor.audit.schemas import AuditEventRead
from corridor.kit.clock import as_utc
from corridor.kit.db import Database
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import ListResponse
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import Pages

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Audit events"]
NDJSON = "application/x-ndjson"


def _moment(value: datetime | None, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return as_utc(value)
    except (OverflowError, ValueError):
        raise ValidationFailed(field, "is out of range") from None


AgentId = Annotated[
    str | None, Query(alias="agentId", max_length=40, description="Only this agent's (agt_…)")
]
TransferId = Annotated[
    str | None,
    Query(alias="transferId", max_length=40, description="Only this transfer's (tfr_…)"),
]
Kind = Annotated[
    str | None,
    Query(max_length=60, description="Only this kind (`agent.payment.denied`)"),
]
CreatedAfter = Annotated[datetime | None, Query(alias="createdAfter")]
CreatedBefore = Annotated[datetime | None, Query(alias="createdBefore")]


def _filters(
    agent_id: str | None,
    transfer_id: str | None,
    kind: str | None,
    created_after: datetime | None,
    created_before: datetime | None,
) -> AuditFilters:
    return AuditFilters(
        agent_id=agent_id,
        transfer_id=transfer_id,
        kind=kind,
        created_after=_moment(created_after, "createdAfter"),
        created_before=_moment(created_before, "createdBefore"),
    )


@router.get(
    "/audit-events",
    response_model=ListResponse[AuditEventRead],
    tags=TAGS,
    summary="List audit events",
)
async def list_audit_events(
    context: Context,
    page: Pages,
    agent_id: AgentId = None,
    transfer_id: TransferId = None,
    kind: Kind = None,
    created_after: CreatedAfter = None,
    created_before: CreatedBefore = None,
) -> ListResponse[AuditEventRead]:
    """The organization's tamper-evident audit chain, newest first: every agent payment
    allowed, parked or denied (with the denial's code), every owner's approval or decline,
    agent keys issued and revoked, agents created, updated and revoked, and write-tool
    calls confirmed or refused. Each record links to the one before by its hash (API.md 9).
    Needs `organizations:read`; an agent's key reads its own agent's records only; a
    caller bound to one customer is refused."""
    filters = _filters(agent_id, transfer_id, kind, created_after, created_before)
    service.check_reader(context.caller)
    await service.link_before_read(
        context.database, context.session, context.caller.organization_id
    )
    found = await service.list_events(
        context.session, caller=context.caller, filters=filters, page=page
    )
    return ListResponse[AuditEventRead].of(
        found, lambda record: AuditEventRead.model_validate(service.item_of(record))
    )


def _export_example() -> str:
    """Two lines of an export, chained as a real one is (`rules.verify` holds on them)."""
    first: dict[str, Any] = {
        "id": "aud_01m8g36zdz0k7p3v9x1c5b7n2q",
        "sequence": 1,
        "kind": rules.AuditKind.KEY_ISSUED.value,
        "agentId": "agt_01m8g36zdya42pad3jnwr8rgk2",
        "transferId": None,
        "mandateId": None,
        "actor": {"type": "console_user", "id": "usr_01m8g36zd4k2m6p8r0t2v4x6z8"},
        "outcome": rules.AuditOutcome.ISSUED.value,
        "detail": {"keyId": "key_01m8g36ze438f567bdhxyzpxe5"},
        "createdAt": "2026-11-18T11:58:00.000Z",
        "previousHash": rules.GENESIS_HASH,
    }
    first["hash"] = rules.hash_of(first)
    second: dict[str, Any] = {
        "id": "aud_01m8g36zeg3a53f1w82pckqffk",
        "sequence": 2,
        "kind": rules.AuditKind.PAYMENT_DENIED.value,
        "agentId": "agt_01m8g36zdya42pad3jnwr8rgk2",
        "transferId": "tfr_01m8g36ze972dpqxt03aj04m24",
        "mandateId": None,
        "actor": {"type": "agent_key", "id": "key_01m8g36ze438f567bdhxyzpxe5"},
        "outcome": rules.AuditOutcome.DENIED.value,
        "detail": {"amount": "1000", "currency": "USD", "code": "agent_destination_not_allowed"},
        "createdAt": "2026-11-18T12:00:00.000Z",
        "previousHash": first["hash"],
    }
    second["hash"] = rules.hash_of(second)
    return "".join(orjson.dumps(line).decode() + "\n" for line in (first, second))


@router.get(
    "/audit-events/export",
    tags=TAGS,
    summary="Export audit events as JSON lines",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {NDJSON: {"schema": {"type": "string"}, "example": _export_example()}},
            "description": "One record per line",
        }
    },
)
async def export_audit_events(
    request: Request,
    context: Context,
    agent_id: AgentId = None,
    transfer_id: TransferId = None,
    kind: Kind = None,
    created_after: CreatedAfter = None,
    created_before: CreatedBefore = None,
) -> StreamingResponse:
    """The records the filters select, oldest first (sequence order), one JSON object per
    line (`application/x-ndjson`), streamed: the same items as the list, so a whole
    organization's export can be verified offline (API.md 9, docs "Audit chain")."""
    filters = _filters(agent_id, transfer_id, kind, created_after, created_before)
    caller = context.caller
    service.check_reader(caller)
    database: Database = request.app.state.database

    async def lines() -> AsyncIterator[bytes]:
        await service.link_pending(database, caller.organization_id)
        async with database.session(write=False) as session:
            async for item in service.export_events(session, caller=caller, filters=filters):
                yield orjson.dumps(item) + b"\n"

    return StreamingResponse(lines(), media_type=NDJSON)


@router.get(
    "/audit-events/{event_id}",
    response_model=AuditEventRead,
    tags=TAGS,
    summary="Get an audit event",
)
async def get_audit_event(event_id: str, context: Context) -> AuditEventRead:
    """One record of the organization's chain (`aud_…`), as the list shows it; an agent's
    key reads only its own agent's records (another's: 404)."""
    service.check_reader(context.caller)
    await service.link_before_read(
        context.database, context.session, context.caller.organization_id
    )
    found = await service.read_event(context.session, caller=context.caller, event_id=event_id)
    return AuditEventRead.model_validate(service.item_of(found))
