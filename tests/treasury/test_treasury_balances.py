"""A customer's treasury balances: per currency available, held and total across its
accounts, and their value in the organization's reporting currency at reference rates."""

from __future__ import annotations

from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.support import active_customer
from tests.transfers.conftest import amount, create, make_customer


def _by_currency(body: dict) -> dict[str, dict]:
    return {balance["currency"]: balance for balance in body["balances"]}


async def _treasury(client, customer_id: str):
    return await client.get(f"/v1/customers/{customer_id}/treasury-balances")


async def _customer_with_money(tenant):
    customer = await make_customer(tenant.client, currencies=("USD", "EUR", "USDC", "KES"))
    await customer.fund("USD", 10_000)
    await customer.fund("EUR", 5_000)
    await customer.fund("USDC", 20_000_000)
    await customer.fund("KES", 100_000)
    payee = await active_customer(tenant.client)
    payee_accounts = await tenant.client.get(f"/v1/customers/{payee['id']}/accounts")
    payee_usd = next(a["id"] for a in payee_accounts.json()["data"] if a["currency"] == "USD")
    # Submitted, not yet carried out by the engine: $30.00 is held.
    await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": payee_usd},
            "amount": amount("USD", 3_000),
            "confirm": True,
        },
    )
    return customer


async def test_balances_per_currency_and_their_value_in_dollars(tenant):
    customer = await _customer_with_money(tenant)
    response = await _treasury(tenant.client, customer.id)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["customerId"] == customer.id and body["reportingCurrency"] == "USD"
    balances = _by_currency(body)
    assert list(balances) == ["EUR", "KES", "USD", "USDC"]
    usd = balances["USD"]
    assert (usd["available"]["value"], usd["held"]["value"], usd["pending"]["value"]) == (
        "7000",
        "3000",
        "0",
    )
    assert usd["total"]["value"] == "7000" and usd["accounts"] == 1
    account_balance = await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/balance")
    assert usd["available"] == account_balance.json()["available"]
    assert usd["total"] == account_balance.json()["total"]
    assert (usd["rate"], usd["totalInReportingCurrency"]["value"]) == ("1", "7000")
    assert (balances["EUR"]["rate"], balances["EUR"]["totalInReportingCurrency"]["value"]) == (
        "1.08",
        "5400",
    )
    assert (balances["USDC"]["rate"], balances["USDC"]["totalInReportingCurrency"]["value"]) == (
        "1",
        "2000",
    )
    assert balances["KES"]["rate"] is None
    assert balances["KES"]["totalInReportingCurrency"] is None
    assert body["unpricedCurrencies"] == ["KES"]
    # $70.00 + €50.00 at 1.08 + 20 USDC = $144.00 (KES has no published rate).
    assert body["total"] == {
        "currency": "USD",
        "exponent": 2,
        "value": "14400",
        "displayValue": "144.00",
    }
    assert body["available"]["value"] == "14400"
    assert body["rateProvider"] == "CORRIDOR_SANDBOX_REFERENCE"
    assert body["ratesAsOf"] == "2026-01-02T16:00:00.000Z"


async def test_the_reporting_currency_is_the_organizations(tenant):
    customer = await _customer_with_money(tenant)
    changed = await tenant.client.patch(
        "/v1/organizations/current/configuration", json={"reportingCurrency": "EUR"}
    )
    assert changed.status_code == 200, changed.text
    body = (await _treasury(tenant.client, customer.id)).json()
    assert body["reportingCurrency"] == "EUR"
    balances = _by_currency(body)
    # 1 USD = 1/1.08 EUR = 0.9259259259 at ten places; each figure rounds down to a cent.
    assert balances["USD"]["rate"] == "0.9259259259"
    assert balances["USD"]["totalInReportingCurrency"]["value"] == "6481"
    assert balances["USDC"]["totalInReportingCurrency"]["value"] == "1851"
    assert balances["EUR"]["totalInReportingCurrency"]["value"] == "5000"
    assert body["total"]["value"] == str(6481 + 1851 + 5000)


async def test_only_callers_who_may_read_the_accounts_see_them(app, tenant, make_tenant):
    customer = await make_customer(tenant.client, currencies=("USD",))
    other = await active_customer(tenant.client)
    stranger = await make_tenant()
    assert_error(await _treasury(stranger.client, customer.id), 404, "not_found")
    unknown = "cus_01jd3x0p6x9e3k2v1m8q4r7s5t"
    assert_error(await _treasury(tenant.client, unknown), 404, "not_found")
    bound = client_for(app, {**tenant.headers(), "X-Corridor-On-Behalf-Of": other["id"]})
    async with bound:
        assert_error(await _treasury(bound, customer.id), 404, "not_found")
        assert (await _treasury(bound, other["id"])).status_code == 200
    no_scope = client_for(app, bearer(await key_secret(tenant, ["customers:read"])))
    async with no_scope:
        assert_error(await _treasury(no_scope, customer.id), 403, "forbidden")
    fresh = await active_customer(tenant.client)
    empty = (await _treasury(tenant.client, fresh["id"])).json()
    assert empty["total"]["value"] == "0"
