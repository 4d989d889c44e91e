"""The administration pages in a real browser (headless Chromium through Playwright,
Debian's /usr/bin/chromium): an agent paused, resumed, given a key shown once and revoked;
a webhook endpoint created, its secret rotated, a failed message's attempts and its
resend; a restricted API key made from ticked scopes; settings refused field by field and
saved. On every page: no script error (a CSP violation is one), every control labelled,
every action reached by Tab. Screenshots go to CORRIDOR_TEST_SCREENSHOTS (docs/console/
keeps the ones the docs show). The module has a database of its own, so the webhook
worker it drives sees only its messages. Skipped, saying why, where no browser can be
started (never in CI: CORRIDOR_TEST_REQUIRE_ALL=1)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from fastapi import FastAPI

from corridor.config import Environment
from tests.conftest import BACKENDS, built_app, migrated_database
from tests.console.browsing import SCREENSHOTS
from tests.programs import needs
from tests.webhooks.support import (
    Answer,
    Receiver,
    create_endpoint,
    deliver,
    emit_events,
    worker_settings,
)

pytestmark = needs("chromium")

tab_presses_max = 300


@pytest.fixture(scope="module", params=BACKENDS)
async def database_url(request, tmp_path_factory) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path_factory.mktemp("console-admin")) as url:
        yield url


@pytest.fixture(scope="module")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    async with built_app(database_url, Environment.SANDBOX) as application:
        yield application


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def _console_error(problems: list[str], message) -> None:
    # The browser asks for /favicon.ico by itself; the console has none (no page links one).
    if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
        problems.append(f"{message.text} ({message.location.get('url')})")


@contextlib.asynccontextmanager
async def signed_in(browser, base_url: str, tenant, path: str) -> AsyncIterator:
    """A page signed in as the tenant's console user, opened at `path`; it collects script
    and console errors (a CSP violation is one) and any dialog."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: _console_error(problems, message))
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
    page.problems = problems
    try:
        await page.goto(base_url + path)
        await page.get_by_label("Email").fill(tenant.console_email)
        await page.get_by_label("Password").fill(tenant.console_password)
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url(f"**{path}")
        yield page
        assert problems == [], problems
    finally:
        await context.close()


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
MARK_ACTIONS = """
() => Array.from(document.querySelectorAll(
    'main a[href], main button:not([disabled]), main input:not([type=hidden]), main select'))
  .map((element, index) => { element.dataset.action = String(index); return index; })
"""
FOCUSED_ACTION = (
    "() => document.activeElement ? document.activeElement.dataset.action || null : null"
)


def screenshot_path(name: str) -> str:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return str(SCREENSHOTS / name)


async def check_page(page, screenshot: str | None = None) -> None:
    """Every control labelled, every action of the page reached by Tab; a screenshot."""
    assert await page.evaluate(UNLABELLED_CONTROLS) == [], page.url
    wanted = set(await page.evaluate(MARK_ACTIONS))
    reached: set[int] = set()
    await page.locator("body").focus()
    for _ in range(tab_presses_max):
        await page.keyboard.press("Tab")
        focused = await page.evaluate(FOCUSED_ACTION)
        if focused is not None:
            reached.add(int(focused))
        if reached >= wanted:
            break
    missing = await page.evaluate(
        '(missing) => missing.map((index) => document.querySelector(`[data-action="${index}"]`).outerHTML)',
        sorted(wanted - reached),
    )
    assert missing == [], f"{page.url}: not reached by Tab: {missing}"
    if screenshot:
        await page.evaluate("() => document.activeElement && document.activeElement.blur()")
        await page.screenshot(path=screenshot_path(screenshot), full_page=True)


