"""Flows and legs (pure): which flow a transfer is, and the ordered legs that carry it out.

The flow is derived from the source and the destination, never sent by the client:

| source → destination                                   | flow                    |
|--------------------------------------------------------|-------------------------|
| balance → balance, same currency                        | INTERNAL (BOOK rail)    |
| fiat → fiat of another currency, into a balance         | FX                      |
| stablecoin → stablecoin (any chains)                    | CRYPTO_TO_CRYPTO        |
| stablecoin → fiat                                       | CRYPTO_TO_FIAT          |
| fiat → stablecoin                                       | FIAT_TO_CRYPTO          |
| fiat → fiat, same currency                              | FIAT_TO_FIAT            |
| fiat → fiat of another currency, to an external account | FIAT_TO_CRYPTO_TO_FIAT (through USDC) |

FEE_CRYPTO, REFUND_CRYPTO and REFUND_FIAT are made by the system, never derived here.

Legs, in order: how the money comes in (DEBIT_BALANCE from a balance, DEPOSIT_FIAT or
DEPOSIT_CRYPTO from outside), COLLECT_FEE when a developer fee applies, the conversions
(CONVERT; BRIDGE between chains), and how it goes out (CREDIT_BALANCE, PAYOUT_FIAT,
WITHDRAW_CRYPTO).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from corridor.kit.money import CurrencyKind, currency
from corridor.rails.base import CHAIN_RAILS, RailName

# Stablecoins and the fiat currency each is pegged to one for one.
# FIAT_TO_CRYPTO_TO_FIAT routes through this stablecoin.
ROUTING_STABLECOIN = "USDC"
BOOK = RailName.BOOK.value


class Flow(StrEnum):
    CRYPTO_TO_CRYPTO = "CRYPTO_TO_CRYPTO"
    CRYPTO_TO_FIAT = "CRYPTO_TO_FIAT"
    FIAT_TO_CRYPTO = "FIAT_TO_CRYPTO"
    FIAT_TO_FIAT = "FIAT_TO_FIAT"
    FIAT_TO_CRYPTO_TO_FIAT = "FIAT_TO_CRYPTO_TO_FIAT"
    FX = "FX"
    INTERNAL = "INTERNAL"
    FEE_CRYPTO = "FEE_CRYPTO"
    REFUND_CRYPTO = "REFUND_CRYPTO"
    REFUND_FIAT = "REFUND_FIAT"


SYSTEM_FLOWS = frozenset({Flow.FEE_CRYPTO, Flow.REFUND_CRYPTO, Flow.REFUND_FIAT})


class LegType(StrEnum):
    DEPOSIT_FIAT = "DEPOSIT_FIAT"
    DEPOSIT_CRYPTO = "DEPOSIT_CRYPTO"
    DEBIT_BALANCE = "DEBIT_BALANCE"
    CONVERT = "CONVERT"
    BRIDGE = "BRIDGE"
    PAYOUT_FIAT = "PAYOUT_FIAT"
    WITHDRAW_CRYPTO = "WITHDRAW_CRYPTO"
    CREDIT_BALANCE = "CREDIT_BALANCE"
    COLLECT_FEE = "COLLECT_FEE"
    REFUND = "REFUND"


FUNDING_LEGS = frozenset({LegType.DEPOSIT_FIAT, LegType.DEPOSIT_CRYPTO, LegType.DEBIT_BALANCE})
PAYOUT_LEGS = frozenset({LegType.PAYOUT_FIAT, LegType.WITHDRAW_CRYPTO})


class SourceKind(StrEnum):
    BALANCE = "BALANCE"  # a balance account (acc_)
    EXTERNAL_ACCOUNT = "EXTERNAL_ACCOUNT"  # pulled from an external bank account (ext_)
    DEPOSIT = "DEPOSIT"  # the customer sends it in (deposit instructions)


class DestinationKind(StrEnum):
    BALANCE = "BALANCE"
    EXTERNAL_ACCOUNT = "EXTERNAL_ACCOUNT"  # a bank account outside Corridor
    WALLET = "WALLET"  # an external wallet, or any address on a chain


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One side of a transfer, as far as flows care: what it is, its currency, its rail."""

    kind: str
    currency: str
    rail: str | None = None


@dataclass(frozen=True, slots=True)
class PlannedLeg:
    type: LegType
    input_currency: str
    output_currency: str
    input_rail: str | None
    output_rail: str | None


