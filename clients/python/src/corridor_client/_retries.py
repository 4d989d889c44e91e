"""When to send a request again, and after how long (pure: both clients share it).

Retried: a connection that could not be made (nothing was sent), and, for a request that
is safe to repeat (an idempotent method, or a POST with an Idempotency-Key), a connection
lost mid-request, 409 `idempotency_key_in_progress`, 429 and 503. Waits honour
`Retry-After`, otherwise grow exponentially with jitter, and are bounded in number and in
total.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import httpx

from corridor_client._calls import Call
from corridor_client._headers import retry_after_s

_RETRIED_STATUSES = frozenset({429, 503})
_RETRIED_CONFLICT_CODES = frozenset({"idempotency_key_in_progress"})
# Failures before any byte of the request left: sending again cannot repeat anything.
_NOTHING_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# Failures after the request may have reached the server.
_MAYBE_SENT = (
    httpx.ReadError,
    httpx.WriteError,
    httpx.ReadTimeout,
    httpx.WriteTimeout,
    httpx.RemoteProtocolError,
)


@dataclass(frozen=True)
class RetryPolicy:
    """How persistent a client is. `RetryPolicy(attempts_max=1)` never retries."""

    # Attempts per request, the first one included.
    attempts_max: int = 4
    # The most time spent waiting between the attempts of one request, in total; a
    # Retry-After that would go past it ends the retries at once.
    wait_total_max_s: float = 60.0
    # Backoff when the server does not say how long to wait: the first wait, doubling
    # per retry up to backoff_max_s, each with up to half of it taken off at random.
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0

    def __post_init__(self) -> None:
        if self.attempts_max < 1:
            raise ValueError("attempts_max must be at least 1")
        if self.wait_total_max_s < 0 or self.backoff_initial_s < 0 or self.backoff_max_s < 0:
            raise ValueError("waits cannot be negative")


class Retries:
    """The retry state of one request: how many attempts so far, how long waited."""

    def __init__(
        self, policy: RetryPolicy, *, random_fraction: Callable[[], float] = random.random
    ) -> None:
        self.policy = policy
        self.attempts = 1
        self.waited_s = 0.0
        self._random_fraction = random_fraction

    def wait_after_error(self, call: Call, error: httpx.TransportError) -> float | None:
        """Seconds to wait before sending again after a transport failure, or None to give up."""
        if isinstance(error, _NOTHING_SENT) or (isinstance(error, _MAYBE_SENT) and call.replayable):
            return self._take(None)
        return None

    def wait_after_answer(
        self, call: Call, status: int, headers: Mapping[str, str], code: str | None
    ) -> float | None:
        """Seconds to wait before sending again after an error answer, or None to give up."""
        retried = status in _RETRIED_STATUSES or (status == 409 and code in _RETRIED_CONFLICT_CODES)
        if not retried or not call.replayable:
            return None
        return self._take(retry_after_s(headers.get("retry-after")))

    def _take(self, asked_s: float | None) -> float | None:
        if self.attempts >= self.policy.attempts_max:
            return None
        wait_s = asked_s if asked_s is not None else self._backoff_s()
        if self.waited_s + wait_s > self.policy.wait_total_max_s:
            return None
        self.attempts += 1
        self.waited_s += wait_s
        return wait_s

    def _backoff_s(self) -> float:
        full_s = min(
            self.policy.backoff_max_s, self.policy.backoff_initial_s * 2 ** (self.attempts - 1)
        )
        return full_s * (1 - self._random_fraction() / 2)
