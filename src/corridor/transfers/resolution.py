"""Resolving a transfer's source and destination: which accounts, wallets and parties
they name, whether the customer may use them, and the objects the API shows (2.3, 2.4).

The request shapes are dictionaries with the API's camelCase names (what the client sent,
merged across PATCHes); resolution reads the rows they point at through the accounts
and parties services, so a caller only ever reaches what it may see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.auth.callers import Caller
from corridor.kit.errors import Forbidden, NotFound, ValidationFailed
from corridor.models.customer import Customer
from corridor.models.ledger import LedgerAccount
from corridor.models.party import ExternalAccount, ExternalWallet
from corridor.parties import service as parties
from corridor.rails.base import RailName, currencies_for
from corridor.rails.beneficiaries import validate_beneficiary
from corridor.transfers.flows import BOOK, DestinationKind, Endpoint, SourceKind, is_chain

PULL_RAILS = frozenset({RailName.ACH.value, RailName.ACH_SAME_DAY.value})
ACTIVE = "ACTIVE"
# Destination fields forwarded to the rail as references (never remarks or internalRemarks).
REFERENCE_FIELDS = (
    "wireMessage",
    "achReference",
    "swiftReference",
    "rtpReference",
    "payoutReference",
    "sepaReference",
    "blockchainMemo",
    "correspondentBankName",
    "correspondentBankSwiftCode",
    "correspondentAccountNumber",
)


@dataclass
class ResolvedSource:
    endpoint: Endpoint
    display: dict[str, Any]
    balance_account_id: str | None = None
    refund_known: bool = False


@dataclass
class ResolvedDestination:
    endpoint: Endpoint
    display: dict[str, Any]
    balance_account_id: str | None = None
    counterparty_id: str | None = None
    references: dict[str, str] = field(default_factory=dict)


def _problem(path: str, message: str) -> ValidationFailed:
    return ValidationFailed(path, message)


def _check_rail_currency(path: str, rail: str, code: str) -> None:
    if code not in currencies_for(RailName(rail)):
        raise _problem(f"{path}.paymentRail", f"{rail} does not carry {code}")


def _check_currency(path: str, sent: str | None, actual: str) -> None:
    if sent is not None and sent != actual:
        raise _problem(f"{path}.currency", f"must be the account's currency, {actual}")


def _only(path: str, request: dict[str, Any], allowed: set[str], what: str) -> None:
    extra = sorted(
        key for key, value in request.items() if value is not None and key not in allowed
    )
    if extra:
        raise _problem(f"{path}.{extra[0]}", f"not allowed with {what}")


async def _balance(
    session: AsyncSession, caller: Caller, path: str, account_id: str
) -> LedgerAccount:
    try:
        return await accounts.get_account(session, caller=caller, account_id=account_id)
    except NotFound:
        raise NotFound("account", account_id) from None


# --- Source -------------------------------------------------------------------------------


async def resolve_source(
    session: AsyncSession,
    *,
    caller: Caller,
    customer: Customer,
    request: dict[str, Any],
    amount_currency: str,
) -> ResolvedSource:
    if request.get("accountId"):
        resolved = await _balance_source(session, caller, customer, request)
    else:
        if caller.account_ids is not None:
            raise Forbidden("This credential may only send from its own balance accounts")
        if request.get("externalAccountId"):
            resolved = await _pull_source(session, caller, customer, request)
        else:
            resolved = _deposit_source(request, amount_currency)
    refund_account_id = request.get("refundAccountId")
    if refund_account_id:
        if resolved.endpoint.kind == SourceKind.BALANCE:
            raise _problem("source.refundAccountId", "only for funds sent in from outside")
        await _check_refund_account(session, caller, customer, refund_account_id)
        resolved.display["refundAccountId"] = refund_account_id
    resolved.refund_known = bool(
        refund_account_id
        or request.get("fromAddress")
        or resolved.endpoint.kind == SourceKind.EXTERNAL_ACCOUNT
    )
    return resolved


async def _balance_source(
    session: AsyncSession, caller: Caller, customer: Customer, request: dict[str, Any]
) -> ResolvedSource:
    _only("source", request, {"accountId", "currency", "paymentRail"}, "source.accountId")
    if request.get("paymentRail") not in (None, BOOK):
        raise _problem("source.paymentRail", "a balance account sends over BOOK")
    account = await _balance(session, caller, "source", request["accountId"])
    if account.customer_id != customer.id:
        raise _problem("source.accountId", "must be a balance account of the transfer's customer")
    _check_currency("source", request.get("currency"), account.currency)
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


async def _pull_source(
    session: AsyncSession, caller: Caller, customer: Customer, request: dict[str, Any]
) -> ResolvedSource:
    allowed = {"externalAccountId", "currency", "paymentRail", "refundAccountId"}
    _only("source", request, allowed, "source.externalAccountId")
    rail = request.get("paymentRail")
    if rail not in PULL_RAILS:
        raise _problem(
            "source.paymentRail", "a pull from a bank account goes over ACH or ACH_SAME_DAY"
        )
    external = await parties.get_external_account(
        session, caller=caller, external_account_id=request["externalAccountId"]
    )
    if external.customer_id != customer.id:
        raise _problem("source.externalAccountId", "must be a bank account of the customer itself")
    if external.status != ACTIVE:
        raise _problem("source.externalAccountId", "the external account is closed")
    _check_currency("source", request.get("currency"), external.currency)
    _check_rail_currency("source", rail, external.currency)
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
        raise _problem(
            "source.paymentRail",
            "required: name a source accountId, an externalAccountId, or the rail a deposit comes by",
        )
    if rail == BOOK:
        raise _problem(
            "source.paymentRail", "BOOK moves money between balances: send source.accountId"
        )
    _check_rail_currency("source", rail, code)
    if request.get("fromAddress") and not is_chain(rail):
        raise _problem("source.fromAddress", "only for deposits on a chain")
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


async def _check_refund_account(
    session: AsyncSession, caller: Caller, customer: Customer, refund_account_id: str
) -> None:
    party: ExternalAccount | ExternalWallet
    if refund_account_id.startswith("ewa_"):
        party = await parties.get_external_wallet(
            session, caller=caller, external_wallet_id=refund_account_id
        )
    else:
        party = await parties.get_external_account(
            session, caller=caller, external_account_id=refund_account_id
        )
    if party.customer_id != customer.id:
        raise _problem(
            "source.refundAccountId", "must be an account or wallet of the customer itself"
        )


# --- Destination --------------------------------------------------------------------------


async def resolve_destination(
    session: AsyncSession,
    *,
    caller: Caller,
    customer: Customer,
    request: dict[str, Any],
    counterparty_id: str | None,
) -> ResolvedDestination:
    references = {key: request[key] for key in REFERENCE_FIELDS if request.get(key) is not None}
    if request.get("accountId"):
        resolved = await _balance_destination(session, caller, request, counterparty_id)
    elif request.get("externalAccountId"):
        resolved = await _external_destination(session, caller, customer, request, counterparty_id)
    elif request.get("toAddress"):
        resolved = await _address_destination(session, caller, customer, request, counterparty_id)
    else:
        raise _problem("destination", "name an accountId, an externalAccountId, or a toAddress")
    resolved.references = references
    resolved.display.update(references)
    return resolved


async def _balance_destination(
    session: AsyncSession, caller: Caller, request: dict[str, Any], counterparty_id: str | None
) -> ResolvedDestination:
    if request.get("externalAccountId") or request.get("toAddress"):
        raise _problem("destination.accountId", "name one destination only")
    if request.get("paymentRail") not in (None, BOOK):
        raise _problem("destination.paymentRail", "a balance account receives over BOOK")
    if counterparty_id is not None:
        raise _problem(
            "counterpartyId", "a balance account belongs to a customer, not a counterparty"
        )
    account = await _balance(session, caller, "destination", request["accountId"])
    _check_currency("destination", request.get("currency"), account.currency)
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


async def _owning_counterparty(
    session: AsyncSession,
    caller: Caller,
    customer: Customer,
    party: ExternalAccount | ExternalWallet,
    counterparty_id: str | None,
) -> str | None:
    """The counterparty the party belongs to (None for the customer's own), after checking
    it is the customer's and agrees with the counterpartyId sent."""
    if party.counterparty_id is None:
        if party.customer_id != customer.id:
            raise _problem("destination.externalAccountId", "belongs to another customer")
        if counterparty_id is not None:
            raise _problem("counterpartyId", "the destination is the customer's own")
        return None
    counterparty = await parties.get_counterparty(
        session, caller=caller, counterparty_id=party.counterparty_id, include_deleted=True
    )
    if counterparty.customer_id != customer.id:
        raise _problem(
            "destination.externalAccountId", "belongs to another customer's counterparty"
        )
    if counterparty_id is not None and counterparty_id != counterparty.id:
        raise _problem("counterpartyId", "must be the counterparty the destination belongs to")
    return counterparty.id


async def _external_destination(
    session: AsyncSession,
    caller: Caller,
    customer: Customer,
    request: dict[str, Any],
    counterparty_id: str | None,
) -> ResolvedDestination:
    if request.get("toAddress"):
        raise _problem("destination.toAddress", "name one destination only")
    party_id = request["externalAccountId"]
    if party_id.startswith("ewa_"):
        wallet = await parties.get_external_wallet(
            session, caller=caller, external_wallet_id=party_id
        )
        owner = await _owning_counterparty(session, caller, customer, wallet, counterparty_id)
        return _wallet_destination(request, wallet, owner)
    external = await parties.get_external_account(
        session, caller=caller, external_account_id=party_id
    )
    owner = await _owning_counterparty(session, caller, customer, external, counterparty_id)
    return _bank_destination(request, external, owner)


def _bank_destination(
    request: dict[str, Any], external: ExternalAccount, counterparty_id: str | None
) -> ResolvedDestination:
    if external.status != ACTIVE:
        raise _problem("destination.externalAccountId", "the external account is closed")
    code = request.get("currency") or external.currency
    _check_currency("destination", code, external.currency)
    rail = request.get("paymentRail")
    if rail is None or is_chain(rail) or rail == BOOK:
        raise _problem("destination.paymentRail", "required: a bank rail such as ACH, WIRE or SEPA")
    _check_rail_currency("destination", rail, code)
    if external.supported_rails and rail not in external.supported_rails:
        raise _problem(
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
        raise _problem("destination.externalAccountId", "the external wallet is closed")
    rail = request.get("paymentRail") or wallet.chain
    if rail != wallet.chain:
        raise _problem("destination.paymentRail", f"the wallet is on {wallet.chain}")
    code = request.get("currency")
    if code is None:
        raise _problem("destination.currency", "required: the stablecoin to send")
    _check_rail_currency("destination", rail, code)
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


async def _address_destination(
    session: AsyncSession,
    caller: Caller,
    customer: Customer,
    request: dict[str, Any],
    counterparty_id: str | None,
) -> ResolvedDestination:
    rail, code = request.get("paymentRail"), request.get("currency")
    if not is_chain(rail):
        raise _problem("destination.paymentRail", "required: the chain the address is on")
    if code is None:
        raise _problem("destination.currency", "required: the stablecoin to send")
    _check_rail_currency("destination", rail, code)
    problems = validate_beneficiary(RailName(rail), {"address": request["toAddress"]})
    if problems:
        raise _problem("destination.toAddress", problems[0].partition(": ")[2] or problems[0])
    if counterparty_id is not None:
        counterparty = await parties.get_counterparty(
            session, caller=caller, counterparty_id=counterparty_id
        )
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
