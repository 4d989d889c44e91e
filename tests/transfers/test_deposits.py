"""Deposits: what matches a waiting transfer, what becomes an unmatched deposit, and the
virtual accounts money is sent to; the sandbox helpers' refusals."""

from __future__ import annotations

from tests.auth.credentials import bearer, key_secret
from tests.conftest import assert_error, client_for
from tests.transfers.conftest import (
    act,
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    make_customer,
    settle,
)


async def _waiting_for_usdc(client, customer, value: int = 2_000_000) -> dict:
    wallet = await customer.wallet()
    transfer = await create(
        client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {"externalAccountId": wallet, "currency": "USDC"},
            "amount": amount("USDC", value),
        },
    )
    return await act(client, transfer["id"], "submit")


async def _deposit(client, **body) -> dict:
    response = await client.post("/v1/sandbox/deposits", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def test_a_deposit_of_the_wrong_amount_is_unmatched_and_listed(app, tenant, customer):
    transfer = await _waiting_for_usdc(tenant.client, customer)
    address = transfer["depositInstructions"]["toAddress"]
    short = await _deposit(
        tenant.client,
        paymentRail="ETHEREUM",
        amount=amount("USDC", 1_999_999),
        toAddress=address,
        fromAddress="0x" + "ab" * 20,
    )
    assert short["status"] == "UNMATCHED" and short["transferId"] is None
    assert "expected 2000000" in short["unmatchedReason"]
    wrong_rail = await _deposit(
        tenant.client, paymentRail="BASE", amount=amount("USDC", 2_000_000), toAddress=address
    )
    assert wrong_rail["status"] == "UNMATCHED"
    still = await fetch(tenant.client, transfer["id"])
    assert still["fundingNeeded"] is True and still["status"] == "PENDING"

    listed = await tenant.client.get(f"/v1/customers/{customer.id}/unmatched-deposits")
    assert [item["id"] for item in listed.json()["data"]] == [wrong_rail["id"], short["id"]]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["SUSPENSE:USDC"] == 3_999_999
    types = await event_types(app, tenant.organization_id, short["id"])
    assert types == ["deposit.received", "deposit.unmatched"]

    exact = await _deposit(
        tenant.client, paymentRail="ETHEREUM", amount=amount("USDC", 2_000_000), toAddress=address
    )
    assert exact["status"] == "MATCHED"
    late = await _deposit(
        tenant.client, paymentRail="ETHEREUM", amount=amount("USDC", 2_000_000), toAddress=address
    )
    assert late["status"] == "UNMATCHED" and "not waiting" in late["unmatchedReason"]


async def test_a_fiat_deposit_needs_the_reference(app, tenant, customer):
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "ACH"},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 700),
            "confirm": True,
        },
    )
    instructions = transfer["depositInstructions"]
    no_reference = await _deposit(
        tenant.client,
        paymentRail="ACH",
        amount=amount("USD", 700),
        virtualAccountId=instructions["accountId"],
    )
    assert no_reference["status"] == "UNMATCHED"
    matched = await _deposit(
        tenant.client,
        paymentRail="ACH",
        amount=amount("USD", 700),
        virtualAccountId=instructions["accountId"],
        reference=instructions["reference"],
    )
    assert matched["status"] == "MATCHED" and matched["transferId"] == transfer["id"]
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "COMPLETED"
    assert (await customer.balance("USD"))["available"] == 700
    second = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "WIRE"},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 100),
            "confirm": True,
        },
    )
    # One virtual bank account per customer and currency; a new reference per transfer.
    assert second["depositInstructions"]["accountId"] == instructions["accountId"]
    assert second["depositInstructions"]["reference"] != instructions["reference"]
    await assert_books_balance(app, tenant.organization_id)


