"""The agent page lists the agent's mandates with what is consumed of each (used/budget,
uses/maxUses, status) and revokes one (issue 25)."""

from __future__ import annotations

from tests.agents.conftest import pay
from tests.agents.test_mandates import create_mandate, get_mandate
from tests.console.helpers import console_browser, post_form


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
        assert "4000 / 12000" in text and "1 / 10" in text and "ACTIVE" in text
        assert "pays only under a mandate" in text
        revoked = await post_form(
            browser, page_path, f"{page_path}/mandates/{mandate['id']}/revoke", {}
        )
        assert revoked.status_code == 303, revoked.text
        after = await browser.get(revoked.headers["location"])
        assert "Mandate revoked" in after.text and "REVOKED" in after.text
    assert (await get_mandate(owner, mandate["id"]))["status"] == "REVOKED"
