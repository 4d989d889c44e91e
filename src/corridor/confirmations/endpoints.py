"""GET /v1/tool-confirmations, GET /v1/tool-confirmations/{id} and
POST /v1/tool-confirmations/{id}/decision (API.md 9; owners: console session or
unrestricted key)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from corridor.confirmations import service
from corridor.confirmations.rules import ConfirmationStatus, DecidedVia
from corridor.confirmations.schemas import ToolConfirmationDecision, ToolConfirmationRead
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1/tool-confirmations", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Tool confirmations"]


@router.get(
    "",
    response_model=ListResponse[ToolConfirmationRead],
    tags=TAGS,
    summary="List tool confirmations",
)
async def list_confirmations(
    context: Context,
    page: Annotated[PageRequest, Depends(page_request)],
    status: Annotated[ConfirmationStatus | None, Query()] = None,
) -> ListResponse[ToolConfirmationRead]:
    """Write tool calls that waited (or wait) for a person, newest first: MCP clients'
    calls and the assistant's confirmation cards, with the exact arguments, what they
    would do, the credential and the decision (who, how, when)."""
    found = await service.list_confirmations(
        context.session, caller=context.caller, status=status, page=page
    )
    now = context.now()
    return ListResponse[ToolConfirmationRead].of(
        found, lambda record: ToolConfirmationRead.of(record, now)
    )


@router.get(
    "/{confirmation_id}",
    response_model=ToolConfirmationRead,
    tags=TAGS,
    summary="Get a tool confirmation",
)
async def get_confirmation(confirmation_id: str, context: Context) -> ToolConfirmationRead:
    """One tool confirmation: the exact arguments, the effect, the credential, the decision
    and, once the call ran, its outcome (owners only)."""
    record = await service.read_confirmation(
        context.session, caller=context.caller, confirmation_id=confirmation_id
    )
    return ToolConfirmationRead.of(record, context.now())


@router.post(
    "/{confirmation_id}/decision",
    response_model=ToolConfirmationRead,
    tags=TAGS,
    summary="Approve or refuse a tool call",
)
async def decide(
    confirmation_id: str, body: ToolConfirmationDecision, context: Context, request: Request
) -> Response:
    """`approved: true`: an MCP call runs when its client makes the same call with the same
    arguments again (once, before `expiresAt`); an assistant card's call runs now, as the
    run's user. A second decision, or one past its expiry: 409."""
    record = await service.decide_as_owner(
        context.session,
        caller=context.caller,
        confirmation_id=confirmation_id,
        approved=body.approved,
        via=DecidedVia.CONSOLE if context.caller.is_console else DecidedVia.API,
        now=context.now(),
        cards=request.app.state.confirmation_cards,
    )
    return await context.respond(ToolConfirmationRead.of(record, context.now()))
