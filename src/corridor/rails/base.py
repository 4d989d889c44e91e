"""The rail interface the transfer engine talks to (docs/transfers-design.md, "rails").

Everything rail-specific stays inside `corridor.rails`: the engine builds a
`PaymentInstruction`, asks `registry.adapter_for(rail)` to `submit` it, keeps the `Submission`
(references and schedule) on the leg, and polls `status` until the leg settles.

Beneficiary keys are the contract's words: `name`, `account`, `iban`, `bic`, `routing`,
`address`, `memo`. Instruction references carry what the payer asked to send along
(`wireMessage`, `achReference`, `swiftReference`, …, never `internalRemarks`); a chain
payout that also pays a developer fee says so with `developerFee` (minor units, int),
and gets a second on-chain transfer with its own `feeTxHash`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Literal, Protocol, runtime_checkable

from corridor.kit.money import CURRENCIES, CurrencyKind


class RailName(StrEnum):
    ACH = "ACH"
    ACH_SAME_DAY = "ACH_SAME_DAY"
    WIRE = "WIRE"
    RTP = "RTP"
    SWIFT = "SWIFT"
    SEPA = "SEPA"
    SEPA_INSTANT = "SEPA_INSTANT"
    BOOK = "BOOK"
    ETHEREUM = "ETHEREUM"
    BASE = "BASE"
    POLYGON = "POLYGON"
    SOLANA = "SOLANA"
    TRON = "TRON"


CHAIN_RAILS: frozenset[RailName] = frozenset(
    {RailName.ETHEREUM, RailName.BASE, RailName.POLYGON, RailName.SOLANA, RailName.TRON}
)
# BOOK moves money between Corridor balances in any currency; it counts as fiat because it
# is no blockchain.
FIAT_RAILS: frozenset[RailName] = frozenset(RailName) - CHAIN_RAILS

Direction = Literal["CREDIT", "DEBIT"]
# The key of PaymentInstruction.references that asks a chain rail to pay a developer fee.
developer_fee_reference = "developerFee"


@dataclass(frozen=True)
class Schedule:
    estimated_settlement_at: datetime
    # None on rails that run all the time (RTP, SEPA_INSTANT, chains, BOOK).
    next_cutoff_at: datetime | None
    cutoff_timezone: str | None  # IANA name, e.g. "America/New_York"


@dataclass(frozen=True)
class PaymentInstruction:
    leg_id: str
    transfer_id: str
    rail: RailName
    currency: str
    amount_minor: int
    direction: Direction  # CREDIT: pay out; DEBIT: pull in (ACH debit)
    beneficiary: dict
    references: dict
    submitted_at: datetime


@dataclass(frozen=True)
class Submission:
    rail_reference: str  # the rail's own id for this payment
    # Any of uetr, imad, omad, achTraceNumber, txHash, feeTxHash, swiftRouting.
    references: dict
    schedule: Schedule


class RailStatus(StrEnum):
    PENDING = "PENDING"
    SETTLED = "SETTLED"
    FAILED = "FAILED"
    RETURNED = "RETURNED"


@runtime_checkable
class RailAdapter(Protocol):
    @property
    def name(self) -> RailName:
        """The rail this adapter serves."""
        ...

    currencies: frozenset[str]

    def schedule(self, *, at: datetime) -> Schedule:
        """Pure: cutoffs, weekends and holidays of the rail's market."""
        ...

    async def submit(self, instruction: PaymentInstruction, *, now: datetime) -> Submission: ...

    async def status(self, submission: Submission, *, now: datetime) -> RailStatus: ...


_FIAT_CODES = frozenset(code for code, c in CURRENCIES.items() if c.kind is CurrencyKind.FIAT)

RAIL_CURRENCIES: Mapping[RailName, frozenset[str]] = {
    RailName.ACH: frozenset({"USD"}),
    RailName.ACH_SAME_DAY: frozenset({"USD"}),
    RailName.WIRE: frozenset({"USD"}),
    RailName.RTP: frozenset({"USD"}),
    # Corridor's correspondent network pays every fiat currency it knows over SWIFT.
    RailName.SWIFT: _FIAT_CODES,
    RailName.SEPA: frozenset({"EUR"}),
    RailName.SEPA_INSTANT: frozenset({"EUR"}),
    RailName.BOOK: frozenset(CURRENCIES),
    RailName.ETHEREUM: frozenset({"USDC", "USDT", "EURC"}),
    RailName.BASE: frozenset({"USDC", "EURC"}),
    RailName.POLYGON: frozenset({"USDC", "USDT"}),
    RailName.SOLANA: frozenset({"USDC", "USDT", "EURC"}),
    RailName.TRON: frozenset({"USDT"}),
}


def currencies_for(rail: RailName) -> frozenset[str]:
    return RAIL_CURRENCIES[RailName(rail)]


def rails_for_currency(currency: str) -> tuple[RailName, ...]:
    """The rails that carry a currency, in RailName order; empty for an unknown currency."""
    return tuple(rail for rail in RailName if currency in RAIL_CURRENCIES[rail])
