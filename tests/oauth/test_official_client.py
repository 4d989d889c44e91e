"""The official `mcp` client's OAuth support (mcp.client.auth.OAuthClientProvider) against
`corridor serve` on 127.0.0.1: it finds the authorization server from /mcp's 401, registers,
sends its person to the consent page (driven here over HTTP, as a browser would: the console
cookie, the page's CSRF token), exchanges the code with its PKCE verifier, uses the tools the
grant allows, refreshes when its token lapses, and steps up when a tool needs one more scope."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

import httpx
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from mcp import Client
from tests.conftest import BACKENDS
from tests.console.helpers import csrf_of
from tests.live_server import LiveServer, live_corridor
from tests.mcp.conftest import Shop, rest, shop  # noqa: F401  (fixtures of this module too)
from tests.oauth.helpers import query_of

CALLBACK = "http://127.0.0.1:33418/callback"
_TICKED = re.compile(r'name="scope-([a-z_:]+)" value="yes" checked')


@pytest.fixture(scope="module", params=BACKENDS)
def live(request, tmp_path_factory) -> Iterator[LiveServer]:
    with live_corridor(request.param, tmp_path_factory.mktemp("oauth")) as server:
        yield server


class Storage(TokenStorage):
    """What a desktop client keeps between runs: its registration and its tokens."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class Owner:
    """The person the client sends to the consent page: signed in to the console, they tick
    `scopes` of those asked (all of them when None) and allow."""

    live: LiveServer
    scopes: list[str] | None = None
    asked: list[list[str]] = field(default_factory=list)
    result: AuthorizationCodeResult | None = None

    async def open(self, authorization_url: str) -> None:
        async with httpx.AsyncClient(timeout=60) as browser:
            signed_in = await browser.post(
                f"{self.live.base_url}/v1/console/sessions",
                json={"email": self.live.console_email, "password": self.live.console_password},
            )
            assert signed_in.status_code == 201, signed_in.text
            sent_on = await browser.get(authorization_url)
            assert sent_on.status_code == 302, sent_on.text
            consent_url = self.live.base_url + sent_on.headers["location"]
            page = await browser.get(consent_url)
            assert page.status_code == 200, page.text
            asked = _TICKED.findall(page.text)
            self.asked.append(asked)
            chosen = self.scopes if self.scopes is not None else asked
            answer = await browser.post(
                consent_url,
                data={
                    "csrf_token": csrf_of(page.text),
                    "act_as": "organization",
                    "tool_confirmation": "always",
                    "decision": "allow",
                    **{f"scope-{scope}": "yes" for scope in chosen},
                },
            )
        assert answer.status_code == 303, answer.text
        location = answer.headers["location"]
        assert location.startswith(CALLBACK + "?")
        back = query_of(location)
        self.result = AuthorizationCodeResult(
            code=back["code"], state=back["state"], iss=back["iss"]
        )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None, "the consent was not given"
        result, self.result = self.result, None
        return result


def provider(live: LiveServer, owner: Owner, storage: Storage) -> OAuthClientProvider:
    return OAuthClientProvider(
        server_url=f"{live.base_url}/mcp",
        client_metadata=OAuthClientMetadata(
            redirect_uris=[CALLBACK],
            client_name="Desk Client",
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=owner.open,
        callback_handler=owner.callback,
    )


@contextlib.asynccontextmanager
async def connected(auth: OAuthClientProvider, live: LiveServer) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(auth=auth, timeout=60) as http,
        Client(streamable_http_client(f"{live.base_url}/mcp", http_client=http)) as client,
    ):
        yield client


async def _grants(rest: httpx.AsyncClient) -> list[dict]:  # noqa: F811
    listed = await rest.get("/v1/oauth-grants")
    assert listed.status_code == 200, listed.text
    return listed.json()["data"]


async def test_the_official_client_connects_refreshes_and_its_grant_holds_what_was_ticked(
    live: LiveServer,
    rest: httpx.AsyncClient,  # noqa: F811
) -> None:
    owner, storage = Owner(live, scopes=["transfers:read", "accounts:read"]), Storage()
    auth = provider(live, owner, storage)
    async with connected(auth, live) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"list_transfers", "get_balance"} <= tools
        assert not {"create_transfer", "list_customers", "sandbox_fund_account"} & tools
        # The client asked for what the protected resource metadata lists.
        assert "transfers:write" in owner.asked[0] and "customers:read" in owner.asked[0]
        assert storage.tokens is not None and storage.client_info is not None
        assert storage.client_info.client_id.startswith("ocl_")
        first = storage.tokens
        assert first.scope == "accounts:read transfers:read"
        # Its access token lapses (as the client counts time): it refreshes, and rotates.
        auth.context.token_expiry_time = time.time() - 1
        await client.list_tools()
        assert storage.tokens.access_token != first.access_token
        assert storage.tokens.refresh_token != first.refresh_token
    assert len(owner.asked) == 1  # no second consent was needed
    [grant] = [g for g in await _grants(rest) if g["client"]["id"] == storage.client_info.client_id]
    assert grant["scopes"] == ["accounts:read", "transfers:read"]
    assert grant["revokedAt"] is None
    # The retired refresh token, presented again (a stolen copy): the whole grant ends.
    async with httpx.AsyncClient(base_url=live.base_url, timeout=60) as thief:
        replayed = await thief.post(
            "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token or "",
                "client_id": storage.client_info.client_id,
            },
        )
        assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
        current = await thief.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={
                "Authorization": f"Bearer {storage.tokens.access_token}",
                "Accept": "application/json, text/event-stream",
            },
        )
    assert current.status_code == 401
    assert 'error="invalid_token"' in current.headers["www-authenticate"]
    [grant] = [g for g in await _grants(rest) if g["id"] == grant["id"]]
    assert grant["revokedReason"] == "refresh_token_reused"


async def test_a_write_tool_steps_up_then_waits_for_a_person(
    live: LiveServer,
    shop: Shop,  # noqa: F811
) -> None:
    """A grant without transfers:write calls create_transfer: 403 insufficient_scope; the
    client asks its owner for the scope, who consents again; the call then goes through and,
    an OAuth grant's writes waiting for a person by default, asks for confirmation."""
    owner, storage = Owner(live, scopes=["transfers:read", "accounts:read"]), Storage()
    auth = provider(live, owner, storage)
    payment = shop.payment("25.00", submit=True)
    async with connected(auth, live) as client:
        assert "create_transfer" not in {tool.name for tool in (await client.list_tools()).tools}
        owner.scopes = None  # at the step-up, the owner allows what is asked
        result = await client.call_tool("create_transfer", payment)
    assert len(owner.asked) == 2
    assert "transfers:write" in owner.asked[1] and "transfers:read" in owner.asked[1]
    assert result.is_error
    body = result.structured_content or {}
    assert body["code"] == "tool_confirmation_required", body
    record = await shop.rest.get(f"/v1/tool-confirmations/{body['confirmationId']}")
    credential = record.json()["credential"]
    assert credential["kind"] == "oauth_grant" and credential["id"].startswith("oag_")
    listed = await shop.rest.get("/v1/transfers", params={"customerId": shop.customer_id})
    assert listed.json()["data"] == []  # nothing moved without a person
