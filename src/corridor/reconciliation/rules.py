"""Pure rules of matching a statement line to a payment."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

# A line is booked within this many days of the payment's settlement (a bank-file entry's
# `settles_at`) or arrival (a deposit's `received_at`): a bank books on the value date or
# the next business days, a long weekend included. Further away: DATE_OUT_OF_RANGE.
booking_days_max = 5


@dataclass(frozen=True)
class Candidate:
    """A payment a line may be: a bank-file entry, from the statement's side."""

    transfer_id: str
    direction: str  # the statement's: DEBIT for a payout, CREDIT for a pull or a return
    amount: int
    currency: str
    on: date | None = None  # when it settles; None: not checked (a return's side)


@dataclass(frozen=True)
class Arrival:
    """A deposit a credit line may be: money that arrived at a virtual account with the
    reference the customer quoted (several deposits may quote the same reference)."""

    deposit_id: str
    transfer_id: str | None  # the transfer it funded; None for an unmatched deposit
    amount: int
    currency: str
    on: date | None = None  # the day it arrived


@dataclass(frozen=True)
class Outcome:
    status: str  # MATCHED or EXCEPTION
    transfer_id: str | None
    # NO_REFERENCE, UNKNOWN_REFERENCE, AMOUNT_MISMATCH, DATE_OUT_OF_RANGE, DUPLICATE
    reason: str | None
    deposit_id: str | None = None


def minor_units(amount: str, exponent: int) -> int | None:
    """A statement's decimal amount in minor units; None when it has more decimals."""
    try:
        value = Decimal(amount).scaleb(exponent)
    except InvalidOperation:
        return None
    return int(value) if value == value.to_integral_value() and value >= 0 else None


def booked_day(booked_on: str | None) -> date | None:
    """A line's booking date; None when it has none (or one that is no date)."""
    try:
        return date.fromisoformat(booked_on) if booked_on else None
    except ValueError:
        return None


def within(booked: date | None, on: date | None) -> bool:
    """The booking date near enough to the payment's day; true when either is unknown."""
    return booked is None or on is None or abs((booked - on).days) <= booking_days_max


def match(
    *,
    reference: str | None,
    direction: str,
    amount: int | None,
    currency: str,
    candidates: dict[tuple[str, str], Candidate],
    matched: set[tuple[str, str]],
    arrivals: dict[str, list[Arrival]] | None = None,
    matched_deposits: set[str] | None = None,
    booked: date | None = None,
) -> Outcome:
    """By reference and side, then amount and currency, then the booking date (within
    `booking_days_max` of the payment's day); a second line for a payment already matched
    (in this statement or an earlier one) is a duplicate. A credit whose reference names
    no bank-file entry may be a deposit with that reference."""
    if reference is None:
        return Outcome("EXCEPTION", None, "NO_REFERENCE")
    key = (reference, direction)
    candidate = candidates.get(key)
    if candidate is None:
        deposits = (arrivals or {}).get(reference) if direction == "CREDIT" else None
        if deposits:
            return match_deposit(
                amount=amount,
                currency=currency,
                deposits=deposits,
                matched=matched_deposits if matched_deposits is not None else set(),
                booked=booked,
            )
        return Outcome("EXCEPTION", None, "UNKNOWN_REFERENCE")
    if amount != candidate.amount or currency != candidate.currency:
        return Outcome("EXCEPTION", candidate.transfer_id, "AMOUNT_MISMATCH")
    if not within(booked, candidate.on):
        return Outcome("EXCEPTION", candidate.transfer_id, "DATE_OUT_OF_RANGE")
    if key in matched:
        return Outcome("EXCEPTION", candidate.transfer_id, "DUPLICATE")
    matched.add(key)
    return Outcome("MATCHED", candidate.transfer_id, None)


def match_deposit(
    *,
    amount: int | None,
    currency: str,
    deposits: list[Arrival],
    matched: set[str],
    booked: date | None = None,
) -> Outcome:
    """A credit line to one of the deposits quoting its reference (in order of arrival):
    the first of the same amount and currency, arrived near the booking date, not matched
    yet. None of that amount: an amount mismatch; none near that date: a date out of
    range; all of them matched already: a duplicate (each naming the first such)."""
    same = [
        arrival for arrival in deposits if (arrival.amount, arrival.currency) == (amount, currency)
    ]
    if not same:
        first = deposits[0]
        return Outcome("EXCEPTION", first.transfer_id, "AMOUNT_MISMATCH", first.deposit_id)
    near = [arrival for arrival in same if within(booked, arrival.on)]
    if not near:
        first = same[0]
        return Outcome("EXCEPTION", first.transfer_id, "DATE_OUT_OF_RANGE", first.deposit_id)
    free = [arrival for arrival in near if arrival.deposit_id not in matched]
    if not free:
        return Outcome("EXCEPTION", near[0].transfer_id, "DUPLICATE", near[0].deposit_id)
    chosen = free[0]
    matched.add(chosen.deposit_id)
    return Outcome("MATCHED", chosen.transfer_id, None, chosen.deposit_id)
