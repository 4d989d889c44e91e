"""Queries of transfers, legs, virtual accounts and deposits, filtered to what the caller
may see; the engine's claim of due work."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Select,
    Table,
    and_,
    bindparam,
    delete,
    func,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import outerjoin

from corridor.accounts.repository import visible_accounts
from corridor.auth.callers import Caller
from corridor.customers.repository import visible_customers
from corridor.kit import db
from corridor.kit.clock import Moments
from corridor.kit.db import get_kept
from corridor.kit.ids import looks_like_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.kit.prepared import IdList, PreparedRead, RowShape, among
from corridor.ledger.rules import CUSTOMER_BALANCE
from corridor.models.customer import Customer
from corridor.models.evm import EvmDepositAddress, EvmDepositLog, EvmScanCursor
from corridor.models.ledger import LedgerAccount
from corridor.models.organization import Organization
from corridor.models.party import Counterparty, ExternalAccount, ExternalWallet
from corridor.models.transfer import (
    AgentSpendWindow,
    Deposit,
    FixedRoute,
    Transfer,
    TransferLeg,
    VirtualAccount,
)
from corridor.organizations.repository import organizations_in_scope
from corridor.parties.repository import visible_counterparties, visible_parties

# --- Transfers ----------------------------------------------------------------------------


def visible_transfers(caller: Caller) -> Select[Transfer]:
    """The caller's organization's transfers; only its customer's, or its accounts', when
    the caller is bound to one."""
    account_ids = None if caller.account_ids is None else sorted(caller.account_ids)
    return select(Transfer).where(
        *_visibility(caller.organization_id, caller.customer_id, account_ids)
    )


def _visibility(
    organization_id: Any, customer_id: Any, account_ids: Any
) -> list[ColumnElement[bool]]:
    """A transfer of the organization; of the customer, and from, to or returned to one
    of the accounts, when they are given (values, or the named parameters of a statement
    built once: the accounts' an `IdList`)."""
    conditions = [Transfer.organization_id == organization_id]
    if customer_id is not None:
        conditions.append(Transfer.customer_id == customer_id)
    if account_ids is not None:
        columns = (
            Transfer.source_account_id,
            Transfer.destination_account_id,
            Transfer.returned_to_account_id,
        )
        if isinstance(account_ids, BindParameter):
            conditions.append(or_(*(among(column, account_ids) for column in columns)))
        else:
            conditions.append(or_(*(column.in_(account_ids) for column in columns)))
    return conditions


# The accounts a caller is bound to, as one parameter of a statement built once.
_ACCOUNT_IDS: BindParameter[Any] = bindparam("caller_account_ids", type_=IdList())


def _caller_parameters(bound_to_customer: bool, bound_to_accounts: bool) -> list[Any]:
    """`_visibility`'s named parameters for a statement built once."""
    return [
        bindparam("caller_organization_id"),
        bindparam("caller_customer_id") if bound_to_customer else None,
        _ACCOUNT_IDS if bound_to_accounts else None,
    ]


def _caller_values(caller: Caller) -> dict[str, Any]:
    """The values of `_caller_parameters` for this caller."""
    return {
        "caller_organization_id": caller.organization_id,
        "caller_customer_id": caller.customer_id,
        "caller_account_ids": None if caller.account_ids is None else sorted(caller.account_ids),
    }


@dataclass(frozen=True, slots=True)
class TransferFilters:
    status: str | None = None
    agent_approval_status: str | None = None
    customer_id: str | None = None
    flow: str | None = None
    client_reference_id: str | None = None
    created_after: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive
    account_id: str | None = None  # the source, destination or returned-to balance account
    # The caller's organization and every organization below it (an operator's view).
    include_child_organizations: bool = False


def filtered_transfers(caller: Caller, filters: TransferFilters) -> Select[Transfer]:
    if filters.include_child_organizations:
        assert caller.customer_id is None and caller.account_ids is None
        in_scope = organizations_in_scope(caller.organization_id).with_only_columns(Organization.id)
        statement = select(Transfer).where(Transfer.organization_id.in_(in_scope))
    else:
        statement = visible_transfers(caller)
    return statement.where(*_filtered(filters, lambda _, value: value))


# The filters a page of transfers may name (TransferFilters, but the organizations' scope).
_PAGE_FILTERS = (
    "status",
    "agent_approval_status",
    "customer_id",
    "flow",
    "client_reference_id",
    "created_after",
    "created_before",
    "account_id",
)


def _filtered(
    filters: TransferFilters, value: Callable[[str, Any], Any]
) -> list[ColumnElement[bool]]:
    """The conditions of the filters given: each compared with `value(name, given)` (the
    value, or a statement's named parameter)."""
    conditions: list[ColumnElement[bool]] = []
    equalities = (
        ("status", Transfer.status),
        ("agent_approval_status", Transfer.agent_approval_status),
        ("customer_id", Transfer.customer_id),
        ("flow", Transfer.flow),
        ("client_reference_id", Transfer.client_reference_id),
    )
    for name, column in equalities:
        given = getattr(filters, name)
        if given is not None:
            conditions.append(column == value(name, given))
    if filters.created_after is not None:
        conditions.append(Transfer.created_at >= value("created_after", filters.created_after))
    if filters.created_before is not None:
        conditions.append(Transfer.created_at < value("created_before", filters.created_before))
    if filters.account_id is not None:
        account = value("account_id", filters.account_id)
        conditions.append(
            or_(
                Transfer.source_account_id == account,
                Transfer.destination_account_id == account,
                Transfer.returned_to_account_id == account,
            )
        )
    return conditions


async def count_filtered(
    session: AsyncSession, caller: Caller, filters: TransferFilters, *, cap: int
) -> int:
    matching = filtered_transfers(caller, filters).with_only_columns(Transfer.id).limit(cap)
    counted = select(func.count()).select_from(matching.subquery())
    return int((await session.execute(counted)).scalar_one())


@dataclass(frozen=True, slots=True)
class DayVolume:
    day: str  # YYYY-MM-DD, UTC
    currency: str  # the source currency
    count: int
    amount: int  # minor units of `currency`


async def volume_per_day(
    session: AsyncSession, caller: Caller, *, since: datetime, excluded_statuses: Sequence[str]
) -> list[DayVolume]:
    """Transfers created since `since`, counted and summed per UTC day and source currency
    (one grouped query)."""
    day = db.utc_day(Transfer.created_at)
    statement = (
        filtered_transfers(caller, TransferFilters(created_after=since))
        .where(Transfer.status.not_in(list(excluded_statuses)))
        .with_only_columns(
            day, Transfer.source_currency, func.count(Transfer.id), func.sum(Transfer.source_amount)
        )
        .group_by(day, Transfer.source_currency)
    )
    return [
        DayVolume(text, currency, int(count), int(total))
        for text, currency, count, total in await session.execute(statement)
    ]


async def transfer_by_id(
    session: AsyncSession, transfer_id: str, *, for_update: bool = False
) -> Transfer | None:
    """Without a caller: for the engine and for system-made transfers."""
    statement = select(Transfer).where(Transfer.id == transfer_id)
    if for_update:
        statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


def _due(now: datetime | Moments, organization_id: str | None) -> Select[Transfer]:
    """Transfers whose next step has come, by their organization's clock (`Moments`: a
    sandbox clock that was advanced, API.md 9)."""
    statement = select(Transfer).where(
        Transfer.next_step_at.is_not(None),
        db.due(Transfer.next_step_at, Transfer.organization_id, now),
    )
    if organization_id is not None:
        statement = statement.where(Transfer.organization_id == organization_id)
    return statement


async def any_due(
    session: AsyncSession, *, now: datetime | Moments, organization_id: str | None = None
) -> bool:
    statement = _due(now, organization_id).with_only_columns(Transfer.id).limit(1)
    return (await session.execute(statement)).first() is not None


async def claim_due_transfer(
    session: AsyncSession, *, now: datetime | Moments, organization_id: str | None = None
) -> Transfer | None:
    """The transfer the engine should advance next, locked; others' claims are skipped."""
    statement = _due(now, organization_id).order_by(Transfer.next_step_at, Transfer.id).limit(1)
    statement = db.for_update(session, statement, skip_locked=True)
    return (await session.execute(statement)).scalar_one_or_none()


async def legs_of(session: AsyncSession, transfer_id: str) -> list[TransferLeg]:
    statement = (
        select(TransferLeg)
        .where(TransferLeg.transfer_id == transfer_id)
        .order_by(TransferLeg.sequence)
        .execution_options(populate_existing=True)
    )
    return list((await session.execute(statement)).scalars())


def _read_with_legs(bound_to_customer: bool, bound_to_accounts: bool, locked: bool) -> PreparedRead:
    """`visible_with_legs`'s statement, built once per kind of caller binding, locked or
    not: the transfer's and its legs' columns, by the caller's values and `transfer_id`
    (`FOR UPDATE OF transfers` on PostgreSQL; SQLite's write transaction already excludes
    writers, and its compiler writes no lock)."""
    statement = (
        select(*_TRANSFER_ROW.columns, *_LEG_ROW.columns)
        .outerjoin(TransferLeg, TransferLeg.transfer_id == Transfer.id)
        .where(
            *_visibility(*_caller_parameters(bound_to_customer, bound_to_accounts)),
            Transfer.id == bindparam("transfer_id"),
        )
        .order_by(TransferLeg.sequence)
    )
    if locked:
        statement = statement.with_for_update(of=Transfer)
    return PreparedRead(statement)


_TRANSFER_ROW = RowShape(Transfer)
_LEG_ROW = RowShape(TransferLeg)
_READS_WITH_LEGS = {
    (customer, accounts, locked): _read_with_legs(customer, accounts, locked)
    for customer in (False, True)
    for accounts in (False, True)
    for locked in (False, True)
}


async def visible_with_legs(
    session: AsyncSession, caller: Caller, transfer_id: str, *, locked: bool = False
) -> tuple[Transfer, list[TransferLeg]] | None:
    """The transfer, if the caller may see it, and its legs in order, in one statement
    built once per kind of caller and sent on the driver (`kit.prepared`; None: not
    visible). `locked`: the transfer's row is locked for update, and the rows are the unit
    of work's own (held ones refreshed, as `kit.db.for_update` does); unlocked, a read
    that changes nothing, the rows are in no session."""
    read = _READS_WITH_LEGS[caller.customer_id is not None, caller.account_ids is not None, locked]
    rows = await read.rows(session, {**_caller_values(caller), "transfer_id": transfer_id})
    if not rows:
        return None
    width = _TRANSFER_ROW.width
    if locked:
        transfer = _TRANSFER_ROW.load(session, rows[0], 0)
        legs = [_LEG_ROW.load(session, row, width) for row in rows]
    else:
        transfer = _TRANSFER_ROW.read(rows[0], 0)
        legs = [_LEG_ROW.read(row, width) for row in rows]
    assert transfer is not None
    return transfer, [leg for leg in legs if leg is not None]


@functools.cache
def _page_read(
    bound_to_customer: bool, bound_to_accounts: bool, given: frozenset[str], after_cursor: bool
) -> PreparedRead:
    """`transfer_page`'s statement for one kind of caller and set of filters, built once:
    a page of the visible transfers matching them (newest first, `page_limit` rows, below
    `cursor`). Their legs are `_LEGS_OF_PAGE`'s, a second statement: one joined statement
    would send each transfer's columns once per leg."""
    placeholders = TransferFilters(**cast(dict[str, Any], dict.fromkeys(given, "")))
    page = (
        select(*_TRANSFER_ROW.columns)
        .where(
            *_visibility(*_caller_parameters(bound_to_customer, bound_to_accounts)),
            *_filtered(placeholders, lambda name, _: bindparam(name)),
        )
        .order_by(Transfer.id.desc())
        .limit(bindparam("page_limit"))
    )
    if after_cursor:
        page = page.where(Transfer.id < bindparam("cursor"))
    return PreparedRead(page)


# The legs of the transfers a page read, by their ids (not the page's statement again: a
# transfer written in between would change what it selects).
_LEGS_OF_PAGE = PreparedRead(
    select(*_LEG_ROW.columns)
    .where(among(TransferLeg.transfer_id, bindparam("transfer_ids", type_=IdList())))
    .order_by(TransferLeg.transfer_id, TransferLeg.sequence)
)


async def transfer_page(
    session: AsyncSession, caller: Caller, filters: TransferFilters, page: PageRequest
) -> Page[tuple[Transfer, list[TransferLeg]]]:
    """One page of the caller's transfers matching `filters`, newest first, each with its
    legs in order, for a read that changes nothing (the rows are in no session):
    statements built once per kind of caller and set of filters, sent on the driver
    (`kit.prepared`); across child organizations (a tree of organizations), the page
    through the session."""
    if filters.include_child_organizations:
        found = await fetch_page(session, filtered_transfers(caller, filters), Transfer.id, page)
        by_id = await legs_of_many(session, [transfer.id for transfer in found.items])
        return found.map(lambda transfer: (transfer, by_id[transfer.id]))
    given = frozenset(name for name in _PAGE_FILTERS if getattr(filters, name) is not None)
    read = _page_read(
        caller.customer_id is not None,
        caller.account_ids is not None,
        given,
        page.cursor is not None,
    )
    parameters: dict[str, Any] = {name: getattr(filters, name) for name in given}
    parameters.update(_caller_values(caller), page_limit=page.limit + 1, cursor=page.cursor)
    rows = await read.rows(session, parameters)
    has_more = len(rows) > page.limit
    transfers = [_TRANSFER_ROW.read(row, 0) for row in rows[: page.limit]]
    legs: dict[str, list[TransferLeg]] = {cast(Transfer, t).id: [] for t in transfers}
    if transfers:
        for row in await _LEGS_OF_PAGE.rows(session, {"transfer_ids": list(legs)}):
            leg = cast(TransferLeg, _LEG_ROW.read(row, 0))
            legs[leg.transfer_id].append(leg)
    items = [
        (cast(Transfer, transfer), legs[cast(Transfer, transfer).id]) for transfer in transfers
    ]
    return Page(
        items=items,
        next_cursor=items[-1][0].id if has_more and items else None,
        has_more=has_more,
    )


async def legs_of_many(
    session: AsyncSession, transfer_ids: Sequence[str]
) -> dict[str, list[TransferLeg]]:
    found: dict[str, list[TransferLeg]] = {transfer_id: [] for transfer_id in transfer_ids}
    if not transfer_ids:
        return found
    statement = (
        select(TransferLeg)
        .where(TransferLeg.transfer_id.in_(list(transfer_ids)))
        .order_by(TransferLeg.transfer_id, TransferLeg.sequence)
    )
    for leg in (await session.execute(statement)).scalars():
        found[leg.transfer_id].append(leg)
    return found


async def delete_legs(session: AsyncSession, transfer_id: str) -> None:
    await session.execute(delete(TransferLeg).where(TransferLeg.transfer_id == transfer_id))


async def child_transfers(session: AsyncSession, parent_id: str) -> list[Transfer]:
    statement = select(Transfer).where(Transfer.parent_transfer_id == parent_id)
    return list((await session.execute(statement)).scalars())


# --- Customers, organizations, balance accounts -------------------------------------------


async def customer(session: AsyncSession, caller: Caller, customer_id: str) -> Customer | None:
    statement = select(Customer).where(
        Customer.organization_id == caller.organization_id, Customer.id == customer_id
    )
    if caller.customer_id is not None:
        statement = statement.where(Customer.id == caller.customer_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def organization(session: AsyncSession, organization_id: str) -> Organization | None:
    return await get_kept(session, Organization, organization_id)


async def balance_account(session: AsyncSession, account_id: str) -> LedgerAccount | None:
    statement = select(LedgerAccount).where(
        LedgerAccount.id == account_id, LedgerAccount.kind == CUSTOMER_BALANCE
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def customer_balance_account(
    session: AsyncSession, *, organization_id: str, customer_id: str, currency: str
) -> LedgerAccount | None:
    statement = select(LedgerAccount).where(
        LedgerAccount.organization_id == organization_id,
        LedgerAccount.customer_id == customer_id,
        LedgerAccount.kind == CUSTOMER_BALANCE,
        LedgerAccount.currency == currency,
    )
    return (await session.execute(statement)).scalar_one_or_none()


# --- Virtual accounts and deposits --------------------------------------------------------


async def virtual_account(
    session: AsyncSession, *, organization_id: str, virtual_account_id: str
) -> VirtualAccount | None:
    statement = select(VirtualAccount).where(
        VirtualAccount.organization_id == organization_id, VirtualAccount.id == virtual_account_id
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def virtual_account_at(
    session: AsyncSession, *, organization_id: str, address: str
) -> VirtualAccount | None:
    statement = select(VirtualAccount).where(
        VirtualAccount.organization_id == organization_id, VirtualAccount.address == address
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def customer_virtual_bank_account(
    session: AsyncSession, *, organization_id: str, customer_id: str, currency: str
) -> VirtualAccount | None:
    statement = select(VirtualAccount).where(
        VirtualAccount.organization_id == organization_id,
        VirtualAccount.customer_id == customer_id,
        VirtualAccount.currency == currency,
        VirtualAccount.type == "VIRTUAL_BANK",
        VirtualAccount.transfer_id.is_(None),
        # A fixed route's dedicated account takes only that route's deposits.
        ~select(FixedRoute.id).where(FixedRoute.virtual_account_id == VirtualAccount.id).exists(),
    )
    return (await session.execute(statement)).scalars().first()


def virtual_accounts_of_balance(account_id: str) -> Select[VirtualAccount]:
    return select(VirtualAccount).where(VirtualAccount.balance_account_id == account_id)


async def transfer_awaiting_reference(
    session: AsyncSession, *, organization_id: str, reference: str
) -> Transfer | None:
    statement = select(Transfer).where(
        Transfer.organization_id == organization_id, Transfer.deposit_reference == reference
    )
    statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


def unmatched_deposits(*, organization_id: str, customer_id: str) -> Select[Deposit]:
    return select(Deposit).where(
        Deposit.organization_id == organization_id,
        Deposit.customer_id == customer_id,
        Deposit.status == "UNMATCHED",
    )


# --- The rows a plan reads, in one statement ----------------------------------------------


@dataclass(frozen=True, slots=True)
class PlanNames:
    """The rows a transfer's source and destination name (ids as sent; one that cannot be
    an id of its kind is not looked up, and reads as not found)."""

    customer_id: str
    balance_accounts: tuple[str, ...] = ()
    external_accounts: tuple[str, ...] = ()
    wallets: tuple[str, ...] = ()
    # A counterpartyId sent with a bare address (deleted ones are not found).
    counterparty_id: str | None = None
    # The destination's external account or wallet, whose counterparty (deleted ones
    # included) is read with it.
    destination_party: str | None = None


@dataclass(frozen=True, slots=True)
class PlanRows:
    """What `plan_rows` found, each as its domain's `visible_…(caller)` statement shows it
    to the caller (absent: not visible, or no such row)."""

    organization: Organization
    customer: Customer | None
    balance_accounts: dict[str, LedgerAccount]
    external_accounts: dict[str, ExternalAccount]
    wallets: dict[str, ExternalWallet]
    counterparty: Counterparty | None
    destination_owner: Counterparty | None


# A plan's statement, per shape: which rows are wanted, in which order, for a caller bound
# to a customer or not. Built once per shape with placeholders for the values (building
# it costs more CPU than running it) and run with each request's values on the driver
# (`kit.prepared`; a caller bound to accounts: through the session, an expanding IN).
_PlanShape = tuple[bool, bool, tuple[str, ...], int | None]
_plan_statements: dict[_PlanShape, _PlanRead] = {}
_PLAN_SHAPES_MAX = 256


def _placeholder_caller(caller: Caller) -> Caller:
    """`caller` with its organization, customer binding and accounts as bound parameters,
    for the visible statements of a cached plan statement (bound by name at each run: a
    value not given fails the statement, it never falls back to another caller's)."""
    organization_id, customer_id, account_ids = _caller_parameters(
        caller.customer_id is not None, caller.account_ids is not None
    )
    return replace(
        caller, organization_id=organization_id, customer_id=customer_id, account_ids=account_ids
    )


# Each kind of row a plan names: its model, and its repository's visible statement.
_PLAN_KINDS: dict[str, tuple[Any, Callable[[Caller], Select[Any]]]] = {
    "customer": (Customer, visible_customers),
    "account": (LedgerAccount, visible_accounts),
    "external": (ExternalAccount, lambda caller: visible_parties(caller, ExternalAccount)),
    "wallet": (ExternalWallet, lambda caller: visible_parties(caller, ExternalWallet)),
    "counterparty": (Counterparty, visible_counterparties),
}


@dataclass(frozen=True, slots=True)
class _PlanRead:
    read: PreparedRead
    # The organization's shape, each wanted row's, and the destination owner's (if any),
    # in the order of the select list.
    shapes: tuple[RowShape[Any], ...]


_ORGANIZATION_ROW = RowShape(Organization)


def _plan_statement(caller: Caller, kinds: Sequence[str], destination: int | None) -> _PlanRead:
    """The one statement of `plan_rows` for rows of these kinds: each its repository's
    visible statement for the caller narrowed to one id (`id_0`, `id_1`, … in order),
    outer joined to the organization's row, and the destination's counterparty (deleted
    ones included) joined to the wanted row at index `destination`."""
    wanted = []
    for index, kind in enumerate(kinds):
        model, visible = _PLAN_KINDS[kind]
        narrowed = visible(caller).where(model.id == bindparam(f"id_{index}"))
        wanted.append(RowShape(model, narrowed.subquery(f"wanted_{index}")))
    owner: RowShape[Any] | None = None
    if destination is not None:
        owner = RowShape(
            Counterparty,
            visible_counterparties(caller, include_deleted=True).subquery("destination_owner"),
        )
    shapes = (_ORGANIZATION_ROW, *wanted, *([owner] if owner is not None else []))
    joined: Any = Organization
    for shape in wanted:
        joined = outerjoin(joined, shape.selectable, true())
    if owner is not None and destination is not None:
        joined = outerjoin(
            joined,
            owner.selectable,
            owner.selectable.c.id == wanted[destination].selectable.c.counterparty_id,
        )
    statement = (
        select(*(column for shape in shapes for column in shape.columns))
        .select_from(joined)
        .where(Organization.id == caller.organization_id)
    )
    return _PlanRead(PreparedRead(statement), shapes)


async def plan_rows(session: AsyncSession, caller: Caller, names: PlanNames) -> PlanRows:
    """The caller's organization and every row the names point at, in one statement: each
    row is its repository's visible statement for this caller, narrowed to one id, outer
    joined to the organization's row (so the statement answers exactly one row). The rows
    are the unit of work's own (`RowShape.load`)."""
    roles: list[tuple[str, str]] = []  # (kind, id)

    def want(kind: str, identifier: str | None) -> int | None:
        if identifier is None or not looks_like_id(identifier, _PLAN_KINDS[kind][0].id_prefix):
            return None
        roles.append((kind, identifier))
        return len(roles) - 1

    want("customer", names.customer_id)
    for account_id in names.balance_accounts:
        want("account", account_id)
    parties: dict[str, int | None] = {}
    for party_id in names.external_accounts:
        parties[party_id] = want("external", party_id)
    for party_id in names.wallets:
        parties[party_id] = want("wallet", party_id)
    want("counterparty", names.counterparty_id)
    destination = parties.get(names.destination_party) if names.destination_party else None
    shape: _PlanShape = (
        caller.customer_id is not None,
        caller.account_ids is not None,
        tuple(kind for kind, _ in roles),
        destination,
    )
    statement = _plan_statements.get(shape)
    if statement is None:
        statement = _plan_statement(_placeholder_caller(caller), shape[2], destination)
        if len(_plan_statements) < _PLAN_SHAPES_MAX:
            _plan_statements[shape] = statement
    values: dict[str, Any] = {
        f"id_{index}": identifier for index, (_, identifier) in enumerate(roles)
    }
    values.update(_caller_values(caller))
    (row,) = await statement.read.rows(session, values)
    loaded = []
    start = 0
    for row_shape in statement.shapes:
        loaded.append(row_shape.load(session, row, start))
        start += row_shape.width
    found = PlanRows(
        organization=cast(Organization, loaded[0]),
        customer=None,
        balance_accounts={},
        external_accounts={},
        wallets={},
        counterparty=None,
        destination_owner=loaded[-1] if destination is not None else None,
    )
    customer = counterparty = None
    for (kind, identifier), value in zip(roles, loaded[1:], strict=False):
        if value is None:
            continue
        if kind == "customer":
            customer = value
        elif kind == "account":
            found.balance_accounts[identifier] = value
        elif kind == "external":
            found.external_accounts[identifier] = value
        elif kind == "wallet":
            found.wallets[identifier] = value
        else:
            counterparty = value
    return replace(found, customer=customer, counterparty=counterparty)


# --- Agent spend windows (transfers/spending.py) ----------------------------------------

# The periods of a spend window (spending.py DAY and MONTH).
SPEND_DAY, SPEND_MONTH = "DAY", "MONTH"


async def spend_windows(
    session: AsyncSession, window_ids: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """What each of the windows holds (those with a row): (spent, payments)."""
    statement = select(
        AgentSpendWindow.id, AgentSpendWindow.spent, AgentSpendWindow.payments
    ).where(AgentSpendWindow.id.in_(list(window_ids)))
    return {row[0]: (row[1], row[2]) for row in await session.execute(statement)}


def _spend_add(dialect: Any) -> PreparedRead:
    """The spend add as one statement built once, a row for the day's window and one for
    the month's (one INSERT … VALUES (…), (…)): each window's row is made, or added to
    while it stays within its period's limits (a NULL limit: none). The limits are bound
    once for the statement, so each row's guard picks its own by the row's period. On the
    table, not the mapped class: the ORM's bulk INSERT around it cost twice the statement."""
    table = cast("Table", AgentSpendWindow.__table__).c
    upsert = dialect.insert(AgentSpendWindow.__table__)

    def within(limit: str, value: Any) -> Any:
        bound = bindparam(limit, type_=BigInteger)
        return or_(bound.is_(None), value <= bound)

    def window(period: str) -> dict[str, Any]:
        prefix = period.lower()
        return {
            "id": bindparam(f"{prefix}_id"),
            "agent_id": bindparam(f"{prefix}_agent_id"),
            "currency": bindparam(f"{prefix}_currency"),
            "period": period,
            "starts_at": bindparam(f"{prefix}_starts_at", type_=table.starts_at.type),
            "spent": bindparam(f"{prefix}_amount", type_=BigInteger),
            "payments": 1,
            "updated_at": bindparam(f"{prefix}_now", type_=table.updated_at.type),
        }

    statement = upsert.values([window(SPEND_DAY), window(SPEND_MONTH)])
    added = table.spent + statement.excluded.spent
    return PreparedRead(
        statement.on_conflict_do_update(
            index_elements=[table.id],
            set_={
                "spent": added,
                "payments": table.payments + 1,
                "updated_at": statement.excluded.updated_at,
            },
            where=or_(
                and_(
                    table.period == SPEND_DAY,
                    within("day_limit", added),
                    within("day_payments_limit", table.payments + 1),
                ),
                and_(table.period == SPEND_MONTH, within("month_limit", added)),
            ),
        ).returning(table.id)
    )


_SPEND_ADD = {"postgresql": _spend_add(postgresql), "sqlite": _spend_add(sqlite)}


async def add_to_spend_windows(
    session: AsyncSession,
    *,
    agent_id: str,
    currency: str,
    amount: int,
    day: tuple[str, datetime],
    month: tuple[str, datetime],
    now: datetime,
    day_limit: int | None,
    month_limit: int | None,
    day_payments_limit: int | None,
) -> set[str]:
    """Add `amount` and one payment to the day's and the month's window (id, first
    instant; made at `amount` and one payment when it has no row yet) in one statement; an
    existing row only while it stays within its period's limits (None: no limit), checked
    in the statement against what it holds. The ids of the windows added to."""
    parameters: dict[str, Any] = {
        "day_limit": day_limit,
        "day_payments_limit": day_payments_limit,
        "month_limit": month_limit,
    }
    for prefix, (window_id, starts_at) in (("day", day), ("month", month)):
        parameters |= {
            f"{prefix}_id": window_id,
            f"{prefix}_agent_id": agent_id,
            f"{prefix}_currency": currency,
            f"{prefix}_starts_at": starts_at,
            f"{prefix}_amount": amount,
            f"{prefix}_now": now,
        }
    dialect = "sqlite" if db.is_sqlite(session) else "postgresql"
    return {row[0] for row in await _SPEND_ADD[dialect].rows(session, parameters)}


async def take_from_spend_window(
    session: AsyncSession, window_id: str, amount: int, *, now: datetime
) -> None:
    """Take `amount` and one payment back off the window."""
    await session.execute(
        update(AgentSpendWindow)
        .where(AgentSpendWindow.id == window_id)
        .values(
            spent=AgentSpendWindow.spent - amount,
            payments=AgentSpendWindow.payments - 1,
            updated_at=now,
        )
        .execution_options(synchronize_session=False)
    )


# --- Deposits found on chain (transfers/deposits/chain.py) --------------------------------


async def locked_scan_cursor(
    session: AsyncSession, *, chain: str, token_address: str, start_block: int, now: datetime
) -> EvmScanCursor:
    """The scan cursor of a chain's token, made at `start_block` the first time, locked
    until the transaction ends (one scan of a range at a time)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await session.execute(
        insert(EvmScanCursor)
        .values(chain=chain, token_address=token_address, next_block=start_block, updated_at=now)
        .on_conflict_do_nothing(index_elements=["chain", "token_address"])
    )
    found = await session.execute(
        select(EvmScanCursor)
        .where(EvmScanCursor.chain == chain, EvmScanCursor.token_address == token_address)
        .with_for_update()
    )
    return found.scalar_one()


async def deposit_wallet_at(session: AsyncSession, address: str) -> VirtualAccount | None:
    """The deposit wallet an HD-derived address belongs to (any organization)."""
    found = await session.execute(
        select(VirtualAccount)
        .join(EvmDepositAddress, EvmDepositAddress.virtual_account_id == VirtualAccount.id)
        .where(EvmDepositAddress.address == address)
    )
    return found.scalar_one_or_none()


async def deposit_log_seen(
    session: AsyncSession, *, chain: str, tx_hash: str, log_index: int
) -> bool:
    found = await session.execute(
        select(EvmDepositLog.id).where(
            EvmDepositLog.chain == chain,
            EvmDepositLog.tx_hash == tx_hash,
            EvmDepositLog.log_index == log_index,
        )
    )
    return found.scalar_one_or_none() is not None
