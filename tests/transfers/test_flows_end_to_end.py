"""Every flow of spec 2.2 end to end through the API: create, patch, submit, deposit or
fund, the engine settles each leg, COMPLETED; then the ledger balances to the cent."""

from __future__ import annotations

import uuid
from decimal import Decimal

from corridor.rails.base import RailName
from tests.parties.helpers import SOLANA_ADDRESS, create_account
from tests.transfers.conftest import (
    RecordingAdapter,
    act,
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    make_customer,
    settle,
)


async def _patch(client, transfer_id: str, body: dict) -> dict:
    response = await client.patch(f"/v1/transfers/{transfer_id}", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _leg_types(transfer: dict) -> list[str]:
    return [leg["type"] for leg in transfer["legs"]]


def _assert_completed(transfer: dict) -> None:
    assert transfer["status"] == "COMPLETED"
    assert transfer["currentLegIndex"] is None
    assert all(leg["status"] == "COMPLETED" for leg in transfer["legs"])
    assert all(leg["startedAt"] and leg["completedAt"] for leg in transfer["legs"])
    assert transfer["fundingNeeded"] is False
    assert "depositInstructions" not in transfer


async def test_internal_book_transfer_between_two_customers(app, tenant, customer):
    other = await make_customer(tenant.client)
    await customer.fund("USD", 20_000)
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": other.accounts["USD"]},
            "amount": amount("USD", 5_000),
        },
    )
    assert draft["flow"] == "INTERNAL" and draft["status"] == "DRAFT"
    assert _leg_types(draft) == ["DEBIT_BALANCE", "CREDIT_BALANCE"]
    assert draft["legs"][0]["inputRail"] == "BOOK"
    assert "exchangeRate" not in draft and "referenceRate" not in draft
    assert draft["developerFee"] is None and "developerFeeFixed" not in draft

    patched = await _patch(
        tenant.client, draft["id"], {"amount": amount("USD", 7_500), "remarks": "rent"}
    )
    assert patched["sourceAmount"]["value"] == "7500"
    assert patched["destinationAmount"]["value"] == "7500"
    submitted = await act(tenant.client, draft["id"], "submit")
    assert submitted["status"] == "PENDING" and submitted["fundingNeeded"] is False
    assert await customer.balance("USD") == {"available": 12_500, "pending": 0, "total": 12_500}

    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, draft["id"])
    _assert_completed(done)
    assert await customer.balance("USD") == {"available": 12_500, "pending": 0, "total": 12_500}
    assert (await other.balance("USD"))["available"] == 7_500
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["CLEARING:USD"] == 0
    types = await event_types(app, tenant.organization_id, draft["id"])
    assert types[:4] == [
        "transfer.created",
        "transfer.updated",
        "transfer.pending",
        "transfer.leg.updated",
    ]
    assert types.count("transfer.processing") == 1 and types[-1] == "transfer.completed"


async def test_fx_between_a_customers_own_balances(app, tenant, customer):
    await customer.fund("USD", 100_000)
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": customer.accounts["EUR"]},
            "amount": amount("USD", 10_000),
        },
    )
    assert draft["flow"] == "FX"
    assert _leg_types(draft) == ["DEBIT_BALANCE", "CONVERT", "CREDIT_BALANCE"]
    assert draft["destinationAmount"]["value"] == "9212"
    assert draft["referenceProvider"] == "CORRIDOR_SANDBOX_REFERENCE"
    assert Decimal(draft["referenceRate"]) == Decimal("0.9259259259")
    assert draft["referenceRateAsOf"].endswith("Z")
    rate = Decimal(draft["exchangeRate"])
    assert int(Decimal(10_000) * rate) == 9212

    await act(tenant.client, draft["id"], "submit")
    await settle(app, tenant.organization_id)
    _assert_completed(await fetch(tenant.client, draft["id"]))
    assert (await customer.balance("EUR"))["available"] == 9212
    assert (await customer.balance("USD"))["available"] == 90_000
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FX:USD"] == 10_000 and systems["FX:EUR"] == -9212


