"""POST /v1/sandbox/accounts/{id}/fund: money from nowhere, in the sandbox only."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from corridor.ledger import service as ledger
from corridor.models.event import Event
from corridor.models.ledger import LedgerAccount
from tests.accounts.conftest import fund
from tests.conftest import assert_error, client_for
from tests.support import activate, create_individual, set_verification_status


def _fund_path(account_id: str) -> str:
    return f"/v1/sandbox/accounts/{account_id}/fund"


async def test_funding_answers_with_the_balance_after_it(tenant, customer):
    balance = await fund(tenant.client, customer.accounts["USD"], "USD", "12550")
    expected = {"currency": "USD", "exponent": 2, "value": "12550", "displayValue": "125.50"}
    assert balance["accountId"] == customer.accounts["USD"]
    assert balance["available"] == balance["total"] == expected
    assert balance["pending"]["value"] == "0"
    assert balance["asOf"].endswith("Z")

    again = await fund(tenant.client, customer.accounts["USD"], "USD", "50")
    assert again["available"]["value"] == "12600"
    assert again["available"]["displayValue"] == "126.00"
    read = (await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/balance")).json()
    assert read["available"] == again["available"]


async def test_stablecoin_amounts_carry_six_decimals(tenant, customer):
    balance = await fund(tenant.client, customer.accounts["USDC"], "USDC", "1500001")
    assert balance["available"] == {
        "currency": "USDC",
        "exponent": 6,
        "value": "1500001",
        "displayValue": "1.500001",
    }


async def test_the_largest_single_amount_is_accepted(tenant, customer):
    balance = await fund(tenant.client, customer.accounts["USD"], "USD", str(10**17))
    assert balance["available"]["displayValue"] == "1000000000000000.00"


async def test_funding_posts_a_balanced_entry_from_the_sandbox_funding_account(
    tenant, customer, app
):
    await fund(tenant.client, customer.accounts["USD"], "USD", "700")
    await fund(tenant.client, customer.accounts["USD"], "USD", "300")
    async with app.state.database.session(write=False) as session:
        funding = (
            await session.execute(
                select(LedgerAccount).where(
                    LedgerAccount.organization_id == tenant.organization_id,
                    LedgerAccount.purpose == ledger.system_purpose("SANDBOX_FUNDING", "USD"),
                )
            )
        ).scalar_one()
        assert funding.posted_balance == -1000
        customer_account = await session.get(LedgerAccount, customer.accounts["USD"])
        assert customer_account.posted_balance == 1000
        for account in (funding, customer_account):
            assert await ledger.recompute_balance(session, account.id) == account.posted_balance


async def test_funding_emits_account_funded_with_the_balance_transaction(tenant, customer, app):
    await fund(tenant.client, customer.accounts["USD"], "USD", "4200")
    transactions = (
        await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/balance-transactions")
    ).json()["data"]
    async with app.state.database.session(write=False) as session:
        events = list(
            (
                await session.execute(
                    select(Event).where(
                        Event.organization_id == tenant.organization_id,
                        Event.type == "account.funded",
                    )
                )
            ).scalars()
        )
    assert len(events) == 1
    assert events[0].data == transactions[0]
    assert set(events[0].tags) == {customer.accounts["USD"], customer.id}


async def test_an_idempotent_retry_funds_once(tenant, customer):
    headers = {"Idempotency-Key": "fund-once-1"}
    body = {"amount": {"currency": "USD", "value": "999"}}
    path = _fund_path(customer.accounts["USD"])
    first = await tenant.client.post(path, json=body, headers=headers)
    second = await tenant.client.post(path, json=body, headers=headers)
    assert first.status_code == second.status_code == 200
    assert second.headers["idempotent-replayed"] == "true"
    assert second.content == first.content
    balance = (await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/balance")).json()
    assert balance["available"]["value"] == "999"


async def test_the_currency_must_be_the_accounts(tenant, customer):
    body = assert_error(
        await tenant.client.post(
            _fund_path(customer.accounts["USD"]),
            json={"amount": {"currency": "USDC", "value": "100"}},
        ),
        422,
        "validation_error",
    )
    assert body["errors"] == [
        {"field": "amount.currency", "message": "must be the account's currency, USD"}
    ]


@pytest.mark.parametrize(
    ("amount", "field"),
    [
        ({"currency": "USD", "value": 100}, "amount.value"),
        ({"currency": "USD", "value": "-5"}, "amount"),
        ({"currency": "USD", "value": "1.50"}, "amount"),
        ({"currency": "USD", "value": "1e3"}, "amount"),
        ({"currency": "USD", "value": "1" + "0" * 30}, "amount"),
        ({"currency": "USD", "value": str(10**17 + 1)}, "amount"),
        ({"currency": "USD", "value": ""}, "amount"),
        ({"currency": "USD", "value": None}, "amount.value"),
        ({"currency": "USD", "value": "0"}, "amount.value"),
        ({"currency": "XYZ", "value": "100"}, "amount.currency"),
        ({"currency": "usd", "value": "100"}, "amount.currency"),
        ({"currency": 840, "value": "100"}, "amount.currency"),
        ({"value": "100"}, "amount.currency"),
        ({"currency": "USD"}, "amount.value"),
        ("100", "amount"),
        (100, "amount"),
        (None, "amount"),
    ],
)
async def test_malformed_amounts_are_validation_errors(tenant, customer, amount, field):
    body = assert_error(
        await tenant.client.post(_fund_path(customer.accounts["USD"]), json={"amount": amount}),
        422,
        "validation_error",
    )
    assert field in {error["field"] for error in body["errors"]}, body
    balance = (await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/balance")).json()
    assert balance["available"]["value"] == "0"


async def test_unknown_fields_are_refused(tenant, customer):
    path = _fund_path(customer.accounts["USD"])
    body = assert_error(
        await tenant.client.post(
            path, json={"amount": {"currency": "USD", "value": "1"}, "accountId": "acc_x"}
        ),
        422,
        "validation_error",
    )
    assert body["errors"] == [{"field": "accountId", "message": "unknown field"}]
    body = assert_error(
        await tenant.client.post(
            path, json={"amount": {"currency": "USD", "value": "1", "exponent": 2}}
        ),
        422,
        "validation_error",
    )
    assert body["errors"] == [{"field": "amount.exponent", "message": "unknown field"}]
    assert_error(await tenant.client.post(path, json={}), 422, "validation_error")


async def test_a_body_that_is_not_a_json_object_is_invalid_json(tenant, customer):
    path = _fund_path(customer.accounts["USD"])
    for content in (b"{", b"not json", b"", b"[1]", b'"amount"'):
        response = await tenant.client.post(
            path, content=content, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "invalid_json")


async def test_only_an_active_customers_account_is_funded(tenant, customer):
    await set_verification_status(tenant.client, customer.id, "SUSPENDED")
    body = assert_error(
        await tenant.client.post(
            _fund_path(customer.accounts["USD"]),
            json={"amount": {"currency": "USD", "value": "100"}},
        ),
        409,
        "invalid_state",
    )
    assert body["currentStatus"] == "SUSPENDED"
    await activate(tenant.client, customer.id)
    balance = await fund(tenant.client, customer.accounts["USD"], "USD", "100")
    assert balance["available"]["value"] == "100"


async def test_funding_needs_the_sandbox_write_scope(tenant, customer, app):
    created = await tenant.client.post(
        "/v1/api-keys", json={"name": "reader", "scopes": ["accounts:read"]}
    )
    async with client_for(app, {"Authorization": f"Bearer {created.json()['secret']}"}) as reader:
        assert_error(
            await reader.post(
                _fund_path(customer.accounts["USD"]),
                json={"amount": {"currency": "USD", "value": "100"}},
            ),
            403,
            "forbidden",
        )
    created = await tenant.client.post(
        "/v1/api-keys", json={"name": "funder", "scopes": ["sandbox:write"]}
    )
    async with client_for(app, {"Authorization": f"Bearer {created.json()['secret']}"}) as funder:
        balance = await fund(funder, customer.accounts["USD"], "USD", "100")
        assert balance["available"]["value"] == "100"


async def test_a_caller_bound_to_another_customer_cannot_fund(tenant, customer, app):
    stranger = await create_individual(tenant.client)
    headers = {
        "Authorization": f"Bearer {tenant.secret}",
        "X-Corridor-On-Behalf-Of": stranger["id"],
    }
    async with client_for(app, headers) as bound:
        assert_error(
            await bound.post(
                _fund_path(customer.accounts["USD"]),
                json={"amount": {"currency": "USD", "value": "100"}},
            ),
            404,
            "not_found",
        )


async def test_funding_in_production_is_sandbox_only(make_tenant, production_app):
    live = await make_tenant(production_app)
    for body in (
        {"amount": {"currency": "USD", "value": "100"}},
        {"amount": {"currency": "USD", "value": "-1"}, "extra": True},
    ):
        assert_error(
            await live.client.post(_fund_path("acc_01jd3x0p6x9e3k2v1m8q4r7s5t"), json=body),
            403,
            "sandbox_only",
        )


async def test_funding_without_credentials_is_unauthorized(anonymous, customer):
    assert_error(
        await anonymous.post(
            _fund_path(customer.accounts["USD"]),
            json={"amount": {"currency": "USD", "value": "100"}},
        ),
        401,
        "unauthorized",
    )
