"""The customer status machine, as pure rules."""

from __future__ import annotations

from itertools import pairwise

import pytest

from corridor.customers.states import (
    SANDBOX_TARGETS,
    TRANSITIONS,
    CapabilityStatus,
    CustomerStatus,
    SandboxStatus,
    capabilities,
    is_allowed,
    is_editable,
    path_to,
)

S = CustomerStatus

ALLOWED = {
    (S.INCOMPLETE, S.UNDER_REVIEW),
    (S.UNDER_REVIEW, S.ACTIVE),
    (S.UNDER_REVIEW, S.REJECTED),
    (S.UNDER_REVIEW, S.RFI_PENDING),
    (S.RFI_PENDING, S.UNDER_REVIEW),
    (S.ACTIVE, S.SUSPENDED),
    (S.SUSPENDED, S.ACTIVE),
    *((status, S.ARCHIVED) for status in S if status is not S.ARCHIVED),
}


@pytest.mark.parametrize("current", list(S))
@pytest.mark.parametrize("target", list(S))
def test_exactly_the_moves_of_api_md_are_allowed(current, target):
    assert is_allowed(current, target) == ((current, target) in ALLOWED)


def test_every_status_has_a_row_in_the_machine():
    assert set(TRANSITIONS) == set(S)


def test_archived_is_final_and_not_editable():
    assert TRANSITIONS[S.ARCHIVED] == frozenset()
    assert not is_editable(S.ARCHIVED)
    assert all(is_editable(status) for status in S if status is not S.ARCHIVED)


@pytest.mark.parametrize(
    ("current", "target", "walk"),
    [
        (S.INCOMPLETE, S.ACTIVE, [S.UNDER_REVIEW, S.ACTIVE]),
        (S.INCOMPLETE, S.RFI_PENDING, [S.UNDER_REVIEW, S.RFI_PENDING]),
        (S.INCOMPLETE, S.SUSPENDED, [S.UNDER_REVIEW, S.ACTIVE, S.SUSPENDED]),
        (S.RFI_PENDING, S.ACTIVE, [S.UNDER_REVIEW, S.ACTIVE]),
        (S.UNDER_REVIEW, S.REJECTED, [S.REJECTED]),
        (S.SUSPENDED, S.ACTIVE, [S.ACTIVE]),
        (S.ACTIVE, S.ACTIVE, []),
    ],
)
def test_path_to_walks_the_shortest_legal_moves(current, target, walk):
    assert path_to(current, target) == walk
    steps = [current, *walk]
    assert all(is_allowed(a, b) for a, b in pairwise(steps))


@pytest.mark.parametrize(
    ("current", "target"),
    [
        (S.REJECTED, S.ACTIVE),
        (S.ARCHIVED, S.ACTIVE),
        (S.ACTIVE, S.UNDER_REVIEW),
        (S.SUSPENDED, S.RFI_PENDING),
        (S.ACTIVE, S.INCOMPLETE),
    ],
)
def test_path_to_is_none_when_no_legal_walk_exists(current, target):
    assert path_to(current, target) is None


def test_only_active_customers_have_active_capabilities():
    assert set(capabilities(S.ACTIVE).values()) == {CapabilityStatus.ACTIVE}
    for status in (S.INCOMPLETE, S.UNDER_REVIEW, S.RFI_PENDING):
        assert set(capabilities(status).values()) == {CapabilityStatus.PENDING}
    for status in (S.REJECTED, S.SUSPENDED, S.ARCHIVED):
        assert set(capabilities(status).values()) == {CapabilityStatus.INACTIVE}


def test_capabilities_name_the_four_money_movements():
    assert {capability.value for capability in capabilities(S.ACTIVE)} == {
        "fiat_payouts",
        "fiat_deposits",
        "crypto_payouts",
        "crypto_deposits",
    }


def test_the_sandbox_request_offers_exactly_the_sandbox_targets():
    assert {status.value for status in SandboxStatus} == {
        status.value for status in SANDBOX_TARGETS
    }
