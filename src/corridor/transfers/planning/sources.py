"""Resolving a transfer's source: a balance account, an external account to pull from, or a
deposit to make (spec 2.3)."""

from __future__ import annotations

from typing import Any

from corridor.auth.callers import Caller
from corridor.kit.errors import Forbidden
from corridor.models.customer import Customer
from corridor.models.ledger import LedgerAccount
from corridor.models.party import ExternalAccount, ExternalWallet
from corridor.transfers.planning.resolution import (
    ACTIVE,
    PULL_RAILS,
    ResolvedSource,
    balance_account,
    check_currency,
    check_rail_currency,
    only_fields,
    problem,
    visible_row,
)
from corridor.transfers.repository import PlanRows
from corridor.transfers.rules.flows import BOOK, Endpoint, SourceKind, is_chain

# --- Source -------------------------------------------------------------------------------


def resolve_source(
    rows: PlanRows,
    *,
    caller: Caller,
    customer: Customer,
    request: dict[str, Any],
    amount_currency: str,
) -> ResolvedSource:
    if request.get("accountId"):
        check_balance_request(request)
        account = balance_account(rows, request["accountId"])
        return balance_source(customer, account, request)
    if caller.account_ids is not None:
        raise Forbidden("This credential may only send from its own balance accounts")
    if request.get("externalAccountId"):
        resolved = _pull_source(rows, customer, request)
    else:
        resolved = _deposit_source(request, amount_currency)
    refund_account_id = request.get("refundAccountId")
    if refund_account_id:
        _check_refund_account(rows, customer, refund_account_id)
        resolved.display["refundAccountId"] = refund_account_id
    resolved.refund_known = bool(
        refund_account_id
        or request.get("fromAddress")
        or resolved.endpoint.kind == SourceKind.EXTERNAL_ACCOUNT
    )
    return resolved


def check_balance_request(request: dict[str, Any]) -> None:
    """What a balance source may say, checked before its account is looked up."""
    only_fields("source", request, {"accountId", "currency", "paymentRail"}, "source.accountId")
    if request.get("paymentRail") not in (None, BOOK):
        raise problem("source.paymentRail", "a balance account sends over BOOK")


def balance_source(
    customer: Customer, account: LedgerAccount, request: dict[str, Any]
) -> ResolvedSource:
    """A balance account of the transfer's customer, found (`check_balance_request` passed)."""
    if account.customer_id != customer.id:
        raise problem("source.accountId", "must be a balance account of the transfer's customer")
    check_currency("source", request.get("currency"), account.currency)
    display = {
        "accountId": account.id,
        "accountType": "BALANCE",
        "currency": account.currency,
        "fundingCurrency": account.currency,
        "paymentRail": BOOK,
        "accountName": customer.name,
    }
    return ResolvedSource(
        endpoint=Endpoint(SourceKind.BALANCE, account.currency, BOOK),
        display=display,
        balance_account_id=account.id,
    )


def _pull_source(rows: PlanRows, customer: Customer, request: dict[str, Any]) -> ResolvedSource:
    allowed = {"externalAccountId", "currency", "paymentRail", "refundAccountId"}
    only_fields("source", request, allowed, "source.externalAccountId")
    rail = request.get("paymentRail")
    if rail not in PULL_RAILS:
        raise problem(
            "source.paymentRail", "a pull from a bank account goes over ACH or ACH_SAME_DAY"
        )
    external = visible_row(rows.external_accounts, ExternalAccount, request["externalAccountId"])
    if external.customer_id != customer.id:
        raise problem("source.externalAccountId", "must be a bank account of the customer itself")
    if external.status != ACTIVE:
        raise problem("source.externalAccountId", "the external account is closed")
    check_currency("source", request.get("currency"), external.currency)
    check_rail_currency("source", rail, external.currency)
    display = {
        "externalAccountId": external.id,
        "accountType": "EXTERNAL_BANK",
        "currency": external.currency,
        "fundingCurrency": external.currency,
        "paymentRail": rail,
        "direction": "DEBIT",
        "accountName": external.account_holder_name,
        "originator": _originator(external),
    }
    return ResolvedSource(
        endpoint=Endpoint(SourceKind.EXTERNAL_ACCOUNT, external.currency, rail), display=display
    )


def _originator(external: ExternalAccount) -> dict[str, str]:
    found = {
        "name": external.account_holder_name,
        "bankName": external.bank_name,
        "routingNumber": external.routing_number,
        "accountNumber": f"****{external.account_number_last4}"
        if external.account_number_last4
        else None,
        "swiftBic": external.bic,
        "bankCountry": external.country,
    }
    return {key: value for key, value in found.items() if value}


def _deposit_source(request: dict[str, Any], amount_currency: str) -> ResolvedSource:
    code = request.get("currency") or amount_currency
    rail = request.get("paymentRail")
    if rail is None:
        raise problem(
            "source.paymentRail",
            "required: name a source accountId, an externalAccountId, or the rail a deposit comes by",
        )
    if rail == BOOK:
        raise problem(
            "source.paymentRail", "BOOK moves money between balances: send source.accountId"
        )
    check_rail_currency("source", rail, code)
    if request.get("fromAddress") and not is_chain(rail):
        raise problem("source.fromAddress", "only for deposits on a chain")
    display = {
        "currency": code,
        "fundingCurrency": code,
        "paymentRail": rail,
        "direction": "CREDIT",
        "fromAddress": request.get("fromAddress"),
    }
    return ResolvedSource(
        endpoint=Endpoint(SourceKind.DEPOSIT, code, rail),
        display={key: value for key, value in display.items() if value is not None},
    )


def _check_refund_account(rows: PlanRows, customer: Customer, refund_account_id: str) -> None:
    party: ExternalAccount | ExternalWallet
    if refund_account_id.startswith("ewa_"):
        party = visible_row(rows.wallets, ExternalWallet, refund_account_id)
    else:
        party = visible_row(rows.external_accounts, ExternalAccount, refund_account_id)
    if party.customer_id != customer.id:
        raise problem(
            "source.refundAccountId", "must be an account or wallet of the customer itself"
        )
