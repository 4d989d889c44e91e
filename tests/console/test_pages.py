"""The console's pages over HTTP, as a signed-in browser uses them: home, transfers,
approvals, review and authorization, each calling the API's services."""

from __future__ import annotations

import re

from sqlalchemy import update

from corridor.kit.clock import SystemClock
from corridor.models.webhook import WebhookEndpoint
from tests.auth.credentials import bearer, console_token
from tests.conftest import client_for
from tests.console.conftest import parked
from tests.console.helpers import console_browser, post_form, sign_in
from tests.support import create_individual
from tests.transfers.conftest import amount, create, fetch, make_customer
from tests.transfers.test_lifecycle import second_console_user
from tests.webhooks.support import create_endpoint


def _ids(html: str) -> list[str]:
    return re.findall(r'href="/console/transfers/(tfr_[0-9a-z]+)"', html)


async def test_home_shows_balances_per_currency_and_what_waits(app, owner):
    await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        home = await browser.get("/console")
    assert home.status_code == 200
    assert "1,000,000.00 USD" in home.text  # the funded balance
    assert re.search(r"Agent payments to approve</div>\s*<div class=\"value\">1<", home.text)
    assert 'hx-get="/console/attention"' in home.text


async def test_the_attention_partial_is_a_fragment(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        before = await browser.get("/console/attention", headers={"HX-Request": "true"})
        assert "<html" not in before.text
        assert re.search(r"to approve</div>\s*<div class=\"value\">0<", before.text)
        await parked(owner)
        after = await browser.get("/console/attention", headers={"HX-Request": "true"})
        assert re.search(r"to approve</div>\s*<div class=\"value\">1<", after.text)


async def test_transfers_list_filters_and_pages_by_cursor(app, owner):
    customer = owner.customer
    made = [
        await create(
            owner.client,
            {
                "customerId": customer.id,
                "source": {"accountId": customer.accounts["USD"]},
                "destination": {"accountId": customer.accounts["USDC"]},
                "amount": amount("USD", 100 + index),
                "clientReferenceId": f"ref-{index}",
            },
        )
        for index in range(3)
    ]
    async with console_browser(app, owner.tenant) as browser:
        first = await browser.get("/console/transfers?limit=2&status=DRAFT")
        assert first.status_code == 200
        assert _ids(first.text) == [made[2]["id"], made[1]["id"]]
        next_link = re.search(r'href="([^"]+)" rel="next"', first.text)
        assert next_link
        second = await browser.get(next_link.group(1).replace("&amp;", "&"))
        assert _ids(second.text) == [made[0]["id"]]
        assert "status=DRAFT" in next_link.group(1)
        by_reference = await browser.get("/console/transfers?clientReferenceId=ref-1")
        assert _ids(by_reference.text) == [made[1]["id"]]
        none = await browser.get("/console/transfers?status=COMPLETED")
        assert "No transfers match." in none.text
        bad = await browser.get("/console/transfers?status=NOPE")
        assert bad.status_code == 422 and "status" in bad.text
        bad_date = await browser.get("/console/transfers?createdFrom=yesterday")
        assert bad_date.status_code == 422


async def test_transfer_detail_shows_legs_amounts_and_events(app, owner):
    draft = await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        detail = await browser.get(f"/console/transfers/{draft['id']}")
        assert detail.status_code == 200
        assert "600.00 USD" in detail.text
        assert "DEBIT_BALANCE" in detail.text or "Legs" in detail.text
        assert "transfer.approval_requested" in detail.text
        missing = await browser.get("/console/transfers/tfr_00000000000000000000000000")
        assert missing.status_code == 404


async def test_approvals_show_the_broken_limit_and_approve_submits(app, owner):
    draft = await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        queue = await browser.get("/console/approvals")
        assert draft["id"] in queue.text
        assert "Per-transfer limit" in queue.text and "500.00 USD" in queue.text
        assert "over by <strong>100.00 USD</strong>" in queue.text
        assert 'hx-get="/console/approvals/rows"' in queue.text
        answer = await post_form(
            browser,
            "/console/approvals",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "APPROVE", "back": "/console/approvals"},
        )
        assert answer.status_code == 303
        assert answer.headers["location"] == "/console/approvals?done=approved"
        after = await browser.get(answer.headers["location"])
        assert "Approved: the payment was submitted." in after.text
        assert draft["id"] not in after.text
    approved = await fetch(owner.client, draft["id"])
    assert approved["status"] == "PENDING" and approved["agentApprovalStatus"] == "APPROVED"


