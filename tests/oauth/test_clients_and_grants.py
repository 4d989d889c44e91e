"""Registered clients (RFC 7591) and how they authenticate; revocation by the client
(RFC 7009) and by the owner (the console's connected apps, /v1/oauth-grants)."""

from __future__ import annotations

import base64

import pytest

from tests.conftest import assert_error, client_for
from tests.console.helpers import console_browser, post_form
from tests.oauth.helpers import (
    REDIRECT_URI,
    code_for,
    connect,
    exchange,
    mcp_call,
    refresh,
    register,
)
from tests.oauth.test_flow import oauth_error

pytestmark = pytest.mark.usefixtures("mcp_running")


def basic(client_id: str, secret: str) -> dict[str, str]:
    encoded = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {encoded}"}


async def test_registration_echoes_the_client_and_defaults_to_a_confidential_one(
    anonymous,
) -> None:
    answer = await anonymous.post(
        "/oauth/register",
        json={
            "redirect_uris": [REDIRECT_URI],
            "client_name": "Desk",
            "software_id": "desk",
            "scope": "transfers:read offline_access",
            "jwks": {"keys": []},  # not understood: ignored, as RFC 7591 asks
        },
    )
    assert answer.status_code == 201, answer.text
    assert answer.headers["cache-control"] == "no-store"
    client = answer.json()
    assert client["client_id"].startswith("ocl_")
    assert client["client_secret"].startswith("mcp_cs_")
    assert client["client_secret_expires_at"] == 0
    assert client["token_endpoint_auth_method"] == "client_secret_basic"
    assert client["grant_types"] == ["authorization_code", "refresh_token"]
    assert client["scope"] == "transfers:read" and client["software_id"] == "desk"
    assert "jwks" not in client


async def test_a_confidential_client_proves_itself_with_its_secret(app, tenant, anonymous):
    registered = await anonymous.post("/oauth/register", json={"redirect_uris": [REDIRECT_URI]})
    client = registered.json()
    flow = await register(anonymous)  # a public client's flow, re-pointed below
    flow.client_id = client["client_id"]
    async with console_browser(app, tenant) as console:
        flow = await code_for(anonymous, console, flow, scope="transfers:read")
    fields = {
        "grant_type": "authorization_code",
        "code": flow.code or "",
        "code_verifier": flow.pkce.code_verifier,
        "redirect_uri": REDIRECT_URI,
        "client_id": client["client_id"],
    }
    anonymous_try = await anonymous.post("/oauth/token", data=fields)
    refused = oauth_error(anonymous_try, 401, "invalid_client")
    assert "client_secret_basic" in refused["message"]
    assert anonymous_try.headers["www-authenticate"] == 'Basic realm="corridor"'
    wrong = await anonymous.post(
        "/oauth/token", data=fields, headers=basic(client["client_id"], "mcp_cs_wrong")
    )
    oauth_error(wrong, 401, "invalid_client")
    right = await anonymous.post(
        "/oauth/token", data=fields, headers=basic(client["client_id"], client["client_secret"])
    )
    assert right.status_code == 200, right.text


async def test_a_public_client_sends_no_secret_and_a_narrow_one_cannot_refresh(
    app, tenant, anonymous
) -> None:
    flow = await register(anonymous, grant_types=["authorization_code"])
    async with console_browser(app, tenant) as console:
        flow = await code_for(anonymous, console, flow)
    flow.client_secret = "mcp_cs_invented"
    oauth_error(await exchange(anonymous, flow), 401, "invalid_client")
    flow.client_secret = None
    tokens = (await exchange(anonymous, flow)).json()
    narrow = await refresh(anonymous, flow, tokens["refresh_token"])
    oauth_error(narrow, 400, "unauthorized_client")


