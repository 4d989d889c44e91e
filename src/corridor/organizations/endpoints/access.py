"""API keys of the organization, and console sign-in."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Response

from corridor.auth import service
from corridor.auth.schemas import (
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeyRead,
    ApiKeyUpdate,
    ConsoleSessionCreate,
    ConsoleSessionCreated,
    ConsoleSessionRead,
    ConsoleUserRead,
)
from corridor.auth.secrets import csrf_token
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.web.authentication import CONSOLE_SESSION_COOKIE
from corridor.web.context import Context, Public
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request
from corridor.web.ratelimits import client_address

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)


def _key_read(key) -> ApiKeyRead:
    return ApiKeyRead.model_validate(key)


@router.post(
    "/api-keys",
    status_code=201,
    response_model=ApiKeyCreated,
    tags=["API keys"],
    summary="Create an API key",
)
async def create_api_key(body: ApiKeyCreate, context: Context) -> Response:
    """The secret is in this response only. `scopes: ["*"]` makes an unrestricted key.

    The secret is never stored: an idempotent replay of this request (same
    `Idempotency-Key`) answers the key with `secret: null` and a `secretNote`; a lost
    secret cannot be recovered, so revoke the key and create another."""
    key, secret = await service.create_api_key(
        context.session,
        caller=context.caller,
        name=body.name,
        scopes=body.scopes,
        key_environment=context.settings.key_environment,
        now=context.now(),
        tool_confirmation=body.tool_confirmation,
    )
    created = ApiKeyCreated.model_validate({**_key_read(key).model_dump(), "secret": secret})
    return await context.respond(created, status=201)


@router.get(
    "/api-keys", response_model=ListResponse[ApiKeyRead], tags=["API keys"], summary="List API keys"
)
async def list_api_keys(
    context: Context, page: Annotated[PageRequest, Depends(page_request)]
) -> ListResponse[ApiKeyRead]:
    """The organization's keys, newest first, revoked ones included (`revokedAt` set). The
    secret is never shown again: only its `prefix`."""
    result = await service.list_api_keys(context.session, caller=context.caller, page=page)
    return ListResponse[ApiKeyRead].of(result, _key_read)


@router.patch(
    "/api-keys/{key_id}", response_model=ApiKeyRead, tags=["API keys"], summary="Update an API key"
)
async def update_api_key(key_id: str, body: ApiKeyUpdate, context: Context) -> Response:
    """Set the key's `toolConfirmation` policy (organization and agent keys; owner only:
    a console session or an unrestricted key)."""
    key = await service.set_tool_confirmation(
        context.session, caller=context.caller, key_id=key_id, policy=body.tool_confirmation
    )
    return await context.respond(_key_read(key))


@router.delete(
    "/api-keys/{key_id}", status_code=204, tags=["API keys"], summary="Revoke an API key"
)
async def revoke_api_key(key_id: str, context: Context) -> Response:
    """Revocation is immediate and final; revoking a revoked key is a no-op."""
    await service.revoke_api_key(
        context.session, caller=context.caller, key_id=key_id, now=context.now()
    )
    return Response(status_code=204)


@router.post(
    "/console/sessions",
    status_code=201,
    response_model=ConsoleSessionCreated,
    tags=["Console"],
    summary="Sign in to the console",
)
async def create_console_session(body: ConsoleSessionCreate, context: Public) -> Response:
    """Returns a `cs_…` bearer token and sets it as an HttpOnly cookie; both last 12 hours.

    A request authenticated by the cookie alone that changes something (POST, PUT, PATCH,
    DELETE) must send `csrfToken` in the `X-Corridor-CSRF` header, or it is refused with
    403 `csrf_token_invalid`; bearer requests need no CSRF token.

    Failed sign-ins are limited per email and per client address (by default 10 per 15
    minutes per email, 50 per address): then every sign-in for them, right password or
    not, answers 429 `rate_limited` with `Retry-After` until the window has room."""
    limiter = context.request.app.state.rate_limiter
    address = client_address(context.request.client)
    async with limiter.sign_in_attempt(email=body.email, address=address):
        signed_in = await service.sign_in(
            context.session,
            email=body.email,
            password=body.password,
            now=context.now(),
            lifetime_s=context.settings.console_session_lifetime_s,
        )
    answer = ConsoleSessionCreated(
        token=signed_in.token,
        expires_at=signed_in.console_session.expires_at,
        user=ConsoleUserRead.model_validate(signed_in.user),
        csrf_token=csrf_token(signed_in.token),
    )
    response = await context.respond(answer, status=201)
    response.set_cookie(
        CONSOLE_SESSION_COOKIE,
        signed_in.token,
        max_age=context.settings.console_session_lifetime_s,
        httponly=True,
        secure=not context.settings.is_sandbox,
        samesite="lax",
    )
    return response


@router.get(
    "/console/sessions/current",
    response_model=ConsoleSessionRead,
    tags=["Console"],
    summary="Get the current console session",
)
async def get_console_session(context: Context) -> ConsoleSessionRead:
    """The signed-in user, when the session ends, and its CSRF token (for the
    `X-Corridor-CSRF` header of cookie-authenticated writes)."""
    token = _console_token(context)
    found = await service.current_session(context.session, caller=context.caller, token=token)
    return ConsoleSessionRead(
        expires_at=found.console_session.expires_at,
        user=ConsoleUserRead.model_validate(found.user),
        csrf_token=csrf_token(token),
    )


@router.delete("/console/sessions/current", status_code=204, tags=["Console"], summary="Sign out")
async def delete_console_session(context: Context) -> Response:
    """Ends the console session whose token (bearer or cookie) made the request; the token
    stops working at once and the cookie is cleared."""
    await service.sign_out(
        context.session, caller=context.caller, token=_console_token(context), now=context.now()
    )
    response = Response(status_code=204)
    response.delete_cookie(CONSOLE_SESSION_COOKIE)
    return response


def _console_token(context) -> str:
    header = context.request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return context.request.cookies.get(CONSOLE_SESSION_COOKIE, "")
