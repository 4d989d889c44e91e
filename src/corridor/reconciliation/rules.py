"""Pure rules of matching a statement line to a payment."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True)
class Candidate:
    """A payment a line may be: a bank-file entry, from the statement's side."""

    transfer_id: str
    direction: str  # the statement's: DEBIT for a payout, CREDIT for a pull or a return
    amount: int
    currency: str


@dataclass(frozen=True)
class Arrival:
    """A deposit a credit line may be: money that arrived at a virtual account with the
    reference the customer quoted (several deposits may quote the same reference)."""

    deposit_id: str
    transfer_id: str | None  # the transfer it funded; None for an unmatched deposit
    amount: int
    currency: str


@dataclass(frozen=True)
class Outcome:
    status: str  # MATCHED or EXCEPTION
    transfer_id: str | None
    reason: str | None  # NO_REFERENCE, UNKNOWN_REFERENCE, AMOUNT_MISMATCH, DUPLICATE
    deposit_id: str | None = None


def minor_units(amount: str, exponent: int) -> int | None:
    """A statement's decimal amount in minor units; None when it has more decimals."""
    try:
        value = Decimal(amount).scaleb(exponent)
    except InvalidOperation:
        return None
    return int(value) if value == value.to_integral_value() and value >= 0 else None


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
) -> Outcome:
    """By reference and side, then amount and currency; a second line for a payment
    already matched (in this statement or an earlier one) is a duplicate. A credit whose
    reference names no bank-file entry may be a deposit with that reference."""
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
            )
        return Outcome("EXCEPTION", None, "UNKNOWN_REFERENCE")
    if amount != candidate.amount or currency != candidate.currency:
        return Outcome("EXCEPTION", candidate.transfer_id, "AMOUNT_MISMATCH")
    if key in matched:
        return Outcome("EXCEPTION", candidate.transfer_id, "DUPLICATE")
    matched.add(key)
    return Outcome("MATCHED", candidate.transfer_id, None)


def match_deposit(
    *, amount: int | None, currency: str, deposits: list[Arrival], matched: set[str]
) -> Outcome:
    """A credit line to one of the deposits quoting its reference (in order of arrival):
    the first of the same amount and currency not matched yet. None of that amount: an
    amount mismatch (naming the first deposit); all of them matched already: a duplicate
    (naming the first)."""
    same = [
        arrival for arrival in deposits if (arrival.amount, arrival.currency) == (amount, currency)
    ]
    if not same:
        first = deposits[0]
        return Outcome("EXCEPTION", first.transfer_id, "AMOUNT_MISMATCH", first.deposit_id)
    free = [arrival for arrival in same if arrival.deposit_id not in matched]
    if not free:
        return Outcome("EXCEPTION", same[0].transfer_id, "DUPLICATE", same[0].deposit_id)
    chosen = free[0]
    matched.add(chosen.deposit_id)
    return Outcome("MATCHED", chosen.transfer_id, None, chosen.deposit_id)
