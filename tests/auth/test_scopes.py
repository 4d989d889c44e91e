"""Scopes of organization keys (pure): each grants what it names, a write its read."""

from __future__ import annotations

import itertools

import pytest

from corridor.auth.scopes import AGENT_KEY_SCOPES, KNOWN_SCOPES, UNRESTRICTED, implies


def _granted_by_name(granted: str, wanted: str) -> bool:
    """The rule spelled out from the names alone: itself, or the read of its own write."""
    resource, _, action = granted.partition(":")
    return wanted == granted or (action == "write" and wanted == f"{resource}:read")


@pytest.mark.parametrize(
    ("granted", "wanted"), list(itertools.product(sorted(KNOWN_SCOPES), sorted(KNOWN_SCOPES)))
)
def test_a_single_scope_grants_exactly_what_it_names(granted, wanted):
    assert implies(frozenset({granted}), wanted) is _granted_by_name(granted, wanted)


@pytest.mark.parametrize("wanted", sorted(KNOWN_SCOPES))
def test_unrestricted_grants_every_scope(wanted):
    assert implies(frozenset({UNRESTRICTED}), wanted)


@pytest.mark.parametrize("wanted", sorted(KNOWN_SCOPES))
def test_no_scopes_grant_nothing(wanted):
    assert not implies(frozenset(), wanted)


def test_read_never_implies_write():
    for scope in KNOWN_SCOPES:
        resource, _, action = scope.partition(":")
        if action == "read":
            assert not implies(frozenset({scope}), f"{resource}:write")


def test_manage_scopes_imply_no_read_scope():
    assert not implies(frozenset({"webhooks:manage"}), "webhooks:read")
    assert not implies(frozenset({"api_keys:manage", "agents:manage"}), "organizations:read")


def test_several_scopes_grant_their_union_only():
    granted = frozenset({"customers:write", "transfers:read"})
    allowed = {wanted for wanted in KNOWN_SCOPES if implies(granted, wanted)}
    assert allowed == {"customers:write", "customers:read", "transfers:read"}


def test_every_write_scope_has_its_read_scope():
    for scope in KNOWN_SCOPES:
        resource, _, action = scope.partition(":")
        if action == "write" and resource != "sandbox":
            assert f"{resource}:read" in KNOWN_SCOPES


def test_agent_keys_have_the_four_fixed_scopes_of_spec_5_4():
    assert AGENT_KEY_SCOPES == {
        "transfers:read",
        "transfers:write",
        "accounts:read",
        "customers:read",
    }
    assert AGENT_KEY_SCOPES <= KNOWN_SCOPES
