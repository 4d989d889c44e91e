"""The customers pages over HTTP: search and filters as the list API has them, cursor
pages, and one customer's status, requirements, balances, transfers and documents."""

from __future__ import annotations

import re

from tests.console.helpers import console_browser
from tests.support import create_individual


def _customer_ids(html: str) -> list[str]:
    return re.findall(r'href="/console/customers/(cus_[0-9a-z]+)"', html)


async def test_search_status_filter_and_pages(app, owner):
    client = owner.client
    ada = owner.customer.id  # the owner's ACTIVE customer: Ada Lovelace
    grace = await create_individual(
        client, firstName="Grace", lastName="Hopper", email="grace@navy.example"
    )
    alan = await create_individual(
        client, firstName="Alan", lastName="Turing", email="alan@bletchley.example"
    )
    async with console_browser(app, owner.tenant) as browser:
        everyone = await browser.get("/console/customers")
        assert everyone.status_code == 200
        assert _customer_ids(everyone.text) == [alan["id"], grace["id"], ada]
        by_name = await browser.get("/console/customers?q=hopper")
        assert _customer_ids(by_name.text) == [grace["id"]]
        by_email = await browser.get("/console/customers?q=BLETCHLEY")
        assert _customer_ids(by_email.text) == [alan["id"]]
        active = await browser.get("/console/customers?status=ACTIVE")
        assert _customer_ids(active.text) == [ada]
        first = await browser.get("/console/customers?limit=2&q=example")
        assert _customer_ids(first.text) == [alan["id"], grace["id"]]
        next_link = re.search(r'href="([^"]+)" rel="next"', first.text)
        assert next_link and "q=example" in next_link.group(1)
        second = await browser.get(next_link.group(1).replace("&amp;", "&"))
        assert _customer_ids(second.text) == [ada]
        nobody = await browser.get("/console/customers?q=nobody")
        assert "No customers match." in nobody.text
        bad = await browser.get("/console/customers?status=HAPPY")
        assert bad.status_code == 422 and "status" in bad.text


async def test_detail_shows_status_requirements_accounts_and_transfers(app, owner):
    payment = await owner.client.post(
        "/v1/transfers", json=owner.payment(12_345, customerId=owner.customer.id)
    )
    assert payment.status_code == 201, payment.text
    incomplete = await create_individual(
        owner.client, firstName="Eve", lastName="Partial", dateOfBirth=None, address=None
    )
    async with console_browser(app, owner.tenant) as browser:
        detail = await browser.get(f"/console/customers/{owner.customer.id}")
        assert detail.status_code == 200
        assert "ACTIVE" in detail.text and "Nothing is missing." in detail.text
        assert owner.usd_account in detail.text
        assert "1,000,000.00 USD" in detail.text  # the funded USD balance
        assert f'href="/console/transfers/{payment.json()["id"]}"' in detail.text
        assert "123.45 USD" in detail.text
        assert "No documents." in detail.text
        partial = await browser.get(f"/console/customers/{incomplete['id']}")
        assert "INCOMPLETE" in partial.text
        assert "2 missing" in partial.text and "dateOfBirth" in partial.text
        assert "No balance accounts" in partial.text
        missing = await browser.get("/console/customers/cus_00000000000000000000000000")
        assert missing.status_code == 404


async def test_a_customer_named_like_markup_shows_as_text(app, owner):
    sly = await create_individual(
        owner.client, firstName="<script>alert(1)</script>", lastName="<b>Bold</b>"
    )
    async with console_browser(app, owner.tenant) as browser:
        listed = await browser.get("/console/customers?q=script")
        detail = await browser.get(f"/console/customers/{sly['id']}")
    for html in (listed.text, detail.text):
        assert "<script>alert(1)</script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "<b>Bold</b>" not in html
