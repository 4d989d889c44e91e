"""Balance accounts over HTTP: listing, reading, balances and their history."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from corridor.ledger import rules
from corridor.models.ledger import LedgerAccount
from corridor.models.organization import Organization
from tests.accounts.conftest import customer_with_accounts, fund
from tests.conftest import assert_error, client_for
from tests.support import create_individual

ZERO_USD = {"currency": "USD", "exponent": 2, "value": "0", "displayValue": "0.00"}
ZERO_USDC = {"currency": "USDC", "exponent": 6, "value": "0", "displayValue": "0.000000"}


async def test_an_active_customer_has_one_account_per_configured_currency(tenant, customer):
    listed = (await tenant.client.get(f"/v1/customers/{customer.id}/accounts")).json()
    assert listed["hasMore"] is False and listed["nextCursor"] is None
    assert sorted(account["currency"] for account in listed["data"]) == ["USD", "USDC"]
    for account in listed["data"]:
        assert account["id"].startswith("acc_")
        assert account["customerId"] == customer.id
        assert account["type"] == "BALANCE"
        assert account["status"] == "OPEN"
        assert account["createdAt"].endswith("Z")
        assert set(account) == {"id", "customerId", "type", "currency", "status", "createdAt"}
        single = await tenant.client.get(f"/v1/accounts/{account['id']}")
        assert single.status_code == 200
        assert single.json() == account


async def test_a_customer_not_yet_active_has_no_accounts(tenant):
    pending = await create_individual(tenant.client)
    listed = await tenant.client.get(f"/v1/customers/{pending['id']}/accounts")
    assert listed.status_code == 200
    assert listed.json()["data"] == []


async def test_listing_filters_by_customer_and_currency(tenant, customer):
    other = await customer_with_accounts(tenant.client)

    everything = (await tenant.client.get("/v1/accounts")).json()["data"]
    ids = [account["id"] for account in everything]
    assert set(customer.accounts.values()) | set(other.accounts.values()) == set(ids)
    assert ids == sorted(ids, reverse=True)  # newest first

    mine = (await tenant.client.get("/v1/accounts", params={"customerId": customer.id})).json()
    assert {account["id"] for account in mine["data"]} == set(customer.accounts.values())

    usdc = (await tenant.client.get("/v1/accounts", params={"currency": "USDC"})).json()["data"]
    assert {account["id"] for account in usdc} == {
        customer.accounts["USDC"],
        other.accounts["USDC"],
    }

    both = await tenant.client.get(
        "/v1/accounts", params={"customerId": other.id, "currency": "USD"}
    )
    assert [account["id"] for account in both.json()["data"]] == [other.accounts["USD"]]

    body = assert_error(
        await tenant.client.get("/v1/accounts", params={"currency": "XYZ"}), 422, "validation_error"
    )
    assert body["errors"][0]["field"] == "currency"


async def test_account_lists_page_with_a_cursor(tenant):
    for _ in range(2):
        await customer_with_accounts(tenant.client)
    seen = []
    cursor = None
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        page = (await tenant.client.get("/v1/accounts", params=params)).json()
        seen += [account["id"] for account in page["data"]]
        if not page["hasMore"]:
            assert page["nextCursor"] is None
            break
        cursor = page["nextCursor"]
    assert len(seen) == len(set(seen)) == 4
    assert seen == sorted(seen, reverse=True)


async def test_a_new_account_has_zero_balances_in_its_currencys_exponent(tenant, customer, clock):
    clock.set(datetime(2026, 11, 21, 9, 30, 0, 123000, tzinfo=UTC))
    usd = (await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/balance")).json()
    assert usd == {
        "accountId": customer.accounts["USD"],
        "available": ZERO_USD,
        "pending": ZERO_USD,
        "total": ZERO_USD,
        "asOf": "2026-11-21T09:30:00.123Z",
    }
    usdc = (await tenant.client.get(f"/v1/accounts/{customer.accounts['USDC']}/balance")).json()
    assert usdc["available"] == usdc["pending"] == usdc["total"] == ZERO_USDC


async def test_system_accounts_are_never_visible(tenant, customer, app):
    await fund(tenant.client, customer.accounts["USD"], "USD", "100")
    async with app.state.database.session(write=False) as session:
        system_ids = list(
            (
                await session.execute(
                    select(LedgerAccount.id).where(
                        LedgerAccount.organization_id == tenant.organization_id,
                        LedgerAccount.kind == rules.SANDBOX_FUNDING,
                    )
                )
            ).scalars()
        )
    assert len(system_ids) == 1
    listed = (await tenant.client.get("/v1/accounts")).json()["data"]
    assert system_ids[0] not in {account["id"] for account in listed}
    for path in ("", "/balance", "/balance-transactions"):
        assert_error(
            await tenant.client.get(f"/v1/accounts/{system_ids[0]}{path}"), 404, "not_found"
        )
    assert_error(
        await tenant.client.post(
            f"/v1/sandbox/accounts/{system_ids[0]}/fund",
            json={"amount": {"currency": "USD", "value": "1"}},
        ),
        404,
        "not_found",
    )


async def test_unknown_ids_are_not_found(tenant):
    for path in (
        "/v1/accounts/acc_01jd3x0p6x9e3k2v1m8q4r7s5t",
        "/v1/accounts/acc_01jd3x0p6x9e3k2v1m8q4r7s5t/balance",
        "/v1/accounts/acc_01jd3x0p6x9e3k2v1m8q4r7s5t/balance-transactions",
        "/v1/accounts/not-an-id",
        "/v1/customers/cus_01jd3x0p6x9e3k2v1m8q4r7s5t/accounts",
    ):
        assert_error(await tenant.client.get(path), 404, "not_found")


async def test_another_organizations_accounts_are_not_found(tenant, customer, make_tenant):
    stranger = await make_tenant()
    account_id = customer.accounts["USD"]
    for path in (
        f"/v1/accounts/{account_id}",
        f"/v1/accounts/{account_id}/balance",
        f"/v1/accounts/{account_id}/balance-transactions",
        f"/v1/customers/{customer.id}/accounts",
    ):
        assert_error(await stranger.client.get(path), 404, "not_found")
    assert_error(
        await stranger.client.post(
            f"/v1/sandbox/accounts/{account_id}/fund",
            json={"amount": {"currency": "USD", "value": "100"}},
        ),
        404,
        "not_found",
    )
    assert (await stranger.client.get("/v1/accounts")).json()["data"] == []
    assert (await stranger.client.get("/v1/accounts", params={"customerId": customer.id})).json()[
        "data"
    ] == []
    # And nothing moved.
    balance = (await tenant.client.get(f"/v1/accounts/{account_id}/balance")).json()
    assert balance["available"] == ZERO_USD


async def test_a_caller_bound_to_a_customer_sees_only_its_accounts(tenant, customer, app):
    other = await customer_with_accounts(tenant.client)
    bound = {"Authorization": f"Bearer {tenant.secret}", "X-Corridor-On-Behalf-Of": customer.id}
    async with client_for(app, bound) as client:
        listed = (await client.get("/v1/accounts")).json()["data"]
        assert {account["id"] for account in listed} == set(customer.accounts.values())
        assert (await client.get("/v1/accounts", params={"customerId": other.id})).json()[
            "data"
        ] == []
        assert (await client.get(f"/v1/accounts/{customer.accounts['USD']}")).status_code == 200
        for path in (
            f"/v1/accounts/{other.accounts['USD']}",
            f"/v1/accounts/{other.accounts['USD']}/balance",
            f"/v1/accounts/{other.accounts['USD']}/balance-transactions",
            f"/v1/customers/{other.id}/accounts",
        ):
            assert_error(await client.get(path), 404, "not_found")


async def test_reading_needs_the_accounts_read_scope(tenant, customer, app):
    async def key_with(scopes):
        created = await tenant.client.post("/v1/api-keys", json={"name": "k", "scopes": scopes})
        assert created.status_code == 201, created.text
        return client_for(app, {"Authorization": f"Bearer {created.json()['secret']}"})

    paths = (
        "/v1/accounts",
        f"/v1/accounts/{customer.accounts['USD']}",
        f"/v1/accounts/{customer.accounts['USD']}/balance",
        f"/v1/accounts/{customer.accounts['USD']}/balance-transactions",
        f"/v1/customers/{customer.id}/accounts",
    )
    async with await key_with(["customers:read"]) as outsider:
        for path in paths:
            assert_error(await outsider.get(path), 403, "forbidden")
    async with await key_with(["accounts:read"]) as reader:
        for path in paths:
            assert (await reader.get(path)).status_code == 200, path


async def test_reading_without_credentials_is_unauthorized(anonymous, customer):
    assert_error(await anonymous.get("/v1/accounts"), 401, "unauthorized")
    assert_error(
        await anonymous.get(f"/v1/accounts/{customer.accounts['USD']}/balance"), 401, "unauthorized"
    )


async def test_a_platform_session_must_be_bound_to_a_customer(tenant, customer, app):
    other = await customer_with_accounts(tenant.client)
    async with app.state.database.session() as session, session.begin():
        (await session.get(Organization, tenant.organization_id)).kind = "PLATFORM"

    for path in (
        "/v1/accounts",
        f"/v1/accounts/{customer.accounts['USD']}",
        f"/v1/accounts/{customer.accounts['USD']}/balance",
        f"/v1/accounts/{customer.accounts['USD']}/balance-transactions",
        f"/v1/customers/{customer.id}/accounts",
    ):
        assert_error(await tenant.client.get(path), 403, "customer_binding_required")
    assert_error(
        await tenant.client.post(
            f"/v1/sandbox/accounts/{customer.accounts['USD']}/fund",
            json={"amount": {"currency": "USD", "value": "100"}},
        ),
        403,
        "customer_binding_required",
    )

    bound = {"Authorization": f"Bearer {tenant.secret}", "X-Corridor-On-Behalf-Of": customer.id}
    async with client_for(app, bound) as client:
        listed = (await client.get("/v1/accounts")).json()["data"]
        assert {account["id"] for account in listed} == set(customer.accounts.values())
        assert_error(await client.get(f"/v1/accounts/{other.accounts['USD']}"), 404, "not_found")
        funded = await client.post(
            f"/v1/sandbox/accounts/{customer.accounts['USD']}/fund",
            json={"amount": {"currency": "USD", "value": "100"}},
        )
        assert funded.status_code == 200, funded.text
