# Generated from corridor_client/_async/resources/oauth_grants.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Connected apps: MCP clients an owner connected by OAuth (docs/mcp.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import OAuthGrantRead, OAuthGrantUpdate


class OAuthGrants(Resource):
    def list(self, *, limit: int | None = None) -> Pager[OAuthGrantRead]:
        """Newest first, revoked ones included (`revoked_at` set)."""
        return self._list("/v1/oauth-grants", OAuthGrantRead, limit=limit)

    def retrieve(self, grant_id: str) -> OAuthGrantRead:
        path = _calls.path("/v1/oauth-grants/{}", grant_id)
        return self._send(_calls.read(path), OAuthGrantRead)

    def update(
        self,
        grant_id: str,
        params: OAuthGrantUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> OAuthGrantRead:
        """`tool_confirmation`: when its write tool calls wait for a person."""
        path = _calls.path("/v1/oauth-grants/{}", grant_id)
        body = _calls.body(OAuthGrantUpdate, params, fields)
        return self._send(_calls.update(path, body), OAuthGrantRead)

    def revoke(self, grant_id: str) -> OAuthGrantRead:
        """Immediate and final: the app's tokens stop working at once."""
        path = _calls.path("/v1/oauth-grants/{}/revoke", grant_id)
        return self._send(_calls.action(path, None), OAuthGrantRead)
