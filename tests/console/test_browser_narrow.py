"""The console on a phone (390 px wide, in Chromium): home, transfers, a transfer and the
assistant never render wider than the screen (tables scroll inside their card), the
navigation folds behind a Menu button; and the assistant's wait for a confirmation, at
1280 px and 390 px: the box is disabled with the reason, Cancel ends the run. Screenshots
go to CORRIDOR_TEST_SCREENSHOTS (docs/console/ keeps the ones the docs show)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Error as PlaywrightError

from tests.agents.test_mandates import create_mandate
from tests.assistant.conftest import drive
from tests.console.browsing import SCREENSHOTS
from tests.console.conftest import parked
from tests.programs import needs

pytestmark = needs("chromium")

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

WIDER_THAN_THE_SCREEN = "() => document.documentElement.scrollWidth - window.innerWidth"


@contextlib.asynccontextmanager
async def signed_in(browser, base_url: str, owner, viewport) -> AsyncIterator:
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(base_url + "/console")
    await page.get_by_label("Email").fill(owner.tenant.console_email)
    await page.get_by_label("Password").fill(owner.tenant.console_password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/console")
    page.base_url = base_url
    try:
        yield page
    finally:
        assert errors == [], errors
        await context.close()


async def _fits(page, name: str) -> None:
    await page.screenshot(path=str(SCREENSHOTS / name), full_page=True)
    assert await page.evaluate(WIDER_THAN_THE_SCREEN) <= 0, f"{page.url} is wider than 390 px"


async def test_the_console_fits_a_phone(app, owner, base_url, browser):
    draft = await parked(owner)
    async with signed_in(browser, base_url, owner, PHONE) as page:
        await page.get_by_role("heading", name="Home").wait_for()
        nav = page.get_by_role("navigation", name="Console")
        assert not await nav.is_visible()
        await _fits(page, "narrow-home.png")
        await page.get_by_role("button", name="Menu").click()
        assert await nav.is_visible()
        await page.screenshot(path=str(SCREENSHOTS / "narrow-menu.png"))
        await nav.get_by_role("link", name="Transfers").click()
        await page.wait_for_url("**/console/transfers")
        await _fits(page, "narrow-transfers.png")
        await page.goto(f"{base_url}/console/transfers/{draft['id']}")
        await page.get_by_role("heading", name="Legs").wait_for()
        await _fits(page, "narrow-transfer.png")
        # The events table is wider than the phone: it scrolls inside its card.
        events = page.locator("section[aria-labelledby=events-title]")
        assert await events.evaluate("(card) => card.scrollWidth > card.clientWidth")


async def reload_settled(page, url: str) -> None:
    """Open `url` again; the thread's page may reload itself as its run moves on, and a
    navigation of its own that interrupts ours lands on the same page: wait for it."""
    try:
        await page.goto(url)
    except PlaywrightError as error:
        if "interrupted by another navigation" not in str(error):
            raise
        await page.wait_for_load_state()


async def _ask(page, app, text: str) -> None:
    """Send `text` in the open thread, let the worker answer, and show the page it left."""
    await page.get_by_role("textbox", name="Message").fill(text)
    await page.get_by_role("button", name="Send", exact=True).click()
    await page.wait_for_url("**?done=assistant-sent")
    await drive(app)
    await reload_settled(page, page.url.split("?")[0])


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
async def test_the_assistant_box_waits_for_a_confirmation_and_cancel_ends_it(
    app, owner, base_url, browser, viewport
):
    async with signed_in(browser, base_url, owner, viewport) as page:
        await page.goto(base_url + "/console/assistant")
        await page.get_by_label("New thread").fill("Payouts")
        await page.get_by_role("button", name="Start a thread").click()
        await page.wait_for_url("**/console/assistant/thr_*")
        message = page.get_by_role("textbox", name="Message")
        await _ask(page, app, f"send 25 USD to Müller Maschinenbau GmbH from {owner.usd_account}")
        await page.get_by_role("button", name="Approve").first.wait_for()
        assert await message.is_disabled()
        assert await page.get_by_role("button", name="Send", exact=True).is_disabled()
        reason = page.get_by_text("Waiting for you: approve or reject the proposed write")
        assert await reason.is_visible()
        width = viewport["width"]
        if width == PHONE["width"]:
            await _fits(page, f"assistant-waiting-{width}.png")
        else:
            await page.screenshot(path=str(SCREENSHOTS / f"assistant-waiting-{width}.png"))
        await page.get_by_role("button", name="Cancel the run").click()
        await page.wait_for_url("**?done=assistant-cancelled")
        assert await page.get_by_text("Cancelled: the waiting write will not run.").is_visible()
        assert await message.is_enabled()
        assert await page.get_by_role("button", name="Approve").count() == 0
        listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
        assert listed.json()["data"] == []


async def test_a_thread_started_as_an_agent_pays_within_its_mandate(app, owner, base_url, browser):
    agent = await owner.create_agent(name="Parts buyer", requireMandate=True)
    await owner.agent_key(agent["id"])
    mandate = await create_mandate(
        owner, agent["id"], budget={"amount": "20000", "recurrence": "MONTHLY"}
    )
    async with signed_in(browser, base_url, owner, DESKTOP) as page:
        await page.goto(base_url + "/console/assistant")
        await page.get_by_label("New thread").fill("Parts for the line")
        await page.get_by_label("Act as").select_option(label="Agent “Parts buyer”")
        await page.get_by_role("button", name="Start a thread").click()
        await page.wait_for_url("**/console/assistant/thr_*")
        acting = page.locator(".acting-as")
        assert "Acts as agent “Parts buyer”" in await acting.inner_text()
        await _ask(page, app, f"send 25 USD to {owner.payee_account_id} from {owner.usd_account}")
        await page.get_by_role("button", name="Approve").first.click()
        await page.wait_for_url("**?done=assistant-confirmed")
        await page.screenshot(path=str(SCREENSHOTS / "assistant-as-agent.png"), full_page=True)
    listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
    [paid] = listed.json()["data"]
    assert paid["agentId"] == agent["id"] and paid["mandateId"] == mandate["id"]
    used = await owner.client.get(f"/v1/agent-mandates/{mandate['id']}")
    assert used.json()["used"] == "2500"
