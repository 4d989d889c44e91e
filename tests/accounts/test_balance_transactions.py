"""GET /v1/accounts/{id}/balance-transactions: every movement, newest first."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.accounts.conftest import fund
from tests.conftest import assert_error


def _path(account_id: str) -> str:
    return f"/v1/accounts/{account_id}/balance-transactions"


async def test_a_funding_shows_as_a_credit_with_the_balance_after_it(tenant, customer, clock):
    clock.set(datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC))
    await fund(tenant.client, customer.accounts["USD"], "USD", "1000")
    await fund(tenant.client, customer.accounts["USD"], "USD", "250")

    page = (await tenant.client.get(_path(customer.accounts["USD"]))).json()
    assert page["hasMore"] is False and page["nextCursor"] is None
    latest, first = page["data"]
    assert latest == {
        "id": latest["id"],
        "accountId": customer.accounts["USD"],
        "direction": "CREDIT",
        "amount": {"currency": "USD", "exponent": 2, "value": "250", "displayValue": "2.50"},
        "balanceAfter": {
            "currency": "USD",
            "exponent": 2,
            "value": "1250",
            "displayValue": "12.50",
        },
        "type": "SANDBOX_FUNDING",
        "transferId": None,
        "description": "Sandbox funding",
        "createdAt": "2026-11-21T12:00:00.000Z",
    }
    assert latest["id"].startswith("pst_") and latest["id"] > first["id"]
    assert first["balanceAfter"]["value"] == "1000"


async def test_stablecoin_transactions_show_six_decimals(tenant, customer):
    await fund(tenant.client, customer.accounts["USDC"], "USDC", "2500000")
    [transaction] = (await tenant.client.get(_path(customer.accounts["USDC"]))).json()["data"]
    assert transaction["amount"] == {
        "currency": "USDC",
        "exponent": 6,
        "value": "2500000",
        "displayValue": "2.500000",
    }


async def test_transactions_page_newest_first_without_gaps_or_repeats(tenant, customer):
    for value in range(1, 8):
        await fund(tenant.client, customer.accounts["USD"], "USD", str(value))

    seen, cursor, pages = [], None, 0
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        response = await tenant.client.get(_path(customer.accounts["USD"]), params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        pages += 1
        assert len(page["data"]) <= 3
        seen += page["data"]
        if not page["hasMore"]:
            assert page["nextCursor"] is None
            break
        assert page["nextCursor"] == page["data"][-1]["id"]
        cursor = page["nextCursor"]

    assert pages == 3
    assert [item["amount"]["value"] for item in seen] == [str(value) for value in range(7, 0, -1)]
    ids = [item["id"] for item in seen]
    assert len(set(ids)) == 7 and ids == sorted(ids, reverse=True)
    # balanceAfter walks back down the running sum.
    assert [int(item["balanceAfter"]["value"]) for item in seen] == [
        sum(range(1, value + 1)) for value in range(7, 0, -1)
    ]


async def test_an_account_with_no_movements_has_an_empty_history(tenant, customer):
    page = (await tenant.client.get(_path(customer.accounts["USDC"]))).json()
    assert page == {"data": [], "nextCursor": None, "hasMore": False}


async def test_bad_page_parameters_are_validation_errors(tenant, customer):
    path = _path(customer.accounts["USD"])
    for params in ({"limit": 0}, {"limit": 251}, {"limit": "ten"}, {"cursor": "not a cursor"}):
        assert_error(await tenant.client.get(path, params=params), 422, "validation_error")
