"""HTTP endpoints of agents (API.md §5 "Agents") and of agent approval on transfers."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.agents import approvals, service, signing
from corridor.agents.schemas import (
    AgentApproval,
    AgentCreate,
    AgentKeyCreate,
    AgentKeyCreated,
    AgentKeyRead,
    AgentRead,
    AgentSpendRead,
    AgentUpdate,
    SigningKeyCreate,
    SigningKeyRead,
)
from corridor.auth.callers import ToolConfirmation
from corridor.kit.ids import id_pattern
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.models.access import ApiKey
from corridor.transfers.endpoints import Plugins, transfer_body
from corridor.transfers.schemas.transfer import TransferRead
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Agents"]
Pages = Annotated[PageRequest, Depends(page_request)]

_APPROVAL_RESPONSES: dict[int | str, dict] = {
    409: {
        "description": "`agent_approval_refused` (body has `reason`: agent_paused, "
        "agent_revoked, currency_mismatch or destination_not_allowed), or `invalid_state` "
        "when the transfer is not awaiting approval"
    }
}


def _key_read(key: ApiKey) -> AgentKeyRead:
    return AgentKeyRead(
        id=key.id,
        agent_id=key.agent_id or "",
        name=key.name,
        scopes=list(key.scopes),
        prefix=key.prefix,
        tool_confirmation=ToolConfirmation(key.tool_confirmation),
        created_at=key.created_at,
        revoked_at=key.revoked_at,
        last_used_at=key.last_used_at,
    )


@router.post(
    "/agents", status_code=201, response_model=AgentRead, tags=TAGS, summary="Create an agent"
)
async def create_agent(body: AgentCreate, context: Context) -> Response:
    """Console session or unrestricted key only. The customer must be ACTIVE and the
    funding account one of its balance accounts; the agent has no key until one is issued.
    `destinationAllowlist` lists the only payees it may pay."""
    agent = await service.create_agent(
        context.session, caller=context.caller, data=body, now=context.now()
    )
    return await context.respond(AgentRead.of(agent), status=201)


@router.get("/agents", response_model=ListResponse[AgentRead], tags=TAGS, summary="List agents")
async def list_agents(
    context: Reading,
    page: Pages,
    customer_id: Annotated[
        str | None,
        Query(
            alias="customerId",
            json_schema_extra={"pattern": id_pattern("cus")},
            max_length=64,
            description="Only this customer's",
        ),
    ] = None,
) -> ListResponse[AgentRead]:
    """Newest first. An agent key sees only its own agent."""
    found = await service.list_agents(
        context.session, caller=context.caller, customer_id=customer_id, page=page
    )
    return ListResponse[AgentRead].of(found, AgentRead.of)


@router.get("/agents/{agent_id}", response_model=AgentRead, tags=TAGS, summary="Get an agent")
async def get_agent(agent_id: str, context: Context) -> AgentRead:
    """One agent: its customer, source account, spend limits, allowlist and status."""
    agent = await service.get_agent(context.session, caller=context.caller, agent_id=agent_id)
    return AgentRead.of(agent)


@router.patch("/agents/{agent_id}", response_model=AgentRead, tags=TAGS, summary="Update an agent")
async def update_agent(agent_id: str, body: AgentUpdate, context: Context) -> Response:
    """Name, description, limits (merged; null removes one), allowlist (replaced),
    overLimitAction, and `status` active or paused. A limit change applies from the next
    transfer. `customerId`, `sourceAccountId` and `limits.currency` cannot change (422)."""
    agent = await service.update_agent(
        context.session, caller=context.caller, agent_id=agent_id, data=body, now=context.now()
    )
    return await context.respond(AgentRead.of(agent))


@router.post(
    "/agents/{agent_id}/revoke", response_model=AgentRead, tags=TAGS, summary="Revoke an agent"
)
async def revoke_agent(agent_id: str, context: Context) -> Response:
    """Irreversible: the agent becomes REVOKED and every one of its keys is revoked at once."""
    agent = await service.revoke_agent(
        context.session, caller=context.caller, agent_id=agent_id, now=context.now()
    )
    return await context.respond(AgentRead.of(agent))


@router.get(
    "/agents/{agent_id}/spend",
    response_model=AgentSpendRead,
    tags=TAGS,
    summary="Get an agent's spend",
)
async def get_spend(agent_id: str, context: Context) -> AgentSpendRead:
    """Per window (UTC day, UTC month): the limit, what was submitted (minor units; DRAFT,
    FAILED, CANCELLED and REVERSED transfers do not count), what remains, and when the
    window resets."""
    now = context.now()
    agent, usage = await service.spend_of(
        context.session, caller=context.caller, agent_id=agent_id, now=now
    )
    return AgentSpendRead.of(agent, usage, now)


@router.post(
    "/agents/{agent_id}/signing-keys",
    status_code=201,
    response_model=SigningKeyRead,
    tags=TAGS,
    summary="Bind a signing key to an agent",
)
async def add_signing_key(agent_id: str, body: SigningKeyCreate, context: Context) -> Response:
    """Owner only (console session or unrestricted key). From now on every request made
    with the agent's keys must carry an RFC 9421 signature by one of its signing keys
    (label sig1, covering @method, @target-uri and content-digest, with created, nonce and
    keyid); otherwise 401 `signature_required`, `signature_invalid`, `signature_expired`
    or `nonce_reused`."""
    row = await signing.add_signing_key(
        context.session,
        caller=context.caller,
        agent_id=agent_id,
        jwk=body.public_key_jwk,
        now=context.now(),
    )
    return await context.respond(SigningKeyRead.model_validate(row), status=201)


@router.get(
    "/agents/{agent_id}/signing-keys",
    response_model=ListResponse[SigningKeyRead],
    tags=TAGS,
    summary="List an agent's signing keys",
)
async def list_signing_keys(
    agent_id: str, context: Context, page: Pages
) -> ListResponse[SigningKeyRead]:
    """The agent's signing keys, newest first, revoked ones included (`revokedAt` set)."""
    found = await signing.list_signing_keys(
        context.session, caller=context.caller, agent_id=agent_id, page=page
    )
    return ListResponse[SigningKeyRead].of(found, SigningKeyRead.model_validate)