async def test_an_agent_paused_resumed_given_a_key_and_revoked(app, owner, base_url, browser):
    from tests.agents.conftest import pay

    agent = await owner.create_agent(name="Invoice bot")
    async with await owner.agent_client(agent["id"]) as client:
        await pay(client, owner.payment(85_000 - 50_000))
        await pay(client, owner.payment(50_000))
    await owner.create_agent(name="Payroll bot", limits={"perTransfer": "2500000"})
    async with signed_in(browser, base_url, owner.tenant, "/console/agents") as page:
        await page.get_by_role("link", name="Invoice bot").wait_for()
        await check_page(page, "agents.png")
        await page.get_by_role("link", name="Invoice bot").click()
        day = page.get_by_role("img", name="Day: 85% of the limit used")
        await day.wait_for()
        assert (
            "850.00 USD of 1,000.00 USD used (85%)"
            in await page.locator(".meter-row").first.inner_text()
        )
        await check_page(page, "agent-detail.png")

        await page.get_by_role("button", name="Pause").click()
        await page.get_by_role("status").filter(has_text="Paused").wait_for()
        assert "PAUSED" in await page.get_by_role("heading", level=1).inner_text()
        await page.get_by_role("button", name="Resume").click()
        await page.get_by_role("status").filter(has_text="Resumed").wait_for()

        await page.get_by_label("Key name (optional)").fill("Production bot")
        await page.get_by_role("button", name="Issue a key").click()
        shown = page.locator("#secret-value")
        await shown.wait_for()
        secret = await shown.inner_text()
        assert secret.startswith("sk_sandbox_agent_") and secret not in page.url
        await page.screenshot(path=screenshot_path("agent-key-shown-once.png"), full_page=True)
        await page.goto(f"{base_url}/console/agents/{agent['id']}")
        assert secret not in await page.content()

        await page.get_by_label("Revoke for good: the agent and its keys stop at once").check()
        await page.get_by_role("button", name="Revoke agent").click()
        await page.get_by_role("status").filter(has_text="Revoked").wait_for()
        assert "REVOKED" in await page.get_by_role("heading", level=1).inner_text()
    assert (await owner.client.get(f"/v1/agents/{agent['id']}")).json()["status"] == "REVOKED"


async def test_create_an_agent_from_the_form(app, owner, base_url, browser):
    async with signed_in(browser, base_url, owner.tenant, "/console/agents") as page:
        await page.get_by_role("link", name="New agent").click()
        await page.get_by_role("heading", name="New agent").wait_for()
        await check_page(page, "agent-new.png")
        await page.get_by_label("Name").fill("Supplier bot")
        await page.get_by_label("Customer id").fill(owner.customer.id)
        await page.get_by_label("Pays from (balance account id)").fill(owner.usd_account)
        await page.get_by_label("Per transfer").fill("250")
        await page.get_by_label("Over a limit").select_option("REQUEST_APPROVAL")
        await page.get_by_label("One a line", exact=False).fill(
            f"counterparty {owner.counterparty_id}"
        )
        await page.get_by_role("button", name="Create agent").click()
        await page.get_by_role("status").filter(has_text="Agent created").wait_for()
        assert "Supplier bot" in await page.get_by_role("heading", level=1).inner_text()
        assert "250.00 USD" in await page.locator("#spend-title + p").inner_text()


