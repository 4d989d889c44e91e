"""The agent page lists the agent's mandates with what is consumed of each (used/budget,
uses/maxUses, status) and revokes one (issue 25): over HTTP, then in Chromium at 1280 and
390 px (screenshots to CORRIDOR_TEST_SCREENSHOTS; docs/console/mandates.png)."""

from __future__ import annotations

import pytest

from tests.agents.conftest import make_owner, pay
from tests.agents.test_mandates import create_mandate, get_mandate
from tests.console.browsing import SCREENSHOTS
from tests.console.helpers import console_browser, post_form
from tests.console.test_logs_page import DESKTOP, PHONE, WIDER_THAN_THE_SCREEN, signed_in
from tests.programs import needs


async def test_agent_page_shows_mandate_consumption_and_revokes_one(app, owner):
    agent = await owner.create_agent(requireMandate=True)
    mandate = await create_mandate(owner, agent["id"], purpose="Hosting invoices")
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(4_000))
    page_path = f"/console/agents/{agent['id']}"
    async with console_browser(app, owner.tenant) as browser:
        shown = await browser.get(page_path)
        assert shown.status_code == 200, shown.text
        text = shown.text
        assert "Hosting invoices" in text and mandate["id"] in text
        assert "40.00 USD / 120.00 USD" in text and "1 / 10" in text and "ACTIVE" in text
        assert "pays only under a mandate" in text
        revoked = await post_form(
            browser, page_path, f"{page_path}/mandates/{mandate['id']}/revoke", {}
        )
        assert revoked.status_code == 303, revoked.text
        after = await browser.get(revoked.headers["location"])
        assert "Mandate revoked" in after.text and "REVOKED" in after.text
    assert (await get_mandate(owner, mandate["id"]))["status"] == "REVOKED"


@needs("chromium")
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
async def test_the_mandates_section_in_chromium(app, tenant, base_url, browser, viewport):
    """In Chromium at 1280 and 390 px: the mandate's consumption is readable (amounts in
    the currency, not minor units), the page is no wider than the screen, and its Revoke
    button revokes it."""
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent(requireMandate=True, name="Hosting bot")
    mandate = await create_mandate(owner, agent["id"], purpose="Hosting invoices")
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(4_000))
    width = viewport["width"]
    async with signed_in(browser, base_url, tenant, viewport) as page:
        await page.goto(f"{base_url}/console/agents/{agent['id']}")
        section = page.locator("section[aria-labelledby=mandates-title]")
        await section.get_by_role("heading", name="Mandates").wait_for()
        row = section.locator("tbody tr").first
        shown = await row.inner_text()
        assert "Hosting invoices" in shown and "40.00 USD / 120.00 USD" in shown
        assert "1 / 10" in shown and "ACTIVE" in shown
        await section.screenshot(path=str(SCREENSHOTS / f"mandates-{width}.png"))
        assert await page.evaluate(WIDER_THAN_THE_SCREEN) <= 0, f"wider than {width} px"
        await section.get_by_role("button", name=f"Revoke mandate {mandate['id']}").click()
        await page.get_by_text("Mandate revoked").wait_for()
        assert "REVOKED" in await section.locator("tbody tr").first.inner_text()
    assert (await get_mandate(owner, mandate["id"]))["status"] == "REVOKED"
