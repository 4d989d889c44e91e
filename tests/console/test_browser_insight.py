"""Customers, charts and the assistant panel in a real browser (headless Chromium through
Playwright, Debian's /usr/bin/chromium): a customer's page, the home page's SVG charts,
and a payment the assistant proposes, streamed, shown as a card, approved, and carried out.
The app is served by uvicorn inside the test's event loop, so the test drives the
assistant worker itself. Skipped, saying why, where no browser can be started (never in
CI: CORRIDOR_TEST_REQUIRE_ALL=1)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.agents.conftest import make_owner
from tests.assistant.conftest import drive
from tests.console.browsing import SCREENSHOTS
from tests.programs import needs
from tests.support import create_individual
from tests.transfers.conftest import amount, create, fetch, make_customer
from tests.webhooks.support import (
    Receiver,
    create_endpoint,
    deliver,
    emit_events,
    worker_settings,
)

pytestmark = needs("chromium")

# How long a page may take to show what a test waits for.
wait_ms = 20_000


@pytest.fixture(scope="module", autouse=True)
def screenshots_folder() -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)


@contextlib.asynccontextmanager
async def opened(browser, base_url: str) -> AsyncIterator:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource")
            else None
        ),
    )
    # Failed loads by address (the browser's own /favicon.ico guess is no page's fault).
    page.on(
        "response",
        lambda response: (
            problems.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.problems = problems
    page.base_url = base_url
    try:
        yield page
    finally:
        await context.close()


async def sign_in(page, email: str, password: str, path: str) -> None:
    await page.goto(page.base_url + path)
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"**{path}")


UNLABELLED_CONTROLS = """
() => Array.from(document.querySelectorAll('input, select, textarea'))
  .filter((control) => control.type !== 'hidden')
  .filter((control) => {
    if (control.getAttribute('aria-label') || control.getAttribute('aria-labelledby')) return false;
    if (control.closest('label')) return false;
    if (control.id && document.querySelector(`label[for="${control.id}"]`)) return false;
    return true;
  })
  .map((control) => control.outerHTML)
"""


async def _clean(page) -> None:
    assert page.problems == [], page.problems  # a CSP violation is a console error
    assert await page.evaluate(UNLABELLED_CONTROLS) == [], page.url


def _day(day: int, hour: int = 12) -> datetime:
    return datetime(2026, 10, 20, hour, tzinfo=UTC) + timedelta(days=day)


async def _a_month_of_business(app, tenant, clock):
    """Thirty days of money in and out, and two webhook endpoints (one failing often)."""
    clock.set(_day(0))
    owner = await make_owner(app, tenant)
    customer = owner.customer
    other = await make_customer(tenant.client, ("USD", "USDC"))
    await create_individual(tenant.client, firstName="Grace", lastName="Hopper")
    good, flaky = Receiver(), Receiver()
    await create_endpoint(tenant.client, good.url)
    await create_endpoint(tenant.client, flaky.url)
    flaky.answer_with(*([500, 200, 200] * 10))
    for day in range(1, 30):
        clock.set(_day(day))
        if day % 4 == 1:
            await customer.fund("USD", 2_500_000 + day * 40_000)
        if day % 9 == 3:
            await other.fund("USDC", 15_000_000 * day)
        for index in range(day % 5):
            await create(
                tenant.client,
                {
                    "customerId": customer.id,
                    "source": {"accountId": customer.accounts["USD"]},
                    "destination": {"accountId": other.accounts["USD"]},
                    "amount": amount("USD", 12_000 + index * 7_300 + day * 500),
                    "confirm": True,
                },
            )
        await emit_events(app, tenant.organization_id, 1)
        await deliver(app, worker_settings(app, webhook_retry_schedule_s=[86_400 * 60]))
    good.close()
    flaky.close()
    return owner


async def test_home_charts_and_a_customer_page(app, tenant, clock, base_url, browser):
    owner = await _a_month_of_business(app, tenant, clock)
    async with opened(browser, base_url) as page:
        await sign_in(page, tenant.console_email, tenant.console_password, "/console")
        balance = page.get_by_role("img", name="USD balance, last 30 days")
        await balance.wait_for(timeout=wait_ms)
        assert await page.get_by_role("img", name="Transfers per day, last 30 days").is_visible()
        assert await page.locator("svg.meter").count() == 2
        await page.get_by_text("Show the numbers").first.click()
        assert await page.locator("details[open] table").first.is_visible()
        await page.get_by_text("Show the numbers").first.click()  # closed again
        await _clean(page)
        await page.screenshot(path=str(SCREENSHOTS / "home-charts.png"), full_page=True)

        await page.get_by_role("link", name="Customers").click()
        await page.get_by_label("Name or email contains").fill("lovelace")
        await page.get_by_role("button", name="Search").click()
        assert await page.get_by_role("link", name="Ada Lovelace").count() == 2  # not Grace
        await page.locator(f'a[href="/console/customers/{owner.customer.id}"]').click()
        await page.wait_for_url(f"**/console/customers/{owner.customer.id}")
        assert await page.get_by_role("heading", name="Balance accounts").is_visible()
        assert await page.get_by_text(owner.usd_account).is_visible()
        await _clean(page)
        await page.screenshot(path=str(SCREENSHOTS / "customer-detail.png"), full_page=True)


async def test_the_assistant_proposes_a_payment_and_it_runs_once_approved(
    app, tenant, clock, base_url, browser
):
    clock.set(datetime(2026, 11, 18, 12, tzinfo=UTC))
    owner = await make_owner(app, tenant)
    async with opened(browser, base_url) as page:
        await sign_in(page, tenant.console_email, tenant.console_password, "/console/assistant")
        await page.get_by_label("New thread").fill("Supplier payments")
        await page.get_by_role("button", name="Start a thread").click()
        await page.wait_for_url("**/console/assistant/thr_*")
        await page.get_by_role("textbox", name="Message").fill(
            f"send 25 USD to Müller Maschinenbau GmbH from {owner.usd_account}"
        )
        await page.get_by_role("button", name="Send").click()
        live = page.locator("#live-run")
        await live.wait_for(timeout=wait_ms)  # followed over SSE while the run is queued

        await drive(app)  # the worker: the stream tells the page, which shows the card
        approve = page.get_by_role("button", name="Approve: Send 25.00 USD")
        await approve.wait_for(timeout=wait_ms)
        card = page.locator("article.tool-call.pending")
        assert "Recipient gets: 25.00 USD" in await card.inner_text()
        await _clean(page)
        await page.screenshot(path=str(SCREENSHOTS / "assistant.png"), full_page=True)

        await approve.click()
        await page.get_by_text("Approved: the assistant carried it out.").wait_for(timeout=wait_ms)
        await drive(app)
        # The answer streams into the live box first; the page then reloads itself once the
        # run ends. Read the page the server renders after that, not the one being replaced.
        await page.locator("#live-run").wait_for(state="detached", timeout=wait_ms)
        await page.wait_for_load_state()
        answer = page.get_by_text("Sent: transfer ")
        await answer.wait_for(timeout=wait_ms)
        await _clean(page)
        transfer_id = (await answer.inner_text()).split()[2]
    assert (await fetch(owner.client, transfer_id))["status"] == "PENDING"


MARK_ACTIONS = """
() => Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary'))
  .filter((element) => element.type !== 'hidden' && !element.disabled)
  .filter((element) => element.getClientRects().length > 0)
  .map((element, index) => { element.dataset.action = String(index); return index; })
