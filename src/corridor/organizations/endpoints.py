"""HTTP endpoints of the organizations domain: the caller's organization, its configuration
and the organizations below it."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Response

from corridor.kit.pagination import ListResponse, PageRequest
from corridor.organizations import service
from corridor.organizations.schemas import (
    ConfigurationRead,
    ConfigurationUpdate,
    OrganizationCreate,
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
    organization = await service.current_organization(context.session, caller=context.caller)
    return OrganizationRead.model_validate(organization)


@router.patch(
    "/organizations/current",
    response_model=OrganizationRead,
    tags=TAGS,
    summary="Update the caller's organization",
)
async def update_current_organization(body: OrganizationUpdate, context: Context) -> Response:
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
    configuration = await service.current_configuration(context.session, caller=context.caller)
    return ConfigurationRead.of(configuration)


@router.patch(
    "/organizations/current/configuration",
    response_model=ConfigurationRead,
    tags=TAGS,
    summary="Update the organization's configuration",
)
async def update_configuration(body: ConfigurationUpdate, context: Context) -> Response:
    """Only the fields sent change; `null` clears a nullable field."""
    configuration = await service.update_configuration(
        context.session,
        caller=context.caller,
        changes=body.changes(),
        now=context.now(),
    )
    return await context.respond(ConfigurationRead.of(configuration))


@router.post(
    "/organizations",
    status_code=201,
    response_model=OrganizationRead,
    tags=TAGS,
    summary="Create a child organization",
)
async def create_organization(body: OrganizationCreate, context: Context) -> Response:
    """The new organization's parent is the caller's; it starts with the default configuration.
    Needs a console session or an unrestricted key."""
    child = await service.create_child_organization(
        context.session,
        caller=context.caller,
        name=body.name,
        kind=body.kind,
        now=context.now(),
    )
    return await context.respond(OrganizationRead.model_validate(child), status=201)


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
