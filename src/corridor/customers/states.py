"""The customer status machine and what each status lets a customer do (pure rules)."""

from __future__ import annotations

from collections import deque
from enum import StrEnum


class CustomerStatus(StrEnum):
    INCOMPLETE = "INCOMPLETE"
    UNDER_REVIEW = "UNDER_REVIEW"
    RFI_PENDING = "RFI_PENDING"
    ACTIVE = "ACTIVE"
    REJECTED = "REJECTED"
    SUSPENDED = "SUSPENDED"
    ARCHIVED = "ARCHIVED"


class SandboxStatus(StrEnum):
    """The statuses a sandbox decision may set; archiving has its own endpoint."""

    ACTIVE = "ACTIVE"
    REJECTED = "REJECTED"
    RFI_PENDING = "RFI_PENDING"
    SUSPENDED = "SUSPENDED"
    UNDER_REVIEW = "UNDER_REVIEW"


class CustomerType(StrEnum):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class Capability(StrEnum):
    FIAT_PAYOUTS = "fiat_payouts"
    FIAT_DEPOSITS = "fiat_deposits"
    CRYPTO_PAYOUTS = "crypto_payouts"
    CRYPTO_DEPOSITS = "crypto_deposits"


class CapabilityStatus(StrEnum):
    ACTIVE = "ACTIVE"
    PENDING = "PENDING"
    INACTIVE = "INACTIVE"


_S = CustomerStatus

# API.md section 5. Archiving is allowed from every status but ARCHIVED itself, which is final.
TRANSITIONS: dict[CustomerStatus, frozenset[CustomerStatus]] = {
    _S.INCOMPLETE: frozenset({_S.UNDER_REVIEW, _S.ARCHIVED}),
    _S.UNDER_REVIEW: frozenset({_S.ACTIVE, _S.REJECTED, _S.RFI_PENDING, _S.ARCHIVED}),
    _S.RFI_PENDING: frozenset({_S.UNDER_REVIEW, _S.ARCHIVED}),
    _S.ACTIVE: frozenset({_S.SUSPENDED, _S.ARCHIVED}),
    _S.SUSPENDED: frozenset({_S.ACTIVE, _S.ARCHIVED}),
    _S.REJECTED: frozenset({_S.ARCHIVED}),
    _S.ARCHIVED: frozenset(),
}

# Statuses a sandbox caller may ask for; INCOMPLETE is where customers start and
# ARCHIVED has its own endpoint.
SANDBOX_TARGETS = frozenset({_S.ACTIVE, _S.REJECTED, _S.RFI_PENDING, _S.SUSPENDED, _S.UNDER_REVIEW})

_PENDING_STATUSES = frozenset({_S.INCOMPLETE, _S.UNDER_REVIEW, _S.RFI_PENDING})


def is_allowed(current: CustomerStatus, target: CustomerStatus) -> bool:
    """Whether one move from `current` to `target` is a transition of the machine."""
    return target in TRANSITIONS[current]


def is_editable(status: CustomerStatus) -> bool:
    """An archived customer is kept for the record only."""
    return status is not _S.ARCHIVED


def path_to(current: CustomerStatus, target: CustomerStatus) -> list[CustomerStatus] | None:
    """The shortest walk of legal moves from `current` to `target`, without `current`.

    The sandbox stands in for a whole verification, so it may need several moves
    (INCOMPLETE to ACTIVE passes through UNDER_REVIEW). None when no walk exists, an
    empty list when the customer is already there. Walks never pass through ARCHIVED.
    """
    if current is target:
        return []
    previous: dict[CustomerStatus, CustomerStatus] = {}
    queue = deque([current])
    while queue:
        status = queue.popleft()
        for following in sorted(TRANSITIONS[status]):
            if following in previous or following is current:
                continue
            previous[following] = status
            if following is target:
                return _walk_back(previous, current, target)
            if following is not _S.ARCHIVED:
                queue.append(following)
    return None


def _walk_back(
    previous: dict[CustomerStatus, CustomerStatus],
    start: CustomerStatus,
    end: CustomerStatus,
) -> list[CustomerStatus]:
    walk = [end]
    while walk[-1] in previous and previous[walk[-1]] is not start:
        walk.append(previous[walk[-1]])
    return list(reversed(walk))


def capabilities(status: CustomerStatus) -> dict[Capability, CapabilityStatus]:
    """Only ACTIVE customers move money; those still being verified are PENDING."""
    if status is _S.ACTIVE:
        state = CapabilityStatus.ACTIVE
    elif status in _PENDING_STATUSES:
        state = CapabilityStatus.PENDING
    else:
        state = CapabilityStatus.INACTIVE
    return dict.fromkeys(Capability, state)
