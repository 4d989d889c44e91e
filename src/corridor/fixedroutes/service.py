"""Fixed routes: creating one with its own virtual account, checking a route as a transfer
would be checked, reading, listing and updating routes.

A route is checked by planning the transfer a deposit would make (transfers/planning.py),
so a route is possible exactly when such a transfer is. What a deposit to the route does
is in routing.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.fixedroutes import repository, rules
from corridor.fixedroutes.errors import FixedRouteClosed, FixedRouteMoveRefused
from corridor.fixedroutes.rules import FixedRouteStatus, FixedRouteType
from corridor.fixedroutes.schemas import (
    FixedRouteCreate,
    FixedRouteRead,
    FixedRouteUpdate,
    FixedRouteValidate,
    FixedRouteValidation,
    RouteProblem,
)
from corridor.kit.db import get_visible
from corridor.kit.errors import CorridorError, InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.customer import Customer
from corridor.models.event import emit
from corridor.models.transfer import FixedRoute, VirtualAccount
from corridor.transfers import repository as transfers_repository
from corridor.transfers.deposits import instructions as deposits
from corridor.transfers.planning import plan as planning

READ_SCOPE = Scope.TRANSFERS_READ
WRITE_SCOPE = Scope.TRANSFERS_WRITE
CREATED, UPDATED = "fixed_route.created", "fixed_route.updated"
# Fields stored as sent, on columns of the same name.
_SIMPLE_FIELDS = ("client_reference_id", "remarks", "internal_remarks", "payment_reason")
_FEE_FIELDS = {"developer_fee"}


@dataclass(frozen=True, slots=True)
class RouteWithAccount:
    route: FixedRoute
    account: VirtualAccount

    def read(self) -> FixedRouteRead:
        return FixedRouteRead.of(self.route, self.account, flow=flow_of(self.route))


def flow_of(route: FixedRoute) -> str:
    return rules.flow_of_route(route.source_currency, route.source_payment_rail, route.destination)


# --- Checking a route ---------------------------------------------------------------------


def _fee_request(data: FixedRouteCreate | FixedRouteUpdate) -> dict[str, str] | None:
    stored = planning.fee_request(
        fields_set=data.model_fields_set & _FEE_FIELDS,
        developer_fee=data.developer_fee,
        developer_fee_fixed=None,
        developer_fee_percent=None,
    )
    if stored is not None and stored["percent"] == "1":
        raise ValidationFailed("developerFee.percent", "a fee of 100% leaves nothing to send")
    return stored


async def check_route(
    session: AsyncSession,
    *,
    caller: Caller,
    customer: Customer,
    route_type: FixedRouteType,
    source_currency: str,
    source_rail: str,
    destination_request: dict[str, Any],
    counterparty_id: str | None,
) -> planning.Plan:
    """The plan of a transfer the route would make (priced at a nominal amount); raises
    what creating that transfer would raise, a pair without a rate naming the destination."""
    problem = rules.source_problem(route_type, source_currency, source_rail)
    if problem is not None:
        raise ValidationFailed(*problem)
    try:
        return await planning.make_plan(
            session,
            caller=caller,
            customer=customer,
            source_request={"currency": source_currency, "paymentRail": source_rail},
            destination_request=destination_request,
            amount_minor=rules.check_amount(source_currency),
            amount_currency=source_currency,
            counterparty_id=counterparty_id,
            fee=None,
        )
    except ValidationFailed as failed:
        field = (failed.errors or [{}])[0].get("field", "")
        if not field.startswith("amount"):
            raise
        message = (failed.errors or [{}])[0].get("message", failed.message)
        raise ValidationFailed("destination.currency", message) from None


def _not_found_field(error: NotFound, data: FixedRouteCreate) -> str:
    """Which field named the unknown id."""
    destination = data.destination
    candidates = (
        ("counterpartyId", data.counterparty_id),
        ("destination.accountId", destination.account_id),
        ("destination.externalAccountId", destination.external_account_id),
    )
    for field, value in candidates:
        if value is not None and repr(value) in error.message:
            return field
    return "destination"


async def validate_route(
    session: AsyncSession, *, caller: Caller, data: FixedRouteValidate
) -> FixedRouteValidation:
    """Whether the route could be created, with the problem when not; changes nothing."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    route_type = data.type or rules.default_type(data.source.payment_rail.value)
    try:
        customer = await planning.active_customer(session, caller, data.customer_id)
    except (NotFound, InvalidState, ValidationFailed) as error:
        return _invalid("customerId", error)
    try:
        _fee_request(data)
        plan = await check_route(
            session,
            caller=caller,
            customer=customer,
            route_type=route_type,
            source_currency=data.source.currency,
            source_rail=data.source.payment_rail.value,
            destination_request=_request_dict(data.destination),
            counterparty_id=data.counterparty_id,
        )
    except ValidationFailed as error:
        return FixedRouteValidation(
            valid=False,
            flow=None,
            errors=[RouteProblem.model_validate(e) for e in error.errors or []],
        )
    except NotFound as error:
        return _invalid(_not_found_field(error, data), error)
    return FixedRouteValidation(valid=True, flow=plan.flow.value, errors=[])


