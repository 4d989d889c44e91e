"""Delivery rules (pure): statuses, the retry schedule, what an answer means, Retry-After.

API.md section 7: attempts at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h;
any 2xx is success; 410 Gone disables the endpoint; redirects are not followed (a 3xx is a
failure); an endpoint failing for 5 days is disabled.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import Any

from corridor.kit.clock import as_utc, isoformat_z


class DeliveryStatus(StrEnum):
    PENDING = "PENDING"
    SENDING = "SENDING"
    SUCCESS = "SUCCESS"
    FAIL = "FAIL"
    CANCELED = "CANCELED"


class AttemptStatus(StrEnum):
    SENDING = "SENDING"
    SUCCESS = "SUCCESS"
    FAIL = "FAIL"


class Trigger(StrEnum):
    SCHEDULED = "SCHEDULED"
    MANUAL = "MANUAL"


class DisabledReason(StrEnum):
    MANUAL = "MANUAL"
    GONE = "GONE"
    FAILING = "FAILING"


TERMINAL = frozenset({DeliveryStatus.SUCCESS, DeliveryStatus.FAIL, DeliveryStatus.CANCELED})
# Without an endpoint filter a message shows the most pressing of its deliveries' statuses.
_OVERALL_PRECEDENCE = (
    DeliveryStatus.SENDING,
    DeliveryStatus.PENDING,
    DeliveryStatus.FAIL,
    DeliveryStatus.SUCCESS,
    DeliveryStatus.CANCELED,
)

failing_disable_s = 5 * 24 * 60 * 60
# A Retry-After asking for more than this is capped to it.
retry_after_s_max = 24 * 60 * 60


def attempts_max(schedule_s: Sequence[float]) -> int:
    """The first attempt plus one per scheduled retry."""
    return len(schedule_s) + 1


def next_attempt_at(
    *,
    attempts_made: int,
    schedule_s: Sequence[float],
    scale: float,
    now: datetime,
    retry_after_s: float | None = None,
) -> datetime | None:
    """When to try again after `attempts_made` failed attempts, or None when they are used up.

    A Retry-After longer than the scheduled wait is honoured (up to a day)."""
    assert attempts_made >= 1
    if attempts_made >= attempts_max(schedule_s):
        return None
    wait_s = schedule_s[attempts_made - 1] * scale
    if retry_after_s is not None:
        wait_s = max(wait_s, min(retry_after_s, retry_after_s_max))
    return now + timedelta(seconds=wait_s)


class Outcome(StrEnum):
    SUCCESS = "SUCCESS"
    RETRY = "RETRY"
    GONE = "GONE"


def outcome_of(status_code: int | None) -> Outcome:
    """What an answer means; None is no answer at all (timeout, refused, network error)."""
    if status_code is not None and 200 <= status_code < 300:
        return Outcome.SUCCESS
    if status_code == 410:
        return Outcome.GONE
    return Outcome.RETRY


def parse_retry_after(value: str | None, *, now: datetime) -> float | None:
    """Seconds to wait from a Retry-After header (delay seconds or an HTTP date), or None."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(min(int(text[:12]), retry_after_s_max))
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment is None:
        return None
    return max(0.0, (as_utc(moment) - now).total_seconds())


def should_disable_for_failing(failing_since: datetime | None, now: datetime) -> bool:
    return failing_since is not None and now - failing_since >= timedelta(seconds=failing_disable_s)


def overall_status(statuses: Iterable[str], *, dispatched: bool) -> DeliveryStatus:
    """A message's status across its endpoints.

    Not yet fanned out: PENDING. Fanned out to no endpoint at all: CANCELED (nothing was or
    will be delivered). Otherwise the first present of SENDING, PENDING, FAIL, SUCCESS,
    CANCELED, so a message is SUCCESS only when no endpoint still waits or failed."""
    present = {DeliveryStatus(status) for status in statuses}
    if not present:
        return DeliveryStatus.PENDING if not dispatched else DeliveryStatus.CANCELED
    return next(status for status in _OVERALL_PRECEDENCE if status in present)


def endpoint_wants(event_types: Sequence[str], event_type: str) -> bool:
    """An endpoint with no event types subscribes to every type."""
    return not event_types or event_type in event_types


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """What one HTTP attempt came back with (or why it never got an answer)."""

    status_code: int | None
    response_body: str | None
    error: str | None
    duration_ms: int
    retry_after: str | None = None


def payload(event_type: str, created_at: datetime, data: Mapping[str, Any]) -> dict[str, Any]:
    """The body every endpoint receives (API.md section 7)."""
    return {"type": event_type, "timestamp": isoformat_z(created_at), "data": dict(data)}


def payload_bytes(event_type: str, created_at: datetime, data: Mapping[str, Any]) -> bytes:
    """The exact bytes sent and signed; the same for every attempt of a message."""
    document = payload(event_type, created_at, data)
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
