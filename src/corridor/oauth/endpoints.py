"""The OAuth 2.1 authorization server's endpoints (RFC 8414 metadata, RFC 7591 registration,
the authorization endpoint, the token endpoint, RFC 7009 revocation) and the connected apps
an owner reads and revokes (`/v1/oauth-grants`).

The protocol endpoints speak OAuth: form bodies in, RFC 6749 error members out (besides
API.md's; errors.py). Their bodies are parsed here, strictly (each parameter at most once,
RFC 6749 section 3.1), and the service decides."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Annotated
from urllib.parse import parse_qsl, unquote

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import RedirectResponse
from mcp.server.auth.provider import construct_redirect_uri
from mcp.shared.auth import OAuthMetadata, OAuthToken
from pydantic import ValidationError

from corridor.auth.callers import ToolConfirmation
from corridor.auth.scopes import Scope
from corridor.kit.clock import as_utc
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.kit.schemas import refuse_line_breaks_and_hidden_characters
from corridor.oauth import documents, rules, service
from corridor.oauth.errors import (
    AuthorizationRefused,
    InvalidClient,
    InvalidClientMetadata,
    InvalidRedirectUri,
    InvalidRequest,
)
from corridor.oauth.rules import ClientAuthentication
from corridor.oauth.schemas import (
    ClientRegistrationRequest,
    OAuthClientRead,
    OAuthGrantRead,
    OAuthGrantUpdate,
)
from corridor.web.context import Context, Public, PublicContext, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(include_in_schema=False)
grants_router = APIRouter(prefix="/v1/oauth-grants", responses=ERROR_RESPONSES)

AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"
REGISTER_PATH = "/oauth/register"
REVOKE_PATH = "/oauth/revoke"
CONSENT_PATH = "/console/connected-apps/authorize"
FORM_TYPE = "application/x-www-form-urlencoded"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
# An OAuth request is a handful of short parameters.
oauth_body_bytes_max = 16 * 1024
oauth_parameters_max = 20
registration_bytes_max = 64 * 1024
metadata_cache_s = 300


def base_url(context: PublicContext) -> str:
    return rules.base_url_of(context.settings.public_base_url, str(context.request.base_url))


def _single(pairs: list[tuple[str, str]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, value in pairs:
        if name in found:
            raise InvalidRequest(f"{name} is sent more than once")
        try:
            refuse_line_breaks_and_hidden_characters(value)
        except ValueError as problem:
            raise InvalidRequest(f"{name}: {problem}") from None
        found[name] = value
    return found


async def _form(request: Request) -> dict[str, str]:
    """The request's form (application/x-www-form-urlencoded, RFC 6749 section 3.2)."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM_TYPE:
        raise InvalidRequest(f"The body must be {FORM_TYPE}")
    body = await request.body()
    if len(body) > oauth_body_bytes_max:
        raise InvalidRequest(f"The body is over {oauth_body_bytes_max} bytes")
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=bool(body),
            max_num_fields=oauth_parameters_max,
        )
    except (UnicodeDecodeError, ValueError):
        raise InvalidRequest("The body is not a form") from None
    return _single(pairs)


def _basic_credentials(header: str) -> tuple[str, str]:
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        raise InvalidClient("Clients authenticate with HTTP Basic or in the form", basic=True)
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise InvalidClient(
            "The Basic credentials are not base64 of id:secret", basic=True
        ) from None
    client_id, separator, secret = decoded.partition(":")
    if not separator:
        raise InvalidClient("The Basic credentials are not base64 of id:secret", basic=True)
    # RFC 6749 section 2.3.1: both parts are form-urlencoded before they are joined.
    return unquote(client_id), unquote(secret)


def _client_credentials(request: Request, form: dict[str, str]) -> service.ClientCredentials:
    header = request.headers.get("authorization")
    if header is not None:
        client_id, secret = _basic_credentials(header)
        if form.get("client_id", client_id) != client_id:
            raise InvalidRequest("client_id differs from the Basic credentials'")
        if "client_secret" in form:
            raise InvalidRequest("Send the client secret one way only")
        return service.ClientCredentials(client_id, secret, ClientAuthentication.SECRET_BASIC)
    if "client_secret" in form:
        return service.ClientCredentials(
            form.get("client_id"), form["client_secret"], ClientAuthentication.SECRET_POST
        )
    return service.ClientCredentials(form.get("client_id"), None, ClientAuthentication.NONE)


def _lifetimes(context: PublicContext) -> service.TokenLifetimes:
    settings = context.settings
    return service.TokenLifetimes(
        settings.oauth_access_token_ttl_s, settings.oauth_refresh_token_ttl_s
    )


