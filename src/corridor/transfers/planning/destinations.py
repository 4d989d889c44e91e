"""Resolving a transfer's destination: a balance account, an external account or wallet, or
an address (spec 2.4), with the references forwarded to the rail."""

from __future__ import annotations

from typing import Any

from corridor.auth.callers import Caller
from corridor.kit.errors import NotFound
from corridor.models.customer import Customer
from corridor.models.party import Counterparty, ExternalAccount, ExternalWallet
from corridor.rails.base import RailName
from corridor.rails.beneficiaries import validate_beneficiary
from corridor.transfers.planning.resolution import (
    ACTIVE,
    REFERENCE_FIELDS,
    ResolvedDestination,
    balance_account,
    check_currency,
    check_rail_currency,
    problem,
    visible_row,
)
from corridor.transfers.repository import PlanRows
from corridor.transfers.rules.flows import BOOK, DestinationKind, Endpoint, is_chain

# --- Destination --------------------------------------------------------------------------


def resolve_destination(
    rows: PlanRows,
    *,
    caller: Caller,
    customer: Customer,
    request: dict[str, Any],
    counterparty_id: str | None,
) -> ResolvedDestination:
    if request.get("accountId"):
        resolved = _balance_destination(rows, request, counterparty_id)
    elif request.get("externalAccountId"):
        resolved = _external_destination(rows, customer, request, counterparty_id)
    elif request.get("toAddress"):
        resolved = _address_destination(rows, customer, request, counterparty_id)
    else:
        raise problem("destination", "name an accountId, an externalAccountId, or a toAddress")
    return with_references(resolved, request)


def with_references(resolved: ResolvedDestination, request: dict[str, Any]) -> ResolvedDestination:
    """The references the request names, forwarded to the rail and shown."""
    references = {key: request[key] for key in REFERENCE_FIELDS if request.get(key) is not None}
    resolved.references = references
    resolved.display.update(references)
    return resolved


def _balance_destination(
    rows: PlanRows, request: dict[str, Any], counterparty_id: str | None
) -> ResolvedDestination:
    if request.get("externalAccountId") or request.get("toAddress"):
        raise problem("destination.accountId", "name one destination only")
    if request.get("paymentRail") not in (None, BOOK):
        raise problem("destination.paymentRail", "a balance account receives over BOOK")
    if counterparty_id is not None:
        raise problem(
            "counterpartyId", "a balance account belongs to a customer, not a counterparty"
        )
    account = balance_account(rows, request["accountId"])
    check_currency("destination", request.get("currency"), account.currency)
    display = {
        "accountId": account.id,
        "accountType": "BALANCE",
        "currency": account.currency,
        "paymentRail": BOOK,
    }
    return ResolvedDestination(
        endpoint=Endpoint(DestinationKind.BALANCE, account.currency, BOOK),
        display=display,
        balance_account_id=account.id,
    )


def _owning_counterparty(
    rows: PlanRows,
    customer: Customer,
    party: ExternalAccount | ExternalWallet,
    counterparty_id: str | None,
) -> str | None:
    """The counterparty the party belongs to (None for the customer's own), after checking
    it is the customer's and agrees with the counterpartyId sent."""
    if party.counterparty_id is None:
        check_own_party(customer, party, counterparty_id)
        return None
    counterparty = rows.destination_owner
    if counterparty is None or counterparty.id != party.counterparty_id:
        raise NotFound(Counterparty.resource_name, party.counterparty_id)
    if counterparty.customer_id != customer.id:
        raise problem("destination.externalAccountId", "belongs to another customer's counterparty")
    if counterparty_id is not None and counterparty_id != counterparty.id:
        raise problem("counterpartyId", "must be the counterparty the destination belongs to")
    return counterparty.id


def check_own_party(
    customer: Customer, party: ExternalAccount | ExternalWallet, counterparty_id: str | None
) -> None:
    """A party of no counterparty is the customer's own: it must be this customer's."""
    assert party.counterparty_id is None
    if party.customer_id != customer.id:
        raise problem("destination.externalAccountId", "belongs to another customer")
    if counterparty_id is not None:
        raise problem("counterpartyId", "the destination is the customer's own")