async def test_fiat_to_fiat_payout_with_a_developer_fee(app, tenant, customer):
    await customer.fund("USD", 50_000)
    external = await customer.bank_account()
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USD", 10_000),
            "developerFee": {"fixed": "100", "percent": 0.005},
            "internalRemarks": "never on the rail",
        },
    )
    assert draft["flow"] == "FIAT_TO_FIAT"
    assert _leg_types(draft) == ["DEBIT_BALANCE", "COLLECT_FEE", "PAYOUT_FIAT"]
    assert draft["developerFee"]["amount"]["value"] == "150"
    assert (draft["developerFeeFixed"], draft["developerFeePercent"]) == ("100", 0.005)
    assert draft["destinationAmount"]["value"] == "9850"
    assert draft["cutoffTimezone"] == "America/New_York" and draft["nextCutoffAt"]
    patched = await _patch(tenant.client, draft["id"], {"destination": {"achReference": "INV 42"}})
    assert patched["destination"]["achReference"] == "INV 42"

    await act(tenant.client, draft["id"], "submit")
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, draft["id"])
    _assert_completed(done)
    assert done["achTraceNumber"] == done["legs"][2]["achTraceNumber"]
    assert done["originatingAccount"]["routingNumber"]
    assert done["legs"][1]["developerFee"]["value"] == "150"
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FEES:USD"] == 150 and systems["RAIL_SETTLEMENT:USD"] == 9850


async def test_crypto_to_fiat_wire_from_a_stablecoin_balance(app, tenant, customer):
    await customer.fund("USDC", 200_000_000)
    external = await customer.bank_account()
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USDC"]},
            "destination": {
                "externalAccountId": external,
                "paymentRail": "WIRE",
                "currency": "USD",
                "wireMessage": "Invoice 7",
            },
            "amount": amount("USDC", 100_004_567),
        },
    )
    assert draft["flow"] == "CRYPTO_TO_FIAT"
    assert _leg_types(draft) == ["DEBIT_BALANCE", "CONVERT", "PAYOUT_FIAT"]
    # 100.004567 USDC is 100.00 USD; the 0.004567 USDC of dust stays in the FX book.
    assert draft["destinationAmount"]["value"] == "10000"
    assert "exchangeRate" in draft and "referenceRate" not in draft

    await act(tenant.client, draft["id"], "submit")
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, draft["id"])
    _assert_completed(done)
    assert done["imad"] and done["omad"]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FX:USDC"] == 100_004_567 and systems["FX:USD"] == -10_000


async def test_fiat_to_crypto_funded_by_a_wire_deposit(app, tenant, customer):
    wallet = await customer.wallet(chain="BASE")
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "WIRE"},
            "destination": {"externalAccountId": wallet, "paymentRail": "BASE", "currency": "USDC"},
            "amount": amount("USD", 25_000),
        },
    )
    assert draft["flow"] == "FIAT_TO_CRYPTO"
    assert _leg_types(draft) == ["DEPOSIT_FIAT", "CONVERT", "WITHDRAW_CRYPTO"]
    assert draft["destinationAmount"]["value"] == "250000000"
    patched = await _patch(tenant.client, draft["id"], {"clientReferenceId": "order-9"})
    assert patched["clientReferenceId"] == "order-9"

    submitted = await act(tenant.client, draft["id"], "submit")
    assert submitted["status"] == "PENDING" and submitted["fundingNeeded"] is True
    instructions = submitted["depositInstructions"]
    assert instructions["type"] == "fiat" and instructions["paymentRail"] == "WIRE"
    assert instructions["accountId"].startswith("vba_") and instructions["routingNumber"]
    assert instructions["amount"]["value"] == "25000" and instructions["reference"]
    assert await settle(app, tenant.organization_id) == 0  # nothing to do before the money

    deposit = await tenant.client.post(
        "/v1/sandbox/deposits",
        json={
            "paymentRail": "WIRE",
            "amount": amount("USD", 25_000),
            "virtualAccountId": instructions["accountId"],
            "reference": instructions["reference"],
        },
    )
    assert deposit.status_code == 201, deposit.text
    assert deposit.json()["status"] == "MATCHED"
    assert deposit.json()["transferId"] == draft["id"]
    moving = await fetch(tenant.client, draft["id"])
    assert moving["status"] == "PROCESSING" and moving["legs"][0]["status"] == "COMPLETED"

    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, draft["id"])
    _assert_completed(done)
    assert done["txHash"].startswith("0x")
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USD"] == -25_000
    assert systems["RAIL_SETTLEMENT:USDC"] == 250_000_000
    virtual = await tenant.client.get(f"/v1/accounts/{customer.accounts['USD']}/virtual-accounts")
    assert [account["id"] for account in virtual.json()["data"]] == [instructions["accountId"]]


