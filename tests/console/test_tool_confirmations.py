"""The console's tool confirmations page (issue 26): an owner sees an MCP client's pending
write with its exact arguments and effect, and approves or refuses it; the decision is
recorded with who decided, where and when."""

from __future__ import annotations

from corridor.confirmations import service
from corridor.confirmations.rules import Origin
from tests.auth.credentials import key_secret
from tests.console.browsing import SCREENSHOTS
from tests.console.helpers import console_browser, post_form
from tests.console.test_browser import _assert_labelled, _clean, opened, sign_in
from tests.programs import needs
from tests.tools.support import caller_of


async def _pending(app, tenant, amount: str) -> str:
    secret = await key_secret(tenant, ["*"], name="desktop client")
    caller = await caller_of(app, secret)
    async with app.state.database.session() as session, session.begin():
        record = service.open_confirmation(
            session,
            caller=caller,
            origin=Origin.MCP,
            tool="create_transfer",
            arguments={"amount": amount, "currency": "USD", "submit": True},
            summary=f"Send {amount} USD to Bob Builder (ext_1) by ACH",
            effect=f"Debited: {amount} USD; Recipient gets: {amount} USD",
            now=app.state.clock.now(),
            ttl_s=600,
        )
    return record.id


async def test_an_owner_reads_and_approves_a_pending_call_in_the_console(app, tenant) -> None:
    approve, refuse = await _pending(app, tenant, "25.00"), await _pending(app, tenant, "26.00")
    async with console_browser(app, tenant) as browser:
        listed = await browser.get("/console/tool-confirmations")
        assert listed.status_code == 200
        assert "Send 25.00 USD to Bob Builder" in listed.text and approve in listed.text
        shown = await browser.get(f"/console/tool-confirmations/{approve}")
        assert '"amount": "25.00"' in shown.text and "Recipient gets: 25.00 USD" in shown.text
        decided = await post_form(
            browser,
            f"/console/tool-confirmations/{approve}",
            f"/console/tool-confirmations/{approve}/decision",
            {"decision": "approve"},
        )
        assert decided.status_code == 303
        after = await browser.get(decided.headers["location"])
        assert "APPROVED" in after.text and "(console)" in after.text
        await post_form(
            browser,
            f"/console/tool-confirmations/{refuse}",
            f"/console/tool-confirmations/{refuse}/decision",
            {"decision": "refuse"},
        )
        twice = await post_form(
            browser,
            f"/console/tool-confirmations/{refuse}",
            f"/console/tool-confirmations/{refuse}/decision",
            {"decision": "approve"},
        )
        assert twice.status_code == 409
    records = {
        r["id"]: r for r in (await tenant.client.get("/v1/tool-confirmations")).json()["data"]
    }
    assert records[approve]["status"] == "APPROVED"
    assert records[approve]["decidedBy"].startswith("usr_")
    assert records[approve]["decidedVia"] == "console" and records[approve]["decidedAt"]
    assert records[refuse]["status"] == "REFUSED"
    # No form without the session's CSRF token.
    async with console_browser(app, tenant) as browser:
        forged = await browser.post(
            f"/console/tool-confirmations/{approve}/decision", data={"decision": "approve"}
        )
        assert forged.status_code == 403


@needs("chromium")
async def test_approve_a_pending_tool_call_in_chromium(app, tenant, base_url, browser) -> None:
    pending = await _pending(app, tenant, "27.00")
    async with opened(browser, base_url) as page:
        await sign_in(
            page, tenant.console_email, tenant.console_password, "/console/tool-confirmations"
        )
        await page.get_by_role("link", name="Send 27.00 USD to Bob Builder (ext_1) by ACH").click()
        await page.get_by_role("heading", level=1).wait_for()
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "tool-confirmation.png"), full_page=True)
        await page.get_by_role("button", name="Approve this call").click()
        await page.get_by_role("status").filter(has_text="Approved").wait_for()
        assert "APPROVED" in await page.locator("dl.facts").inner_text()
        await page.screenshot(
            path=str(SCREENSHOTS / "tool-confirmation-approved.png"), full_page=True
        )
        _clean(page)
    record = (await tenant.client.get(f"/v1/tool-confirmations/{pending}")).json()
    assert record["status"] == "APPROVED" and record["decidedVia"] == "console"
