"""Refunds (REFUND_CRYPTO, REFUND_FIAT) and returned payouts, end to end through the API:
where the transfer goes, what its `refund` says, and where the money is, to the cent."""

from __future__ import annotations

import pytest

from corridor.rails.base import RailName, RailStatus
from tests.auth.credentials import bearer, console_token
from tests.conftest import assert_error, client_for
from tests.parties.helpers import EVM_ADDRESS
from tests.transfers.conftest import (
    Customer,
    ScriptedAdapter,
    act,
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    make_customer,
    settle,
)

USDC_SENT = 5_000_000  # 5 USDC
USD_PAID = 500  # 5 USDC at the peg, in cents


async def _children(client, parent_id: str) -> list[dict]:
    listed = await client.get("/v1/transfers", params={"limit": 100})
    assert listed.status_code == 200, listed.text
    return [t for t in listed.json()["data"] if t.get("parentTransferId") == parent_id]


async def _usdc_on_base_to_ach(client, customer: Customer, **source) -> dict:
    external = await customer.bank_account()
    return await create(
        client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "BASE", **source},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USDC", USDC_SENT),
        },
    )


async def _send_crypto(client, transfer: dict) -> None:
    instructions = transfer["depositInstructions"]
    response = await client.post(
        "/v1/sandbox/deposits",
        json={
            "paymentRail": instructions["paymentRail"],
            "amount": amount(
                instructions["amount"]["currency"], int(instructions["amount"]["value"])
            ),
            "toAddress": instructions["toAddress"],
        },
    )
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "MATCHED"


async def _set_leg(client, transfer: dict, index: int, status: str, *, expect: int = 200):
    leg = transfer["legs"][index]["id"]
    response = await client.post(
        f"/v1/sandbox/transfers/{transfer['id']}/legs/{leg}/status", json={"status": status}
    )
    assert response.status_code == expect, response.text
    return response.json()


def _refund_event_count(types: list[str]) -> int:
    return types.count("transfer.refund.updated")


# --- REFUND_CRYPTO -------------------------------------------------------------------------