async def test_crypto_to_crypto_across_chains_pays_the_fee_on_chain(app, tenant, customer):
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {
                "toAddress": SOLANA_ADDRESS,
                "paymentRail": "SOLANA",
                "currency": "USDC",
            },
            "amount": amount("USDC", 50_000_000),
            "developerFee": {"fixed": "0", "percent": 0.01},
        },
    )
    assert draft["flow"] == "CRYPTO_TO_CRYPTO"
    assert _leg_types(draft) == ["DEPOSIT_CRYPTO", "COLLECT_FEE", "BRIDGE", "WITHDRAW_CRYPTO"]
    assert draft["destinationAmount"]["value"] == "49500000"
    assert "exchangeRate" not in draft

    submitted = await act(tenant.client, draft["id"], "submit")
    instructions = submitted["depositInstructions"]
    assert instructions["type"] == "crypto" and instructions["accountId"].startswith("vwa_")
    assert instructions["toAddress"].startswith("0x") and instructions["paymentRail"] == "ETHEREUM"
    assert submitted["source"]["accountId"] == instructions["accountId"]
    deposit = await tenant.client.post(
        "/v1/sandbox/deposits",
        json={
            "paymentRail": "ETHEREUM",
            "amount": amount("USDC", 50_000_000),
            "toAddress": instructions["toAddress"],
        },
    )
    assert deposit.json()["status"] == "MATCHED", deposit.text

    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, draft["id"])
    _assert_completed(done)
    fees = await tenant.client.get("/v1/transfers", params={"flow": "FEE_CRYPTO"})
    (fee_payout,) = fees.json()["data"]
    assert fee_payout["status"] == "COMPLETED" and fee_payout["parentTransferId"] == draft["id"]
    assert fee_payout["sourceAmount"]["value"] == "500000" and fee_payout["txHash"]
    assert done["developerFee"]["txHash"] == fee_payout["txHash"]
    assert done["legs"][1]["feeTxHash"] == fee_payout["txHash"]
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FEES:USDC"] == 0  # the fee left on chain
    assert systems["RAIL_SETTLEMENT:USDC"] == 0  # 50 in, 49.5 out, 0.5 fee out


async def test_fiat_to_crypto_to_fiat_routes_through_usdc(app, tenant, customer):
    await customer.fund("USD", 100_000)
    external = await customer.euro_account()
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {
                "externalAccountId": external,
                "paymentRail": "SEPA",
                "currency": "EUR",
            },
            "amount": amount("USD", 10_000),
        },
    )
    assert draft["flow"] == "FIAT_TO_CRYPTO_TO_FIAT"
    assert _leg_types(draft) == ["DEBIT_BALANCE", "CONVERT", "CONVERT", "PAYOUT_FIAT"]
    assert [(leg["inputCurrency"], leg["outputCurrency"]) for leg in draft["legs"][1:3]] == [
        ("USD", "USDC"),
        ("USDC", "EUR"),
    ]
    assert draft["destinationAmount"]["value"] == "9212"
    assert draft["referenceRate"] and draft["cutoffTimezone"] == "Europe/Berlin"

    await act(tenant.client, draft["id"], "submit")
    await settle(app, tenant.organization_id)
    _assert_completed(await fetch(tenant.client, draft["id"]))
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FX:USDC"] == 0  # in and out of the routing coin
    assert systems["RAIL_SETTLEMENT:EUR"] == 9212


async def test_pull_from_an_external_account_into_a_balance(app, tenant, customer):
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"externalAccountId": external, "paymentRail": "ACH"},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 3_000),
            "confirm": True,
        },
    )
    assert transfer["flow"] == "FIAT_TO_FIAT" and transfer["status"] == "PENDING"
    assert _leg_types(transfer) == ["DEPOSIT_FIAT", "CREDIT_BALANCE"]
    assert transfer["source"]["direction"] == "DEBIT"
    assert transfer["source"]["originator"]["accountNumber"].endswith("6789")
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    _assert_completed(done)
    assert done["legs"][0]["achTraceNumber"]
    assert (await customer.balance("USD"))["available"] == 3_000
    await assert_books_balance(app, tenant.organization_id)


