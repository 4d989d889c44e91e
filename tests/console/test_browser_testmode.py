"""Test mode in Chromium at 1280 px and 390 px: every action driven through its form
(create a customer and approve it, fund, a transfer submitted, its leg moved, a deposit a
waiting transfer matches, a catalog test event, an agent's payment parked for approval),
a refusal shown beside its form, the banner, no script error, and at 390 px no page wider
than the screen (tables scroll inside their card). Screenshots go to
CORRIDOR_TEST_SCREENSHOTS (docs/console/ keeps the ones the docs show)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest

from tests.console.browsing import SCREENSHOTS
from tests.programs import needs

pytestmark = needs("chromium")

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WIDER_THAN_THE_SCREEN = "() => document.documentElement.scrollWidth - window.innerWidth"


@contextlib.asynccontextmanager
async def signed_in(browser, base_url: str, tenant, viewport) -> AsyncIterator:
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A refusal is a page answered 422 (or 409…), which Chromium logs as a failed load:
    # that one is expected; any other console error (a CSP violation) is not.
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and "Failed to load resource" not in message.text
            else None
        ),
    )
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


async def _fits(page, viewport) -> None:
    if viewport is PHONE:
        assert await page.evaluate(WIDER_THAN_THE_SCREEN) <= 0, f"{page.url} is wider than 390 px"


UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
    .filter((control) => control.type !== 'hidden')
    .filter((control) => control.labels.length === 0 && !control.getAttribute('aria-label'))
    .map((control) => control.name)"""


async def _done(page, code: str, sentence: str) -> None:
    refused = page.locator("div.alert[role=alert]")
    await page.wait_for_function(
        "(code) => location.href.includes('done=' + code) || "
        "document.querySelector('div.alert[role=alert]') !== null",
        arg=code,
    )
    if await refused.count():
        raise AssertionError(await refused.first.inner_text())
    assert await page.get_by_role("status").filter(has_text=sentence).is_visible()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