async def test_crypto_deposit_whose_payout_fails_is_refunded_on_its_chain(
    app, tenant, customer, install_rail
):
    install_rail(ScriptedAdapter(RailName.ACH, [RailStatus.FAILED]))
    transfer = await _usdc_on_base_to_ach(tenant.client, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _send_crypto(tenant.client, submitted)
    await settle(app, tenant.organization_id)

    parent = await fetch(tenant.client, transfer["id"])
    assert parent["status"] == "FAILED" and parent["legs"][2]["status"] == "FAILED"
    refund = parent["refund"]
    assert refund["status"] == "COMPLETED"
    assert refund["amount"]["value"] == str(USDC_SENT) and refund["amount"]["currency"] == "USDC"
    assert refund["address"] == EVM_ADDRESS and "PAYOUT_FIAT failed" in refund["reason"]
    assert refund["initiatedAt"] <= refund["completedAt"]
    (child,) = await _children(tenant.client, transfer["id"])
    assert refund["transferId"] == child["id"] and refund["txHash"] == child["txHash"]
    assert child["flow"] == "REFUND_CRYPTO" and child["status"] == "COMPLETED"
    assert child["txHash"].startswith("0x")
    assert [leg["type"] for leg in child["legs"]] == ["REFUND"]
    assert child["legs"][0]["outputRail"] == "BASE" and child["legs"][0]["txHash"]
    assert child["destination"]["toAddress"] == EVM_ADDRESS
    assert child["sourceAmount"]["value"] == str(USDC_SENT)

    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USDC"] == 0 and systems["CLEARING:USD"] == 0
    assert systems["RAIL_SETTLEMENT:USDC"] == 0  # 5 USDC in, 5 USDC back out
    assert systems["RAIL_SETTLEMENT:USD"] == 0  # the payout never settled
    assert systems["FX:USDC"] == 0 and systems["FX:USD"] == 0  # the conversion unwound
    assert (await customer.balance("USDC"))["total"] == 0
    parent_events = await event_types(app, tenant.organization_id, transfer["id"])
    assert "transfer.failed" in parent_events
    assert _refund_event_count(parent_events) == 3  # PENDING, PROCESSING, COMPLETED
    # The first refund event shows the parent already FAILED.
    assert parent_events.index("transfer.failed") < parent_events.index("transfer.refund.updated")
    child_events = await event_types(app, tenant.organization_id, child["id"])
    assert child_events[:2] == ["transfer.created", "transfer.processing"]
    assert child_events[-1] == "transfer.completed"


async def test_a_refund_underway_holds_its_money_in_clearing(app, tenant, customer):
    transfer = await _usdc_on_base_to_ach(tenant.client, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _send_crypto(tenant.client, submitted)
    moving = await fetch(tenant.client, transfer["id"])
    await _set_leg(tenant.client, moving, 1, "COMPLETED")  # the conversion
    failed = await _set_leg(tenant.client, await fetch(tenant.client, transfer["id"]), 2, "FAILED")
    assert failed["status"] == "FAILED" and failed["refund"]["status"] == "PENDING"
    assert "txHash" not in failed["refund"] and "completedAt" not in failed["refund"]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USDC"] == USDC_SENT and systems["CLEARING:USD"] == 0

    (child,) = await _children(tenant.client, transfer["id"])
    assert child["status"] == "PROCESSING"
    completed = await tenant.client.post(f"/v1/sandbox/transfers/{child['id']}/complete")
    assert completed.status_code == 200, completed.text
    assert completed.json()["status"] == "COMPLETED"
    parent = await fetch(tenant.client, transfer["id"])
    assert parent["refund"]["status"] == "COMPLETED" and parent["status"] == "FAILED"
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USDC"] == 0 and systems["RAIL_SETTLEMENT:USDC"] == 0


async def test_a_refund_whose_rail_fails_credits_the_customers_balance(
    app, tenant, customer, install_rail
):
    install_rail(ScriptedAdapter(RailName.ACH, [RailStatus.FAILED]))
    install_rail(ScriptedAdapter(RailName.BASE, [RailStatus.FAILED]))
    transfer = await _usdc_on_base_to_ach(tenant.client, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _send_crypto(tenant.client, submitted)
    await settle(app, tenant.organization_id)

    parent = await fetch(tenant.client, transfer["id"])
    assert parent["status"] == "FAILED" and parent["refund"]["status"] == "FAILED"
    assert customer.accounts["USDC"] in parent["systemRemark"]
    (child,) = await _children(tenant.client, transfer["id"])
    assert child["status"] == "FAILED" and child["legs"][0]["status"] == "FAILED"
    assert await customer.balance("USDC") == {
        "available": USDC_SENT,
        "pending": 0,
        "total": USDC_SENT,
    }
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USDC"] == 0 and systems["RAIL_SETTLEMENT:USDC"] == -USDC_SENT
    types = await event_types(app, tenant.organization_id, transfer["id"])
    assert _refund_event_count(types) == 3  # PENDING, PROCESSING, FAILED


# --- REFUND_FIAT ---------------------------------------------------------------------------


async def test_a_wire_deposit_whose_payout_fails_is_refunded_by_wire(
    app, tenant, customer, install_rail
):
    install_rail(ScriptedAdapter(RailName.BASE, [RailStatus.FAILED]))
    refund_account = await customer.bank_account()
    wallet = await customer.wallet(chain="BASE")
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "WIRE", "refundAccountId": refund_account},
            "destination": {"externalAccountId": wallet, "paymentRail": "BASE", "currency": "USDC"},
            "amount": amount("USD", 25_000),
            "confirm": True,
        },
    )
    instructions = transfer["depositInstructions"]
    deposit = await tenant.client.post(
        "/v1/sandbox/deposits",
        json={
            "paymentRail": "WIRE",
            "amount": amount("USD", 25_000),
            "virtualAccountId": instructions["accountId"],
            "reference": instructions["reference"],
        },
    )
    assert deposit.status_code == 201 and deposit.json()["status"] == "MATCHED", deposit.text
    await settle(app, tenant.organization_id)

    parent = await fetch(tenant.client, transfer["id"])
    assert parent["status"] == "FAILED"
    refund = parent["refund"]
    assert refund["status"] == "COMPLETED" and refund["address"] == refund_account
    assert refund["amount"]["value"] == "25000" and refund["amount"]["currency"] == "USD"
    assert "txHash" not in refund  # a bank refund has no chain hash
    (child,) = await _children(tenant.client, transfer["id"])
    assert child["flow"] == "REFUND_FIAT" and child["status"] == "COMPLETED"
    assert child["legs"][0]["type"] == "REFUND" and child["legs"][0]["outputRail"] == "WIRE"
    assert child["destination"]["externalAccountId"] == refund_account
    assert child["imad"] and child["originatingAccount"]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USD"] == 0 and systems["CLEARING:USDC"] == 0
    assert systems["RAIL_SETTLEMENT:USD"] == 0  # 250.00 in by wire, 250.00 back by wire
    assert systems["RAIL_SETTLEMENT:USDC"] == 0 and systems["FX:USD"] == 0
    assert (await customer.balance("USD"))["total"] == 0


