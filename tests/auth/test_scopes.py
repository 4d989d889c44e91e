"""Scopes of organization keys (pure): each grants what it names, a write its read."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from corridor.auth.scopes import (
    AGENT_KEY_SCOPES,
    KNOWN_SCOPES,
    UNRESTRICTED,
    Scope,
    catalog_markdown,
    implies,
    scope_named,
)


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


def test_the_catalog_is_one_enum_with_a_description_per_scope():
    assert KNOWN_SCOPES == frozenset(Scope)
    for scope in Scope:
        assert scope.description.strip(), scope
        assert scope_named(scope.value) is scope
    assert scope_named("transfers:delete") is None


def test_docs_scopes_page_holds_the_catalog():
    page = (Path(__file__).parents[2] / "docs" / "scopes.md").read_text()
    assert catalog_markdown() in page


# Where a scope may be spelled out as text: the catalog, and request examples of the API.
_SPELLED_OUT_ALLOWED = {"auth/scopes.py", "auth/schemas.py", "agents/schemas.py"}


def test_no_module_spells_out_a_scope_the_catalog_holds():
    """Services, tools and pages name `Scope.X`, never the string: one catalog."""
    package = Path(__file__).parents[2] / "src" / "corridor"
    names = "|".join(re.escape(scope.value) for scope in Scope)
    pattern = re.compile(rf"""["']({names})["']""")
    offenders = [
        f"{path.relative_to(package)}: {found.group(1)}"
        for path in package.rglob("*.py")
        if path.relative_to(package).as_posix() not in _SPELLED_OUT_ALLOWED
        for found in pattern.finditer(path.read_text())
    ]
    assert offenders == []


def test_every_tool_names_a_catalog_scope():
    from corridor.tools.catalog import TOOLS

    assert all(isinstance(tool.scope, Scope) for tool in TOOLS)