async def test_decline_cancels_with_the_reason(app, owner):
    draft = await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        answer = await post_form(
            browser,
            "/console/approvals",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "DECLINE", "reason": "Not an invoice we expect"},
        )
        assert answer.status_code == 303
        assert answer.headers["location"] == f"/console/transfers/{draft['id']}?done=declined"
        detail = await browser.get(answer.headers["location"])
        assert "CANCELLED" in detail.text and "Not an invoice we expect" in detail.text
    declined = await fetch(owner.client, draft["id"])
    assert declined["status"] == "CANCELLED"
    assert declined["cancellation"]["reason"] == "Not an invoice we expect"


async def test_a_decision_the_service_refuses_is_shown_with_its_status(app, owner):
    draft = await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        await post_form(
            browser,
            "/console/approvals",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "APPROVE"},
        )
        again = await post_form(
            browser,
            "/console/approvals",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "APPROVE"},
        )
        assert again.status_code == 409
        assert "awaiting" in again.text.lower() or "approval" in again.text.lower()
        wrong = await post_form(
            browser,
            "/console/approvals",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "MAYBE"},
        )
        assert wrong.status_code == 422 and "decision" in wrong.text


async def test_review_approves_an_in_review_transfer(app, make_tenant):
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
        async with console_browser(app, tenant) as browser:
            queue = await browser.get("/console/reviews")
            assert transfer["id"] in queue.text
            answer = await post_form(
                browser,
                "/console/reviews",
                f"/console/transfers/{transfer['id']}/review",
                {"decision": "APPROVE", "reason": "Checked", "back": "/console/reviews"},
            )
            assert answer.status_code == 303
            assert answer.headers["location"] == "/console/reviews?done=review-approved"
        reviewed = await fetch(console_api, transfer["id"])
        assert reviewed["status"] in ("PENDING", "PROCESSING")
        assert reviewed["review"]["decision"] == "APPROVE"


async def test_authorization_is_refused_to_the_submitter_and_done_by_another_user(app, owner):
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
    async with console_browser(app, owner.tenant) as submitter:
        queue = await submitter.get("/console/authorizations")
        assert transfer["id"] in queue.text
        refused = await post_form(
            submitter,
            "/console/authorizations",
            f"/console/transfers/{transfer['id']}/authorize",
            {"decision": "APPROVE"},
        )
        assert refused.status_code == 403
        assert "Not allowed" in refused.text
    assert (await fetch(owner.client, transfer["id"]))["status"] == "PENDING_AUTHORIZATION"
    await second_console_user(app, owner.tenant)
    async with client_for(app) as second:
        email = f"second-{owner.tenant.organization_id}@example.com"
        assert (await sign_in(second, email, "correct horse battery")).status_code == 303
        answer = await post_form(
            second,
            "/console/authorizations",
            f"/console/transfers/{transfer['id']}/authorize",
            {"decision": "APPROVE", "back": "/console/authorizations"},
        )
        assert answer.status_code == 303, answer.text
    authorized = await fetch(owner.client, transfer["id"])
    assert authorized["status"] == "PENDING"


async def test_a_customer_name_with_markup_is_shown_as_text(app, owner):
    created = await create_individual(
        owner.client, firstName="<script>alert(1)</script>", lastName="<b>x</b>"
    )
    transfer = await create(
        owner.client,
        {
            "customerId": owner.customer.id,
            "source": {"accountId": owner.customer.accounts["USD"]},
            "destination": {"accountId": owner.customer.accounts["USD"]},
            "amount": amount("USD", 100),
            "clientReferenceId": "<img src=x onerror=alert(1)>",
        },
    )
    async with console_browser(app, owner.tenant) as browser:
        listed = await browser.get(f"/console/transfers?customerId={created['id']}")
        detail = await browser.get(f"/console/transfers/{transfer['id']}")
    for page in (listed.text, detail.text):
        assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in detail.text