"""
FOCUSED = """
() => {
  const element = document.activeElement;
  if (!element || !element.dataset.action) return null;
  const style = getComputedStyle(element);
  return [element.dataset.action, style.outlineStyle !== 'none' && style.outlineWidth !== '0px',
    element.outerHTML.slice(0, 200)];
}
"""
tab_presses_max = 400


async def _keyboard_reaches_everything(page) -> None:
    """Every visible action of the page (links, buttons, fields, disclosures) takes focus by
    Tab, each showing a focus outline (:focus-visible)."""
    wanted = set(await page.evaluate(MARK_ACTIONS))
    reached: set[int] = set()
    unoutlined: list[str] = []
    await page.locator("body").focus()
    for _ in range(tab_presses_max):
        await page.keyboard.press("Tab")
        focused = await page.evaluate(FOCUSED)
        if focused is not None:
            reached.add(int(focused[0]))
            if not focused[1]:
                unoutlined.append(focused[2])
        if reached >= wanted:
            break
    missing = await page.evaluate(
        "(missing) => missing.map((index) =>"
        ' document.querySelector(`[data-action="${index}"]`).outerHTML)',
        sorted(wanted - reached),
    )
    assert missing == [], f"{page.url}: not reached by Tab: {missing}"
    assert unoutlined == [], f"{page.url}: focused without an outline: {unoutlined}"


async def test_every_page_by_keyboard_labelled_and_without_errors(
    app, tenant, clock, base_url, browser
):
    """Walks every page of the navigation and the pages they lead to: the keyboard reaches
    every action with a visible focus outline, every control is labelled, no script error
    or CSP violation (a console error) and no failed load."""
    owner = await _a_month_of_business(app, tenant, clock)
    transfer = (await tenant.client.get("/v1/transfers?limit=1")).json()["data"][0]
    agent = await owner.create_agent(name="Walk bot")
    endpoint = (await tenant.client.get("/v1/webhooks/endpoints")).json()["data"][0]
    paths = [
        "/console",
        "/console/customers",
        f"/console/customers/{owner.customer.id}",
        "/console/transfers",
        f"/console/transfers/{transfer['id']}",
        "/console/approvals",
        "/console/reviews",
        "/console/authorizations",
        "/console/agents",
        "/console/agents/new",
        f"/console/agents/{agent['id']}",
        "/console/webhooks",
        f"/console/webhooks/{endpoint['id']}",
        "/console/webhooks/messages",
        "/console/api-keys",
        "/console/settings",
        "/console/assistant",
    ]
    async with opened(browser, base_url) as page:
        await sign_in(page, tenant.console_email, tenant.console_password, "/console")
        for path in paths:
            await page.goto(base_url + path)
            assert page.url.endswith(path), page.url
            await _keyboard_reaches_everything(page)
            await _clean(page)
        await page.goto(base_url + "/console/assistant")
        await page.get_by_label("New thread").fill("Walk")
        await page.get_by_role("button", name="Start a thread").click()
        await page.wait_for_url("**/console/assistant/thr_*")
        await _keyboard_reaches_everything(page)
        await _clean(page)
