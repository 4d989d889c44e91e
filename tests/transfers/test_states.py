"""The transfer state machine of spec 3.1 and API.md section 6."""

from __future__ import annotations

import pytest

from corridor.transfers.rules.states import (
    TERMINAL,
    TRANSITIONS,
    Decision,
    IllegalMove,
    TransferStatus,
    approved_status,
    cancelled_status,
    check_leg_move,
    check_move,
    current_leg_index,
    over_threshold,
    reviewed_status,
    submitted_status,
)

S = TransferStatus


def test_submit_goes_to_review_for_platform_sessions_then_authorization_then_pending():
    assert submitted_status(by_platform_session=True, over_threshold=True) == S.IN_REVIEW
    assert submitted_status(by_platform_session=False, over_threshold=True) == (
        S.PENDING_AUTHORIZATION
    )
    assert submitted_status(by_platform_session=False, over_threshold=False) == S.PENDING


def test_only_a_threshold_in_the_same_currency_and_strictly_exceeded_applies():
    common = {"currency": "USD", "threshold_currency": "USD", "threshold_minor": 1000}
    assert over_threshold(amount_minor=1001, **common)
    assert not over_threshold(amount_minor=1000, **common)
    assert not over_threshold(
        amount_minor=10**9, currency="EUR", threshold_minor=1000, threshold_currency="USD"
    )
    assert not over_threshold(
        amount_minor=10**9, currency="USD", threshold_minor=None, threshold_currency=None
    )


def test_terminal_states_never_move_except_a_completed_payout_being_returned():
    for status in TERMINAL:
        allowed = TRANSITIONS[status]
        assert allowed == ({S.REVERSED} if status == S.COMPLETED else frozenset())


def test_a_draft_is_the_only_state_submit_leaves_from():
    for status in S:
        if status == S.DRAFT:
            continue
        with pytest.raises(IllegalMove):
            check_move(status, S.PENDING_AUTHORIZATION)


@pytest.mark.parametrize("status", [S.DRAFT, S.PENDING_AUTHORIZATION, S.IN_REVIEW, S.PENDING])
def test_cancel_before_funds_arrive_cancels(status):
    assert cancelled_status(status, funds_received=False, refund_address_known=True) == (
        S.CANCELLED
    )


def test_cancel_in_review_after_crypto_arrived_depends_on_a_refund_address():
    assert cancelled_status(S.IN_REVIEW, funds_received=True, refund_address_known=True) == (
        S.REVERSED
    )
    assert cancelled_status(S.IN_REVIEW, funds_received=True, refund_address_known=False) == (
        S.CANCELLED
    )


@pytest.mark.parametrize("status", [S.PROCESSING, *sorted(TERMINAL)])
def test_cancel_is_refused_once_processing_or_ended(status):
    assert cancelled_status(status, funds_received=False, refund_address_known=False) is None


def test_review_and_authorization_outcomes():
    assert reviewed_status(Decision.APPROVE, funds_received=False) == S.PENDING
    assert reviewed_status(Decision.APPROVE, funds_received=True) == S.PROCESSING
    assert reviewed_status(Decision.REJECT, funds_received=True) == S.FAILED
    assert approved_status(funds_received=False) == S.PENDING
    assert approved_status(funds_received=True) == S.PROCESSING


def test_current_leg_is_the_first_not_completed_and_none_when_done():
    assert current_leg_index("PROCESSING", ["COMPLETED", "PENDING", "PENDING"]) == 1
    assert current_leg_index("PROCESSING", ["COMPLETED", "COMPLETED"]) is None
    assert current_leg_index("FAILED", ["COMPLETED", "FAILED"]) is None
    assert current_leg_index("DRAFT", ["PENDING"]) == 0


def test_legs_never_leave_a_final_status():
    for final in ("COMPLETED", "FAILED", "CANCELLED"):
        with pytest.raises(IllegalMove):
            check_leg_move(final, "PROCESSING")
    assert check_leg_move("PENDING", "PROCESSING") == "PROCESSING"
