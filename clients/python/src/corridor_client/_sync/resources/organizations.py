# Generated from corridor_client/_async/resources/organizations.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Organizations, API keys and console sessions."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import (
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeyRead,
    ConfigurationRead,
    ConfigurationUpdate,
    ConsoleSessionCreate,
    ConsoleSessionCreated,
    OrganizationCreate,
    OrganizationRead,
    OrganizationUpdate,
    RequestLogRead,
)


class Organizations(Resource):
    def current(self) -> OrganizationRead:
        """The organization of the credentials in use."""
        return self._send(_calls.read("/v1/organizations/current"), OrganizationRead)

    def update_current(
        self, params: OrganizationUpdate | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> OrganizationRead:
        body = _calls.body(OrganizationUpdate, params, fields)
        return self._send(_calls.update("/v1/organizations/current", body), OrganizationRead)

    def configuration(self) -> ConfigurationRead:
        """Balance currencies, thresholds and the other settings of the organization."""
        return self._send(_calls.read("/v1/organizations/current/configuration"), ConfigurationRead)

    def update_configuration(
        self, params: ConfigurationUpdate | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> ConfigurationRead:
        body = _calls.body(ConfigurationUpdate, params, fields)
        return self._send(
            _calls.update("/v1/organizations/current/configuration", body), ConfigurationRead
        )

    def create(
        self,
        params: OrganizationCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> OrganizationRead:
        """A child organization of the current one."""
        body = _calls.body(OrganizationCreate, params, fields)
        return self._send(
            _calls.create("/v1/organizations", body, idempotency_key), OrganizationRead
        )

    def list(self, *, limit: int | None = None) -> Pager[OrganizationRead]:
        """The organizations in scope: the current one and its children."""
        return self._list("/v1/organizations", OrganizationRead, limit=limit)

    def retrieve(self, organization_id: str) -> OrganizationRead:
        return self._send(
            _calls.read(_calls.path("/v1/organizations/{}", organization_id)), OrganizationRead
        )


class ApiKeys(Resource):
    def create(
        self,
        params: ApiKeyCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> ApiKeyCreated:
        """A new organization key (`scopes=["*"]` for an unrestricted one); its `secret`
        is in this answer only. Sent without an Idempotency-Key unless you give one: the
        server would keep the answer, secret included, to replay it (see docs/decisions.md)."""
        body = _calls.body(ApiKeyCreate, params, fields)
        return self._send(_calls.action("/v1/api-keys", body, idempotency_key), ApiKeyCreated)

    def list(self, *, limit: int | None = None) -> Pager[ApiKeyRead]:
        return self._list("/v1/api-keys", ApiKeyRead, limit=limit)

    def revoke(self, key_id: str) -> None:
        self._send_for_nothing(_calls.delete(_calls.path("/v1/api-keys/{}", key_id)))


class RequestLogs(Resource):
    """The organization's API requests of the last days (needs `organizations:read`)."""

    def list(
        self,
        *,
        api_key_id: str | None = None,
        status: str | None = None,
        method: str | None = None,
        path_prefix: str | None = None,
        q: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        limit: int | None = None,
    ) -> Pager[RequestLogRead]:
        """Newest first. `status` is one (`404`) or a class (`4xx`); `path_prefix` the
        start of the path; `q` searches paths, error codes, Idempotency-Keys and request ids."""
        query: dict[str, Any] = {
            "apiKeyId": api_key_id,
            "status": status,
            "method": method,
            "path": path_prefix,
            "q": q,
            "createdAfter": created_after,
            "createdBefore": created_before,
            "limit": limit,
        }
        return self._list("/v1/request-logs", RequestLogRead, **query)

    def retrieve(self, request_id: str) -> RequestLogRead:
        """One request by its id (its X-Request-Id)."""
        path = _calls.path("/v1/request-logs/{}", request_id)
        return self._send(_calls.read(path), RequestLogRead)


class ConsoleSessions(Resource):
    def create(
        self, params: ConsoleSessionCreate | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> ConsoleSessionCreated:
        """Sign a console user in (`email`, `password`): a `cs_…` token to use as api_key.
        The server takes no Idempotency-Key here, so a failed sign-in is not retried."""
        body = _calls.body(ConsoleSessionCreate, params, fields)
        return self._send(_calls.action("/v1/console/sessions", body), ConsoleSessionCreated)

    def delete_current(self) -> None:
        """Sign out the session whose token this client uses."""
        self._send_for_nothing(_calls.delete("/v1/console/sessions/current"))
