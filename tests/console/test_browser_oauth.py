"""Connecting an MCP client by OAuth, in Chromium: the person's browser arrives from the
client's authorization request, signs in, reads the consent page, picks, allows, and is sent
on to the client's loopback redirect with the code (the page's CSP lets its form lead
there); then the connected apps page, where the app is disconnected."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.console.browsing import SCREENSHOTS
from tests.console.test_browser import _assert_labelled, _clean, opened
from tests.oauth.helpers import REDIRECT_URI, query_of, register
from tests.programs import needs

pytestmark = needs("chromium")


@pytest.fixture
async def http(base_url: str):
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        yield client


async def test_an_owner_connects_a_desktop_client_in_chromium(
    app, owner, base_url, browser, http
) -> None:
    agent = await owner.create_agent(name="Desk agent")
    flow = await register(http, client_name="Desk Client")
    query = urlencode(
        {
            "response_type": "code",
            "client_id": flow.client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": flow.pkce.code_challenge,
            "code_challenge_method": "S256",
            "state": flow.state,
            "scope": "transfers:read transfers:write accounts:read customers:read",
            "resource": f"{base_url}/mcp",
        }
    )
    async with opened(browser, base_url) as page:
        arrived: list[str] = []

        async def client_callback(route) -> None:
            arrived.append(route.request.url)
            await route.fulfill(status=200, content_type="text/html", body="<h1>Connected</h1>")

        await page.route(REDIRECT_URI + "*", client_callback)
        await page.goto(f"{base_url}/oauth/authorize?{query}")
        assert "/console/sign-in" in page.url  # signed out: sign in first, then back here
        await page.get_by_label("Email").fill(owner.tenant.console_email)
        await page.get_by_label("Password").fill(owner.tenant.console_password)
        await page.get_by_role("button", name="Sign in").click()
        await page.get_by_role("heading", name="Connect “Desk Client” to Corridor").wait_for()
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "oauth-consent.png"), full_page=True)
        boxes = page.get_by_role("checkbox")
        assert await boxes.count() == 4
        for index in range(4):
            assert await boxes.nth(index).is_checked()
        await page.get_by_role("radio", name="Agent Desk agent").check()
        await page.get_by_role("checkbox", name="transfers:write").uncheck()
        await page.get_by_label("When it calls a tool that changes something").select_option(
            "over_limit"
        )
        await page.screenshot(path=str(SCREENSHOTS / "oauth-consent-chosen.png"), full_page=True)
        await page.get_by_role("button", name="Allow").click()
        await page.get_by_role("heading", name="Connected").wait_for()
        assert len(arrived) == 1
        back = query_of(arrived[0])
        assert back["state"] == flow.state and back["iss"] == base_url
        token = await http.post(
            "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": back["code"],
                "code_verifier": flow.pkce.code_verifier,
                "redirect_uri": REDIRECT_URI,
                "client_id": flow.client_id,
                "resource": f"{base_url}/mcp",
            },
        )
        assert token.status_code == 200, token.text
        assert token.json()["scope"] == "customers:read accounts:read transfers:read"

        await page.goto(f"{base_url}/console/connected-apps")
        row = page.get_by_role("row", name="Desk Client")
        await row.wait_for()
        assert agent["id"] in await row.inner_text()
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "oauth-connected-apps.png"), full_page=True)
        await page.get_by_role("button", name="Disconnect Desk Client").click()
        await page.get_by_role("status").filter(has_text="Disconnected").wait_for()
        assert "REVOKED" in await page.get_by_role("row", name="Desk Client").inner_text()
        await page.screenshot(
            path=str(SCREENSHOTS / "oauth-connected-apps-revoked.png"), full_page=True
        )
        _clean(page)
    [grant] = (await owner.client.get("/v1/oauth-grants")).json()["data"]
    assert grant["agentId"] == agent["id"] and grant["toolConfirmation"] == "over_limit"
    assert grant["revokedReason"] == "revoked_by_owner"
