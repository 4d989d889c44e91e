"""Onboarding through the SDK, as the README's walkthrough does it."""

from __future__ import annotations

from dataclasses import dataclass

from corridor_client import Corridor
from corridor_client.models import AccountRead, CustomerRead, ExternalAccountRead

ADDRESS = {
    "address_line1": "1 Main St",
    "city": "Austin",
    "state": "TX",
    "postal_code": "78701",
    "country": "US",
}
BANK_ACCOUNT = {
    "currency": "USD",
    "country": "US",
    "account_holder_name": "Ada Lovelace",
    "account_number": "000123456789",
    "routing_number": "021000021",
}


@dataclass(frozen=True)
class Payer:
    """An ACTIVE customer with a funded USD balance and a US bank account of its own."""

    customer: CustomerRead
    account: AccountRead
    bank_account: ExternalAccountRead


def individual_fields(tos_acceptance_id: str) -> dict:
    return {
        "first_name": "Ada",
        "last_name": "Lovelace",
        "email": "ada@example.com",
        "date_of_birth": "1990-12-10",
        "tax_identification_number": "123-45-6789",
        "address": ADDRESS,
        "tos_acceptance_id": tos_acceptance_id,
    }


def funded_payer(corridor: Corridor, *, funds_minor: str = "12550") -> Payer:
    acceptance = corridor.terms_of_service.create()
    corridor.terms_of_service.accept(acceptance.id)
    customer = corridor.customers.create_individual(**individual_fields(acceptance.id))
    corridor.customers.submit_verification(customer.id)
    customer = corridor.sandbox.set_verification_status(customer.id, status="ACTIVE")
    account = next(
        account
        for account in corridor.customers.list_accounts(customer.id)
        if account.currency == "USD"
    )
    corridor.sandbox.fund_account(account.id, amount={"currency": "USD", "value": funds_minor})
    bank_account = corridor.external_accounts.create(customer_id=customer.id, **BANK_ACCOUNT)
    return Payer(customer=customer, account=account, bank_account=bank_account)


def ach_payout(payer: Payer, value_minor: str, **fields) -> dict:
    """The body of an ACH payout from the payer's balance to its bank account."""
    return {
        "customer_id": payer.customer.id,
        "source": {"account_id": payer.account.id},
        "destination": {
            "external_account_id": payer.bank_account.id,
            "payment_rail": "ACH",
            "currency": "USD",
        },
        "amount": {"currency": "USD", "value": value_minor},
        **fields,
    }
