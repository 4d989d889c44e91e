"""HTTP endpoints of agent mandates (API.md §9)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Response

from corridor.agents.mandates import service
from corridor.agents.mandates.schemas import MandateCreate, MandateRead, MandateRevoke
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Agents"]
Pages = Annotated[PageRequest, Depends(page_request)]

_CREATE_RESPONSES: dict[int | str, dict] = {
    409: {
        "description": "`mandate_overlap`: an ACTIVE mandate of the agent shares a payee in "
        "an overlapping window"
    }
}


@router.post(
    "/agents/{agent_id}/mandates",
    status_code=201,
    response_model=MandateRead,
    tags=TAGS,
    summary="Create an agent mandate",
    responses=_CREATE_RESPONSES,
)
async def create_mandate(agent_id: str, body: MandateCreate, context: Context) -> Response:
    """Owner only (console session or unrestricted key). The agent may pay these payees
    at most `maxPerPayment` at once and `budget.amount` per budget period (UTC day,
    Monday-started week, month, or NONE: the whole mandate), `maxUses` times, between
    `notBefore` and `notAfter`. With `requireMandate` on the agent, it pays only so."""
    now = context.now()
    mandate = await service.create_mandate(
        context.session, caller=context.caller, agent_id=agent_id, data=body, now=now
    )
    return await context.respond(MandateRead.of(mandate, now), status=201)


@router.get(
    "/agents/{agent_id}/mandates",
    response_model=ListResponse[MandateRead],
    tags=TAGS,
    summary="List an agent's mandates",
)
async def list_mandates(agent_id: str, context: Reading, page: Pages) -> ListResponse[MandateRead]:
    """Newest first, every status. An agent key sees its own agent's."""
    now = context.now()
    found = await service.list_mandates(
        context.session, caller=context.caller, agent_id=agent_id, page=page
    )
    return ListResponse[MandateRead].of(found, lambda mandate: MandateRead.of(mandate, now))


@router.get(
    "/agent-mandates/{mandate_id}",
    response_model=MandateRead,
    tags=TAGS,
    summary="Get an agent mandate",
)
async def get_mandate(mandate_id: str, context: Context) -> MandateRead:
    """One mandate as of now: `used` in the current budget period, EXPIRED past notAfter."""
    mandate = await service.get_mandate(
        context.session, caller=context.caller, mandate_id=mandate_id
    )
    return MandateRead.of(mandate, context.now())


@router.post(
    "/agent-mandates/{mandate_id}/revoke",
    response_model=MandateRead,
    tags=TAGS,
    summary="Revoke an agent mandate",
)
async def revoke_mandate(
    mandate_id: str, context: Context, body: MandateRevoke | None = None
) -> Response:
    """Owner only; final: the mandate admits no payment from now on (a draft parked for
    approval under it is refused at approval)."""
    now = context.now()
    mandate = await service.revoke_mandate(
        context.session,
        caller=context.caller,
        mandate_id=mandate_id,
        now=now,
        reason=body.reason if body else None,
    )
    return await context.respond(MandateRead.of(mandate, now))
