"""HTTP endpoints of the organizations domain: the caller's organization, its configuration
and the organizations below it."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Response

from corridor.auth.schemas import ApiKeyRead
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.organizations import service
from corridor.organizations.schemas import (
    ConfigurationRead,
    ConfigurationUpdate,
    OrganizationCreate,
    OrganizationCreated,
    OrganizationRead,
    OrganizationUpdate,
)
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Organizations"]


@router.get(
    "/organizations/current",
    response_model=OrganizationRead,
    tags=TAGS,
    summary="Get the caller's organization",
)
async def get_current_organization(context: Context) -> OrganizationRead:
    """The organization the credentials belong to: its id, name, kind and parent."""
    organization = await service.current_organization(context.session, caller=context.caller)
    return OrganizationRead.model_validate(organization)


@router.patch(
    "/organizations/current",
    response_model=OrganizationRead,
    tags=TAGS,
    summary="Update the caller's organization",
)
async def update_current_organization(body: OrganizationUpdate, context: Context) -> Response:
    """Renames the caller's organization."""
    organization = await service.update_organization(
        context.session,
        caller=context.caller,
        name=body.name,
        now=context.now(),
    )
    return await context.respond(OrganizationRead.model_validate(organization))


@router.get(
    "/organizations/current/configuration",
    response_model=ConfigurationRead,
    tags=TAGS,
    summary="Get the organization's configuration",
)
async def get_configuration(context: Context) -> ConfigurationRead:
    """The settings every customer and transfer of the organization inherits: the currencies of the
    balance accounts opened for each customer, the amount above which a transfer waits for
    authorization, the default developer fee, and whether webhook history is kept."""
    configuration = await service.current_configuration(context.session, caller=context.caller)
    return ConfigurationRead.of(configuration)


@router.patch(
    "/organizations/current/configuration",
    response_model=ConfigurationRead,
    tags=TAGS,
    summary="Update the organization's configuration",
)
async def update_configuration(body: ConfigurationUpdate, context: Context) -> Response:
    """Only the fields sent change; `null` clears a nullable field. A new
    `requestsPerSecondPerKey` (console session or unrestricted key only) applies at once on
    this server process and within 30 seconds on the others."""
    configuration = await service.update_configuration(
        context.session,
        caller=context.caller,
        changes=body.changes(),
        now=context.now(),
    )
    answer = await context.respond(ConfigurationRead.of(configuration))
    context.request.app.state.rate_limiter.forget(context.caller.organization_id)
    return answer


@router.post(
    "/organizations",
    status_code=201,
    response_model=OrganizationCreated,
    tags=TAGS,
    summary="Create a child organization",
)
async def create_organization(body: OrganizationCreate, context: Context) -> Response:
    """The new organization's parent is the caller's; it starts with the default configuration.
    Needs a console session or an unrestricted key.

    With `createApiKey: true` the answer also carries the child's first unrestricted key,
    its secret in `apiKeySecret` (shown once, never stored: an idempotent replay answers it
    null). The parent's console session or unrestricted key can also act inside the child
    by sending `X-Corridor-Organization: <child id>` with any request."""
    created = await service.create_child_organization(
        context.session,
        caller=context.caller,
        name=body.name,
        kind=body.kind,
        create_api_key=body.create_api_key,
        key_environment=context.settings.key_environment,
        now=context.now(),
    )
    answer = OrganizationCreated.model_validate(
        {
            **OrganizationRead.model_validate(created.organization).model_dump(),
            "api_key": ApiKeyRead.model_validate(created.key) if created.key else None,
            "api_key_secret": created.secret,
        }
    )
    return await context.respond(answer, status=201)


@router.get(
    "/organizations",
    response_model=ListResponse[OrganizationRead],
    tags=TAGS,
    summary="List organizations in scope",
)
async def list_organizations(
    context: Context, page: Annotated[PageRequest, Depends(page_request)]
) -> ListResponse[OrganizationRead]:
    """The caller's organization and every organization below it, newest first."""
    result = await service.list_organizations_in_scope(
        context.session, caller=context.caller, page=page
    )
    return ListResponse[OrganizationRead].of(result, OrganizationRead.model_validate)


@router.get(
    "/organizations/{organization_id}",
    response_model=OrganizationRead,
    tags=TAGS,
    summary="Get an organization in scope",
)
async def get_organization(organization_id: str, context: Context) -> OrganizationRead:
    """The caller's organization or one below it; any other id is not found."""
    organization = await service.get_organization_in_scope(
        context.session, caller=context.caller, organization_id=organization_id
    )
    return OrganizationRead.model_validate(organization)
