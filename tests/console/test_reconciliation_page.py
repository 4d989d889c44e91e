"""The console's reconciliation page (issue 27 item 5): an operator sees the open
exceptions of imported statements, each with its reason, the statement line and the
transfer it may be, and resolves one with a note; the line leaves the list, the API and
`reconciliation.resolved` say who resolved it and how."""

from __future__ import annotations

from sqlalchemy import select

from corridor.bankfiles import bank
from corridor.models.event import Event
from corridor.rails.base import RailName
from tests.bankfiles.conftest import file_rails, write_files  # noqa: F401
from tests.bankfiles.test_ach_files import advance_to, files
from tests.bankfiles.test_iso20022_files import MORNING, counterparty_account, entries, sepa_payout
from tests.console.browsing import SCREENSHOTS
from tests.console.helpers import console_browser, post_form
from tests.console.test_browser import _assert_labelled, _clean, opened, sign_in
from tests.parties.helpers import SEPA_ACCOUNT
from tests.programs import needs
from tests.transfers.conftest import create, install_rail, make_customer, settle  # noqa: F401


async def _statement_with_exceptions(app, tenant, clock, file_rails) -> dict:  # noqa: F811
    """Two SEPA payouts written to a bank file, then a statement with one line matched,
    one at another amount (candidate: the second payout) and one with no reference."""
    clock.set(MORNING)
    file_rails(RailName.SEPA)
    customer = await make_customer(tenant.client, ("EUR",))
    await customer.fund("EUR", 500_000)
    account = await counterparty_account(tenant.client, customer.id, SEPA_ACCOUNT)
    payouts = [
        await create(tenant.client, sepa_payout(customer, account, value))
        for value in (1_000, 2_000)
    ]
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T14:01:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client)
    references = await entries(tenant.client, written["id"])
    first, second = (references[payout["id"]]["reference"] for payout in payouts)
    content = bank.account_statement(
        [
            bank.StatementLine("DBIT", "10.00", "EUR", first),
            bank.StatementLine("DBIT", "19.95", "EUR", second),
            bank.StatementLine("CRDT", "7.50", "EUR", None, remittance="Interest November"),
        ],
        statement_id="STMT-CONSOLE",
        now=MORNING,
    )
    response = await tenant.client.post(
        "/v1/reconciliation/statements", json={"name": "camt053-console.xml", "content": content}
    )
    assert response.status_code == 201, response.text
    lines = (
        await tenant.client.get(
            "/v1/reconciliation/lines", params={"statementId": response.json()["id"]}
        )
    ).json()["data"]
    by_number = {line["lineNumber"]: line for line in lines}
    return {
        "mismatch": by_number[2],
        "interest": by_number[3],
        "matched": by_number[1],
        "second": payouts[1]["id"],
    }