async def test_unknown_deposit_destinations_are_not_found(tenant, make_tenant, customer):
    stranger = await make_tenant()
    theirs = await _waiting_for_usdc(stranger.client, await make_customer(stranger.client))
    address = theirs["depositInstructions"]["toAddress"]
    for body in (
        {"toAddress": address},
        {"toAddress": "0x" + "00" * 20},
        {"virtualAccountId": "vba_01jd3x0p6x9e3k2v1m8q4r7s5t"},
    ):
        response = await tenant.client.post(
            "/v1/sandbox/deposits",
            json={"paymentRail": "ETHEREUM", "amount": amount("USDC", 1), **body},
        )
        assert_error(response, 404, "not_found")
    both = await tenant.client.post(
        "/v1/sandbox/deposits",
        json={
            "paymentRail": "ETHEREUM",
            "amount": amount("USDC", 1),
            "toAddress": address,
            "virtualAccountId": "vba_01jd3x0p6x9e3k2v1m8q4r7s5t",
        },
    )
    assert_error(both, 422, "validation_error")


async def test_virtual_accounts_of_a_balance_account(tenant, customer):
    transfer = await _waiting_for_usdc(tenant.client, customer)
    listed = await tenant.client.get(f"/v1/accounts/{customer.accounts['USDC']}/virtual-accounts")
    assert listed.status_code == 200, listed.text
    (wallet,) = listed.json()["data"]
    assert wallet["id"] == transfer["depositInstructions"]["accountId"]
    assert wallet["type"] == "VIRTUAL_WALLET" and wallet["transferId"] == transfer["id"]
    assert wallet["address"] == transfer["depositInstructions"]["toAddress"]
    assert_error(
        await tenant.client.get("/v1/accounts/acc_01jd3x0p6x9e3k2v1m8q4r7s5t/virtual-accounts"),
        404,
        "not_found",
    )


async def test_sandbox_leg_status_refusals(app, tenant, customer):
    await customer.fund("USD", 5_000)
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", 1_000),
        },
    )
    base = f"/v1/sandbox/transfers/{transfer['id']}"
    first, payout = transfer["legs"][0]["id"], transfer["legs"][1]["id"]
    draft = await tenant.client.post(f"{base}/legs/{first}/status", json={"status": "COMPLETED"})
    assert assert_error(draft, 409, "invalid_state")["currentStatus"] == "DRAFT"
    assert_error(await tenant.client.post(f"{base}/complete"), 409, "invalid_state")
    await act(tenant.client, transfer["id"], "submit")
    not_current = await tenant.client.post(
        f"{base}/legs/{payout}/status", json={"status": "FAILED"}
    )
    assert_error(not_current, 409, "invalid_state")
    returned = await tenant.client.post(f"{base}/legs/{first}/status", json={"status": "RETURNED"})
    assert "only a payout leg" in assert_error(returned, 409, "invalid_state")["message"]
    unknown = await tenant.client.post(
        f"{base}/legs/tleg_01jd3x0p6x9e3k2v1m8q4r7s5t/status", json={"status": "FAILED"}
    )
    assert_error(unknown, 404, "not_found")
    wrong = await tenant.client.post(f"{base}/legs/{first}/status", json={"status": "LOST"})
    assert_error(wrong, 422, "validation_error")
    async with client_for(app, bearer(await key_secret(tenant, ["transfers:write"]))) as writer:
        assert_error(await writer.post(f"{base}/complete"), 403, "forbidden")
    completed = await tenant.client.post(f"{base}/complete")
    assert completed.json()["status"] == "COMPLETED"
    assert_error(await tenant.client.post(f"{base}/complete"), 409, "invalid_state")
    types = await event_types(app, tenant.organization_id, transfer["id"])
    assert types[-1] == "transfer.completed"


async def test_sandbox_operations_are_refused_in_production(production_app, make_tenant):
    tenant = await make_tenant(production_app)
    for path, body in (
        ("/v1/sandbox/deposits", {}),
        ("/v1/sandbox/transfers/tfr_01jd3x0p6x9e3k2v1m8q4r7s5t/complete", None),
        (
            "/v1/sandbox/transfers/tfr_01jd3x0p6x9e3k2v1m8q4r7s5t/legs/"
            "tleg_01jd3x0p6x9e3k2v1m8q4r7s5t/status",
            {"status": "FAILED"},
        ),
    ):
        assert_error(await tenant.client.post(path, json=body), 403, "sandbox_only")
