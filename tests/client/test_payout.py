"""The README's ACH payout, walked with the sync and the async client."""

from __future__ import annotations

from corridor_client import AsyncCorridor, Corridor
from tests.client.support import ADDRESS, BANK_ACCOUNT, individual_fields


def test_ach_payout_walk_with_the_sync_client(corridor: Corridor):
    acceptance = corridor.terms_of_service.create()
    assert acceptance.status == "PENDING"
    assert corridor.terms_of_service.accept(acceptance.id).status == "ACCEPTED"
    customer = corridor.customers.create_individual(**individual_fields(acceptance.id))
    assert customer.status == "INCOMPLETE" and customer.id.startswith("cus_")
    assert corridor.customers.submit_verification(customer.id).status == "UNDER_REVIEW"
    assert corridor.sandbox.set_verification_status(customer.id, status="ACTIVE").status == "ACTIVE"
    account = next(a for a in corridor.customers.list_accounts(customer.id) if a.currency == "USD")
    funded = corridor.sandbox.fund_account(account.id, amount={"currency": "USD", "value": "12550"})
    assert funded.available.value == "12550" and funded.available.display_value == "125.50"
    bank_account = corridor.external_accounts.create(customer_id=customer.id, **BANK_ACCOUNT)

    draft = corridor.transfers.create(
        customer_id=customer.id,
        source={"account_id": account.id},
        destination={
            "external_account_id": bank_account.id,
            "payment_rail": "ACH",
            "currency": "USD",
        },
        amount={"currency": "USD", "value": "5000"},
        developer_fee={"fixed": "25", "percent": 0.001},
        client_reference_id="inv-42",
    )
    assert draft.status == "DRAFT" and draft.flow == "FIAT_TO_FIAT"
    assert [leg.type for leg in draft.legs] == ["DEBIT_BALANCE", "COLLECT_FEE", "PAYOUT_FIAT"]
    edited = corridor.transfers.update(draft.id, payment_reason="PAYMENT_FOR_GOODS_AND_SERVICES")
    assert edited.payment_reason == "PAYMENT_FOR_GOODS_AND_SERVICES"
    submitted = corridor.transfers.submit(draft.id)
    assert submitted.status == "PENDING"
    assert corridor.accounts.balance(account.id).available.value == "7550"  # held

    completed = corridor.sandbox.complete_transfer(draft.id)
    assert completed.status == "COMPLETED"
    assert all(leg.status == "COMPLETED" for leg in completed.legs)
    assert completed.ach_trace_number
    assert corridor.transfers.retrieve(draft.id).status == "COMPLETED"
    assert corridor.accounts.balance(account.id).total.value == "7550"
    history = list(corridor.accounts.list_balance_transactions(account.id))
    assert [entry.direction for entry in history] == ["DEBIT", "CREDIT"]
    assert history[0].transfer_id == draft.id


async def test_ach_payout_walk_with_the_async_client(async_corridor: AsyncCorridor):
    corridor = async_corridor
    acceptance = await corridor.terms_of_service.create()
    await corridor.terms_of_service.accept(acceptance.id)
    customer = await corridor.customers.create_individual(
        first_name="Grace",
        last_name="Hopper",
        email="grace@example.com",
        date_of_birth="1980-12-09",
        tax_identification_number="123-45-6789",
        address=ADDRESS,
        tos_acceptance_id=acceptance.id,
    )
    await corridor.customers.submit_verification(customer.id)
    await corridor.sandbox.set_verification_status(customer.id, status="ACTIVE")
    accounts = [account async for account in corridor.customers.list_accounts(customer.id)]
    account = next(a for a in accounts if a.currency == "USD")
    await corridor.sandbox.fund_account(account.id, amount={"currency": "USD", "value": "10000"})
    # A mapping with the wire's camelCase names works as well as snake_case keywords.
    bank_account = await corridor.external_accounts.create(
        {
            "customerId": customer.id,
            "currency": "USD",
            "country": "US",
            "accountHolderName": "Grace Hopper",
            "accountNumber": "000987654321",
            "routingNumber": "021000021",
        }
    )

    # Created and submitted at once.
    transfer = await corridor.transfers.create(
        customer_id=customer.id,
        source={"account_id": account.id},
        destination={
            "external_account_id": bank_account.id,
            "payment_rail": "ACH",
            "currency": "USD",
        },
        amount={"currency": "USD", "value": "2500"},
        confirm=True,
    )
    assert transfer.status == "PENDING"
    completed = await corridor.sandbox.complete_transfer(transfer.id)
    assert completed.status == "COMPLETED"
    assert completed.destination_amount.display_value == "25.00"
    balance = await corridor.accounts.balance(account.id)
    assert balance.available.value == "7500"
    listed = [t.id async for t in corridor.customers.list_transfers(customer.id)]
    assert listed == [transfer.id]
