"""FastAPI dependencies that turn request credentials into a Caller."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import select

from corridor.auth import service
from corridor.auth.callers import Caller
from corridor.kit.errors import NotFound, Unauthorized, ValidationFailed
from corridor.kit.ids import looks_like_id
from corridor.models.customer import Customer

CONSOLE_SESSION_COOKIE = "corridor_session"
ON_BEHALF_OF_HEADER = "X-Corridor-On-Behalf-Of"

# Declared for OpenAPI's security schemes; read by hand below so every failure is our 401.
_bearer = HTTPBearer(
    auto_error=False, description="An API key (sk_…) or a console session token (cs_…)"
)
_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="Sandbox only")


def _credential_of(
    request: Request, bearer: HTTPAuthorizationCredentials | None, api_key: str | None
) -> str:
    settings = request.app.state.settings
    if bearer is not None:
        return bearer.credentials
    if request.headers.get("authorization"):
        raise Unauthorized("Authorization header must be 'Bearer <API key or session token>'")
    if api_key is not None:
        if not settings.is_sandbox:
            raise Unauthorized("X-API-Key is accepted only in sandbox; send Authorization: Bearer")
        return api_key
    cookie = request.cookies.get(CONSOLE_SESSION_COOKIE)
    if cookie:
        return cookie
    raise Unauthorized()


async def current_caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key_header)],
) -> Caller:
    credential = _credential_of(request, bearer, api_key)
    state = request.app.state
    async with state.database.session(write=False) as session:
        caller = await service.authenticate(
            session,
            credential=credential,
            key_environment=state.settings.key_environment,
            now=state.clock.now(),
        )
        on_behalf_of = request.headers.get(ON_BEHALF_OF_HEADER)
        if on_behalf_of is not None:
            caller = await _bind(session, caller, on_behalf_of)
    request.state.caller = caller
    return caller


async def _bind(session, caller: Caller, customer_id: str) -> Caller:
    if not looks_like_id(customer_id, "cus"):
        raise ValidationFailed(ON_BEHALF_OF_HEADER, "must be a customer id (cus_…)")
    if caller.customer_id is not None and caller.customer_id != customer_id:
        raise NotFound("customer", customer_id)
    statement = select(Customer.id).where(
        Customer.id == customer_id, Customer.organization_id == caller.organization_id
    )
    if (await session.execute(statement)).scalar_one_or_none() is None:
        raise NotFound("customer", customer_id)
    return caller.bound_to(customer_id)


CurrentCaller = Annotated[Caller, Depends(current_caller)]
