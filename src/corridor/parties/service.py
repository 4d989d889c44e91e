"""Parties: counterparties, external bank accounts and external wallets, and the reads the
transfer engine relies on (docs/transfers-design.md, "parties")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.customers.states import CustomerStatus
from corridor.kit.db import get_visible
from corridor.kit.errors import ValidationFailed
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.money import CurrencyKind, currency
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.event import emit
from corridor.models.party import Counterparty, ExternalAccount, ExternalWallet
from corridor.parties import addresses, bank_codes, repository
from corridor.parties.errors import CustomerArchived, FieldProblems, OneOwnerRequired, PartyClosed
from corridor.parties.rules import BeneficiaryType, PartyStatus
from corridor.parties.schemas import (
    BankCodeValidation,
    BankCodeValidationRead,
    CounterpartyCreate,
    CounterpartyRead,
    CounterpartyUpdate,
    ExternalAccountCreate,
    ExternalAccountRead,
    ExternalAccountUpdate,
    ExternalWalletCreate,
    ExternalWalletRead,
    ExternalWalletUpdate,
)

COUNTERPARTIES_READ, COUNTERPARTIES_WRITE = Scope.COUNTERPARTIES_READ, Scope.COUNTERPARTIES_WRITE
# External accounts and wallets are the customer's (or its counterparties'): customers scopes.
CUSTOMERS_READ, CUSTOMERS_WRITE = Scope.CUSTOMERS_READ, Scope.CUSTOMERS_WRITE
ACTIVE, CLOSED = PartyStatus.ACTIVE.value, PartyStatus.CLOSED.value


# --- Reads the transfer engine calls ------------------------------------------------------


async def get_counterparty(
    session: AsyncSession,
    *,
    caller: Caller,
    counterparty_id: str,
    include_deleted: bool = False,
    for_update: bool = False,
) -> Counterparty:
    """The counterparty, if this caller may see it (404 otherwise). A deleted one is 404
    unless `include_deleted`: transfers that already name it still read it."""
    caller.require_customer_binding()
    visible = repository.visible_counterparties(caller, include_deleted=include_deleted)
    return await get_visible(session, visible, counterparty_id, locked=for_update)


async def get_external_account(
    session: AsyncSession, *, caller: Caller, external_account_id: str, for_update: bool = False
) -> ExternalAccount:
    """The account, ACTIVE or CLOSED, if this caller may see it (404 otherwise)."""
    caller.require_customer_binding()
    visible = repository.visible_parties(caller, ExternalAccount)
    return await get_visible(session, visible, external_account_id, locked=for_update)


async def get_external_wallet(
    session: AsyncSession, *, caller: Caller, external_wallet_id: str, for_update: bool = False
) -> ExternalWallet:
    """The wallet, ACTIVE or CLOSED, if this caller may see it (404 otherwise)."""
    caller.require_customer_binding()
    visible = repository.visible_parties(caller, ExternalWallet)
    return await get_visible(session, visible, external_wallet_id, locked=for_update)


def counterparty_read(counterparty: Counterparty) -> dict[str, Any]:
    """The spec 2.8 expanded form, exactly as the API returns it."""
    return CounterpartyRead.of(counterparty).to_json_dict()


async def read_counterparty(
    session: AsyncSession, *, caller: Caller, counterparty_id: str
) -> Counterparty:
    caller.require_scope(COUNTERPARTIES_READ)
    return await get_counterparty(session, caller=caller, counterparty_id=counterparty_id)


async def read_external_account(
    session: AsyncSession, *, caller: Caller, external_account_id: str
) -> ExternalAccount:
    caller.require_scope(CUSTOMERS_READ)
    return await get_external_account(
        session, caller=caller, external_account_id=external_account_id
    )


async def read_external_wallet(
    session: AsyncSession, *, caller: Caller, external_wallet_id: str
) -> ExternalWallet:
    caller.require_scope(CUSTOMERS_READ)
    return await get_external_wallet(session, caller=caller, external_wallet_id=external_wallet_id)


# --- Owners -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Owner:
    """Who a new account or wallet belongs to, and the customer who pays through it."""

    customer_id: str | None
    counterparty_id: str | None
    paying_customer_id: str

    @property
    def tags(self) -> list[str]:
        return [self.paying_customer_id, *([self.counterparty_id] if self.counterparty_id else [])]


async def _usable_customer(session: AsyncSession, caller: Caller, customer_id: str) -> None:
    # Locked, so the customer cannot be archived while a party is being added to it.
    customer = await customers.get_customer(
        session, caller=caller, customer_id=customer_id, for_update=True
    )
    if customer.status == CustomerStatus.ARCHIVED:
        raise CustomerArchived(customer.id)


async def _owner(
    session: AsyncSession, caller: Caller, customer_id: str | None, counterparty_id: str | None
) -> Owner:
    if (customer_id is None) == (counterparty_id is None):
        raise OneOwnerRequired()
    if customer_id is not None:
        await _usable_customer(session, caller, customer_id)
        return Owner(customer_id=customer_id, counterparty_id=None, paying_customer_id=customer_id)
    assert counterparty_id is not None
    counterparty = await get_counterparty(session, caller=caller, counterparty_id=counterparty_id)
    await _usable_customer(session, caller, counterparty.customer_id)
    # Locked (after its customer: always customer first), so it cannot be deleted, which
    # closes its accounts and wallets, while one is being added; read again under the lock.
    counterparty = await get_counterparty(
        session, caller=caller, counterparty_id=counterparty_id, for_update=True
    )
    return Owner(
        customer_id=None,
        counterparty_id=counterparty.id,
        paying_customer_id=counterparty.customer_id,
    )


async def _paying_customer_id(
    session: AsyncSession, caller: Caller, party: ExternalAccount | ExternalWallet
) -> str:
    if party.customer_id is not None:
        return party.customer_id
    assert party.counterparty_id is not None
    counterparty = await get_counterparty(
        session, caller=caller, counterparty_id=party.counterparty_id, include_deleted=True
    )
    return counterparty.customer_id


def _check_filter_id(value: str | None, prefix: str, field: str) -> None:
    if value is not None and not looks_like_id(value, prefix):
        raise ValidationFailed(field, f"must be an id starting with {prefix}_")


def _refuse_nulls(changes: Any, fields: dict[str, str]) -> None:
    sent = changes.model_fields_set
    problems = [
        {"field": api_name, "message": "cannot be null"}
        for name, api_name in fields.items()
        if name in sent and getattr(changes, name) is None
    ]
    if problems:
        raise FieldProblems("Some fields cannot be cleared", problems)


def _apply(target: Any, values: dict[str, Any]) -> bool:
    """Set the values that differ; whether anything changed."""
    changed = False
    for name, value in values.items():
        if getattr(target, name) != value:
            setattr(target, name, value)
            changed = True
    return changed


# --- Counterparties -----------------------------------------------------------------------


async def list_counterparties(
    session: AsyncSession,
    *,
    caller: Caller,
    page: PageRequest,
    customer_id: str | None,
    beneficiary_type: BeneficiaryType | None,
) -> Page[Counterparty]:
    caller.require_scope(COUNTERPARTIES_READ)
    caller.require_customer_binding()
    _check_filter_id(customer_id, "cus", "customerId")
    statement = repository.filtered_counterparties(
        caller,
        customer_id=customer_id,
        beneficiary_type=beneficiary_type.value if beneficiary_type else None,
    )
    return await fetch_page(session, statement, Counterparty.id, page)


def _stored_address(address: Any) -> dict[str, Any]:
    return addresses.with_transliteration(address.model_dump(mode="json", by_alias=True))


async def create_counterparty(
    session: AsyncSession, *, caller: Caller, data: CounterpartyCreate, now: datetime
) -> Counterparty:
    caller.require_scope(COUNTERPARTIES_WRITE)
    await _usable_customer(session, caller, data.customer_id)
    counterparty = Counterparty(
        id=new_id("cp"),
        organization_id=caller.organization_id,
        customer_id=data.customer_id,
        name=data.name,
        beneficiary_type=data.beneficiary_type.value,
        email=data.email,
        address=_stored_address(data.address),
        created_at=now,
        updated_at=now,
        deleted_at=None,
    )
    session.add(counterparty)
    await session.flush()
    _emit_counterparty(session, counterparty, "counterparty.created", now)
    return counterparty


async def update_counterparty(
    session: AsyncSession,
    *,
    caller: Caller,
    counterparty_id: str,
    changes: CounterpartyUpdate,
    now: datetime,
) -> Counterparty:
    """Only the fields sent change; a change that changes nothing emits no event."""
    caller.require_scope(COUNTERPARTIES_WRITE)
    counterparty = await get_counterparty(
        session, caller=caller, counterparty_id=counterparty_id, for_update=True
    )
    _refuse_nulls(
        changes, {"name": "name", "beneficiary_type": "beneficiaryType", "address": "address"}
    )
    sent = changes.model_fields_set
    values: dict[str, Any] = {name: getattr(changes, name) for name in sent & {"name", "email"}}
    if "beneficiary_type" in sent and changes.beneficiary_type is not None:
        values["beneficiary_type"] = changes.beneficiary_type.value
    if "address" in sent:
        values["address"] = _stored_address(changes.address)
    if _apply(counterparty, values):
        counterparty.updated_at = now
        _emit_counterparty(session, counterparty, "counterparty.updated", now)
    return counterparty


async def delete_counterparty(
    session: AsyncSession, *, caller: Caller, counterparty_id: str, now: datetime
) -> None:
    """Soft delete: the counterparty is 404 from now on and its accounts and wallets are
    closed, so nothing new can be paid to it; transfers that name it still read it."""
    caller.require_scope(COUNTERPARTIES_WRITE)
    counterparty = await get_counterparty(
        session, caller=caller, counterparty_id=counterparty_id, for_update=True
    )
    counterparty.deleted_at = counterparty.updated_at = now
    for account in await repository.active_parties_of_counterparty(
        session, ExternalAccount, counterparty
    ):
        _close(account, now)
        _emit_party(session, account, "external_account.closed", [counterparty.customer_id], now)
    for wallet in await repository.active_parties_of_counterparty(
        session, ExternalWallet, counterparty
    ):
        _close(wallet, now)
        _emit_party(session, wallet, "external_wallet.updated", [counterparty.customer_id], now)
    _emit_counterparty(session, counterparty, "counterparty.deleted", now)


def _emit_counterparty(
    session: AsyncSession, counterparty: Counterparty, event_type: str, now: datetime
) -> None:
    emit(
        session,
        organization_id=counterparty.organization_id,
        event_type=event_type,
        data=counterparty_read(counterparty),
        tags=[counterparty.id, counterparty.customer_id],
        at=now,
    )


# --- External accounts and wallets: shared ------------------------------------------------


def _close(party: ExternalAccount | ExternalWallet, now: datetime) -> None:
    party.status, party.closed_at, party.updated_at = CLOSED, now, now


def _emit_party(
    session: AsyncSession,
    party: ExternalAccount | ExternalWallet,
    event_type: str,
    owner_tags: list[str],
    now: datetime,
) -> None:
    read = (
        ExternalAccountRead.of(party)
        if isinstance(party, ExternalAccount)
        else ExternalWalletRead.of(party)
    )
    emit(
        session,
        organization_id=party.organization_id,
        event_type=event_type,
        data=read.to_json_dict(),
        tags=[party.id, *owner_tags, party.counterparty_id or ""],
        at=now,
    )


async def _list_parties(
    session: AsyncSession,
    caller: Caller,
    model: type[repository.OwnedParty],
    page: PageRequest,
    *,
    customer_id: str | None,
    counterparty_id: str | None,
    status: PartyStatus | None,
    chain: addresses.Chain | None = None,
) -> Page[Any]:
    caller.require_customer_binding()
    _check_filter_id(customer_id, "cus", "customerId")
    _check_filter_id(counterparty_id, "cp", "counterpartyId")
    statement = repository.filtered_parties(
        caller,
        model,
        customer_id=customer_id,
        counterparty_id=counterparty_id,
        status=status.value if status else None,
        chain=chain.value if chain else None,
    )
    return await fetch_page(session, statement, model.id, page)


# --- External bank accounts ---------------------------------------------------------------


async def list_external_accounts(
    session: AsyncSession,
    *,
    caller: Caller,
    page: PageRequest,
    customer_id: str | None,
    counterparty_id: str | None,
    status: PartyStatus | None,
) -> Page[ExternalAccount]:
    """`customerId` matches the customer's own accounts and its counterparties'."""
    caller.require_scope(CUSTOMERS_READ)
    return await _list_parties(
        session,
        caller,
        ExternalAccount,
        page,
        customer_id=customer_id,
        counterparty_id=counterparty_id,
        status=status,
    )


def _checked_numbers(data: ExternalAccountCreate) -> bank_codes.CheckedAccount:
    problems: list[dict[str, str]] = []
    if currency(data.currency).kind is not CurrencyKind.FIAT:
        problems.append(
            {"field": "currency", "message": "must be a fiat currency (stablecoins: wallets)"}
        )
    checked = bank_codes.check_account(
        bank_codes.AccountDetails(
            country=data.country,
            currency=data.currency,
            account_number=data.account_number,
            routing_number=data.routing_number,
            iban=data.iban,
            bic=data.bic,
            sort_code=data.sort_code,
        )
    )
    problems += [{"field": field, "message": message} for field, message in checked.problems]
    if problems:
        raise FieldProblems("The account details are not valid", problems)
    return checked


async def create_external_account(
    session: AsyncSession, *, caller: Caller, data: ExternalAccountCreate, now: datetime
) -> ExternalAccount:
    caller.require_scope(CUSTOMERS_WRITE)
    checked = _checked_numbers(data)
    owner = await _owner(session, caller, data.customer_id, data.counterparty_id)
    account_type = data.account_type.value if data.account_type else None
    if account_type is None and checked.routing_number is not None:
        account_type = "CHECKING"  # ACH entries need one; most US accounts paid are checking
    account = ExternalAccount(
        id=new_id("ext"),
        organization_id=caller.organization_id,
        customer_id=owner.customer_id,
        counterparty_id=owner.counterparty_id,
        status=ACTIVE,
        currency=data.currency,
        country=data.country,
        account_holder_name=data.account_holder_name,
        bank_name=data.bank_name or checked.bank_name,
        account_number=checked.account_number,
        account_number_last4=bank_codes.last4(checked.account_number),
        routing_number=checked.routing_number,
        iban=checked.iban,
        bic=checked.bic,
        sort_code=checked.sort_code,
        account_type=account_type,
        supported_rails=checked.supported_rails,
        label=data.label,
        created_at=now,
        updated_at=now,
        closed_at=None,
    )
    session.add(account)
    await session.flush()
    _emit_party(session, account, "external_account.created", owner.tags, now)
    return account


async def update_external_account(
    session: AsyncSession,
    *,
    caller: Caller,
    external_account_id: str,
    changes: ExternalAccountUpdate,
    now: datetime,
) -> ExternalAccount:
    caller.require_scope(CUSTOMERS_WRITE)
    account = await get_external_account(
        session, caller=caller, external_account_id=external_account_id, for_update=True
    )
    if account.status == CLOSED:
        raise PartyClosed("external account")
    _refuse_nulls(changes, {"account_holder_name": "accountHolderName"})
    sent = changes.model_fields_set
    values = {name: getattr(changes, name) for name in sent}
    if values.get("account_type") is not None:
        values["account_type"] = values["account_type"].value
    if _apply(account, values):
        account.updated_at = now
        owner_tags = [await _paying_customer_id(session, caller, account)]
        _emit_party(session, account, "external_account.updated", owner_tags, now)
    return account


async def close_external_account(
    session: AsyncSession, *, caller: Caller, external_account_id: str, now: datetime
) -> ExternalAccount:
    """ACTIVE → CLOSED, final: a closed account can no longer be paid or changed."""
    caller.require_scope(CUSTOMERS_WRITE)
    account = await get_external_account(
        session, caller=caller, external_account_id=external_account_id, for_update=True
    )
    if account.status == CLOSED:
        raise PartyClosed("external account")
    _close(account, now)
    owner_tags = [await _paying_customer_id(session, caller, account)]
    _emit_party(session, account, "external_account.closed", owner_tags, now)
    return account


def validate_bank_code(caller: Caller, request: BankCodeValidation) -> BankCodeValidationRead:
    """200 whether valid or not: `valid`, the bank's name when the code tells it, `reason`."""
    caller.require_scope(CUSTOMERS_READ)
    sent = request.codes_sent()
    if len(sent) != 1:
        raise ValidationFailed(
            "routingNumber", "send exactly one of routingNumber, iban, bic and sortCode"
        )
    ((kind, value),) = sent
    verdict = bank_codes.validate_bank_code(kind, value, country=request.country)
    return BankCodeValidationRead(
        valid=verdict.valid, bank_name=verdict.bank_name, reason=verdict.reason
    )