def is_stablecoin(code: str) -> bool:
    return currency(code).kind is CurrencyKind.STABLECOIN


def is_chain(rail: str | None) -> bool:
    return rail is not None and rail in CHAIN_RAILS


def flow_of(source: Endpoint, destination: Endpoint) -> Flow:
    both_balances = (
        source.kind == SourceKind.BALANCE and destination.kind == DestinationKind.BALANCE
    )
    same_currency = source.currency == destination.currency
    if both_balances and same_currency:
        return Flow.INTERNAL
    source_crypto, destination_crypto = (
        is_stablecoin(source.currency),
        is_stablecoin(destination.currency),
    )
    if source_crypto and destination_crypto:
        return Flow.CRYPTO_TO_CRYPTO
    if source_crypto:
        return Flow.CRYPTO_TO_FIAT
    if destination_crypto:
        return Flow.FIAT_TO_CRYPTO
    if same_currency:
        return Flow.FIAT_TO_FIAT
    if destination.kind == DestinationKind.BALANCE:
        return Flow.FX
    return Flow.FIAT_TO_CRYPTO_TO_FIAT


def plan_legs(
    flow: Flow, source: Endpoint, destination: Endpoint, *, collects_fee: bool
) -> tuple[PlannedLeg, ...]:
    """The ordered legs of a client-made flow (not the system's FEE_CRYPTO and refunds)."""
    assert flow not in SYSTEM_FLOWS, "system flows have their own legs"
    legs = [_funding_leg(source)]
    if collects_fee:
        legs.append(_book_leg(LegType.COLLECT_FEE, source.currency, source.currency))
    legs.extend(_conversion_legs(flow, source, destination))
    legs.append(_payout_leg(destination))
    return tuple(legs)


def fee_payout_legs(currency_code: str, chain: str) -> tuple[PlannedLeg, ...]:
    """FEE_CRYPTO: one on-chain payout of collected developer fees."""
    return (PlannedLeg(LegType.WITHDRAW_CRYPTO, currency_code, currency_code, BOOK, chain),)


def _book_leg(leg_type: LegType, input_currency: str, output_currency: str) -> PlannedLeg:
    return PlannedLeg(leg_type, input_currency, output_currency, BOOK, BOOK)


def _funding_leg(source: Endpoint) -> PlannedLeg:
    if source.kind == SourceKind.BALANCE:
        return _book_leg(LegType.DEBIT_BALANCE, source.currency, source.currency)
    leg_type = LegType.DEPOSIT_CRYPTO if is_chain(source.rail) else LegType.DEPOSIT_FIAT
    return PlannedLeg(leg_type, source.currency, source.currency, source.rail, BOOK)


def _payout_leg(destination: Endpoint) -> PlannedLeg:
    code = destination.currency
    if destination.kind == DestinationKind.BALANCE:
        return _book_leg(LegType.CREDIT_BALANCE, code, code)
    if destination.kind == DestinationKind.WALLET:
        return PlannedLeg(LegType.WITHDRAW_CRYPTO, code, code, BOOK, destination.rail)
    return PlannedLeg(LegType.PAYOUT_FIAT, code, code, BOOK, destination.rail)


def _conversion_legs(flow: Flow, source: Endpoint, destination: Endpoint) -> list[PlannedLeg]:
    legs: list[PlannedLeg] = []
    if flow == Flow.FIAT_TO_CRYPTO_TO_FIAT:
        legs.append(_book_leg(LegType.CONVERT, source.currency, ROUTING_STABLECOIN))
        legs.append(_book_leg(LegType.CONVERT, ROUTING_STABLECOIN, destination.currency))
        return legs
    if source.currency != destination.currency:
        legs.append(_book_leg(LegType.CONVERT, source.currency, destination.currency))
    if (
        flow == Flow.CRYPTO_TO_CRYPTO
        and is_chain(source.rail)
        and is_chain(destination.rail)
        and source.rail != destination.rail
    ):
        code = destination.currency
        legs.append(PlannedLeg(LegType.BRIDGE, code, code, source.rail, destination.rail))
    return legs


def converts(flow: Flow, source_currency: str, destination_currency: str) -> bool:
    """Whether the transfer changes currency (and so carries an exchange rate)."""
    return source_currency != destination_currency or flow == Flow.FX
