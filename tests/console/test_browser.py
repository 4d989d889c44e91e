"""The console in a real browser (headless Chromium through Playwright, Debian's
/usr/bin/chromium): sign in, approve and decline agent payments, review, authorize as a
second person, markup shown as text, a form without its CSRF token refused, the keyboard
reaching every action, a label on every control, a queue updating itself. The app under
test is served by uvicorn inside the test's event loop, so fixtures build the data with
the API's own services. Skipped, saying why, where no browser can be started (never in
CI: CORRIDOR_TEST_REQUIRE_ALL=1)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from tests.auth.credentials import bearer, console_token
from tests.conftest import client_for
from tests.console.browsing import SCREENSHOTS
from tests.console.conftest import parked
from tests.programs import needs
from tests.support import create_individual
from tests.transfers.conftest import amount, create, fetch, make_customer
from tests.transfers.test_lifecycle import second_console_user

pytestmark = needs("chromium")

# How long a page may take to show what a test waits for (a queue polls every 5 s).
wait_ms = 20_000


class Problems(list):
    """Script errors and console errors of a page (a CSP violation is one)."""


@contextlib.asynccontextmanager
async def opened(browser, base_url: str) -> AsyncIterator:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    problems = Problems()
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    dialogs: list[str] = []

    async def dismiss(dialog) -> None:
        dialogs.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", dismiss)
    page.problems = problems
    page.dialogs = dialogs
    page.base_url = base_url
    try:
        yield page
    finally:
        await context.close()


async def sign_in(
    page, email: str, password: str, path: str = "/console", *, screenshot: str | None = None
) -> None:
    await page.goto(page.base_url + path)
    assert "/console/sign-in" in page.url
    if screenshot:
        await page.screenshot(path=str(SCREENSHOTS / screenshot))
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"**{path}")


def _clean(page) -> None:
    assert page.problems == [], page.problems
    assert page.dialogs == [], page.dialogs


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


async def _assert_labelled(page) -> None:
    assert await page.evaluate(UNLABELLED_CONTROLS) == [], page.url


async def test_sign_in_and_home(app, owner, base_url, browser):
    await parked(owner)
    async with opened(browser, base_url) as page:
        await sign_in(
            page,
            owner.tenant.console_email,
            owner.tenant.console_password,
            screenshot="sign-in.png",
        )
        await page.get_by_role("heading", name="Home").wait_for()
        assert "1,000,000.00 USD" in await page.locator("#balances-title + p + table").inner_text()
        tile = page.locator(".tile", has_text="Agent payments to approve")
        assert (await tile.locator(".value").inner_text()) == "1"
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "home.png"), full_page=True)
        _clean(page)


async def test_approve_a_parked_payment_and_see_it_pending(app, owner, base_url, browser):
    draft = await parked(owner)
    async with opened(browser, base_url) as page:
        await sign_in(
            page, owner.tenant.console_email, owner.tenant.console_password, "/console/approvals"
        )
        card = page.locator("article.approval", has_text=draft["id"])
        assert "over by 100.00 USD" in await card.inner_text()
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "approvals.png"), full_page=True)
        await card.get_by_role("button", name="Approve").click()
        await page.get_by_role("status").filter(has_text="Approved").wait_for()
        await page.goto(f"{base_url}/console/transfers/{draft['id']}")
        heading = await page.get_by_role("heading", level=1).inner_text()
        assert "PENDING" in heading and "APPROVED" in heading
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "transfer-detail.png"), full_page=True)
        _clean(page)
    assert (await fetch(owner.client, draft["id"]))["status"] == "PENDING"


async def test_decline_with_a_reason_and_see_it_cancelled(app, owner, base_url, browser):
    draft = await parked(owner)
    async with opened(browser, base_url) as page:
        await sign_in(
            page, owner.tenant.console_email, owner.tenant.console_password, "/console/approvals"
        )
        card = page.locator("article.approval", has_text=draft["id"])
        await card.get_by_label("Reason to decline").fill("Not an invoice we expect")
        await card.get_by_role("button", name="Decline").click()
        await page.get_by_role("status").filter(has_text="Declined").wait_for()
        await page.goto(f"{base_url}/console/transfers/{draft['id']}")
        assert "CANCELLED" in await page.get_by_role("heading", level=1).inner_text()
        assert "Not an invoice we expect" in await page.locator("#summary-title + dl").inner_text()
        _clean(page)
    declined = await fetch(owner.client, draft["id"])
    assert declined["cancellation"]["reason"] == "Not an invoice we expect"


async def test_an_approval_arriving_while_the_page_is_open_appears(app, owner, base_url, browser):
    async with opened(browser, base_url) as page:
        await sign_in(
            page, owner.tenant.console_email, owner.tenant.console_password, "/console/approvals"
        )
        await page.get_by_text("Nothing waits for approval.").wait_for()
        draft = await parked(owner)
        await page.locator("article.approval", has_text=draft["id"]).wait_for(timeout=wait_ms)
        _clean(page)


async def test_review_an_in_review_transfer(app, make_tenant, base_url, browser):
    tenant = await make_tenant(kind="PLATFORM")
    async with client_for(app, bearer(await console_token(tenant))) as console_api:
        customer = await make_customer(console_api)
        await customer.fund("USD", 10_000)
        headers = {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer.id}
        async with client_for(app, headers) as platform:
            transfer = await create(
                platform,
                {
                    "source": {"accountId": customer.accounts["USD"]},
                    "destination": {"accountId": customer.accounts["USD"]},
                    "amount": amount("USD", 2_500),
                    "confirm": True,
                },
            )
        assert transfer["status"] == "IN_REVIEW"
        async with opened(browser, base_url) as page:
            await sign_in(page, tenant.console_email, tenant.console_password, "/console/reviews")
            card = page.locator("article", has_text=transfer["id"])
            await card.get_by_label("Reason (optional)").fill("Checked the invoice")
            await card.get_by_role("button", name="Approve").click()
            await page.get_by_role("status").filter(has_text="Review approved").wait_for()
            await _assert_labelled(page)
            _clean(page)
        reviewed = await fetch(console_api, transfer["id"])
    assert reviewed["review"]["decision"] == "APPROVE"
    assert reviewed["review"]["reason"] == "Checked the invoice"


async def test_a_second_user_authorizes_what_the_first_submitted(app, owner, base_url, browser):
    async with client_for(app, bearer(await console_token(owner.tenant))) as console_api:
        threshold = await console_api.patch(
            "/v1/organizations/current/configuration",
            json={"transferAuthorizationThreshold": amount("USD", 5_000)},
        )
        assert threshold.status_code == 200, threshold.text
        transfer = await create(
            console_api,
            {**owner.payment(9_000), "customerId": owner.customer.id, "confirm": True},
        )
    assert transfer["status"] == "PENDING_AUTHORIZATION"
    await second_console_user(app, owner.tenant)
    async with opened(browser, base_url) as page:
        await sign_in(
            page,
            owner.tenant.console_email,
            owner.tenant.console_password,
            "/console/authorizations",
        )
        card = page.locator("article", has_text=transfer["id"])
        await card.get_by_role("button", name="Approve").click()
        await page.get_by_role("heading", name="Not allowed").wait_for()
        assert "cannot also authorize" in await page.get_by_role("alert").inner_text()
        await page.screenshot(path=str(SCREENSHOTS / "refused.png"))
    assert (await fetch(owner.client, transfer["id"]))["status"] == "PENDING_AUTHORIZATION"
    async with opened(browser, base_url) as page:
        email = f"second-{owner.tenant.organization_id}@example.com"
        await sign_in(page, email, "correct horse battery", "/console/authorizations")
        card = page.locator("article", has_text=transfer["id"])
        await card.get_by_role("button", name="Approve").click()
        await page.get_by_role("status").filter(has_text="Authorized").wait_for()
        _clean(page)
    assert (await fetch(owner.client, transfer["id"]))["status"] == "PENDING"


async def test_markup_in_a_customer_name_is_shown_as_text(app, owner, base_url, browser):
    customer = await create_individual(owner.client, firstName="<script>alert(1)</script>")
    await owner.client.post(
        f"/v1/sandbox/customers/{customer['id']}/verification-status", json={"status": "ACTIVE"}
    )
    accounts = (await owner.client.get(f"/v1/customers/{customer['id']}/accounts")).json()
    usd = next(account["id"] for account in accounts["data"] if account["currency"] == "USD")
    transfer = await create(
        owner.client,
        {
            "customerId": customer["id"],
            "source": {"accountId": usd},
            "destination": {"accountId": usd},
            "amount": amount("USD", 100),
        },
    )
    async with opened(browser, base_url) as page:
        await sign_in(
            page,
            owner.tenant.console_email,
            owner.tenant.console_password,
            f"/console/transfers/{transfer['id']}",
        )
        summary = await page.locator("#summary-title + dl").inner_text()
        assert "<script>alert(1)</script>" in summary
        await page.goto(f"{base_url}/console/transfers?customerId={customer['id']}")
        assert "<script>alert(1)</script>" in await page.locator("table").inner_text()
        _clean(page)  # no alert dialog opened


async def test_a_form_posted_without_its_csrf_token_is_refused(app, owner, base_url, browser):
    draft = await parked(owner)
    async with opened(browser, base_url) as page:
        await sign_in(
            page, owner.tenant.console_email, owner.tenant.console_password, "/console/approvals"
        )
        card = page.locator("article.approval", has_text=draft["id"])
        await card.locator("input[name=csrf_token]").evaluate_all(
            "(fields) => fields.forEach((field) => field.remove())"
        )
        async with page.expect_response(lambda response: response.request.method == "POST") as sent:
            await card.get_by_role("button", name="Approve").click()
        assert (await sent.value).status == 403
        await page.get_by_role("heading", name="Not allowed").wait_for()
    parked_still = await fetch(owner.client, draft["id"])
    assert parked_still["agentApprovalStatus"] == "PENDING"


FOCUSED = """
() => {
  const element = document.activeElement;
  return element ? (element.getAttribute('aria-label') || element.textContent.trim()
    || element.getAttribute('name') || element.tagName) : null;
}
"""
ACTIONS = """
() => Array.from(document.querySelectorAll('main a[href], main button, main input:not([type=hidden])'))
  .map((element) => element.getAttribute('aria-label') || element.textContent.trim()
    || element.getAttribute('name') || element.tagName)