async def test_every_test_mode_action_in_the_browser(app, owner, base_url, browser, viewport):
    tenant = owner.tenant
    width = viewport["width"]
    endpoint = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": "http://127.0.0.1:9/hooks"}
    )
    assert endpoint.status_code == 201, endpoint.text
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL", name="Invoice bot")
    await owner.agent_key(agent["id"])
    waiting = await tenant.client.post(
        "/v1/transfers",
        json={
            "customerId": owner.customer.id,
            "source": {"currency": "USD", "paymentRail": "ACH"},
            "destination": {"accountId": owner.usd_account},
            "amount": {"currency": "USD", "value": "1250"},
            "confirm": True,
        },
    )
    assert waiting.status_code == 201, waiting.text

    async with signed_in(browser, base_url, tenant, viewport) as page:
        if width == PHONE["width"]:
            await page.get_by_role("button", name="Menu").click()
        await (
            page.get_by_role("navigation", name="Console")
            .get_by_role("link", name="Test mode")
            .click()
        )
        await page.wait_for_url("**/console/test-mode")
        banner = page.get_by_role("note", name="Test mode")
        assert await banner.is_visible()
        assert await page.evaluate(UNLABELLED) == []
        await _fits(page, viewport)
        await page.screenshot(path=str(SCREENSHOTS / f"testmode-{width}.png"), full_page=True)

        # 1-2. A customer created, then approved (its id carried to the approve form).
        customer_card = page.locator("#customer")
        await customer_card.get_by_label("First name").fill("Grace")
        await customer_card.get_by_label("Last name").fill("Hopper")
        await customer_card.get_by_label("Email").fill("grace@example.com")
        await customer_card.get_by_role("button", name="Create customer").click()
        await _done(page, "tm-customer", "Customer created")
        await page.locator("#approve").get_by_role("button", name="Approve customer").click()
        await _done(page, "tm-approved", "Customer approved")
        assert await page.locator("#last-title + dl").get_by_text("ACTIVE").is_visible()
        await _fits(page, viewport)
        customer_id = page.url.split("customerId=")[1].split("&")[0].split("#")[0]
        accounts = (await tenant.client.get(f"/v1/customers/{customer_id}/accounts")).json()
        usd = next(item["id"] for item in accounts["data"] if item["currency"] == "USD")

        # A refusal is shown beside its form, what was typed kept, nothing written.
        fund = page.locator("#fund")
        await fund.get_by_label("Balance account id").fill(usd)
        await fund.get_by_label("Amount").fill("ten dollars")
        await fund.get_by_role("button", name="Fund account").click()
        refusal = page.locator("#fund-error")
        await refusal.wait_for()
        assert "amount" in (await refusal.inner_text())
        assert await fund.get_by_label("Amount").input_value() == "ten dollars"
        await _fits(page, viewport)
        await fund.screenshot(path=str(SCREENSHOTS / f"testmode-refused-{width}.png"))

        # 3. Fund the account.
        await fund.get_by_label("Amount").fill("1000.00")
        await fund.get_by_label("Currency").select_option("USD")
        await fund.get_by_role("button", name="Fund account").click()
        await _done(page, "tm-funded", "Account funded")
        balance = (await tenant.client.get(f"/v1/accounts/{usd}/balance")).json()
        assert balance["available"]["value"] == "100000"

        # 5. A transfer from the owner's customer to its payee, submitted at once.
        transfer = page.locator("#transfer")
        await transfer.get_by_label("From (balance account id)").fill(owner.usd_account)
        await transfer.get_by_label("To (account id)").fill(owner.payee_account_id)
        await transfer.get_by_label("Rail (external accounts)").select_option("ACH")
        await transfer.get_by_label("Amount").fill("25.00")
        await transfer.get_by_label("Submit it now").check()
        await transfer.get_by_role("button", name="Create transfer").click()
        await _done(page, "tm-transfer", "Transfer created")
        transfer_id = page.url.split("transferId=")[1].split("&")[0].split("#")[0]

        # 6. Its current leg moved: the leg is offered by name.
        leg = page.locator("#leg")
        assert await leg.get_by_label("Transfer id").input_value() == transfer_id
        await leg.get_by_label("New status").select_option("FAILED")
        await leg.get_by_label("Reason (optional)").fill("Account closed")
        await leg.get_by_role("button", name="Move leg").click()
        await _done(page, "tm-leg", "Leg moved")
        moved = (await tenant.client.get(f"/v1/transfers/{transfer_id}")).json()
        assert moved["status"] == "FAILED"
        await _fits(page, viewport)
        await page.screenshot(path=str(SCREENSHOTS / f"testmode-leg-{width}.png"), full_page=True)

        # 4. The deposit a waiting transfer waits for, filled in from its instructions.
        await page.goto(f"{base_url}/console/test-mode?transferId={waiting.json()['id']}")
        deposit = page.locator("#deposit")
        assert await deposit.get_by_label("Amount").input_value() == "12.50"
        await deposit.get_by_role("button", name="Simulate deposit").click()
        await _done(page, "tm-deposit", "Deposit received")
        funded = (await tenant.client.get(f"/v1/transfers/{waiting.json()['id']}")).json()
        assert funded["status"] != "PENDING" or not funded["fundingNeeded"]

        # 7. A test event of a type picked from the catalog.
        event = page.locator("#event")
        await event.get_by_label("Event type").select_option("transfer.completed")
        await event.get_by_role("button", name="Send test event").click()
        await _done(page, "tm-event", "Test event queued")
        message_id = page.url.split("messageId=")[1].split("&")[0].split("#")[0]
        message = (await tenant.client.get(f"/v1/webhooks/messages/{message_id}")).json()
        assert message["eventType"] == "transfer.completed"
        assert [item["endpointId"] for item in message["deliveries"]] == [endpoint.json()["id"]]

        # 8. The agent pays over its 500.00 limit: parked for approval, and said so.
        pay = page.locator("#agent")
        await pay.get_by_label("Agent").select_option(agent["id"])
        await pay.get_by_label("Pay to (external account id)").fill(owner.payee_account_id)
        await pay.get_by_label("Amount").fill("600.00")
        await pay.get_by_role("button", name="Pay as the agent").click()
        await page.wait_for_url("**done=tm-agent-parked*")
        parked = page.locator("p.parked")
        assert "Parked for approval" in await parked.inner_text()
        assert await page.locator("#last-title + dl").get_by_text("approval PENDING").is_visible()
        await _fits(page, viewport)
        assert await page.evaluate(UNLABELLED) == []
        await page.screenshot(
            path=str(SCREENSHOTS / f"testmode-parked-{width}.png"), full_page=True
        )
        if width == PHONE["width"]:
            # The legs table is wider than the phone: it scrolls inside its card.
            await page.goto(f"{base_url}/console/test-mode?transferId={transfer_id}")
            await _fits(page, viewport)