async def test_home_counts_failing_webhook_endpoints(app, tenant):
    healthy = await create_endpoint(tenant.client, "https://example.com/healthy")
    failing = await create_endpoint(tenant.client, "https://example.com/failing")
    async with app.state.database.session() as session, session.begin():
        # As the dispatcher marks an endpoint whose deliveries keep failing.
        await session.execute(
            update(WebhookEndpoint)
            .where(WebhookEndpoint.id == failing["id"])
            .values(failing_since=SystemClock().now())
        )
    async with console_browser(app, tenant) as browser:
        attention = await browser.get("/console/attention")
    assert re.search(r"Failing webhook endpoints</div>\s*<div class=\"value\">1<", attention.text)
    assert healthy["id"] != failing["id"]


async def test_after_a_decision_the_page_it_came_from_opens_with_its_filters(app, owner):
    draft = await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        answer = await post_form(
            browser,
            "/console/transfers?status=DRAFT",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "APPROVE", "back": "/console/transfers?status=DRAFT"},
        )
        assert answer.headers["location"] == "/console/transfers?status=DRAFT&done=approved"
        elsewhere = await post_form(
            browser,
            "/console/transfers",
            f"/console/transfers/{draft['id']}/agent-approval",
            {"decision": "APPROVE", "back": "https://evil.example/"},
        )
        # Already approved (409), and never a redirect to another site.
        assert elsewhere.status_code == 409


async def test_forms_of_a_polled_queue_come_back_to_the_whole_page(app, owner):
    draft = await parked(owner)
    async with console_browser(app, owner.tenant) as browser:
        rows = await browser.get("/console/approvals/rows", headers={"HX-Request": "true"})
        assert draft["id"] in rows.text
        assert 'name="back" value="/console/approvals"' in rows.text
        reviews = await browser.get("/console/reviews/rows", headers={"HX-Request": "true"})
        assert reviews.status_code == 200 and "<html" not in reviews.text


async def test_a_completed_transfer_says_when_it_settled_and_who_submitted_it(app, owner):
    transfer = await create(
        owner.client,
        {**owner.payment(2_500), "customerId": owner.customer.id, "confirm": True},
    )
    for leg in transfer["legs"]:
        forced = await owner.client.post(
            f"/v1/sandbox/transfers/{transfer['id']}/legs/{leg['id']}/status",
            json={"status": "COMPLETED"},
        )
        assert forced.status_code == 200, forced.text
    assert (await fetch(owner.client, transfer["id"]))["status"] == "COMPLETED"
    key = (await owner.client.get("/v1/api-keys")).json()["data"]
    async with console_browser(app, owner.tenant) as browser:
        detail = await browser.get(f"/console/transfers/{transfer['id']}")
        assert detail.status_code == 200
        assert "Settled at" in detail.text and "Settles about" not in detail.text
        submitted = re.search(r"<dt>Submitted by</dt><dd>(.*?)</dd>", detail.text)
        assert submitted, detail.text
        names = {f"API key “{k['name']}”" for k in key}
        assert any(name in submitted.group(1) for name in names), submitted.group(1)
        # No endpoint is subscribed: the events say so plainly, no red badge.
        assert "transfer.created" in detail.text
        assert "not sent: no endpoint subscribed" in detail.text
        assert "CANCELED" not in detail.text


async def test_an_authorized_transfer_names_the_people(app, owner):
    async with client_for(app, bearer(await console_token(owner.tenant))) as console_api:
        await console_api.patch(
            "/v1/organizations/current/configuration",
            json={"transferAuthorizationThreshold": amount("USD", 5_000)},
        )
        transfer = await create(
            console_api,
            {**owner.payment(9_000), "customerId": owner.customer.id, "confirm": True},
        )
    await second_console_user(app, owner.tenant)
    async with client_for(app) as second:
        email = f"second-{owner.tenant.organization_id}@example.com"
        assert (await sign_in(second, email, "correct horse battery")).status_code == 303
        answer = await post_form(
            second,
            "/console/authorizations",
            f"/console/transfers/{transfer['id']}/authorize",
            {"decision": "APPROVE"},
        )
        assert answer.status_code == 303, answer.text
        detail = await second.get(f"/console/transfers/{transfer['id']}")
    submitted = re.search(r"<dt>Submitted by</dt><dd>(.*?)</dd>", detail.text)
    assert submitted and owner.tenant.console_email in submitted.group(1)
    assert f"by {email}" in detail.text
    assert "Settles about" in detail.text or "Settled at" not in detail.text