def _json(document: dict, *, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(document, ensure_ascii=False),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


# --- Metadata (RFC 8414) -------------------------------------------------------------------


def authorization_server_metadata(base: str) -> OAuthMetadata:
    methods = [method.value for method in ClientAuthentication]
    return OAuthMetadata.model_validate(
        {
            "issuer": base,
            "authorization_endpoint": base + AUTHORIZE_PATH,
            "token_endpoint": base + TOKEN_PATH,
            "registration_endpoint": base + REGISTER_PATH,
            "revocation_endpoint": base + REVOKE_PATH,
            "scopes_supported": [scope.value for scope in Scope],
            "response_types_supported": ["code"],
            "grant_types_supported": sorted(rules.GRANT_TYPES),
            "token_endpoint_auth_methods_supported": methods,
            "revocation_endpoint_auth_methods_supported": methods,
            "code_challenge_methods_supported": [rules.PKCE_METHOD],
            "authorization_response_iss_parameter_supported": True,
            # A client_id may be the https URL of the client's metadata document.
            "client_id_metadata_document_supported": True,
            "service_documentation": base + "/docs",
        }
    )


@router.get("/.well-known/oauth-authorization-server")
async def metadata(context: Public) -> Response:
    """RFC 8414: where the endpoints are and what they accept."""
    document = authorization_server_metadata(base_url(context))
    return _json(
        document.model_dump(mode="json", exclude_none=True),
        headers={"Cache-Control": f"public, max-age={metadata_cache_s}"},
    )


# --- Registration (RFC 7591) ---------------------------------------------------------------


def _registration_request(body: bytes) -> ClientRegistrationRequest:
    if len(body) > registration_bytes_max:
        raise InvalidClientMetadata(f"The body is over {registration_bytes_max} bytes")
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to be metadata
        raise InvalidClientMetadata("The body must be a JSON object") from None
    if not isinstance(document, dict):
        raise InvalidClientMetadata("The body must be a JSON object")
    try:
        return ClientRegistrationRequest.model_validate(document)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first.get("loc", ())) or "body"
        problem = f"{field}: {first.get('msg', 'invalid value')}"
        if field.startswith("redirect_uris"):
            raise InvalidRedirectUri(problem) from None
        raise InvalidClientMetadata(problem) from None


@router.post(REGISTER_PATH)
async def register(request: Request, context: Public) -> Response:
    """Dynamic client registration: a client_id (`ocl_…`) and, for a confidential client,
    its secret, shown in this answer only."""
    registration = _registration_request(await request.body())
    client, secret = await service.register_client(
        context.session, request=registration, now=context.now()
    )
    answer: dict = {
        "client_id": client.id,
        "client_id_issued_at": int(as_utc(client.created_at).timestamp()),
        "redirect_uris": client.redirect_uris,
        "grant_types": client.grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
        **({"client_name": client.name} if client.name else {}),
        **({"scope": client.scope} if client.scope else {}),
        **client.details,
    }
    if secret is not None:
        # RFC 7591 section 3.2.1: 0 means the secret does not expire.
        answer |= {"client_secret": secret, "client_secret_expires_at": 0}
    await context.session.commit()
    return _json(answer, status=201, headers=NO_STORE)


# --- Authorization -------------------------------------------------------------------------


def _ask(request: Request) -> service.AuthorizationAsk:
    query = _single(parse_qsl(request.url.query, keep_blank_values=True))
    return service.AuthorizationAsk(
        client_id=query.get("client_id"),
        redirect_uri=query.get("redirect_uri"),
        response_type=query.get("response_type"),
        code_challenge=query.get("code_challenge"),
        code_challenge_method=query.get("code_challenge_method"),
        scope=query.get("scope"),
        state=query.get("state"),
        resource=query.get("resource"),
    )


@router.get(AUTHORIZE_PATH)
async def authorize(request: Request, context: Public) -> Response:
    """The authorization endpoint: the person's browser arrives here from the client and is
    sent on to the console's consent page (signing in first if need be). The client_id is
    one registered here or the https URL of the client's metadata document (fetched, then
    cached). A request with an unknown client, a metadata document that cannot be used or
    a redirect URI the client did not register is answered here (400); any other problem
    goes back to the client's redirect URI as `error`."""
    ask, now = _ask(request), context.now()
    # A metadata document is fetched first, on this GET's reading session: no write
    # transaction (SQLite's one writer) waits on a stranger's server.
    document = await service.read_client_document(
        context.session,
        ask.client_id,
        now=now,
        fetch=documents.fetcher(sandbox=context.settings.is_sandbox),
    )
    async with context.database.session(write=True) as session:
        try:
            authorization = await service.start_authorization(
                session,
                ask=ask,
                resource=rules.mcp_resource(base_url(context)),
                now=now,
                document=document,
            )
        except AuthorizationRefused as refused:
            location = construct_redirect_uri(
                refused.redirect_uri,
                error=refused.code,
                error_description=refused.message,
                state=refused.state,
                iss=refused.issuer,
            )
            return RedirectResponse(location, status_code=302, headers=NO_STORE)
        await session.commit()
    return RedirectResponse(f"{CONSENT_PATH}/{authorization.id}", status_code=302, headers=NO_STORE)


# --- Tokens and revocation -----------------------------------------------------------------


def _required(form: dict[str, str], name: str) -> str:
    value = form.get(name)
    if not value:
        raise InvalidRequest(f"{name} is required")
    return value