def _external_destination(
    rows: PlanRows, customer: Customer, request: dict[str, Any], counterparty_id: str | None
) -> ResolvedDestination:
    if request.get("toAddress"):
        raise problem("destination.toAddress", "name one destination only")
    party_id = request["externalAccountId"]
    if party_id.startswith("ewa_"):
        wallet = visible_row(rows.wallets, ExternalWallet, party_id)
        owner = _owning_counterparty(rows, customer, wallet, counterparty_id)
        return _wallet_destination(request, wallet, owner)
    external = visible_row(rows.external_accounts, ExternalAccount, party_id)
    owner = _owning_counterparty(rows, customer, external, counterparty_id)
    return bank_destination(request, external, owner)


def bank_destination(
    request: dict[str, Any], external: ExternalAccount, counterparty_id: str | None
) -> ResolvedDestination:
    if external.status != ACTIVE:
        raise problem("destination.externalAccountId", "the external account is closed")
    code = request.get("currency") or external.currency
    check_currency("destination", code, external.currency)
    rail = request.get("paymentRail")
    if rail is None or is_chain(rail) or rail == BOOK:
        raise problem("destination.paymentRail", "required: a bank rail such as ACH, WIRE or SEPA")
    check_rail_currency("destination", rail, code)
    if external.supported_rails and rail not in external.supported_rails:
        raise problem(
            "destination.paymentRail",
            f"the account takes {', '.join(external.supported_rails)}, not {rail}",
        )
    display = {
        "externalAccountId": external.id,
        "accountType": "EXTERNAL_BANK",
        "currency": code,
        "paymentRail": rail,
        "accountName": external.account_holder_name,
        "bankName": external.bank_name,
        "bankCountryCode": external.country,
    }
    return ResolvedDestination(
        endpoint=Endpoint(DestinationKind.EXTERNAL_ACCOUNT, code, rail),
        display={key: value for key, value in display.items() if value is not None},
        counterparty_id=counterparty_id,
    )


def _wallet_destination(
    request: dict[str, Any], wallet: ExternalWallet, counterparty_id: str | None
) -> ResolvedDestination:
    if wallet.status != ACTIVE:
        raise problem("destination.externalAccountId", "the external wallet is closed")
    rail = request.get("paymentRail") or wallet.chain
    if rail != wallet.chain:
        raise problem("destination.paymentRail", f"the wallet is on {wallet.chain}")
    code = request.get("currency")
    if code is None:
        raise problem("destination.currency", "required: the stablecoin to send")
    check_rail_currency("destination", rail, code)
    display = {
        "externalAccountId": wallet.id,
        "accountType": "EXTERNAL_WALLET",
        "currency": code,
        "paymentRail": rail,
        "toAddress": wallet.address,
        "accountName": wallet.label,
    }
    return ResolvedDestination(
        endpoint=Endpoint(DestinationKind.WALLET, code, rail),
        display={key: value for key, value in display.items() if value is not None},
        counterparty_id=counterparty_id,
    )


def _address_destination(
    rows: PlanRows, customer: Customer, request: dict[str, Any], counterparty_id: str | None
) -> ResolvedDestination:
    rail, code = request.get("paymentRail"), request.get("currency")
    if rail is None or not is_chain(rail):
        raise problem("destination.paymentRail", "required: the chain the address is on")
    if code is None:
        raise problem("destination.currency", "required: the stablecoin to send")
    check_rail_currency("destination", rail, code)
    problems = validate_beneficiary(RailName(rail), {"address": request["toAddress"]})
    if problems:
        raise problem("destination.toAddress", problems[0].partition(": ")[2] or problems[0])
    if counterparty_id is not None:
        counterparty = rows.counterparty
        if counterparty is None or counterparty.id != counterparty_id:
            raise NotFound(Counterparty.resource_name, counterparty_id)
        if counterparty.customer_id != customer.id:
            raise NotFound("counterparty", counterparty_id)
    display = {
        "accountType": "EXTERNAL_WALLET",
        "currency": code,
        "paymentRail": rail,
        "toAddress": request["toAddress"],
    }
    return ResolvedDestination(
        endpoint=Endpoint(DestinationKind.WALLET, code, rail),
        display=display,
        counterparty_id=counterparty_id,
    )
