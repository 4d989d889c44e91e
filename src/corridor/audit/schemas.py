"""The audit chain's answers."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from corridor.kit.schemas import ResponseModel, Timestamp


class AuditActor(ResponseModel):
    type: str = Field(
        description="agent_key, organization_key, console_user, oauth_grant, platform_session, "
        "api_key (a decision known by its key id only) or cli"
    )
    id: str = Field(description="The credential or user: key_…, usr_…, oag_…, pss_…")


class AuditEventRead(ResponseModel):
    id: str = Field(description="aud_…")
    sequence: int = Field(description="From 1 per organization, with no gaps")
    kind: str = Field(description="What was decided: agent.payment.allowed, … (API.md 9)")
    agent_id: str | None
    transfer_id: str | None
    mandate_id: str | None
    actor: AuditActor
    outcome: str
    detail: dict[str, Any]
    created_at: Timestamp
    previous_hash: str = Field(description="The hash of the record before (sequence 1: sha256:0…0)")
    hash: str = Field(
        description="sha256: and the hex SHA-256 of the RFC 8785 canonical JSON of this item "
        "without `hash`"
    )
