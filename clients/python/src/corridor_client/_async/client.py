"""AsyncCorridor: the client, one attribute per group of operations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import httpx

from corridor_client import _calls
from corridor_client._async._http import AsyncTransport
from corridor_client._async.resources.accounts import AsyncAccounts
from corridor_client._async.resources.agents import AsyncAgentMandatesById, AsyncAgents
from corridor_client._async.resources.assistant import AsyncAssistant
from corridor_client._async.resources.audit import AsyncAuditEvents
from corridor_client._async.resources.bank_files import AsyncBankFiles
from corridor_client._async.resources.customers import AsyncCustomers, AsyncTermsOfService
from corridor_client._async.resources.documents import AsyncDocuments
from corridor_client._async.resources.oauth_grants import AsyncOAuthGrants
from corridor_client._async.resources.organizations import (
    AsyncApiKeys,
    AsyncConsoleSessions,
    AsyncOrganizations,
    AsyncRequestLogs,
)
from corridor_client._async.resources.parties import (
    AsyncCounterparties,
    AsyncExternalAccounts,
    AsyncExternalWallets,
)
from corridor_client._async.resources.reconciliation import AsyncReconciliation
from corridor_client._async.resources.sandbox import AsyncSandbox
from corridor_client._async.resources.tool_confirmations import AsyncToolConfirmations
from corridor_client._async.resources.transfers import (
    AsyncFixedRoutes,
    AsyncQuotes,
    AsyncTransfers,
)
from corridor_client._async.resources.webhooks import AsyncWebhooks
from corridor_client._retries import RetryPolicy
from corridor_client.errors import error_from_response
from corridor_client.models import Health, Readiness

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
timeout_default_s = 30.0


class AsyncCorridor:
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
        http_client: httpx.AsyncClient | None = None,
        signing_key: Any = None,
    ) -> None:
        """`signing_key`: an agent's Ed25519 or ECDSA P-256 private key (a cryptography key
        object or PEM); every request is then signed (RFC 9421) for an agent whose owner
        bound the public key (`corridor_client.public_jwk(key)`)."""
        self._transport = AsyncTransport(
            api_key=api_key or os.environ.get("CORRIDOR_API_KEY"),
            base_url=base_url or os.environ.get("CORRIDOR_BASE_URL") or DEFAULT_BASE_URL,
            timeout_s=timeout_s,
            retry_policy=retry_policy or RetryPolicy(),
            http_client=http_client,
            headers=headers,
            signing_key=signing_key,
        )
        transport = self._transport
        self.organizations = AsyncOrganizations(transport)
        self.api_keys = AsyncApiKeys(transport)
        self.request_logs = AsyncRequestLogs(transport)
        self.audit_events = AsyncAuditEvents(transport)
        self.console_sessions = AsyncConsoleSessions(transport)
        self.terms_of_service = AsyncTermsOfService(transport)
        self.customers = AsyncCustomers(transport)
        self.accounts = AsyncAccounts(transport)
        self.documents = AsyncDocuments(transport)
        self.counterparties = AsyncCounterparties(transport)
        self.external_accounts = AsyncExternalAccounts(transport)
        self.external_wallets = AsyncExternalWallets(transport)
        self.transfers = AsyncTransfers(transport)
        self.quotes = AsyncQuotes(transport)
        self.fixed_routes = AsyncFixedRoutes(transport)
        self.agents = AsyncAgents(transport)
        self.agent_mandates = AsyncAgentMandatesById(transport)
        self.webhooks = AsyncWebhooks(transport)
        self.bank_files = AsyncBankFiles(transport)
        self.reconciliation = AsyncReconciliation(transport)
        self.sandbox = AsyncSandbox(transport)
        self.assistant = AsyncAssistant(transport)
        self.tool_confirmations = AsyncToolConfirmations(transport)
        self.oauth_grants = AsyncOAuthGrants(transport)

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    async def health(self) -> Health:
        """The server's health (no credentials needed)."""
        call = _calls.read("/v1/health")
        return _calls.parse(await self._transport.send(call), Health, call)

    async def readiness(self) -> Readiness:
        """Whether the server should get traffic (no credentials needed): `status` ready or
        not_ready with each check. A not-ready server answers 503; that answer is returned
        too, after one attempt, not raised or retried."""
        call = _calls.read("/v1/health/ready")
        response = await self._transport.send_once(call)
        if response.status_code not in (200, 503):
            raise error_from_response(response)
        return _calls.parse(response, Readiness, call)

    async def aclose(self) -> None:
        await self._transport.aclose()

    async def __aenter__(self) -> AsyncCorridor:
        return self

    async def __aexit__(
        self,
        exception_type: type[BaseException] | None,
        exception: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