async def test_a_settled_pull_returned_in_the_sandbox_is_reversed(app, tenant, customer):
    """The sandbox's RETURNED for a pull's DEPOSIT_FIAT leg: the transfer is REVERSED and
    the pulled amount leaves the balance again (as a NACHA return file does)."""
    external = await customer.bank_account()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"externalAccountId": external, "paymentRail": "ACH"},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", 4_000),
            "confirm": True,
        },
    )
    await settle(app, tenant.organization_id)
    assert (await customer.balance("USD"))["available"] == 4_000
    pull_leg = transfer["legs"][0]["id"]
    returned = await tenant.client.post(
        f"/v1/sandbox/transfers/{transfer['id']}/legs/{pull_leg}/status",
        json={"status": "RETURNED", "reason": "R01 insufficient funds"},
    )
    assert returned.status_code == 200, returned.text
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "REVERSED" and done["returnedAt"]
    assert done["returnedToAccountId"] is None
    assert "R01 insufficient funds" in done["systemRemark"]
    assert (await customer.balance("USD"))["available"] == 0
    await assert_books_balance(app, tenant.organization_id)


async def test_a_deposit_flow_funded_from_a_balance_instead(app, tenant, customer):
    await customer.fund("USDC", 10_000_000)
    wallet = await customer.wallet()
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {"externalAccountId": wallet, "currency": "USDC"},
            "amount": amount("USDC", 4_000_000),
            "confirm": True,
        },
    )
    assert transfer["fundingNeeded"] is True
    funded = await act(
        tenant.client, transfer["id"], "fund", {"accountId": customer.accounts["USDC"]}
    )
    assert funded["status"] == "PROCESSING" and funded["fundingNeeded"] is False
    assert "depositInstructions" not in funded
    assert (await customer.balance("USDC"))["available"] == 6_000_000
    await settle(app, tenant.organization_id)
    _assert_completed(await fetch(tenant.client, transfer["id"]))
    listed = await tenant.client.get(f"/v1/accounts/{customer.accounts['USDC']}/transfers")
    assert [item["id"] for item in listed.json()["data"]] == [transfer["id"]]
    await assert_books_balance(app, tenant.organization_id)


async def test_sandbox_complete_funds_and_settles_in_one_call(app, tenant, customer):
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "EUR", "paymentRail": "SEPA"},
            "destination": {"accountId": customer.accounts["EUR"]},
            "amount": amount("EUR", 1_234),
            "confirm": True,
        },
    )
    assert transfer["depositInstructions"]["iban"].startswith("DE")
    completed = await tenant.client.post(f"/v1/sandbox/transfers/{transfer['id']}/complete")
    assert completed.status_code == 200, completed.text
    _assert_completed(completed.json())
    assert (await customer.balance("EUR"))["available"] == 1_234
    await assert_books_balance(app, tenant.organization_id)


async def test_a_swift_payout_shows_its_uetr_and_routing_and_keeps_internal_remarks_home(
    app, tenant, customer, install_rail
):
    sent = []
    install_rail(RecordingAdapter(RailName.SWIFT, sent))
    await customer.fund("USD", 100_000)
    external = await create_account(
        tenant.client,
        {"customerId": customer.id},
        currency="GBP",
        country="GB",
        accountHolderName="Ada Lovelace",
        iban="GB33BUKB20201555555555",
        bic="BUKBGB22",
    )
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {
                "externalAccountId": external["id"],
                "paymentRail": "SWIFT",
                "currency": "GBP",
                "swiftReference": "INV 77",
            },
            "amount": amount("USD", 10_000),
            "remarks": "for the customer",
            "internalRemarks": "ops secret",
            "confirm": True,
        },
    )
    assert transfer["flow"] == "FIAT_TO_CRYPTO_TO_FIAT"
    await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    _assert_completed(done)
    assert str(uuid.UUID(done["uetr"])) == done["uetr"]
    routing = done["metadata"]["swiftRouting"]
    assert routing["receiverBic"].startswith("BUKBGB22") and routing["steps"]
    (instruction,) = sent
    assert instruction.references == {"swiftReference": "INV 77"}
    assert "ops secret" not in repr(instruction) and "for the customer" not in repr(instruction)
    assert instruction.beneficiary["iban"] == "GB33BUKB20201555555555"
