"""The typed caller every service call carries (API.md section 4)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from corridor.auth.scopes import UNRESTRICTED, Scope, implies
from corridor.kit.errors import CustomerBindingRequired, Forbidden

# The actor id of the server's operator (the CLI), recorded on what it creates.
OPERATOR_ACTOR = "cli"
OAUTH_GRANT_CREDENTIAL = "oauth_grant"


class ToolConfirmation(StrEnum):
    """When a write tool called with this credential waits for a person (API.md 9): every
    write, only one past an agent's limits or mandate, or never."""

    ALWAYS = "always"
    OVER_LIMIT = "over_limit"
    NEVER = "never"


class CallerKind(StrEnum):
    CONSOLE_USER = "console_user"
    ORGANIZATION_KEY = "organization_key"
    AGENT_KEY = "agent_key"
    PLATFORM_SESSION = "platform_session"


@dataclass(frozen=True, slots=True)
class Caller:
    kind: CallerKind
    organization_id: str
    # usr_… for a console user, key_… for a key.
    actor_id: str
    scopes: frozenset[str]
    # Agent keys speak for one agent, confined to its customer and funding account.
    agent_id: str | None = None
    # The one customer this caller acts for: an agent's customer, or the customer a
    # platform session (or any key, through X-Corridor-On-Behalf-Of) is bound to.
    customer_id: str | None = None
    account_ids: frozenset[str] | None = None
    # The credential's write-tool confirmation policy (API keys, OAuth grants); console
    # users confirm in the assistant's cards instead.
    tool_confirmation: ToolConfirmation = ToolConfirmation.NEVER
    # An OAuth grant's access token (oauth/): `actor_id` is the grant (oag_…), and the
    # caller holds exactly the scopes its owner granted.
    oauth_grant: bool = False

    @classmethod
    def operator(cls, organization_id: str) -> Caller:
        """Whoever runs the `corridor` command on the server: the database is theirs, so
        they act with a console user's powers (the CLI's keys commands)."""
        return cls(
            CallerKind.CONSOLE_USER, organization_id, OPERATOR_ACTOR, frozenset({UNRESTRICTED})
        )

    @property
    def credential_kind(self) -> str:
        """What the credential is, as records name it: the caller kind, or oauth_grant."""
        return OAUTH_GRANT_CREDENTIAL if self.oauth_grant else self.kind.value

    @property
    def is_console(self) -> bool:
        return self.kind is CallerKind.CONSOLE_USER

    @property
    def is_unrestricted(self) -> bool:
        """A console session or an organization key with scopes ["*"] (an OAuth grant never
        is one: its owner ticks scopes of the catalog)."""
        if self.oauth_grant:
            return False
        if self.kind is CallerKind.CONSOLE_USER:
            return True
        return self.kind is CallerKind.ORGANIZATION_KEY and UNRESTRICTED in self.scopes

    def has_scope(self, scope: Scope) -> bool:
        if self.kind is CallerKind.CONSOLE_USER:
            return True
        return implies(self.scopes, scope)

    def require_scope(self, scope: Scope) -> None:
        if not self.has_scope(scope):
            raise Forbidden(f"This credential lacks the scope {str(scope)!r}")

    def require_unrestricted(self, action: str) -> None:
        if not self.is_unrestricted:
            raise Forbidden(
                f"Only a console session or an unrestricted organization key may {action}"
            )

    def require_console(self, action: str) -> None:
        if not self.is_console:
            raise Forbidden(f"Only a console session may {action}")

    def require_customer_binding(self) -> str | None:
        """Platform sessions act only once bound to a customer (spec 5.7)."""
        if self.kind is CallerKind.PLATFORM_SESSION and self.customer_id is None:
            raise CustomerBindingRequired()
        return self.customer_id

    def may_see_customer(self, customer_id: str) -> bool:
        return self.customer_id is None or self.customer_id == customer_id

    def may_see_account(self, account_id: str, customer_id: str | None) -> bool:
        if self.account_ids is not None and account_id not in self.account_ids:
            return False
        return self.customer_id is None or self.customer_id == customer_id

    def bound_to(self, customer_id: str) -> Caller:
        return replace(self, customer_id=customer_id)
