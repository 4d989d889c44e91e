"""The transfer and leg state machines (pure), spec 3.1 and API.md section 6.

| from                  | event                                               | to |
|-----------------------|-----------------------------------------------------|----|
| DRAFT                 | submit by a platform session                        | IN_REVIEW |
| DRAFT                 | submit over the organization's authorization threshold | PENDING_AUTHORIZATION |
| DRAFT                 | submit                                              | PENDING |
| PENDING_AUTHORIZATION | authorize APPROVE / REJECT                          | PENDING / CANCELLED |
| IN_REVIEW             | review APPROVE / REJECT                             | PENDING (PROCESSING once funds are in) / FAILED |
| PENDING               | funds received (deposit, fund, balance debited)     | PROCESSING |
| PROCESSING            | every leg COMPLETED / a leg FAILED                  | COMPLETED / FAILED |
| DRAFT … PENDING       | cancel, no funds received                           | CANCELLED |
| PENDING_AUTHORIZATION, IN_REVIEW | cancel, funds received                  | REVERSED when a refund address is known, else CANCELLED (the funds are credited to the customer's balance) |
| COMPLETED             | payout returned (returns.py)                        | REVERSED |

Legs: PENDING → PROCESSING (submitted to a rail) → COMPLETED or FAILED; legs that will
never run become CANCELLED.
"""

from __future__ import annotations

from enum import StrEnum


class TransferStatus(StrEnum):
    DRAFT = "DRAFT"
    PENDING_AUTHORIZATION = "PENDING_AUTHORIZATION"
    IN_REVIEW = "IN_REVIEW"
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    REVERSED = "REVERSED"


# Transfers in these states moved no money of an agent's, so they never count toward its
# spend (agents/spend.py; the counters of transfers/spending.py).
SPEND_UNCOUNTED = frozenset(
    {TransferStatus.DRAFT, TransferStatus.FAILED, TransferStatus.CANCELLED, TransferStatus.REVERSED}
)


class LegStatus(StrEnum):
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class Decision(StrEnum):
    APPROVE = "APPROVE"
    REJECT = "REJECT"


class AgentApprovalStatus(StrEnum):
    """Spec 3.2: an agent's over-limit submit parks its DRAFT (PENDING) until an owner
    approves (APPROVED, then submitted) or declines (DECLINED, then CANCELLED) it. While
    PENDING the draft is frozen: no edit, resubmit or cancel."""

    PENDING = "PENDING"
    APPROVED = "APPROVED"
    DECLINED = "DECLINED"


S = TransferStatus
TERMINAL = frozenset({S.COMPLETED, S.FAILED, S.CANCELLED, S.REVERSED})
# Waiting for a person (review, authorization) or for funds; nothing has left yet.
BEFORE_PROCESSING = frozenset({S.DRAFT, S.PENDING_AUTHORIZATION, S.IN_REVIEW, S.PENDING})
# States in which a deposit may still arrive for the transfer.
ACCEPTING_FUNDS = frozenset({S.PENDING_AUTHORIZATION, S.IN_REVIEW, S.PENDING})

TRANSITIONS: dict[TransferStatus, frozenset[TransferStatus]] = {
    S.DRAFT: frozenset({S.PENDING_AUTHORIZATION, S.IN_REVIEW, S.PENDING, S.CANCELLED}),
    S.PENDING_AUTHORIZATION: frozenset({S.PENDING, S.PROCESSING, S.CANCELLED, S.REVERSED}),
    S.IN_REVIEW: frozenset({S.PENDING, S.PROCESSING, S.FAILED, S.CANCELLED, S.REVERSED}),
    S.PENDING: frozenset({S.PROCESSING, S.FAILED, S.CANCELLED}),
    S.PROCESSING: frozenset({S.COMPLETED, S.FAILED}),
    S.COMPLETED: frozenset({S.REVERSED}),
    S.FAILED: frozenset(),
    S.CANCELLED: frozenset(),
    S.REVERSED: frozenset(),
}

LEG_TRANSITIONS: dict[LegStatus, frozenset[LegStatus]] = {
    LegStatus.PENDING: frozenset(
        {LegStatus.PROCESSING, LegStatus.COMPLETED, LegStatus.FAILED, LegStatus.CANCELLED}
    ),
    LegStatus.PROCESSING: frozenset({LegStatus.COMPLETED, LegStatus.FAILED}),
    LegStatus.COMPLETED: frozenset(),
    LegStatus.FAILED: frozenset(),
    LegStatus.CANCELLED: frozenset(),
}


class IllegalMove(Exception):
    """A move the state machine does not allow (the service answers 409 invalid_state)."""

    def __init__(self, current: str, target: str) -> None:
        super().__init__(f"a transfer cannot move from {current} to {target}")
        self.current = current
        self.target = target


def can_move(current: str, target: str) -> bool:
    return TransferStatus(target) in TRANSITIONS[TransferStatus(current)]


def check_move(current: str, target: str) -> TransferStatus:
    if not can_move(current, target):
        raise IllegalMove(current, target)
    return TransferStatus(target)


def check_leg_move(current: str, target: str) -> LegStatus:
    if LegStatus(target) not in LEG_TRANSITIONS[LegStatus(current)]:
        raise IllegalMove(current, target)
    return LegStatus(target)


def is_terminal(status: str) -> bool:
    return TransferStatus(status) in TERMINAL


def submitted_status(*, by_platform_session: bool, over_threshold: bool) -> TransferStatus:
    """Where a submitted DRAFT goes: review first, then authorization, else PENDING."""
    if by_platform_session:
        return S.IN_REVIEW
    if over_threshold:
        return S.PENDING_AUTHORIZATION
    return S.PENDING


def over_threshold(
    *, amount_minor: int, currency: str, threshold_minor: int | None, threshold_currency: str | None
) -> bool:
    """Only a threshold in the transfer's own source currency applies."""
    if threshold_minor is None or threshold_currency != currency:
        return False
    return amount_minor > threshold_minor


def cancelled_status(
    status: str, *, funds_received: bool, refund_address_known: bool
) -> TransferStatus | None:
    """What a cancellation makes of the transfer, or None when it may no longer be cancelled."""
    current = TransferStatus(status)
    if current not in BEFORE_PROCESSING:
        return None
    if not funds_received:
        return S.CANCELLED
    if current == S.PENDING:  # funds received move a PENDING transfer on at once
        return None
    return S.REVERSED if refund_address_known else S.CANCELLED


def reviewed_status(decision: Decision, *, funds_received: bool) -> TransferStatus:
    if decision == Decision.REJECT:
        return S.FAILED
    return S.PROCESSING if funds_received else S.PENDING


def approved_status(*, funds_received: bool) -> TransferStatus:
    """After an authorization APPROVE (a REJECT is a cancellation by the authorizer)."""
    return S.PROCESSING if funds_received else S.PENDING


def current_leg_index(status: str, leg_statuses: list[str]) -> int | None:
    """The first leg not COMPLETED; None once every leg is done or the transfer has ended."""
    if is_terminal(status):
        return None
    for index, leg_status in enumerate(leg_statuses):
        if leg_status != LegStatus.COMPLETED:
            return index
    return None


class ReturnOutcome(StrEnum):
    TO_BALANCE = "TO_BALANCE"
    REFUNDING = "REFUNDING"
    PARKED = "PARKED"


class RefundStatus(StrEnum):
    PENDING = "PENDING"  # the REFUND_* transfer exists, its leg not yet submitted
    PROCESSING = "PROCESSING"  # submitted to the rail
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"  # the money went to the customer's balance (or was parked)
