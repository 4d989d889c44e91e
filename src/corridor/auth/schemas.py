"""Wire shapes of API keys and console sessions."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictStr

from corridor.auth.callers import ToolConfirmation
from corridor.kit.schemas import RequestModel, ResponseModel, ShownOnce, SingleLineText, Timestamp

# What an idempotent replay of a key's creation says in place of the secret.
KEY_REPLAY_NOTE = (
    "The secret is shown once, in the first answer to this request, and is never stored, so "
    "this replay cannot show it. If it was lost, revoke this key and create another."
)


TOOL_CONFIRMATION_DESCRIPTION = (
    "When a write tool (MCP) called with this key waits for a person to confirm it: `always`, "
    "`over_limit` (only what would exceed its agent's limits or mandate) or `never`."
)


class ApiKeyCreate(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "Payouts backend", "scopes": ["transfers:read", "transfers:write"]},
                {"name": "Admin script", "scopes": ["*"]},
            ]
        }
    )

    name: Annotated[
        SingleLineText, Field(min_length=1, max_length=200, examples=["Payouts backend"])
    ]
    scopes: Annotated[
        list[Annotated[StrictStr, Field(max_length=40)]],
        Field(max_length=32, examples=[["*"], ["transfers:read", "transfers:write"]]),
    ]
    tool_confirmation: ToolConfirmation | None = Field(
        default=None,
        description=TOOL_CONFIRMATION_DESCRIPTION + " Left out: always. Only an owner (console "
        "session or unrestricted key) may set a weaker policy.",
    )


class ApiKeyUpdate(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"toolConfirmation": "never"}]})

    tool_confirmation: ToolConfirmation = Field(description=TOOL_CONFIRMATION_DESCRIPTION)


class ApiKeyRead(ResponseModel):
    id: str = Field(examples=["key_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    name: str
    scopes: list[str]
    prefix: str = Field(
        examples=["sk_sandbox_Ab3dE9"], description="The visible start of the secret"
    )
    tool_confirmation: ToolConfirmation = Field(description=TOOL_CONFIRMATION_DESCRIPTION)
    created_at: Timestamp
    revoked_at: Timestamp | None = None


class ApiKeyCreated(ApiKeyRead, ShownOnce):
    secret_fields = ("secret",)
    replay_note = KEY_REPLAY_NOTE

    secret: str | None = Field(
        description="The whole secret. Shown only in this response: store it now. null in an "
        "idempotent replay of this request (`secretNote` says why): the secret is never stored."
    )


class ConsoleSessionCreate(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"email": "owner@example.com", "password": "correct horse battery staple"}]
        }
    )

    email: Annotated[StrictStr, Field(min_length=3, max_length=320, examples=["owner@example.com"])]
    password: Annotated[StrictStr, Field(min_length=1, max_length=200)]


class ConsoleUserRead(ResponseModel):
    id: str
    email: str


CSRF_TOKEN_DESCRIPTION = (
    "Send it in the X-Corridor-CSRF header with every request that changes something and is "
    "authenticated by the session cookie alone (bearer requests need none). Tied to this "
    "session; GET /v1/console/sessions/current returns it again."
)


class ConsoleSessionCreated(ResponseModel):
    token: str = Field(description="Bearer token (cs_…), valid for 12 hours")
    expires_at: Timestamp
    user: ConsoleUserRead
    csrf_token: str = Field(description=CSRF_TOKEN_DESCRIPTION)


class ConsoleSessionRead(ResponseModel):
    expires_at: Timestamp
    user: ConsoleUserRead
    csrf_token: str = Field(description=CSRF_TOKEN_DESCRIPTION)