@router.post(TOKEN_PATH)
async def token(request: Request, context: Public) -> Response:
    """The token endpoint: `authorization_code` (with the PKCE verifier) or `refresh_token`
    (which rotates). Answers RFC 6749 section 5.1's JSON, never cached."""
    form = await _form(request)
    client = await service.authenticate_client(context.session, _client_credentials(request, form))
    grant_type = _required(form, "grant_type")
    service.check_grant_type(client, grant_type)
    issued: service.IssuedTokens | service.Refused
    if grant_type == "authorization_code":
        exchange = service.CodeExchange(
            code=_required(form, "code"),
            code_verifier=_required(form, "code_verifier"),
            redirect_uri=form.get("redirect_uri"),
            resource=form.get("resource"),
        )
        issued = await service.exchange_code(
            context.session,
            client=client,
            exchange=exchange,
            lifetimes=_lifetimes(context),
            now=context.now(),
        )
    else:
        rotation = service.RefreshExchange(
            refresh_token=_required(form, "refresh_token"),
            scope=form.get("scope"),
            resource=form.get("resource"),
        )
        issued = await service.refresh(
            context.session,
            client=client,
            exchange=rotation,
            lifetimes=_lifetimes(context),
            now=context.now(),
        )
    if isinstance(issued, service.Refused):
        return await context.refuse(issued.error)
    await context.session.commit()
    answer = OAuthToken(
        access_token=issued.access_token,
        expires_in=issued.expires_in_s,
        scope=rules.scope_text(issued.scopes),
        refresh_token=issued.refresh_token,
    )
    return _json(answer.model_dump(mode="json", exclude_none=True), headers=NO_STORE)


@router.post(REVOKE_PATH)
async def revoke(request: Request, context: Public) -> Response:
    """RFC 7009: the client revokes a token it holds (its whole grant ends). 200 whether or
    not the token was one: the answer tells nothing of other clients' tokens."""
    form = await _form(request)
    client = await service.authenticate_client(context.session, _client_credentials(request, form))
    await service.revoke_token(
        context.session, client=client, token=_required(form, "token"), now=context.now()
    )
    await context.session.commit()
    return Response(status_code=200, headers=NO_STORE)


# --- Connected apps (/v1/oauth-grants) -----------------------------------------------------


def grant_read(found: service.GrantWithClient) -> OAuthGrantRead:
    grant, client = found.grant, found.client
    return OAuthGrantRead(
        id=grant.id,
        client=OAuthClientRead(
            id=client.id,
            name=client.name,
            redirect_uris=[str(uri) for uri in client.redirect_uris],
            metadata_url=client.metadata_url,
            created_at=client.created_at,
        ),
        agent_id=grant.agent_id,
        scopes=list(grant.scopes),
        tool_confirmation=ToolConfirmation(grant.tool_confirmation),
        resource=grant.resource,
        created_by=grant.created_by,
        created_at=grant.created_at,
        last_token_at=grant.last_token_at,
        revoked_at=grant.revoked_at,
        revoked_reason=grant.revoked_reason,
    )


@grants_router.get(
    "",
    response_model=ListResponse[OAuthGrantRead],
    tags=["OAuth grants"],
    summary="List connected apps",
)
async def list_grants(
    context: Reading, page: Annotated[PageRequest, Depends(page_request)]
) -> ListResponse[OAuthGrantRead]:
    """The MCP clients an owner connected by OAuth (docs/mcp.md), newest first, revoked ones
    included (`revokedAt` set). Needs `api_keys:manage`."""
    found = await service.list_grants(context.session, caller=context.caller, page=page)
    return ListResponse[OAuthGrantRead].of(found, grant_read)


@grants_router.get(
    "/{grant_id}",
    response_model=OAuthGrantRead,
    tags=["OAuth grants"],
    summary="Get a connected app",
)
async def get_grant(grant_id: str, context: Reading) -> OAuthGrantRead:
    """One grant: its client, the scopes or agent it holds, when it last got a token."""
    return grant_read(
        await service.read_grant(context.session, caller=context.caller, grant_id=grant_id)
    )


@grants_router.patch(
    "/{grant_id}",
    response_model=OAuthGrantRead,
    tags=["OAuth grants"],
    summary="Update a connected app",
)
async def update_grant(grant_id: str, body: OAuthGrantUpdate, context: Context) -> Response:
    """Set when its write tool calls wait for a person (`toolConfirmation`; owner only: a
    console session or an unrestricted key). Tokens it holds follow at once."""
    found = await service.set_grant_tool_confirmation(
        context.session, caller=context.caller, grant_id=grant_id, policy=body.tool_confirmation
    )
    return await context.respond(grant_read(found))


@grants_router.post(
    "/{grant_id}/revoke",
    response_model=OAuthGrantRead,
    tags=["OAuth grants"],
    summary="Revoke a connected app",
)
async def revoke_grant(grant_id: str, context: Context) -> Response:
    """Immediate and final: its access and refresh tokens stop working at once (the client
    must ask its person to connect again). Revoking a revoked grant changes nothing."""
    found = await service.revoke_grant(
        context.session, caller=context.caller, grant_id=grant_id, now=context.now()
    )
    return await context.respond(grant_read(found))
