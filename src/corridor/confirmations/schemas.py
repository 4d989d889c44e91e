"""Wire shapes of tool confirmations (API.md 9)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, StrictBool

from corridor.confirmations.rules import ConfirmationStatus, current_status
from corridor.kit.schemas import RequestModel, ResponseModel, Timestamp
from corridor.models.confirmation import ToolConfirmationRecord


class ToolConfirmationRead(ResponseModel):
    id: str = Field(examples=["tcf_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    origin: str = Field(description="mcp (a client of /mcp) or assistant (a confirmation card)")
    tool: str = Field(examples=["create_transfer"])
    arguments: dict[str, Any] = Field(description="Exactly the arguments the call carries")
    arguments_sha256: str = Field(description="SHA-256 of the canonical JSON of tool and arguments")
    summary: str = Field(examples=["Send 25.00 USD from acc_… to Bob Builder (ext_…) by ACH"])
    effect: str = Field(description="What the dry run says would happen: amounts, fees, payee")
    credential: dict[str, Any] = Field(
        description="The credential that called: kind, id (key_…, usr_…), agentId, customerId"
    )
    status: ConfirmationStatus
    decided_by: str | None = Field(default=None, description="Who decided (usr_… or key_…)")
    decided_via: str | None = Field(
        default=None, description="console, api, mcp_form, mcp_elicitation or assistant"
    )
    decided_at: Timestamp | None = None
    executed_at: Timestamp | None = Field(
        default=None, description="When the approved call ran (it runs at most once)"
    )
    outcome: dict[str, Any] | None = Field(
        default=None, description="The call's result or error, once it ran"
    )
    expires_at: Timestamp | None = None
    created_at: Timestamp

    @classmethod
    def of(cls, record: ToolConfirmationRecord, now: Any) -> ToolConfirmationRead:
        return cls(
            id=record.id,
            origin=record.origin,
            tool=record.tool,
            arguments=record.arguments,
            arguments_sha256=record.arguments_sha256,
            summary=record.summary,
            effect=record.effect,
            credential={
                "kind": record.credential_kind,
                "id": record.actor_id,
                "agentId": record.agent_id,
                "customerId": record.customer_id,
            },
            status=current_status(record.status, record.expires_at, now),
            decided_by=record.decided_by,
            decided_via=record.decided_via,
            decided_at=record.decided_at,
            executed_at=record.executed_at,
            outcome=record.outcome,
            expires_at=record.expires_at,
            created_at=record.created_at,
        )


class ToolConfirmationDecision(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"approved": True}]})

    approved: StrictBool = Field(description="true approves the call, false refuses it")
