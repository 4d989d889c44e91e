"""Tool confirmations: write tools called over MCP or by the assistant that wait for a
person (API.md 9). An owner reads the exact arguments and effect, then approves or
refuses; the call runs once, on approval."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._async._http import AsyncPager, AsyncResource
from corridor_client.models import ToolConfirmationDecision, ToolConfirmationRead


class AsyncToolConfirmations(AsyncResource):
    def list(
        self, *, status: str | None = None, limit: int | None = None
    ) -> AsyncPager[ToolConfirmationRead]:
        """Newest first; `status` PENDING, APPROVED, REFUSED, EXPIRED, …"""
        return self._list(
            "/v1/tool-confirmations", ToolConfirmationRead, status=status, limit=limit
        )

    async def retrieve(self, confirmation_id: str) -> ToolConfirmationRead:
        path = _calls.path("/v1/tool-confirmations/{}", confirmation_id)
        return await self._send(_calls.read(path), ToolConfirmationRead)

    async def decide(
        self,
        confirmation_id: str,
        params: ToolConfirmationDecision | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> ToolConfirmationRead:
        """`approved` true runs the call (once), false refuses it. An owner only: a
        console session or an unrestricted organization key, never the calling agent."""
        path = _calls.path("/v1/tool-confirmations/{}/decision", confirmation_id)
        body = _calls.body(ToolConfirmationDecision, params, fields)
        return await self._send(_calls.action(path, body, idempotency_key), ToolConfirmationRead)
