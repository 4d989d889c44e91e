"""OAuth 2.1 for MCP clients, in-process over HTTP: discovery, registration, consent in the
console, PKCE, the token bound to /mcp as its audience, expiry, revocation, rotation."""

from __future__ import annotations

from datetime import timedelta

import pytest

from corridor.kit.clock import SystemClock
from tests.conftest import assert_error, client_for
from tests.console.helpers import console_browser
from tests.oauth.helpers import (
    INITIALIZE,
    ISSUER,
    REDIRECT_URI,
    RESOURCE,
    authorize,
    code_for,
    connect,
    exchange,
    mcp_call,
    query_of,
    refresh,
    register,
)

pytestmark = pytest.mark.usefixtures("mcp_running")


def oauth_error(response, status: int, error: str) -> dict:
    """An OAuth error (RFC 6749 section 5.2) that is also API.md's error body."""
    body = assert_error(response, status, error)
    assert body["error"] == error and body["error_description"] == body["message"]
    assert response.headers["cache-control"] == "no-store"
    return body


async def test_a_client_discovers_the_authorization_server_from_a_401(anonymous) -> None:
    refused = await mcp_call(anonymous, "", "initialize", INITIALIZE, headers={"Authorization": ""})
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert challenge == (
        'Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
    )
    resource = (await anonymous.get("/.well-known/oauth-protected-resource/mcp")).json()
    assert resource == (await anonymous.get("/.well-known/oauth-protected-resource")).json()
    assert resource["resource"] == RESOURCE
    assert resource["authorization_servers"] == [ISSUER]
    assert "transfers:write" in resource["scopes_supported"]
    assert "api_keys:manage" not in resource["scopes_supported"]  # no tool asks for it
    server = (await anonymous.get("/.well-known/oauth-authorization-server")).json()
    assert server["issuer"] == ISSUER
    assert server["authorization_endpoint"] == "http://testserver/oauth/authorize"
    assert server["token_endpoint"] == "http://testserver/oauth/token"
    assert server["registration_endpoint"] == "http://testserver/oauth/register"
    assert server["revocation_endpoint"] == "http://testserver/oauth/revoke"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert server["authorization_response_iss_parameter_supported"] is True


async def test_an_owner_connects_a_client_which_holds_exactly_the_scopes_granted(
    app, tenant, anonymous
) -> None:
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console, scopes=["transfers:read"])
    tokens = flow.tokens
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 900
    assert tokens["scope"] == "transfers:read"
    assert tokens["access_token"].startswith("mcp_at_")
    assert tokens["refresh_token"].startswith("mcp_rt_")
    listed = await mcp_call(anonymous, tokens["access_token"], "tools/list")
    assert listed.status_code == 200, listed.text
    names = {tool["name"] for tool in listed.json()["result"]["tools"]}
    assert "list_transfers" in names and "create_transfer" not in names
    assert "get_balance" not in names  # accounts:read was asked for, not granted
    rest = await anonymous.get(
        "/v1/transfers", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert assert_error(rest, 401, "unauthorized")["message"].endswith("(/mcp) only")
    grants = (await tenant.client.get("/v1/oauth-grants")).json()["data"]
    assert [grant["scopes"] for grant in grants] == [["transfers:read"]]
    assert grants[0]["client"]["name"] == "Desk Client"
    assert grants[0]["client"]["metadataUrl"] is None  # registered, not a metadata document
    assert grants[0]["resource"] == RESOURCE and grants[0]["toolConfirmation"] == "always"


async def test_a_tool_outside_the_grant_asks_for_the_scope_it_needs(app, tenant, anonymous):
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console, scopes=["transfers:read"])
    call = {"name": "create_transfer", "arguments": {}}
    refused = await mcp_call(anonymous, flow.tokens["access_token"], "tools/call", call)
    assert_error(refused, 403, "insufficient_scope")
    assert refused.headers["www-authenticate"] == (
        'Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp", '
        'error="insufficient_scope", scope="transfers:write"'
    )


async def test_pkce_is_required_and_s256_only(app, tenant, anonymous) -> None:
    flow = await register(anonymous)
    for overrides, problem in [
        ({"code_challenge": None}, "code_challenge is required"),
        ({"code_challenge_method": "plain"}, "must be S256"),
        ({"code_challenge_method": None}, "must be S256"),
        ({"code_challenge": "short"}, "43 characters"),
    ]:
        answer = await authorize(anonymous, flow, **overrides)
        assert answer.status_code == 302, answer.text
        back = query_of(answer.headers["location"])
        assert back["error"] == "invalid_request" and problem in back["error_description"]
        assert back["state"] == flow.state and back["iss"] == ISSUER
        assert answer.headers["location"].startswith(REDIRECT_URI + "?")


