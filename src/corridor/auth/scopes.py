"""Scopes of organization keys (API.md section 4)."""

from __future__ import annotations

UNRESTRICTED = "*"

KNOWN_SCOPES = frozenset(
    {
        "organizations:read",
        "organizations:write",
        "api_keys:manage",
        "customers:read",
        "customers:write",
        "accounts:read",
        "accounts:write",
        "transfers:read",
        "transfers:write",
        "counterparties:read",
        "counterparties:write",
        "documents:read",
        "documents:write",
        "webhooks:manage",
        "agents:manage",
        "sandbox:write",
    }
)

# Spec 5.4: an agent key's fixed scopes.
AGENT_KEY_SCOPES = frozenset(
    {"transfers:read", "transfers:write", "accounts:read", "customers:read"}
)


def implies(granted: frozenset[str], wanted: str) -> bool:
    """A write scope includes the matching read scope."""
    if UNRESTRICTED in granted or wanted in granted:
        return True
    resource, _, action = wanted.partition(":")
    return action == "read" and f"{resource}:write" in granted
