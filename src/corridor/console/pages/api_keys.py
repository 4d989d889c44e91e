"""API keys of the organization: the list, a new key with the scopes ticked (its secret
shown once, in the answer to the POST only), and revocation. The same service functions
as `POST/GET/DELETE /v1/api-keys` (`auth.service`)."""

from __future__ import annotations

from fastapi import Response

from corridor.auth import service as auth_service
from corridor.auth.callers import ToolConfirmation
from corridor.auth.schemas import ApiKeyCreate, ApiKeyRead, ApiKeyUpdate
from corridor.auth.scopes import UNRESTRICTED, Scope
from corridor.console.forms import parse_form, problems_by_field
from corridor.console.layout import notice, page
from corridor.console.listing import listing_of
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import CorridorError, ValidationFailed

router = console_router()

# A checkbox per scope: `scope-<scope>` (a console form keeps one value per name).
SCOPE_FIELD_PREFIX = "scope-"
SCOPES = sorted(Scope, key=lambda scope: (scope.value.split(":")[0], scope.value))

KEY_POLICY_SAVED = notice(
    "key-policy-saved", "Saved: the key's write tool calls follow the new policy now."
)
KEY_POLICIES = [
    (ToolConfirmation.ALWAYS, "Every write waits for a person to confirm it (the default)"),
    (ToolConfirmation.OVER_LIMIT, "Only a write past its agent's limits or mandate waits"),
    (ToolConfirmation.NEVER, "Writes run at once (an agent's limits and mandates still hold)"),
]
KEY_REVOKED = notice("key-revoked", "Key revoked: requests made with it are refused from now on.")


async def _keys_page(
    console: Console,
    *,
    created: ApiKeyRead | None = None,
    secret: str | None = None,
    problems: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    listing = listing_of(console.request)
    found = await auth_service.list_api_keys(
        console.session, caller=console.caller, page=listing.page
    )
    return page(
        console,
        "api_keys.html",
        status=status,
        listing=listing,
        found=found,
        rows=[ApiKeyRead.model_validate(key) for key in found.items],
        scopes=SCOPES,
        scope_prefix=SCOPE_FIELD_PREFIX,
        unrestricted=UNRESTRICTED,
        created=created,
        secret=secret,
        problems=problems or {},
        sent=console.form if problems else {},
        policies=KEY_POLICIES,
        policy_values=[policy.value for policy in ToolConfirmation],
    )


@router.get("/api-keys")
async def key_list(console: ConsolePage) -> Response:
    return await _keys_page(console)


def _chosen_scopes(form: dict[str, str]) -> list[str]:
    return [
        name.removeprefix(SCOPE_FIELD_PREFIX)
        for name, value in form.items()
        if name.startswith(SCOPE_FIELD_PREFIX) and value == "yes"
    ]


@router.post("/api-keys")
async def create_key(console: ConsolePage) -> Response:
    """The secret is in this answer only (no-store, as every console page): the server keeps
    a hash, never the secret, and it is never put in a URL or a redirect."""
    try:
        scopes = _chosen_scopes(console.form)
        if not scopes:
            raise ValidationFailed("scopes", "tick at least one scope")
        body = parse_form(
            ApiKeyCreate,
            {
                "name": console.form.get("name"),
                "scopes": scopes,
                "toolConfirmation": console.form.get("tool_confirmation"),
            },
        )
        key, secret = await auth_service.create_api_key(
            console.session,
            caller=console.caller,
            name=body.name,
            scopes=body.scopes,
            key_environment=console.settings.key_environment,
            now=console.now(),
            tool_confirmation=body.tool_confirmation,
        )
    except CorridorError as error:
        if error.status != 422:
            raise
        await console.session.rollback()
        return await _keys_page(console, problems=problems_by_field(error), status=422)
    await console.commit()
    return await _keys_page(
        console, created=ApiKeyRead.model_validate(key), secret=secret, status=201
    )


@router.post("/api-keys/{key_id}/tool-confirmation")
async def set_key_policy(key_id: str, console: ConsolePage) -> Response:
    """When the key's write tool calls wait for a person (`PATCH /v1/api-keys/{id}`), for
    organization keys here and agent keys on their agent's page."""
    body = parse_form(ApiKeyUpdate, {"toolConfirmation": console.form.get("tool_confirmation")})
    key = await auth_service.set_tool_confirmation(
        console.session, caller=console.caller, key_id=key_id, policy=body.tool_confirmation
    )
    await console.commit()
    back = f"/console/agents/{key.agent_id}" if key.agent_id else "/console/api-keys"
    return redirect(console.request, f"{back}?done={KEY_POLICY_SAVED}")


@router.post("/api-keys/{key_id}/revoke")
async def revoke_key(key_id: str, console: ConsolePage) -> Response:
    await auth_service.revoke_api_key(
        console.session, caller=console.caller, key_id=key_id, now=console.now()
    )
    await console.commit()
    return redirect(console.request, f"/console/api-keys?done={KEY_REVOKED}")
