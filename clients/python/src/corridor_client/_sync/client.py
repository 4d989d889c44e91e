# Generated from corridor_client/_async/client.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Corridor: the client, one attribute per group of operations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import httpx

from corridor_client import _calls
from corridor_client._retries import RetryPolicy
from corridor_client._sync._http import Transport
from corridor_client._sync.resources.accounts import Accounts
from corridor_client._sync.resources.agents import AgentMandatesById, Agents
from corridor_client._sync.resources.assistant import Assistant
from corridor_client._sync.resources.audit import AuditEvents
from corridor_client._sync.resources.bank_files import BankFiles
from corridor_client._sync.resources.customers import Customers, TermsOfService
from corridor_client._sync.resources.documents import Documents
from corridor_client._sync.resources.oauth_grants import OAuthGrants
from corridor_client._sync.resources.organizations import (
    ApiKeys,
    ConsoleSessions,
    Organizations,
    RequestLogs,
)
from corridor_client._sync.resources.parties import (
    Counterparties,
    ExternalAccounts,
    ExternalWallets,
)
from corridor_client._sync.resources.reconciliation import Reconciliation
from corridor_client._sync.resources.sandbox import Sandbox
from corridor_client._sync.resources.tool_confirmations import ToolConfirmations
from corridor_client._sync.resources.transfers import (
    FixedRoutes,
    Quotes,
    Transfers,
)
from corridor_client._sync.resources.webhooks import Webhooks
from corridor_client.errors import error_from_response
from corridor_client.models import Health, Readiness

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
timeout_default_s = 30.0


class Corridor:
    """A client of one Corridor server.

    `api_key` is an organization key (`sk_sandbox_…`), an agent key or a console session
    token; it defaults to `$CORRIDOR_API_KEY`, and `base_url` to `$CORRIDOR_BASE_URL`, then
    http://127.0.0.1:8000. Close it when done (or use it as a context manager)."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout_s: float = timeout_default_s,
        retry_policy: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
        signing_key: Any = None,
    ) -> None:
        """`signing_key`: an agent's Ed25519 or ECDSA P-256 private key (a cryptography key
        object or PEM); every request is then signed (RFC 9421) for an agent whose owner
        bound the public key (`corridor_client.public_jwk(key)`)."""
        self._transport = Transport(
            api_key=api_key or os.environ.get("CORRIDOR_API_KEY"),
            base_url=base_url or os.environ.get("CORRIDOR_BASE_URL") or DEFAULT_BASE_URL,
            timeout_s=timeout_s,
            retry_policy=retry_policy or RetryPolicy(),
            http_client=http_client,
            headers=headers,
            signing_key=signing_key,
        )
        transport = self._transport
        self.organizations = Organizations(transport)
        self.api_keys = ApiKeys(transport)
        self.request_logs = RequestLogs(transport)
        self.audit_events = AuditEvents(transport)
        self.console_sessions = ConsoleSessions(transport)
        self.terms_of_service = TermsOfService(transport)
        self.customers = Customers(transport)
        self.accounts = Accounts(transport)
        self.documents = Documents(transport)
        self.counterparties = Counterparties(transport)
        self.external_accounts = ExternalAccounts(transport)
        self.external_wallets = ExternalWallets(transport)
        self.transfers = Transfers(transport)
        self.quotes = Quotes(transport)
        self.fixed_routes = FixedRoutes(transport)
        self.agents = Agents(transport)
        self.agent_mandates = AgentMandatesById(transport)
        self.webhooks = Webhooks(transport)
        self.bank_files = BankFiles(transport)
        self.reconciliation = Reconciliation(transport)
        self.sandbox = Sandbox(transport)
        self.assistant = Assistant(transport)
        self.tool_confirmations = ToolConfirmations(transport)
        self.oauth_grants = OAuthGrants(transport)

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    def health(self) -> Health:
        """The server's health (no credentials needed)."""
        call = _calls.read("/v1/health")
        return _calls.parse(self._transport.send(call), Health, call)

    def readiness(self) -> Readiness:
        """Whether the server should get traffic (no credentials needed): `status` ready or
        not_ready with each check. A not-ready server answers 503; that answer is returned
        too, after one attempt, not raised or retried."""
        call = _calls.read("/v1/health/ready")
        response = self._transport.send_once(call)
        if response.status_code not in (200, 503):
            raise error_from_response(response)
        return _calls.parse(response, Readiness, call)

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Corridor:
        return self

    def __exit__(
        self,
        exception_type: type[BaseException] | None,
        exception: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
