"""The console's Audit page (issue 25): the organization's audit chain, filtered by agent
and kind, with each record's sequence, outcome and hash prefix, and the result of verifying
the chain. Over HTTP, then in Chromium at 1280 px and 390 px. Screenshots go to
CORRIDOR_TEST_SCREENSHOTS (docs/console/audit.png is the 1280 px one)."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from corridor.models.audit import AuditEvent
from tests.agents.conftest import make_owner, pay, submit_new
from tests.console.browsing import SCREENSHOTS
from tests.console.helpers import console_browser
from tests.console.test_logs_page import DESKTOP, PHONE, WIDER_THAN_THE_SCREEN, signed_in
from tests.programs import needs


async def _decisions(app, tenant) -> dict[str, str]:
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent(name="Invoice bot")
    client = await owner.agent_client(agent["id"])
    paid = await pay(client, owner.payment(1_000))
    denied = await submit_new(client, owner.payment(60_000))
    assert denied.status_code == 403, denied.text
    return {"agent": agent["id"], "paid": paid["id"]}


async def test_the_audit_page_lists_filters_and_verifies(app, tenant):
    made = await _decisions(app, tenant)
    async with console_browser(app, tenant) as console:
        everything = await console.get("/console/audit")
        assert everything.status_code == 200, everything.text
        text = everything.text
        assert "the chain holds — 4 records verified" in text
        for kind in ("agent.created", "agent.key.issued", "agent.payment.allowed"):
            assert kind in text
        assert "agent.payment.denied" in text and "per_transfer_limit_exceeded" in text
        assert made["paid"] in text and "Invoice bot" in text

        denied = (await console.get("/console/audit", params={"kind": "agent.payment.denied"})).text
        assert "agent.payment.denied" in denied and made["paid"] not in denied

        async with app.state.database.session() as session, session.begin():
            await session.execute(
                update(AuditEvent)
                .where(
                    AuditEvent.organization_id == tenant.organization_id,
                    AuditEvent.sequence == 3,
                )
                .values(outcome="denied")
            )
        broken = (await console.get("/console/audit")).text
        assert "the chain is broken at sequence 3" in broken


@needs("chromium")
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
async def test_the_audit_page_in_chromium(app, tenant, base_url, browser, viewport):
    made = await _decisions(app, tenant)
    width = viewport["width"]
    async with signed_in(browser, base_url, tenant, viewport) as page:
        await page.goto(base_url + "/console/audit")
        await page.get_by_role("heading", name="Audit", exact=True).wait_for()
        status = page.get_by_role("status")
        assert "the chain holds" in await status.inner_text()
        await page.locator("#filter-agent").select_option(made["agent"])
        await page.locator("#filter-kind").select_option("agent.payment.allowed")
        await page.get_by_role("button", name="Filter").click()
        await page.wait_for_url("**kind=agent.payment.allowed**")
        rows = page.locator("table.audit-events tbody tr")
        assert await rows.count() == 1
        assert made["paid"] in await rows.first.inner_text()
        await page.goto(base_url + "/console/audit")
        card = page.locator("section[aria-labelledby=audit-title]")
        await card.evaluate("(card) => { card.scrollLeft = 0; }")
        await page.screenshot(path=str(SCREENSHOTS / f"audit-{width}.png"), full_page=True)
        assert await page.evaluate(WIDER_THAN_THE_SCREEN) <= 0, f"wider than {width} px"
