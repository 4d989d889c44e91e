"""Which ledger accounts each leg moves money between (pure; docs/transfers-design.md).

    funding      customer balance → CLEARING   (DEBIT_BALANCE, or a pending transfer funded
                                                from a balance)
                 RAIL_SETTLEMENT → CLEARING    (a deposit arrived, or a pull settled)
    COLLECT_FEE  CLEARING → FEES
    CONVERT      CLEARING(in) → FX(in), FX(out) → CLEARING(out)   one entry, four lines
    BRIDGE       nothing: balances are kept per currency, not per chain
    CREDIT_BALANCE   CLEARING → destination balance
    payouts      CLEARING → RAIL_SETTLEMENT    when the rail settles (FEE_CRYPTO: FEES →
                                                RAIL_SETTLEMENT)
    REFUND       CLEARING → RAIL_SETTLEMENT    when a REFUND_* transfer's rail settles
    return       RAIL_SETTLEMENT → customer balance   a settled payout came back (`returned`)
    pull return  customer balance → RAIL_SETTLEMENT   a settled pull was returned by the
                 (SUSPENSE → RAIL_SETTLEMENT for       payer's bank (`pull_returned`)
                 what the balance no longer has)

A failed or stopped transfer unwinds the legs it completed, newest first, with the same
amounts in the other direction (`unwind`).
"""

from __future__ import annotations

from dataclasses import dataclass

from corridor.transfers.rules.flows import LegType

CLEARING = "CLEARING"
RAIL_SETTLEMENT = "RAIL_SETTLEMENT"
FX = "FX"
FEES = "FEES"
# Deposits no transfer was waiting for, until someone routes them.
SUSPENSE = "SUSPENSE"
SYSTEM_KINDS = frozenset({CLEARING, RAIL_SETTLEMENT, FX, FEES, SUSPENSE})
# A customer's balance account, named by its id.
BALANCE = "BALANCE"

# Journal entry kinds (a balance transaction's `type`).
ENTRY_FUNDING = "TRANSFER_FUNDING"
ENTRY_FEE = "DEVELOPER_FEE"
ENTRY_CONVERSION = "FX_CONVERSION"
ENTRY_CREDIT = "TRANSFER_CREDIT"
ENTRY_PAYOUT = "TRANSFER_PAYOUT"
ENTRY_REVERSAL = "TRANSFER_REVERSAL"
ENTRY_DEPOSIT = "DEPOSIT"
ENTRY_REFUND = "TRANSFER_REFUND"
ENTRY_RETURN = "TRANSFER_RETURN"


@dataclass(frozen=True, slots=True)
class Ref:
    """An account by role: a system account (kind, currency) or a balance (BALANCE, id)."""

    kind: str
    key: str  # the currency of a system account, the id of a balance account

    @staticmethod
    def system(kind: str, currency: str) -> Ref:
        assert kind in SYSTEM_KINDS, kind
        return Ref(kind, currency)

    @staticmethod
    def balance(account_id: str) -> Ref:
        return Ref(BALANCE, account_id)


@dataclass(frozen=True, slots=True)
class Movement:
    debit: Ref
    credit: Ref
    amount: int
    currency: str

    def reversed(self) -> Movement:
        return Movement(self.credit, self.debit, self.amount, self.currency)


@dataclass(frozen=True, slots=True)
class LegMoney:
    """What a leg carries, as the ledger needs it."""

    type: LegType
    input_currency: str
    output_currency: str
    input_minor: int
    output_minor: int
    fee_minor: int


def funding(*, amount: int, currency: str, from_balance_id: str | None) -> tuple[Movement, ...]:
    """Money coming in: from a customer balance, or from outside (RAIL_SETTLEMENT)."""
    source = (
        Ref.balance(from_balance_id)
        if from_balance_id is not None
        else Ref.system(RAIL_SETTLEMENT, currency)
    )
    return (Movement(source, Ref.system(CLEARING, currency), amount, currency),)


def completion(
    leg: LegMoney, *, destination_balance_id: str | None, pays_fees: bool = False
) -> tuple[Movement, ...]:
    """The movements of a leg that is not a funding leg, once it completes."""
    if leg.type == LegType.COLLECT_FEE:
        code = leg.input_currency
        return (Movement(Ref.system(CLEARING, code), Ref.system(FEES, code), leg.fee_minor, code),)
    if leg.type == LegType.CONVERT:
        return (
            Movement(
                Ref.system(CLEARING, leg.input_currency),
                Ref.system(FX, leg.input_currency),
                leg.input_minor,
                leg.input_currency,
            ),
            Movement(
                Ref.system(FX, leg.output_currency),
                Ref.system(CLEARING, leg.output_currency),
                leg.output_minor,
                leg.output_currency,
            ),
        )
    code = leg.output_currency
    if leg.type == LegType.CREDIT_BALANCE:
        assert destination_balance_id is not None
        target = Ref.balance(destination_balance_id)
        return (Movement(Ref.system(CLEARING, code), target, leg.output_minor, code),)
    if leg.type in (LegType.PAYOUT_FIAT, LegType.WITHDRAW_CRYPTO, LegType.REFUND):
        origin = Ref.system(FEES if pays_fees else CLEARING, code)
        return (Movement(origin, Ref.system(RAIL_SETTLEMENT, code), leg.output_minor, code),)
    assert leg.type == LegType.BRIDGE, leg.type
    return ()


def unwind(
    completed: list[LegMoney], *, destination_balance_id: str | None
) -> tuple[Movement, ...]:
    """Undo the completed legs after the funding leg, newest first: fees come back and
    conversions are reversed at their booked amounts, so CLEARING holds the source amount
    again in the source currency (funding is returned separately)."""
    movements: list[Movement] = []
    for leg in reversed(completed):
        if leg.type in (LegType.DEPOSIT_FIAT, LegType.DEPOSIT_CRYPTO, LegType.DEBIT_BALANCE):
            continue
        done = completion(leg, destination_balance_id=destination_balance_id)
        movements.extend(movement.reversed() for movement in reversed(done))
    return tuple(movements)


def returned(*, amount: int, currency: str, to_balance_id: str) -> tuple[Movement, ...]:
    """A settled payout sent back by the receiving side: the outside world pays it into a
    customer balance, in the currency it came back in."""
    target = Ref.balance(to_balance_id)
    return (Movement(Ref.system(RAIL_SETTLEMENT, currency), target, amount, currency),)


def pull_returned(
    *, taken: int, owed: int, currency: str, from_balance_id: str | None
) -> tuple[Movement, ...]:
    """A settled pull the payer's bank sent back (an ACH debit returned): the money never
    arrived, so it goes back out of the customer balance that received it (`taken`); what
    that balance no longer has is owed by the customer, carried in SUSPENSE (`owed`)."""
    bank = Ref.system(RAIL_SETTLEMENT, currency)
    movements = []
    if taken and from_balance_id is not None:
        movements.append(Movement(Ref.balance(from_balance_id), bank, taken, currency))
    if owed:
        movements.append(Movement(Ref.system(SUSPENSE, currency), bank, owed, currency))
    return tuple(movements)
