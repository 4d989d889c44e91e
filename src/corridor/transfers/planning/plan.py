"""Planning a draft: resolve its ends, derive the flow, price the legs, and write the plan
onto the transfer row (on create, and again after every PATCH)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.customers import service as customers
from corridor.kit import fx
from corridor.kit.errors import InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.money import MoneyError, parse_minor_units
from corridor.models.customer import Customer
from corridor.models.transfer import Transfer, TransferLeg
from corridor.organizations.configuration import Configuration, from_document
from corridor.rails.base import RailName
from corridor.rails.registry import adapter_for
from corridor.transfers import repository
from corridor.transfers.planning.destinations import resolve_destination
from corridor.transfers.planning.resolution import ResolvedDestination, ResolvedSource
from corridor.transfers.planning.sources import resolve_source
from corridor.transfers.rules import fees
from corridor.transfers.rules.flows import PAYOUT_LEGS, Flow, flow_of, plan_legs
from corridor.transfers.rules.pricing import Pricing, PricingProblem, price
from corridor.transfers.rules.states import LegStatus


@dataclass(frozen=True, slots=True)
class Plan:
    source: ResolvedSource
    destination: ResolvedDestination
    flow: Flow
    pricing: Pricing
    # The fee that applies (None: none named and no organization default).
    fee: fees.DeveloperFee | None


def fee_request(
    *,
    fields_set: set[str],
    developer_fee: Any,
    developer_fee_fixed: str | None,
    developer_fee_percent: float | int | None,
) -> dict[str, str] | None:
    """What the body says about the fee, as stored: None when it says nothing.

    `developerFee: null` means no fee at all; the legacy `developerFeeFixed` and
    `developerFeePercent` mirror the object and must agree with it when both are sent.
    """
    legacy_sent = bool({"developer_fee_fixed", "developer_fee_percent"} & fields_set)
    if "developer_fee" in fields_set:
        if developer_fee is None:
            stored = {"fixed": "0", "percent": "0"}
        else:
            stored = _stored_fee(developer_fee.fixed, developer_fee.percent, "developerFee")
        if legacy_sent:
            legacy = _stored_fee(
                developer_fee_fixed or "0", developer_fee_percent or 0, "developerFeeFixed"
            )
            if legacy != stored:
                raise ValidationFailed(
                    "developerFeeFixed", "must agree with developerFee (send one or the other)"
                )
        return stored
    if legacy_sent:
        return _stored_fee(
            developer_fee_fixed or "0", developer_fee_percent or 0, "developerFeeFixed"
        )
    return None


def _stored_fee(fixed: str, percent: float | int, field: str) -> dict[str, str]:
    try:
        fixed_minor = parse_minor_units(fixed)
    except MoneyError as error:
        raise ValidationFailed(
            f"{field}.fixed" if field == "developerFee" else field, str(error)
        ) from None
    exact = fees.percent_from_number(percent)
    problem = fees.percent_problem(exact)
    if problem is not None:
        name = f"{field}.percent" if field == "developerFee" else "developerFeePercent"
        raise ValidationFailed(name, problem)
    return {"fixed": str(fixed_minor), "percent": format(exact.normalize(), "f")}


def effective_fee(
    stored: dict[str, str] | None, configuration: Configuration
) -> fees.DeveloperFee | None:
    if stored is not None:
        fee = fees.DeveloperFee(
            fixed_minor=int(stored["fixed"]), percent=Decimal(stored["percent"])
        )
    elif configuration.default_developer_fee is not None:
        default = configuration.default_developer_fee
        fee = fees.DeveloperFee(
            fixed_minor=default.fixed_minor_units,
            percent=fees.percent_from_number(default.percent),
        )
    else:
        return None
    return None if fee.is_zero else fee


def plan_names(
    customer_id: str,
    source_request: dict[str, Any],
    destination_request: dict[str, Any],
    counterparty_id: str | None,
) -> repository.PlanNames:
    """The rows a plan of these requests reads (the Load's names)."""
    accounts = [source_request.get("accountId"), destination_request.get("accountId")]
    externals = [source_request.get("externalAccountId")]
    wallets: list[Any] = []
    destination_party = destination_request.get("externalAccountId")
    if isinstance(destination_party, str):
        (wallets if destination_party.startswith("ewa_") else externals).append(destination_party)
    refund = source_request.get("refundAccountId")
    if isinstance(refund, str):
        (wallets if refund.startswith("ewa_") else externals).append(refund)

    def ids(found: list[Any]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(item for item in found if isinstance(item, str) and item))

    return repository.PlanNames(
        customer_id=customer_id,
        balance_accounts=ids(accounts),
        external_accounts=ids(externals),
        wallets=ids(wallets),
        counterparty_id=counterparty_id if destination_request.get("toAddress") else None,
        destination_party=destination_party if isinstance(destination_party, str) else None,
    )


async def load(
    session: AsyncSession,
    caller: Caller,
    *,
    customer_id: str,
    source_request: dict[str, Any],
    destination_request: dict[str, Any],
    counterparty_id: str | None,
) -> repository.PlanRows:
    """The Load of a plan: every row it reads, in one statement."""
    names = plan_names(customer_id, source_request, destination_request, counterparty_id)
    return await repository.plan_rows(session, caller, names)


async def make_plan(
    session: AsyncSession,
    *,
    caller: Caller,
    customer: Customer,
    source_request: dict[str, Any],
    destination_request: dict[str, Any],
    amount_minor: int,
    amount_currency: str,
    counterparty_id: str | None,
    fee: fees.DeveloperFee | None,
    lock: fx.Lock | None = None,
) -> Plan:
    """Load what the requests name, then `plan_from` (quotes and fixed routes plan so)."""
    rows = await load(
        session,
        caller,
        customer_id=customer.id,
        source_request=source_request,
        destination_request=destination_request,
        counterparty_id=counterparty_id,
    )
    return plan_from(
        rows,
        caller=caller,
        customer=customer,
        source_request=source_request,
        destination_request=destination_request,
        amount_minor=amount_minor,
        amount_currency=amount_currency,
        counterparty_id=counterparty_id,
        fee=fee,
        lock=lock,
    )


def plan_from(
    rows: repository.PlanRows,
    *,
    caller: Caller,
    customer: Customer,
    source_request: dict[str, Any],
    destination_request: dict[str, Any],
    amount_minor: int,
    amount_currency: str,
    counterparty_id: str | None,
    fee: fees.DeveloperFee | None,
    lock: fx.Lock | None = None,
) -> Plan:
    """Resolve both ends on the loaded rows and price the legs (pure)."""
    check_positive(amount_minor)
    source = resolve_source(
        rows,
        caller=caller,
        customer=customer,
        request=source_request,
        amount_currency=amount_currency,
    )
    check_currency(amount_currency, source)
    destination = resolve_destination(
        rows,
        caller=caller,
        customer=customer,
        request=destination_request,
        counterparty_id=counterparty_id,
    )
    return plan_of(source, destination, amount_minor=amount_minor, fee=fee, lock=lock)


def check_positive(amount_minor: int) -> None:
    if amount_minor <= 0:
        raise ValidationFailed("amount.value", "must be greater than zero")


def check_currency(amount_currency: str, source: ResolvedSource) -> None:
    """The amount is in the source's currency."""
    if source.endpoint.currency != amount_currency:
        raise ValidationFailed(
            "amount.currency", f"must be the source currency, {source.endpoint.currency}"
        )


def plan_of(
    source: ResolvedSource,
    destination: ResolvedDestination,
    *,
    amount_minor: int,
    fee: fees.DeveloperFee | None,
    lock: fx.Lock | None,
) -> Plan:
    """The flow, the legs and their prices between two resolved ends."""
    flow = flow_of(source.endpoint, destination.endpoint)
    try:
        fee_minor = fees.checked_fee(amount_minor, fee) if fee is not None else 0
        legs = plan_legs(flow, source.endpoint, destination.endpoint, collects_fee=fee_minor > 0)
        pricing = price(legs, source_minor=amount_minor, fee_minor=fee_minor, lock=lock)
    except fees.FeeProblem as problem:
        raise ValidationFailed("developerFee", str(problem)) from None
    except PricingProblem as problem:
        raise ValidationFailed("amount", str(problem)) from None
    return Plan(source=source, destination=destination, flow=flow, pricing=pricing, fee=fee)


def apply_plan(
    transfer: Transfer,
    plan: Plan,
    *,
    now: datetime,
    make_leg: Callable[..., TransferLeg] = TransferLeg,
) -> list[TransferLeg]:
    """Write the plan onto the transfer; returns its new legs (all PENDING, of `make_leg`)."""
    pricing = plan.pricing
    transfer.flow = plan.flow.value
    transfer.source = plan.source.display
    transfer.destination = plan.destination.display
    transfer.source_account_id = plan.source.balance_account_id
    transfer.destination_account_id = plan.destination.balance_account_id
    transfer.source_currency = plan.source.endpoint.currency
    transfer.source_amount = pricing.source_minor
    transfer.destination_currency = plan.destination.endpoint.currency
    transfer.destination_amount = pricing.destination_minor
    transfer.counterparty_id = plan.destination.counterparty_id
    transfer.is_third_party = plan.destination.counterparty_id is not None
    transfer.developer_fee_fixed = plan.fee.fixed_minor if plan.fee else None
    transfer.developer_fee_percent = format(plan.fee.percent.normalize(), "f") if plan.fee else None
    transfer.developer_fee_amount = pricing.fee_minor if plan.fee else None
    transfer.exchange_rate = (
        fx.format_rate(pricing.exchange_rate) if pricing.exchange_rate is not None else None
    )
    transfer.reference_rate = (
        fx.format_rate(pricing.reference_rate) if pricing.reference_rate is not None else None
    )
    transfer.reference_rate_as_of = pricing.reference_rate_as_of
    transfer.reference_provider = pricing.reference_provider
    transfer.current_leg_index = 0
    _estimate_schedule(transfer, plan, now=now)
    transfer.updated_at = now
    return [
        make_leg(
            id=new_id("tleg"),
            organization_id=transfer.organization_id,
            transfer_id=transfer.id,
            sequence=sequence,
            type=leg.plan.type.value,
            status=LegStatus.PENDING.value,
            input_currency=leg.plan.input_currency,
            output_currency=leg.plan.output_currency,
            input_rail=leg.plan.input_rail,
            output_rail=leg.plan.output_rail,
            input_amount=leg.input_minor,
            output_amount=leg.output_minor,
            developer_fee_amount=leg.fee_minor if leg.fee_minor else None,
            rail_attempts=0,
            created_at=now,
            updated_at=now,
        )
        for sequence, leg in enumerate(pricing.legs)
    ]


def _estimate_schedule(transfer: Transfer, plan: Plan, *, now: datetime) -> None:
    """Best effort before the payout is sent: the payout rail's schedule if sent now."""
    payout = plan.pricing.legs[-1].plan
    if payout.type not in PAYOUT_LEGS or payout.output_rail is None:
        transfer.estimated_settlement_at = None
        transfer.next_cutoff_at = None
        transfer.cutoff_timezone = None
        return
    schedule = adapter_for(RailName(payout.output_rail)).schedule(at=now)
    transfer.estimated_settlement_at = schedule.estimated_settlement_at
    transfer.next_cutoff_at = schedule.next_cutoff_at
    transfer.cutoff_timezone = schedule.cutoff_timezone


ACTIVE = "ACTIVE"


async def active_customer(
    session: AsyncSession, caller: Caller, customer_id: str | None
) -> Customer:
    """The customer a transfer is for (the body's, or the one the caller is bound to);
    only ACTIVE customers move money."""
    wanted = wanted_customer(caller, customer_id)
    customer = await customers.get_customer(session, caller=caller, customer_id=wanted)
    check_active(customer)
    return customer


def loaded_customer(rows: repository.PlanRows, customer_id: str) -> Customer:
    """`active_customer` on the Load's row (`customer_id`: `wanted_customer`'s answer)."""
    customer = rows.customer
    if customer is None or customer.id != customer_id:
        raise NotFound(Customer.resource_name, customer_id)
    check_active(customer)
    return customer


def wanted_customer(caller: Caller, customer_id: str | None) -> str:
    """The id of the customer a transfer is for: the body's, or the caller's own."""
    wanted = customer_id or caller.customer_id
    if wanted is None:
        raise ValidationFailed("customerId", "required: the customer whose transfer this is")
    if caller.customer_id is not None and wanted != caller.customer_id:
        raise NotFound("customer", wanted)
    return wanted


def check_active(customer: Customer) -> None:
    if customer.status != ACTIVE:
        raise InvalidState(
            f"Customer {customer.id} is {customer.status}; only ACTIVE customers move money",
            current_status=customer.status,
        )


async def configuration_of(session: AsyncSession, organization_id: str) -> Configuration:
    organization = await repository.organization(session, organization_id)
    assert organization is not None
    return from_document(organization.configuration)


async def load_for(
    session: AsyncSession, caller: Caller, transfer: Transfer, counterparty_id: str | None
) -> repository.PlanRows:
    """The Load of a draft's plan, from what it stores."""
    return await load(
        session,
        caller,
        customer_id=transfer.customer_id,
        source_request=transfer.source_request,
        destination_request=transfer.destination_request,
        counterparty_id=counterparty_id,
    )


async def replan(
    session: AsyncSession,
    caller: Caller,
    customer: Customer,
    transfer: Transfer,
    counterparty_id: str | None,
    *,
    lock: fx.Lock | None,
    now: datetime,
) -> list[TransferLeg]:
    """Load, then `replan_from` (quotes replan so)."""
    rows = await load_for(session, caller, transfer, counterparty_id)
    return replan_from(rows, caller, customer, transfer, counterparty_id, lock=lock, now=now)


def replan_from(
    rows: repository.PlanRows,
    caller: Caller,
    customer: Customer,
    transfer: Transfer,
    counterparty_id: str | None,
    *,
    lock: fx.Lock | None,
    now: datetime,
) -> list[TransferLeg]:
    """Resolve, price and write the draft's plan from what it stores (at `lock`, the rate
    its quote locked, when it has one: plugins.RateLocks.lock_of) on the loaded rows;
    its new legs."""
    configuration = from_document(rows.organization.configuration)
    plan = plan_from(
        rows,
        caller=caller,
        customer=customer,
        source_request=transfer.source_request,
        destination_request=transfer.destination_request,
        amount_minor=transfer.source_amount,
        amount_currency=transfer.source_currency,
        counterparty_id=counterparty_id,
        fee=effective_fee(transfer.developer_fee_request, configuration),
        lock=lock,
    )
    return apply_plan(transfer, plan, now=now)