"""


async def test_the_keyboard_reaches_every_action_of_the_approvals_page(
    app, owner, base_url, browser
):
    await parked(owner)
    await parked(owner, value=70_000)
    async with opened(browser, base_url) as page:
        await sign_in(
            page, owner.tenant.console_email, owner.tenant.console_password, "/console/approvals"
        )
        wanted = await page.evaluate(ACTIONS)
        reached: list[str] = []
        for _ in range(200):
            await page.keyboard.press("Tab")
            focused = await page.evaluate(FOCUSED)
            if focused in reached and focused == reached[0]:
                break
            reached.append(focused)
        missing = [action for action in wanted if action not in reached]
        assert missing == []
        # Approve and Decline of each payment, in reading order.
        decisions = [name for name in reached if name.startswith(("Approve ", "Decline "))]
        assert len(decisions) == 4
        assert reached.index("Skip to content") < reached.index("Home")


async def test_the_home_counts_refresh_while_the_page_is_open(app, owner, base_url, browser):
    async with opened(browser, base_url) as page:
        await sign_in(page, owner.tenant.console_email, owner.tenant.console_password)
        tile = page.locator(".tile", has_text="Agent payments to approve")
        assert (await tile.locator(".value").inner_text()) == "0"
        await parked(owner)
        await tile.locator(".value", has_text="1").wait_for(timeout=wait_ms)
        assert "attention" in (await tile.get_attribute("class"))
        _clean(page)
