"""The console's Logs page (issue 28): the organization's API requests, filtered by key and
status, searched, an error row opening to its error body; each API key links to its logs.
Over HTTP, then in Chromium at 1280 px and 390 px (the table scrolls inside its card).
Screenshots go to CORRIDOR_TEST_SCREENSHOTS (docs/console/ keeps the ones the docs show)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest

from tests.auth.credentials import bearer, key_secret
from tests.conftest import client_for
from tests.console.browsing import SCREENSHOTS
from tests.console.helpers import console_browser
from tests.programs import needs

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WIDER_THAN_THE_SCREEN = "() => document.documentElement.scrollWidth - window.innerWidth"
MISSING = "/v1/customers/cus_00000000000000000000000000"


async def _traffic(app, tenant) -> dict[str, str]:
    """A reader key's success and failure, and the tenant key's own request."""
    secret = await key_secret(tenant, ["customers:read"], name="Payouts reader")
    keys = (await tenant.client.get("/v1/api-keys")).json()["data"]
    (key,) = [key for key in keys if key["name"] == "Payouts reader"]
    async with client_for(app, bearer(secret)) as reader:
        ok = await reader.get("/v1/customers")
        missing = await reader.get(MISSING, headers={"Idempotency-Key": "lookup-42"})
    own = await tenant.client.get("/v1/organizations/current")
    return {
        "key": key["id"],
        "ok": ok.headers["x-request-id"],
        "missing": missing.headers["x-request-id"],
        "own": own.headers["x-request-id"],
    }


async def test_the_logs_page_lists_filters_and_shows_error_bodies(app, tenant):
    made = await _traffic(app, tenant)
    async with console_browser(app, tenant) as console:
        everything = await console.get("/console/logs")
        assert everything.status_code == 200, everything.text
        for request_id in (made["ok"], made["missing"], made["own"]):
            assert request_id in everything.text
        assert "Payouts reader" in everything.text
        assert "No customer with id" in everything.text  # the error body, in its details
        assert "lookup-42" in everything.text

        by_key = (await console.get("/console/logs", params={"key": made["key"]})).text
        assert made["ok"] in by_key and made["missing"] in by_key
        assert made["own"] not in by_key

        failed = (await console.get("/console/logs", params={"status": "4xx"})).text
        assert made["missing"] in failed and made["ok"] not in failed

        searched = (await console.get("/console/logs", params={"q": "lookup-4"})).text
        assert made["missing"] in searched and made["ok"] not in searched

        bad = await console.get("/console/logs", params={"status": "4x"})
        assert bad.status_code == 422

        keys = (await console.get("/console/api-keys")).text
        assert f'href="/console/logs?key={made["key"]}"' in keys


@contextlib.asynccontextmanager
async def signed_in(browser, base_url: str, tenant, viewport) -> AsyncIterator:
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(base_url + "/console")
    await page.get_by_label("Email").fill(tenant.console_email)
    await page.get_by_label("Password").fill(tenant.console_password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/console")
    try:
        yield page
    finally:
        assert errors == [], errors
        await context.close()


@needs("chromium")
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
async def test_the_logs_page_in_chromium(app, tenant, base_url, browser, viewport):
    made = await _traffic(app, tenant)
    width = viewport["width"]
    async with signed_in(browser, base_url, tenant, viewport) as page:
        await page.goto(base_url + "/console/api-keys")
        await page.get_by_role("link", name="Requests made with key Payouts reader").click()
        await page.wait_for_url(f"**/console/logs?key={made['key']}")
        await page.get_by_role("heading", name="Logs").wait_for()
        assert await page.locator(f"tr#{made['own']}").count() == 0
        await page.get_by_label("Status").select_option("4xx")
        await page.get_by_role("button", name="Search").click()
        await page.wait_for_url("**status=4xx**")
        row = page.locator(f"tr#{made['missing']}")
        await row.locator("summary").click()
        body = row.locator("pre")
        await body.wait_for()
        assert '"code": "not_found"' in await body.inner_text()
        assert await page.locator(f"tr#{made['ok']}").count() == 0
        card = page.locator("section[aria-labelledby=logs-title]")
        await card.evaluate("(card) => { card.scrollLeft = 0; }")
        await page.screenshot(path=str(SCREENSHOTS / f"logs-{width}.png"), full_page=True)
        assert await page.evaluate(WIDER_THAN_THE_SCREEN) <= 0, f"wider than {width} px"
        if width == PHONE["width"]:
            assert await card.evaluate("(card) => card.scrollWidth > card.clientWidth")
