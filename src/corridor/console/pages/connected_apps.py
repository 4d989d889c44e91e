"""OAuth in the console (docs/mcp.md, "OAuth 2.1"): the consent page
an MCP client's authorization request leads to, where the signed-in owner picks the scopes,
the agent the client acts as (or the organization) and when its write tools wait for them;
and the connected apps, each revocable. The same services as `/oauth/*` and
`/v1/oauth-grants` (`oauth.service`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import Response

from corridor.auth.callers import ToolConfirmation
from corridor.console.forms import problems_by_field
from corridor.console.layout import notice, page
from corridor.console.listing import listing_of
from corridor.console.rendering import CONTENT_SECURITY_POLICY
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import ValidationFailed
from corridor.oauth import service

router = console_router()

SCOPE_FIELD_PREFIX = "scope-"
ACT_AS_ORGANIZATION = "organization"
POLICIES = [
    (ToolConfirmation.ALWAYS, "Every write tool call waits for you to confirm it"),
    (ToolConfirmation.OVER_LIMIT, "Only a payment past the agent's limits or mandate waits"),
    (ToolConfirmation.NEVER, "Write tools run at once (limits and mandates still hold)"),
]

APP_REVOKED = notice(
    "app-revoked", "Disconnected: the app's tokens stopped working; it must ask you again."
)
APP_UPDATED = notice("app-updated", "Saved: the app's write tools follow the new policy now.")


def _form_action_source(redirect_uri: str) -> str:
    """What the consent page's Content-Security-Policy must allow its form to lead to: the
    redirect URI's origin (http, https) or its scheme (an app's own, `cursor:`)."""
    parts = urlsplit(redirect_uri)
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:"


def _with_form_action(response: Response, redirect_uri: str) -> Response:
    """Browsers hold a form's redirect to the page's form-action; the consent form's answer
    goes on to the app."""
    allowed = _form_action_source(redirect_uri)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'", f"form-action 'self' {allowed}"
    )
    return response


async def _consent_page(
    console: Console,
    authorization_id: str,
    *,
    problems: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    consent = await service.read_consent(
        console.session, caller=console.caller, authorization_id=authorization_id, now=console.now()
    )
    sent = console.form if problems else {}
    asked = set(consent.authorization.requested_scopes)
    ticked = (
        {
            name.removeprefix(SCOPE_FIELD_PREFIX)
            for name in sent
            if name.startswith(SCOPE_FIELD_PREFIX)
        }
        if problems
        else asked
    )
    response = page(
        console,
        "oauth/consent.html",
        status=status,
        consent=consent,
        client=consent.client,
        # A metadata document client is vouched for by the site that publishes its document.
        document_host=urlsplit(consent.client.metadata_url or "").netloc,
        redirect_host=urlsplit(consent.authorization.redirect_uri).netloc
        or consent.authorization.redirect_uri,
        scopes=consent.scopes_offered,
        ticked=ticked,
        scope_prefix=SCOPE_FIELD_PREFIX,
        organization_choice=ACT_AS_ORGANIZATION,
        act_as=sent.get("act_as", ACT_AS_ORGANIZATION),
        policies=POLICIES,
        policy=sent.get("tool_confirmation", ToolConfirmation.ALWAYS.value),
        problems=problems or {},
    )
    return _with_form_action(response, consent.authorization.redirect_uri)


@router.get("/connected-apps/authorize/{authorization_id}")
async def consent_page(authorization_id: str, console: ConsolePage) -> Response:
    return await _consent_page(console, authorization_id)


def _answer(form: dict[str, str]) -> service.ConsentAnswer:
    act_as = form.get("act_as", ACT_AS_ORGANIZATION)
    try:
        policy = ToolConfirmation(form.get("tool_confirmation", ToolConfirmation.ALWAYS.value))
    except ValueError:
        raise ValidationFailed("tool_confirmation", "choose one of the three") from None
    return service.ConsentAnswer(
        scopes=[
            name.removeprefix(SCOPE_FIELD_PREFIX)
            for name, value in form.items()
            if name.startswith(SCOPE_FIELD_PREFIX) and value == "yes"
        ],
        agent_id=None if act_as == ACT_AS_ORGANIZATION else act_as,
        tool_confirmation=policy,
    )


@router.post("/connected-apps/authorize/{authorization_id}")
async def decide(authorization_id: str, console: ConsolePage) -> Response:
    """Allow: a one-time code goes back to the app; Deny: the app hears access_denied.
    Either way the browser is sent on to the app's redirect URI."""
    if console.form.get("decision") == "deny":
        location = await service.deny(
            console.session,
            caller=console.caller,
            authorization_id=authorization_id,
            now=console.now(),
        )
    else:
        try:
            location = await service.approve(
                console.session,
                caller=console.caller,
                authorization_id=authorization_id,
                answer=_answer(console.form),
                now=console.now(),
            )
        except ValidationFailed as error:
            await console.session.rollback()
            return await _consent_page(
                console, authorization_id, problems=problems_by_field(error), status=422
            )
    await console.commit()
    return redirect(console.request, location)


# --- Connected apps ------------------------------------------------------------------------


@router.get("/connected-apps")
async def connected_apps(console: ConsolePage) -> Response:
    listing = listing_of(console.request)
    found = await service.list_grants(console.session, caller=console.caller, page=listing.page)
    return page(
        console,
        "oauth/connected_apps.html",
        listing=listing,
        found=found,
        rows=found.items,
        policies=POLICIES,
    )


@router.post("/connected-apps/{grant_id}/revoke")
async def revoke_app(grant_id: str, console: ConsolePage) -> Response:
    await service.revoke_grant(
        console.session, caller=console.caller, grant_id=grant_id, now=console.now()
    )
    await console.commit()
    return redirect(console.request, f"/console/connected-apps?done={APP_REVOKED}")


@router.post("/connected-apps/{grant_id}/tool-confirmation")
async def set_policy(grant_id: str, console: ConsolePage) -> Response:
    try:
        policy = ToolConfirmation(console.form.get("tool_confirmation", ""))
    except ValueError:
        raise ValidationFailed("tool_confirmation", "choose one of the three") from None
    await service.set_grant_tool_confirmation(
        console.session, caller=console.caller, grant_id=grant_id, policy=policy
    )
    await console.commit()
    return redirect(console.request, f"/console/connected-apps?done={APP_UPDATED}")
