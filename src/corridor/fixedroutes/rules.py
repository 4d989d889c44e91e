"""Pure rules of fixed routes: which sources each kind of route takes, which status moves
are allowed, and a stored route's flow."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from corridor.kit.money import CurrencyKind, MoneyError, currency
from corridor.transfers.rules.flows import (
    BOOK,
    DestinationKind,
    Endpoint,
    SourceKind,
    flow_of,
    is_chain,
)


class FixedRouteType(StrEnum):
    VIRTUAL_BANK_ACCOUNT = "VIRTUAL_BANK_ACCOUNT"
    VIRTUAL_WALLET = "VIRTUAL_WALLET"


class FixedRouteStatus(StrEnum):
    ACTIVE = "ACTIVE"
    PAUSED = "PAUSED"
    CLOSED = "CLOSED"


# The smallest amount a route is priced at when it is checked (in major units): enough for
# every conversion of the rate table to give a whole minor unit.
check_amount_major_units = 100

_DESTINATION_KINDS = {
    "BALANCE": DestinationKind.BALANCE,
    "EXTERNAL_BANK": DestinationKind.EXTERNAL_ACCOUNT,
    "EXTERNAL_WALLET": DestinationKind.WALLET,
}
# PAUSED ↔ ACTIVE as often as wanted; CLOSED is final.
_MOVES = {
    FixedRouteStatus.ACTIVE: {FixedRouteStatus.PAUSED, FixedRouteStatus.CLOSED},
    FixedRouteStatus.PAUSED: {FixedRouteStatus.ACTIVE, FixedRouteStatus.CLOSED},
    FixedRouteStatus.CLOSED: set(),
}


def default_type(rail: str) -> FixedRouteType:
    return FixedRouteType.VIRTUAL_WALLET if is_chain(rail) else FixedRouteType.VIRTUAL_BANK_ACCOUNT


def source_problem(route_type: FixedRouteType, code: str, rail: str) -> tuple[str, str] | None:
    """(field, message) when a route of this type cannot receive `code` by `rail`."""
    try:
        kind = currency(code).kind
    except MoneyError as error:
        return "source.currency", str(error)
    if route_type == FixedRouteType.VIRTUAL_WALLET:
        if not is_chain(rail):
            return "source.paymentRail", "a virtual wallet receives on a chain (ETHEREUM, BASE, …)"
        if kind is not CurrencyKind.STABLECOIN:
            return "source.currency", "a virtual wallet receives a stablecoin (USDC, USDT, EURC)"
        return None
    if is_chain(rail) or rail == BOOK:
        return "source.paymentRail", "a virtual bank account receives by a bank rail (WIRE, ACH, …)"
    if kind is not CurrencyKind.FIAT:
        return "source.currency", "a virtual bank account receives a fiat currency"
    return None


def check_amount(code: str) -> int:
    return check_amount_major_units * 10 ** currency(code).exponent


def status_move_allowed(current: FixedRouteStatus, target: FixedRouteStatus) -> bool:
    return target == current or target in _MOVES[current]


def flow_of_route(source_currency: str, source_rail: str, destination: dict[str, Any]) -> str:
    """The flow every transfer of the route has (derived as a transfer's is)."""
    kind = _DESTINATION_KINDS[destination.get("accountType", "EXTERNAL_BANK")]
    return flow_of(
        Endpoint(SourceKind.DEPOSIT, source_currency, source_rail),
        Endpoint(kind, destination["currency"], destination.get("paymentRail")),
    ).value
