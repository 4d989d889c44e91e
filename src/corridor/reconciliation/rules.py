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
class Outcome:
    status: str  # MATCHED or EXCEPTION
    transfer_id: str | None
    reason: str | None  # NO_REFERENCE, UNKNOWN_REFERENCE, AMOUNT_MISMATCH, DUPLICATE


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
) -> Outcome:
    """By reference and side, then amount and currency; a second line for a payment
    already matched (in this statement or an earlier one) is a duplicate."""
    if reference is None:
        return Outcome("EXCEPTION", None, "NO_REFERENCE")
    key = (reference, direction)
    candidate = candidates.get(key)
    if candidate is None:
        return Outcome("EXCEPTION", None, "UNKNOWN_REFERENCE")
    if amount != candidate.amount or currency != candidate.currency:
        return Outcome("EXCEPTION", candidate.transfer_id, "AMOUNT_MISMATCH")
    if key in matched:
        return Outcome("EXCEPTION", candidate.transfer_id, "DUPLICATE")
    matched.add(key)
    return Outcome("MATCHED", candidate.transfer_id, None)
