"""The request log's answers."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from corridor.kit.schemas import ResponseModel, Timestamp


class RequestLogRead(ResponseModel):
    id: str = Field(description="The request's id: its X-Request-Id (req_…)")
    credential_id: str = Field(
        description="The API key (key_…), OAuth grant (oag_…) or platform session (pss_…)"
    )
    credential_kind: str = Field(
        description="organization_key, agent_key, platform_session or oauth_grant"
    )
    method: str
    path: str = Field(description="The path, never the query string")
    status: int
    latency_ms: float = Field(description="From the request's arrival to the end of its answer")
    idempotency_key: str | None
    error_code: str | None = Field(description="The error's `code`, for a 4xx or 5xx")
    error_body: dict[str, Any] | None = Field(
        description="The error JSON the client got, for a 4xx or 5xx (never a request body)"
    )
    created_at: Timestamp