async def test_a_webhook_endpoint_created_rotated_and_a_message_resent(
    app, tenant, base_url, browser, receiver
):
    await create_endpoint(tenant.client, receiver.url, description="Ledger sync")
    down = Receiver()
    failing = await create_endpoint(tenant.client, down.url, eventTypes=["test.ping"])
    sent = await emit_events(
        app, tenant.organization_id, 3, tags=("tfr_01jd3x0p6x9e3k2v1m8q4r7s5t",)
    )
    down.answer_with(*[Answer(status=500, body=b'{"error":"database is down"}')] * 3)
    try:
        await deliver(app, worker_settings(app, webhook_retry_schedule_s=[]))
    finally:
        down.close()
    async with signed_in(browser, base_url, tenant, "/console/webhooks") as page:
        await page.get_by_label("URL").fill("https://example.com/hooks/corridor")
        await page.get_by_label("Description (optional)").fill("Books")
        await page.get_by_label("Event types (optional", exact=False).fill("transfer.completed")
        await page.get_by_role("button", name="Add endpoint").click()
        await page.get_by_role("status").filter(has_text="Endpoint created").wait_for()
        await page.get_by_role("button", name="Rotate secret").click()
        secret = await page.locator("#secret-value").inner_text()
        assert secret.startswith("whsec_") and secret not in page.url

        await page.goto(f"{base_url}/console/webhooks")
        await check_page(page, "webhooks.png")
        await page.goto(f"{base_url}/console/webhooks/{failing['id']}")
        await check_page(page, "webhook-endpoint.png")
        await page.goto(f"{base_url}/console/webhooks/messages?endpointId={failing['id']}")
        await check_page(page, "webhook-messages.png")

        await page.get_by_label("Status at the endpoint").select_option("FAIL")
        await page.get_by_role("button", name="Filter").click()
        await page.wait_for_url("**status=FAIL**")
        failed_links = page.locator("table a.mono")
        assert await failed_links.count() == len(sent)
        await failed_links.first.click()
        await page.get_by_text('{"error":"database is down"}').first.wait_for()
        await check_page(page, "webhook-message.png")
        await page.get_by_role("button", name=f"Resend to {failing['id']}").click()
        await page.get_by_role("status").filter(has_text="Resend queued").wait_for()


async def test_a_restricted_api_key_from_ticked_scopes(app, tenant, base_url, browser):
    async with signed_in(browser, base_url, tenant, "/console/api-keys") as page:
        await check_page(page, "api-keys.png")
        await page.get_by_label("Name").fill("Payouts backend")
        # A scope's label starts with its name; accounts:write's description names
        # accounts:read too, so match the start.
        await page.get_by_role("checkbox", name=re.compile(r"^transfers:write\b")).check()
        await page.get_by_role("checkbox", name=re.compile(r"^accounts:read\b")).check()
        await page.get_by_role("button", name="Create key").click()
        secret = await page.locator("#secret-value").inner_text()
        assert secret.startswith("sk_sandbox_") and secret not in page.url
        row = page.locator("tr", has_text="Payouts backend")
        assert "accounts:read, transfers:write" in await row.inner_text()
        await row.get_by_role("button", name="Revoke key Payouts backend", exact=False).click()
        await page.get_by_role("status").filter(has_text="Key revoked").wait_for()
        assert "REVOKED" in await page.locator("tr", has_text="Payouts backend").inner_text()


async def test_settings_refused_field_by_field_then_saved(app, tenant, base_url, browser):
    async with signed_in(browser, base_url, tenant, "/console/settings") as page:
        await check_page(page, "settings.png")
        await page.get_by_label("Authorization threshold (empty: none)").fill("12.345")
        await page.get_by_label("Requests per second per key", exact=False).fill("lots")
        await page.get_by_role("button", name="Save settings").click()
        await page.get_by_role("alert").filter(has_text="The settings were not saved").wait_for()
        threshold = page.get_by_label("Authorization threshold (empty: none)")
        assert await threshold.get_attribute("aria-invalid") == "true"
        assert (
            "decimal places"
            in await page.locator("#transferAuthorizationThreshold-error").inner_text()
        )
        # The refused form is answered 422, which the browser reports; nothing else went wrong.
        assert [problem for problem in page.problems if "status of 422" not in problem] == []
        page.problems.clear()
        await threshold.fill("5000")
        await page.get_by_label("Requests per second per key", exact=False).fill("")
        await page.get_by_label("EUR", exact=True).check()
        await page.get_by_role("button", name="Save settings").click()
        await page.get_by_role("status").filter(has_text="Settings saved").wait_for()
    configuration = (await tenant.client.get("/v1/organizations/current/configuration")).json()
    assert configuration["transferAuthorizationThreshold"]["value"] == "500000"
    assert "EUR" in configuration["accountCurrencies"]
