"""A deposit to a fixed route's own account: the transfer it makes, or why it cannot.

Called by transfers/deposits/receiving.py, through the deposit-routing seam of
transfers/plugins.py, inside the deposit's transaction. The transfer is planned
exactly as a client's would be (transfers/planning.py) with the deposit as its source and
the route's destination, fee, references and remarks; it is created submitted (PENDING,
awaiting this very deposit), and the deposit then funds it into PROCESSING. A deposit the
route cannot carry (route paused or closed, another rail or currency, too small for the
fee, a destination gone) is left to become an unmatched deposit with the reason.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import UNRESTRICTED
from corridor.fixedroutes import repository
from corridor.kit.errors import CorridorError
from corridor.kit.ids import new_id
from corridor.models.transfer import FixedRoute, Transfer, VirtualAccount
from corridor.transfers import events, lifecycle
from corridor.transfers.planning import plan as planning
from corridor.transfers.plugins import RoutedDeposit
from corridor.transfers.rules.flows import is_chain
from corridor.transfers.rules.states import TransferStatus

ACTIVE = "ACTIVE"
# Deposit.unmatched_reason is at most this long.
unmatched_reason_chars_max = 200
_SIMPLE_FIELDS = ("client_reference_id", "remarks", "internal_remarks", "payment_reason")


def _route_caller(route: FixedRoute) -> Caller:
    """The route acts for its organization, as the standing instruction it is."""
    return Caller(
        kind=CallerKind.ORGANIZATION_KEY,
        organization_id=route.organization_id,
        actor_id=route.id,
        scopes=frozenset({UNRESTRICTED}),
    )


def _refusal(route: FixedRoute, *, payment_rail: str, currency: str) -> str | None:
    if route.status != ACTIVE:
        return f"fixed route {route.id} is {route.status}"
    if payment_rail != route.source_payment_rail:
        return (
            f"fixed route {route.id} expects {route.source_payment_rail}, arrived by {payment_rail}"
        )
    if currency != route.source_currency:
        return f"fixed route {route.id} expects {route.source_currency}, arrived in {currency}"
    return None


def _unmatched(reason: str) -> RoutedDeposit:
    return RoutedDeposit(transfer=None, unmatched_reason=reason[:unmatched_reason_chars_max])


class FixedRouteDeposits:
    """Fixed routes in a transfer's life: the deposit router of transfers/plugins.py."""

    async def route(
        self,
        session: AsyncSession,
        *,
        virtual: VirtualAccount,
        payment_rail: str,
        currency: str,
        amount: int,
        from_address: str | None,
        now: datetime,
    ) -> RoutedDeposit | None:
        return await route_deposit(
            session,
            virtual=virtual,
            payment_rail=payment_rail,
            currency=currency,
            amount=amount,
            from_address=from_address,
            now=now,
        )


async def route_deposit(
    session: AsyncSession,
    *,
    virtual: VirtualAccount,
    payment_rail: str,
    currency: str,
    amount: int,
    from_address: str | None,
    now: datetime,
) -> RoutedDeposit | None:
    """None when the account is no fixed route's (the deposit is matched as usual)."""
    route = await repository.route_of_virtual_account(session, virtual_account_id=virtual.id)
    if route is None:
        return None
    refusal = _refusal(route, payment_rail=payment_rail, currency=currency)
    if refusal is not None:
        return _unmatched(refusal)
    customer = await repository.customer(session, route.customer_id)
    assert customer is not None, route.id
    if customer.status != ACTIVE:
        return _unmatched(f"customer {customer.id} is {customer.status}")
    source_request = {"currency": currency, "paymentRail": payment_rail}
    if from_address is not None and is_chain(payment_rail):
        source_request["fromAddress"] = from_address
    configuration = await planning.configuration_of(session, route.organization_id)
    try:
        plan = await planning.make_plan(
            session,
            caller=_route_caller(route),
            customer=customer,
            source_request=source_request,
            destination_request=route.destination_request,
            amount_minor=amount,
            amount_currency=currency,
            counterparty_id=route.counterparty_id
            if route.destination_request.get("toAddress")
            else None,
            fee=planning.effective_fee(route.developer_fee_request, configuration),
        )
    except CorridorError as problem:
        return _unmatched(f"fixed route {route.id} cannot carry it: {problem.message}")
    transfer = _transfer(route, source_request, amount=amount, currency=currency, now=now)
    legs = planning.apply_plan(transfer, plan, now=now)
    transfer.source = {
        **transfer.source,
        "accountId": virtual.id,
        "accountType": virtual.type,
    }
    session.add(transfer)
    await session.flush()
    session.add_all(legs)
    await session.flush()
    events.transfer_event(session, events.CREATED, transfer=transfer, legs=legs, now=now)
    transfer.funding_needed = True
    await lifecycle.set_status(session, transfer, legs, TransferStatus.PENDING, now=now)
    return RoutedDeposit(transfer=transfer, unmatched_reason=None)


def _transfer(
    route: FixedRoute, source_request: dict, *, amount: int, currency: str, now: datetime
) -> Transfer:
    """A submitted transfer awaiting exactly the deposit that is arriving."""
    transfer = Transfer(
        id=new_id("tfr"),
        organization_id=route.organization_id,
        customer_id=route.customer_id,
        status=TransferStatus.DRAFT.value,
        source_request=source_request,
        destination_request=dict(route.destination_request),
        source_amount=amount,
        source_currency=currency,
        developer_fee_request=route.developer_fee_request,
        document_ids=[],
        funding_needed=False,
        metadata_={},
        fixed_route_id=route.id,
        created_by=route.id,
        submitted_by=route.id,
        submitted_at=now,
        created_at=now,
        updated_at=now,
    )
    for name in _SIMPLE_FIELDS:
        setattr(transfer, name, getattr(route, name))
    return transfer
