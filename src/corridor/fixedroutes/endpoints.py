"""HTTP endpoints of fixed routes (API.md §5 "Fixed routes")."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.fixedroutes import service
from corridor.fixedroutes.rules import FixedRouteType
from corridor.fixedroutes.schemas import (
    FixedRouteCreate,
    FixedRouteRead,
    FixedRouteUpdate,
    FixedRouteValidate,
    FixedRouteValidation,
)
from corridor.kit.pagination import ListResponse, Page, PageRequest
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Fixed routes"]
Pages = Annotated[PageRequest, Depends(page_request)]


def _list(page: Page[service.RouteWithAccount]) -> ListResponse[FixedRouteRead]:
    return ListResponse[FixedRouteRead].of(page, service.RouteWithAccount.read)


@router.post(
    "/fixed-routes/validate",
    response_model=FixedRouteValidation,
    tags=TAGS,
    summary="Check a fixed route without creating it",
)
async def validate_route(body: FixedRouteValidate, context: Context) -> Response:
    """200 whether the route is possible or not: `valid`, the `flow` its transfers would
    have, and `errors` (`field`, `message`) naming what makes it impossible. The route is
    checked exactly as a transfer from that source to that destination would be."""
    result = await service.validate_route(context.session, caller=context.caller, data=body)
    return await context.respond(result)


async def _create(body: FixedRouteCreate, context: Context, route_type: FixedRouteType):
    found = await service.create_route(
        context.session,
        caller=context.caller,
        route_type=route_type,
        data=body,
        now=context.now(),
    )
    return await context.respond(found.read(), status=201)


@router.post(
    "/fixed-routes/virtual-bank-account",
    status_code=201,
    response_model=FixedRouteRead,
    tags=TAGS,
    summary="Create a virtual bank account route",
)
async def create_bank_account_route(body: FixedRouteCreate, context: Context) -> Response:
    """A dedicated virtual bank account (account and routing numbers for USD, IBAN and BIC
    for EUR) whose every deposit, in the source's fiat currency by its rail, becomes a
    transfer to the destination. The customer must be ACTIVE. Takes `Idempotency-Key`;
    emits `fixed_route.created`."""
    return await _create(body, context, FixedRouteType.VIRTUAL_BANK_ACCOUNT)


@router.post(
    "/fixed-routes/virtual-wallet",
    status_code=201,
    response_model=FixedRouteRead,
    tags=TAGS,
    summary="Create a virtual wallet route",
)
async def create_wallet_route(body: FixedRouteCreate, context: Context) -> Response:
    """A dedicated deposit address on the source's chain whose every deposit of the source
    stablecoin becomes a transfer to the destination. The customer must be ACTIVE. Takes
    `Idempotency-Key`; emits `fixed_route.created`."""
    return await _create(body, context, FixedRouteType.VIRTUAL_WALLET)


@router.get(
    "/fixed-routes",
    response_model=ListResponse[FixedRouteRead],
    tags=TAGS,
    summary="List fixed routes",
)
async def list_routes(
    context: Reading,
    page: Pages,
    customer_id: Annotated[str | None, Query(alias="customerId", max_length=64)] = None,
) -> ListResponse[FixedRouteRead]:
    """Newest first; `customerId` keeps one customer's routes."""
    found = await service.list_routes(
        context.session, caller=context.caller, customer_id=customer_id, page=page
    )
    return _list(found)


@router.get(
    "/fixed-routes/{route_id}",
    response_model=FixedRouteRead,
    tags=TAGS,
    summary="Get a fixed route",
)
async def get_route(route_id: str, context: Context) -> FixedRouteRead:
    """One fixed route: its deposit instructions, destination, fee and status."""
    found = await service.get_route(context.session, caller=context.caller, route_id=route_id)
    return found.read()


@router.patch(
    "/fixed-routes/{route_id}",
    response_model=FixedRouteRead,
    tags=TAGS,
    summary="Update a fixed route",
)
async def update_route(route_id: str, body: FixedRouteUpdate, context: Context) -> Response:
    """`status` ACTIVE or PAUSED (deposits to a paused route become unmatched deposits), or
    CLOSED (final: later changes answer 409); the destination (merged and checked again),
    counterparty, fee, references and remarks. The source and the virtual account cannot
    change (422). Emits `fixed_route.updated`."""
    found = await service.update_route(
        context.session, caller=context.caller, route_id=route_id, data=body, now=context.now()
    )
    return await context.respond(found.read())


@router.get(
    "/customers/{customer_id}/fixed-routes",
    response_model=ListResponse[FixedRouteRead],
    tags=["Customers"],
    summary="List a customer's fixed routes",
)
async def list_customer_routes(
    customer_id: str, context: Reading, page: Pages
) -> ListResponse[FixedRouteRead]:
    """One customer's fixed routes, newest first."""
    found = await service.list_customer_routes(
        context.session, caller=context.caller, customer_id=customer_id, page=page
    )
    return _list(found)
