# Generated from corridor_client/_async/resources/audit.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""The organization's tamper-evident audit chain."""

from __future__ import annotations

import builtins
import json
from datetime import datetime
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import AuditEventRead


def _filters(
    agent_id: str | None,
    transfer_id: str | None,
    kind: str | None,
    created_after: datetime | None,
    created_before: datetime | None,
) -> dict[str, Any]:
    return {
        "agentId": agent_id,
        "transferId": transfer_id,
        "kind": kind,
        "createdAfter": created_after,
        "createdBefore": created_before,
    }


class AuditEvents(Resource):
    """Every agent decision, owner decision, agent key issued or revoked and write-tool
    confirmation, each linked to the one before by its hash (needs `organizations:read`;
    an agent's key reads its own agent's records)."""

    def list(
        self,
        *,
        agent_id: str | None = None,
        transfer_id: str | None = None,
        kind: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        limit: int | None = None,
    ) -> Pager[AuditEventRead]:
        """Newest first."""
        query = _filters(agent_id, transfer_id, kind, created_after, created_before)
        return self._list("/v1/audit-events", AuditEventRead, **query, limit=limit)

    def retrieve(self, event_id: str) -> AuditEventRead:
        path = _calls.path("/v1/audit-events/{}", event_id)
        return self._send(_calls.read(path), AuditEventRead)

    def export(
        self,
        *,
        agent_id: str | None = None,
        transfer_id: str | None = None,
        kind: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """Every record the filters select, oldest first (sequence order), as the JSON
        objects the server hashed: verify them offline (docs, "Audit chain")."""
        query = _filters(agent_id, transfer_id, kind, created_after, created_before)
        call = _calls.read("/v1/audit-events/export", _calls.query(**query))
        response = self._transport.send(call)
        return [json.loads(line) for line in response.text.splitlines() if line.strip()]