# --- Cancellation in review ----------------------------------------------------------------


@pytest.fixture
async def platform(make_tenant, app):
    """A PLATFORM organization: its key is a platform session (transfers go to review)."""
    tenant = await make_tenant(kind="PLATFORM")
    console = client_for(app, bearer(await console_token(tenant)))
    customer = await make_customer(console)
    session = client_for(app, {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer.id})
    yield tenant, session, customer
    await console.aclose()
    await session.aclose()


async def test_cancel_in_review_after_crypto_arrived_reverses_by_a_refund(app, platform):
    tenant, session, customer = platform
    transfer = await _usdc_on_base_to_ach(session, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(session, transfer["id"], "submit")
    assert submitted["status"] == "IN_REVIEW"
    await _send_crypto(session, submitted)
    cancelled = await act(session, transfer["id"], "cancel", {"reason": "wrong amount"})
    assert cancelled["status"] == "REVERSED"
    assert cancelled["refund"]["status"] == "PENDING"
    assert cancelled["refund"]["reason"] == "cancelled: wrong amount"
    await settle(app, tenant.organization_id)

    reversed_ = await fetch(session, transfer["id"])
    assert reversed_["status"] == "REVERSED" and reversed_["refund"]["status"] == "COMPLETED"
    assert reversed_["refund"]["txHash"].startswith("0x")
    (child,) = await _children(session, transfer["id"])
    assert child["flow"] == "REFUND_CRYPTO" and child["status"] == "COMPLETED"
    types = await event_types(app, tenant.organization_id, transfer["id"])
    assert types.index("transfer.reversed") < types.index("transfer.refund.updated")
    assert _refund_event_count(types) == 3
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USDC"] == 0 and systems["RAIL_SETTLEMENT:USDC"] == 0
    assert (await customer.balance("USDC"))["total"] == 0


# --- Returns -------------------------------------------------------------------------------


async def test_a_returned_ach_payout_reverses_and_credits_the_source_balance(app, tenant, customer):
    await customer.fund("USD", 50_000)
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", 10_000),
            "developerFee": {"fixed": "100"},
            "confirm": True,
        },
    )
    await settle(app, tenant.organization_id)
    completed = await fetch(tenant.client, transfer["id"])
    assert completed["status"] == "COMPLETED" and completed["returnedToAccountId"] is None
    payout = completed["legs"][2]
    assert payout["type"] == "PAYOUT_FIAT" and payout["outputAmount"]["value"] == "9900"

    returned = await _set_leg(tenant.client, completed, 2, "RETURNED")
    assert returned["status"] == "REVERSED"
    assert returned["returnedToAccountId"] == customer.accounts["USD"]
    assert returned["returnedAt"] and returned["legs"][2]["status"] == "COMPLETED"
    assert await customer.balance("USD") == {"available": 49_900, "pending": 0, "total": 49_900}

    history = await tenant.client.get(
        f"/v1/accounts/{customer.accounts['USD']}/balance-transactions"
    )
    assert history.status_code == 200, history.text
    credit = next(item for item in history.json()["data"] if item["type"] == "TRANSFER_RETURN")
    assert credit["direction"] == "CREDIT" and credit["amount"]["value"] == "9900"
    assert credit["transferId"] == transfer["id"] and credit["createdAt"] == returned["returnedAt"]
    listed = await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/transfers")
    assert transfer["id"] in [item["id"] for item in listed.json()["data"]]

    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USD"] == 0  # paid out, then back
    assert systems["FEES:USD"] == 100 and systems["CLEARING:USD"] == 0  # the fee was earned
    types = await event_types(app, tenant.organization_id, transfer["id"])
    assert types[-1] == "transfer.reversed" and types.count("transfer.reversed") == 1

    again = await _set_leg(tenant.client, returned, 2, "RETURNED", expect=409)
    assert again["code"] == "invalid_state" and again["currentStatus"] == "REVERSED"