async def test_the_exceptions_list_shows_reasons_lines_and_candidates_and_resolves_one(
    app,
    tenant,
    clock,
    file_rails,  # noqa: F811
) -> None:
    made = await _statement_with_exceptions(app, tenant, clock, file_rails)
    mismatch, interest = made["mismatch"], made["interest"]
    async with console_browser(app, tenant) as browser:
        listed = await browser.get("/console/reconciliation")
        assert listed.status_code == 200, listed.text
        page = listed.text
        assert "AMOUNT_MISMATCH" in page and "NO_REFERENCE" in page
        assert "camt053-console.xml" in page and "19.95 EUR" in page
        assert "Interest November" in page
        assert f'href="/console/transfers/{made["second"]}"' in page  # the candidate
        assert made["matched"]["id"] not in page  # a matched line is not an exception
        detail = await browser.get(f"/console/reconciliation/{mismatch['id']}")
        assert "Candidate transfer" in detail.text and made["second"] in detail.text
        assert "20.00 EUR" in detail.text  # what the transfer sent, beside the line's 19.95

        # A note is needed.
        blank = await post_form(
            browser,
            f"/console/reconciliation/{interest['id']}",
            f"/console/reconciliation/{interest['id']}/resolve",
            {"resolution": "  "},
        )
        assert blank.status_code == 422
        resolved = await post_form(
            browser,
            f"/console/reconciliation/{interest['id']}",
            f"/console/reconciliation/{interest['id']}/resolve",
            {"resolution": "Interest from the bank, booked by hand", "transferId": ""},
        )
        assert resolved.status_code == 303, resolved.text
        after = await browser.get(resolved.headers["location"])
        assert "Resolved: the line left the exceptions list." in after.text
        assert "Interest from the bank, booked by hand" in after.text
        assert interest["id"] not in (await browser.get("/console/reconciliation")).text
        shown = await browser.get("/console/reconciliation?status=RESOLVED")
        assert interest["id"] in shown.text
        twice = await post_form(
            browser,
            f"/console/reconciliation/{mismatch['id']}",
            f"/console/reconciliation/{interest['id']}/resolve",
            {"resolution": "again"},
        )
        assert twice.status_code == 409
        forged = await browser.post(
            f"/console/reconciliation/{mismatch['id']}/resolve", data={"resolution": "x"}
        )
        assert forged.status_code == 403  # no CSRF token

    line = (
        await tenant.client.get("/v1/reconciliation/lines", params={"status": "RESOLVED"})
    ).json()["data"]
    assert [found["id"] for found in line] == [interest["id"]]
    assert line[0]["resolution"] == "Interest from the bank, booked by hand"
    assert line[0]["resolvedBy"].startswith("usr_")
    open_lines = (
        await tenant.client.get("/v1/reconciliation/lines", params={"status": "EXCEPTION"})
    ).json()["data"]
    assert [found["id"] for found in open_lines] == [mismatch["id"]]
    async with app.state.database.session(write=False) as session:
        resolved_events = (
            await session.scalars(
                select(Event).where(
                    Event.organization_id == tenant.organization_id,
                    Event.type == "reconciliation.resolved",
                )
            )
        ).all()
    assert [event.data["id"] for event in resolved_events] == [interest["id"]]


@needs("chromium")
async def test_resolve_an_exception_in_chromium(
    app,
    tenant,
    clock,
    file_rails,  # noqa: F811
    base_url,
    browser,
) -> None:
    made = await _statement_with_exceptions(app, tenant, clock, file_rails)
    mismatch = made["mismatch"]
    async with opened(browser, base_url) as page:
        await sign_in(
            page, tenant.console_email, tenant.console_password, "/console/reconciliation"
        )
        await page.get_by_role("heading", name="Reconciliation").wait_for()
        await _assert_labelled(page)
        await page.screenshot(path=str(SCREENSHOTS / "reconciliation.png"), full_page=True)
        await page.get_by_role("link", name="Resolve line 2 of camt053-console.xml").click()
        await page.get_by_role("heading", name="Candidate transfer").wait_for()
        await _assert_labelled(page)
        await page.get_by_label("Note: what was done, and why").fill(
            "The bank charged a 0.05 EUR fee on the payment"
        )
        await page.get_by_label("The transfer the line turned out to be (optional)").fill(
            made["second"]
        )
        await page.screenshot(path=str(SCREENSHOTS / "reconciliation-line.png"), full_page=True)
        await page.get_by_role("button", name="Resolve exception").click()
        await page.get_by_role("status").filter(has_text="Resolved").wait_for()
        assert "RESOLVED" in await page.locator("dl.facts").first.inner_text()
        await page.screenshot(path=str(SCREENSHOTS / "reconciliation-resolved.png"), full_page=True)
        _clean(page)
    line = (
        await tenant.client.get("/v1/reconciliation/lines", params={"status": "RESOLVED"})
    ).json()["data"]
    assert [(found["id"], found["transferId"]) for found in line] == [
        (mismatch["id"], made["second"])
    ]
