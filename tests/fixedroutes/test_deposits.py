"""A deposit to a fixed route's account makes a transfer that runs to COMPLETED; one the
route cannot carry becomes an unmatched deposit of the customer."""

from __future__ import annotations

from tests.fixedroutes.helpers import (
    BANK_PATH,
    WALLET_PATH,
    create_route,
    deposit,
    patch_route,
    to_usdc_on_base,
)
from tests.support import set_verification_status
from tests.transfers.conftest import (
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    settle,
)


async def test_a_wire_to_a_bank_account_route_pays_out_usdc_on_base(app, tenant, customer):
    route = await create_route(
        tenant.client,
        BANK_PATH,
        to_usdc_on_base(
            customer.id,
            developerFee={"fixed": "100", "percent": 0.005},
            clientReferenceId="route-7",
            remarks="payroll float",
            internalRemarks="desk 4",
        ),
    )
    instructions = route["depositInstructions"]
    arrived = await deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 10_000),
        virtualAccountId=instructions["accountId"],
    )
    assert arrived["status"] == "MATCHED" and arrived["unmatchedReason"] is None
    transfer = await fetch(tenant.client, arrived["transferId"])
    assert transfer["status"] == "PROCESSING" and transfer["fixedRouteId"] == route["id"]
    assert transfer["flow"] == "FIAT_TO_CRYPTO" and transfer["fundingNeeded"] is False
    assert transfer["source"]["accountId"] == instructions["accountId"]
    assert transfer["source"]["accountType"] == "VIRTUAL_BANK"
    assert (transfer["source"]["currency"], transfer["source"]["paymentRail"]) == ("USD", "WIRE")
    assert transfer["destination"] == route["destination"]
    assert transfer["sourceAmount"]["value"] == "10000"
    assert transfer["developerFee"]["amount"]["value"] == "150"
    assert transfer["destinationAmount"] == {
        "currency": "USDC",
        "exponent": 6,
        "value": "98500000",
        "displayValue": "98.500000",
    }
    assert transfer["clientReferenceId"] == "route-7"
    assert (transfer["remarks"], transfer["internalRemarks"]) == ("payroll float", "desk 4")
    assert transfer["legs"][0]["type"] == "DEPOSIT_FIAT"
    assert transfer["legs"][0]["status"] == "COMPLETED"

    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "COMPLETED" and done["currentLegIndex"] is None
    assert [leg["type"] for leg in done["legs"]] == [
        "DEPOSIT_FIAT",
        "COLLECT_FEE",
        "CONVERT",
        "WITHDRAW_CRYPTO",
    ]
    assert all(leg["status"] == "COMPLETED" for leg in done["legs"])
    assert done["txHash"]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USD"] == -10_000
    assert systems["FEES:USD"] == 150
    assert systems["FX:USD"] == 9_850 and systems["FX:USDC"] == -98_500_000
    assert systems["RAIL_SETTLEMENT:USDC"] == 98_500_000
    assert systems["CLEARING:USD"] == 0 and systems["CLEARING:USDC"] == 0
    assert systems.get("SUSPENSE:USD", 0) == 0
    # The customer's balances never saw the money.
    assert (await customer.balance("USD"))["total"] == 0
    types = await event_types(app, tenant.organization_id, transfer["id"])
    assert types[:4] == [
        "transfer.created",
        "transfer.pending",
        "deposit.received",
        "transfer.leg.updated",
    ]
    assert types.count("transfer.processing") == 1 and types[-1] == "transfer.completed"

    second = await deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 2_000),
        virtualAccountId=instructions["accountId"],
    )
    assert second["status"] == "MATCHED" and second["transferId"] != transfer["id"]
    listed = await tenant.client.get("/v1/transfers", params={"customerId": customer.id})
    made = [item for item in listed.json()["data"] if item.get("fixedRouteId") == route["id"]]
    assert len(made) == 2


async def test_a_usdc_deposit_to_a_wallet_route_pays_out_by_ach(app, tenant, customer):
    external = await customer.bank_account()
    route = await create_route(
        tenant.client,
        WALLET_PATH,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {
                "externalAccountId": external,
                "paymentRail": "ACH",
                "currency": "USD",
                "achReference": "OFFRAMP",
            },
            "developerFee": {"fixed": "1000000"},
        },
    )
    address = route["depositInstructions"]["toAddress"]
    arrived = await deposit(
        tenant.client,
        paymentRail="ETHEREUM",
        amount=amount("USDC", 25_000_000),
        toAddress=address,
        fromAddress="0x" + "ab" * 20,
    )
    assert arrived["status"] == "MATCHED"
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, arrived["transferId"])
    assert done["status"] == "COMPLETED" and done["flow"] == "CRYPTO_TO_FIAT"
    assert done["source"]["accountType"] == "VIRTUAL_WALLET"
    assert done["source"]["fromAddress"] == "0x" + "ab" * 20
    assert done["destination"]["achReference"] == "OFFRAMP"
    assert done["destinationAmount"]["value"] == "2400"
    assert done["achTraceNumber"]
    # A stablecoin fee is paid out on-chain by a FEE_CRYPTO transfer of its own.
    assert done["developerFee"]["amount"]["value"] == "1000000"
    assert done["developerFee"]["txHash"]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USDC"] == -25_000_000 + 1_000_000
    assert systems["FEES:USDC"] == 0
    assert systems["FX:USDC"] == 24_000_000 and systems["FX:USD"] == -2_400
    assert systems["RAIL_SETTLEMENT:USD"] == 2_400


