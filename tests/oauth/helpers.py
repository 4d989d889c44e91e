"""An MCP client's side of OAuth, by hand over HTTP (the official client's own flow is
tests/oauth/test_official_client.py): register, authorize with PKCE, the owner's consent in
the console, the token exchange, and JSON-RPC calls to /mcp with the access token."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import httpx
from mcp.client.auth.oauth2 import PKCEParameters

from tests.console.helpers import csrf_of

REDIRECT_URI = "http://127.0.0.1:33418/callback"
RESOURCE = "http://testserver/mcp"
ISSUER = "http://testserver"
ACCEPT = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
AGENT_SCOPES = ["accounts:read", "customers:read", "transfers:read", "transfers:write"]
_SCOPE_BOX = re.compile(r'name="scope-([a-z_:]+)" value="yes"')


@dataclass
class Flow:
    """One client's journey: its registration, its PKCE pair, and what it was given."""

    client_id: str
    client_secret: str | None = None
    pkce: PKCEParameters = field(default_factory=PKCEParameters.generate)
    state: str = "state-0123456789"
    code: str | None = None
    tokens: dict = field(default_factory=dict)

    def form(self, **fields: str) -> dict[str, str]:
        sent = {"client_id": self.client_id, **fields}
        if self.client_secret is not None:
            sent["client_secret"] = self.client_secret
        return sent


def query_of(location: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


async def register(client: httpx.AsyncClient, **fields) -> Flow:
    body = {
        "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "none",
        "client_name": "Desk Client",
        **fields,
    }
    response = await client.post("/oauth/register", json=body)
    assert response.status_code == 201, response.text
    answer = response.json()
    return Flow(answer["client_id"], answer.get("client_secret"))


async def authorize(
    client: httpx.AsyncClient,
    flow: Flow,
    *,
    scope: str | None = "transfers:read accounts:read",
    **overrides: str | None,
) -> httpx.Response:
    """GET /oauth/authorize as the person's browser would (redirects not followed)."""
    parameters: dict[str, str | None] = {
        "response_type": "code",
        "client_id": flow.client_id,
        "redirect_uri": REDIRECT_URI,
        "code_challenge": flow.pkce.code_challenge,
        "code_challenge_method": "S256",
        "state": flow.state,
        "scope": scope,
        "resource": RESOURCE,
        **overrides,
    }
    sent = {name: value for name, value in parameters.items() if value is not None}
    return await client.get("/oauth/authorize", params=sent)


async def consent(
    console: httpx.AsyncClient,
    consent_path: str,
    *,
    scopes: list[str] | None = None,
    act_as: str = "organization",
    policy: str = "always",
    decision: str = "allow",
) -> httpx.Response:
    """The owner opens the consent page and answers it (the scopes asked for, ticked as
    the page ticks them, unless `scopes` says otherwise)."""
    page = await console.get(consent_path)
    assert page.status_code == 200, page.text
    chosen = scopes if scopes is not None else _SCOPE_BOX.findall(_ticked(page.text))
    form = {
        "csrf_token": csrf_of(page.text),
        "act_as": act_as,
        "tool_confirmation": policy,
        "decision": decision,
        **{f"scope-{scope}": "yes" for scope in chosen},
    }
    return await console.post(consent_path, data=form)


def _ticked(html: str) -> str:
    return "\n".join(line for line in html.splitlines() if " checked" in line)


async def exchange(client: httpx.AsyncClient, flow: Flow, **overrides: str) -> httpx.Response:
    assert flow.code is not None
    fields = {
        "grant_type": "authorization_code",
        "code": flow.code,
        "code_verifier": flow.pkce.code_verifier,
        "redirect_uri": REDIRECT_URI,
        "resource": RESOURCE,
        **overrides,
    }
    return await client.post("/oauth/token", data=flow.form(**fields))


async def refresh(client: httpx.AsyncClient, flow: Flow, refresh_token: str, **fields: str):
    sent = {"grant_type": "refresh_token", "refresh_token": refresh_token, **fields}
    return await client.post("/oauth/token", data=flow.form(**sent))


async def code_for(
    client: httpx.AsyncClient, console: httpx.AsyncClient, flow: Flow, **consent_options
) -> Flow:
    """Authorize and consent: the flow now holds its code."""
    asked = await authorize(
        client, flow, scope=consent_options.pop("scope", "transfers:read accounts:read")
    )
    assert asked.status_code == 302, asked.text
    answered = await consent(console, asked.headers["location"], **consent_options)
    assert answered.status_code == 303, answered.text
    back = query_of(answered.headers["location"])
    assert back["state"] == flow.state and back["iss"] == ISSUER, back
    flow.code = back["code"]
    return flow


async def connect(client: httpx.AsyncClient, console: httpx.AsyncClient, **consent_options) -> Flow:
    """A public client connected: registered, consented, tokens in `flow.tokens`."""
    flow = await code_for(client, console, await register(client), **consent_options)
    answer = await exchange(client, flow)
    assert answer.status_code == 200, answer.text
    flow.tokens = answer.json()
    return flow


async def mcp_call(
    client: httpx.AsyncClient,
    token: str,
    method: str,
    params: dict | None = None,
    *,
    headers: dict[str, str | bytes] | None = None,
) -> httpx.Response:
    """One JSON-RPC request to /mcp with the access token (stateless: no session)."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    sent = {**ACCEPT, "Authorization": f"Bearer {token}", **(headers or {})}
    return await client.post("/mcp", json=message, headers=sent)


INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "probe", "version": "1"},
}