async def test_a_returned_crypto_to_fiat_payout_credits_the_usd_it_came_back_in(
    app, tenant, customer
):
    transfer = await _usdc_on_base_to_ach(tenant.client, customer)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _send_crypto(tenant.client, submitted)
    await settle(app, tenant.organization_id)
    completed = await fetch(tenant.client, transfer["id"])
    assert completed["status"] == "COMPLETED"

    returned = await _set_leg(tenant.client, completed, 2, "RETURNED")
    assert returned["status"] == "REVERSED"
    assert returned["returnedToAccountId"] == customer.accounts["USD"]
    assert (await customer.balance("USD"))["total"] == USD_PAID
    assert (await customer.balance("USDC"))["total"] == 0  # not converted back
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USD"] == 0 and systems["RAIL_SETTLEMENT:USDC"] == -USDC_SENT
    assert systems["FX:USDC"] == USDC_SENT and systems["FX:USD"] == -USD_PAID


async def test_a_payout_returned_before_it_settled_fails_the_transfer(
    app, tenant, customer, install_rail
):
    install_rail(ScriptedAdapter(RailName.ACH, [RailStatus.RETURNED]))
    await customer.fund("USD", 10_000)
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", 4_000),
            "confirm": True,
        },
    )
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "FAILED" and "RETURNED" in done["legs"][1]["failureReason"]
    assert done["returnedToAccountId"] is None and "refund" not in done
    assert (await customer.balance("USD"))["available"] == 10_000
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USD"] == 0 and systems["CLEARING:USD"] == 0


async def test_sandbox_return_of_a_payout_not_yet_settled_fails_it(app, tenant, customer):
    await customer.fund("USD", 10_000)
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", 4_000),
            "confirm": True,
        },
    )
    moving = await _set_leg(tenant.client, transfer, 0, "COMPLETED")
    returned = await _set_leg(tenant.client, moving, 1, "RETURNED")
    assert returned["status"] == "FAILED" and returned["legs"][1]["status"] == "FAILED"
    assert (await customer.balance("USD"))["available"] == 10_000
    await assert_books_balance(app, tenant.organization_id)


async def test_legs_that_cannot_be_returned_answer_409(app, tenant, customer):
    transfer = await _usdc_on_base_to_ach(tenant.client, customer, fromAddress=EVM_ADDRESS)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _send_crypto(tenant.client, submitted)
    moving = await fetch(tenant.client, transfer["id"])
    refused = await _set_leg(tenant.client, moving, 1, "RETURNED", expect=409)
    assert refused["code"] == "invalid_state" and "only a payout leg" in refused["message"]
    failed = await _set_leg(tenant.client, moving, 1, "FAILED")
    (child,) = await _children(tenant.client, failed["id"])
    leg = child["legs"][0]["id"]
    response = await tenant.client.post(
        f"/v1/sandbox/transfers/{child['id']}/legs/{leg}/status", json={"status": "RETURNED"}
    )
    assert "made by Corridor" in assert_error(response, 409, "invalid_state")["message"]


async def test_a_return_without_a_balance_in_its_currency_is_held_as_unmatched(app, tenant):
    customer = await make_customer(tenant.client, currencies=("USDC",))
    transfer = await _usdc_on_base_to_ach(tenant.client, customer)
    submitted = await act(tenant.client, transfer["id"], "submit")
    await _send_crypto(tenant.client, submitted)
    await settle(app, tenant.organization_id)
    completed = await fetch(tenant.client, transfer["id"])

    returned = await _set_leg(tenant.client, completed, 2, "RETURNED")
    assert returned["status"] == "REVERSED" and returned["returnedAt"]
    assert returned["returnedToAccountId"] is None
    assert "unmatched deposit" in returned["systemRemark"]
    unmatched = await tenant.client.get(f"/v1/customers/{customer.id}/unmatched-deposits")
    (deposit,) = [d for d in unmatched.json()["data"] if d.get("transferId") == transfer["id"]]
    assert deposit["amount"]["value"] == str(USD_PAID) and deposit["paymentRail"] == "ACH"
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USD"] == 0 and systems["SUSPENSE:USD"] == USD_PAID