# --- External wallets ---------------------------------------------------------------------


async def list_external_wallets(
    session: AsyncSession,
    *,
    caller: Caller,
    page: PageRequest,
    customer_id: str | None,
    counterparty_id: str | None,
    status: PartyStatus | None,
    chain: addresses.Chain | None,
) -> Page[ExternalWallet]:
    """`customerId` matches the customer's own wallets and its counterparties'."""
    caller.require_scope(CUSTOMERS_READ)
    return await _list_parties(
        session,
        caller,
        ExternalWallet,
        page,
        customer_id=customer_id,
        counterparty_id=counterparty_id,
        status=status,
        chain=chain,
    )


async def create_external_wallet(
    session: AsyncSession, *, caller: Caller, data: ExternalWalletCreate, now: datetime
) -> ExternalWallet:
    caller.require_scope(CUSTOMERS_WRITE)
    problem = addresses.address_problem(data.chain, data.address)
    if problem is not None:
        raise ValidationFailed("address", f"not a {data.chain.value} address: {problem}")
    owner = await _owner(session, caller, data.customer_id, data.counterparty_id)
    wallet = ExternalWallet(
        id=new_id("ewa"),
        organization_id=caller.organization_id,
        customer_id=owner.customer_id,
        counterparty_id=owner.counterparty_id,
        status=ACTIVE,
        chain=data.chain.value,
        address=data.address,
        label=data.label,
        created_at=now,
        updated_at=now,
        closed_at=None,
    )
    session.add(wallet)
    await session.flush()
    _emit_party(session, wallet, "external_wallet.created", owner.tags, now)
    return wallet


async def update_external_wallet(
    session: AsyncSession,
    *,
    caller: Caller,
    external_wallet_id: str,
    changes: ExternalWalletUpdate,
    now: datetime,
) -> ExternalWallet:
    caller.require_scope(CUSTOMERS_WRITE)
    wallet = await get_external_wallet(
        session, caller=caller, external_wallet_id=external_wallet_id, for_update=True
    )
    if wallet.status == CLOSED:
        raise PartyClosed("external wallet")
    if _apply(wallet, {name: getattr(changes, name) for name in changes.model_fields_set}):
        wallet.updated_at = now
        owner_tags = [await _paying_customer_id(session, caller, wallet)]
        _emit_party(session, wallet, "external_wallet.updated", owner_tags, now)
    return wallet
