"""The scope catalog (API.md section 4): every scope a key, an OAuth grant or a tool names is
one member of `Scope`, with what it allows. Services, tools, the console, the OAuth consent
page, the OpenAPI security schemes and docs/scopes.md all take scopes from here."""

from __future__ import annotations

from enum import StrEnum

UNRESTRICTED = "*"


class Scope(StrEnum):
    description: str

    def __new__(cls, value: str, description: str) -> Scope:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member

    ORGANIZATIONS_READ = (
        "organizations:read",
        "Read the organization, its configuration, children and request log",
    )
    ORGANIZATIONS_WRITE = (
        "organizations:write",
        "Change the organization's settings and configuration, create child organizations",
    )
    API_KEYS_MANAGE = "api_keys:manage", "List, create and revoke organization API keys"
    CUSTOMERS_READ = (
        "customers:read",
        "Read customers, their verification, capabilities, bank accounts and wallets",
    )
    CUSTOMERS_WRITE = (
        "customers:write",
        "Create and update customers and their bank accounts and wallets, submit verification",
    )
    ACCOUNTS_READ = "accounts:read", "Read balance accounts, balances, statements and deposits"
    ACCOUNTS_WRITE = (
        "accounts:write",
        "Includes accounts:read; no operation asks for more than accounts:read yet",
    )
    TRANSFERS_READ = "transfers:read", "Read transfers, quotes, fixed routes and receipts"
    TRANSFERS_WRITE = (
        "transfers:write",
        "Create, submit and cancel transfers (money moves), make quotes and fixed routes",
    )
    COUNTERPARTIES_READ = "counterparties:read", "Read counterparties (payees)"
    COUNTERPARTIES_WRITE = "counterparties:write", "Create, change and delete counterparties"
    DOCUMENTS_READ = "documents:read", "Read customers' documents"
    DOCUMENTS_WRITE = "documents:write", "Upload and delete customers' documents"
    WEBHOOKS_MANAGE = "webhooks:manage", "Manage webhook endpoints and read their deliveries"
    AGENTS_MANAGE = "agents:manage", "Create and change agents, their keys, limits and mandates"
    SANDBOX_WRITE = "sandbox:write", "Sandbox helpers: fund accounts, simulate deposits and rails"


KNOWN_SCOPES: frozenset[Scope] = frozenset(Scope)

# Spec 5.4: an agent key's fixed scopes.
AGENT_KEY_SCOPES: frozenset[Scope] = frozenset(
    {Scope.TRANSFERS_READ, Scope.TRANSFERS_WRITE, Scope.ACCOUNTS_READ, Scope.CUSTOMERS_READ}
)


_BY_NAME: dict[str, Scope] = {scope.value: scope for scope in Scope}


def scope_named(name: str) -> Scope | None:
    """The catalog's scope of this name, or None."""
    return _BY_NAME.get(name)


def implies(granted: frozenset[str], wanted: str) -> bool:
    """A write scope includes the matching read scope."""
    if UNRESTRICTED in granted or wanted in granted:
        return True
    resource, _, action = wanted.partition(":")
    return action == "read" and f"{resource}:write" in granted


def catalog_markdown() -> str:
    """The catalog as a Markdown table (docs/scopes.md holds it; a test keeps them equal)."""
    rows = [f"| `{scope.value}` | {scope.description} |" for scope in Scope]
    return "\n".join(["| scope | allows |", "|---|---|", *rows])