async def _unmatched(client, route: dict, value: int, *, rail: str = "WIRE") -> dict:
    arrived = await deposit(
        client,
        paymentRail=rail,
        amount=amount("USD", value),
        virtualAccountId=route["depositInstructions"]["accountId"],
    )
    assert arrived["status"] == "UNMATCHED" and arrived["transferId"] is None
    return arrived


async def test_deposits_a_route_cannot_carry_are_unmatched(app, tenant, customer):
    route = await create_route(
        tenant.client, BANK_PATH, to_usdc_on_base(customer.id, developerFee={"fixed": "500"})
    )
    too_small = await _unmatched(tenant.client, route, 500)
    assert route["id"] in too_small["unmatchedReason"]
    assert "developer fee" in too_small["unmatchedReason"]
    wrong_rail = await _unmatched(tenant.client, route, 5_000, rail="ACH")
    assert "expects WIRE" in wrong_rail["unmatchedReason"]

    await patch_route(tenant.client, route["id"], {"status": "PAUSED"})
    paused = await _unmatched(tenant.client, route, 5_000)
    assert paused["unmatchedReason"] == f"fixed route {route['id']} is PAUSED"
    await patch_route(tenant.client, route["id"], {"status": "ACTIVE"})
    resumed = await deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 5_000),
        virtualAccountId=route["depositInstructions"]["accountId"],
    )
    assert resumed["status"] == "MATCHED"
    await patch_route(tenant.client, route["id"], {"status": "CLOSED"})
    closed = await _unmatched(tenant.client, route, 5_000)
    assert closed["unmatchedReason"] == f"fixed route {route['id']} is CLOSED"

    listed = await tenant.client.get(f"/v1/customers/{customer.id}/unmatched-deposits")
    assert [item["id"] for item in listed.json()["data"]] == [
        closed["id"],
        paused["id"],
        wrong_rail["id"],
        too_small["id"],
    ]
    await settle(app, tenant.organization_id)
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["SUSPENSE:USD"] == 500 + 5_000 * 3
    assert systems["FEES:USD"] == 500
    types = await event_types(app, tenant.organization_id, paused["id"])
    assert types == ["deposit.received", "deposit.unmatched"]


async def test_a_route_account_is_not_the_customers_shared_virtual_account(tenant, customer):
    route = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "WIRE"},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 700),
            "confirm": True,
        },
    )
    shared = transfer["depositInstructions"]["accountId"]
    assert shared != route["depositInstructions"]["accountId"]
    # The transfer's reference sent to the route's account does not fund the transfer.
    arrived = await deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 700),
        virtualAccountId=route["depositInstructions"]["accountId"],
        reference=transfer["depositInstructions"]["reference"],
    )
    assert arrived["transferId"] != transfer["id"]
    assert (await fetch(tenant.client, transfer["id"]))["fundingNeeded"] is True


async def test_a_closed_destination_or_a_suspended_customer_leaves_deposits_unmatched(
    app, tenant, customer
):
    external = await customer.bank_account()
    route = await create_route(
        tenant.client,
        BANK_PATH,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "WIRE"},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
        },
    )
    closed = await tenant.client.post(f"/v1/external-accounts/{external}/close")
    assert closed.status_code == 200, closed.text
    gone = await _unmatched(tenant.client, route, 1_000)
    assert "external account is closed" in gone["unmatchedReason"]

    other = await customer.bank_account()
    await patch_route(tenant.client, route["id"], {"destination": {"externalAccountId": other}})
    await set_verification_status(tenant.client, customer.id, "SUSPENDED")
    suspended = await _unmatched(tenant.client, route, 1_000)
    assert suspended["unmatchedReason"] == f"customer {customer.id} is SUSPENDED"
    await set_verification_status(tenant.client, customer.id, "ACTIVE")
    paid = await deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 1_000),
        virtualAccountId=route["depositInstructions"]["accountId"],
    )
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, paid["transferId"])
    assert done["status"] == "COMPLETED" and done["destination"]["externalAccountId"] == other
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["SUSPENSE:USD"] == 2_000 and systems["RAIL_SETTLEMENT:USD"] == -2_000
