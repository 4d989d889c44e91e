"""A desktop MCP client connecting by OAuth, end to end, as its owner lives it: the official
`mcp` client (its OAuthClientProvider, with a client ID metadata document published on the
client's own https site) against `corridor serve`; the person's browser, a real Chromium,
is sent to the authorization endpoint, signs in to the console, reads the consent page,
ticks the scopes it gives and allows; the client receives the code on its loopback
redirect, exchanges it, and lists the tools the grant allows. Then the connected apps page.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from mcp import Client
from tests.conftest import BACKENDS
from tests.console.browsing import SCREENSHOTS
from tests.console.test_browser import _assert_labelled, _clean, opened
from tests.live_server import LiveServer, live_corridor
from tests.oauth.documents import DocumentSite, document_site
from tests.oauth.helpers import query_of
from tests.oauth.test_official_client import CALLBACK, Storage
from tests.programs import needs

pytestmark = needs("chromium")
DOCUMENT_PATH = "/desk-client/oauth-metadata.json"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[DocumentSite]:
    with document_site(tmp_path_factory.mktemp("site")) as published:
        yield published


@pytest.fixture(scope="module", params=BACKENDS)
def live(request, tmp_path_factory, site: DocumentSite) -> Iterator[LiveServer]:
    # The server trusts the client's site the way a server trusts a public one: its
    # certificate is in the trust store the process reads (SSL_CERT_FILE).
    settings = {"SSL_CERT_FILE": str(site.certificate_file)}
    with live_corridor(
        request.param, tmp_path_factory.mktemp("oauth-browser"), settings=settings
    ) as server:
        yield server


async def test_the_official_client_connects_through_the_consent_page_in_chromium(
    live: LiveServer, site: DocumentSite, browser
) -> None:
    fetched_before = site.hits.get(DOCUMENT_PATH, 0)  # the site serves every backend's run
    url = site.publish(
        DOCUMENT_PATH,
        {
            "client_id": site.url(DOCUMENT_PATH),
            "client_name": "Desk Client",
            "client_uri": site.base_url,
            "redirect_uris": [CALLBACK],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        },
    )
    async with opened(browser, live.base_url) as page:
        arrived: list[str] = []

        async def loopback_redirect(route) -> None:
            # What the desktop client's loopback listener receives.
            arrived.append(route.request.url)
            await route.fulfill(status=200, content_type="text/html", body="<h1>Connected</h1>")

        await page.route(CALLBACK + "*", loopback_redirect)

        async def open_browser(authorization_url: str) -> None:
            await page.goto(authorization_url)
            assert "/console/sign-in" in page.url  # signed out: sign in, then back to consent
            await page.get_by_label("Email").fill(live.console_email)
            await page.get_by_label("Password").fill(live.console_password)
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_role("heading", name="Connect “Desk Client” to Corridor").wait_for()
            facts = await page.locator("dl.facts").inner_text()
            assert "Published by" in facts and url in facts
            await _assert_labelled(page)
            boxes = page.get_by_role("checkbox")
            for index in range(await boxes.count()):
                await boxes.nth(index).uncheck()
            await page.get_by_role("checkbox", name="transfers:read").check()
            await page.get_by_role("checkbox", name="accounts:read").check()
            await page.screenshot(
                path=str(SCREENSHOTS / "oauth-official-client-consent.png"), full_page=True
            )
            await page.get_by_role("button", name="Allow").click()
            await page.get_by_role("heading", name="Connected").wait_for()

        async def callback() -> AuthorizationCodeResult:
            assert len(arrived) == 1, arrived
            back = query_of(arrived.pop())
            return AuthorizationCodeResult(code=back["code"], state=back["state"], iss=back["iss"])

        storage = Storage()
        auth = OAuthClientProvider(
            server_url=f"{live.base_url}/mcp",
            client_metadata=OAuthClientMetadata(
                redirect_uris=[CALLBACK],
                client_name="Desk Client",
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=open_browser,
            callback_handler=callback,
            client_metadata_url=url,
        )
        async with (
            httpx2.AsyncClient(auth=auth, timeout=60) as http,
            Client(streamable_http_client(f"{live.base_url}/mcp", http_client=http)) as client,
        ):
            tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"list_transfers", "get_balance"} <= tools
        assert "create_transfer" not in tools  # transfers:write was not ticked
        # The client used its document's URL as its client_id: no registration.
        assert storage.client_info is not None and storage.client_info.client_id == url
        assert storage.tokens is not None
        assert storage.tokens.scope == "accounts:read transfers:read"
        assert site.hits[DOCUMENT_PATH] == fetched_before + 1  # fetched once, then cached

        await page.goto(f"{live.base_url}/console/connected-apps")
        row = page.get_by_role("row", name="Desk Client")
        await row.wait_for()
        assert url in await row.inner_text()
        await _assert_labelled(page)
        await page.screenshot(
            path=str(SCREENSHOTS / "oauth-official-client-connected-apps.png"), full_page=True
        )
        _clean(page)
    async with httpx.AsyncClient(
        base_url=live.base_url, headers={"Authorization": f"Bearer {live.api_key}"}, timeout=60
    ) as rest:
        [grant] = (await rest.get("/v1/oauth-grants")).json()["data"]
    assert grant["scopes"] == ["accounts:read", "transfers:read"]
    assert grant["client"]["name"] == "Desk Client" and grant["revokedAt"] is None
    assert grant["client"]["metadataUrl"] == url