@router.delete(
    "/agents/{agent_id}/signing-keys/{signing_key_id}",
    status_code=204,
    tags=TAGS,
    summary="Revoke an agent's signing key",
)
async def revoke_signing_key(agent_id: str, signing_key_id: str, context: Context) -> Response:
    """Owner only. Signatures by this key are refused from now on; an agent left with no
    signing key needs no signature again."""
    await signing.revoke_signing_key(
        context.session,
        caller=context.caller,
        agent_id=agent_id,
        signing_key_id=signing_key_id,
        now=context.now(),
    )
    return Response(status_code=204)


@router.post(
    "/agents/{agent_id}/keys",
    status_code=201,
    response_model=AgentKeyCreated,
    tags=TAGS,
    summary="Create an agent key",
)
async def create_agent_key(
    agent_id: str, context: Context, body: AgentKeyCreate | None = None
) -> Response:
    """`sk_sandbox_agent_…`: the secret is in this response only. Fixed scopes: transfers
    read and write, accounts read, customers read, confined to the agent's customer and
    funding account. The secret is never stored: an idempotent replay answers the key with
    `secret: null` and a `secretNote`."""
    key, secret = await service.create_agent_key(
        context.session,
        caller=context.caller,
        agent_id=agent_id,
        name=body.name if body else None,
        key_environment=context.settings.key_environment,
        now=context.now(),
    )
    created = AgentKeyCreated(**_key_read(key).model_dump(), secret=secret)
    return await context.respond(created, status=201)


@router.get(
    "/agents/{agent_id}/keys",
    response_model=ListResponse[AgentKeyRead],
    tags=TAGS,
    summary="List an agent's keys",
)
async def list_agent_keys(
    agent_id: str, context: Context, page: Pages
) -> ListResponse[AgentKeyRead]:
    """The agent's keys, newest first, revoked ones included; never their secrets."""
    found = await service.list_agent_keys(
        context.session, caller=context.caller, agent_id=agent_id, page=page
    )
    return ListResponse[AgentKeyRead].of(found, _key_read)


@router.delete(
    "/agents/{agent_id}/keys/{key_id}",
    status_code=204,
    tags=TAGS,
    summary="Revoke an agent key",
)
async def revoke_agent_key(agent_id: str, key_id: str, context: Context) -> Response:
    """Immediate and final; revoking a revoked key is a no-op."""
    await service.revoke_agent_key(
        context.session,
        caller=context.caller,
        agent_id=agent_id,
        key_id=key_id,
        now=context.now(),
    )
    return Response(status_code=204)


@router.post(
    "/transfers/{transfer_id}/agent-approval",
    response_model=TransferRead,
    tags=["Transfers"],
    summary="Approve or decline an agent's payment",
    responses=_APPROVAL_RESPONSES,
)
async def decide_agent_approval(
    transfer_id: str, body: AgentApproval, context: Context, plugins: Plugins
) -> Response:
    """Console session or unrestricted key, on a DRAFT with agentApprovalStatus PENDING.
    APPROVE submits it skipping only the spend limits (APPROVED; it counts toward the
    agent's spend); DECLINE cancels it (DECLINED; `reason` on `cancellation`)."""
    found = await approvals.decide(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        decision=body.decision,
        reason=body.reason,
        plugins=plugins,
        now=context.now(),
    )
    return await context.respond_json(transfer_body(found))
