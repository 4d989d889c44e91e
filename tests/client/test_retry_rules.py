"""The retry rules on their own: Retry-After in both forms, backoff bounds, the budget."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from corridor_client import RetryPolicy
from corridor_client._calls import Call
from corridor_client._headers import retry_after_s
from corridor_client._retries import Retries

NOW = datetime(2026, 11, 24, 12, 0, 0, tzinfo=UTC)
KEYED_CREATE = Call("POST", "/v1/transfers", idempotency_key="k")


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("3", 3.0),
        (" 1.5 ", 1.5),
        ("-4", 0.0),
        ("Tue, 24 Nov 2026 12:00:30 GMT", 30.0),
        ("Tue, 24 Nov 2026 11:59:00 GMT", 0.0),
        ("inf", None),
        ("soon", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_or_an_http_date(header, seconds):
    assert retry_after_s(header, now=NOW) == seconds


def test_backoff_doubles_up_to_its_ceiling_less_up_to_half_at_random():
    policy = RetryPolicy(
        attempts_max=10, wait_total_max_s=1000, backoff_initial_s=1, backoff_max_s=4
    )
    most = Retries(policy, random_fraction=lambda: 0.0)
    least = Retries(policy, random_fraction=lambda: 1.0)
    dropped = httpx.ConnectError("refused")

    assert [most.wait_after_error(KEYED_CREATE, dropped) for _ in range(4)] == [1, 2, 4, 4]
    assert [least.wait_after_error(KEYED_CREATE, dropped) for _ in range(4)] == [0.5, 1, 2, 2]


def test_the_wait_budget_and_attempts_max_end_the_retries():
    retries = Retries(RetryPolicy(attempts_max=3, wait_total_max_s=5))
    asked = {"retry-after": "2"}

    assert retries.wait_after_answer(KEYED_CREATE, 503, asked, None) == 2
    assert retries.wait_after_answer(KEYED_CREATE, 503, asked, None) == 2
    assert retries.wait_after_answer(KEYED_CREATE, 503, asked, None) is None  # 3 attempts made
    over_budget = Retries(RetryPolicy(wait_total_max_s=5))
    assert over_budget.wait_after_answer(KEYED_CREATE, 429, {"retry-after": "6"}, None) is None


def test_only_requests_safe_to_repeat_are_retried_after_they_may_have_arrived():
    unkeyed_action = Call("POST", "/v1/transfers/tfr_1/submit")
    read = Call("GET", "/v1/transfers")
    lost = httpx.ReadError("reset")

    assert Retries(RetryPolicy()).wait_after_error(unkeyed_action, lost) is None
    assert Retries(RetryPolicy()).wait_after_error(read, lost) is not None
    assert Retries(RetryPolicy()).wait_after_answer(unkeyed_action, 503, {}, None) is None
    assert Retries(RetryPolicy()).wait_after_answer(read, 500, {}, None) is None
    assert Retries(RetryPolicy()).wait_after_answer(read, 409, {}, "invalid_state") is None


def test_a_policy_that_cannot_work_is_refused():
    with pytest.raises(ValueError):
        RetryPolicy(attempts_max=0)