async def test_a_wrong_verifier_spends_the_code(app, tenant, anonymous) -> None:
    async with console_browser(app, tenant) as console:
        flow = await code_for(anonymous, console, await register(anonymous))
    wrong = await exchange(anonymous, flow, code_verifier="a" * 64)
    assert "code_verifier" in oauth_error(wrong, 400, "invalid_grant")["message"]
    right = await exchange(anonymous, flow)
    oauth_error(right, 400, "invalid_grant")
    assert (await tenant.client.get("/v1/oauth-grants")).json()["data"] == []


async def test_a_code_is_good_once_and_its_reuse_revokes_what_it_gave(
    app, tenant, anonymous
) -> None:
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console)
    again = await exchange(anonymous, flow)
    oauth_error(again, 400, "invalid_grant")
    gone = await mcp_call(anonymous, flow.tokens["access_token"], "tools/list")
    assert_error(gone, 401, "unauthorized")
    assert 'error="invalid_token"' in gone.headers["www-authenticate"]
    grant = (await tenant.client.get("/v1/oauth-grants")).json()["data"][0]
    assert grant["revokedReason"] == "code_reused"


async def test_redirect_uris_are_matched_exactly_and_mismatches_never_redirected(
    anonymous,
) -> None:
    flow = await register(anonymous)
    for redirect in [
        "http://127.0.0.1:33418/callback/",
        "http://127.0.0.1:9999/callback",
        "https://attacker.example/callback",
    ]:
        answer = await authorize(anonymous, flow, redirect_uri=redirect)
        assert "redirect_uri" in oauth_error(answer, 400, "invalid_request")["message"]
    unknown = await authorize(anonymous, flow, client_id="ocl_01jd3x0p6x9e3k2v1m8q4r7s5t")
    oauth_error(unknown, 400, "invalid_request")


async def test_a_resource_other_than_this_mcp_endpoint_is_refused(app, tenant, anonymous) -> None:
    flow = await register(anonymous)
    answer = await authorize(anonymous, flow, resource="https://other.example/mcp")
    assert query_of(answer.headers["location"])["error"] == "invalid_target"
    async with console_browser(app, tenant) as console:
        flow = await code_for(anonymous, console, flow)
    wrong = await exchange(anonymous, flow, resource="http://testserver/other")
    oauth_error(wrong, 400, "invalid_target")


async def test_a_token_is_refused_by_another_audience(app, tenant, anonymous) -> None:
    """The same server reached under another name is another resource: a token bound to
    http://testserver/mcp is not good at http://elsewhere/mcp."""
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console)
    async with client_for(app) as elsewhere:
        elsewhere.base_url = "http://elsewhere"
        refused = await mcp_call(elsewhere, flow.tokens["access_token"], "tools/list")
    body = assert_error(refused, 401, "unauthorized")
    assert "not http://elsewhere/mcp" in body["message"]
    assert refused.headers["www-authenticate"].startswith(
        'Bearer resource_metadata="http://elsewhere/.well-known/oauth-protected-resource/mcp", '
        'error="invalid_token"'
    )


async def test_an_expired_access_token_is_refused_and_refreshed(
    app, tenant, anonymous, clock
) -> None:
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console)
    clock.set(SystemClock().now() + timedelta(seconds=901))
    expired = await mcp_call(anonymous, flow.tokens["access_token"], "tools/list")
    assert "expired" in assert_error(expired, 401, "unauthorized")["message"]
    assert 'error="invalid_token"' in expired.headers["www-authenticate"]
    renewed = await refresh(anonymous, flow, flow.tokens["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    listed = await mcp_call(anonymous, renewed.json()["access_token"], "tools/list")
    assert listed.status_code == 200, listed.text


async def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_family(
    app, tenant, anonymous
) -> None:
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console)
    first = flow.tokens["refresh_token"]
    rotated = await refresh(anonymous, flow, first)
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert (
        second["refresh_token"] != first and second["access_token"] != flow.tokens["access_token"]
    )
    narrowed = await refresh(anonymous, flow, second["refresh_token"], scope="transfers:read")
    assert narrowed.status_code == 200 and narrowed.json()["scope"] == "transfers:read"
    third = narrowed.json()
    replayed = await refresh(anonymous, flow, first)
    assert "already used" in oauth_error(replayed, 400, "invalid_grant")["message"]
    for token in (third["access_token"], second["access_token"]):
        refused = await mcp_call(anonymous, token, "tools/list")
        assert_error(refused, 401, "unauthorized")
    oauth_error(await refresh(anonymous, flow, third["refresh_token"]), 400, "invalid_grant")
    grant = (await tenant.client.get("/v1/oauth-grants")).json()["data"][0]
    assert grant["revokedReason"] == "refresh_token_reused"