async def test_the_client_revokes_its_tokens(app, tenant, anonymous) -> None:
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console)
        other = await connect(anonymous, console)
    # Another client's token, or no token at all: 200, and nothing changes.
    for token in (other.tokens["refresh_token"], "mcp_rt_unknown"):
        answer = await anonymous.post("/oauth/revoke", data=flow.form(token=token))
        assert answer.status_code == 200 and answer.content == b""
    assert (
        await mcp_call(anonymous, other.tokens["access_token"], "tools/list")
    ).status_code == 200
    revoked = await anonymous.post(
        "/oauth/revoke",
        data=flow.form(token=flow.tokens["refresh_token"], token_type_hint="refresh_token"),
    )
    assert revoked.status_code == 200
    assert_error(
        await mcp_call(anonymous, flow.tokens["access_token"], "tools/list"), 401, "unauthorized"
    )
    oauth_error(await refresh(anonymous, flow, flow.tokens["refresh_token"]), 400, "invalid_grant")
    grants = (await tenant.client.get("/v1/oauth-grants")).json()["data"]
    reasons = sorted(str(grant["revokedReason"]) for grant in grants)
    assert reasons == ["None", "revoked_by_client"]


async def test_the_owner_disconnects_an_app_in_the_console(app, tenant, anonymous) -> None:
    async with console_browser(app, tenant) as console:
        flow = await connect(anonymous, console)
        listed = await console.get("/console/connected-apps")
        assert "Desk Client" in listed.text and "accounts:read, transfers:read" in listed.text
        [grant] = (await tenant.client.get("/v1/oauth-grants")).json()["data"]
        forged = await console.post(f"/console/connected-apps/{grant['id']}/revoke")
        assert forged.status_code == 403
        done = await post_form(
            console, "/console/connected-apps", f"/console/connected-apps/{grant['id']}/revoke", {}
        )
        assert done.status_code == 303
        after = await console.get(done.headers["location"])
        assert "Disconnected" in after.text and "REVOKED" in after.text
    refused = await mcp_call(anonymous, flow.tokens["access_token"], "tools/list")
    assert "revoked" in assert_error(refused, 401, "unauthorized")["message"]
    oauth_error(await refresh(anonymous, flow, flow.tokens["refresh_token"]), 400, "invalid_grant")


async def test_the_owner_sets_an_apps_write_tool_policy(app, tenant, anonymous) -> None:
    async with console_browser(app, tenant) as console:
        await connect(anonymous, console)
        [grant] = (await tenant.client.get("/v1/oauth-grants")).json()["data"]
        done = await post_form(
            console,
            "/console/connected-apps",
            f"/console/connected-apps/{grant['id']}/tool-confirmation",
            {"tool_confirmation": "over_limit"},
        )
        assert done.status_code == 303
    read = (await tenant.client.get(f"/v1/oauth-grants/{grant['id']}")).json()
    assert read["toolConfirmation"] == "over_limit"


async def test_grants_over_the_api_need_the_right_key(app, tenant, make_tenant, anonymous):
    async with console_browser(app, tenant) as console:
        await connect(anonymous, console)
    [grant] = (await tenant.client.get("/v1/oauth-grants")).json()["data"]
    path = f"/v1/oauth-grants/{grant['id']}"
    stranger = await make_tenant()
    assert_error(await stranger.client.get(path), 404, "not_found")
    assert_error(await stranger.client.post(f"{path}/revoke"), 404, "not_found")
    narrow = await tenant.client.post(
        "/v1/api-keys", json={"name": "reader", "scopes": ["transfers:read"]}
    )
    async with client_for(app, {"Authorization": f"Bearer {narrow.json()['secret']}"}) as reader:
        assert_error(await reader.get("/v1/oauth-grants"), 403, "forbidden")
    manager = await tenant.client.post(
        "/v1/api-keys", json={"name": "keys", "scopes": ["api_keys:manage"]}
    )
    async with client_for(app, {"Authorization": f"Bearer {manager.json()['secret']}"}) as keys:
        assert (await keys.get(path)).status_code == 200
        changed = await keys.patch(path, json={"toolConfirmation": "never"})
        assert_error(changed, 403, "forbidden")
    assert_error(
        await tenant.client.patch(path, json={"toolConfirmation": "sometimes"}),
        422,
        "validation_error",
    )
    assert_error(await tenant.client.patch(path, json={"scopes": ["*"]}), 422, "validation_error")
    revoked = await tenant.client.post(f"{path}/revoke")
    assert revoked.status_code == 200 and revoked.json()["revokedReason"] == "revoked_by_owner"
    again = await tenant.client.post(f"{path}/revoke")
    assert again.json()["revokedAt"] == revoked.json()["revokedAt"]
    assert_error(
        await tenant.client.patch(path, json={"toolConfirmation": "never"}), 409, "conflict"
    )