def _invalid(field: str, error: CorridorError) -> FixedRouteValidation:
    problem = RouteProblem(field=field, message=error.message)
    return FixedRouteValidation(valid=False, flow=None, errors=[problem])


def _request_dict(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)


# --- Create -------------------------------------------------------------------------------


async def create_route(
    session: AsyncSession,
    *,
    caller: Caller,
    route_type: FixedRouteType,
    data: FixedRouteCreate,
    now: datetime,
) -> RouteWithAccount:
    """A route of an ACTIVE customer with its own virtual bank account or wallet."""
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    customer = await planning.active_customer(session, caller, data.customer_id)
    fee_request = _fee_request(data)
    source_currency, source_rail = data.source.currency, data.source.payment_rail.value
    destination_request = _request_dict(data.destination)
    plan = await check_route(
        session,
        caller=caller,
        customer=customer,
        route_type=route_type,
        source_currency=source_currency,
        source_rail=source_rail,
        destination_request=destination_request,
        counterparty_id=data.counterparty_id,
    )
    account = await _new_virtual_account(
        session,
        customer=customer,
        route_type=route_type,
        currency=source_currency,
        rail=source_rail,
        now=now,
    )
    route = FixedRoute(
        id=new_id("frt"),
        organization_id=customer.organization_id,
        customer_id=customer.id,
        type=route_type.value,
        status=FixedRouteStatus.ACTIVE.value,
        virtual_account_id=account.id,
        source_currency=source_currency,
        source_payment_rail=source_rail,
        destination_request=destination_request,
        destination=plan.destination.display,
        counterparty_id=plan.destination.counterparty_id,
        developer_fee_request=fee_request,
        created_by=caller.actor_id,
        created_at=now,
        updated_at=now,
    )
    for name in _SIMPLE_FIELDS:
        setattr(route, name, getattr(data, name))
    session.add(route)
    await session.flush()
    found = RouteWithAccount(route, account)
    _event(session, CREATED, found, now=now)
    return found


async def _new_virtual_account(
    session: AsyncSession,
    *,
    customer: Customer,
    route_type: FixedRouteType,
    currency: str,
    rail: str,
    now: datetime,
) -> VirtualAccount:
    balance = await transfers_repository.customer_balance_account(
        session,
        organization_id=customer.organization_id,
        customer_id=customer.id,
        currency=currency,
    )
    balance_id = balance.id if balance is not None else None
    if route_type == FixedRouteType.VIRTUAL_BANK_ACCOUNT:
        account = deposits.new_virtual_bank_account(
            customer, currency=currency, balance_account_id=balance_id, now=now, payment_rail=rail
        )
    else:
        account_id = new_id("vwa")
        account = VirtualAccount(
            id=account_id,
            organization_id=customer.organization_id,
            customer_id=customer.id,
            balance_account_id=balance_id,
            transfer_id=None,
            type=deposits.VIRTUAL_WALLET,
            status="ACTIVE",
            currency=currency,
            payment_rail=rail,
            address=deposits.sandbox_address(account_id, rail),
            created_at=now,
            updated_at=now,
        )
        # A chain paid on a real node with a deposit seed: the next HD-derived address.
        derived = await deposits.derived_address(session, account, now=now)
        if derived is not None:
            account.address = derived
    session.add(account)
    await session.flush()
    return account


def _event(session: AsyncSession, event_type: str, found: RouteWithAccount, *, now: datetime):
    route = found.route
    emit(
        session,
        organization_id=route.organization_id,
        event_type=event_type,
        data=found.read().to_json_dict(),
        tags=[route.id, route.customer_id, route.virtual_account_id],
        at=now,
    )


# --- Read and list ------------------------------------------------------------------------


async def _account(session: AsyncSession, route: FixedRoute) -> VirtualAccount:
    account = await repository.virtual_account(session, route.virtual_account_id)
    assert account is not None, route.id
    return account


async def _route(
    session: AsyncSession, caller: Caller, route_id: str, *, for_update: bool = False
) -> FixedRoute:
    caller.require_customer_binding()
    return await get_visible(
        session, repository.visible_routes(caller), route_id, locked=for_update
    )


