"""Mandates' pure logic: budget periods (UTC; weeks start on Monday), which mandate
concerns a payment, and why a mandate does not admit it. No database, no web."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any


class MandateStatus(StrEnum):
    ACTIVE = "ACTIVE"
    EXHAUSTED = "EXHAUSTED"
    EXPIRED = "EXPIRED"
    REVOKED = "REVOKED"


class Recurrence(StrEnum):
    NONE = "NONE"
    DAILY = "DAILY"
    WEEKLY = "WEEKLY"
    MONTHLY = "MONTHLY"


class MandatePayeeType(StrEnum):
    COUNTERPARTY = "counterparty"
    EXTERNAL_ACCOUNT = "external_account"
    EXTERNAL_WALLET = "external_wallet"
    ADDRESS = "address"


class MandateDenialCode(StrEnum):
    REQUIRED = "mandate_required"
    PAYEE = "payee_not_in_mandate"
    BUDGET = "mandate_budget_exceeded"
    MAX_PER_PAYMENT = "mandate_max_per_payment_exceeded"
    USES = "mandate_uses_exhausted"
    EXPIRED = "mandate_expired"
    NOT_YET_VALID = "mandate_not_yet_valid"
    REVOKED = "mandate_revoked"


MANDATE_WINDOW = "mandate"


@dataclass(frozen=True, slots=True)
class MandateTerms:
    """What a decision needs of one mandate (a row's values, read once)."""

    id: str
    status: str
    payees: list[dict[str, Any]]
    max_per_payment: int
    budget_amount: int
    recurrence: str
    max_uses: int | None
    uses: int
    used: int
    period_start: datetime
    not_before: datetime
    not_after: datetime


@dataclass(frozen=True, slots=True)
class MandateDenial:
    code: MandateDenialCode
    mandate_id: str | None
    attempted_minor: int
    limit_minor: int | None = None
    used_minor: int | None = None
    resets_at: datetime | None = None


def period_start(recurrence: str, at: datetime, *, created: datetime) -> datetime:
    """The first instant of the budget period `at` falls in: for NONE, the mandate's own
    start (`created`, the period never resets)."""
    at = at.astimezone(UTC)
    day = at.replace(hour=0, minute=0, second=0, microsecond=0)
    if recurrence == Recurrence.DAILY:
        return day
    if recurrence == Recurrence.WEEKLY:
        return day - timedelta(days=day.weekday())
    if recurrence == Recurrence.MONTHLY:
        return day.replace(day=1)
    return created


def period_end(recurrence: str, start: datetime) -> datetime | None:
    """When the period that starts at `start` resets (None: never)."""
    if recurrence == Recurrence.DAILY:
        return start + timedelta(days=1)
    if recurrence == Recurrence.WEEKLY:
        return start + timedelta(days=7)
    if recurrence == Recurrence.MONTHLY:
        return (start.replace(day=28) + timedelta(days=4)).replace(day=1)
    return None


def used_now(terms: MandateTerms, now: datetime) -> tuple[int, datetime]:
    """What was used in the period of `now` and that period's start: nothing when the
    stored period ended (the next consumption resets it)."""
    current = period_start(terms.recurrence, now, created=terms.period_start)
    if terms.recurrence != Recurrence.NONE and current > terms.period_start:
        return 0, current
    return terms.used, terms.period_start


def exhausted_after(
    *, recurrence: str, budget: int, used: int, max_uses: int | None, uses: int
) -> bool:
    """Whether a mandate is used up for good: its uses all taken, or a budget that never
    resets (NONE) all spent. A recurring budget spent for the period is not exhausted: the
    next period admits payments again."""
    if max_uses is not None and uses >= max_uses:
        return True
    return recurrence == Recurrence.NONE and used >= budget


def status_now(status: str, not_after: datetime, now: datetime) -> str:
    """An ACTIVE mandate past `notAfter` reads EXPIRED (its row says so from the next
    consumption attempt)."""
    if status == MandateStatus.ACTIVE and now >= not_after:
        return MandateStatus.EXPIRED.value
    return status


def payee_keys(payees: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """A mandate's payees as (type, id-or-lowercased-address) pairs."""
    keys: set[tuple[str, str]] = set()
    for payee in payees:
        if payee["type"] == MandatePayeeType.ADDRESS:
            keys.add((payee["type"], str(payee["address"]).lower()))
        else:
            keys.add((payee["type"], payee["id"]))
    return keys


def windows_overlap(first: tuple[datetime, datetime], second: tuple[datetime, datetime]) -> bool:
    """Half-open [notBefore, notAfter) windows."""
    return first[0] < second[1] and second[0] < first[1]


def denial_of(terms: MandateTerms, *, amount: int, now: datetime) -> MandateDenial | None:
    """Why this mandate (whose payees include the payment's) does not admit `amount` at
    `now`, or None when it does."""

    def denied(code: MandateDenialCode, **values: Any) -> MandateDenial:
        return MandateDenial(code, terms.id, amount, **values)

    if terms.status == MandateStatus.REVOKED:
        return denied(MandateDenialCode.REVOKED)
    if status_now(terms.status, terms.not_after, now) == MandateStatus.EXPIRED:
        return denied(MandateDenialCode.EXPIRED)
    if now < terms.not_before:
        return denied(MandateDenialCode.NOT_YET_VALID)
    if amount > terms.max_per_payment:
        return denied(MandateDenialCode.MAX_PER_PAYMENT, limit_minor=terms.max_per_payment)
    if terms.max_uses is not None and terms.uses >= terms.max_uses:
        return denied(MandateDenialCode.USES, limit_minor=terms.max_uses, used_minor=terms.uses)
    used, start = used_now(terms, now)
    if used + amount > terms.budget_amount:
        return denied(
            MandateDenialCode.BUDGET,
            limit_minor=terms.budget_amount,
            used_minor=used,
            resets_at=period_end(terms.recurrence, start),
        )
    return None


_SPECIFICITY = {
    MandateDenialCode.BUDGET: 0,
    MandateDenialCode.MAX_PER_PAYMENT: 1,
    MandateDenialCode.USES: 2,
    MandateDenialCode.NOT_YET_VALID: 3,
    MandateDenialCode.EXPIRED: 4,
    MandateDenialCode.REVOKED: 5,
}


def choose(
    candidates: list[MandateTerms], payees: set[tuple[str, str]], *, amount: int, now: datetime
) -> tuple[MandateTerms | None, MandateDenial | None]:
    """The mandate that admits the payment (the first by id of those whose payees include
    one of `payees`), or the denial to answer: the most telling of the matching mandates'
    (a budget overrun before an expired one), `payee_not_in_mandate` when the agent has
    live mandates but none names the payee, `mandate_required` when it has none."""
    matching = [terms for terms in candidates if payee_keys(terms.payees) & payees]
    best: MandateDenial | None = None
    for terms in sorted(matching, key=lambda found: found.id):
        denial = denial_of(terms, amount=amount, now=now)
        if denial is None:
            return terms, None
        if best is None or _SPECIFICITY[denial.code] < _SPECIFICITY[best.code]:
            best = denial
    if best is not None:
        return None, best
    live = [
        terms
        for terms in candidates
        if status_now(terms.status, terms.not_after, now) == MandateStatus.ACTIVE
    ]
    code = MandateDenialCode.PAYEE if live else MandateDenialCode.REQUIRED
    return None, MandateDenial(code, None, amount)