async def get_route(session: AsyncSession, *, caller: Caller, route_id: str) -> RouteWithAccount:
    caller.require_scope(READ_SCOPE)
    route = await _route(session, caller, route_id)
    return RouteWithAccount(route, await _account(session, route))


async def list_routes(
    session: AsyncSession, *, caller: Caller, customer_id: str | None, page: PageRequest
) -> Page[RouteWithAccount]:
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    statement = repository.routes_of(caller, customer_id=customer_id)
    found = await fetch_page(session, statement, FixedRoute.id, page)
    accounts = await repository.virtual_accounts(
        session, [route.virtual_account_id for route in found.items]
    )
    return found.map(lambda route: RouteWithAccount(route, accounts[route.virtual_account_id]))


async def list_customer_routes(
    session: AsyncSession, *, caller: Caller, customer_id: str, page: PageRequest
) -> Page[RouteWithAccount]:
    caller.require_scope(READ_SCOPE)
    customer = await customers.get_customer(session, caller=caller, customer_id=customer_id)
    return await list_routes(session, caller=caller, customer_id=customer.id, page=page)


# --- Update -------------------------------------------------------------------------------


def _refuse_fixed_fields(data: FixedRouteUpdate) -> None:
    if "virtual_account_id" in data.model_fields_set:
        raise ValidationFailed(
            "virtualAccountId", "a route keeps its virtual account; create another route"
        )
    if "source" in data.model_fields_set:
        sent = data.source or {}
        field = next(
            (f"source.{key}" for key in ("currency", "paymentRail") if key in sent), "source"
        )
        raise ValidationFailed(
            field, "a route's source cannot change; close it and create another route"
        )


def _merged(stored: dict[str, Any], changes: Any) -> dict[str, Any]:
    """JSON merge: fields sent replace the stored ones; a field sent as null is removed."""
    merged = dict(stored)
    for key, value in changes.model_dump(mode="json", by_alias=True, exclude_unset=True).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


async def update_route(
    session: AsyncSession,
    *,
    caller: Caller,
    route_id: str,
    data: FixedRouteUpdate,
    now: datetime,
) -> RouteWithAccount:
    """PATCH: status, destination (checked again), fee, references and remarks. A CLOSED
    route cannot change (409); its source and virtual account never can (422)."""
    caller.require_scope(WRITE_SCOPE)
    route = await _route(session, caller, route_id, for_update=True)
    _refuse_fixed_fields(data)
    current = FixedRouteStatus(route.status)
    if current == FixedRouteStatus.CLOSED:
        raise FixedRouteClosed(route.id)
    fields = data.model_fields_set
    target = data.status if data.status is not None else current
    if not rules.status_move_allowed(current, target):
        raise FixedRouteMoveRefused(route.id, current.value, target.value)
    if data.destination is not None:
        route.destination_request = _merged(route.destination_request, data.destination)
    if _FEE_FIELDS & fields:
        route.developer_fee_request = _fee_request(data)
    for name in _SIMPLE_FIELDS:
        if name in fields:
            setattr(route, name, getattr(data, name))
    replanned = (
        data.destination is not None
        or "counterparty_id" in fields
        or (target == FixedRouteStatus.ACTIVE and current != FixedRouteStatus.ACTIVE)
    )
    if replanned:
        await _replan(session, caller, route, data)
    account = await _account(session, route)
    if target != current:
        route.status = target.value
        if target == FixedRouteStatus.CLOSED:
            account.status = "CLOSED"
            account.updated_at = now
    route.updated_at = now
    await session.flush()
    found = RouteWithAccount(route, account)
    _event(session, UPDATED, found, now=now)
    return found


async def _replan(
    session: AsyncSession, caller: Caller, route: FixedRoute, data: FixedRouteUpdate
) -> None:
    if "counterparty_id" in data.model_fields_set:
        counterparty_id = data.counterparty_id
    elif route.destination_request.get("toAddress"):
        # A counterparty named with a bare address stays named across PATCHes.
        counterparty_id = route.counterparty_id
    else:
        counterparty_id = None
    customer = await planning.active_customer(session, caller, route.customer_id)
    plan = await check_route(
        session,
        caller=caller,
        customer=customer,
        route_type=FixedRouteType(route.type),
        source_currency=route.source_currency,
        source_rail=route.source_payment_rail,
        destination_request=route.destination_request,
        counterparty_id=counterparty_id,
    )
    route.destination = plan.destination.display
    route.counterparty_id = plan.destination.counterparty_id
